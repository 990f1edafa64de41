"""The arena: duplicate schedule, statistics, results file, resume, workers, replay, SPRT stop."""

import dataclasses
import json
import math
import os
import subprocess
import sys
import time

import pytest

from agents import arena
from agents.arena import (
    ResultsFileError,
    head_to_head,
    pairing_stats,
    read_results,
    replay,
    round_robin,
    run,
    schedule,
    stats,
)
from agents.arena.records import as_played
from agents.base import BaseAgent
from agents.random_agent import RandomAgent


class FirstHandBot(RandomAgent):
    """Random play; remembers (seat, hand) at its first decision of every game."""

    def __init__(self, name):
        super().__init__()
        self.name = name
        self.seen = []
        self._fresh = False

    def reset(self, seed=None):
        super().reset(seed)
        self._fresh = True

    def act(self, view):
        if self._fresh:  # the first decision of a game comes before any draw: the dealt hand
            self.seen.append((view.player, view.hand))
            self._fresh = False
        return super().act(view)


class RaisingBot(BaseAgent):
    name = "raiser"

    def act(self, view):
        raise RuntimeError("boom")


def _games(path):
    return [as_played(g) for g in read_results(path)[1]]


def test_schedule_pairs_seeds_and_swaps_seats():
    tasks = schedule(2, 6, seed=1, duplicate=True)
    assert [t.index for t in tasks] == list(range(6))
    for k in range(3):
        t0, t1 = tasks[2 * k], tasks[2 * k + 1]
        assert t0.seed == t1.seed and t0.cluster == t1.cluster == k
        assert t0.seats == (0, 1) and t1.seats == (1, 0)
        assert t0.agent_seeds == t1.agent_seeds[::-1]  # each bot keeps its own seed
    assert len({t.seed for t in tasks}) == 3
    plain = schedule(2, 6, seed=1, duplicate=False)
    assert len({t.seed for t in plain}) == 6 and all(t.seats == (0, 1) for t in plain)
    assert schedule(2, 6, seed=2, duplicate=True)[0].seed != tasks[0].seed


def test_round_robin_pairings_share_card_seeds():
    tasks = schedule(3, 4, seed=0, duplicate=True)
    assert len(tasks) == 12
    by_pairing = [[t.seed for t in tasks if (t.a, t.b) == p] for p in [(0, 1), (0, 2), (1, 2)]]
    assert by_pairing[0] == by_pairing[1] == by_pairing[2]


def test_duplicate_mode_gives_each_bot_the_other_bots_cards():
    a, b = FirstHandBot("a"), FirstHandBot("b")
    head_to_head(a, b, games=6, seed=3)
    assert [p for p, _ in a.seen] == [0, 1] * 3 and [p for p, _ in b.seen] == [1, 0] * 3
    for k in range(3):
        assert a.seen[2 * k][1] == b.seen[2 * k + 1][1]  # seat 0's cards, A then B
        assert b.seen[2 * k][1] == a.seen[2 * k + 1][1]  # seat 1's cards, B then A
    assert a.seen[0][1] != a.seen[2][1]


def _line(index, seats, winner, deals, cluster, forfeit=None):
    return {"index": index, "seats": list(seats), "winner": winner, "cluster": cluster,
            "forfeit": forfeit, "deals": [{"winner": w, "game_points": g} for w, g in deals]}


def test_pairing_stats_by_hand():
    lines = [
        _line(0, (0, 1), 0, [(0, 3), (1, 1), (0, 2)], 0),  # A wins; A net +4 over 3 deals
        _line(1, (1, 0), 0, [(0, 2), (None, 0)], 0),  # B (seat 0) wins; A net -2
        # A forfeits in its second deal: that deal counts as lost by 3 (a schwarz), A net -1 - 3
        _line(2, (0, 1), 1, [(1, 1)], 1, forfeit={"seat": 0, "reason": "timeout", "detail": ""}),
        _line(3, (1, 0), 1, [(1, 3)], 1),  # A (seat 1) wins; A net +3
    ]
    st = pairing_stats(lines, 0, 1, ["A", "B"], "match", True)
    assert (st.games, st.a_wins, st.b_wins, st.draws) == (4, 2, 2, 0)
    assert (st.forfeits, st.a_forfeits, st.b_forfeits) == (1, 1, 0)
    assert (st.deals, st.a_deal_wins, st.b_deal_wins, st.drawn_deals) == (8, 3, 4, 1)
    assert st.win_rate == 0.5 and st.deal_win_rate == 3.5 / 8
    assert st.points_per_deal == pytest.approx((4 - 2 - 1 - 3 + 3) / 8)
    lo, hi = st.points_per_deal_ci
    assert lo < st.points_per_deal < hi
    assert st.elo == 0.0 and st.los == 0.5
    assert json.loads(json.dumps(st.to_dict()))["win_rate_ci"] == list(st.win_rate_ci)


