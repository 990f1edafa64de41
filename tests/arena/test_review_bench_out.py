"""A reviewer's cheat: a bot whose command (or hosted plug-in) names the bench's own output folder.

The folder holds every rung's results file, with its master seed (a resumed bench has them before its
first game). The bench registers it as protected before it plans the bot, so the refusal comes first,
before its first line and before a hosted plug-in's build check could run with it bound."""

from __future__ import annotations

import pytest

from agents.bench.run import BenchOptions, bench
from agents.protocol import sandbox
from agents.protocol.sandbox import SandboxError, sandbox_problem

NO_SANDBOX = sandbox_problem()
pytestmark = pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.setattr(sandbox, "_SEALED", set())
    monkeypatch.setenv(sandbox.SEAL_ENV, "")
    monkeypatch.setenv(sandbox.PROTECT_ENV, "")  # restored (removed) after the test


def test_a_bot_naming_the_output_folder_of_a_resumed_bench_is_refused_before_it_starts(tmp_path, monkeypatch,
                                                                                       capsys):
    (tmp_path / "bot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "bench_out"
    out.mkdir()  # a bench resumed: its rungs' results files (and seeds) are there
    with pytest.raises(SandboxError, match="bench_out"):
        bench(f"exec:python3 bot.py {out}", BenchOptions(out=str(out), max_games=2, unmetered=True))
    assert "rungs" not in capsys.readouterr().err  # refused before the bench's first line
    assert list(out.iterdir()) == []
