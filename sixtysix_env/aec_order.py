"""The AEC envs' end of an episode: one named error where PettingZoo has none.

Once every agent is done, PettingZoo's ``last()`` raises a bare ``KeyError``
and its OrderEnforcingWrapper only warns on a ``step`` and ignores it: a loop
that forgot to reset would train on nothing. Both AEC envs raise
:class:`EpisodeOverError` there instead (a Gymnasium ``ResetNeeded``, like the
Gymnasium wrapper's ``ResetNeededError``). Before the first ``reset()``,
observing, rendering, stepping, ``last()`` or ``agent_iter()`` of a raw env
raises :class:`NotResetError`, also a ``ResetNeeded`` (``env()``'s
OrderEnforcingWrapper answers those before reset first, with its own
``AssertionError``/``AttributeError``).
"""

from __future__ import annotations

from typing import Any

from gymnasium.error import ResetNeeded
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


class EpisodeOverError(ResetNeeded, RuntimeError):
    """``last()`` or ``step()`` after every agent is done: call ``reset()``."""


class NotResetError(ResetNeeded, RuntimeError):
    """The env used (observed, rendered, stepped) before its first ``reset()``."""


def check_in_play(env: AECEnv) -> None:
    """:class:`EpisodeOverError` unless some agent is still in the episode."""
    if not env.agents:
        name = env.metadata["name"]
        raise EpisodeOverError(f"{name}: the episode is over (every agent is done); call reset()")


def check_reset(env: AECEnv) -> None:
    """:class:`NotResetError` unless ``env`` (a raw env with ``game_state``) has been reset."""
    if getattr(env, "game_state", None) is None:
        raise NotResetError(f"{env.metadata['name']}: call reset() first")


class EndCheckedAEC(AECEnv):
    """An ``AECEnv`` whose ``last()`` names the end of the episode and whose ``last()``
    and ``agent_iter()`` raise :class:`NotResetError` before the first ``reset()`` (its
    ``step`` makes both checks itself)."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        check_reset(self)
        check_in_play(self)
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        check_reset(self)
        return super().agent_iter(max_iter)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper as shipped, plus :class:`EpisodeOverError`
    for a ``step`` or ``last()`` after the end (not a warning and a no-op, or a
    ``KeyError``); nothing of the wrapper's own protocol is re-implemented."""

    def step(self, action: Any) -> None:
        check_in_play(self.env)  # the raw env has its agents before reset: the wrapper's own check then
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        check_in_play(self.env)
        return super().last(observe)


__all__ = [
    "EndCheckedAEC",
    "EpisodeOverError",
    "NotResetError",
    "OrderEnforcing",
    "check_in_play",
    "check_reset",
]
