"""Four players go through the same referee and arena as two (agents.play.play_table, agents.arena).

Bot A plays seats 0 and 2, bot B seats 1 and 3, each seat its own bot; a
duplicate pair is one deal with the teams swapped. Time control, forfeits
(for the offending seat's team), workers, SPRT (team points per deal),
resume with replay verification and ``sixtysix replay`` all hold.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

import agents.arena.runner as runner
from agents.arena import OptionError, head_to_head, read_results, replay, run, team_match
from agents.arena.counting import forfeit_net
from agents.arena.lines import game_problem
from agents.arena.verify import outcome_problem
from agents.four import FourRandomAgent, make_four_agent
from agents.play import play_table
from sixtysix_cli import main as cli
from sixtysix_env.four_knowledge import FourView
from sixtysix_env.variants import GERMAN

ROOT = Path(__file__).resolve().parents[2]
SEED = 9
FOUR = {"players_per_game": 4, "unit": "deal", "seed": SEED, "progress": False}


class Raises(FourRandomAgent):
    name = "raises"

    def act(self, view: FourView) -> int:
        raise RuntimeError("boom")


class Illegal(FourRandomAgent):
    name = "illegal"

    def act(self, view: FourView) -> int:
        return next(a for a in range(32) if not view.legal_mask >> a & 1)


class Slow(FourRandomAgent):
    name = "slow"

    def act(self, view: FourView) -> int:
        time.sleep(2)
        return super().act(view)


class Hooked(FourRandomAgent):
    """Notes the hooks the referee calls, in order."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.calls: list[tuple] = []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.calls.append(("reset",))

    def game_rules(self, rules) -> None:
        self.calls.append(("game_rules", rules.name))

    def game_start(self, seat, unit, move_time) -> None:
        self.calls.append(("game_start", seat))


def table(specs):
    return [make_four_agent(s) for s in specs]


@pytest.mark.parametrize("bad, reason", [(Raises, "exception"), (Illegal, "illegal"), (Slow, "timeout")])
@pytest.mark.parametrize("seat", [1, 2])
def test_a_misbehaving_seat_forfeits_for_its_team_only(bad, reason, seat):
    bots = table(["heuristic"] * 4)
    bots[seat] = bad(0)
    rec = play_table(bots, SEED, "deal", move_time=0.2 if bad is Slow else None)
    assert rec.forfeit["seat"] == seat and rec.forfeit["reason"] == reason
    assert rec.winner == 1 - seat % 2  # the other team wins; the partner shares the loss
    line = {"seats": [0, 1, 0, 1], "deals": rec.deals, "forfeit": rec.forfeit}
    assert forfeit_net(line, seat % 2) == -3 and forfeit_net(line, 1 - seat % 2) == 3


def test_every_seat_gets_its_own_bot_and_the_hooks_in_order():
    bots = [Hooked(s) for s in range(4)]
    rec = play_table(bots, SEED, "deal")
    assert rec.forfeit is None and len(rec.players) == 4
    for s, b in enumerate(bots):
        assert b.calls == [("reset",), ("game_rules", "four"), ("game_start", s)]
    with pytest.raises(ValueError, match="its own bot object"):
        play_table([bots[0]] * 4, SEED)
    with pytest.raises(ValueError, match="seats 2 or 4 bots, got 3"):
        play_table(bots[:3], SEED)


def test_a_forfeit_in_the_arena_costs_the_team(monkeypatch):
    real = runner.make_four_agent
    monkeypatch.setattr(runner, "make_four_agent", lambda spec, seed=None: Raises(seed) if spec == "random"
                        else real(spec, seed))
    st = head_to_head("heuristic", "random", games=2, **FOUR)
    assert (st.a_forfeits, st.b_forfeits, st.b_forfeit_kinds["crash"], st.a_wins) == (0, 2, 2, 2)
    assert st.points_per_deal == 3.0  # each forfeited deal lost by B for the most a deal costs


