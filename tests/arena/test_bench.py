"""The standard benchmark on a tiny ladder: rating, reports, resume, leaderboard (agents/bench)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.bench import BenchOptions, bench, fit_rating, load_ladder
from agents.bench.ladder import RUNGS
from agents.bench.run import rung_file
from sixtysix_cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "external"))
from external_helpers import wait_gone  # noqa: E402
from test_external_kill import descendants  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_ladder_names_its_scale_and_command():
    ladder = load_ladder()
    assert set(ladder.rungs) == set(RUNGS)  # every rung calibrated, none left over
    assert ladder.rungs[-1] == "guided:leaf=rollout"  # the top rung
    assert ladder.ratings["heuristic"] == 1000.0
    assert ladder.command.startswith("python -m agents.bench.calibrate")
    assert ladder.games > 0 and ladder.move_time == 0.1


def test_fit_rating_is_the_maximum_likelihood_with_an_interval():
    elo, (lo, hi) = fit_rating([(1000.0, 10, 20)], prior_draws=0)
    assert elo == pytest.approx(1000.0, abs=0.5)  # an even score: the rung's rating
    assert lo < elo < hi and hi - elo == pytest.approx(elo - lo, abs=1)
    wide = fit_rating([(1000.0, 5, 10)], prior_draws=0)[1]
    assert wide[1] - wide[0] > hi - lo  # fewer games, wider interval
    elo, (lo, hi) = fit_rating([(0.0, 4, 4), (1000.0, 0, 4)])
    assert 0 < lo < elo < hi < 1000 and math.isfinite(elo)


def test_bench_writes_reports_and_resumes_after_a_kill(tiny_ladder, tmp_path, capsys):
    out = str(tmp_path / "b")
    result = bench("random", BenchOptions(out, max_games=4, ladder_path=tiny_ladder))
    assert [r["rung"] for r in result["rungs"]] == ["heuristic"]  # no matches against itself
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("bench random: 1 rungs (heuristic)") and "rung random skipped" in err[1]
    assert any(line.strip().startswith("4/4 games:") for line in err)  # progress before the result
    assert all(r["games"] <= 4 for r in result["rungs"]) and result["games"] > 0
    lo, hi = result["elo_ci"]
    assert lo <= result["elo"] <= hi and result["elo"] < 1000
    for ext in ("json", "md", "png"):
        assert (tmp_path / "b" / f"bench.{ext}").stat().st_size > 0
    assert "Rating" in (tmp_path / "b" / "bench.md").read_text()
    # A kill: the last game of a rung is lost; running again plays only it, with the same result.
    path = rung_file(out, "heuristic")
    lines = open(path).read().splitlines(keepends=True)
    with open(path, "w") as f:
        f.writelines(lines[:-1])
    again = bench("random", BenchOptions(out, max_games=4, ladder_path=tiny_ladder))
    assert _unmeasured(again) == _unmeasured(result)
    assert len(open(path).read().splitlines()) == len(lines)


def _unmeasured(result):
    """A bench result without its measured CPU shares."""
    return {**result, "cpu_share": None, "rungs": [{**r, "cpu_share": None} for r in result["rungs"]]}


def test_bench_and_leaderboard_commands(tiny_ladder, tmp_path, capsys):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert main(["bench", "random", "--out", a, "--max-games", "2", "--ladder", tiny_ladder]) == 0
    assert main(["bench", "heuristic", "--out", b, "--max-games", "2", "--ladder", tiny_ladder]) == 0
    capsys.readouterr()
    md = str(tmp_path / "lb.md")
    assert main(["leaderboard", f"{a}/bench.json", b, "--markdown", md]) == 0
    table = capsys.readouterr().out
    assert table == open(md).read()
    rows = [line for line in table.splitlines() if line.startswith("| 1") or line.startswith("| 2")]
    assert {"`heuristic`", "`random`"} == {r.split(" | ")[1] for r in rows}
    elos = [float(r.split(" | ")[2].split()[0]) for r in rows]
    assert elos == sorted(elos, reverse=True) and "forfeits bot/ladder" in table
    assert json.load(open(f"{a}/bench.json"))["bot"] == "random"


def test_bench_with_aivat_reports_the_corrected_figure_beside_the_plain_one(tiny_ladder, tmp_path, capsys):
    plain = bench("random", BenchOptions(str(tmp_path / "p"), max_games=4, ladder_path=tiny_ladder, seed=3))
    out = str(tmp_path / "a")
    result = bench("random", BenchOptions(out, max_games=4, ladder_path=tiny_ladder, seed=3,
                                          estimator="aivat", value="heuristic"))
    row = result["rungs"][0]
    assert row["aivat"]["value"] == "heuristic" and row["aivat"]["corrected_games"] == row["games"]
    assert "aivat" not in plain["rungs"][0]
    assert (result["elo"], result["elo_ci"]) == (plain["elo"], plain["elo_ci"])  # the rating stays plain
    assert "points per deal, aivat" in open(f"{out}/bench.md").read()
    capsys.readouterr()
    assert main(["leaderboard", out, str(tmp_path / "p")]) == 0
    assert "plain / aivat pts/deal" in capsys.readouterr().out
    forged = json.load(open(f"{out}/bench.json"))
    for bad in ({"value": "x", "points_per_deal": "NaN"}, [1], {**row["aivat"], "ci": [[1], 2]},
                {**row["aivat"], "sd_ratio": 1e400}, {**row["aivat"], "points_per_deal": 10**400}):
        forged["rungs"][0]["aivat"] = bad
        with open(f"{out}/bench.json", "w") as f:
            json.dump(forged, f)
        assert main(["leaderboard", out, str(tmp_path / "p")]) == 0
        assert "skipped, not a bench result (rung " in capsys.readouterr().err  # names the rung and field
    forged["elo"] = 10**400  # past the float range: refused, not an OverflowError
    with open(f"{out}/bench.json", "w") as f:
        json.dump(forged, f)
    assert main(["leaderboard", out, str(tmp_path / "p")]) == 0
    assert "skipped, not a bench result (no printable bot name, elo or games)" in capsys.readouterr().err


def test_bench_refuses_a_bad_value_before_any_rung(tiny_ladder, tmp_path, capsys):
    out = str(tmp_path / "b")
    assert main(["bench", "random", "--out", out, "--ladder", tiny_ladder, "--estimator", "aivat",
                 "--value", "nope"]) == 2
    err = capsys.readouterr().err
    assert err == ("sixtysix bench: error: --value names no value function: 'nope'; choose one of heuristic, "
                   "solver, solver-last, rollout, critic, own\n")


def test_calibration_stopped_by_sigterm_keeps_its_games_and_writes_no_ladder(tmp_path):
    results, out = tmp_path / "r.jsonl", tmp_path / "ladder.json"
    cmd = [sys.executable, "-m", "agents.bench.calibrate", "--games=2", "--workers=2", f"--results={results}",
           f"--out={out}"]
    run = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (results.exists() and results.read_text().count("\n") >= 2):  # the header and a game
            assert run.poll() is None and time.monotonic() < deadline, "the run ended before the kill"
            time.sleep(0.05)
        below = descendants(run.pid)
        os.kill(run.pid, signal.SIGTERM)
        assert run.wait(timeout=10) == 130  # as Ctrl-C: the pool shut down, a message, no traceback
        err = run.stderr.read()
        assert "continue with --resume" in err and "Traceback" not in err and "leaked" not in err, err
        assert not wait_gone(below, timeout=3)
        assert not out.exists()  # no ladder from a partial round robin
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()


def test_calibration_with_a_broken_results_file_is_a_one_line_error(tmp_path):
    results = tmp_path / "r.jsonl"
    results.write_text("not json\n")
    run = subprocess.run([sys.executable, "-m", "agents.bench.calibrate", "--games=2", f"--results={results}",
                          "--resume", f"--out={tmp_path / 'ladder.json'}"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith("python -m agents.bench.calibrate: error: ")
