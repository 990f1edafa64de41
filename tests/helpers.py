"""Helpers every test folder shares: positions met in random play, and bots playing deals.

``tests/conftest.py`` puts this folder on ``sys.path``, so tests import it as
``helpers``. Bots meet the game through :func:`agents.play.play_deal` (the
one state-level loop); this module only makes positions.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from sixtysix_env.actions import DECLARE
from sixtysix_env.cards import cards_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.knowledge import PlayerView, resample, view


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


def resampled_deal(hands: list[list[int]], talon: list[int], state: State, p: int,
                   rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """The first deal (``hands``, ``talon`` as card ids) with only the cards ``p`` has not
    seen by ``state`` (a later state of that deal) replaced, consistently with what ``p``
    knows: replaying the same actions on it gives ``p`` the same information (leak tests)."""
    r = resample(state, p, rng)
    opp = 1 - p
    hands, talon = [list(h) for h in hands], list(talon)
    hidden = state.hands[opp] & ~state.known[opp]
    fresh = sorted(cards_of(r.hands[opp] & ~r.known[opp]))
    slots = [("h", i) for i, c in enumerate(hands[opp]) if hidden >> c & 1]
    slots += [("t", j) for j, c in enumerate(talon) if hidden >> c & 1]
    for (kind, i), c in zip(sorted(slots), fresh, strict=True):
        if kind == "h":
            hands[opp][i] = c
        else:
            talon[i] = c
    for j in range(12 - state.stock, 11) if state.stock else ():
        talon[j] = r.talon[j]
    return hands, talon


def wait_until(pred: Callable[[], Any], timeout: float = 10.0, message: str = "timed out waiting") -> Any:
    """Poll ``pred`` until it returns something true (returned) or ``timeout`` seconds pass."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(message)


class UniformSearch:
    """A stand-in for the guided search in the expert-iteration tests: a random move, and as
    ``last_result`` a uniform policy over the legal moves (what :mod:`training.expert.selfplay`
    reads of a search). Records the player of every decision with a choice it made (``players``)."""

    def __init__(self, seed: int, worlds: int, players: list[int]) -> None:
        from agents.random_agent import RandomAgent

        self.bot, self.worlds, self.players = RandomAgent(seed), worlds, players
        self.last_result: Any = None

    def act(self, v: PlayerView) -> int:
        import numpy as np

        from agents.search.guided import SearchResult
        from sixtysix_env.observation import mask_to_array

        mask = mask_to_array(v.legal_mask)
        a = self.bot.act(v)
        if v.legal_mask.bit_count() > 1:  # a decision self-play makes a sample of
            self.players.append(v.player)
        self.last_result = SearchResult(a, (mask / mask.sum()).astype(np.float32), 0.0, self.worlds,
                                        np.zeros(len(mask), dtype=np.float32))  # equal values: uniform
        return a


class UniformPlayer:
    """The :class:`training.expert.selfplay.Player` of :class:`UniformSearch` (the tests' stand-in
    for the guided search); ``players`` lists who made each decision, in order."""

    def __init__(self) -> None:
        self.players: list[int] = []

    def net(self, weights: Any) -> Any:
        from training.expert.selfplay import modules

        return modules(weights)

    def make(self, net: Any, seed: int, settings: Any) -> UniformSearch:
        return UniformSearch(seed, settings.worlds, self.players)
