"""A sandbox no bot gets around (the bench side): each plug-in cheat gains nothing or is refused, untrusted
bots are refused where they cannot be sandboxed or metered, reports say how a bot was benched, and a
bot that loses everything is rated as its games (and the calibration) support."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from agents.arena import read_results
from agents.bench import BenchOptions, bench
from agents.bench import entry as bench_entry
from agents.bench.entry import BenchMeteringError, BenchSandboxError, BenchTrustError, bot_kind, hosted
from agents.bench.ladder import Ladder, load_ladder, save_ladder
from agents.bench.run import rating_of, replays_of, rung_file, total
from agents.protocol.sandbox import sandbox_problem
from sixtysix_cli import main

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
sys.path.insert(0, str(PLUGINS))
import cheat_bots  # noqa: E402

RANDOM_BOT = "exec:python3 examples/bots/random_bot.py"
needs_bwrap = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox: {sandbox_problem()}")


@pytest.fixture
def one_rung(tmp_path) -> str:
    """A ladder of the heuristic alone at 5 s of CPU time per move: a bench is a handful of games."""
    path = str(tmp_path / "ladder.json")
    save_ladder(Ladder({"heuristic": 1000.0}, {"heuristic": (950, 1050)}, move_time=5.0, games=4,
                       command="test", anchor=("heuristic", 1000.0)), path)
    return path


@pytest.fixture
def metered(monkeypatch):
    """A machine whose bots' CPU, memory and processes are metered and bounded."""
    monkeypatch.setattr(bench_entry, "metering_problem", lambda: None)
    monkeypatch.setattr(bench_entry, "metering", lambda: "cgroup v2")


def _opts(tmp_path, name: str, ladder: str, **kw) -> BenchOptions:
    games = kw.pop("max_games", 4)
    return BenchOptions(str(tmp_path / name), max_games=games, ladder_path=ladder, seed=3, **kw)


def _moves(out: str) -> list[list[int]]:
    return [g["actions"] for g in read_results(rung_file(out, "heuristic"))[1]]


def test_the_bot_kind_comes_from_the_spec_without_importing_a_plugin():
    assert [bot_kind(s) for s in ("pimc:worlds=8", RANDOM_BOT, "cheat_bots:Honest", "x.py:Bot")] == [
        "built-in", "external", "plug-in", "plug-in"]
    spec = hosted("cheat_bots:Memory", sandbox=True)
    assert spec.startswith("exec:start_timeout=30,sandbox=1 ") and "-m agents.host" in spec
    assert spec.endswith(" cheat_bots:Memory") and f"{PLUGINS}/cheat_bots.py" in spec  # bound alone


@needs_bwrap
@pytest.mark.parametrize("cheat", ["FramePeeker", "Memory"])
def test_a_hosted_cheat_plays_the_honest_moves(cheat, one_rung, tmp_path, metered):
    honest = bench("cheat_bots:Honest", _opts(tmp_path, "h", one_rung))
    cheater = bench(f"cheat_bots:{cheat}", _opts(tmp_path, "c", one_rung))
    assert _moves(str(tmp_path / "c")) == _moves(str(tmp_path / "h"))  # move for move: it found nothing
    assert (cheater["elo"], cheater["elo_ci"]) == (honest["elo"], honest["elo_ci"])
    assert cheater["isolation"] == "sandboxed process" and cheater["bot_kind"] == "plug-in"


@pytest.mark.parametrize("cheat", ["FramePeeker", "Memory"])
def test_the_same_cheats_do_cheat_in_process(cheat, one_rung, tmp_path):
    """The hosted test above is not vacuous: trusted and in-process, each cheat finds what it looks for."""
    bot = getattr(cheat_bots, cheat)
    bot.hits = 0
    result = bench(f"cheat_bots:{cheat}", _opts(tmp_path, "t", one_rung, trusted=True))
    assert bot.hits > 0 and result["trusted"] and result["isolation"] == "in-process"


