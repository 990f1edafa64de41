"""Self-play collection on the batched torch engine (``engine: batched``).

The rollout of :func:`training.rollout.collect`, with the tables stepped by
:class:`sixtysix_env.batched.vector.SelfPlayEnv` instead of the scalar
``VectorEnv``: one tensor step for all tables, observations and masks
written straight into the rollout's buffers (``torch.from_numpy`` views, no
copy), the policy and the critic run once per step for all tables. The
buffers, the per-seat trajectories, the carried transitions
(:class:`training.rollout.Rollout`) and the reward booking
(:func:`training.rollout.record_rewards`) are the scalar collector's, so GAE
and the update do not know which engine played.

Every opponent kind plays here. Bot opponents (``heuristic``, ``pimc``)
see their tables as scalar states (``BatchedEngine.states``: one gather per
field for all bot tables of a step, about 17 us a table with the view), so a
few bot tables cost little. ``assist`` and the teacher would need that for
every learner row and stay on the scalar engine (:func:`check_config` names
the key).
"""

from __future__ import annotations

import numpy as np
import torch

from agents.nets import PolicyNet, ValueNet
from sixtysix_env.batched.vector import SelfPlayEnv, sample_masked
from sixtysix_env.knowledge import view

from .config import Config, ConfigError
from .opponents import BOT, KINDS, RANDOM, SNAPSHOT, Opponents
from .rollout import CARRY, Rollout, book_deals, record_rewards, uniform_legal


def check_config(cfg: Config) -> None:
    """A ConfigError naming the key if ``cfg`` asks the batched engine for what needs views."""
    if cfg.assist != "none":
        raise ConfigError(f"engine 'batched' needs assist 'none' (scripted moves need the scalar "
                          f"engine's views), got {cfg.assist!r}")
    if cfg.teacher:
        raise ConfigError(f"engine 'batched' needs teacher '' (a teacher labels the scalar engine's "
                          f"views), got {cfg.teacher!r}")


def collect_batched(
    env: SelfPlayEnv,
    opponents: Opponents,
    policy: PolicyNet,
    critic: ValueNet,
    snapshot_net: PolicyNet,
    buf: Rollout,
    rng: np.random.Generator,
    drop_forced: bool = False,
) -> dict[str, list[float]]:
    """Fill ``buf`` with one rollout on the batched tables; returns, per opponent kind, the
    learner's reward of every deal that ended (as :func:`training.rollout.collect`).
    ``drop_forced``: a move with one legal action is not a learner step."""
    buf.clear()
    obs, critic_obs, masks = (torch.from_numpy(x) for x in (buf.obs, buf.critic_obs, buf.masks))
    cin = buf.critic_obs.shape[2]
    full = env.full_obs if env.full_obs is not None else env.obs
    deal_rewards: dict[str, list[float]] = {k.name: [] for k in KINDS}
    snap_tables, rand_tables, bot_tables = (opponents.played_by(k) for k in (SNAPSHOT, RANDOM, BOT))
    for t in range(CARRY, buf.rewards.shape[0]):
        critic_obs[t] = full[:, :cin]
        obs[t] = env.obs
        masks[t] = env.masks
        seats = buf.seats[t] = env.to_act.numpy()
        mine = opponents.learns(seats)  # the learner's policy moves here
        learn = buf.learn[t] = mine & (buf.masks[t].sum(1) > 1) if drop_forced else mine
        with torch.inference_mode():
            actions, logp = sample_masked(policy(obs[t]), masks[t])
            buf.values[t] = critic(critic_obs[t]).numpy()
            snap = np.flatnonzero(~mine & snap_tables)
            if len(snap):
                idx = torch.from_numpy(snap)
                actions[idx] = sample_masked(snapshot_net(obs[t][idx]), masks[t][idx])[0]
        buf.logprobs[t] = logp.numpy()
        acts = buf.actions[t]
        acts[:] = actions.numpy()
        rand = np.flatnonzero(~mine & rand_tables)
        if len(rand):
            acts[rand] = uniform_legal(buf.masks[t][rand], rng)
        bots = np.flatnonzero(~mine & bot_tables).tolist()
        for n, state in zip(bots, env.engine.states(bots), strict=True):
            acts[n] = opponents.bot(n).act(view(state, state.to_act))
        env.step(torch.from_numpy(acts))
        deal_done = env.deal_done.numpy()
        record_rewards(t, seats, learn, deal_done, env.rewards.numpy(), buf.last_t, buf.rewards, buf.dones)
        if deal_done.any():
            book_deals(deal_done, env.match_done.numpy(), env.rewards.numpy(), env.episode, opponents,
                       deal_rewards)
            snap_tables, rand_tables, bot_tables = (opponents.played_by(k) for k in (SNAPSHOT, RANDOM, BOT))
    return deal_rewards
