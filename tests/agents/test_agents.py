"""The registry (make_agent specs and errors), legal play of every bot, heuristic rules."""

from __future__ import annotations

import random
import sys
import types

import pytest

from agents import KNOWN_AGENTS, describe_agents, make_agent, parse_spec
from agents.base import Agent
from agents.core.rules import masters, rule_action, should_close
from agents.heuristic import HeuristicAgent
from agents.play import decide
from agents.play import play_deal as play
from agents.random_agent import RandomAgent
from agents.registry import canonical_name
from sixtysix_env.actions import CONTINUE, DECLARE, EXCHANGE, MARRIAGE
from sixtysix_env.cards import card_id, mask_of
from sixtysix_env.deals import deal, fixed_deal
from sixtysix_env.engine import DRAW, FINAL, FOLLOW, LEAD, State
from sixtysix_env.knowledge import PlayerView, view

TINY = ["random", "heuristic", "pimc:worlds=2", "ismcts:iterations=8,worlds=2", "oracle", "guided:worlds=2"]


def play_deal(agents: list[Agent], seed: int) -> tuple[State, list[int]]:
    """Play one deal (``State.apply`` raises on an illegal move); the end state and the actions."""
    actions: list[int] = []

    def record(state: State, v: PlayerView) -> int:
        actions.append(decide(agents[state.to_act], v, state))
        return actions[-1]

    return play(deal(random.Random(seed)), agents, hook=record), actions


def cards(*names: str) -> int:
    return mask_of(card_id(n) for n in names)


# ------------------------------------------------------------------ registry
@pytest.mark.parametrize("spec,name", [
    ("random", "random"),
    ("heuristic", "heuristic"),
    ("pimc", "pimc"),
    ("PIMC:worlds=30", "pimc:worlds=30"),
    ("pimc:worlds=64", "pimc"),
    ("ismcts:iterations=2000", "ismcts:iterations=2000"),
    ("ismcts:c=1.5, iterations=10", "ismcts:iterations=10,c=1.5"),
    ("oracle", "oracle"),
])
def test_make_agent_builds_named_bots(spec, name):
    agent = make_agent(spec, seed=3)
    assert isinstance(agent, Agent)
    assert agent.name == name


@pytest.mark.parametrize("spec,fragment", [
    ("nobot", "unknown bot"),
    ("", "non-empty"),
    ("pimc:wrolds=3", "unknown parameter"),
    ("pimc:worlds=many", "bad value"),
    ("pimc:worlds=0", "must be >="),
    ("pimc:worlds=3,worlds=4", "twice"),
    ("pimc:worlds", "key=value"),
    ("random:x=1", "unknown parameter"),
    ("ismcts:c=nan", "bad value"),
])
def test_bad_specs_raise_value_error_listing_the_bots(spec, fragment):
    with pytest.raises(ValueError) as err:
        make_agent(spec)
    msg = str(err.value)
    assert fragment in msg
    for name in KNOWN_AGENTS:
        assert name in msg
    assert "worlds=64" in msg  # parameters with defaults


def test_non_string_spec_is_rejected():
    with pytest.raises(ValueError):
        make_agent(None)  # type: ignore[arg-type]


def test_ppo_specs_load_lazily_through_agents_neural(monkeypatch):
    calls = []
    fake = types.ModuleType("agents.neural")

    def load_ppo_agent(path, seed=None, assist="full"):
        calls.append((path, seed, assist))
        return RandomAgent(seed)

    fake.load_ppo_agent = load_ppo_agent  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agents.neural", fake)
    make_agent("ppo", seed=5)
    make_agent("ppo:runs/x/model.pt,assist=rules", seed=6)
    assert calls == [(None, 5, "full"), ("runs/x/model.pt", 6, "rules")]
    assert parse_spec("ppo:a:b.pt") == ("ppo", {"path": "a:b.pt", "assist": "full"})
    assert parse_spec("ppo:assist=0") == ("ppo", {"path": None, "assist": "none"})
    assert parse_spec("ppo:x.pt,assist=none") == ("ppo", {"path": "x.pt", "assist": "none"})
    assert parse_spec("ppo:x.pt,assist=Rules") == ("ppo", {"path": "x.pt", "assist": "rules"})
    assert parse_spec("ppo:assist=1") == ("ppo", {"path": None, "assist": "full"})
    assert canonical_name("ppo", {"path": "x.pt", "assist": "none"}) == "ppo:x.pt,assist=none"
    assert canonical_name("ppo", {"path": None, "assist": "rules"}) == "ppo:assist=rules"
    assert canonical_name("ppo", {"path": None, "assist": "full"}) == "ppo"
    for bad in ("ppo:x.pt,endgame=2", "ppo:x.pt,greedy=1", "ppo:x.pt,endgame", "ppo:assist=2",
                "ppo:x.pt,assist=some"):
        with pytest.raises(ValueError, match=r"ppo:\[PATH,\]assist=full\|rules\|none"):
            parse_spec(bad)


def test_describe_agents_lists_every_bot():
    text = describe_agents()
    for name, info in KNOWN_AGENTS.items():
        assert name in text
        for key in info.params:
            assert key in text