def test_forfeits_count_as_losses():
    st = head_to_head(RaisingBot(), RandomAgent(), games=4)
    assert (st.games, st.a_wins, st.b_wins, st.a_forfeits, st.b_forfeits) == (4, 0, 4, 4, 0)
    assert st.win_rate == 0.0 and st.deals == 4 and st.b_deal_wins == 4  # each forfeited deal lost
    assert st.points_per_deal == -3.0  # by the most a deal costs
    d = json.loads(json.dumps(st.to_dict(), allow_nan=False))  # strict JSON: -inf Elo
    assert d["elo"] is None and d["points_per_deal"] == -3.0


def test_progress_bar_shows_standings(capsys):
    st = head_to_head("heuristic", "random", games=4, progress=True)
    err = capsys.readouterr().err
    assert "4/4" in err and "heuristic" in err
    assert st.sprt(0, 100).llr > 0


def test_results_file_and_resume_after_truncation(tmp_path):
    full = tmp_path / "full.jsonl"
    ref = head_to_head("random", "heuristic", games=10, seed=5, results_path=str(full))
    header, games = read_results(str(full))
    games = [as_played(g) for g in games]
    assert header["config"]["players"] == ["random", "heuristic"]
    assert [g["index"] for g in games] == list(range(10))
    raw_lines = full.read_text().splitlines(keepends=True)
    for k in (0, 4, 9):
        part = tmp_path / f"part{k}.jsonl"
        # k complete games, then a line cut off mid-write by a killed run
        part.write_text("".join(raw_lines[: 1 + k]) + raw_lines[1 + k][:25])
        st = head_to_head("random", "heuristic", games=10, seed=5, results_path=str(part), resume=True)
        assert st == ref
        assert _games(str(part)) == games
    # resuming a finished run plays nothing and gives the same numbers
    assert head_to_head("random", "heuristic", games=10, seed=5, results_path=str(full), resume=True) == ref


def test_workers_give_identical_results(tmp_path):
    kw = dict(games=6, seed=2, unit="deal")
    one = run(["random", "heuristic", "random"], workers=1, results_path=str(tmp_path / "1.jsonl"), **kw)
    two = run(["random", "heuristic", "random"], workers=2, results_path=str(tmp_path / "2.jsonl"), **kw)
    assert one[:2] == two[:2] and [as_played(g) for g in one[2]] == [as_played(g) for g in two[2]]
    assert _games(str(tmp_path / "1.jsonl")) == _games(str(tmp_path / "2.jsonl"))


def test_results_file_errors(tmp_path):
    path = tmp_path / "r.jsonl"
    head_to_head("random", "random", games=2, results_path=str(path))
    with pytest.raises(ResultsFileError, match="already holds results"):
        head_to_head("random", "random", games=2, results_path=str(path))
    with pytest.raises(ResultsFileError, match="different run configuration.*seed"):
        head_to_head("random", "random", games=2, seed=9, results_path=str(path), resume=True)
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"hello": "world"}\n')
    with pytest.raises(ResultsFileError, match="not a sixtysix arena results file"):
        read_results(str(foreign))
    with pytest.raises(ResultsFileError, match="not a sixtysix arena results file"):
        head_to_head("random", "random", games=2, results_path=str(foreign), resume=True)
    assert foreign.read_text() == '{"hello": "world"}\n'  # a file not the arena's is never touched


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="workers=1"):
        head_to_head(RandomAgent(), RandomAgent(), games=2, workers=2)
    bot = RandomAgent()
    with pytest.raises(ValueError, match="distinct"):
        head_to_head(bot, bot, games=2)
    with pytest.raises(ValueError, match="unknown bot"):
        head_to_head("random", "nonsense", games=2)
    with pytest.raises(ValueError, match="resume"):
        head_to_head("random", "random", games=2, resume=True)
    for bad in (dict(games=0), dict(games=2, unit="set"), dict(games=2, move_time=-1)):
        with pytest.raises(ValueError):
            head_to_head("random", "random", **bad)
    with pytest.raises(ValueError, match="at least two"):
        round_robin(["random"], games=2)


