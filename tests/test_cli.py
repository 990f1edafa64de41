"""The sixtysix console script, run in subprocesses as a user would."""

import json
import os
import subprocess
import sys

import pytest


def _run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, env=env,
                          cwd=cwd)


@pytest.mark.slow
def test_arena_and_replay_end_to_end(tmp_path):
    res = tmp_path / "runs" / "r.jsonl"
    summary = tmp_path / "s.json"
    p = _run("-m", "agents.arena", "random", "heuristic", "--games", "4", "--results", str(res),
             "--json", str(summary), "--markdown", str(tmp_path / "r.md"), "--png", str(tmp_path / "r.png"),
             "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "random vs heuristic" in p.stdout and "Elo" in p.stdout
    d = json.loads(summary.read_text())
    assert d["pairings"][0]["games"] == 4 and {r["name"] for r in d["ratings"]} == {"random", "heuristic"}
    assert (tmp_path / "r.md").read_text().startswith("**Sixty-Six arena")
    assert (tmp_path / "r.png").stat().st_size > 0
    again = _run("-m", "agents.cli", "arena", "random", "heuristic", "--games", "4", "--results", str(res),
                 "--resume", "--json", "-", "--no-progress")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout[again.stdout.index("{"):]) == d
    rp = _run("-m", "agents.cli", "replay", str(res), "--game", "3", "--brief")
    assert rp.returncode == 0, rp.stderr
    assert rp.stdout.startswith("game 3: heuristic (player_0) vs random (player_1)")
    assert "result: player_" in rp.stdout


def test_errors_are_short_messages_with_exit_code_2(tmp_path):
    p = _run("-m", "agents.cli", "arena", "random", "nonsense", "--games", "2", "--no-progress")
    assert p.returncode == 2 and "unknown bot 'nonsense'" in p.stderr and "Traceback" not in p.stderr
    p = _run("-m", "agents.cli", "arena", "random", "random", "--resume")
    assert p.returncode == 2 and "--resume needs --results" in p.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n")
    p = _run("-m", "agents.cli", "replay", str(bad), "--game", "0")
    assert p.returncode == 2 and "corrupt" in p.stderr and "Traceback" not in p.stderr
    p = _run("-m", "agents.cli", "arena", "random", "random", "--games", "0")
    assert p.returncode == 2 and "at least 1" in p.stderr


def test_help_shows_examples_and_bots():
    p = _run("-m", "agents.cli", "arena", "--help")
    assert p.returncode == 0
    assert "examples:" in p.stdout and "--resume" in p.stdout and "pimc" in p.stdout
    p = _run("-m", "agents.cli", "replay", "--help")
    assert p.returncode == 0 and "--game" in p.stdout
