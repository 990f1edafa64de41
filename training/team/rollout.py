"""Collecting team self-play: whole four-player deals, side by side, one network in every learner seat.

Each update deals ``deals_per_update`` fresh deals (deal ``i`` of update ``u``
from ``derive_seed(seed, "team-deal", u, i)``, dealer ``i % 4``) and plays
them in lockstep, so the network's moves at all tables are one batched
forward pass. At a ``self`` table the current network plays all four seats;
at a ``snapshot`` or ``bot`` table it plays one team (seats 0/2 or 1/3, drawn)
against a past snapshot or the bot team ``opp_bot_spec``. Only the current
network's decisions are learned from.

Each learner seat's decisions in a deal are one trajectory; the deal's result
is its last reward: the team's game points, +g for the winning team's seats,
-g for the others, 0 for a drawn deal (optionally shaped on card points,
``trick_shaping``). The trajectories are laid side by side as the columns of
:func:`training.gae.compute_gae`'s time-major arrays (each ends done).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.four import make_four_agent
from agents.four.net import critic_features
from agents.nets import PolicyNet, ValueNet, masked_distribution
from sixtysix_env.aec_four import encode_four
from sixtysix_env.four import FourState, team_of
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.scoring import WIN_SCORE
from sixtysix_env.seeding import derive_seed
from training.gae import compute_gae

from .config import TeamConfig

KINDS = ("self", "snapshot", "bot")
Position = tuple[int, Any, np.ndarray, np.ndarray]  # (table, the seat's view, observation, mask)


@dataclass
class TeamBatch:
    """An update's learner rows, with their advantages and returns."""

    obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    critic_obs: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor


def deal_result(state: FourState, team: int) -> float:
    """The finished deal's game points for ``team``: +g won, -g lost, 0 drawn."""
    r = state.result
    if r is None or r.winner is None:
        return 0.0
    return float(r.game_points if r.winner == team else -r.game_points)


def potential(state: FourState, team: int, coef: float) -> float:
    """The shaping potential of ``team``: coef x (its card points - the other team's) / 66."""
    return coef * (state.points[team] - state.points[1 - team]) / WIN_SCORE


def controllers(kind: str, learner_team: int) -> list[str]:
    """Who plays each seat at a table of ``kind``: ``learn``, ``snapshot`` or ``bot``."""
    if kind == "self":
        return ["learn"] * 4
    return ["learn" if team_of(s) == learner_team else kind for s in range(4)]


class Collector:
    """Plays an update's deals (:func:`collect`) and keeps every learner decision."""

    def __init__(self, cfg: TeamConfig, update: int, rng: np.random.Generator) -> None:
        n = cfg.deals_per_update
        w = cfg.opponent_weights()
        self.cfg = cfg
        self.kinds = rng.choice(KINDS, size=n, p=[w[k] for k in KINDS])
        learner_teams = rng.integers(0, 2, size=n)
        self.who = [controllers(str(k), int(t)) for k, t in zip(self.kinds, learner_teams, strict=True)]
        scores = rng.integers(0, 7, size=(n, 2)) if cfg.match_scores else np.zeros((n, 2), np.int64)
        self.states = [deal_four(derive_seed(cfg.seed, "team-deal", update, i), dealer=i % 4,
                                 match_scores=[int(x) for x in scores[i]]) for i in range(n)]
        self.bot = make_four_agent(cfg.opp_bot_spec, derive_seed(cfg.seed, "team-bot", update))
        self.rows: dict[str, list[Any]] = {
            k: [] for k in ("obs", "mask", "critic", "action", "logprob", "value", "reward")}
        self.trajs: dict[tuple[int, int], list[int]] = {}  # (table, seat) -> its rows in order
        self.phi: dict[tuple[int, int], float] = {}  # the potential at the trajectory's last row

    def step(self, policy: PolicyNet, critic: ValueNet, snapshot: PolicyNet) -> bool:
        """One move at every unfinished table; False when all are over."""
        live = [i for i, s in enumerate(self.states) if not s.is_over]
        if not live:
            return False
        groups: dict[str, list[Position]] = {"learn": [], "snapshot": [], "bot": []}
        for i in live:
            s = self.states[i]
            view = view_four(s, s.to_act)
            obs, mask = encode_four(view)
            groups[self.who[i][s.to_act]].append((i, view, obs, mask))
        moves: dict[int, int] = {}
        for i, view, _, _ in groups["bot"]:
            moves[i] = int(self.bot.act(view))
        if groups["snapshot"]:
            actions, _ = sample(snapshot, groups["snapshot"])
            moves.update(zip([g[0] for g in groups["snapshot"]], actions.tolist(), strict=True))
        if groups["learn"]:
            self.learn(policy, critic, groups["learn"], moves)
        for i, a in moves.items():
            self.states[i].apply(a)
        for i in live:
            if self.states[i].is_over:
                self.finish(i)
        return True

    def learn(self, policy: PolicyNet, critic: ValueNet, group: list[Position],
              moves: dict[int, int]) -> None:
        """The learner's moves at its tables, each recorded as a row of its seat's trajectory."""
        actions, logprobs = sample(policy, group)
        feats = np.stack([critic_features(obs, self.states[i], self.states[i].to_act)
                          for i, _, obs, _ in group])
        with torch.no_grad():
            values = critic(torch.from_numpy(feats)).numpy()
        r = self.rows
        for k, (i, _, obs, mask) in enumerate(group):
            s = self.states[i]
            key = (i, s.to_act)
            phi = potential(s, team_of(s.to_act), self.cfg.trick_shaping)
            if key in self.trajs:  # the shaping reward of the seat's previous decision
                r["reward"][self.trajs[key][-1]] += phi - self.phi[key]
            self.phi[key] = phi
            self.trajs.setdefault(key, []).append(len(r["action"]))
            r["obs"].append(obs)
            r["mask"].append(mask)
            r["critic"].append(feats[k])
            r["action"].append(int(actions[k]))
            r["logprob"].append(float(logprobs[k]))
            r["value"].append(float(values[k]))
            r["reward"].append(0.0)
            moves[i] = int(actions[k])

    def finish(self, i: int) -> None:
        """Table ``i``'s deal is over: each learner seat's last row gets the team's result."""
        s = self.states[i]
        for seat in range(4):
            rows = self.trajs.get((i, seat))
            if rows:
                self.rows["reward"][rows[-1]] += deal_result(s, team_of(seat)) - self.phi[(i, seat)]

    def learner_results(self) -> dict[str, list[float]]:
        """The learner team's game points per finished deal, by table kind (self tables: team 0's)."""
        out: dict[str, list[float]] = {k: [] for k in KINDS}
        for i, s in enumerate(self.states):
            team = 0 if self.kinds[i] == "self" else team_of(self.who[i].index("learn"))
            out[str(self.kinds[i])].append(deal_result(s, team))
        return out


