"""Duplicate team matches for four-player Sixty-Six.

Each deal is played twice from the same cards and dealer, the second time
with the teams swapped (team A in seats 0 and 2, then in 1 and 3), so the
cards' luck cancels out; the result is game points per team.

    duplicate(["search", "heuristic"], deals=100, seed=0)

Deal ``k`` is shuffled from its own card seed ``derive(seed, "four-deal", k)``
with dealer ``k % 4``, and every play keeps its actions
(:class:`DuplicateDeal`), so a recorded deal can be replayed through the
engine and checked without trusting whoever wrote it down
(:mod:`agents.arena.verify`). ``derive`` is a public hash by default; the
arena passes its keyed one (:func:`agents.arena.schedule.derive`).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass

from sixtysix_env.four import FourState
from sixtysix_env.four_deals import deal_four, fixed_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.seeding import derive_seed

from . import make_four_agent

DealResult = tuple[int | None, int]  # (winning team or None, game points) of one deal
Derive = Callable[..., int]  # (master seed, domain, *parts) -> a seed


def public_derive(master: int, domain: str, *parts: object) -> int:
    """The unkeyed derivation: for standalone matches, where nobody hides the cards."""
    return derive_seed(master, domain, *parts)


def deal_seed(master: int, k: int, derive: Derive = public_derive) -> int:
    """The card seed of deal ``k``: each deal its own, so any one can be dealt (and checked) alone."""
    return derive(master, "four-deal", k)


def dealer_of(k: int) -> int:
    """Deal ``k``'s dealer: the deal passes round the table."""
    return k % 4


def deal_of(card_seed: int, dealer: int) -> FourState:
    """The deal a card seed and dealer give: the one a replay starts from."""
    return deal_four(card_seed, dealer=dealer)


@dataclass(frozen=True)
class PlayedDeal:
    """One play of a deal: its result (winner as a team of the seats) and every action in order."""

    winner: int | None
    game_points: int
    actions: list[int]


def play_moves(specs: Sequence[str], start: FourState, seed: int) -> PlayedDeal:
    """Play ``start`` (not changed) to its end with ``specs[s]`` in seat s, keeping the actions."""
    bots = [make_four_agent(spec, derive_seed(seed, "seat", s)) for s, spec in enumerate(specs)]
    s = start.clone()
    actions = []
    while not s.is_over:
        a = bots[s.to_act].act(view_four(s, s.to_act))
        s.apply(a)
        actions.append(a)
    assert s.result is not None
    return PlayedDeal(s.result.winner, s.result.game_points, actions)


def play_deal(specs: Sequence[str], hands: list[list[int]], dealer: int, seed: int) -> DealResult:
    """One deal with ``specs[s]`` in seat s; returns (winning team or None, game points)."""
    p = play_moves(specs, fixed_four(hands, dealer), seed)
    return p.winner, p.game_points


@dataclass(frozen=True)
class DuplicateDeal:
    """Deal ``index`` played twice: its card seed, dealer, and the two plays (team A in seats 0/2,
    then 1/3), results from team A's side (winner 0: team A)."""

    index: int
    seed: int
    dealer: int
    plays: tuple[PlayedDeal, PlayedDeal]

    @property
    def pair(self) -> tuple[DealResult, DealResult]:
        first, second = self.plays
        return (first.winner, first.game_points), (second.winner, second.game_points)


def side_of_a(winner: int | None, swap: int) -> int | None:
    """A seat team as team A (0) or B (1): team A sits in seats 1/3 when ``swap``."""
    return None if winner is None else winner ^ swap


def duplicate_plays(teams: Sequence[str], deals: int, seed: int = 0, skip: Container[int] = (),
                    derive: Derive = public_derive) -> Iterator[DuplicateDeal]:
    """Each deal not in ``skip`` (a resumed run's), played twice; see :class:`DuplicateDeal`.
    Deal k follows from ``seed`` and k alone, so the first k of a longer run are a run of k."""
    if len(teams) != 2:
        raise ValueError(f"a team match needs two bot specs, got {list(teams)!r}")
    a, b = teams
    for k in range(deals):
        if k in skip:
            continue
        card_seed, dealer = deal_seed(seed, k, derive), dealer_of(k)
        start = deal_of(card_seed, dealer)
        plays = []
        for swap in (0, 1):
            specs = [b, a, b, a] if swap else [a, b, a, b]
            p = play_moves(specs, start, derive(seed, "four-agent", k, swap))
            plays.append(PlayedDeal(side_of_a(p.winner, swap), p.game_points, p.actions))
        yield DuplicateDeal(k, card_seed, dealer, (plays[0], plays[1]))


def duplicate_deals(teams: Sequence[str], deals: int, seed: int = 0, skip: Container[int] = ()
                    ) -> Iterator[tuple[int, tuple[DealResult, DealResult]]]:
    """Each deal's index and two results, from team A's side: (A in seats 0/2, A in seats 1/3);
    a result's winner is 0 for team A (``teams[0]``), 1 for team B. Those in ``skip`` are not played."""
    for d in duplicate_plays(teams, deals, seed, skip):
        yield d.index, d.pair


def duplicate(teams: Sequence[str], deals: int, seed: int = 0) -> tuple[int, int]:
    """Game points won by team A (``teams[0]``) and team B (``teams[1]``) over
    ``deals`` deals, each played with A in seats 0/2 and again in seats 1/3."""
    totals = [0, 0]
    for _, pair in duplicate_deals(teams, deals, seed):
        for winner, points in pair:
            if winner is not None:
                totals[winner] += points
    return totals[0], totals[1]


__all__ = ["DealResult", "Derive", "DuplicateDeal", "PlayedDeal", "deal_of", "deal_seed", "dealer_of",
           "duplicate", "duplicate_deals", "duplicate_plays", "play_deal", "play_moves", "public_derive",
           "side_of_a"]  # fmt: skip
