"""Every scripted rule-preset scenario of ``test_variants.py``, replayed through the batched engine.

As ``test_batched_scenarios.py`` does for the German rules: the scalar tests
are collected again here, unchanged, with every engine action shadowed by a
one-table ``BatchedEngine`` started from a copy of the scalar state (its
preset, draw bonus and held marriages included) and compared after each
action field by field, with the legal and action masks, both seats'
observations and the deal result (``check.compare``). Kawu's lost marriages
and failed closes, Schnapsen's jack exchange and late marriages, the
``schnapsen`` package's 66 after every trick, the draw bonus and the double
game all pass through it. A state the batched engine does not play (a
hand-made ``Rules``, a draw bonus under rules without the switch) is not
shadowed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from sixtysix_env.batched import UnsupportedRulesError
from sixtysix_env.batched.check import compare
from sixtysix_env.batched.engine import BatchedEngine
from sixtysix_env.engine import State


def _load(name: str):
    """The scalar test module ``name`` under tests/ (not tests/batched), imported under a private name."""
    tests = Path(__file__).resolve().parents[1]
    found = sorted(p for p in tests.rglob(f"{name}.py") if "batched" not in p.parts)
    if not found:
        raise FileNotFoundError(f"no {name}.py under {tests}: the scenarios to replay are missing")
    spec = importlib.util.spec_from_file_location(f"_scalar_{name}", found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_variants = _load("test_variants")
# random play (hypothesis, thousands of actions) is the differential check's part: not replayed here
# Searches for a position by random play whose rule the differential check's random play covers
# already (tests/batched/test_batched_differential.py, every preset): not replayed a second time.
COVERED = {"test_kawu_last_trick_wins_one_without_bonus", "test_pkg_deal_ends_at_66_and_is_the_whole_match",
           "test_schnapsen_last_trick_wins_one_and_adds_nothing", "test_draw_bonus_goes_to_the_next_winner"}
SCENARIOS = sorted(name for name in vars(_variants)
                   if name.startswith("test_") and name not in COVERED | {"test_random_play_per_preset"})
# scenarios that search random deals for a position (a failed close, a drawn deal, a 7-0 match):
# thousands of shadowed actions each, so marked slow
SEARCHES = {"test_double_game_counts_a_seven_nil_match_twice", "test_draw_bonus_goes_to_the_next_winner",
            "test_german_is_the_default_and_unchanged", "test_hand_made_rules_are_checked_and_deal_right",
            "test_kawu_failed_close_counts_the_opponents_tricks_over_the_whole_deal",
            "test_kawu_last_trick_wins_one_without_bonus", "test_pkg_deal_ends_at_66_and_is_the_whole_match",
            "test_schnapsen_last_trick_wins_one_and_adds_nothing"}
globals().update({name: pytest.mark.slow(getattr(_variants, name)) if name in SEARCHES
                  else getattr(_variants, name) for name in SCENARIOS})


class Shadows:
    """One batched table per scalar state that has been played on (None: not played by it)."""

    def __init__(self) -> None:
        self.tables: dict[int, tuple[State, BatchedEngine | None]] = {}
        self.steps = 0
        self.specs: set[str] = set()

    def before(self, s: State) -> BatchedEngine | None:
        entry = self.tables.get(id(s))
        if entry is None or entry[0] is not s:
            try:
                eng: BatchedEngine | None = BatchedEngine.from_states([s.clone()], seed=0)
            except UnsupportedRulesError:
                eng = None
            if eng is not None:
                compare(eng, [s])
            self.tables[id(s)] = (s, eng)
            return eng
        return entry[1]

    def after(self, s: State, eng: BatchedEngine | None, action: int) -> None:
        if eng is None:
            return
        eng.step(torch.tensor([action]), autoreset=False)
        compare(eng, [s])
        self.steps += 1
        self.specs.add(s.rules.spec)


@pytest.fixture(autouse=True)
def shadowed(monkeypatch: pytest.MonkeyPatch):
    shadows = Shadows()
    original = State.apply_unchecked

    def apply_unchecked(self: State, action: int) -> None:
        if self.window == 5:  # OVER: the scalar engine ignores it
            original(self, action)
            return
        eng = shadows.before(self)
        original(self, action)
        shadows.after(self, eng, action)

    monkeypatch.setattr(State, "apply_unchecked", apply_unchecked)
    yield shadows


def test_the_preset_scenarios_are_collected_here() -> None:
    assert len(SCENARIOS) >= 15
    assert {"test_kawu_marriage_without_a_trick_is_lost",
            "test_kawu_failed_close_counts_the_opponents_tricks_over_the_whole_deal"} <= set(SCENARIOS)


def test_shadowing_compares_preset_actions(shadowed: Shadows) -> None:
    _variants.test_kawu_marriage_without_a_trick_is_lost()
    _variants.test_schnapsen_marriages_after_closing()
    _variants.test_pkg_marriage_leads_the_king_and_counts_at_the_next_trick()
    assert shadowed.steps >= 6
    assert {"kawu", "schnapsen", "schnapsen-pkg"} <= shadowed.specs
