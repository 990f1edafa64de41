"""The one interface every bot implements.

A bot sees only what its seat may know: a
:class:`~sixtysix_env.contract.GameView` (own hand, public history, the
legal-action mask): a :class:`~sixtysix_env.knowledge.PlayerView` at a
two-player table, a :class:`~sixtysix_env.four_knowledge.FourView` at a
four-player one. Search bots plan on worlds drawn from their view (e.g.
:func:`sixtysix_env.knowledge.sample_state`), never on the true hidden state.

``act`` takes the contract's :class:`~sixtysix_env.contract.GameView`;
each bot names the view type it reads in its own ``act`` (``PlayerView`` or
``FourView``), so :class:`Agent` and :class:`BaseAgent` type the parameter
as :data:`AnyView` (a parameter typed ``GameView`` in the protocol would
refuse every bot that reads one kind of view: parameters are contravariant).
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from sixtysix_env.contract import GameView

AnyView = Any  # a GameView of either table: each bot's act names its own kind


@runtime_checkable
class Agent(Protocol):
    """``act`` returns a legal action id (0-31) for ``view.player``.

    ``reset(seed)`` starts a new match and reseeds the bot's own RNG, so that
    decisions are reproducible. ``move_time`` (seconds or None) is a per-move
    budget the bot may use for anytime search.
    """

    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, view: AnyView) -> int: ...


def require_turn(view: GameView) -> None:
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

    def act(self, view: AnyView) -> int:  # pragma: no cover - abstract (a subclass names its view)
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
