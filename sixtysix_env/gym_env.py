"""Sixty-Six as a single-agent Gymnasium environment (the opponent plays inside ``step``).

## Description

The learner plays one seat of the PettingZoo env (:mod:`sixtysix_env.aec`);
an opponent plays the other seat inside :meth:`SixtySixGymEnv.step`, so each
``step`` returns at the learner's next decision (or the end of the episode).

## Action Space

``Discrete(32)``, the action table of docs/rules.md section 5. The legal ones are
given by :meth:`SixtySixGymEnv.action_masks` (the sb3-contrib convention),
``info["action_mask"]`` (int8, 32) and, with ``mask_in_obs=True``, the
observation's ``"action_mask"``. Once the episode is over the mask holds
one placeholder action, ``CONTINUE`` (31), never all zeros (the AEC env's
convention), so a masked sampler can act on the final observation of a vector
env's default (next-step) autoreset; that action is never stepped (the vector
env resets).

## Rules

``rules="kawu"`` (any spec of docs/rules-variants.md, German by default) is
passed to the AEC env: the same spaces, the preset's deals and rewards
(``gymnasium.make("SixtySix-v0", rules="schnapsen")`` too). The opponent
must play that preset: the bundled bots read it from their view.

## Observation Space

``Box(312,)`` float32, the learner's information set laid out as in
:mod:`sixtysix_env.observation`. With ``mask_in_obs=True`` a Dict of
``"observation"`` and ``"action_mask"`` (``Box(0, 1, (32,), int8)``), for
clients that take the mask from the observation (TorchRL, RLlib, CleanRL
style loops). With ``perfect_information=True`` the Dict also has
``"full_observation"`` (384, hidden cards included: for critics only).

## Rewards

As the AEC env: ``episode="deal"``: ``+g``/``-g`` game points at the end,
``0`` for a drawn deal; ``episode="match"``: ``+1``/``-1`` at the match's end,
or ``+g``/``-g`` after every deal with ``reward="game_points"``. Rewards earned
during the opponent's moves are added to the step that led to them.

## Starting State

``reset(seed)`` draws the match seed, the learner's seat (``seat=None``:
random each episode) and the opponent's reset seed from ``self.np_random``;
``options`` fix the first deal as in docs/rules.md section 7. A seed is a
non-negative int (numpy's too); anything else is the AEC env's ``ValueError``.
Seed and options are checked before anything changes: a refused ``reset``
leaves the env as it was (an episode in play plays on).

## Episode End

Terminated at the end of the deal or match. An illegal learner action also
terminates the episode, with reward ``-illegal_penalty`` and the unchanged
(valid) observation; it is never a truncation.

## Protocol

``step`` checks the wrapper's own protocol and raises named errors (all
exported from :mod:`sixtysix_env`):

- :class:`ResetNeededError` (a ``RuntimeError`` and gymnasium's
  ``ResetNeeded``): ``step`` before ``reset``, after the episode ended (also
  by an illegal learner action), or after the opponent failed (its error is
  chained as the cause). Only ``reset`` starts play again.
- :class:`OpponentError`: the opponent raised inside ``reset`` or ``step``
  (its exception is the cause); the env then refuses to step until ``reset``.
- :class:`OpponentActionError` (also an
  :class:`~sixtysix_env.actions.IllegalActionError`): the opponent returned
  something that is not a legal action (``None``, ``3.7``, an illegal id);
  the message names the opponent and the value. Same refusal until ``reset``.
- :class:`ProtocolError`, the base of these: also raised when it is not the
  learner's turn (the inner ``aec_env`` was stepped from outside).

## Info

The same keys with plain ``int`` values on every ``reset`` and ``step``
(:mod:`sixtysix_env.infos`): ``deal_over`` (a deal ended during this step,
the opponent's moves included), ``deal_winner`` (seat, -1), ``deal_points``,
``reason_code``, ``deal_score_0/1``, ``deals_done``, ``match_score_0/1``,
``illegal``, plus ``seat`` (the learner's, 0/1) and ``action_mask``.
``seat`` is an ``int`` in every mode. ``last_deal_result`` is the rich result
of the last finished deal; ``info_mode="rich"`` adds the AEC env's nested keys
and ``learner`` (the learner's agent name, ``"player_0"``/``"player_1"``).

## Rendering

``render_mode="rgb_array"`` (``render()`` returns an (H, W, 3) uint8
picture), ``"ansi"`` (the text) or ``"human"`` (the text printed after
``reset`` and every ``step``, once, at the learner's decision) draws the
table from the LEARNER'S SEAT, from the learner's
:class:`~sixtysix_env.knowledge.PlayerView` only (:mod:`sixtysix_env.render`):
the opponent's hand stays face down whoever is to act.
``render_view="all"`` is the explicit spectator opt-in (both hands).

## Copying

The env is a value: ``copy.deepcopy`` and ``pickle`` give an independent env
in the same position (match, seat, ``np_random``, opponent) that plays on
exactly as the original would. The opponent is copied with it: an Agent or a
bot made from a spec string is pickled with its state (its random generator
too), a callable is kept by ``deepcopy`` and must be picklable (no lambda)
for ``pickle``.

## Arguments

- ``opponent``: an object with ``act(view) -> int`` (an
  :class:`agents.base.Agent`; reset with a seed from ``self.np_random`` on
  every ``reset``), a callable taking the opponent's observation dict
  (``observation``, ``action_mask``) and returning an action, a bot spec
  string (``"pimc"``, ``"ppo:assist=rules"``: see :func:`agent_from_spec`),
  or None: uniformly random legal actions drawn from ``self.np_random``.
- ``seat``: 0, 1, or None (random each episode).
- ``episode``, ``reward``, ``perfect_information``, ``render_mode``, ``info_mode``: as the AEC env.
- ``mask_in_obs``: put the action mask in a Dict observation (see above).
- ``render_view``: ``"learner"`` (default) or ``"all"`` (spectator: both hands).
- ``illegal_penalty``: reward for an illegal learner action is minus this.

## Attributes

``learner`` (the learner's agent name this episode), ``opponent``,
``last_deal_result``, ``aec_env``
(the underlying :class:`~sixtysix_env.aec.raw_env`; its ``game_state`` is the
engine state), ``view()`` (the learner's information set).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from .actions import N_ACTIONS, IllegalActionError, check_action, describe_action
from .aec import check_options, raw_env
from .engine import PLAYER_IDS, WINDOW_NAMES
from .infos import DEAL_KEYS
from .knowledge import PlayerView
from .observation import FULL_OBS_HIGH, FULL_OBS_LOW, OBS_HIGH, OBS_LOW
from .opponents import AGENT_FACTORIES, RandomLegalOpponent, UnknownOpponentError, agent_from_spec
from .render import RENDER_MODES, SPECTATOR, Table, check_render_args, player_table, show, spectator_table
from .seeding import reset_seed

#: ``render_view`` of the learner's seat (the default).
LEARNER = "learner"


class ProtocolError(RuntimeError):
    """The single-agent wrapper used out of its protocol (the base of its errors);
    raised itself when it is not the learner's turn."""