def test_workers_and_a_time_limit_give_the_same_results_as_one_process():
    one = run(["heuristic", "random"], games=4, move_time=30.0, **FOUR)[2]
    two = run(["heuristic", "random"], games=4, move_time=30.0, workers=2, **FOUR)[2]
    strip = [{k: v for k, v in line.items() if k != "cpu"} for line in one]
    assert strip == [{k: v for k, v in line.items() if k != "cpu"} for line in two]
    first, second = one[0], one[1]
    assert first["seed"] == second["seed"]  # a duplicate pair: one deal, the teams swapped
    assert first["seats"] == [0, 1, 0, 1] and second["seats"] == [1, 0, 1, 0]
    assert second["agent_seeds"] == [first["agent_seeds"][i] for i in (1, 0, 3, 2)]
    assert all(outcome_problem(line, GERMAN) is None and game_problem(line, 4) is None for line in one)


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("four") / "r.jsonl")
    st = head_to_head("heuristic", "random", games=4, results_path=path, **FOUR)
    return path, st


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(raw) for raw in f if raw.strip()]


def test_a_killed_run_resumes_and_a_forged_line_is_played_again(honest, tmp_path, capsys):
    path, st = honest
    lines = lines_of(path)
    w = lines[2]["winner"]
    lines[2]["winner"] = 1 - w  # game 1: a forged result
    lines[2]["match_score"] = lines[2]["match_score"][::-1]
    forged = tmp_path / "r.jsonl"
    text = "".join(json.dumps(line) + "\n" for line in lines[:4])  # game 3 lost to the kill ...
    forged.write_text(text + json.dumps(lines[4])[:40], encoding="utf-8")  # ... mid-line
    resumed = head_to_head("heuristic", "random", games=4, results_path=str(forged), resume=True, **FOUR)
    err = capsys.readouterr().err
    assert "game 1 does not follow from its moves" in err and "damaged results line skipped" in err
    assert resumed.to_dict() | {"cpu_share": None} == st.to_dict() | {"cpu_share": None}
    assert [g["winner"] for g in read_results(str(forged))[1]] == [g["winner"] for g in read_results(path)[1]]


def test_the_sequential_stop_tests_team_points_per_deal():
    st = head_to_head("heuristic", "random", games=200, sprt=(0.0, 1.0), **FOUR)
    assert st.sprt_verdict == "H1" and st.games < 200 and st.sprt_on == "team"
    assert "team game points per deal" in st.summary()
    with pytest.raises(OptionError, match="team game points per deal"):
        head_to_head("heuristic", "random", games=2, sprt=(0, 10), **FOUR)


def test_replay_prints_a_four_player_line(honest, capsys):
    path, _ = honest
    text = list(replay(path, 1, board=False))
    assert text[0].startswith("game 1: team 0 four-random (player_0, player_2) vs team 1 four-heuristic")
    assert any(t.startswith("=== deal 1 over: team") for t in text) and text[-1].startswith("result: team")
    assert cli(["replay", path, "--game", "0"]) == 0
    assert "FourState(" in capsys.readouterr().out


def test_options_of_two_player_games_are_refused_by_name(capsys):
    with pytest.raises(OptionError, match="rules"):
        team_match(["heuristic", "random"], games=1, rules="kawu")
    with pytest.raises(ValueError, match="unknown four-player bot 'pimc'"):
        head_to_head("pimc", "random", games=1, **FOUR)
    with pytest.raises(ValueError, match="takes bot specs, not Agent objects"):
        head_to_head(FourRandomAgent(0), "random", games=1, **FOUR)
    assert cli(["arena", "--players", "4", "heuristic", "random", "--estimator", "aivat"]) == 2
    assert "aivat is for two-player games, not --players 4" in capsys.readouterr().err


def test_external_bots_play_every_seat_of_their_team():
    bot = f"exec:{sys.executable} {ROOT / 'examples' / 'bots' / 'random_bot.py'}"
    lines = run([bot, "heuristic"], games=2, move_time=30.0, **FOUR)[2]
    assert [line["forfeit"] for line in lines] == [None, None]
    assert all(outcome_problem(line, GERMAN) is None for line in lines)


def test_hostile_four_player_lines_are_named(honest):
    base = read_results(honest[0])[1][0]
    for key, value in [("seats", [0, 1]), ("seats", [0, 1, 1, 0]), ("seats", [0, 1, 0, 2]),
                       ("players", ["a", "b"]), ("agent_seeds", [1, 2, 3]), ("winner", 2),
                       ("forfeit", {"seat": 4, "reason": "illegal", "detail": ""})]:
        assert game_problem({**base, key: value}, 4) is not None, (key, value)
    assert game_problem(base, 2) is not None  # a four-player line is no two-player line
