"""A bot's CPU time is its control group's: work in children reaped without a wait (``SIGCHLD``
ignored), each too short for a ``/proc`` sample to see, is charged in full, so at a 0.1 s CPU budget
such a bot forfeits on time and gains nothing."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from agents.external import ExternalAgent
from agents.play import play_game
from agents.protocol.cgroups import PROC_SAMPLES, metering
from agents.protocol.process import BotProcess
from agents.random_agent import RandomAgent

BOT = [sys.executable, "-S", str(Path(__file__).resolve().parent / "bots" / "cgroup_bot.py")]
pytestmark = pytest.mark.skipif(metering() == PROC_SAMPLES, reason="no cgroups here: CPU time is sampled")

# Every child ran a moment between two samples and was reaped by the kernel: what /proc shows at the end
# is only the bot itself, so these tests fail where the cgroup counter is not used.
REAPER = """
import os, signal, sys, time
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
for _ in range(60):
    r, w = os.pipe()
    if os.fork() == 0:
        t = time.process_time()
        while time.process_time() - t < 0.005:
            pass
        os._exit(0)
    os.close(w)
    os.read(r, 1)
    os.close(r)
print("done", flush=True)
sys.stdin.read()
"""


def test_children_reaped_without_a_wait_are_charged_in_full(tmp_path: Path) -> None:
    script = tmp_path / "reaper.py"
    script.write_text(REAPER)
    proc = BotProcess((sys.executable, "-S", str(script)), str(tmp_path / "reaper.log"))
    try:
        assert proc.recv(time.monotonic() + 60, "done") == b"done"
        charged = proc.cpu_seconds()
        assert charged >= 60 * 0.005, f"charged {charged:.3f} s of the 0.3 s its children burned"
    finally:
        proc.stop(0, "test over")
    assert proc.cpu_seconds() >= charged  # kept after its group is removed


def test_a_bot_searching_in_reaped_children_forfeits_at_a_tenth_of_a_second(tmp_path: Path) -> None:
    """100 children of 3 ms each per move: 0.3 s of CPU for a move of 0.1 s."""
    bot = ExternalAgent([*BOT, "reaper", "100", "0.003"], timeout=30.0, log_dir=str(tmp_path / "logs"))
    try:
        rec = play_game(bot, RandomAgent(), seed=1, unit="deal", move_time=0.1, clock="cpu")
    finally:
        bot.close()
    f = rec.forfeit
    assert f is not None and f["seat"] == 0 and f["reason"] == "timeout" and "CPU" in f["detail"], f
    assert bot.cpu_time() >= 0.1