class ResetNeededError(ProtocolError, ResetNeeded):
    """``step`` with no episode in play: before ``reset``, after the episode
    ended, or after the opponent failed (then chained from its error)."""


class OpponentError(ProtocolError):
    """The opponent raised inside ``reset`` or ``step`` (its exception is the cause)."""


class OpponentActionError(IllegalActionError, OpponentError):
    """The opponent returned something that is not a legal action; the message
    names the opponent and the value (``action``)."""


class SixtySixGymEnv(gymnasium.Env):
    """One seat of Sixty-Six against a fixed opponent; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        opponent: Any = None,
        seat: int | None = None,
        episode: str = "match",
        reward: str | None = None,
        illegal_penalty: float = 1.0,
        perfect_information: bool = False,
        render_mode: str | None = None,
        render_view: str = LEARNER,
        mask_in_obs: bool = False,
        info_mode: str = "flat",
        rules: Any = None,
    ) -> None:
        if seat is not None and (isinstance(seat, bool) or seat not in (0, 1)):
            raise ValueError(f"seat must be 0, 1 or None (random), got {seat!r}")
        check_render_args(render_mode, render_view, (LEARNER, SPECTATOR))
        # The inner env never renders: this wrapper draws the learner's side itself.
        self.aec_env = raw_env(episode=episode, reward=reward, perfect_information=perfect_information,
                               info_mode=info_mode, rules=rules)
        self.rules = self.aec_env.rules
        self.seat = seat
        self.illegal_penalty = float(illegal_penalty)
        self.perfect_information = bool(perfect_information)
        self.render_mode = render_mode
        self.render_view = render_view
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.mask_in_obs = bool(mask_in_obs)
        self._obs_keys = ("observation",) + ("action_mask",) * self.mask_in_obs \
            + ("full_observation",) * self.perfect_information
        self.observation_space = self._space()
        self._opponent_spec = opponent
        self.opponent: Any = None
        self._opponent_takes_view = True  # act(view) (an Agent), else a callable on the observation dict
        self.learner = PLAYER_IDS[0]
        self._obs: dict[str, np.ndarray] | None = None
        # Whether step() may play; if not, why (for its error) and the opponent's error, if any.
        self._in_play = False
        self._stop_reason = "no episode has started"
        self._failure: BaseException | None = None
        self._ended: dict[str, int] | None = None  # the deal keys of a deal that ended in this step

    def _space(self) -> spaces.Space[Any]:
        box = spaces.Box(OBS_LOW, OBS_HIGH, dtype=np.float32)
        if self._obs_keys == ("observation",):
            return box
        parts: dict[str, spaces.Space[Any]] = {
            "observation": box, "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            "full_observation": spaces.Box(FULL_OBS_LOW, FULL_OBS_HIGH, dtype=np.float32)}
        return spaces.Dict({k: parts[k] for k in self._obs_keys})

    # ------------------------------------------------------------- opponent
    def _make_opponent(self) -> None:
        """Resolve the opponent spec once ``np_random`` exists (the default bot uses it)."""
        spec = self._opponent_spec
        if spec is None:
            spec = RandomLegalOpponent(self.np_random)
        elif isinstance(spec, str):
            spec = agent_from_spec(spec)
        if not hasattr(spec, "act") and not callable(spec):
            raise ValueError(
                f"opponent must be an Agent (with act(view)), a callable on the observation dict, "
                f"a bot spec string or None; got {spec!r}"
            )
        self._opponent_takes_view = hasattr(spec, "act")
        self.opponent = spec

    def _opponent_name(self) -> str:
        opp = self.opponent
        if isinstance(self._opponent_spec, str):
            return repr(self._opponent_spec)
        name = getattr(opp, "name", None) if self._opponent_takes_view else None
        return repr(name or getattr(opp, "__qualname__", None) or opp)

    def _ask_opponent(self, method: Callable[..., Any], *args: Any) -> Any:
        """``method(*args)`` of the opponent; what it raises becomes an :class:`OpponentError`."""
        try:
            return method(*args)
        except Exception as e:
            name = self._opponent_name()
            raise self._fail(OpponentError(f"the opponent {name} raised {type(e).__name__}: {e}")) from e

    def _fail(self, error: OpponentError) -> OpponentError:
        """Record the opponent's failure: ``step`` refuses to play until ``reset``."""
        self._stop(str(error))
        self._failure = error
        return error

    def _opponent_action(self, agent: str) -> int:
        """The opponent's move, checked with :func:`~sixtysix_env.actions.check_action`."""
        env = self.aec_env
        if self._opponent_takes_view:
            value = self._ask_opponent(self.opponent.act, env.view(agent))
        else:
            value = self._ask_opponent(self.opponent, env.observe(agent))
        state = env.game_state
        assert state is not None
        legal = state.legal_mask()
        try:
            return check_action(value, legal, lambda: self._opponent_where(agent, state.window))
        except IllegalActionError as e:
            raise self._fail(OpponentActionError(str(e), value, legal)) from None

    def _opponent_where(self, agent: str, window: int) -> str:
        return f" from the opponent {self._opponent_name()} as {agent} in the {WINDOW_NAMES[window]} window"

    # ------------------------------------------------------------- API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:  # the AEC env's ValueError for a bad seed, before Gymnasium's own
            seed = reset_seed(seed)
            if seed < 0:
                raise ValueError(f"seed must be a non-negative int (Gymnasium's np_random), got {seed}")
        # The options are checked (and read once) before anything changes: a refused
        # reset leaves the env, its np_random and an episode in play exactly as they were.
        options = check_options(options, self.rules)
        super().reset(seed=seed)
        self._stop("reset() did not finish")
        self._failure = None
        self._ended = None
        if self.opponent is None:
            self._make_opponent()
        if isinstance(self.opponent, RandomLegalOpponent):
            self.opponent.rng = self.np_random  # super().reset(seed) may replace it
        seat = self.seat if self.seat is not None else int(self.np_random.integers(2))
        self.learner = PLAYER_IDS[seat]
        match_seed = int(self.np_random.integers(2**63 - 1))
        opp_seed = int(self.np_random.integers(2**31 - 1))
        if hasattr(self.opponent, "reset"):
            self._ask_opponent(self.opponent.reset, opp_seed)
        self.aec_env.reset(seed=match_seed, options=options)
        self._play_opponent()
        assert self._in_play, "the learner always acts before an episode can end"
        self._render_human()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._check_learners_turn()
        env = self.aec_env
        self._ended = None
        try:
            a = env.game_state.check_action(action)  # type: ignore[union-attr]
        except IllegalActionError:
            self._stop(f"the episode ended with the learner's illegal action {describe_action(action)}")
            self._obs = None  # fresh arrays: callers may keep the previous ones
            info = self._info()
            info["illegal"] = 1
            if self.aec_env.info_mode == "rich":
                info["illegal_action"] = action
            self._render_human()
            return self._observation(), -self.illegal_penalty, True, False, info
        self._inner_step(a)
        reward = float(env.rewards[self.learner])
        reward += self._play_opponent()
        terminated = not self._in_play
        self._render_human()
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as a bool array (sb3-contrib's MaskablePPO reads this)."""
        return self._obs_dict()["action_mask"].astype(bool)

    @property
    def last_deal_result(self) -> dict[str, Any] | None:
        """The rich result of the last finished deal (see :mod:`sixtysix_env.infos`), or None."""
        return self.aec_env.last_deal_result

    def view(self) -> PlayerView:
        """The learner's information set."""
        return self.aec_env.view(self.learner)

    def render(self) -> str | None:
        """The table from the learner's seat (``render_view="all"``: both hands)."""
        return show(self.render_mode, self._render_table)

    # ------------------------------------------------------------- helpers
    def _render_table(self) -> Table:
        if self.render_view == SPECTATOR:
            return spectator_table(self.aec_env._state())
        return player_table(self.view())

    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()

    def _stop(self, reason: str) -> None:
        """No more play until ``reset``; ``step`` then raises :class:`ResetNeededError` with ``reason``."""
        self._in_play = False
        self._stop_reason = reason

    def _check_learners_turn(self) -> None:
        if not self._in_play:
            raise ResetNeededError(f"{self._stop_reason}; call reset()") from self._failure
        to_act = self.aec_env.agent_selection
        if to_act != self.learner:
            raise ProtocolError(
                f"it is {to_act}'s turn, not the learner's ({self.learner}): "
                "was the inner aec_env stepped from outside? call reset()"
            )

    def _play_opponent(self) -> float:
        """Let the opponent act until it is the learner's turn or the episode ends;
        the learner's reward meanwhile. Stops play (:meth:`_stop`) when the episode is over."""
        env = self.aec_env
        reward = 0.0
        opp = PLAYER_IDS[1 - PLAYER_IDS.index(self.learner)]
        self._stop("the opponent's move did not finish")  # stays if anything escapes
        while not env.terminations[opp] and env.agent_selection == opp:
            self._inner_step(self._opponent_action(opp))
            reward += float(env.rewards[self.learner])
        self._obs = None
        if env.terminations[self.learner]:
            self._stop("the episode is over")
        else:
            self._in_play = True
        return reward

    def _inner_step(self, action: int) -> None:
        """Step the AEC env; keep the info of a deal that ends (the opponent may move after it)."""
        env = self.aec_env
        env.step(action)
        info = env.infos[self.learner]
        if info["deal_over"]:
            self._ended = {k: info[k] for k in DEAL_KEYS}

    def _obs_dict(self) -> dict[str, np.ndarray]:
        if self._obs is None:
            self._obs = self.aec_env.observe(self.learner)  # a finished episode's mask: CONTINUE
        return self._obs

    def _observation(self) -> Any:
        obs = self._obs_dict()
        if len(self._obs_keys) == 1:
            return obs["observation"]
        return {k: obs[k] for k in self._obs_keys}

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = copy.deepcopy(self.aec_env.infos[self.learner])  # fresh data on every call
        if self._ended is not None:
            info.update(self._ended)
        info["action_mask"] = self._obs_dict()["action_mask"]
        info["seat"] = PLAYER_IDS.index(self.learner)
        if self.aec_env.info_mode == "rich":
            info["learner"] = self.learner
        return info


__all__ = [
    "AGENT_FACTORIES",
    "LEARNER",
    "OpponentActionError",
    "OpponentError",
    "ProtocolError",
    "RandomLegalOpponent",
    "ResetNeededError",
    "SixtySixGymEnv",
    "UnknownOpponentError",
    "agent_from_spec",
]
