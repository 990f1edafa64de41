"""The batched engine plays every rule preset and its switches (sixtysix_env.batched.rules),
one per engine; a hand-made Rules that is no preset, and a scalar state of another preset
than the engine's, are refused by name. Lockstep with the scalar engine:
test_batched_differential.py; the draw bonus, the double game and kawu's failed close at
fixed positions: test_batched_presets.py."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from sixtysix_env.batched import BatchedEngine, SelfPlayEnv, SixtySixVectorEnv, UnsupportedRulesError
from sixtysix_env.batched.rules import batched_rules
from sixtysix_env.deals import deal
from sixtysix_env.variants import GERMAN, PRESETS, UnknownRulesError, rules_from_spec

SPECS = [*PRESETS, "german+draw_bonus", "german+double_game", "german+draw_bonus+double_game",
         "kawu+double_game", "schnapsen+double_game"]


@pytest.mark.parametrize("rules", SPECS)
@pytest.mark.parametrize("cls", [BatchedEngine, SelfPlayEnv, SixtySixVectorEnv])
def test_every_preset_and_switch_is_played(cls, rules):
    env = cls(4, rules=rules)
    eng = env if cls is BatchedEngine else env.engine
    assert eng.rules == rules_from_spec(rules)
    r = eng.rules
    assert eng.talon.shape == (r.talon_size, 4) and int(eng.stock[0]) == r.talon_size
    assert (eng.hands.bitwise_and(~r.deck) == 0).all() and (eng.hands[0] & eng.hands[1] == 0).all()
    assert [h.bit_count() for h in eng.hands[:, 0].tolist()] == [r.hand_size] * 2


def test_a_hand_made_rules_record_is_refused():
    odd = dataclasses.replace(GERMAN, last_trick_bonus=20)
    with pytest.raises(UnsupportedRulesError, match="hand-made.*scalar engine"):
        BatchedEngine(2, rules=odd)
    with pytest.raises(UnsupportedRulesError):
        SixtySixVectorEnv(2, rules=odd)


def test_a_bad_spec_is_the_rules_error():
    with pytest.raises(UnknownRulesError):
        BatchedEngine(2, rules="bogus")


@pytest.mark.parametrize("rules", ["kawu", "schnapsen", "german+draw_bonus"])
def test_scalar_states_of_another_preset_are_refused(rules):
    eng = BatchedEngine(1)
    with pytest.raises(UnsupportedRulesError, match="cannot load"):
        eng.load_states([deal(3, rules=rules)])
    with pytest.raises(UnsupportedRulesError, match="draw bonus"):
        eng.load_states([deal(3, bonus=1)])


@pytest.mark.parametrize("rules", ["kawu", "schnapsen-pkg", "german+draw_bonus"])
def test_from_states_takes_the_states_preset(rules):
    states = [deal(s, rules=rules, bonus=int(rules.endswith("bonus"))) for s in range(3)]
    eng = BatchedEngine.from_states(states)
    assert eng.rules == rules_from_spec(rules)
    back = eng.states([0, 1, 2])
    assert [type(s) for s in back] == [type(s) for s in states]
    assert [(s.rules, s.bonus, s.held) for s in back] == [(s.rules, s.bonus, s.held) for s in states]


def test_german_is_the_default_and_plays_as_before():
    assert batched_rules(None) is GERMAN and batched_rules("german") is GERMAN
    a = BatchedEngine(8, seed=5)
    b = BatchedEngine(8, seed=5, rules="german")
    c = BatchedEngine(8, seed=5, rules="german+draw_bonus+double_game")  # the same deals
    assert a.rules is GERMAN
    for name in ("hands", "talon", "trump", "dealer", "to_act", "legal"):
        assert torch.equal(getattr(a, name), getattr(b, name)), name
        assert torch.equal(getattr(a, name), getattr(c, name)), name
    env = SelfPlayEnv(4, seed=1, rules=GERMAN)
    assert env.engine.rules is GERMAN
