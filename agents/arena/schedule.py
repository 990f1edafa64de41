"""The schedule of a run: every game, its players, seats and seeds, fixed by one master seed.

Every seed of a run comes from :func:`derive`, a keyed hash (BLAKE2b keyed
by the master seed) with a domain per use: the card seed of card deal ``k``
is ``derive(master, "deal", k)`` and a bot's own seed ``derive(master,
"agent", k, "a")``. A bot is sent its agent seed only; without the master
seed it learns nothing about the cards from it (a different domain of a
keyed hash), and a master seed drawn by :func:`secret_seed` (128 bits, the
default) cannot be guessed. A small public master seed (``--seed 7``) can:
anyone may then recompute every deal, so it is for trusted bots only.

The games of every pairing use the same card seeds. In duplicate mode
consecutive games ``2k`` and ``2k+1`` share card seed ``k`` with the seats
swapped, so both bots get the same cards in the same seat and most of the
luck of the deal cancels; each bot keeps its own agent seed in both games
of the pair (and is a fresh bot in each, see :mod:`.runner`). Games are
indexed game number first, pairing second (index ``g * pairings + p``), so
the schedule of ``games`` games begins with the whole schedule of any
smaller count: a run resumed with a larger ``games`` plays only the new
games. Because the whole schedule follows from the seed, a resumed run can
check that a results file belongs to it, game by game.

At a four-player table (``table=4``) a pairing is two teams: bot A in
seats 0 and 2 and bot B in 1 and 3, and in the second game of a duplicate
pair the same deal with the teams swapped. Each seat gets its own agent
seed (A's partners ``derive(master, "agent", k, "a", 0)`` and ``..., 1``),
which follows the bot to its seats in the swapped game.

Games that share a card seed (the two halves of a duplicate pair, and the
games of every pairing dealt from the same seed) are never in play at the
same time, with any backend and any number of workers (:func:`take_free`):
two processes of one bot could otherwise tell each other their cards
(through a lock on a file both can read, say) and each would know the
opponent's hand. Games of different deals still run side by side.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass

SECRET_BITS = 128  # a master seed drawn by secret_seed(): beyond any search


@dataclass(frozen=True)
class Task:
    """One scheduled game: players ``a`` and ``b`` (indices), seats, seeds."""

    index: int
    a: int
    b: int
    seats: tuple[int, ...]  # player index at each seat (2, or 4: the teams alternate)
    seed: int
    agent_seeds: tuple[int, ...]  # per seat
    cluster: int  # duplicate pair (or game) number within the pairing


def derive(master: int, domain: str, *parts: object, bits: int = 63) -> int:
    """A ``bits``-bit seed for ``domain`` and ``parts``, keyed by ``master`` (the one derivation of a run).

    BLAKE2b keyed by a digest of the master seed: outputs of one domain
    tell nothing about another's, or about the key, to whoever lacks it.
    """
    key = hashlib.blake2b(f"sixtysix-master:{int(master)}".encode(), digest_size=32).digest()
    msg = ":".join([domain, *map(str, parts)]).encode()
    digest = hashlib.blake2b(msg, key=key, digest_size=(bits + 7) // 8).digest()
    return int.from_bytes(digest, "big") >> (8 * len(digest) - bits)


def secret_seed() -> int:
    """A fresh master seed from the operating system's randomness, too large to guess."""
    return secrets.randbits(SECRET_BITS)


def pairings(n_players: int) -> list[tuple[int, int]]:
    """Every pair of players ``(a, b)`` with ``a < b``, in schedule order."""
    return [(i, j) for i in range(n_players) for j in range(i + 1, n_players)]


def schedule(n_players: int, games: int, seed: int, duplicate: bool, table: int = 2) -> list[Task]:
    """All games of a round robin (``n_players == 2``: a head-to-head), by index, at tables of
    ``table`` players (2, or 4: each bot of a pairing is a team)."""
    if table == 4:
        return _team_schedule(n_players, games, seed, duplicate)
    tasks = []
    pairs = pairings(n_players)
    for g in range(games):
        for p, (a, b) in enumerate(pairs):
            k, swap = (g // 2, g % 2) if duplicate else (g, 0)
            game_seed = derive(seed, "deal", k)
            seed_a = derive(seed, "agent", k, "a")
            seed_b = derive(seed, "agent", k, "b")
            seats, agent_seeds = ((b, a), (seed_b, seed_a)) if swap else ((a, b), (seed_a, seed_b))
            tasks.append(Task(g * len(pairs) + p, a, b, seats, game_seed, agent_seeds, k))
    return tasks


def _team_schedule(n_players: int, games: int, seed: int, duplicate: bool) -> list[Task]:
    """:func:`schedule` at four-player tables: team A in seats 0 and 2 (swapped: 1 and 3)."""
    tasks = []
    pairs = pairings(n_players)
    for g in range(games):
        for p, (a, b) in enumerate(pairs):
            k, swap = (g // 2, g % 2) if duplicate else (g, 0)
            sa = [derive(seed, "agent", k, "a", i) for i in (0, 1)]
            sb = [derive(seed, "agent", k, "b", i) for i in (0, 1)]
            seats, agent_seeds = ((b, a, b, a), (sb[0], sa[0], sb[1], sa[1])) if swap else \
                ((a, b, a, b), (sa[0], sb[0], sa[1], sb[1]))
            tasks.append(Task(g * len(pairs) + p, a, b, seats, derive(seed, "deal", k), agent_seeds, k))
    return tasks


def deal_key(task: Task) -> int:
    """What games in play at once must not share: the card seed (every game dealt from it, in any pairing)."""
    return task.seed


def take_free(tasks: deque[Task], busy: Collection[int]) -> Task | None:
    """Remove and return the first queued task whose deal (:func:`deal_key`) is not in ``busy``,
    the deals of the games in play; None when every queued task waits for one of them."""
    for k, task in enumerate(tasks):
        if deal_key(task) not in busy:
            del tasks[k]
            return task
    return None