def test_round_robin_reports(tmp_path):
    rr = round_robin(["random", "heuristic", "random"], games=4, seed=1)
    assert rr.names == ["random", "heuristic", "random#2"]
    assert len(rr.pairings) == 3 and rr.games == [8, 8, 8]
    assert sum(rr.score) == 12
    assert sum(rr.ratings.elo) == pytest.approx(0.0, abs=1e-6)
    d = json.loads(json.dumps(rr.to_dict()))
    assert [r["name"] for r in d["ratings"]] == [rr.names[i] for i in rr.standings()]
    assert all(name in rr.table() and name in rr.markdown() for name in rr.names)
    png = tmp_path / "rr.png"
    rr.plot(str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_replay_prints_the_recorded_game(tmp_path):
    path = tmp_path / "r.jsonl"
    head_to_head("random", "heuristic", games=2, results_path=str(path))
    g = _games(str(path))[1]
    lines = list(replay(str(path), 1, board=False))
    assert sum(1 for x in lines if x.startswith("=== deal")) == len(g["deals"])
    assert sum(1 for x in lines if x.strip()[:1].isdigit()) == len(g["actions"])
    assert lines[-1].startswith(f"result: player_{g['winner']}")
    assert any("legal:" in x for x in replay(str(path), 1, board=True))
    with pytest.raises(ValueError, match="no game 5"):
        list(replay(str(path), 5))
    header, games = read_results(str(path))
    games[1]["deals"][0]["reason"] = "resigned"
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(json.dumps(x) for x in [header, *games]) + "\n")
    with pytest.raises(ValueError, match="differs from the record"):
        list(replay(str(edited), 1))


def test_replay_of_a_forfeited_game_says_why(tmp_path):
    path = tmp_path / "f.jsonl"
    head_to_head(RandomAgent(), RaisingBot(), games=2, results_path=str(path))
    lines = list(replay(str(path), 0, board=False))
    assert lines[-2] == "forfeit: player_1 (raiser) loses by exception: RuntimeError: boom"
    assert lines[-1].startswith("result: player_0 (random) wins")


KILLABLE = """
import sys, time
from agents.arena import head_to_head
from agents.random_agent import RandomAgent

class Sleepy(RandomAgent):
    name = "sleepy"
    def act(self, view):
        time.sleep(0.002)
        return super().act(view)

head_to_head(Sleepy(), RandomAgent(), games=1000, seed=4, results_path=sys.argv[1])
"""


class Sleepy(RandomAgent):
    """The killable script's bot without the sleep: same name, same moves."""

    name = "sleepy"


@pytest.mark.slow
def test_resume_after_killed_process_matches_uninterrupted_run(tmp_path):
    path = tmp_path / "killed.jsonl"
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", KILLABLE, str(path)], env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if path.exists() and path.read_text().count("\n") > 20:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    recorded = len(_games(str(path)))
    assert 20 <= recorded < 1000
    resumed = head_to_head(Sleepy(), RandomAgent(), games=1000, seed=4, results_path=str(path), resume=True)
    clean = head_to_head(Sleepy(), RandomAgent(), games=1000, seed=4, results_path=str(tmp_path / "c.jsonl"))
    assert resumed == clean
    assert _games(str(path)) == _games(str(tmp_path / "c.jsonl"))
    assert not math.isnan(clean.points_per_deal)


def test_module_docstring_names_the_cli():
    assert "sixtysix arena --help" in arena.__doc__


