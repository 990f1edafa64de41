"""A bot's CPU time: counted for every process it starts, kept when a process ends, never negative.

A process that ends (a crash, a forfeit) keeps the CPU time it used, so a
game's ``cpu`` is never negative and ``--resume`` takes the line as it is.
Children reaped without a wait (the bot ignores ``SIGCHLD``) are counted
from what the samples saw of them: a bot cannot hide its work in them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from external_helpers import spec

from agents.arena import run
from agents.arena.lines import game_problem
from agents.external import ExternalAgent
from agents.play import play_game
from agents.protocol.process import BotProcess
from agents.random_agent import RandomAgent

LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CPU time is read from /proc")

# Burns ``startup`` s of CPU at the handshake, answers with the first legal action, and exits with
# status 3 at request ``crash_at`` (0: never). With ``children=K:S`` it first runs K children one
# after the other, each burning S s of CPU, the way ``how`` says: "wait" (waits for each), "ignore"
# (SIGCHLD ignored: the kernel reaps them, and their time never reaches the bot's cutime),
# "double" (each forks a grandchild that does the work, and exits at once).
BOT = """
import json, os, signal, sys, time
opts = dict(a.split("=", 1) for a in sys.argv[1:])
startup, crash_at = float(opts.get("startup", 0)), int(opts.get("crash_at", 0))
k, s = (float(x) for x in opts.get("children", "0:0").split(":"))
how = opts.get("how", "wait")
if how == "ignore":
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)

def burn(seconds):
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass

def child():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        if how == "double" and os.fork() != 0:
            os._exit(0)
        burn(s)
        os._exit(0)
    os.close(w)
    os.read(r, 1)  # end of file: the worker has ended
    os.close(r)
    if how != "ignore":
        os.waitpid(pid, 0)

n = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        burn(startup)
        print(json.dumps({"type": "hello", "name": "cpu", "version": "1", "protocol": "1.1"}), flush=True)
    elif m["type"] == "request":
        n += 1
        if n == crash_at:
            sys.exit(3)
        for _ in range(int(k)):
            child()
        print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]["id"]}), flush=True)
    elif m["type"] == "quit":
        break
"""


def _argv(tmp_path: Path, *words: str) -> list[str]:
    script = tmp_path / "cpu_bot.py"
    script.write_text(BOT)
    return [sys.executable, "-S", str(script), *words]


@LINUX
def test_a_crashed_bots_game_records_its_cpu_time_and_resumes_as_played(tmp_path, capsys):
    """The bot used 0.2 s of CPU before the game and crashed in it: the record's CPU time is not
    that 0.2 s below zero, and a resumed run replays no game."""
    bot = spec(_argv(tmp_path, "startup=0.2", "crash_at=2"), tmp_path / "logs")
    results = str(tmp_path / "results.jsonl")
    _, _, lines = run([bot, "random"], games=2, seed=2, unit="deal", results_path=results)
    for line in lines:
        assert line["forfeit"]["reason"] == "crash", line["forfeit"]
        assert line["cpu"]["cpu"] >= 0 and game_problem(line) is None, line["cpu"]
    capsys.readouterr()
    _, _, again = run([bot, "random"], games=2, seed=2, unit="deal", results_path=results, resume=True)
    assert "damaged" not in capsys.readouterr().err
    assert again == lines  # read back, none played again


@LINUX
def test_an_agents_cpu_time_never_goes_down_when_its_process_ends(tmp_path):
    bot = ExternalAgent(_argv(tmp_path, "startup=0.2", "crash_at=1"), log_dir=str(tmp_path / "logs"))
    try:
        bot.reset(1)
        before = bot.cpu_time()
        assert before >= 0.15
        rec = play_game(bot, RandomAgent(), seed=1, unit="deal")
        assert rec.forfeit["reason"] == "crash" and bot.pid is None
        assert bot.cpu_time() >= before
        bot.reset(2)  # the next game: a fresh process, the ended one's time still counted
        assert bot.pid is not None and bot.cpu_time() >= before + 0.15
    finally:
        bot.close()
    assert bot.cpu_time() >= before + 0.15


@LINUX
def test_a_process_keeps_the_cpu_time_it_used_after_it_exits(tmp_path):
    script = tmp_path / "burn.py"
    script.write_text("import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\n"
                      "print('done', flush=True)\n")
    proc = BotProcess((sys.executable, "-S", str(script)), str(tmp_path / "burn.log"))
    try:
        assert proc.recv(time.monotonic() + 30, "done") == b"done"
        assert proc.exit_status(30) == 0  # read as it exits, before it is reaped
        assert proc.cpu_seconds() >= 0.25
    finally:
        proc.stop(0, "test over")
    assert proc.cpu_seconds() >= 0.25


@LINUX
@pytest.mark.parametrize("how", ["wait", "ignore", "double"])
def test_work_in_children_counts_however_they_are_reaped(tmp_path, how):
    """Twenty children of 0.04 s each, one after the other, for one move of 0.3 s of CPU time: the
    move is over its limit whether the bot waits for them, ignores SIGCHLD or double-forks."""
    bot = ExternalAgent(_argv(tmp_path, "children=20:0.04", f"how={how}"), timeout=30.0,
                        log_dir=str(tmp_path / "logs"))
    try:
        rec = play_game(bot, RandomAgent(), seed=1, unit="deal", move_time=0.3, clock="cpu")
    finally:
        bot.close()
    f = rec.forfeit
    assert f is not None and f["seat"] == 0 and f["reason"] == "timeout" and "CPU" in f["detail"], f
    assert bot.cpu_time() >= 0.3


def test_the_ledger_charges_each_tick_once(monkeypatch):
    """Scripted samples of a tree, ``(pid, start): Seen(parent, own ticks, waited-for children's
    ticks)``: a child waited for is not charged twice, one reaped without a wait keeps its charge,
    a reused pid is another process."""
    from agents.protocol import cputime
    from agents.protocol.cputime import Seen, TreeCpu

    samples = iter([
        {(1, 0): Seen(0, 1, 0), (2, 5): Seen(1, 10, 0), (6, 5): Seen(1, 2, 0), (7, 6): Seen(6, 20, 0)},
        # 2 ended, waited for by 1 (+12: the 10 seen and 2 more); 6 ignores SIGCHLD: 7 took its 20 along
        {(1, 0): Seen(0, 1, 12), (6, 5): Seen(1, 3, 0)},
        {(1, 0): Seen(0, 1, 12), (6, 5): Seen(1, 3, 0), (4, 7): Seen(1, 3, 0), (5, 8): Seen(4, 4, 0)},
        # 5 ended (6 ticks) and 4 waited for it, then 4 ended (3 + 6) and 6 (3): 1 waited for both
        {(1, 0): Seen(0, 2, 12 + 9 + 3)},
        {(1, 0): Seen(0, 2, 24), (2, 9): Seen(1, 5, 0)},  # pid 2 again: another process
    ])
    monkeypatch.setattr(cputime, "scan", lambda root: next(samples))
    ledger = TreeCpu(1)
    ticks = []
    for _ in range(5):
        ledger.sample()
        ticks.append(ledger.ticks)
    assert ticks == [33, 36, 43, 46, 51]
