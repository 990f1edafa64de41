"""``--clock cpu`` charges an external bot its own process tree's CPU time only (issue 40).

Waiting for a reply costs the bot nothing, however much CPU the arena's
process spends meanwhile; waiting is bounded by the wall cap, with its own
message; a bot that burns CPU is stopped for its CPU time. The bot under
test has the limit, its opponent none, and the outcomes hang on CPU time
or on wide wall margins, not on the machine's load.
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents import movetime
from agents.external import make_external
from agents.play import play_game
from agents.random_agent import RandomAgent

BOT = '''
import json, random, sys, time
rng = random.Random(0)
opts = dict(a.split("=", 1) for a in sys.argv[1:])
sleep, times, burn = float(opts.get("sleep", 0)), int(opts.get("times", 1 << 30)), float(opts.get("burn", 0))
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "clocked", "version": "0", "protocol": "1.0"}), flush=True)
    elif msg["type"] == "request":
        n += 1
        if n <= times:
            time.sleep(sleep)
            t = time.process_time()
            while time.process_time() - t < burn:
                pass
        action = rng.choice(msg["legal"])["id"]
        print(json.dumps({"type": "action", "id": msg["id"], "action": action}), flush=True)
    elif msg["type"] == "quit":
        break
'''


def play(tmp_path: Path, move_time: float, **opts: object) -> dict | None:
    script = tmp_path / "clocked_bot.py"
    script.write_text(BOT)
    words = [sys.executable, "-S", str(script), *(f"{k}={v}" for k, v in opts.items())]
    bot = make_external(f"logs={tmp_path / 'logs'} {shlex.join(words)}")
    try:
        rec = play_game(bot, RandomAgent(), seed=1, unit="deal", move_time=(move_time, None), clock="cpu")
    finally:
        bot.close()
    assert rec.forfeit is None or rec.forfeit["seat"] == 0
    return rec.forfeit


@pytest.fixture
def busy_arena() -> Iterator[None]:
    """A thread of the arena's process burns CPU during the game: none of it is the bot's."""
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def test_waiting_is_not_charged_as_cpu(tmp_path, busy_arena):
    """1 s of sleep per move at 0.1 s of CPU time: under the wall cap (30 * 0.1 + 2 = 5 s), no forfeit,
    though the arena's process spends more than 0.1 s of CPU during each wait."""
    assert movetime.wall_cap(0.1) == pytest.approx(5.0)
    assert play(tmp_path, 0.1, sleep=1, times=2) is None


def test_waiting_past_the_wall_cap_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(movetime, "WALL_CAP", 10.0)  # a cap of 10 * 0.1 + 0.5 = 1.5 s keeps the test short
    monkeypatch.setattr(movetime, "WALL_SLACK", 0.5)
    forfeit = play(tmp_path, 0.1, sleep=30, times=1)
    assert forfeit is not None and forfeit["kind"] == "time"
    assert "1.5s of wall time (the cap" in forfeit["detail"] and "CPU time," not in forfeit["detail"]


def test_burning_cpu_is_stopped_for_its_cpu_time(tmp_path):
    forfeit = play(tmp_path, 0.1, burn=60, times=1)
    assert forfeit is not None and forfeit["kind"] == "time"
    assert "s of CPU time, budget 0.1s" in forfeit["detail"] and "wall" not in forfeit["detail"]
