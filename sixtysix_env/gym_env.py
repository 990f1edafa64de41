"""Sixty-Six as a single-agent Gymnasium environment (the opponent plays inside ``step``).

## Description

The learner plays one seat of the PettingZoo env (:mod:`sixtysix_env.aec`);
an opponent plays the other seat inside :meth:`SixtySixGymEnv.step`, so each
``step`` returns at the learner's next decision (or the end of the episode).

## Action Space

``Discrete(32)``, the action table of RULES.md section 5. The legal ones are
given by :meth:`SixtySixGymEnv.action_masks` (the sb3-contrib convention) and
``info["action_mask"]`` (int8, 32).

## Observation Space

``Box(312,)`` float32, the learner's information set laid out as in
:mod:`sixtysix_env.observation`. With ``perfect_information=True`` a Dict of
``"observation"`` and ``"full_observation"`` (384, hidden cards included: for
critics only).

## Rewards

As the AEC env: ``episode="deal"``: ``+g``/``-g`` game points at the end,
``0`` for a drawn deal; ``episode="match"``: ``+1``/``-1`` at the match's end,
or ``+g``/``-g`` after every deal with ``reward="game_points"``. Rewards earned
during the opponent's moves are added to the step that led to them.

## Starting State

``reset(seed)`` draws the match seed, the learner's seat (``seat=None``:
random each episode) and the opponent's reset seed from ``self.np_random``;
``options`` fix the first deal as in RULES.md section 7.

## Episode End

Terminated at the end of the deal or match. An illegal learner action also
terminates the episode, with reward ``-illegal_penalty`` and the unchanged
(valid) observation; it is never a truncation.

## Arguments

- ``opponent``: an object with ``act(view) -> int`` (an
  :class:`agents.base.Agent`; reset with a seed from ``self.np_random`` on
  every ``reset``), a callable taking the opponent's observation dict
  (``observation``, ``action_mask``) and returning an action, a bot spec
  string (``"pimc"``, ``"ppo:assist=rules"``: see :func:`agent_from_spec`),
  or None: uniformly random legal actions drawn from ``self.np_random``.
- ``seat``: 0, 1, or None (random each episode).
- ``episode``, ``reward``, ``perfect_information``, ``render_mode``: as the AEC env.
- ``illegal_penalty``: reward for an illegal learner action is minus this.

## Attributes

``learner`` (the learner's agent name this episode), ``opponent``, ``aec_env``
(the underlying :class:`~sixtysix_env.aec.raw_env`; its ``game_state`` is the
engine state), ``view()`` (the learner's information set).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .actions import N_ACTIONS, IllegalActionError, random_action
from .aec import raw_env
from .engine import PLAYER_IDS
from .knowledge import PlayerView
from .observation import FULL_OBS_HIGH, FULL_OBS_LOW, OBS_HIGH, OBS_LOW

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


class SixtySixGymEnv(gymnasium.Env):
    """One seat of Sixty-Six against a fixed opponent; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        opponent: Any = None,
        seat: int | None = None,
        episode: str = "match",
        reward: str | None = None,
        illegal_penalty: float = 1.0,
        perfect_information: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if seat is not None and (isinstance(seat, bool) or seat not in (0, 1)):
            raise ValueError(f"seat must be 0, 1 or None (random), got {seat!r}")
        self.aec_env = raw_env(
            episode=episode,
            reward=reward,
            perfect_information=perfect_information,
            render_mode=render_mode,
        )
        self.seat = seat
        self.illegal_penalty = float(illegal_penalty)
        self.perfect_information = bool(perfect_information)
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(N_ACTIONS)
        box = spaces.Box(OBS_LOW, OBS_HIGH, dtype=np.float32)
        if self.perfect_information:
            full = spaces.Box(FULL_OBS_LOW, FULL_OBS_HIGH, dtype=np.float32)
            self.observation_space = spaces.Dict({"observation": box, "full_observation": full})
        else:
            self.observation_space = box
        self._opponent_spec = opponent
        self.opponent: Any = None
        self._opponent_act: Callable[[str], int] | None = None
        self.learner = PLAYER_IDS[0]
        self._obs: dict[str, np.ndarray] | None = None

    # ------------------------------------------------------------- opponent
    def _make_opponent(self) -> None:
        """Resolve the opponent spec once ``np_random`` exists (the default bot uses it)."""
        spec = self._opponent_spec
        if spec is None:
            spec = RandomLegalOpponent(self.np_random)
        elif isinstance(spec, str):
            spec = agent_from_spec(spec)
        if hasattr(spec, "act"):
            self._opponent_act = lambda agent: int(spec.act(self.aec_env.view(agent)))
        elif callable(spec):
            self._opponent_act = lambda agent: int(spec(self.aec_env.observe(agent)))
        else:
            raise ValueError(
                f"opponent must be an Agent (with act(view)), a callable on the observation dict, "
                f"a bot spec string or None; got {spec!r}"
            )
        self.opponent = spec

    # ------------------------------------------------------------- API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if self._opponent_act is None:
            self._make_opponent()
        if isinstance(self.opponent, RandomLegalOpponent):
            self.opponent.rng = self.np_random  # super().reset(seed) may replace it
        seat = self.seat if self.seat is not None else int(self.np_random.integers(2))
        self.learner = PLAYER_IDS[seat]
        match_seed = int(self.np_random.integers(2**63 - 1))
        opp_seed = int(self.np_random.integers(2**31 - 1))
        if hasattr(self.opponent, "reset"):
            self.opponent.reset(opp_seed)
        self.aec_env.reset(seed=match_seed, options=options)
        reward, terminated = self._play_opponent()
        assert not terminated, "the learner always acts before an episode can end"
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        env = self.aec_env
        if env.game_state is None:
            raise RuntimeError("call reset() first")
        if env.terminations[self.learner]:
            raise RuntimeError("the episode is over; call reset()")
        try:
            a = env.game_state.check_action(action)
        except IllegalActionError:
            self._obs = None  # fresh arrays: callers may keep the previous ones
            info = self._info()
            info["illegal_action"] = action
            return self._observation(), -self.illegal_penalty, True, False, info
        env.step(a)
        reward = float(env.rewards[self.learner])
        extra, terminated = self._play_opponent()
        reward += extra
        terminated = terminated or env.terminations[self.learner]
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as a bool array (sb3-contrib's MaskablePPO reads this)."""
        return self._obs_dict()["action_mask"].astype(bool)

    def view(self) -> PlayerView:
        """The learner's information set."""
        return self.aec_env.view(self.learner)

    def render(self) -> str | None:
        return self.aec_env.render()

    # ------------------------------------------------------------- helpers
    def _play_opponent(self) -> tuple[float, bool]:
        """Let the opponent act until it is the learner's turn or the episode ends."""
        env = self.aec_env
        reward = 0.0
        opp = PLAYER_IDS[1 - PLAYER_IDS.index(self.learner)]
        assert self._opponent_act is not None
        while not env.terminations[opp] and env.agent_selection == opp:
            env.step(self._opponent_act(opp))
            reward += float(env.rewards[self.learner])
        self._obs = None
        return reward, env.terminations[self.learner]

    def _obs_dict(self) -> dict[str, np.ndarray]:
        if self._obs is None:
            self._obs = self.aec_env.observe(self.learner)
        return self._obs

    def _observation(self) -> Any:
        obs = self._obs_dict()
        if self.perfect_information:
            return {"observation": obs["observation"], "full_observation": obs["full_observation"]}
        return obs["observation"]

    def _info(self) -> dict[str, Any]:
        info = copy.deepcopy(self.aec_env.infos[self.learner])  # fresh data on every call
        info["action_mask"] = self._obs_dict()["action_mask"]
        info["seat"] = self.learner
        return info


__all__ = [
    "AGENT_FACTORIES",
    "RandomLegalOpponent",
    "SixtySixGymEnv",
    "UnknownOpponentError",
    "agent_from_spec",
]
