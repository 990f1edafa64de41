"""Self-play collection: ``num_envs`` tables play, the learner's decisions fill a rollout.

One collector (:func:`collect`) for both engines, over the small table
interface of :mod:`training.envs`. Each step every table takes one
decision. The learner's policy acts for both seats of self-play tables and
for one seat of tables against an opponent (:mod:`training.opponents`).
Illegal logits are masked by the project's one masked sampler
(:func:`sixtysix_env.batched.sampling.sample_masked`) and the mask is stored
with the transition, to be reused in the update. With ``assist`` the policy's seats
play obvious moves by rule (and the spent-talon endgame by the solver,
``assist='full'``); those are not learner steps, so learning is about the
real choices.

Each seat of each table is its own trajectory: a transition of player p
continues at p's next decision, and the reward of a deal (+-game points)
belongs to the last transition of each player, delivered at the deal's end
(:func:`record_rewards`; PettingZoo issue #1147 is the classic way to get
this wrong).

A rollout ends at an arbitrary step, and then each seat's latest transition
is still open: its successor is the seat's next own decision, which may lie
several moves ahead (the opponent is to act, or the seat's next moves are
scripted). Bootstrapping it from the critic's value of the current position
seen from that seat is wrong for the seat not to act: that input (my-turn bit
off, empty legal-action plane) is one the critic never trains on (issue 19).
So the open transition is not trained in this rollout. The transitions
before it in its seat's stream bootstrap from its stored value, the critic's
value at a decision of that very seat (:meth:`Rollout.open_ends`), and
:meth:`Rollout.clear` carries it into row ``p`` of the next rollout (rows
``0`` and ``1`` are the seats' carried transitions, steps start at row
:data:`CARRY`), where it continues at the seat's next learner decision, or
takes the deal's outcome if the deal ends first, exactly as inside a rollout.
This is simpler than playing ahead to the seat's next decision and needs no
change to GAE; the cost is that a carried row is trained one update later, its
log-prob from the policy one update older (PPO's ratio and clip allow for it).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from agents.core.rules import scripted_action
from agents.search.solver import Solver
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.batched.sampling import sample_masked
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.observation import OBS_SIZE

from .envs import Envs, Outcome
from .opponents import BOT, KIND_NAMES, KINDS, LEARNER, RANDOM, SNAPSHOT, Opponents
from .teacher import Teacher


@dataclass
class Batch:
    """The learner's rows of one rollout (:meth:`Rollout.learner_batch`), one row per decision."""

    obs: torch.Tensor
    critic_obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    teacher: torch.Tensor
    teacher_values: torch.Tensor
    labelled: torch.Tensor


CARRY = 2  # rows 0 and 1 of a rollout: seat 0's and seat 1's transitions carried over


