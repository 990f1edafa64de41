"""The AIVAT estimator wired into the arena (--estimator aivat, issue 26): figures, files, SPRT, refusals."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agents.arena import ArenaOptions, OptionError, head_to_head, read_results, replay, run, summarize
from agents.arena.corrected import corrected_figure
from agents.arena.lines import game_problem
from agents.arena.records import EstimatorMismatchError
from agents.arena.sprt import SequentialStop, sprt_settings
from agents.evaluation.games import pairing_points
from agents.evaluation.values import heuristic_value
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from sixtysix_cli import main

AIVAT = {"estimator": "aivat", "value": "heuristic"}  # the cheap value function keeps the tests fast


@pytest.mark.parametrize("unit, games", [("deal", 12), ("match", 4)])
def test_the_arena_figure_equals_pairing_points_on_the_same_lines(unit, games):
    names, config, lines = run(["heuristic", "random"], games=games, unit=unit, seed=5, **AIVAT)
    assert all(set(line["aivat"]) == {"value", "points", "luck"} for line in lines)  # in the worker
    st = summarize(names, config, lines).pairings[0]
    policies = {0: HeuristicAgent().action_probabilities, 1: RandomAgent().action_probabilities}
    ref = pairing_points(lines, 0, 1, heuristic_value, policies)
    assert st.aivat is not None and st.aivat.corrected_games == games
    assert (st.points_per_deal, *st.points_per_deal_ci) == pytest.approx(ref.plain)
    assert st.aivat.sd_ratio > 0 and "aivat heuristic" in st.summary()
    one = corrected_figure(lines, 0, 1, "heuristic", "aivat-weight1")  # weight 1: AIVAT's own figure
    assert (one.points_per_deal, *one.ci) == pytest.approx(ref.aivat if one.used == "aivat" else ref.plain)
    assert one.sd_ratio == pytest.approx(ref_ratio(ref))


def ref_ratio(ref):
    """SD ratio plain/AIVAT of pairing_points' figures: their intervals' half-widths."""
    return (ref.plain[2] - ref.plain[1]) / (ref.aivat[2] - ref.aivat[1])


def test_plain_figures_are_the_same_with_and_without_the_estimator():
    plain = head_to_head("heuristic", "random", games=6, unit="deal", seed=9)
    aivat = head_to_head("heuristic", "random", games=6, unit="deal", seed=9, **AIVAT)
    d = aivat.to_dict()
    assert "aivat" not in plain.to_dict() and d.pop("aivat")["value"] == "heuristic"
    assert {**d, "cpu_share": None} == {**plain.to_dict(), "cpu_share": None}


def test_a_plain_run_never_imports_the_estimator():
    code = ("import sys; from sixtysix_cli import main; "
            "main(['arena', 'heuristic', 'random', '--games', '2', "
            "'--unit', 'deal', '--seed', '1', '--no-progress']); "
            "assert not [m for m in sys.modules if m.startswith('agents.evaluation')], 'imported'")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=120)


def test_workers_store_the_same_corrections_as_one_process():
    one = run(["heuristic", "random"], games=4, unit="deal", seed=2, **AIVAT)[2]
    two = run(["heuristic", "random"], games=4, unit="deal", seed=2, workers=2, **AIVAT)[2]
    assert [g["aivat"] for g in one] == [g["aivat"] for g in two]


def test_games_of_the_oracle_are_reported_plain_only_with_a_note(capsys):
    st = head_to_head("oracle", "random", games=4, unit="deal", seed=3, **AIVAT)
    assert st.aivat is not None and st.aivat.corrected_games == 0
    assert "oracle" in st.aivat.note and "plain only" in st.summary()
    assert main(["arena", "heuristic", "random", "oracle", "--games", "2", "--unit", "deal", "--seed", "3",
                 "--estimator", "aivat", "--value", "heuristic", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "A pts/deal aivat" in out and "random vs oracle: not corrected" in out


@pytest.mark.parametrize("argv, message", [
    (["--estimator", "aivat", "--value", "nope"], "--value names no value function: 'nope'"),
    (["--value", "critic"], "--value 'critic' needs estimator aivat"),
    (["--estimator", "aivat", "--rules", "german+draw_bonus"], "plain German rules only"),
])
def test_bad_estimator_options_are_named_one_line_errors(argv, message, capsys):
    assert main(["arena", "heuristic", "random", "--games", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_resume_with_another_estimator_or_value_is_refused(tmp_path):
    path = str(tmp_path / "r.jsonl")
    head_to_head("heuristic", "random", games=2, unit="deal", seed=1, results_path=path, **AIVAT)
    for other in ({}, {"estimator": "aivat", "value": "solver"}):
        with pytest.raises(EstimatorMismatchError, match="estimator aivat \\(value heuristic\\)"):
            head_to_head("heuristic", "random", games=4, unit="deal", seed=1, results_path=path, resume=True,
                         **other)
    st = head_to_head("heuristic", "random", games=4, unit="deal", seed=1, results_path=path, resume=True,
                      **AIVAT)
    assert st.aivat is not None and st.aivat.corrected_games == 4  # kept and added games both corrected


FORGED = ['{"value":"heuristic","points":[NaN,NaN]}', '{"value":"heuristic","points":[1e300,-1e300]}',
          '{"value":"heuristic","points":[[1],[-1]]}', '{"value":"heuristic","points":[1.0,1.0]}',
          '{"value":"heuristic","points":[true,false]}', '{"value":{"a":1},"points":[1,-1]}',
          '{"value":"heuristic","points":[1,-1],"extra":[[[[]]]]}', '{"value":"heuristic","skipped":7}',
          '"aivat"', '{"value":"heuristic","points":[Infinity,-Infinity]}',
          '{"value":"heuristic","points":[1' + "0" * 400 + ',-1' + "0" * 400 + ']}']


def test_forged_aivat_fields_are_skipped_by_resume_and_replay(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    head_to_head("heuristic", "random", games=len(FORGED), unit="deal", seed=4, results_path=str(path),
                 **AIVAT)
    header, *games = path.read_text().splitlines()
    assert all(game_problem(json.loads(g)) is None for g in games)
    forged = []
    for g, field in zip(games, FORGED, strict=True):
        cut = g.index('"aivat":')
        forged.append(g[:cut] + '"aivat":' + field + "}")
    path.write_text("\n".join([header, *forged]) + "\n")
    assert read_results(str(path))[1] == []
    err = capsys.readouterr().err
    assert err.count("'aivat' is out of range or malformed") == 10  # then a count (records.Warn)
    assert f"{len(FORGED)} damaged lines skipped in all" in err
    with pytest.raises(ValueError, match="has no game 0"):
        list(replay(str(path), 0))
    st = head_to_head("heuristic", "random", games=len(FORGED), unit="deal", seed=4, results_path=str(path),
                      resume=True, **AIVAT)  # every forged game is played (and corrected) again
    assert st.aivat is not None and st.aivat.corrected_games == len(FORGED)


def test_huge_json_ints_are_malformed_numbers_not_crashes(tmp_path, capsys):
    # math.isfinite raises on an int past the float range: every number check must refuse it instead.
    path = tmp_path / "r.jsonl"
    head_to_head("heuristic", "random", games=2, unit="deal", seed=4, results_path=str(path), **AIVAT)
    header, first, second = path.read_text().splitlines()
    line = json.loads(second)
    line["cpu"] = {"wall": 10**400, "cpu": 1.0}
    path.write_text("\n".join([header, first, json.dumps(line)]) + "\n")
    assert [g["index"] for g in read_results(str(path))[1]] == [0]
    assert "'cpu' is out of range or malformed" in capsys.readouterr().err


def _line(cluster: int, seats: list[int], a_points: int, corrected_a: float) -> dict:
    """A one-deal game line: A (player 0) wins ``a_points`` (or loses them), corrected to ``corrected_a``."""
    winner = seats.index(0) if a_points > 0 else seats.index(1)
    seat_a = seats.index(0)
    points = [corrected_a, -corrected_a] if seat_a == 0 else [-corrected_a, corrected_a]
    return {"cluster": cluster, "seats": seats, "winner": winner,
            "deals": [{"winner": winner, "game_points": abs(a_points), "reason": "66"}],
            "aivat": {"value": "solver", "points": points}}


def _feed(stop: SequentialStop, lines: list[dict]) -> SequentialStop:
    for line in lines:
        if stop.add(line):
            break
    return stop


def test_the_sprt_with_aivat_decides_on_the_corrected_values():
    # A wins every game on the cards (plain: clearly stronger), but the corrections say it gained
    # nothing: -0.5 or +0.5 points per deal around 0, with noise.
    lines = []
    for c in range(40):
        x = 0.5 if c % 2 else -0.5
        lines += [_line(c, [0, 1], 1 + c % 3, x), _line(c, [1, 0], 3 - c % 2, -x + 0.1 * (c % 3))]
    plain = _feed(SequentialStop(sprt_settings((0, 50)), True, 80), lines)
    assert plain.verdict == "H1"
    corrected = _feed(SequentialStop(sprt_settings((0, 0.5), on="aivat-weight1"), True, 80), lines)
    assert corrected.verdict == "H0" and corrected.played >= 20  # at least ten clusters first
    again = _feed(SequentialStop(sprt_settings((0, 0.5), on="aivat-weight1"), True, 80),
                  [_line(g["cluster"], g["seats"], 2, 2.0) for g in lines])
    assert again.verdict == "H1"  # the same games with other corrections: another verdict


def test_the_arena_sprt_with_aivat_tests_corrected_points_per_deal(tmp_path):
    path = str(tmp_path / "r.jsonl")
    st = head_to_head("heuristic", "random", games=60, unit="deal", seed=7, sprt=(0, 0.5), results_path=path,
                      **AIVAT)
    assert st.sprt_verdict == "H1" and st.sprt_on == "aivat" and st.games < 60
    assert "pts/deal" in st.sprt_text() and "Elo" not in st.sprt_text()
    header = read_results(path)[0]["config"]
    assert header["sprt"]["on"] == "aivat" and header["estimator"] == {"name": "aivat", "value": "heuristic"}
    with pytest.raises(OptionError, match="sprt on aivat needs estimator aivat"):
        ArenaOptions(games=2, sprt=(0, 1), sprt_estimator="aivat")


def test_the_figure_counts_a_game_without_corrections_plain_and_says_so():
    lines = [_line(0, [0, 1], 2, 3.0), _line(0, [1, 0], -1, 3.0), _line(1, [0, 1], 3, 1.0)]
    del lines[2]["aivat"]
    f = corrected_figure(lines, 0, 1, "solver", "aivat-weight1")
    assert f.corrected_games == 2 and f.games == 3 and "1 of 3 games not corrected" in f.note
    assert f.points_per_deal == pytest.approx((3 + 3 + 3) / 3) and f.used == "aivat"
    other = corrected_figure(lines, 0, 1, "critic")  # points of another value function do not count
    assert other.corrected_games == 0 and other.points_per_deal == pytest.approx((2 - 1 + 3) / 3)