# ---------------------------------------------------------------- legal play
@pytest.mark.parametrize("spec", TINY)
def test_every_bot_plays_only_legal_actions(spec):
    rng = random.Random(0)
    for seed in range(6 if spec in ("random", "heuristic") else 3):
        a = make_agent(spec, seed=seed)
        b = make_agent(rng.choice(["random", "heuristic"]), seed=seed + 1)
        s, _ = play_deal([a, b] if seed % 2 else [b, a], 1000 + seed)
        assert s.result is not None


def test_random_and_heuristic_over_many_deals():
    agents = [RandomAgent(1), HeuristicAgent(2)]
    for seed in range(150):
        play_deal(agents if seed % 2 else agents[::-1], seed)


@pytest.mark.parametrize("spec", TINY)
def test_decisions_are_deterministic_under_a_seed(spec):
    runs = []
    for _ in range(2):
        a, b = make_agent(spec, seed=11), make_agent(spec, seed=12)
        runs.append(play_deal([a, b], 77)[1])
    assert runs[0] == runs[1]
    a.reset(11)
    b.reset(12)
    assert play_deal([a, b], 77)[1] == runs[0]


def test_bots_refuse_to_act_out_of_turn():
    s = deal(random.Random(1))
    off_turn = view(s, 1 - s.to_act)
    for spec in ("random", "heuristic", "pimc:worlds=1", "ismcts:iterations=1"):
        with pytest.raises(ValueError):
            make_agent(spec).act(off_turn)


# ------------------------------------------------------------------ heuristic
def _rule(**kw):
    base = dict(lead_card=-1, trump=3, phase2=False, me=0, closed_by=-1, closer_opp_tricks=1,
                my_score=0, my_tricks=1, outstanding=0)
    base.update(kw)
    return rule_action(**base)


def test_heuristic_declares_at_66_and_exchanges_and_shows_trump_marriage():
    hand = cards("9D", "KD", "QD", "KC", "QC", "AS")
    legal = hand | (1 << DECLARE) | (1 << EXCHANGE) | (0b1001 << MARRIAGE)
    assert _rule(legal=legal, hand=hand, window=LEAD, my_score=66) == DECLARE
    assert _rule(legal=legal, hand=hand, window=LEAD, my_score=40) == EXCHANGE
    legal &= ~(1 << EXCHANGE)
    assert _rule(legal=legal, hand=hand, window=LEAD, my_score=40) == MARRIAGE + 3


def test_heuristic_final_window_false_declaration_only_to_save_a_point():
    legal = (1 << DECLARE) | (1 << CONTINUE)
    assert _rule(legal=legal, hand=0, window=FINAL, closed_by=0, closer_opp_tricks=0) == DECLARE
    assert _rule(legal=legal, hand=0, window=FINAL, closed_by=0, closer_opp_tricks=2) == CONTINUE
    assert _rule(legal=legal, hand=0, window=FINAL, closed_by=1, closer_opp_tricks=0) == CONTINUE


def test_heuristic_takes_a_ten_cheaply_and_discards_low_otherwise():
    hand = cards("AC", "9D", "JD", "9S", "KH", "QH")  # diamonds trumps
    # Ten of clubs led: take it with the ace of clubs.
    assert _rule(legal=hand, hand=hand, window=FOLLOW, lead_card=card_id("TC")) == card_id("AC")
    # Ten of spades led: no higher spade, take it with the lowest trump.
    assert _rule(legal=hand, hand=hand, window=FOLLOW, lead_card=card_id("TS")) == card_id("9D")
    # A jack of hearts led: throw the nine of spades, keep trumps and the marriage.
    assert _rule(legal=hand, hand=hand, window=FOLLOW, lead_card=card_id("JH")) == card_id("9S")
    # Leading: the cheapest card that is neither trump nor half of a marriage.
    assert _rule(legal=hand, hand=hand, window=LEAD) == card_id("9S")


def test_heuristic_closes_only_with_sure_points():
    hand = cards("AD", "TD", "KD", "AC", "TC", "9S")
    outstanding = 0xFFFFFF & ~hand
    assert masters(hand, outstanding) == cards("AD", "TD", "KD", "AC", "TC")
    assert should_close(hand, 30, 2, 3, outstanding)
    assert not should_close(hand, 30, 0, 3, outstanding)  # no trick yet
    weak = cards("9D", "JC", "QC", "9S", "JS", "9H")
    assert not should_close(weak, 40, 2, 3, 0xFFFFFF & ~weak)
    assert _rule(legal=(1 << CONTINUE) | (1 << 29), hand=hand, window=DRAW, my_score=30,
                 outstanding=outstanding) == CONTINUE


def test_heuristic_plays_the_solver_once_the_talon_is_spent():
    from agents.search.solver import action_values

    rng = random.Random(4)
    agent = HeuristicAgent(0)
    s = fixed_deal([["AC", "TC", "KC", "QC", "JC", "9C"], ["AS", "TS", "KS", "QS", "JS", "9S"]],
                   ["AH", "TH", "KH", "QH", "JH", "9H", "AD", "TD", "KD", "QD", "JD", "9D"], dealer=1)
    checked = 0
    while not s.is_over:
        if s.stock == 0 and s.window in (LEAD, FOLLOW):
            values = action_values(s)
            assert values[agent.act(view(s, s.to_act))] == max(values.values())
            checked += 1
        s.apply(rng.choice([a for a in s.legal_actions() if a not in (DECLARE, 29)] or s.legal_actions()))
    assert checked > 0
