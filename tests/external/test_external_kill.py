"""No bot process outlives the arena, also when the arena is killed (SIGKILL, SIGTERM).

An arena runs in a subprocess with a slow external bot that has a grandchild
(a ``sleep`` that never reads its input, so only a process-group kill ends
it). Once every process has started, the arena is killed; every process it
started, directly or not, must be gone within a few seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from external_helpers import FAULTY, ROOT, logged_pids, spec, wait_for, wait_gone

ARENA = ("import sys; from agents.arena import run; "
         "run([sys.argv[1], 'random'], games=100000, workers=int(sys.argv[2]))")


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rpartition(")")[2].split()[1])
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux only")
@pytest.mark.parametrize(("sig", "workers"), [(signal.SIGKILL, 1), (signal.SIGTERM, 1), (signal.SIGKILL, 2)])
def test_killing_the_arena_ends_every_bot_process(tmp_path, sig, workers):
    bot = spec(FAULTY + ["slow=0.005", "grandchild=1"], tmp_path)
    arena = subprocess.Popen([sys.executable, "-c", ARENA, bot, str(workers)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # supervisor + bot + grandchild, per worker process that plays the bot
        pids = wait_for(lambda: len(logged_pids(tmp_path)) >= 3 and logged_pids(tmp_path), timeout=30)
        below = descendants(arena.pid)
        assert pids <= below
        os.kill(arena.pid, sig)
        assert arena.wait(timeout=10) == -sig
        assert not wait_gone(below | logged_pids(tmp_path), timeout=5)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
