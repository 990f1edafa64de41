"""Duplicate team matches for four-player Sixty-Six.

Each deal is played twice from the same cards and dealer, the second time
with the teams swapped (team A in seats 0 and 2, then in 1 and 3), so the
cards' luck cancels out; the result is game points per team.

    duplicate(["search", "heuristic"], deals=100, seed=0)
"""

from __future__ import annotations

import random
from collections.abc import Container, Iterator, Sequence

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


DealResult = tuple[int | None, int]  # (winning team or None, game points) of one deal


def duplicate_deals(teams: Sequence[str], deals: int, seed: int = 0, skip: Container[int] = ()
                    ) -> Iterator[tuple[int, tuple[DealResult, DealResult]]]:
    """Each deal's index and two results, from team A's side: (A in seats 0/2, A in seats 1/3);
    a result's winner is 0 for team A (``teams[0]``), 1 for team B. The deals follow from ``seed``
    in order, so the first k of a longer run are those of a run of k deals; those in ``skip``
    (a resumed run's) are dealt but not played."""
    if len(teams) != 2:
        raise ValueError(f"a team match needs two bot specs, got {list(teams)!r}")
    a, b = teams
    rng = random.Random(derive_seed(seed, "four-duplicate"))
    for k in range(deals):
        s = deal_four(rng, dealer=k % 4)
        hands = [[c for c in range(24) if h >> c & 1] for h in s.hands]
        # The trump card is the dealer's last card: keep it last.
        hands[s.dealer].remove(s.trump_card)
        hands[s.dealer].append(s.trump_card)
        if k in skip:
            continue
        pair = []
        for swap in (0, 1):
            specs = [b, a, b, a] if swap else [a, b, a, b]
            winner, points = play_deal(specs, hands, s.dealer, derive_seed(seed, k, swap))
            pair.append((None if winner is None else winner ^ swap, points))
        yield k, (pair[0], pair[1])


def duplicate(teams: Sequence[str], deals: int, seed: int = 0) -> tuple[int, int]:
    """Game points won by team A (``teams[0]``) and team B (``teams[1]``) over
    ``deals`` deals, each played with A in seats 0/2 and again in seats 1/3."""
    totals = [0, 0]
    for _, pair in duplicate_deals(teams, deals, seed):
        for winner, points in pair:
            if winner is not None:
                totals[winner] += points
    return totals[0], totals[1]


__all__ = ["DealResult", "duplicate", "duplicate_deals", "play_deal"]
