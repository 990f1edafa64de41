"""Duplicate team matches for four-player Sixty-Six.

Each deal is played twice from the same cards and dealer, the second time
with the teams swapped (team A in seats 0 and 2, then in 1 and 3), so the
cards' luck cancels out; the result is game points per team.

    duplicate(["search", "heuristic"], deals=100, seed=0)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from sixtysix_env.four_deals import deal_four, fixed_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.seeding import derive_seed

from . import make_four_agent


def play_deal(specs: Sequence[str], hands: list[list[int]], dealer: int, seed: int) -> tuple[int | None, int]:
    """One deal with ``specs[s]`` in seat s; returns (winning team or None, game points)."""
    bots = [make_four_agent(spec, derive_seed(seed, "seat", s)) for s, spec in enumerate(specs)]
    s = fixed_four(hands, dealer)
    while not s.is_over:
        s.apply(bots[s.to_act].act(view_four(s, s.to_act)))
    assert s.result is not None
    return s.result.winner, s.result.game_points


def duplicate(teams: Sequence[str], deals: int, seed: int = 0) -> tuple[int, int]:
    """Game points won by team A (``teams[0]``) and team B (``teams[1]``) over
    ``deals`` deals, each played with A in seats 0/2 and again in seats 1/3."""
    if len(teams) != 2:
        raise ValueError(f"a team match needs two bot specs, got {list(teams)!r}")
    a, b = teams
    totals = [0, 0]
    rng = random.Random(derive_seed(seed, "four-duplicate"))
    for k in range(deals):
        s = deal_four(rng, dealer=k % 4)
        hands = [[c for c in range(24) if h >> c & 1] for h in s.hands]
        # The trump card is the dealer's last card: keep it last.
        hands[s.dealer].remove(s.trump_card)
        hands[s.dealer].append(s.trump_card)
        for swap in (0, 1):
            specs = [b, a, b, a] if swap else [a, b, a, b]
            winner, points = play_deal(specs, hands, s.dealer, derive_seed(seed, k, swap))
            if winner is not None:
                totals[winner ^ swap] += points
    return totals[0], totals[1]


__all__ = ["duplicate", "play_deal"]
