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
    again = _run("-m", "sixtysix_cli", "arena", "random", "heuristic", "--games", "4", "--results", str(res),
                 "--resume", "--json", "-", "--no-progress")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout[again.stdout.index("{"):]) == d
    rp = _run("-m", "sixtysix_cli", "replay", str(res), "--game", "3", "--brief")
    assert rp.returncode == 0, rp.stderr
    assert rp.stdout.startswith("game 3: heuristic (player_0) vs random (player_1)")
    assert "result: player_" in rp.stdout


def test_errors_are_short_messages_with_exit_code_2(tmp_path):
    p = _run("-m", "sixtysix_cli", "arena", "random", "nonsense", "--games", "2", "--no-progress")
    assert p.returncode == 2 and "unknown bot 'nonsense'" in p.stderr and "Traceback" not in p.stderr
    p = _run("-m", "sixtysix_cli", "arena", "random", "random", "--resume")
    assert p.returncode == 2 and "--resume needs --results" in p.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n")
    p = _run("-m", "sixtysix_cli", "replay", str(bad), "--game", "0")
    assert p.returncode == 2 and "not a sixtysix arena results file" in p.stderr
    assert "Traceback" not in p.stderr
    p = _run("-m", "sixtysix_cli", "arena", "random", "random", "--games", "0")
    assert p.returncode == 2 and "at least 1" in p.stderr
    for huge in ("inf", "1e300", "nan"):  # not a forfeit of every game: an error before any game
        p = _run("-m", "sixtysix_cli", "arena", "random", "random", "--games", "2", "--move-time", huge)
        assert p.returncode == 2 and "--move-time" in p.stderr and "Traceback" not in p.stderr


def test_help_shows_examples_and_bots():
    p = _run("-m", "sixtysix_cli", "arena", "--help")
    assert p.returncode == 0
    assert "examples:" in p.stdout and "--resume" in p.stdout and "pimc" in p.stdout
    assert "--sprt 0,50 --games 2000" in p.stdout and "sequential probability ratio test" in p.stdout
    p = _run("-m", "sixtysix_cli", "replay", "--help")
    assert p.returncode == 0 and "--game" in p.stdout


def test_arena_sprt_stops_early_and_resumes(tmp_path):
    res = tmp_path / "sprt.jsonl"
    args = ["-m", "sixtysix_cli", "arena", "heuristic", "random", "--sprt", "0,120", "--games", "50",
            "--results", str(res), "--json", "-", "--no-progress"]
    p = _run(*args, "--markdown", str(tmp_path / "s.md"))
    assert p.returncode == 0, p.stderr
    assert "at most 50 matches" in p.stdout and "H1 accepted (heuristic stronger than random" in p.stdout
    d = json.loads(p.stdout[p.stdout.index("{"):])
    pair = d["pairings"][0]
    assert pair["sprt_verdict"] == "H1" and 0 < pair["games"] < 50 and pair["games"] % 2 == 0
    assert pair["sprt_max_games"] == 50 and d["config"]["sprt"]["elo1"] == 120.0
    assert "SPRT elo0 0 vs elo1 120" in (tmp_path / "s.md").read_text()
    again = _run(*args, "--resume")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout[again.stdout.index("{"):]) == d
    neg = _run("-m", "sixtysix_cli", "arena", "random", "random", "--sprt", "-20,20", "--sprt-alpha", "0.01",
               "--sprt-beta", "0.01", "--games", "6", "--unit", "deal", "--no-progress")
    assert neg.returncode == 0, neg.stderr
    assert "SPRT elo0 -20 vs elo1 20 (alpha 0.01, beta 0.01)" in neg.stdout


@pytest.mark.parametrize(
    "extra, message",
    [
        (["random", "heuristic", "random", "--sprt", "0,10"], "--sprt compares two bots"),
        (["random", "random", "--sprt", "10,0"], "elo0 < elo1"),
        (["random", "random", "--sprt", "0,10", "--sprt-alpha", "1.5"], "alpha must be in (0, 1)"),
        (["random", "random", "--sprt", "0,10", "--sprt-beta", "0"], "beta must be in (0, 1)"),
        (["random", "random", "--sprt", "0;10"], "expected ELO0,ELO1"),
        (["random", "random", "--sprt-alpha", "0.01"], "need --sprt"),
    ],
)
def test_arena_sprt_errors(capsys, extra, message):
    from sixtysix_cli import main

    try:
        rc = main(["arena", *extra, "--games", "2", "--no-progress"])
    except SystemExit as e:  # argparse rejects a malformed value itself
        rc = e.code
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err


def test_negative_sprt_values_need_no_equals_sign():
    from sixtysix_cli.main import build_parser, glue_negative_sprt

    argv = glue_negative_sprt(["arena", "a", "b", "--sprt", "-20,-5", "--games", "3"])
    assert build_parser().parse_args(argv).sprt == (-20.0, -5.0)
    assert glue_negative_sprt(["arena", "--sprt", "0,5", "--", "--sprt", "-1,2"])[-2:] == ["--sprt", "-1,2"]
