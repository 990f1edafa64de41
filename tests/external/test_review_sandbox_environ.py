"""A reviewer's cheat: the arena's environment read from inside the box through ``/proc/1/environ``.

Inside bubblewrap's process namespace pid 1 is bubblewrap itself, forked from the process the arena
started: ``--clearenv`` empties only the bot's environment, while ``/proc/1/environ`` shows the memory
bubblewrap started with, the arena's whole environment (found by review: every operator variable
was readable). The box is now started from an empty environment (``env -i``)."""

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


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.delenv(sandbox.PROTECT_ENV, raising=False)


def test_a_sandboxed_bot_cannot_read_the_arenas_environment_through_proc(tmp_path, monkeypatch):
    bot = tmp_path / "bots" / "spy"
    bot.parent.mkdir()
    bot.write_text(
        "#!/bin/sh\n"
        "read line\n"
        "n=0\n"
        "for f in /proc/[0-9]*/environ; do\n"
        "  if tr '\\0' '\\n' < \"$f\" 2>/dev/null | grep -q hunter2; then n=$((n+1)); fi\n"
        "done\n"
        'echo "probe leaks=$n" >&2\n'
        'echo \'{"type":"hello","name":"spy","version":"1","protocol":"1.1"}\'\n'
        "read line\n")
    bot.chmod(bot.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARENA_SECRET", "hunter2")
    agent = make_external(f"sandbox=1,logs={tmp_path / 'logs'} ./bots/spy")
    try:
        agent.reset(1)
        assert agent.bot_info is not None and agent.bot_info["name"] == "spy"
    finally:
        agent.close()
    text = "".join(p.read_text() for p in Path(tmp_path / "logs").glob("*.log"))
    assert re.findall(r"^probe (.*)", text, re.M) == ["leaks=0"]
