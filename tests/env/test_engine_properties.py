"""Invariants of the engine over random deals and random legal play (hypothesis).

Example counts are bounded and hypothesis is derandomized, so the module runs
in seconds and always checks the same cases.
"""

from __future__ import annotations

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sixtysix_env.actions import (
    CARD_ACTIONS_MASK,
    CLOSE,
    CONTINUE,
    DECLARE,
    EXCHANGE,
    MARRIAGE_ACTIONS_MASK,
)
from sixtysix_env.cards import FULL_DECK, mask_of, points_of
from sixtysix_env.deals import deal, next_deal
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, FINAL, FOLLOW, MATCH_TARGET, State
from sixtysix_env.knowledge import resample, view
from sixtysix_env.scoring import DRAWN, LAST_TRICK, REASONS

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None)
seeds = st.integers(0, 2**32 - 1)
# How often a legal declaration is taken: never (deals run to the end), sometimes, always.
declare_rates = st.sampled_from([0.0, 0.1, 1.0])
MAX_STEPS = 80  # 12 tricks x (lead, follow, draw) + marriages, exchange, close, final: < 50


def choose(s: State, rng: random.Random, declare_rate: float) -> int:
    actions = s.legal_actions()
    others = [a for a in actions if a != DECLARE]
    if not others or (len(others) < len(actions) and rng.random() < declare_rate):
        return DECLARE
    return rng.choice(others)


def stock_cards(s: State) -> int:
    """The cards still in the talon: the face-down ones and the face-up trump card."""
    if not s.stock:
        return 0
    return mask_of(s.talon[12 - s.stock : 11]) | (1 << s.trump_card)


def check_invariants(s: State) -> None:
    h0, h1 = s.hands
    played = s.played[0] | s.played[1]
    parts = [h0, h1, played, stock_cards(s)]
    assert sum(m.bit_count() for m in parts) == 24, s  # disjoint ...
    assert h0 | h1 | played | stock_cards(s) == FULL_DECK, s  # ... and complete
    on_table = 1 << s.lead_card if s.lead_card >= 0 else 0
    assert s.won[0] | s.won[1] | on_table == played and not s.won[0] & s.won[1]
    assert s.tricks == [s.won[0].bit_count() // 2, s.won[1].bit_count() // 2]
    assert points_of(s.won[0]) + points_of(s.won[1]) <= 120
    bonus = [s.points[p] - points_of(s.won[p]) for p in (0, 1)]
    if s.is_over and s.result.reason in (LAST_TRICK, DRAWN):
        assert sorted(bonus) == [0, 10] and sum(s.points) == 130 and not h0 | h1
    else:
        assert bonus == [0, 0]
    leader = s.leader
    diff = s.hands[1 - leader].bit_count() - s.hands[leader].bit_count()
    assert diff == (1 if s.window == FOLLOW else 0), s
    if s.stock and s.closed_by < 0:
        assert s.stock % 2 == 0
    if not s.is_over:
        check_legal_mask(s)


def check_legal_mask(s: State) -> None:
    """Structural facts about the legal actions that hold in every window."""
    mask = s.legal_mask()
    p = s.to_act
    assert mask, s
    assert not mask & CARD_ACTIONS_MASK & ~s.hands[p]  # only held cards
    if mask & (1 << DECLARE):
        assert s.tricks[p] > 0
    if not s.talon_open:  # closed or spent: no marriage, no exchange (but at the close), no close
        assert s.window != DRAW
        forbidden = MARRIAGE_ACTIONS_MASK | (1 << CLOSE)
        if s.window != CLOSE_RESPONSE:
            forbidden |= 1 << EXCHANGE
        assert not mask & forbidden, s
    if s.window == FINAL:
        assert s.closed_by >= 0 and not s.hands[0] | s.hands[1] and mask == (1 << DECLARE) | (1 << CONTINUE)


def play_out(s: State, rng: random.Random, declare_rate: float, check=check_invariants) -> State:
    for _ in range(MAX_STEPS):
        check(s)
        if s.is_over:
            return s
        s.apply(choose(s, rng, declare_rate))
    raise AssertionError(f"deal did not end in {MAX_STEPS} steps: {s}")


@SETTINGS
@given(seeds, declare_rates)
def test_random_deals_keep_the_invariants_and_end(seed, declare_rate):
    rng = random.Random(seed)
    s = play_out(deal(rng), rng, declare_rate)
    r = s.result
    assert r.reason in REASONS and r.scores == (s.score(0), s.score(1))
    if r.reason == DRAWN:
        assert (r.winner, r.game_points) == (None, 0) and r.scores[0] == r.scores[1]
    else:
        assert r.winner in (0, 1) and r.game_points in (1, 2, 3)
    assert s.match_scores == [r.game_points if p == r.winner else 0 for p in (0, 1)]
    if declare_rate == 0.0:  # nobody declares: the closer fails or all cards are played
        assert r.reason in ("closer_failed", LAST_TRICK, DRAWN)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(seeds, declare_rates)
def test_matches_end_exactly_at_7(seed, declare_rate):
    rng = random.Random(seed)
    s = deal(rng)
    total = [0, 0]
    for _ in range(200):
        before = list(s.match_scores)
        assert max(before) < MATCH_TARGET
        play_out(s, rng, declare_rate, check=lambda _s: None)
        r = s.result
        if r.winner is not None:
            total[r.winner] += r.game_points
        assert s.match_scores == total
        if s.match_over:
            assert max(s.match_scores) >= MATCH_TARGET and s.match_winner == r.winner
            return
        nxt = next_deal(s, rng)
        assert nxt.dealer == (s.dealer if r.winner is None else r.winner)
        s = nxt
    raise AssertionError("match did not end in 200 deals")


def dealt_and_played(seed: int, at: int) -> tuple[State, random.Random]:
    """A deal from ``seed`` after up to ``at`` random moves (no declarations), and its RNG."""
    rng = random.Random(seed)
    s = deal(rng)
    for _ in range(at):
        if s.is_over:
            break
        s.apply(choose(s, rng, 0.0))
    return s, rng


def _snapshot(s: State) -> dict:
    return {k: copy.deepcopy(getattr(s, k)) for k in State.__slots__}


@SETTINGS
@given(seeds, st.integers(0, 40))
def test_clone_is_independent(seed, at):
    s, rng = dealt_and_played(seed, at)
    before = _snapshot(s)
    c = s.clone()
    assert c == s and c is not s
    play_out(c, rng, 0.1, check=lambda _s: None)
    assert _snapshot(s) == before
    if not s.is_over:
        assert c != s


@SETTINGS
@given(seeds, declare_rates)
def test_view_of_a_resampled_world_is_unchanged(seed, declare_rate):
    rng = random.Random(seed)

    def check(s: State) -> None:
        for p in (0, 1):
            world = resample(s, p, rng)
            assert view(world, p) == view(s, p)
            assert world.hands[p] == s.hands[p]
            if s.to_act == p:
                assert world.legal_mask() == s.legal_mask()

    play_out(deal(rng), rng, declare_rate, check=check)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(seeds, st.integers(0, 40), st.integers(0, 1))
def test_resampled_worlds_play_out_legally(seed, at, p):
    s, rng = dealt_and_played(seed, at)
    world = resample(s, p, rng)
    play_out(world, rng, 0.1)  # the sampled world is a full, consistent, playable deal
