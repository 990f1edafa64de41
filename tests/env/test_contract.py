"""The game contract (sixtysix_env/contract.py, docs/architecture.md): every preset
and the four-player game implement the same protocols, and every two-player
deal class runs exactly the rule hooks its preset declares."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from sixtysix_env.actions import N_ACTIONS, IllegalActionError
from sixtysix_env.contract import HOOK_NAMES, DealOutcome, GameRules, GameState, GameView, RuleHooks
from sixtysix_env.deals import deal
from sixtysix_env.engine import GERMAN_HOOKS, State
from sixtysix_env.four import FOUR
from sixtysix_env.four_deals import deal_four, next_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.knowledge import view
from sixtysix_env.variant_rules import (
    SWITCH_HOOKS,
    VARIANT_HOOKS,
    RulesState,
    VariantState,
    hooks_for,
    state_class,
)
from sixtysix_env.variants import GERMAN, PRESETS, rules_from_spec

SPECS = (*PRESETS, "german+draw_bonus+double_game", "kawu+double_game")


def games() -> list[tuple[str, Callable[..., Any], Callable[..., Any], int]]:
    """(name, deal from an rng, view of a seat, seats) for every two-player spec and the four-player game."""
    out: list[tuple[str, Callable[..., Any], Callable[..., Any], int]] = [
        (spec, lambda rng, spec=spec: deal(rng, rules=spec), view, 2) for spec in SPECS
    ]
    out.append(("four", deal_four, view_four, 4))
    return out


def play_through_the_contract(
    start: GameState, see: Callable[[Any, int], GameView], seats: int, rng: random.Random
) -> GameState:
    """A random deal using only the contract's names: what generic code (bots, tools) may rely on."""
    s = start
    assert isinstance(s, GameState) and isinstance(s.rules, GameRules)
    while not s.is_over:
        mask = s.legal_mask()
        actions = s.legal_actions()
        assert actions and sum(1 << a for a in actions) == mask and all(s.is_legal(a) for a in actions)
        for seat in range(seats):
            v = see(s, seat)
            assert isinstance(v, GameView) and v.rules == s.rules and v.window == s.window
            assert v.legal_mask == (mask if seat == s.to_act else 0)
        illegal = next((a for a in range(N_ACTIONS) if not mask >> a & 1), None)
        if illegal is not None:
            with pytest.raises(IllegalActionError):
                s.apply(illegal)
        before = s.clone()
        s.apply(rng.choice(actions))
        assert before.legal_mask() == mask  # a clone is independent
    assert s.legal_mask() == 0 and s.legal_actions() == []
    assert isinstance(s.result, DealOutcome) and s.result.scores == (s.score(0), s.score(1))
    assert s.result.winner in (None, 0, 1)
    return s


@pytest.mark.parametrize("name, make, see, seats", games(), ids=[g[0] for g in games()])
def test_every_game_implements_the_contract(name, make, see, seats):
    rng = random.Random(7)
    for _ in range(15):
        s = play_through_the_contract(make(rng), see, seats, rng)
        r = s.result
        if r.winner is not None:
            assert s.match_scores[r.winner] >= r.game_points > 0
        with pytest.raises(IllegalActionError):
            s.apply(0)


def test_four_player_matches_through_the_contract():
    rng = random.Random(3)
    s = deal_four(rng, dealer=0)
    while True:
        s = play_through_the_contract(s, view_four, 4, rng)
        if s.match_over:
            assert s.match_winner is not None and max(s.match_scores) >= FOUR.match_target
            break
        s = next_four(s, rng)


# ------------------------------------------------------------------------ hooks
def test_german_hooks_are_the_engines_own_methods():
    """No indirection for German: its hooks are State's methods themselves."""
    assert GERMAN.hooks is State.hooks is GERMAN_HOOKS
    for name in HOOK_NAMES:
        assert getattr(GERMAN_HOOKS, name) is getattr(State, name)
    # The engine's old private hook points are gone: a preset cannot override them.
    for private in ("_follow", "_end", "_draw", "_hold_marriage"):
        assert not hasattr(State, private)


@pytest.mark.parametrize("spec", SPECS)
def test_every_deal_class_runs_the_hooks_its_preset_declares(spec):
    rules = rules_from_spec(spec)
    s = deal(1, rules=spec)
    cls = type(s)
    assert cls is state_class(rules) and cls.hooks is hooks_for(rules) is rules.hooks
    assert isinstance(rules.hooks, RuleHooks)
    for name in HOOK_NAMES:
        assert getattr(cls, name) is getattr(rules.hooks, name), (spec, name)
    # The class defines no hook of its own outside the record.
    assert all(
        vars(cls).get(name, getattr(cls.hooks, name)) is getattr(cls.hooks, name) for name in HOOK_NAMES
    )


def test_the_preset_hook_records_differ_only_where_their_rules_do():
    assert {PRESETS[name].hooks for name in PRESETS} == {GERMAN_HOOKS, VARIANT_HOOKS}
    assert state_class(GERMAN, bonus=1) is RulesState and RulesState.hooks is SWITCH_HOOKS
    assert VariantState.hooks is VARIANT_HOOKS
    same = [n for n in HOOK_NAMES if getattr(SWITCH_HOOKS, n) is getattr(GERMAN_HOOKS, n)]
    assert same == ["legal_mask", "take_trick"]  # the switches play German
    same = [n for n in HOOK_NAMES if getattr(VARIANT_HOOKS, n) is getattr(SWITCH_HOOKS, n)]
    assert same == ["draw", "show_marriage", "score", "end_deal"]


def test_rule_hooks_are_checked_and_frozen():
    with pytest.raises(TypeError, match="RuleHooks.score must be callable"):
        replace(GERMAN_HOOKS, score=3)
    with pytest.raises(AttributeError):
        setattr(GERMAN_HOOKS, "score", State.score)  # noqa: B010


def test_the_draw_bonus_hook_adds_the_bonus_to_the_winner_only():
    rng = random.Random(11)
    for _ in range(40):
        s = deal(rng, rules="german+draw_bonus", bonus=1)
        assert type(s) is RulesState
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
        r = s.result
        if r.winner is not None:
            assert r.game_points >= 2 and s.match_scores[r.winner] == r.game_points
        else:
            assert r.game_points == 0
