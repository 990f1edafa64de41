"""A reviewer's cheat: the kernel's settings in ``/proc/sys`` written from inside the box.

An arena run as root runs its sandboxed bots as user 0 (without capabilities). The box's ``/proc``
was mounted writable, and a sysctl file is writable by its owner, user 0, whatever the capabilities:
a bot could set ``vm.swappiness`` or ``kernel.printk_ratelimit`` (host-wide values that outlive the
game: a note for its mirror in the duplicate pair's other half) or ``kernel.core_pattern`` (a program
the kernel runs as root outside the box). The box's ``/proc`` is now read-only. The bot here opens the
files for writing and writes nothing."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from agents.external import make_external
from agents.protocol import sandbox
from agents.protocol.sandbox import sandbox_problem

NO_SANDBOX = sandbox_problem()
pytestmark = pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")
FILES = ("/proc/sys/vm/swappiness", "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/printk_ratelimit",
         "/proc/sys/fs/pipe-max-size")


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.delenv(sandbox.PROTECT_ENV, raising=False)


def test_a_sandboxed_bot_cannot_open_the_kernels_settings_for_writing(tmp_path, monkeypatch):
    bot = tmp_path / "bots" / "sysctl"
    bot.parent.mkdir()
    opens = "\n".join(f"  if ( : >> '{f}' ) 2>/dev/null; then n=$((n+1)); fi" for f in FILES)
    bot.write_text(  # ':>>' opens for appending (no truncation) and writes nothing
        "#!/bin/sh\n"
        "read line\n"
        "n=0\n"
        "if true; then\n" + opens + "\nfi\n"
        'echo "probe writable=$n" >&2\n'
        'echo \'{"type":"hello","name":"sysctl","version":"1","protocol":"1.1"}\'\n'
        "read line\n")
    bot.chmod(bot.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(tmp_path)
    agent = make_external(f"sandbox=1,logs={tmp_path / 'logs'} ./bots/sysctl")
    try:
        agent.reset(1)
        assert agent.bot_info is not None and agent.bot_info["name"] == "sysctl"
    finally:
        agent.close()
    text = "".join(p.read_text() for p in Path(tmp_path / "logs").glob("*.log"))
    assert re.findall(r"^probe (.*)", text, re.M) == ["writable=0"]


def test_the_box_mounts_its_proc_read_only():
    argv = sandbox.sandbox_argv(["/bin/true"], cwd="/tmp")
    i = argv.index("--proc")
    assert argv[i:i + 2] == ["--proc", "/proc"] and argv.index("--remount-ro") > i
    assert argv[argv.index("--remount-ro") + 1] == "/proc"
