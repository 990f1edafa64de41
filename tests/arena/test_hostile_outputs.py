"""Output paths and run settings that cannot work are refused before any game, in one named line:
a fifo or a device (writing would block or never end, ``--force`` or not), ``''``, a folder, a chart
of a format matplotlib would refuse only at the end; SPRT bounds whose expected scores round to 0
or 1; and a results file's own estimator record, shown as it is. Run in subprocesses with a
timeout, so a regression fails instead of hanging."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.arena import ArenaOptions
from agents.arena.sprt import sprt_settings

ROOT = Path(__file__).resolve().parents[2]
ARENA = ["-m", "sixtysix_cli", "arena", "random", "random", "--games", "2", "--unit", "deal", "--no-progress"]


def fails(argv: list[str], needle: str, cwd: Path = ROOT) -> str:
    """``python argv`` exits 2 at once with one error line holding ``needle``; that line."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL, env=env)
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert len(errors) == 1 and needle in errors[0], r.stderr
    return errors[0]


@pytest.mark.parametrize("flag", ["--json", "--markdown", "--png"])
def test_arena_refuses_a_fifo_even_with_force(tmp_path: Path, flag: str) -> None:
    fifo = tmp_path / "out.png"
    os.mkfifo(fifo)
    results = tmp_path / "r.jsonl"
    fails([*ARENA, "--results", str(results), flag, str(fifo), "--force"], "exists and is not a regular file")
    assert not results.exists()  # before any game


@pytest.mark.parametrize("args, needle", [
    (["--png", "chart.txt"], "--png chart.txt must end in .png, .svg or .pdf"),
    (["--png", "chart"], "must end in .png, .svg or .pdf"),
    (["--json", ""], "--json '' is empty: name a file"),
    (["--markdown", ""], "--markdown '' is empty"),
    (["--markdown", "README.md/x.md"], "cannot be made"),  # below a file
])
def test_arena_refuses_outputs_it_could_not_write_before_any_game(tmp_path: Path, args: list[str],
                                                                   needle: str) -> None:
    results = tmp_path / "r.jsonl"
    fails([*ARENA, "--results", str(results), *args], needle)
    assert not results.exists()


def test_leaderboard_refuses_a_fifo_markdown_even_with_force(tmp_path: Path) -> None:
    fifo = tmp_path / "board.md"
    os.mkfifo(fifo)
    fails(["-m", "sixtysix_cli", "leaderboard", str(tmp_path), "--markdown", str(fifo), "--force"],
          "exists and is not a regular file")


@pytest.mark.parametrize("pair, needle", [
    ("0,1e300", "SPRT elo1 must be within -2000..2000 Elo, got 1e+300"),
    ("-5000,0", "SPRT elo0 must be within -2000..2000 Elo"),
])
def test_sprt_bounds_beyond_the_elo_model_are_named(pair: str, needle: str) -> None:
    fails([*ARENA, "--sprt", pair], needle)


def test_sprt_bounds_in_points_per_deal_are_bounded_too() -> None:
    with pytest.raises(ValueError, match="elo1 must be within -3..3 game points per deal"):
        sprt_settings((0, 50), on="aivat")
    with pytest.raises(ValueError, match="elo1 must be within"):
        ArenaOptions(games=2, sprt=(0, 1e300))
    assert sprt_settings((-2000, 2000)).elo1 == 2000.0  # the bounds themselves work


def test_a_results_file_estimator_that_is_no_record_is_shown_as_it_is(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    r = subprocess.run([sys.executable, *ARENA, "--seed", "1", "--results", str(results)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    header, *games = results.read_text().splitlines()
    edited = json.loads(header)
    edited["config"]["estimator"] = "x"
    results.write_text("\n".join([json.dumps(edited), *games]) + "\n")
    line = fails([*ARENA, "--seed", "1", "--results", str(results), "--resume"], "estimator")
    assert "played with estimator 'x' (not an estimator record), this run asks for plain" in line


def test_calibrate_checks_its_out_before_the_round_robin(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    calibrate = ["-m", "agents.bench.calibrate", "--games", "2", "--results", str(results)]
    fails([*calibrate, "--out", str(tmp_path)], "is a folder")
    fails([*calibrate, "--out", str(tmp_path / "no" / "ladder.json")], "not a folder that exists")
    fails([*calibrate, "--out", ""], "is empty")
    fails([*calibrate, "--out", str(results)], "--out ")
    assert not results.exists()
    fails(["-m", "agents.bench.calibrate", "--games", "0"], "--games")


def test_an_empty_path_is_no_default(tmp_path: Path) -> None:
    """``--out ''`` would bench into the default folder, ``--results ''`` fail only when opened."""
    fails([*ARENA, "--results", ""], "--results PATH must name a file, got ''", cwd=tmp_path)
    fails(["-m", "sixtysix_cli", "bench", "random", "--out", ""], "--out '' is empty", cwd=tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fails(["-m", "sixtysix_cli", "bench", "random", "--out", str(fifo)], "exists and is not a folder",
          cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]
