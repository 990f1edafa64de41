"""Helpers every test folder shares: positions met in random play, and bots playing deals.

``tests/conftest.py`` puts this folder on ``sys.path``, so tests import it as
``helpers``. Bots meet the game through :func:`agents.play.play_deal` (the
one state-level loop); this module only makes positions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from sixtysix_env.actions import DECLARE
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.knowledge import PlayerView, view


def random_move(state: State, rng: random.Random, declare: float = 1.0) -> int:
    """A uniformly random legal move; ``declare`` < 1 keeps a declaration only with that
    chance when another move exists, so deals reach the spent talon more often."""
    legal = state.legal_actions()
    if declare < 1.0 and DECLARE in legal and len(legal) > 1 and rng.random() >= declare:
        legal.remove(DECLARE)
    return rng.choice(legal)


def random_play(n_deals: int, seed: int, declare: float = 1.0) -> Iterator[State]:
    """Every state met before a move in ``n_deals`` deals of random play (the live
    state: clone it to keep it), then the deal's final state."""
    rng = random.Random(seed)
    for _ in range(n_deals):
        s = deal(rng)
        while not s.is_over:
            yield s
            s.apply(random_move(s, rng, declare))
        yield s


def random_states(n_deals: int, seed: int, declare: float = 1.0, final: bool = False) -> list[State]:
    """Copies of the states of :func:`random_play` (final states only with ``final``)."""
    return [s.clone() for s in random_play(n_deals, seed, declare) if final or not s.is_over]


def random_views(n_deals: int, seed: int, declare: float = 1.0) -> list[PlayerView]:
    """The views of the player to act at every decision of :func:`random_play`."""
    return [view(s, s.to_act) for s in random_play(n_deals, seed, declare) if not s.is_over]
