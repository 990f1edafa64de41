"""What a sandboxed bot can reach when its operator runs it the usual way, from a run folder:
``exec:sandbox=1 ./bots/bot`` must not bind the folder above the program (the run's results file, with
the master seed, lies there), and the arena's environment variables stay outside."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from agents.external import make_external
from agents.protocol.sandbox import named_paths, sandbox_argv, sandbox_problem

NO_SANDBOX = sandbox_problem()


def _binds(argv: list[str]) -> list[str]:
    return [b for a, b in zip(argv, argv[1:], strict=False) if a == "--ro-bind"]


def test_a_program_given_by_path_is_bound_alone_not_the_folders_around_it(tmp_path):
    run = tmp_path / "run"
    (run / "bots").mkdir(parents=True)
    (run / "bots" / "bot").write_text("#!/bin/sh\n")
    (run / "pyvenv.cfg").write_text("")  # a venv marker above an ordinary program does not count
    for program in ("./bots/bot", str(run / "bots" / "bot")):
        assert named_paths([program], str(run)) == [str(run / "bots" / "bot")]
        assert str(run) not in _binds(sandbox_argv([program], str(run)))


def test_an_interpreter_in_a_bin_folder_still_brings_its_installation(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("")
    (venv / "bin" / "python").write_text("")
    assert str(venv) in named_paths([str(venv / "bin" / "python"), "x"], str(tmp_path))


def test_the_sandbox_starts_from_an_empty_environment(monkeypatch):
    monkeypatch.setenv("ARENA_SECRET", "hunter2")
    argv = sandbox_argv(["/bin/true"])
    assert "--clearenv" in argv and "hunter2" not in argv
    assert argv[argv.index("--clearenv"):].count("--setenv") >= 2  # HOME and TMPDIR come after it


@pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")
def test_a_sandboxed_bot_beside_the_results_sees_neither_them_nor_the_arenas_variables(tmp_path, monkeypatch):
    run = tmp_path / "run"
    (run / "bots").mkdir(parents=True)
    results = run / "results.jsonl"
    results.write_text('{"master_seed": 1}\n')
    bot = run / "bots" / "spy"
    bot.write_text(
        "#!/bin/sh\n"
        "read line\n"
        f"if cat '{results}' >/dev/null 2>&1; then r=yes; else r=no; fi\n"
        'echo "probe results=$r secret=${ARENA_SECRET:-none}" >&2\n'
        'echo \'{"type":"hello","name":"spy","version":"1","protocol":"1.1"}\'\n'
        "read line\n")
    bot.chmod(bot.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(run)
    monkeypatch.setenv("ARENA_SECRET", "hunter2")
    agent = make_external(f"sandbox=1,logs={tmp_path / 'logs'} ./bots/spy")
    try:
        agent.reset(1)
        assert agent.bot_info is not None and agent.bot_info["name"] == "spy"
    finally:
        agent.close()
    text = "".join(p.read_text() for p in Path(tmp_path / "logs").glob("*.log"))
    assert re.findall(r"^probe (.*)", text, re.M) == ["results=no secret=none"]