# ------------------------------------------------------------ sequential stop
SPRT_FIELDS = ("sprt_verdict", "sprt_llr", "sprt_bounds", "sprt_elo", "sprt_alpha", "sprt_beta",
               "sprt_max_games")


def _without_sprt(st):
    return dataclasses.replace(st, **dict.fromkeys(SPRT_FIELDS))


def test_sprt_stops_at_the_deciding_game():
    st = head_to_head("heuristic", "random", games=60, sprt=(0, 120), seed=0)
    # heuristic wins every match; each win adds log(s1 / s0) = 0.2868 for (0, 120), so the
    # LLR first passes the upper bound 2.944 at 11 wins, but duplicate mode decides only
    # after both seatings of a seed: at 12
    assert (st.games, st.a_wins, st.sprt_verdict, st.sprt_max_games) == (12, 12, arena.SPRT_H1, 60)
    assert st.sprt_llr >= st.sprt_bounds[1] and st.sprt_elo == (0.0, 120.0)
    assert stats.sprt(10, 0, 0, elo0=0, elo1=120).decision == "continue"  # not decided at the previous pair
    plain = head_to_head("heuristic", "random", games=60, sprt=(0, 120), duplicate=False, seed=0)
    assert plain.games == 11 and plain.sprt_verdict == arena.SPRT_H1
    # the statistics are exactly those of a fixed run of the deciding length
    assert _without_sprt(st) == head_to_head("heuristic", "random", games=12, seed=0)
    assert "H1 accepted" in st.summary()


@pytest.mark.parametrize(
    "kw, games, verdict",
    [
        # equal bots: the truth lies halfway between H0 and H1, so either may be accepted
        (dict(seed=3, sprt=(-50, 50)), 122, arena.SPRT_H1),
        (dict(seed=3, sprt=(-50, 50), duplicate=False), 141, arena.SPRT_H0),
        (dict(seed=1, sprt=(-20, 20)), 120, arena.SPRT_UNDECIDED),  # equal bots: runs to the maximum
    ],
)
def test_sprt_workers_give_identical_results_and_verdicts(tmp_path, kw, games, verdict):
    kw = dict(unit="deal", games=120 if verdict == arena.SPRT_UNDECIDED else 300, **kw)
    one = head_to_head("random", "random", workers=1, results_path=str(tmp_path / "1.jsonl"), **kw)
    two = head_to_head("random", "random", workers=2, results_path=str(tmp_path / "2.jsonl"), **kw)
    assert one == two
    assert (one.games, one.sprt_verdict) == (games, verdict)
    lower, upper = one.sprt_bounds
    assert (one.sprt_llr >= upper) if verdict == arena.SPRT_H1 else (
        one.sprt_llr <= lower if verdict == arena.SPRT_H0 else lower < one.sprt_llr < upper)
    # workers=1 plays exactly the counted games; other workers' extra games are kept but not counted
    g1, g2 = _games(str(tmp_path / "1.jsonl")), _games(str(tmp_path / "2.jsonl"))
    assert [g["index"] for g in g1] == list(range(games))
    assert g2[:games] == g1
    # resuming the file with extra games gives the same verdict and numbers
    assert head_to_head("random", "random", workers=1, results_path=str(tmp_path / "2.jsonl"), resume=True,
                        **kw) == one


def test_sprt_resume_matches_uninterrupted_run(tmp_path):
    kw = dict(games=300, unit="deal", seed=3, sprt=(-50, 50))
    full = tmp_path / "full.jsonl"
    ref = head_to_head("random", "random", results_path=str(full), **kw)
    assert ref.games == 122
    raw_lines = full.read_text().splitlines(keepends=True)
    for k in (0, 7, 121):
        part = tmp_path / f"part{k}.jsonl"
        part.write_text("".join(raw_lines[: 1 + k]) + raw_lines[1 + k][:25])  # killed mid-write
        assert head_to_head("random", "random", results_path=str(part), resume=True, workers=2, **kw) == ref
        assert _games(str(part))[:122] == _games(str(full))
    # a decided run resumes to the same verdict without playing anything
    before = full.read_text()
    assert head_to_head("random", "random", results_path=str(full), resume=True, **kw) == ref
    assert full.read_text() == before
    header = read_results(str(full))[0]
    assert header["config"]["sprt"] == {"elo0": -50.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05}
    with pytest.raises(ResultsFileError, match="different run configuration.*sprt"):
        head_to_head("random", "random", games=300, unit="deal", results_path=str(full), resume=True)
    with pytest.raises(ResultsFileError, match="different run configuration.*sprt"):
        head_to_head("random", "random", results_path=str(full), resume=True, sprt_alpha=0.01, **kw)


