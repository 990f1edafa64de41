"""Opponents for the single-agent env: bots named by spec string, found through an
entry-point group so that :mod:`sixtysix_env` never imports the bots, and the
default random opponent."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import numpy as np

from .actions import random_action
from .knowledge import PlayerView

#: Entry-point group of bot factories: each entry is a callable ``spec -> agent``.
#: The sixtysix package registers ``make_agent = "agents:make_agent"``.
AGENT_FACTORIES = "sixtysix.agents"
class UnknownOpponentError(ValueError):
    """An opponent spec string that no installed bot factory can make."""


def agent_from_spec(spec: str) -> Any:
    """The bot named by ``spec`` (``"heuristic"``, ``"pimc:worlds=16"``...), made by
    a factory of the :data:`AGENT_FACTORIES` entry-point group, so the environment
    never imports the bots. Raises :class:`UnknownOpponentError` when no factory
    is installed or none accepts ``spec`` (the message carries their reasons)."""
    factories = sorted(entry_points(group=AGENT_FACTORIES), key=lambda ep: ep.name)
    if not factories:
        raise UnknownOpponentError(
            f"cannot make opponent {spec!r}: no bot factory is installed in the entry-point "
            f"group {AGENT_FACTORIES!r} (install the sixtysix package, or pass an object with act(view))"
        )
    reasons = []
    for ep in factories:
        try:
            return ep.load()(spec)
        except ValueError as e:
            reasons.append(f"{ep.value}: {e}")
    raise UnknownOpponentError(f"cannot make opponent {spec!r}: " + "; ".join(reasons))


class RandomLegalOpponent:
    """Uniformly random legal actions from the env's ``np_random`` (the default opponent)."""

    name = "random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def reset(self, seed: int | None = None) -> None:
        """Nothing to do: it draws from the env's ``np_random``."""

    def act(self, view: PlayerView) -> int:
        return random_action(view.legal_mask, self.rng)


__all__ = ["AGENT_FACTORIES", "RandomLegalOpponent", "UnknownOpponentError", "agent_from_spec"]
