"""The move distributions a search bot drew its moves from, for the variance-reduced estimator.

A search bot that plays a move drawn from a distribution (``pimc`` with
``temp`` above 0, ``guided`` with ``sample=1``) records that distribution
against the view it decided on; ``move_distribution(view)`` returns it
after the game, and :mod:`agents.evaluation` values the decision with it
exactly (docs/variance.md). The distribution depends on the bot's own
search (its sampled worlds), yet the move is drawn from it, so the
decision's luck term keeps mean zero given everything before the draw.
The bot may also record the search's value of each move
(``move_values(view)``): any values fixed before the draw keep the term's
mean zero (docs/variance.md measures what they buy).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from sixtysix_env.knowledge import PlayerView

KEY_FIELDS = ("player", "hand", "window", "to_act", "legal_mask", "trump_card", "stock", "closed_by",
              "points", "tricks", "won", "played", "shown", "exchanged_by", "lead_card", "marriage_suit",
              "dealer", "match_scores")  # a decision's position: no two decisions of a game share them all


def softmax(values: Iterable[tuple[int, float]], temp: float) -> dict[int, float]:
    """``softmax(value / temp)`` over ``(action, value)`` pairs, as a dict that sums to 1."""
    pairs = list(values)
    top = max(v for _, v in pairs)
    z = {a: math.exp((v - top) / temp) for a, v in pairs}
    total = math.fsum(z.values())
    return {a: p / total for a, p in z.items()}


def draw(probs: dict[int, float], rng: Any) -> int:
    """One action drawn from ``probs`` with ``rng`` (a ``random.Random``)."""
    u = rng.random()
    acc = 0.0
    for a, p in sorted(probs.items()):
        acc += p
        if u < acc:
            return a
    return max(probs, key=lambda a: (probs[a], -a))  # rounding left u past the last sum


class MoveLog:
    """The distributions of a bot's drawn moves in the game it plays, by view (cleared by ``clear``)."""

    def __init__(self) -> None:
        self.table: dict[tuple[Any, ...], dict[int, float]] = {}
        self.values: dict[tuple[Any, ...], dict[int, float]] = {}

    @staticmethod
    def key(v: PlayerView) -> tuple[Any, ...]:
        return tuple(getattr(v, f) for f in KEY_FIELDS)

    def record(self, v: PlayerView, probs: dict[int, float], values: dict[int, float] | None = None) -> None:
        """The distribution the move at ``v`` is drawn from and, optionally, the search's value of each
        move for the player to act (game points) that the distribution was formed from."""
        self.table[self.key(v)] = dict(probs)
        if values is not None:
            self.values[self.key(v)] = dict(values)

    def get(self, v: PlayerView) -> dict[int, float] | None:
        """The distribution the move at ``v`` was drawn from, or None (the move was not drawn)."""
        probs = self.table.get(self.key(v))
        return None if probs is None else dict(probs)

    def get_values(self, v: PlayerView) -> dict[int, float] | None:
        """The search's move values recorded with the distribution at ``v``, or None."""
        values = self.values.get(self.key(v))
        return None if values is None else dict(values)

    def clear(self) -> None:
        self.table.clear()
        self.values.clear()
