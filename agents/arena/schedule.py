"""The schedule of a run: every game, its players, seats and seeds, fixed by one master seed.

The games of every pairing use the same card seeds,
``derive_seed(seed, "game", k)``. In duplicate mode consecutive games ``2k``
and ``2k+1`` share seed ``k`` with the seats swapped, so both bots get the
same cards in the same seat and most of the luck of the deal cancels; each
bot keeps its own agent seed in both games of the pair. Games are indexed
game number first, pairing second (index ``g * pairings + p``), so the
schedule of ``games`` games begins with the whole schedule of any smaller
count: a run resumed with a larger ``games`` plays only the new games.
Because the whole
schedule follows from the seed, a resumed run can check that a results file
belongs to it, game by game.
"""

from __future__ import annotations

from dataclasses import dataclass

from sixtysix_env.seeding import derive_seed


@dataclass(frozen=True)
class Task:
    """One scheduled game: players ``a`` and ``b`` (indices), seats, seeds."""

    index: int
    a: int
    b: int
    seats: tuple[int, int]  # player index at seat 0 and seat 1
    seed: int
    agent_seeds: tuple[int, int]  # per seat
    cluster: int  # duplicate pair (or game) number within the pairing


def pairings(n_players: int) -> list[tuple[int, int]]:
    """Every pair of players ``(a, b)`` with ``a < b``, in schedule order."""
    return [(i, j) for i in range(n_players) for j in range(i + 1, n_players)]


def schedule(n_players: int, games: int, seed: int, duplicate: bool) -> list[Task]:
    """All games of a round robin (``n_players == 2``: a head-to-head), by index."""
    tasks = []
    pairs = pairings(n_players)
    for g in range(games):
        for p, (a, b) in enumerate(pairs):
            k, swap = (g // 2, g % 2) if duplicate else (g, 0)
            game_seed = derive_seed(seed, "game", k)
            seed_a = derive_seed(seed, "agent", k, "a")
            seed_b = derive_seed(seed, "agent", k, "b")
            seats, agent_seeds = ((b, a), (seed_b, seed_a)) if swap else ((a, b), (seed_a, seed_b))
            tasks.append(Task(g * len(pairs) + p, a, b, seats, game_seed, agent_seeds, k))
    return tasks