class Rollout:
    """Time-major ``(CARRY + T, N, ...)`` buffers of one rollout, like CleanRL's
    plus two rows for the transitions carried over from the previous rollout
    (step t is row ``CARRY + t``); ``learn`` marks the rows that are steps of a
    learner trajectory (opponents' moves and, with ``assist``, the scripted
    moves are not)."""

    def __init__(self, T: int, N: int, critic_in: int) -> None:
        T += CARRY
        self.obs = np.zeros((T, N, OBS_SIZE), np.float32)
        self.critic_obs = np.zeros((T, N, critic_in), np.float32)
        self.masks = np.zeros((T, N, N_ACTIONS), bool)
        self.actions = np.zeros((T, N), np.int64)
        self.logprobs = np.zeros((T, N), np.float32)
        self.values = np.zeros((T, N), np.float32)
        self.rewards = np.zeros((T, N), np.float32)
        self.dones = np.zeros((T, N), bool)
        self.seats = np.zeros((T, N), np.int64)
        self.learn = np.zeros((T, N), bool)
        self.teacher = np.zeros((T, N), np.int64)  # the teacher's action on learner rows (kickstarting)
        self.teacher_values = np.zeros((T, N, N_ACTIONS), np.float32)  # or its action values
        self.labelled = np.zeros((T, N), bool)  # rows the teacher labelled
        self.last_t = np.full((N, 2), -1, np.int64)  # each seat's latest pending transition

    def open_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """After :func:`collect`, for GAE: the ``learn`` rows without each seat's
        open (pending) transition, and ``(N, 2)`` the stored value of that open
        transition (0 where none), the bootstrap of the seat's earlier rows."""
        closed = self.learn.copy()
        next_values = np.zeros(self.last_t.shape, np.float32)
        n, p = np.nonzero(self.last_t >= 0)
        closed[self.last_t[n, p], n] = False
        next_values[n, p] = self.values[self.last_t[n, p], n]
        return closed, next_values

    def learner_batch(self, adv: np.ndarray, ret: np.ndarray) -> Batch:
        """The learner's closed rows (:meth:`open_ends`), flattened, as tensors for the update."""
        sel = self.open_ends()[0].reshape(-1)

        def rows(x: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(x.reshape(len(sel), *x.shape[2:])[sel])

        return Batch(obs=rows(self.obs), critic_obs=rows(self.critic_obs), masks=rows(self.masks),
                     actions=rows(self.actions), logprobs=rows(self.logprobs), values=rows(self.values),
                     advantages=rows(adv), returns=rows(ret), teacher=rows(self.teacher),
                     teacher_values=rows(self.teacher_values), labelled=rows(self.labelled))

    def clear(self) -> None:
        """Start a rollout: carry each seat's open transition to row ``p``
        (:data:`CARRY`), forget the outcomes of the previous rollout (the rest
        is overwritten step by step)."""
        n, p = np.nonzero(self.last_t >= 0)
        k = self.last_t[n, p]
        for x in (self.obs, self.critic_obs, self.masks, self.actions, self.logprobs, self.values,
                  self.teacher, self.teacher_values, self.labelled):
            x[p, n] = x[k, n]
        self.learn[:CARRY] = False
        self.learn[p, n] = True
        self.seats[:CARRY] = np.arange(CARRY)[:, None]
        self.labelled[CARRY:] = False
        self.dones[:] = False
        self.rewards[:] = 0.0
        self.last_t[:] = -1
        self.last_t[n, p] = p


def record_rewards(
    t: int,
    seats: np.ndarray,
    learn: np.ndarray,
    deal_done: np.ndarray,
    step_rewards: np.ndarray,
    last_t: np.ndarray,
    rewards: np.ndarray,
    dones: np.ndarray,
) -> None:
    """Book step ``t``'s outcome on the transitions of the players who earned it.

    ``seats[n]`` acted at table n in step t (a trajectory step when
    ``learn[n]``); ``last_t[n, p]`` is the step of player p's latest pending
    transition at table n (-1: none in this rollout) and is updated here. When
    a deal ended (``deal_done``), each player's reward ``step_rewards[n, p]``
    goes to that player's own latest transition, which is marked done: the
    player who did not make the last move still gets its outcome.
    """
    rows = np.flatnonzero(learn)
    last_t[rows, seats[rows]] = t
    ended = np.flatnonzero(deal_done)
    for p in (0, 1):
        k = last_t[ended, p]
        ok = k >= 0
        rewards[k[ok], ended[ok]] += step_rewards[ended[ok], p]
        dones[k[ok], ended[ok]] = True
    last_t[ended] = -1


@dataclass
class Players:
    """The networks that play at the training tables: the learner's ``policy`` and ``critic``,
    and ``snapshot``, the frozen past policy of the snapshot tables."""

    policy: Callable[[torch.Tensor], torch.Tensor]
    critic: Callable[[torch.Tensor], torch.Tensor]
    snapshot: Callable[[torch.Tensor], torch.Tensor]


def collect(
    tables: Envs,
    opponents: Opponents,
    players: Players,
    buf: Rollout,
    rng: np.random.Generator,
    teacher: Teacher | None = None,
    assist: str = "none",
    drop_forced: bool = False,
) -> dict[str, list[float]]:
    """Fill ``buf`` with one rollout at ``tables`` (after the transitions it carries over,
    :meth:`Rollout.clear`); returns, per opponent kind, the learner's reward of every deal
    that ended (self-play: the winner's). ``teacher`` (or None) labels the learner's rows for
    kickstarting. ``assist`` (``Config.assist``) scripts the obvious moves of the policy's
    seats (``rules``) and, once the talon is spent, the exact endgame too (``full``).
    ``drop_forced``: a move with one legal action is not a learner step either (the policy
    still plays it)."""
    buf.clear()
    py_rng = random.Random(int(rng.integers(2**31))) if assist != "none" else None
    solver = Solver()
    deal_rewards: dict[str, list[float]] = {name: [] for name in KIND_NAMES}
    for t in range(CARRY, buf.rewards.shape[0]):  # t: a row
        seats = buf.seats[t] = tables.write(buf.obs[t], buf.critic_obs[t], buf.masks[t])
        mine = opponents.learns(seats)  # the learner's policy moves here
        learn = mine.copy()
        scripted: dict[int, int] = {}
        views: dict[int, PlayerView] = {}
        if py_rng is not None:  # the policy's seats: obvious moves (and the spent-talon endgame)
            rows = np.flatnonzero(mine | opponents.played_by(SNAPSHOT)).tolist()
            for n, v in zip(rows, tables.views(rows), strict=True):
                views[n] = v
                a = scripted_action(v, solver, py_rng, assist)
                if a is not None:
                    scripted[n] = a
                    learn[n] = False
        if drop_forced:
            learn &= buf.masks[t].sum(1) > 1
        buf.learn[t] = learn
        if teacher is not None:
            teacher.label(t, np.flatnonzero(learn).tolist(), tables, views)
        actions = buf.actions[t]
        actions[:] = choose(t, tables, opponents, players, buf, ~mine, rng)
        for n, a in scripted.items():
            actions[n] = a
        outcome = tables.step(actions)
        record_rewards(t, seats, learn, outcome.deal_done, outcome.rewards, buf.last_t, buf.rewards,
                       buf.dones)
        if outcome.deal_done.any():
            book_deals(outcome, tables.episode, opponents, deal_rewards)
    if teacher is not None:
        teacher.finish(buf.labelled, buf.teacher, buf.teacher_values)
    return deal_rewards


def choose(t: int, tables: Envs, opponents: Opponents, players: Players, buf: Rollout,
           theirs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Step ``t``'s action at every table: the policy's sample (its log-prob and the critic's
    value are stored in ``buf``), and at the opponents' seats (``theirs``) each opponent's move."""
    obs, masks = torch.from_numpy(buf.obs[t]), torch.from_numpy(buf.masks[t])
    with torch.inference_mode():
        actions, logp = sample_masked(players.policy(obs), masks)
        buf.values[t] = players.critic(torch.from_numpy(buf.critic_obs[t])).numpy()
        snap = np.flatnonzero(theirs & opponents.played_by(SNAPSHOT))
        if len(snap):
            idx = torch.from_numpy(snap)
            actions[idx] = sample_masked(players.snapshot(obs[idx]), masks[idx])[0]
    buf.logprobs[t] = logp.numpy()
    out = actions.numpy()
    rand = np.flatnonzero(theirs & opponents.played_by(RANDOM))
    if len(rand):
        out[rand] = uniform_legal(buf.masks[t][rand], rng)
    bots = np.flatnonzero(theirs & opponents.played_by(BOT)).tolist()
    for n, v in zip(bots, tables.views(bots), strict=True):
        out[n] = opponents.bot(n).act(v)
    return out


def uniform_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks``: the argmax of random keys on legal slots."""
    keys = rng.random(masks.shape)
    return np.argmax(np.where(masks, keys, -1.0), axis=1)


def book_deals(outcome: Outcome, episode: str, opponents: Opponents,
               deal_rewards: dict[str, list[float]]) -> None:
    """Add the learner's reward of each deal that just ended to its kind's list
    (self-play: the winner's), and draw new opponents where a match (or deal) ended."""
    self_play = opponents.played_by(LEARNER)
    for n in np.flatnonzero(outcome.deal_done).tolist():
        r = abs(outcome.rewards[n, 0]) if self_play[n] else outcome.rewards[n, opponents.learner_seat[n]]
        deal_rewards[opponents.name(n)].append(float(r))
    opponents.redraw(np.flatnonzero(outcome.match_done if episode == "match" else outcome.deal_done))


def reward_metrics(deal_rewards: dict[str, list[float]]) -> dict[str, float]:
    """``charts/reward_vs_<kind>``: the learner's mean points per deal against each opponent kind."""
    return {f"charts/reward_vs_{k.name}": float(np.mean(deal_rewards[k.name]))
            for k in KINDS if deal_rewards[k.name] and k.plays != LEARNER}