def test_sprt_reports_show_the_verdict():
    st = head_to_head("heuristic", "random", games=60, sprt=(0, 120), seed=0)
    assert "SPRT elo0 0 vs elo1 120" in st.summary() and "H1 accepted" in st.summary()
    d = json.loads(json.dumps(st.to_dict(), allow_nan=False))
    assert d["sprt_verdict"] == "H1" and d["games"] == st.games < 60 and d["sprt_max_games"] == 60
    assert d["sprt_bounds"] == pytest.approx([math.log(0.05 / 0.95), math.log(0.95 / 0.05)])
    rr = round_robin(["heuristic", "random"], games=60, sprt=(0, 120), seed=0)
    assert rr.pairings[0] == st and rr.games == [st.games, st.games]
    assert rr.config["sprt"]["elo1"] == 120.0
    for text in (rr.table(), rr.markdown()):
        assert "at most 60 matches" in text and "H1 accepted (heuristic stronger than random" in text
    assert json.loads(json.dumps(rr.to_dict()))["pairings"][0]["sprt_verdict"] == "H1"
    # runs without SPRT are unchanged: no verdict, no SPRT line, no config key
    plain = round_robin(["heuristic", "random"], games=2)
    assert plain.pairings[0].sprt_verdict is None and "SPRT" not in plain.table() + plain.markdown()
    assert "sprt" not in plain.config and plain.pairings[0].summary().count("\n") == 0


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(sprt=(10, 0)), "elo0 < elo1"),
        (dict(sprt=(5, 5)), "elo0 < elo1"),
        (dict(sprt=(0, 10), sprt_alpha=0.0), "alpha must be in"),
        (dict(sprt=(0, 10), sprt_alpha=1.0), "alpha must be in"),
        (dict(sprt=(0, 10), sprt_beta=-0.1), "beta must be in"),
        (dict(sprt=(0, 10), sprt_alpha=0.6, sprt_beta=0.5), "alpha \\+ beta < 1"),
        (dict(sprt=(0, float("inf"))), "finite"),
        (dict(sprt=("0", 10)), "finite number"),
        (dict(sprt=(0, 10, 20)), "pair"),
        (dict(sprt="0,10"), "pair"),
        (dict(sprt_alpha=0.01), "need sprt"),
    ],
)
def test_sprt_bad_arguments_are_value_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        head_to_head("random", "random", games=2, **kw)


def test_sprt_is_head_to_head_only():
    with pytest.raises(ValueError, match="two bots"):
        round_robin(["random", "heuristic", "random"], games=2, sprt=(0, 10))
    with pytest.raises(ValueError, match="two bots"):
        run(["random", "heuristic", "random"], games=2, sprt=(0, 10))
    names, config, lines = run(["heuristic", "random"], games=60, sprt=(0, 120))
    assert len(lines) == head_to_head("heuristic", "random", games=60, sprt=(0, 120)).games


def test_sequential_stop_counts_games_from_a_side():
    s = arena.SequentialStop(arena.SprtSettings(0, 10), duplicate=True, max_games=3)
    assert s.verdict == arena.SPRT_UNDECIDED and s.result.llr == 0.0
    win_a_seat0 = {"seats": [0, 1], "winner": 0}
    win_a_seat1 = {"seats": [1, 0], "winner": 1}
    loss = {"seats": [1, 0], "winner": 0}
    assert not s.add(win_a_seat0) and s.result.llr == 0.0  # mid-pair: not tested
    assert not s.add(win_a_seat1) and s.result.llr > 0
    assert (s.wins, s.draws, s.losses) == (2, 0, 0)
    s.add(loss)  # game 3 is the maximum: tested though it ends no pair
    assert s.result == stats.sprt(2, 0, 1, elo0=0, elo1=10)
