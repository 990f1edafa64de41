"""Strength at budget (issue 29): per-player move times, the bench at a bot's own budget, and the
``sixtysix bench --budgets`` table on a tiny ladder: reports, resume, bad input."""

from __future__ import annotations

import json
import os
import time

import pytest

from agents.arena import head_to_head
from agents.arena.options import ArenaOptions, OptionError
from agents.arena.records import ResultsFileError
from agents.bench import BenchOptions, bench
from agents.bench.budgets import BudgetOptions, Cell, check_budgets, plan, run_budgets
from agents.bench.run import rung_file
from agents.play import play_game
from agents.random_agent import RandomAgent
from sixtysix_cli import main


class Told(RandomAgent):
    """Remembers the time limit the play loop gave it."""

    def game_start(self, seat, unit, move_time):
        self.told = move_time


class Burner(RandomAgent):
    """Burns 0.3 s of CPU time on every move."""

    def act(self, view):
        t = time.process_time()
        while time.process_time() - t < 0.3:
            pass
        return super().act(view)


def test_each_seat_has_its_own_limit():
    a, b = Told(), Told()
    play_game(a, b, seed=1, unit="deal", move_time=(0.5, None), clock="cpu")
    assert (a.told, b.told) == (0.5, None)
    rec = play_game(Burner(), RandomAgent(), seed=1, unit="deal", move_time=(0.05, 5.0), clock="cpu")
    assert rec.forfeit["kind"] == "time" and rec.forfeit["seat"] == 0
    rec = play_game(Burner(), RandomAgent(), seed=1, unit="deal", move_time=(5.0, 0.05), clock="cpu")
    assert rec.forfeit is None  # the burner's own limit is 5 s; the other's 0.05 s is not its
    with pytest.raises(ValueError, match="move_time/clock: .*2 entries"):
        play_game(Told(), Told(), seed=1, move_time=(0.1, 0.1, 0.1))
    with pytest.raises(ValueError, match="move_time/clock: must be positive"):
        play_game(Told(), Told(), seed=1, move_time=(0.1, -1))


def test_the_arena_gives_each_player_its_own_limit(tmp_path):
    a, b = Told(), Told()
    head_to_head(a, b, games=2, move_time=5.0, move_times=(0.5, 2.0), clock="cpu")
    assert (a.told, b.told) == (0.5, 2.0)
    path = str(tmp_path / "r.jsonl")
    head_to_head("random", "random", games=2, move_times=(0.5, 2.0), results_path=path)
    assert json.loads(open(path).readline())["config"]["move_times"] == [0.5, 2.0]
    with pytest.raises(OptionError, match="one limit per player: 3 for 2"):
        head_to_head("random", "random", games=2, move_times=(1, 1, 1))
    with pytest.raises(OptionError, match="move_times must be per-player limits"):
        ArenaOptions(games=2, move_times=(1, float("inf")))
    with pytest.raises(ResultsFileError, match="move_times: file has"):  # nor resumes another time control
        head_to_head("random", "random", games=4, move_times=(0.5, 1.0), results_path=path, resume=True)


def test_a_bench_at_the_bots_own_budget_keeps_the_rungs_time(tiny_ladder, tmp_path):
    result = bench("heuristic", BenchOptions(str(tmp_path / "b"), max_games=2, ladder_path=tiny_ladder,
                                             move_time=1.0))
    assert result["move_time"] == 1.0 and result["ladder"]["move_time"] == 5.0
    assert [r["rung"] for r in result["rungs"]] == ["random", "heuristic"]  # itself too: other budgets
    config = json.loads(open(rung_file(str(tmp_path / "b"), "heuristic")).readline())["config"]
    assert config["move_times"] == [1.0, 5.0]
    assert "1 s (the rungs 5 s)" in (tmp_path / "b" / "bench.md").read_text()


def test_budgets_plan_runs_bots_that_ignore_the_budget_once():
    cells = plan(["random", "pimc:worlds=2"], (0.05, 0.1), 0.1)
    assert cells == [Cell("random", 0.1, True), Cell("pimc:worlds=2", 0.05, False),
                     Cell("pimc:worlds=2", 0.1, False)]
    assert Cell("a:b", 0.1, False).folder("o") != Cell("a_b", 0.1, False).folder("o")


def test_budgets_table_picture_and_resume(tiny_ladder, tmp_path, capsys):
    out = str(tmp_path / "t")
    options = BudgetOptions((0.05, 0.1), BenchOptions(out, max_games=2, ladder_path=tiny_ladder))
    cells = run_budgets(["random", "pimc:worlds=2"], options)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("budgets: 2 bot(s) x 2 budget(s)") and "random ignore the budget" in err[1]
    assert [(c["bot"], c["budget"], c["flat"]) for c in cells] == [
        ("random", 5.0, True), ("pimc:worlds=2", 0.05, False), ("pimc:worlds=2", 0.1, False)]
    for ext in ("md", "json", "png"):
        assert os.path.getsize(os.path.join(out, f"budgets.{ext}")) > 0
    md = open(os.path.join(out, "budgets.md")).read()
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert len(rows) == 4 and rows[0].count(" * |") == 2  # random: flat, in both columns
    assert "Points per deal against `heuristic`" in md
    # A killed run: the last cell's folder is gone and a rung of the first lost its last game.
    last = Cell("pimc:worlds=2", 0.1, False).folder(out)
    for name in os.listdir(last):
        os.remove(os.path.join(last, name))
    first = rung_file(Cell("random", 5.0, True).folder(out), "heuristic")
    lines = open(first).read().splitlines(keepends=True)
    with open(first, "w") as f:
        f.writelines(lines[:-1])
    middle = rung_file(Cell("pimc:worlds=2", 0.05, False).folder(out), "heuristic")
    before = open(middle).read()
    again = run_budgets(["random", "pimc:worlds=2"], options)
    assert open(middle).read() == before  # a finished cell plays nothing again
    assert len(open(first).read().splitlines()) == len(lines)
    assert [_unmeasured(c) for c in again[:2]] == [_unmeasured(c) for c in cells[:2]]
    assert again[2]["games"] > 0


def _unmeasured(cell):
    """A cell without its measured CPU shares."""
    return {**cell, "cpu_share": None, "rungs": [{**r, "cpu_share": None} for r in cell["rungs"]]}


@pytest.mark.parametrize("argv, error", [
    (["--budgets", "0.001", "random"], "--budgets: '0.001' is out of range"),
    (["--budgets", "100", "random"], "--budgets: '100' is out of range"),
    (["--budgets", "nan", "random"], "--budgets: 'nan' is out of range"),
    (["--budgets", "0.1", "nosuchbot"], "bot 'nosuchbot': unknown bot"),
    (["--budgets", "0.1", "pimc:worlds=x"], "bot 'pimc:worlds=x': bad value"),
    (["--budgets", "random"], "--budgets: give at least one budget"),
    (["--budgets", "0.1"], "give at least one bot"),
    (["--budgets", "0.1", "random", "random"], "bot 'random' is given twice"),
    (["--budgets", "0.1", "random", "--move-time", "0.1"], "--move-time and --budgets"),
    (["random", "heuristic"], "give one bot (several only with --budgets)"),
    (["random", "--move-time", "0"], "--move-time 0.0: must be positive"),
])
def test_bad_budget_arguments_are_one_line_errors(argv, error, tmp_path, capsys):
    assert main(["bench", *argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and error in err, err
    assert not (tmp_path / "o").exists()


def test_check_budgets_sorts_and_drops_repeats():
    assert check_budgets(["0.5", 0.02, "0.02"]) == (0.02, 0.5)
