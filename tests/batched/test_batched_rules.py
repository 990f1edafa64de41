"""The batched engine plays the plain German game and refuses every other rule preset
by name (sixtysix_env.batched.rules), at construction and when loading scalar states."""

from __future__ import annotations

import re

import pytest
import torch

from sixtysix_env.batched import BatchedEngine, SelfPlayEnv, SixtySixVectorEnv, UnsupportedRulesError
from sixtysix_env.batched.rules import batched_rules
from sixtysix_env.deals import deal
from sixtysix_env.variants import GERMAN, PRESETS, UnknownRulesError

REFUSED = [*(p for p in PRESETS if p != "german"), "german+draw_bonus", "german+double_game"]


@pytest.mark.parametrize("rules", REFUSED)
@pytest.mark.parametrize("cls", [BatchedEngine, SelfPlayEnv, SixtySixVectorEnv])
def test_other_presets_are_refused_at_construction(cls, rules):
    with pytest.raises(UnsupportedRulesError, match=rf"not '{re.escape(rules)}'.*scalar engine"):
        cls(4, rules=rules)


def test_a_bad_spec_is_the_rules_error():
    with pytest.raises(UnknownRulesError):
        BatchedEngine(2, rules="bogus")


@pytest.mark.parametrize("rules", ["kawu", "schnapsen", "german+draw_bonus"])
def test_scalar_states_of_other_presets_are_refused(rules):
    eng = BatchedEngine(1)
    with pytest.raises(UnsupportedRulesError):
        eng.load_states([deal(3, rules=rules)])
    with pytest.raises(UnsupportedRulesError, match="draw bonus"):
        eng.load_states([deal(3, bonus=1)])


def test_german_is_the_default_and_plays_as_before():
    assert batched_rules(None) is GERMAN and batched_rules("german") is GERMAN
    a = BatchedEngine(8, seed=5)
    b = BatchedEngine(8, seed=5, rules="german")
    assert a.rules is GERMAN
    for name in ("hands", "talon", "trump", "dealer", "to_act", "legal"):
        assert torch.equal(getattr(a, name), getattr(b, name)), name
    env = SelfPlayEnv(4, seed=1, rules=GERMAN)
    assert env.engine.rules is GERMAN
