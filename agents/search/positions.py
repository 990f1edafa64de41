"""Random phase-2 positions for the solver's tests and benchmarks."""

from __future__ import annotations

import random

from sixtysix_env.actions import CLOSE, DECLARE, actions_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import DRAW, FOLLOW, LEAD, OVER, TALON_OPEN, State
from sixtysix_env.variants import GERMAN, Rules, rules_from_spec


def random_position(
    rng: random.Random, hand_size: int = 6, closed: bool = False, window: int = LEAD,
    rules: Rules | str = GERMAN,
) -> State:
    """A random phase-2 position for tests and benchmarks.

    Plays random legal moves (never declaring) from a fresh deal until the
    talon is spent, or until someone closes it when ``closed``; then on in
    phase 2 until the player to act holds ``hand_size`` cards in ``window``
    (LEAD or FOLLOW). Retries with new deals when a deal ends first.
    ``rules``: the preset of the deals (docs/rules-variants.md).
    """
    rules = rules_from_spec(rules)
    n = rules.hand_size
    if not 1 <= hand_size <= n or window not in (LEAD, FOLLOW):
        raise ValueError(f"hand_size must be 1..{n} and window LEAD or FOLLOW")
    if closed and not rules.closing:
        raise ValueError(f"the {rules.name} rules have no closing")
    while True:
        s = deal(rng, rules=rules)
        while s.window != OVER:
            mask = s.legal_mask() & ~(1 << DECLARE)
            if not closed:
                mask &= ~(1 << CLOSE)
            elif s.talon_open and s.window in (LEAD, DRAW) and mask >> CLOSE & 1 and rng.random() < 0.3:
                mask = 1 << CLOSE
            if mask == 0:
                mask = s.legal_mask()
            if (
                s.talon_phase != TALON_OPEN
                and s.window == window
                and s.marriage_suit < 0
                and s.hands[s.to_act].bit_count() == hand_size
                and (s.closed_by >= 0) == closed
            ):
                return s
            s.apply_unchecked(rng.choice(actions_of(mask)))