@pytest.mark.parametrize("trusted", [False, True])
def test_a_bot_that_requires_the_state_is_refused_with_one_line(trusted, one_rung, tmp_path, metered, capsys):
    if not trusted and sandbox_problem() is not None:
        pytest.skip("no sandbox here")
    with pytest.raises(BenchTrustError, match="requires the true game state"):
        bench("cheat_bots:StateReader", _opts(tmp_path, "s", one_rung, trusted=trusted))
    assert not (tmp_path / "s").exists()  # refused before any game
    args = ["bench", "cheat_bots:StateReader", "--out", str(tmp_path / "s"), "--ladder", one_rung]
    assert main(args + (["--trusted-in-process"] if trusted else [])) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "requires the true game state" in err
    with pytest.raises(BenchTrustError, match="requires the true game state"):
        bench("oracle", _opts(tmp_path, "o", one_rung))  # a built-in that reads the state too


def test_a_worker_killed_while_the_rung_thinks_is_the_bots_loss(one_rung, tmp_path):
    """Trusted and in-process, in worker processes: the arena blames the rung being called; the bench
    counts the game against the benched bot."""
    result = bench("cheat_bots:WorkerKiller", _opts(tmp_path, "k", one_rung, trusted=True, workers=2,
                                                    max_games=2))
    row = result["rungs"][0]
    assert row["b_forfeits"] == 0 and row["a_wins"] == 0
    assert row["a_forfeit_kinds"]["crash"] == row["games"] > 0
    assert result["worker_deaths"] == row["games"] and result["unreliable"]
    lines = read_results(rung_file(str(tmp_path / "k"), "heuristic"))[1]
    assert all(g["forfeit"]["seat"] == g["seats"].index(1) for g in lines)  # the file holds the arena's view
    assert "worker process died counted against the bot" in (tmp_path / "k" / "bench.md").read_text()


@needs_bwrap
def test_a_hosted_bot_that_kills_itself_loses_its_games(one_rung, tmp_path, metered):
    result = bench("cheat_bots:SelfKiller", _opts(tmp_path, "x", one_rung, max_games=2))
    row = result["rungs"][0]
    assert row["b_forfeits"] == 0 and row["a_forfeit_kinds"]["crash"] == row["games"] == 2
    killer = bench("cheat_bots:WorkerKiller", _opts(tmp_path, "w", one_rung, max_games=2))
    assert killer["rungs"][0]["a_forfeits"] == killer["rungs"][0]["b_forfeits"] == 0  # alone in its process


