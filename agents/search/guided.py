"""Search guided by a network: weighted worlds, critic leaves, a policy prior.

One decision of the ``guided`` bot (:mod:`agents.guided`):

1. **Worlds.** Candidate worlds are sampled from the view
   (:func:`sixtysix_env.knowledge.sample_state`, or the rule-based
   :class:`~agents.search.inference.OpponentModel` with ``infer``) and each is
   weighted by how likely the opponent's observed moves were in it under the
   policy network (:mod:`agents.search.beliefs`, which says exactly what is
   used). The weights are normalized over the worlds searched.
2. **Values.** In every world, every legal action is valued for the player to
   move, in game points: by the exact solver when the world is in phase 2
   (talon closed or spent); otherwise after the action (``depth`` 1), or after
   the action and the opponent's best reply in that world (``depth`` 2, as
   pimc's minimax), at the leaf by the deal's result if it is over, the exact
   solver once the talon is spent (:func:`exact_leaf`), and else the
   network's critic, after a close too (``encode_full`` from the side of the
   player to act there, negated for the opponent). All critic leaves of a
   batch of worlds go through one numpy forward. With ``leaf`` "rollout"
   an open leaf is played on by the policy instead, until the talon is spent
   and the solver takes over (:mod:`agents.search.rollouts`). A close is
   charged pimc's ``CLOSE_MARGIN``.
3. **Choice.** ``score(a) = sum_w weight_w * value_w(a) + prior * log pi(a)``
   (``pi`` the policy on the bot's own view, floored at :data:`PRIOR_FLOOR`;
   no prior once the talon is spent, where the values are exact);
   the move is the best score (ties: declare, then the lowest id). The
   :class:`SearchResult` carries ``softmax(score / temp)`` over the legal
   moves (the bot's own move distribution), the weighted mean value of every
   legal move and the value of the move chosen. Self-play's policy target is
   :meth:`SearchResult.value_policy`: ``softmax(mean value / temp)``, the
   values alone. Not the prior: ``exp(score / temp)`` is ``exp(value / temp)
   * pi ** (prior / temp)``, the network's own policy sharpened, so a target
   with it teaches the policy its own preferences back, stronger (with
   ``prior`` 0.3 and ``temp`` 0.2, ``pi ** 1.5``), and where the values tie
   (an untrained critic) nothing else.

Anytime like pimc (:mod:`agents.search.budget`): with a deadline, batches of
worlds (single worlds where the solver does the work) until the budget less
its margin is used; without one exactly ``worlds`` worlds, deterministic for
the bot's seed. Once the talon is spent the view fixes every card: one world.

The critic predicts the deal's game points for a player (how training
books rewards: :mod:`agents.core.guide_net`), so its leaves share the scale of
deal results and solver values; it does not see the match score's stakes,
and neither does the rest of the search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sixtysix_env.actions import CLOSE, DECLARE, N_ACTIONS, actions_of
from sixtysix_env.engine import OVER, State
from sixtysix_env.knowledge import PlayerView, sample_state
from sixtysix_env.observation import FULL_OBS_SIZE, encode, encode_full_into

from ..core.guide_net import GuideNet
from ..core.rules import view_rule_action
from .beliefs import BETA, EPS, Beliefs, card_rows, lead_likelihoods
from .budget import MAX_UNITS, Deadline, OutOfTime
from .determinized import CLOSE_MARGIN, solvable
from .inference import OpponentModel
from .moves import MoveLog, draw, softmax
from .rollouts import rollout_values
from .solver import Solver, terminal_value

BATCH = 8  # worlds per unit of an anytime search (one forward for their leaves)
PRIOR = 0.3  # weight of log pi(a) in the score, game points
PRIOR_FLOOR = 1e-3  # pi below this counts as this: a bounded penalty
TEMP = 0.2  # softmax temperature of the bot's move distribution (score / TEMP), game points
VALUE_WORLDS = 4  # worlds the critic averages for the value of an obvious move
CRITIC, ROLLOUT = "critic", "rollout"
LEAVES = (CRITIC, ROLLOUT)  # how an open leaf is valued: the critic, or policy rollouts then the solver


@dataclass(frozen=True)
class SearchResult:
    """One decision: the move, the bot's move distribution ``softmax(score / temp)`` (float32
    (32,), over the legal moves, the prior included), the search's value of the position for the
    player to move (game points), the worlds searched, and the weighted mean value of each legal
    move (float32 (32,), 0 for the others; all 0 for a move played without search)."""

    action: int
    policy: np.ndarray
    value: float
    worlds: int
    action_values: np.ndarray
    prior: np.ndarray | None = None  # the network's policy on the bot's view (float32 (32,)); None: not asked

    def improved_policy(self, legal: list[int], temp: float) -> np.ndarray:
        """``softmax(log pi + action_values / temp)`` over ``legal``: the network's policy moved
        towards the search's values (a KL-regularized improvement step, as in MPO and Gumbel
        MuZero's completed-Q target). Where the values tie it is ``pi`` itself, not a sharpened
        ``pi`` (unlike ``softmax(score / temp)``), so it teaches the policy nothing the search did
        not find. Without a prior (the talon spent: exact values) it is :meth:`value_policy`."""
        if self.worlds == 0 or self.prior is None:
            return self.value_policy(legal, temp)
        log_pi = np.log(np.maximum(self.prior[legal].astype(np.float64), 1e-12))
        return softmax_policy(temp * log_pi + self.action_values[legal].astype(np.float64), legal, temp)

    def value_policy(self, legal: list[int], temp: float) -> np.ndarray:
        """``softmax(action_values / temp)`` over ``legal`` (float32 (32,)): what the search's values
        alone say of the moves, without the prior (self-play's policy target; the module docstring
        says why). A move played without search (``worlds`` 0) keeps its one-hot policy."""
        if self.worlds == 0:
            return self.policy
        return softmax_policy(self.action_values[legal].astype(np.float64), legal, temp)


def softmax_policy(score: np.ndarray, legal: list[int], temp: float) -> np.ndarray:
    """``softmax(score / temp)`` over the legal moves (``score[j]`` is ``legal[j]``'s) as a float32
    distribution over all 32 actions, 0 on the others."""
    z = np.exp((score - score.max()) / temp)
    policy = np.zeros(N_ACTIONS, dtype=np.float32)
    policy[legal] = z / z.sum()
    return policy


def one_hot(action: int, value: float, worlds: int = 0) -> SearchResult:
    """The result of a move played without weighing the others."""
    policy = np.zeros(N_ACTIONS, dtype=np.float32)
    policy[action] = 1.0
    return SearchResult(action, policy, value, worlds, np.zeros(N_ACTIONS, dtype=np.float32))


def exact_leaf(s: State) -> bool:
    """A leaf the solver values: the talon spent, where both players know every card. After a
    close with cards still face down the solver would know them too (strategy fusion makes a
    close look better than it is); the critic, trained on real play, values those leaves."""
    return s.stock == 0 and solvable(s)


class _Leaves:
    """The leaves of one batch: values known now, and states the critic values in one forward."""

    def __init__(self, player: int) -> None:
        self.player = player
        self.values: list[float] = []
        self.states: list[State] = []
        self.slots: list[int] = []  # value slot of each critic state

    def add(self, s: State, solver: Solver) -> int:
        """A slot holding the value of ``s`` for the player (filled by :meth:`finish` for the critic)."""
        slot = len(self.values)
        if s.window == OVER:
            self.values.append(terminal_value(s, self.player))
        elif exact_leaf(s):
            v = solver.solve(s)
            self.values.append(v if s.to_act == self.player else -v)
        else:
            self.values.append(0.0)
            self.states.append(s)
            self.slots.append(slot)
        return slot

    def finish(self, net: GuideNet, solver: Solver, leaf: str = CRITIC) -> np.ndarray:
        """Every slot's value: the open positions' by one critic forward, or by policy rollouts
        (``leaf`` :data:`ROLLOUT`, :mod:`agents.search.rollouts`)."""
        out = np.asarray(self.values, dtype=np.float64)
        if self.states and leaf == ROLLOUT:
            out[self.slots] = rollout_values(self.states, self.player, net, solver, exact_leaf)
        elif self.states:
            full = np.empty((len(self.states), FULL_OBS_SIZE), dtype=np.float32)
            signs = np.empty(len(self.states))
            for i, s in enumerate(self.states):
                encode_full_into(s, s.to_act, full[i])
                signs[i] = 1.0 if s.to_act == self.player else -1.0
            out[self.slots] = signs * net.values(full)
        return out


class GuidedSearch:
    """The search of one player (see the module docstring); keeps the per-deal beliefs."""

    def __init__(self, net: GuideNet, *, depth: int = 1, infer: bool = True, beta: float = BETA,
                 eps: float = EPS, prior: float = PRIOR, temp: float = TEMP, extended: bool = True,
                 leaf: str = CRITIC, sample: bool = False) -> None:
        if depth not in (1, 2):
            raise ValueError(f"depth must be 1 or 2, got {depth}")
        if leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, got {leaf!r}")
        self.leaf = leaf
        if not (0.0 <= beta <= 1.0 and 0.0 < eps <= 1.0 and prior >= 0.0 and temp > 0.0):
            raise ValueError(f"need 0 <= beta <= 1, 0 < eps <= 1, prior >= 0, temp > 0; got {beta}, {eps}, "
                             f"{prior}, {temp}")
        self.net = net
        self.depth, self.beta, self.eps, self.prior, self.temp = depth, beta, eps, prior, temp
        self.solver = Solver()
        self.model: OpponentModel | None = OpponentModel() if infer else None
        self.beliefs = Beliefs(extended)  # False: the opponent's leads alone (tests, benches)
        self.draw_moves = sample  # draw the move from the policy (and log it) instead of the best score
        self.moves = MoveLog()  # with sample: each drawn move's distribution, by view

    def reset(self) -> None:
        """A new match: forget the beliefs, the solver's tables and the logged distributions."""
        self.solver.clear()
        self.beliefs.reset()
        self.moves.clear()
        if self.model is not None:
            self.model.reset()

    def observe(self, v: PlayerView) -> int:
        """Read a view of the bot's own (every decision's, obvious ones too): the beliefs learn the
        opponent's follow of the bot's last lead, if shown; the lead to learn from or -1."""
        if self.model is not None:
            self.model.observe(v)
        lead = self.beliefs.observe(v)
        self.beliefs.settle_follow(self.net.policy_logits, self.beta, self.eps)
        return lead

    def sample(self, v: PlayerView, rng: Any) -> State:
        return self.model.sample(v, rng) if self.model is not None else sample_state(v, rng)

    def prior_policy(self, v: PlayerView, legal: list[int]) -> np.ndarray:
        """The policy's probabilities of the legal moves on the bot's own view."""
        z = self.net.policy_logits(encode(v)[None])[0, legal].astype(np.float64)
        p = np.exp(z - z.max())
        return p / p.sum()

    def position_value(self, v: PlayerView, rng: Any, worlds: int = VALUE_WORLDS) -> float:
        """The critic's mean value of the position over a few sampled worlds (no search)."""
        n = 1 if v.stock == 0 else worlds
        full = np.empty((n, FULL_OBS_SIZE), dtype=np.float32)
        for i in range(n):
            encode_full_into(self.sample(v, rng), v.player, full[i])
        return float(self.net.values(full).mean())

    def world_values(self, v: PlayerView, worlds: list[State], legal: list[int]) -> np.ndarray:
        """Values (game points for the player to move) of each legal action in each world,
        shape (len(worlds), len(legal))."""
        me = v.player
        solver = self.solver
        out = np.empty((len(worlds), len(legal)))
        leaves = _Leaves(me)
        groups: list[tuple[int, int, list[int]]] = []  # (world, action index, leaf slots: min over them)
        for i, w in enumerate(worlds):
            solver.check()  # with a deadline, stop in time
            if solvable(w):
                exact = solver.action_values(w)
                out[i] = [exact[a] for a in legal]
                continue
            for j, a in enumerate(legal):
                child = w.clone()
                child.apply_unchecked(a)
                if self.depth >= 2 and child.window != OVER and child.to_act != me and not exact_leaf(child):
                    slots = []
                    for b in actions_of(child.legal_mask()):
                        grand = child.clone()
                        grand.apply_unchecked(b)
                        slots.append(leaves.add(grand, solver))
                else:
                    slots = [leaves.add(child, solver)]
                groups.append((i, j, slots))
        if groups:
            values = leaves.finish(self.net, solver, self.leaf)
            for i, j, slots in groups:
                out[i, j] = values[slots].min()
        if CLOSE in legal:
            out[:, legal.index(CLOSE)] -= CLOSE_MARGIN
        return out

    def weights(self, v: PlayerView, worlds: list[State], lead: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Each world's weight (unnormalized), and its likelihood of the opponent's lead (None: no lead)."""
        unknown = card_rows([w.hands[1 - v.player] & ~v.opp_known for w in worlds])
        log_w = np.clip(self.beliefs.carried(v, unknown), -30.0, 30.0)
        weights = np.exp(log_w)
        lik = None
        if lead >= 0:
            lik = lead_likelihoods(worlds, lead, self.net.policy_logits, self.beta, self.eps,
                                   self.beliefs.close_window, self.beliefs.close_face_up)
            weights = weights * lik
        return weights, lik

    def remember(self, v: PlayerView, worlds: list[State], liks: list[np.ndarray], action: int) -> None:
        """After the search of ``v`` in ``worlds`` (``liks``: their likelihoods of the lead it
        follows, by batch; empty: none), the move ``action`` played: what the beliefs keep."""
        if liks:
            unknown = card_rows([x.hands[1 - v.player] & ~v.opp_known for x in worlds])
            self.beliefs.record(v.stock, unknown, np.concatenate(liks))
        self.beliefs.expect_follow(v, worlds, action)

    def run(self, v: PlayerView, rng: Any, worlds: int, deadline: Deadline | None) -> SearchResult:
        """Search the decision of ``v`` (not an obvious move: the caller plays those)."""
        lead = self.observe(v)
        legal = actions_of(v.legal_mask)
        if v.stock == 0:
            n = 1  # the view fixes every card: one world is exact
        else:
            n = worlds if deadline is None else MAX_UNITS
        total = np.zeros(len(legal))
        weight_sum = 0.0
        searched: list[State] = []  # for the beliefs
        liks: list[np.ndarray] = []
        done = 0
        while done < n:
            if deadline is None:
                size = n  # the fixed search: every world in one batch
            else:
                size = 1 if not v.talon_open else min(BATCH, n - done)
            batch = [self.sample(v, rng) for _ in range(size)]
            try:
                values = self.world_values(v, batch, legal)
            except OutOfTime:  # only with a deadline: the batch is dropped
                break
            w, lik = self.weights(v, batch, lead) if n > 1 else (np.ones(1), None)
            total += w @ values
            weight_sum += float(w.sum())
            searched += batch
            if lik is not None:
                liks.append(lik)
            done += size
            if deadline is not None and not deadline.more():
                break
        if not done:
            return one_hot(view_rule_action(v), 0.0)  # not even one batch in time: the rules of thumb
        mean = total / weight_sum
        score = mean  # once the talon is spent the values are exact: no prior
        prior = None
        if v.stock:
            pi = self.prior_policy(v, legal)
            prior = np.zeros(N_ACTIONS, dtype=np.float32)
            prior[legal] = pi
            if self.prior > 0:
                score = mean + self.prior * np.log(np.maximum(pi, PRIOR_FLOOR))
        best = max(range(len(legal)), key=lambda j: (score[j], legal[j] == DECLARE, -legal[j]))
        policy = softmax_policy(score, legal, self.temp)
        if self.draw_moves and len(legal) > 1:  # the move drawn from the policy, which is logged
            probs = softmax(zip(legal, score.tolist(), strict=True), self.temp)
            self.moves.record(v, probs, dict(zip(legal, mean.tolist(), strict=True)))
            best = legal.index(draw(probs, rng))
        action_values = np.zeros(N_ACTIONS, dtype=np.float32)
        action_values[legal] = mean
        value = float(mean[best])
        self.remember(v, searched, liks, legal[best])
        return SearchResult(legal[best], policy, value if math.isfinite(value) else 0.0, done, action_values,
                            prior)
