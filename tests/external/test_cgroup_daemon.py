"""A daemon that changes its pid every millisecond or two (fork, exit, fork...) ends with its game, in
and out of the sandbox: its bot's control group is killed whole (``cgroup.kill``) at the game's end, so
it cannot outlive the game or the arena, and gains nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from external_helpers import ROOT, alive, spec, wait_for

from agents.arena import head_to_head
from agents.protocol.cgroups import PREFIX, PROC_SAMPLES, clean_stale, layout, metering
from agents.protocol.process import BotProcess
from agents.protocol.sandbox import sandbox_argv, sandbox_problem

BOT = [sys.executable, "-S", str(Path(__file__).resolve().parent / "bots" / "cgroup_bot.py")]
pytestmark = pytest.mark.skipif(metering() == PROC_SAMPLES, reason="no cgroups here")


def _marked(token: str) -> set[int]:
    """The sessions of live processes whose command line holds ``token`` (the sandbox's too: /proc
    shows them all). Newest pids first: a hopper's pid is among the newest, and gone by the time a
    scan in pid order reaches it."""
    out = set()
    for pid in sorted((int(n) for n in os.listdir("/proc") if n.isdigit()), reverse=True):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if token.encode() not in f.read():
                    continue
            with open(f"/proc/{pid}/stat") as f:
                session = int(f.read().rpartition(")")[2].split()[3])
        except (OSError, ValueError, IndexError):
            continue
        if alive(pid) and session > 1 and session != os.getsid(0):  # 0: a session of the sandbox's
            out.add(session)
    return out


def _seen(token: str, watch: float) -> set[int]:
    """The sessions of ``token``'s processes seen alive at any time in ``watch`` seconds."""
    end = time.monotonic() + watch
    seen: set[int] = set()
    while time.monotonic() < end:
        seen |= _marked(token)
        time.sleep(0.01)
    return seen


def _gone(token: str, within: float, then: float) -> set[int]:
    """The sessions of ``token``'s processes still alive ``within`` seconds after the call, or seen
    in the ``then`` seconds after they were first all gone. The supervisor needs a moment after the
    arena's death (its parent-death signal, its trap, a write to ``cgroup.kill``), longer on a busy
    machine; a daemon that outlives its arena is alive for good."""
    end = time.monotonic() + within
    while time.monotonic() < end and _marked(token):
        time.sleep(0.02)
    return _marked(token) | _seen(token, then)


def _end(sessions: set[int]) -> None:
    """Kill what the test found, also when it fails: every process of those sessions, a while."""
    for _ in range(50):
        for sid in sessions:
            try:
                os.killpg(sid, 9)
            except OSError:
                pass
        time.sleep(0.01)


def _ours() -> set[str]:
    """This process's bot groups (other tests in this process may still hold some of theirs)."""
    lay = layout()
    prefix = f"{PREFIX}{os.getpid()}-"
    return {n for p in (lay.v2, *lay.v1.values()) if p for n in os.listdir(p) if n.startswith(prefix)}


def _needs(sandbox: bool) -> None:
    if sandbox and sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")


@pytest.mark.parametrize("sandbox", [False, True])
def test_a_pid_hopping_daemon_is_seen_then_ends_with_its_process(tmp_path: Path, sandbox: bool) -> None:
    """The daemon is found while its bot runs (so the test sees it), and never after the bot's end."""
    _needs(sandbox)
    token = f"hop-{uuid.uuid4().hex}"
    before = _ours()
    argv = [*BOT, "hopper", token]
    proc = BotProcess(tuple(sandbox_argv(argv) if sandbox else argv), str(tmp_path / "hop.log"))
    try:
        proc.send(json.dumps({"type": "hello", "protocol": "1.1"}).encode() + b"\n", time.monotonic() + 30)
        assert b"hopper" in proc.recv(time.monotonic() + 30, "hello")
        running = _seen(token, 0.5)
    finally:
        proc.stop(0, "test over")
    left = _seen(token, 1.0)
    _end(running | left)
    assert running, "the daemon was not seen running: the test cannot see it"
    assert not left, "a bot's hopping daemon outlived its process"
    assert not _ours() - before, "a bot's control group was left behind"


@pytest.mark.parametrize("sandbox", [False, True])
def test_a_pid_hopping_daemon_ends_with_its_game(tmp_path: Path, sandbox: bool) -> None:
    _needs(sandbox)
    token = f"hop-{uuid.uuid4().hex}"
    before = _ours()
    st = head_to_head(spec([*BOT, "hopper", token], tmp_path / "logs", sandbox=int(sandbox)), "random",
                      games=2, unit="deal")
    assert st.forfeits == 0
    left = _seen(token, 1.0)
    _end(left)
    assert not left, "a bot's hopping daemon outlived its game"
    assert not _ours() - before, "a bot's control group was left behind"


ARENA = ("import sys; from agents.arena import run; "
         "run([sys.argv[1], 'random'], games=100000, unit='deal')")


def test_a_pid_hopping_daemon_ends_with_a_killed_arena_and_its_group_is_cleaned(tmp_path: Path) -> None:
    """SIGKILL to the arena: the supervisor's parent-death signal kills the bot's whole group; the
    group itself, left behind, is removed by the next arena's first group (its arena pid is gone)."""
    token = f"hop-{uuid.uuid4().hex}"
    arena = subprocess.Popen([sys.executable, "-c", ARENA, spec([*BOT, "hopper", token], tmp_path / "logs")],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    running: set[int] = set()
    try:
        running = wait_for(lambda: _seen(token, 0.05), timeout=30)
        os.kill(arena.pid, signal.SIGKILL)
        arena.wait(timeout=10)
        left = _gone(token, within=10.0, then=1.5)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
        _end(running)
    _end(left)
    assert not left, "a bot's hopping daemon outlived its arena"
    lay = layout()
    parents = [p for p in (lay.v2, *lay.v1.values()) if p]
    stale = [n for p in parents for n in os.listdir(p) if n.startswith(f"{PREFIX}{arena.pid}-")]
    assert stale, "the killed arena left no group (nothing to clean)"
    clean_stale(lay)
    assert not [n for p in parents for n in os.listdir(p) if n.startswith(f"{PREFIX}{arena.pid}-")]