def test_without_bubblewrap_untrusted_bots_are_refused_unless_no_sandbox(one_rung, tmp_path, metered,
                                                                        monkeypatch, capsys):
    monkeypatch.setattr(bench_entry, "sandbox_problem", lambda: "bubblewrap is not installed")
    for spec in (RANDOM_BOT, "cheat_bots:Honest"):
        with pytest.raises(BenchSandboxError, match="give --no-sandbox"):
            bench(spec, _opts(tmp_path, "n", one_rung))
        assert main(["bench", spec, "--out", str(tmp_path / "n"), "--ladder", one_rung]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "bubblewrap is not installed" in err
    assert not (tmp_path / "n").exists()
    result = bench(RANDOM_BOT, _opts(tmp_path, "u", one_rung, sandbox=False, max_games=2))
    assert result["sandbox"] is False and result["isolation"] == "process, no sandbox"
    assert "process, no sandbox" in (tmp_path / "u" / "bench.md").read_text()


def test_unmetered_untrusted_bots_are_refused_unless_unmetered(one_rung, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_entry, "metering_problem", lambda: "no writable cgroup hierarchy here")
    with pytest.raises(BenchMeteringError, match="give --unmetered"):
        bench(RANDOM_BOT, _opts(tmp_path, "m", one_rung, sandbox=False))
    args = ["bench", RANDOM_BOT, "--out", str(tmp_path / "m"), "--ladder", one_rung, "--no-sandbox"]
    assert main(args) == 2
    assert "no writable cgroup hierarchy" in capsys.readouterr().err
    result = bench(RANDOM_BOT, _opts(tmp_path, "m", one_rung, sandbox=False, unmetered=True, max_games=2))
    assert result["unmetered"] is True
    assert "not bounded: rated with --unmetered" in (tmp_path / "m" / "bench.md").read_text()
    builtin = bench("random", _opts(tmp_path, "b", one_rung, max_games=2))
    assert builtin["metering"] == "in-process"


def test_reports_record_seed_kind_bot_kind_sandbox_metering_and_replays(one_rung, tmp_path, capsys):
    public = bench("random", _opts(tmp_path, "p", one_rung, max_games=2))
    secret = bench("random", BenchOptions(str(tmp_path / "s"), max_games=2, ladder_path=one_rung))
    trusted = bench("cheat_bots:Honest", _opts(tmp_path, "t", one_rung, max_games=2, trusted=True))
    for res, folder, seed in ((public, "p", "public"), (secret, "s", "secret"), (trusted, "t", "public")):
        assert json.load(open(tmp_path / folder / "bench.json")) == res and res["seed_kind"] == seed
        for key in ("bot_kind", "isolation", "trusted", "sandbox", "metering", "replays", "worker_deaths"):
            assert key in res
    md = (tmp_path / "p" / "bench.md").read_text()
    assert "public seed 3" in md and "secret deals" not in md and "Bot: built-in, in-process" in md
    assert "secret deals per rung" in (tmp_path / "s" / "bench.md").read_text()
    assert "**Trusted, in-process**" in (tmp_path / "t" / "bench.md").read_text()
    assert trusted["bot_label"] == "plug-in, trusted, in-process"
    capsys.readouterr()
    assert main(["leaderboard", str(tmp_path / "p"), str(tmp_path / "s"), str(tmp_path / "t")]) == 0
    table = capsys.readouterr().out
    assert "(trusted, in-process)" in table and "How each bot was benched" in table
    assert "public seed" in table and "secret seed" in table and "games replayed: " in table


def test_replayed_games_come_from_the_arenas_count_or_are_not_counted(one_rung, tmp_path):
    result = bench("random", _opts(tmp_path, "r", one_rung, max_games=2))
    path = rung_file(str(tmp_path / "r"), "heuristic")
    st = SimpleNamespace(replays=3)
    assert replays_of(st, path) == 3 and replays_of(SimpleNamespace(), path) == result["rungs"][0]["replays"]
    assert result["replays"] == total([r["replays"] for r in result["rungs"]])
    assert total([1, 2]) == 3 and total([1, None]) is None


def test_a_bot_that_loses_every_match_is_rated_as_random_was_calibrated():
    ladder = load_ladder()
    lo, hi = ladder.intervals["random"]
    for games in (2, 6, 16, 100):
        rows = [{"rung_elo": ladder.ratings[r], "a_wins": 0, "draws": 0, "games": games, "rung": r}
                for r in ladder.rungs if r != "random"]
        got = rating_of(rows, ladder.games)
        assert lo <= got["elo"] <= hi and got["elo"] == pytest.approx(ladder.ratings["random"], abs=1)
        assert got["elo_ci"][1] < 1000  # the games bound it from above: below every rung it lost to
    few, many = (rating_of([{"rung_elo": 1000.0, "a_wins": 0, "draws": 0, "games": g}], 60) for g in (4, 40))
    assert many["elo_ci"][1] < few["elo_ci"][1]  # more lost games, a lower upper bound


@needs_bwrap
def test_a_plugin_from_a_file_is_hosted_by_its_absolute_path_and_alone(one_rung, tmp_path, metered,
                                                                       monkeypatch):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text("from agents.heuristic import HeuristicAgent as Mine\n")
    (tmp_path / "bots" / "leans.py").write_text("from mine import Mine as Leans\n")  # a sibling: not bound
    monkeypatch.chdir(tmp_path / "bots")
    monkeypatch.syspath_prepend(str(tmp_path / "bots"))
    result = bench("mine.py:Mine", _opts(tmp_path, "f", one_rung, max_games=2))
    assert result["bot"] == "mine.py:Mine" and result["isolation"] == "sandboxed process"
    assert result["rungs"][0]["a_forfeits"] == 0 and result["games"] == 2
    with pytest.raises(BenchTrustError, match="No module named 'mine'"):  # before any game
        bench("leans.py:Leans", _opts(tmp_path, "g", one_rung, max_games=2))
    assert not (tmp_path / "g").exists()
