"""The one interface every bot implements.

A bot sees only what its player may know: a
:class:`~sixtysix_env.knowledge.PlayerView` (own hand, public history, known
and excluded opponent cards, the legal-action mask). Search bots plan on
worlds drawn with :func:`sixtysix_env.knowledge.sample_state`, never on the
true hidden state.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from sixtysix_env.knowledge import PlayerView


@runtime_checkable
class Agent(Protocol):
    """``act`` returns a legal action id (0-31) for ``view.player``.

    ``reset(seed)`` starts a new match and reseeds the bot's own RNG, so that
    decisions are reproducible. ``move_time`` (seconds or None) is a per-move
    budget the bot may use for anytime search.
    """

    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, view: PlayerView) -> int: ...


def require_turn(view: PlayerView) -> None:
    """Raise a clear error when a bot is asked to act outside its turn."""
    if not view.legal_mask:
        raise ValueError(f"no legal action for player_{view.player}: it is not its turn")


class BaseAgent:
    """Convenience base: a name, an own ``random.Random``, ``reset`` reseeds it."""

    name = "agent"

    def __init__(self, seed: int | None = None, move_time: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.move_time = move_time

    def reset(self, seed: int | None = None) -> None:
        self.rng.seed(seed)

    def act(self, view: PlayerView) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
