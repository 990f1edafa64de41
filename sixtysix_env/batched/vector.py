"""Training interfaces on the batched engine: both seats, or one seat in Gymnasium.

Two ways to train on :class:`~sixtysix_env.batched.engine.BatchedEngine`,
with every tensor on the engine's device (CPU or CUDA); nothing is copied to
numpy:

:class:`SelfPlayEnv` (both seats, for self-play training loops) has the
attributes of ``sixtysix_env.vector.VectorEnv`` as torch tensors. Every table
always has one player to act; a step is one decision per table:

================  ======================  ======================================
attribute         shape, dtype            meaning
================  ======================  ======================================
``obs``           (N, 312) float32        observation of the player to act
``full_obs``      (N, 384) float32        perfect-information input (critics
                                          only; ``full_obs=True`` only, and then
                                          ``obs`` is its first 312 columns)
``masks``         (N, 32) bool            legal actions of the player to act
``to_act``        (N,) int64              the player to act (0 or 1)
``rewards``       (N, 2) float32          game points of a deal that ended in
                                          this step, per player (+g, -g)
``deal_done``     (N,) bool               a deal ended in this step
``match_done``    (N,) bool               a match ended in this step
``match_winner``  (N,) int64              winner of the match that ended, or -1
================  ======================  ======================================

``obs``, ``full_obs`` and ``masks`` are buffers that every step overwrites
in place (like the numpy arrays of ``sixtysix_env.vector.VectorEnv``): a
rollout copies them (``rollout.obs[t] = env.obs``); keep a ``.clone()`` of
anything else you hold on to. The other attributes are new tensors each step.

A deal's reward belongs to both players, not only to the one who made the
last move: ``training.rollout.record_rewards`` books it on each player's own
latest transition.

:class:`SixtySixVectorEnv` is a ``gymnasium.vector.VectorEnv`` for one
learner against a batched opponent (``"random"``, a policy network, or any
callable ``(obs, masks) -> actions``) that plays the other seat of every
table between the learner's decisions. Observations, rewards, terminations
and infos are torch tensors on the device. Episodes are deals (default) or
matches; the learner's seat is drawn at random for every episode (or fixed).

Autoreset is ``SAME_STEP`` (``metadata["autoreset_mode"]``): a table whose
episode ended in a step is reset in that step, so the returned observation
and ``infos["action_mask"]`` always describe a live decision (a mask is never
all zeros). ``infos`` follows ``gymnasium.vector.VectorEnv``'s convention:
every key ``k`` holds one row per table and comes with a bool mask ``"_k"``
of the tables that have it. Keys: ``"action_mask"`` and ``"seat"`` (the
learner's seat per table; every table); ``"deal_points"`` (the learner's
signed game points of the deal that ended; tables where a deal ended);
``"final_obs"`` (the learner's last observation of the finished episode, a
dict with ``dict_obs``) and ``"final_info"`` (``"seat"`` and
``"deal_points"`` of the finished episode); tables whose episode ended.

Protocol: ``step`` before ``reset`` raises
:class:`~sixtysix_env.gym_env.ResetNeededError` (a ``RuntimeError``); bad
actions raise ``ValueError`` before any table moves. An opponent that raises
or returns bad actions raises :class:`~sixtysix_env.gym_env.OpponentError`
(its error chained) after the learner's move, and the env then refuses to
step (``ResetNeededError``) until ``reset``.

Arrays: torch tensors on ``device`` (the default, for on-device training), or
numpy arrays with ``arrays="numpy"``, the form gymnasium's own vector wrappers
(``RecordEpisodeStatistics``, ``NormalizeReward``, ``DictInfoToList``...)
compute with; actions may then be numpy arrays too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..actions import N_ACTIONS
from ..episodes import EPISODES, REWARDS
from ..gym_env import OpponentError, ResetNeededError
from ..observation import FULL_OBS_SIZE, OBS_HIGH, OBS_LOW, OBS_SIZE
from ..seeding import reset_seed
from .engine import BatchedEngine
from .legal import action_tensor
from .lookup import as_device, normal_tensors
from .observe import masks_of, observe
from .rules import batched_rules
from .sampling import random_actions, sample_masked

Opponent = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
#: What :class:`SixtySixVectorEnv` returns: torch tensors on its device, or numpy arrays.
ARRAYS = ("torch", "numpy")


class SelfPlayEnv:
    """``num_envs`` tables, both seats played by the caller (module docstring)."""

    @normal_tensors
    def __init__(
        self,
        num_envs: int,
        seed: int | None = 0,
        *,
        device: str | torch.device = "cpu",
        episode: str = "match",
        full_obs: bool = False,
        validate: bool = True,
        rules: Any = None,
    ) -> None:
        self.engine = BatchedEngine(num_envs, seed, device=device, episode=episode, validate=validate,
                                    rules=rules)
        self.num_envs = num_envs
        self.device = self.engine.device
        self.episode = episode
        width = FULL_OBS_SIZE if full_obs else OBS_SIZE
        self._obs = torch.zeros((num_envs, width), dtype=torch.float32, device=self.device)
        self.full_obs = self._obs if full_obs else None
        self.obs = self._obs[:, :OBS_SIZE]
        self.masks = torch.zeros((num_envs, N_ACTIONS), dtype=torch.bool, device=self.device)
        self._observe()

    def reset(self, seed: int | None = None) -> None:
        """New matches on every table; ``seed`` fixes all deals that follow."""
        self.engine.reset(seed)
        self._observe()

    def step(self, actions: torch.Tensor) -> None:
        """One legal action per table for its player to act; refreshes all attributes."""
        self.engine.step(actions)
        self._observe()

    def _observe(self) -> None:
        eng = self.engine
        observe(eng, full=self.full_obs is not None, out=self._obs)
        masks_of(self.obs, out=self.masks)
        self.to_act = eng.to_act
        self.rewards = eng.rewards
        self.deal_done = eng.deal_done
        self.match_done = eng.match_done
        self.match_winner = eng.match_winner
        self.match_value = eng.match_value


def policy_opponent(net: torch.nn.Module, *, greedy: bool = False,
                    generator: torch.Generator | None = None) -> Opponent:
    """An opponent from a network mapping observations to 32 logits (e.g.
    ``agents.core.nets.PolicyNet``): samples from its masked policy, or plays its
    best action with ``greedy``."""

    def act(obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return sample_masked(net(obs), masks, generator, greedy)[0]

    return act


class SixtySixVectorEnv(gymnasium.vector.VectorEnv):
    """Gymnasium vector env: a learner against a batched opponent (module docstring).

    ## Observation and action spaces
    ``single_observation_space``: ``Box(312,)`` float32 (``dict_obs=True``:
    ``Dict(observation=Box(312,), action_mask=MultiBinary(32))``);
    ``single_action_space``: ``Discrete(32)``. Batched spaces have a leading
    ``num_envs`` axis. Observations are torch tensors on ``device``.

    ## Rewards
    The learner's game points of every deal that ends (+g won, -g lost, 0
    drawn), or with ``reward="match"`` (``episode="match"`` only) +1/-1 when the
    match ends.

    ## Episode end
    ``terminations`` when the deal (``episode="deal"``) or the match ends;
    ``truncations`` never.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1024,
        *,
        opponent: str | torch.nn.Module | Opponent = "random",
        device: str | torch.device = "cpu",
        seed: int | None = None,
        episode: str = "deal",
        reward: str = "game_points",
        learner_seat: int | str = "random",
        dict_obs: bool = False,
        final_obs: bool = True,
        validate: bool = True,
        arrays: str = "torch",
        rules: Any = None,
    ) -> None:
        batched_rules(rules)  # before anything is built: UnsupportedRulesError for a hand-made Rules
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if arrays not in ARRAYS:
            raise ValueError(f"arrays must be one of {ARRAYS}, got {arrays!r}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if reward not in REWARDS or (reward == "match" and episode != "match"):
            raise ValueError(f"reward must be one of {REWARDS} ('match' needs episode='match'): {reward!r}")
        if isinstance(learner_seat, bool) or not (learner_seat == "random" or type(learner_seat) is int
                                                  and learner_seat in (0, 1)):
            raise ValueError(f"learner_seat must be 0, 1 or 'random', got {learner_seat!r}")
        self.num_envs = num_envs
        self.device = as_device(device)
        self.episode = episode
        self.reward_mode = reward
        self.learner_seat = learner_seat
        self.dict_obs = dict_obs
        self.with_final_obs = final_obs
        self.arrays = arrays
        self.generator = torch.Generator(device=self.device)
        if isinstance(opponent, str):
            if opponent != "random":
                raise ValueError(f"opponent must be 'random', a torch module or a callable, got {opponent!r}")
            self.opponent: Opponent | None = None
        elif isinstance(opponent, torch.nn.Module):
            self.opponent = policy_opponent(opponent, generator=self.generator)
        elif callable(opponent):
            self.opponent = opponent
        else:
            raise ValueError(f"opponent must be 'random', a torch module or a callable, got {opponent!r}")
        obs_space: spaces.Space[Any] = spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)
        if dict_obs:
            obs_space = spaces.Dict({"observation": obs_space, "action_mask": spaces.MultiBinary(N_ACTIONS)})
        self.single_observation_space = obs_space
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(obs_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.engine = BatchedEngine(num_envs, seed, device=self.device, episode=episode, validate=validate,
                                    rules=rules)
        self.seat = torch.zeros(num_envs, dtype=torch.int64, device=self.device)
        self._seed = seed
        self._failure: BaseException | None = None
        self._ready = False  # step() before reset() has no learner to act
        self._stop_reason = "no episode has started"

    # ----------------------------------------------------------------- API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """New episodes at every table; ``seed`` fixes the deals, the learner's
        seats and the random opponent's choices. ``options`` are not supported."""
        if options:
            raise ValueError(f"reset options are not supported by the batched env: {options!r:.80}")
        if seed is not None:
            self._seed = reset_seed(seed)
        self._stop("reset() did not finish")
        if self._seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed((self._seed + 1) % 2**64)  # any int, as in the scalar envs
        self.engine.reset(self._seed)
        everyone = torch.ones(self.num_envs, dtype=torch.bool, device=self.device)
        self._draw_seats(everyone)
        rewards = torch.zeros(self.num_envs, dtype=torch.float32, device=self.device)
        ended = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        obs = self._play_opponent(rewards, ended, None)
        self._ready, self._failure = True, None
        return self._export((self._output(obs), self._infos(obs, ended, None, None, None, None)))

    def step(self, actions: Any) -> tuple[Any, torch.Tensor, torch.Tensor, torch.Tensor, dict[str, Any]]:
        """One action per table for the learner (who is to act at every table)."""
        if not self._ready:
            raise ResetNeededError(f"{self._stop_reason}; call reset() before step()") from self._failure
        a = action_tensor(actions, self.num_envs, self.device)
        rewards = torch.zeros(self.num_envs, dtype=torch.float32, device=self.device)
        ended = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        final = torch.zeros((self.num_envs, OBS_SIZE), dtype=torch.float32, device=self.device) \
            if self.with_final_obs else None
        points = torch.zeros(self.num_envs, dtype=torch.float32, device=self.device)
        dealt = torch.zeros_like(ended)
        seat = self.seat  # the finished episodes' seats (_draw_seats makes a new tensor)
        self._move(a, None, rewards, ended, final, points, dealt)
        obs = self._play_opponent(rewards, ended, final, points, dealt)
        truncated = torch.zeros_like(ended)
        infos = self._infos(obs, ended, final, points, dealt, seat)
        return self._export((self._output(obs), rewards, ended, truncated, infos))

    def close(self, **kwargs: Any) -> None:
        self.closed = True

    # ------------------------------------------------------------- internals
    def _stop(self, reason: str, failure: BaseException | None = None) -> None:
        """No step until ``reset``: :class:`ResetNeededError` with ``reason`` (chained from ``failure``)."""
        self._ready, self._stop_reason, self._failure = False, reason, failure

    def _draw_seats(self, rows: torch.Tensor) -> None:
        if self.learner_seat == "random":
            coin = torch.randint(0, 2, (self.num_envs,), device=self.device, generator=self.generator)
            self.seat = torch.where(rows, coin, self.seat)
        else:
            self.seat = torch.full_like(self.seat, int(self.learner_seat))

    def _move(self, actions: torch.Tensor, active: torch.Tensor | None, rewards: torch.Tensor,
              ended: torch.Tensor, final: torch.Tensor | None, points: torch.Tensor | None,
              dealt: torch.Tensor | None) -> None:
        """One engine step (``active`` tables): the learner's rewards, episode
        ends and final observations, then the next deals and learner seats."""

        def before_reset(eng: BatchedEngine) -> None:
            mine = eng.rewards.gather(1, self.seat.unsqueeze(1)).squeeze(1)
            if points is not None:
                points.add_(mine)
            if dealt is not None:
                dealt.logical_or_(eng.deal_done)
            done = eng.match_done if self.episode == "match" else eng.deal_done
            if self.reward_mode == "match":  # +1/-1, or +2/-2 for a double game (match_value)
                rewards.add_((2 * (eng.match_winner == self.seat).float() - 1)
                             * (eng.match_value if eng.rules.double_game else done))
            else:
                rewards.add_(mine)
            if final is not None and bool(done.any()):
                final.copy_(torch.where(done.unsqueeze(1), observe(eng, self.seat), final))
            ended.logical_or_(done)
            self._draw_seats(done)

        self.engine.step(actions, active, before_reset=before_reset)

    def _play_opponent(self, rewards: torch.Tensor, ended: torch.Tensor, final: torch.Tensor | None,
                       points: torch.Tensor | None = None, dealt: torch.Tensor | None = None) -> torch.Tensor:
        """The opponent moves until the learner is to act at every table; returns
        the learner's observations."""
        eng = self.engine
        while True:
            pending = eng.to_act != self.seat
            if not bool(pending.any()):
                return observe(eng)
            if self.opponent is None:
                actions = random_actions(eng.legal, self.generator)
                self._move(actions, pending, rewards, ended, final, points, dealt)
                continue
            try:
                obs = observe(eng)
                self._move(self.opponent(obs, masks_of(obs)), pending, rewards, ended, final, points, dealt)
            except Exception as e:  # the learner has moved, the opponent has not: no step until reset
                error = OpponentError(f"the opponent {self.opponent!r:.60} failed: {type(e).__name__}: {e}")
                self._stop(str(error), error)
                raise error from e

    def _output(self, obs: torch.Tensor) -> Any:
        if self.dict_obs:
            return {"observation": obs, "action_mask": masks_of(obs)}
        return obs

    def _infos(self, obs: torch.Tensor, ended: torch.Tensor, final: torch.Tensor | None,
               points: torch.Tensor | None, dealt: torch.Tensor | None,
               seat: torch.Tensor | None) -> dict[str, Any]:
        """Gymnasium's vector infos: each key with its ``"_key"`` mask of the tables that have it."""
        everywhere = torch.ones(self.num_envs, dtype=torch.bool, device=self.device)
        infos: dict[str, Any] = {"action_mask": masks_of(obs), "_action_mask": everywhere,
                                 "seat": self.seat, "_seat": everywhere}
        if points is not None and dealt is not None:
            infos["deal_points"], infos["_deal_points"] = points, dealt
        if final is not None and seat is not None:
            infos["final_obs"] = self._output(final) if self.dict_obs else final
            infos["_final_obs"] = ended
            infos["final_info"] = {"seat": seat, "_seat": ended, "deal_points": points, "_deal_points": ended}
            infos["_final_info"] = ended
        return infos

    def _export(self, out: Any) -> Any:
        """``out`` (tensors in tuples and dicts) as numpy arrays when ``arrays="numpy"``."""
        if self.arrays == "torch":
            return out
        if isinstance(out, torch.Tensor):
            return out.cpu().numpy()
        if isinstance(out, dict):
            return {k: self._export(v) for k, v in out.items()}
        return tuple(self._export(v) for v in out)


__all__ = [
    "ARRAYS",
    "FULL_OBS_SIZE",
    "SelfPlayEnv",
    "SixtySixVectorEnv",
    "policy_opponent",
]
