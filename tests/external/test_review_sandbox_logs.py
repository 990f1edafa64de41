"""A reviewer's cheat: a sandboxed bot whose command names its own stderr log.

The log folder itself was refused, but a file in it was bound like any other: a bot named with
``name=`` has a predictable log file (``NAME-TAG.PID.log``; a command can list every likely PID),
so from its second game on it read what it had written to standard error in its earlier games (its
hands, a duplicate pair's first half: a memory across games). Nothing in the bots' log folders, or in
the bench's output folder (``seal``), is bound now: such a command is refused with one line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agents.external import _slug, make_external
from agents.protocol import sandbox
from agents.protocol.sandbox import SandboxError, bind_plan, sandbox_problem

NO_SANDBOX = sandbox_problem()


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.setattr(sandbox, "_SEALED", set())
    monkeypatch.setenv(sandbox.SEAL_ENV, "")
    monkeypatch.setenv(sandbox.PROTECT_ENV, "")  # restored (removed) after the test
    monkeypatch.delenv(sandbox.LOG_DIR_ENV, raising=False)


def test_nothing_in_a_log_folder_or_a_sealed_folder_is_bound(tmp_path):
    for d in ("bot_logs", "mylogs", "out"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.log").write_text("NOTE")
    (tmp_path / "bot.py").write_text("")
    sandbox.seal(str(tmp_path / "out"))
    for word in ("bot_logs/x.log", "mylogs/x.log", "out/x.log", "k=bot_logs/x.log"):
        with pytest.raises(SandboxError, match="lies in"):
            bind_plan(["python3", "bot.py", word], str(tmp_path), protected=(str(tmp_path / "mylogs"),))
    with pytest.raises(SandboxError, match="lies in"):  # a log file not written yet: refused before any game
        bind_plan(["python3", "bot.py", "bot_logs/later.1234.log"], str(tmp_path))
    assert bind_plan(["python3", "bot.py", "missing.txt"], str(tmp_path))[0] == [str(tmp_path / "bot.py")]


@pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")
def test_a_sandboxed_bot_cannot_read_its_log_from_an_earlier_game(tmp_path, monkeypatch):
    bot = tmp_path / "bots" / "memo"
    bot.parent.mkdir()
    logs = tmp_path / "logs"
    log = logs / f"{_slug('memo')}.{os.getpid()}.log"
    bot.write_text(
        "#!/bin/sh\n"
        "read line\n"
        f"if grep -q NOTE '{log}' 2>/dev/null; then echo 'probe memory=yes' >&2; fi\n"
        "echo 'NOTE my hand' >&2\n"
        'echo \'{"type":"hello","name":"memo","version":"1","protocol":"1.1"}\'\n'
        "read line\n")
    bot.chmod(bot.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(tmp_path)
    spec = f"sandbox=1,name=memo,logs={logs} ./bots/memo {log}"
    for _ in range(2):  # the second game's bot would find the first's note
        agent = make_external(spec)
        try:
            agent.reset(1)
        except SandboxError:
            break
        finally:
            agent.close()
    assert not log.exists() or "probe memory=yes" not in Path(log).read_text()  # refused at once now


def test_a_command_naming_a_file_in_its_own_logs_folder_is_refused_before_any_game(tmp_path, monkeypatch):
    from agents.arena.api import check_players
    from agents.arena.options import ArenaOptions

    (tmp_path / "bot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    spec = f"exec:name=memo,logs={tmp_path / 'mine'} python3 bot.py {tmp_path / 'mine' / 'memo.1.log'}"
    with pytest.raises(SandboxError, match="lies in"):  # sandbox=1 in the spec: no bubblewrap needed to check
        check_players(["random", spec.replace("exec:", "exec:sandbox=1,")], ArenaOptions(games=2))
    if NO_SANDBOX is None:
        with pytest.raises(SandboxError, match="lies in"):
            check_players(["random", spec], ArenaOptions(games=2, sandbox=True))


def test_no_bot_binds_another_bots_log_folder(tmp_path, monkeypatch):
    """Bot X logs (``logs=``) into a folder bot Y's command names: Y would read X's hands of a deal it
    plays later (every pairing is dealt the same card seeds). Every exec: bot's log folder is sealed."""
    from agents.arena.api import check_players
    from agents.arena.options import ArenaOptions

    for name in ("x.py", "y.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "old.log").write_text("NOTE")
    monkeypatch.chdir(tmp_path)
    x = f"exec:logs={tmp_path / 'data'} python3 x.py"
    for word, why in (("data", "is or holds"), ("data/old.log", "lies in")):
        with pytest.raises(SandboxError, match=why):
            check_players([x, f"exec:sandbox=1 python3 y.py {tmp_path / word}"], ArenaOptions(games=2))