def sample(net: PolicyNet, group: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    """A sampled action and its log-probability for each position of ``group``."""
    obs = torch.from_numpy(np.stack([g[2] for g in group]))
    masks = torch.from_numpy(np.stack([g[3] for g in group]).astype(bool))
    with torch.no_grad():
        dist = masked_distribution(net(obs), masks)
        actions = dist.sample()
        return actions.numpy(), dist.log_prob(actions).numpy()


def collect(cfg: TeamConfig, update: int, rng: np.random.Generator, policy: PolicyNet, critic: ValueNet,
            snapshot: PolicyNet) -> tuple[TeamBatch, dict[str, list[float]]]:
    """Play update ``update``'s deals; the learner rows with GAE and the results by table kind."""
    c = Collector(cfg, update, rng)
    while c.step(policy, critic, snapshot):
        pass
    return batch_of(c, cfg.gamma, cfg.gae_lambda), c.learner_results()


def batch_of(c: Collector, gamma: float, lam: float) -> TeamBatch:
    """The rows of ``c`` with advantages and returns: each trajectory one column of GAE's arrays."""
    trajs = list(c.trajs.values())
    length = max((len(t) for t in trajs), default=1)
    m = len(trajs)
    rewards, values = np.zeros((length, m), np.float32), np.zeros((length, m), np.float32)
    dones, learn = np.zeros((length, m), bool), np.zeros((length, m), bool)
    where = np.zeros((len(c.rows["action"]), 2), np.int64)
    for col, rows in enumerate(trajs):
        for t, row in enumerate(rows):
            rewards[t, col], values[t, col] = c.rows["reward"][row], c.rows["value"][row]
            learn[t, col] = True
            where[row] = (t, col)
        dones[len(rows) - 1, col] = True
    adv, ret = compute_gae(rewards, values, dones, np.zeros((length, m), np.int64), learn,
                           np.zeros((m, 2), np.float32), gamma, lam)
    r = c.rows
    at = (where[:, 0], where[:, 1])
    return TeamBatch(
        obs=torch.from_numpy(np.stack(r["obs"])), masks=torch.from_numpy(np.stack(r["mask"]).astype(bool)),
        actions=torch.tensor(r["action"]), logprobs=torch.tensor(r["logprob"], dtype=torch.float32),
        values=torch.tensor(r["value"], dtype=torch.float32),
        critic_obs=torch.from_numpy(np.stack(r["critic"])),
        advantages=torch.from_numpy(adv[at]), returns=torch.from_numpy(ret[at]))
