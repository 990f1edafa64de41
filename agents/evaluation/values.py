"""Value functions for the variance-reduced estimator (:mod:`agents.evaluation.aivat`).

A value function maps a deal in progress to an estimate of its result in
game points for seat 0 (zero-sum: seat 1's value is the negation). The
estimator stays unbiased whatever the function returns, with one contract:
**it may read both hands, the public history and the cards already drawn,
never the order of the talon cards still face down** (the estimator calls
it on states whose undrawn talon is in an arbitrary order). The better it
predicts the deal's result, the more variance the corrections remove.

- :func:`heuristic_value`: a linear model of hand and score features, one
  weight vector per talon stage, fitted offline on self-play
  (``bench/fit_variance_value.py`` prints :data:`WEIGHTS`). Microseconds.
- :class:`SolverValue`: the exact perfect-information value from
  :class:`~agents.search.solver.Solver` wherever both hands and the public
  history fix every card that can still be played (talon closed or spent),
  the heuristic before. Legitimate because the arena knows the full state.
- :class:`RolloutValue`: the mean result of a few heuristic-v-heuristic
  playouts from the state, each over a fresh shuffle of the face-down cards
  (so it reads their set, never their order); a fixed function of the
  state. About a millisecond per playout.
- :class:`CriticValue`: the shipped ppo checkpoint's full-state critic,
  the face-down cards sorted first (their set, not their order).
- ``own``: ``solver`` for the chance terms; the decisions of bots with a
  known policy valued by playouts of copies of the seated bots on the true
  cards (:func:`own_move_value`): a value of *their* play, not of perfect
  play.

``rollout-true`` and ``critic-true`` read the true talon order: they may
value the decision terms only (``make_value(name, moves_only=True)``).
None of these narrows the black-box pairings much more than ``solver``
(docs/variance.md), which stays the default.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

from sixtysix_env.cards import ACE, KQ, POINTS, SUIT_MASKS, TEN
from sixtysix_env.engine import OVER, TALON_SIZE, State
from sixtysix_env.knowledge import view

from ..heuristic import HeuristicAgent
from ..search.solver import Solver

ValueFn = Callable[[State], float]

MAX_VALUE = 3.0  # a deal is worth at most 3 game points

# Feature names, each "seat 0 minus seat 1" (so the model is zero-sum with no intercept).
FEATURES = (
    "score",          # deal score / 10 (card points + counted marriages)
    "pending",        # marriage points shown but not counted yet (no trick) / 10
    "hand_points",    # card points in hand / 10
    "trumps",         # trumps in hand
    "high_trumps",    # trump ace and ten in hand
    "side_aces",      # non-trump aces in hand
    "marriages",      # K+Q of a suit held and not shown: 2 (4 for trumps)
    "has_trick",      # 1 once the player took a trick
    "on_lead",        # 1 for the player on lead
    "closer",         # 1 for the player who closed the talon
    "near_win",       # 1 when the deal score is at least 66
)

# One weight vector per talon stage (see :func:`stage`), fitted by
# bench/fit_variance_value.py on self-play of the built-in bots.
WEIGHTS: dict[str, tuple[float, ...]] = {
    "open12": (0.4631, 0.3254, 0.1563, 0.3389, -0.0826, 0.0647, 0.1204, -0.0799, -0.0165, 0.0, 0.0),
    "open10": (0.3704, 0.3679, 0.2115, 0.3488, -0.0407, 0.0934, 0.1554, 0.3841, -0.1264, 0.0, 0.0778),
    "open8": (0.3538, 0.3573, 0.1555, 0.3129, 0.0855, 0.1581, 0.2, 0.5096, -0.0548, 0.0, 0.2203),
    "open6": (0.356, 0.3821, 0.1201, 0.2854, 0.184, 0.2421, 0.2174, 0.6757, -0.0251, 0.0, -0.1147),
    "open4": (0.3272, 0.5572, 0.0837, 0.2783, 0.205, 0.2778, 0.1819, 0.7614, 0.0305, 0.0, 0.1876),
    "open2": (0.292, 0.1734, 0.0366, 0.2737, 0.2684, 0.3624, 0.088, 0.6619, 0.016, 0.0, 0.3316),
    "closed": (0.4195, 0.1266, 0.0776, 0.3926, 0.2706, 0.2706, -0.0812, -0.2929, 0.4092, -0.8994, 0.2072),
    "spent": (0.1975, -0.513, -0.0062, 0.2688, 0.3264, 0.2871, 0.0268, 0.5749, 0.3026, 0.0, 0.4327),
}


def stage(state: State) -> str:
    """The talon stage a weight vector belongs to: "open<stock>", "closed" or "spent"."""
    if state.closed_by >= 0:
        return "closed"
    if state.stock == 0:
        return "spent"
    return f"open{state.stock}"


def _side(state: State, p: int) -> list[float]:
    hand = state.hands[p]
    trump = state.trump
    trumps = hand & SUIT_MASKS[trump]
    hand_points = 0
    h = hand
    while h:
        low = h & -h
        hand_points += POINTS[low.bit_length() - 1]
        h ^= low
    side_aces = sum(1 for s in range(4) if s != trump and hand >> (6 * s + ACE) & 1)
    marriages = 0
    for s in range(4):
        if hand & KQ[s] == KQ[s] and not state.shown[p] >> s & 1:
            marriages += 4 if s == trump else 2
    score = state.score(p)
    pending = 0 if state.tricks[p] else state.marriage_points(p)
    return [
        score / 10,
        pending / 10,
        hand_points / 10,
        float(bin(trumps).count("1")),
        float((trumps >> (6 * trump + TEN)) & 1) + float((trumps >> (6 * trump + ACE)) & 1),
        float(side_aces),
        float(marriages),
        1.0 if state.tricks[p] else 0.0,
        1.0 if state.leader == p else 0.0,
        1.0 if state.closed_by == p else 0.0,
        1.0 if score >= 66 else 0.0,
    ]


def features(state: State) -> list[float]:
    """The :data:`FEATURES` of ``state``, seat 0 minus seat 1."""
    a, b = _side(state, 0), _side(state, 1)
    return [x - y for x, y in zip(a, b, strict=True)]


HAND_FEATURES = tuple(FEATURES.index(f) for f in
                      ("hand_points", "trumps", "high_trumps", "side_aces", "marriages"))
EARLY_STOCK = 8  # basis groups: draws that leave at least this many talon cards, and later ones


def hand_basis(state: State) -> list[float]:
    """The hand features (the ones a draw changes) in one of two slots, early or late talon.

    The estimator's ``basis``: their chance luck lets a regression fit the
    best linear value function for the bots at hand (docs/variance.md).
    """
    f = features(state)
    x = [f[i] for i in HAND_FEATURES]
    zeros = [0.0] * len(x)
    return x + zeros if state.stock >= EARLY_STOCK else zeros + x


def terminal_value(state: State) -> float:
    """The result of a finished deal in game points for seat 0."""
    res = state.result
    if res is None:
        raise ValueError("the deal is not over")
    if res.winner is None:
        return 0.0
    return float(res.game_points if res.winner == 0 else -res.game_points)


def heuristic_value(state: State) -> float:
    """Linear estimate of the result for seat 0, clipped to the game-point scale."""
    if state.window == OVER:
        return terminal_value(state)
    w = WEIGHTS.get(stage(state))
    if w is None:
        return 0.0
    v = sum(wi * fi for wi, fi in zip(w, features(state), strict=True))
    return max(-MAX_VALUE, min(MAX_VALUE, v))


class SolverValue:
    """Exact perfect-information value once the talon is closed or spent, ``fallback`` before.

    Closed or spent, every card that can still be played is in a hand, so
    the solver's value reads nothing hidden. ``open_last``: also solve the
    last open stage (two talon cards left: the face-down one is the only
    card unseen, so the state is fixed too); exact but slower.
    """

    def __init__(self, fallback: ValueFn = heuristic_value, open_last: bool = False) -> None:
        self.fallback = fallback
        self.open_last = open_last
        self.solver = Solver()
        self.cache: dict[tuple[Any, ...], float] = {}

    def fixed(self, state: State) -> bool:
        """True where both hands and the public history fix every playable card."""
        return state.closed_by >= 0 or state.stock == 0 or (self.open_last and state.stock == 2)

    def __call__(self, state: State) -> float:
        if state.window == OVER:
            return terminal_value(state)
        if not self.fixed(state):
            return self.fallback(state)
        key = (tuple(state.hands), tuple(state.points), tuple(state.tricks), tuple(state.shown), state.stock,
               state.closed_by, state.closer_opp_tricks, state.trump_card, state.window, state.to_act,
               state.lead_card, state.marriage_suit, state.can_declare)
        v = self.cache.get(key)
        if v is None:
            if len(self.cache) > 200_000:  # bounded: a long run must not grow without end
                self.cache.clear()
                self.solver.clear()
            s = self.solver.solve(state)
            v = float(s if state.to_act == 0 else -s)
            self.cache[key] = v
        return v

    def reset(self) -> None:
        """Free the tables (between deals)."""
        self.cache.clear()
        self.solver.clear()


class RolloutValue:
    """Mean result of ``playouts`` playouts of the rest of the deal, heuristic v heuristic by default.

    Before each playout the face-down talon cards are put in sorted order and
    shuffled by an RNG seeded with ``seed`` and the playout's number alone:
    the value depends on which cards are face down, never on their order
    (the estimator's contract), and is a fixed function of the state. The
    same shuffles serve every state, so the values of two outcomes of one
    draw share their playout noise (common random numbers), which keeps the
    draw terms' own noise small. With the default bots, once the talon is
    closed or spent a playout is deterministic and is played once.

    ``true_order``: the talon as it lies. It reads the face-down order, so it
    may serve the decision terms only (``move_value`` of
    :func:`~agents.evaluation.aivat.correct_deal`), never the chance terms.
    ``bots``: the two seats' playout bots instead of the heuristic (e.g.
    copies of the bots measured: then the value estimates their own result);
    each is reset with a seed of ``seed`` and the playout's number before
    each playout, so the value stays a fixed function of the state.
    """

    def __init__(self, playouts: int = 4, seed: int = 0, true_order: bool = False,
                 bots: tuple[Any, Any] | None = None) -> None:
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, got {playouts}")
        self.deterministic = bots is None
        self.playouts = 1 if true_order and self.deterministic else playouts
        self.seed = seed
        self.true_order = true_order
        self.bots = bots if bots is not None else (HeuristicAgent(),) * 2

    def playout(self, state: State, k: int) -> float:
        s = state.clone()
        if s.stock > 1 and s.closed_by < 0 and not self.true_order:
            i = TALON_SIZE - s.stock
            hidden = sorted(s.talon[i:TALON_SIZE - 1])
            random.Random(self.seed * 1_000_003 + k).shuffle(hidden)
            s.talon = s.talon[:i] + tuple(hidden) + s.talon[TALON_SIZE - 1:]
        if not self.deterministic:
            for p, bot in enumerate(self.bots):
                bot.reset(self.seed * 1_000_003 + 2 * k + p)
        while s.window != OVER:
            s.apply_unchecked(self.bots[s.to_act].act(view(s, s.to_act)))
        return terminal_value(s)

    def __call__(self, state: State) -> float:
        if state.window == OVER:
            return terminal_value(state)
        random_talon = state.stock > 2 and state.closed_by < 0 and not self.true_order
        n = self.playouts if random_talon or not self.deterministic else 1
        return sum(self.playout(state, k) for k in range(n)) / n

    def reset(self) -> None:
        """Free the bots' tables (between deals)."""
        for bot in self.bots:
            bot.reset()


class CriticValue:
    """The shipped ppo checkpoint's full-state critic, antisymmetrized: ``(C(s, 0) - C(s, 1)) / 2``.

    The critic reads ``encode_full`` (both hands and the talon's contents and
    order) and predicts the player's remaining game points of the match.
    Without ``true_order`` the face-down cards are put in sorted order first,
    so it reads their set only (a chance value); with it, decision terms only.
    Tens of microseconds per call (numpy).
    """

    def __init__(self, path: str | None = None, true_order: bool = False) -> None:
        import numpy as np  # numpy and torch only where the critic is wanted

        from sixtysix_env.observation import encode_full

        from ..core import checkpoint
        from ..core.nets import ValueNet, numpy_forward, numpy_layers

        source = checkpoint.DEFAULT_CHECKPOINT if path is None else path
        ckpt = checkpoint.load(source)
        if "critic" not in ckpt or not ckpt.get("config", {}).get("full_critic", False):
            raise ValueError(f"checkpoint {source} holds no full-state critic")
        hidden = ckpt["config"].get("critic_hidden", (256, 256))
        net = ValueNet(int(ckpt["critic"]["net.0.weight"].shape[1]), hidden)
        net.load_state_dict(ckpt["critic"])
        self.layers = numpy_layers(net.net)
        self.encode = encode_full
        self.forward = numpy_forward
        self.stack = np.stack
        self.true_order = true_order

    def __call__(self, state: State) -> float:
        if state.window == OVER:
            return terminal_value(state)
        s = state
        if s.stock > 2 and s.closed_by < 0 and not self.true_order:
            s = state.clone()
            i = TALON_SIZE - s.stock
            s.talon = s.talon[:i] + tuple(sorted(s.talon[i:TALON_SIZE - 1])) + s.talon[TALON_SIZE - 1:]
        c = self.forward(self.layers, self.stack([self.encode(s, 0), self.encode(s, 1)]))
        return float(c[0, 0] - c[1, 0]) / 2


OWN = "own"  # solver for chance; known decisions by playouts of copies of the seated bots (own_move_value)
OWN_PLAYOUTS = 16
VALUE_NAMES = ("heuristic", "solver", "solver-last", "rollout", "critic", OWN)
MOVE_VALUE_NAMES = VALUE_NAMES + ("rollout-true", "critic-true")  # read the true state: decision terms only


def make_value(name: str, moves_only: bool = False) -> ValueFn:
    """The value function of an option name (:data:`VALUE_NAMES`; with ``moves_only``, for the decision
    terms alone, also :data:`MOVE_VALUE_NAMES`)."""
    if name == "heuristic":
        return heuristic_value
    if name in ("solver", OWN):
        return SolverValue()
    if name == "solver-last":
        return SolverValue(open_last=True)
    if name == "rollout":
        return RolloutValue()
    if name == "rollout-true" and moves_only:
        return RolloutValue(true_order=True)
    if name == "critic":
        return CriticValue()
    if name == "critic-true" and moves_only:
        return CriticValue(true_order=True)
    if name in MOVE_VALUE_NAMES:
        raise ValueError(f"value function {name!r} reads the face-down talon order: decision terms only")
    names = MOVE_VALUE_NAMES if moves_only else VALUE_NAMES
    raise ValueError(f"unknown value function {name!r}; choose one of {', '.join(names)}")


def own_move_value(agents: Sequence[Any], playouts: int = OWN_PLAYOUTS,
                   seed: int = 0) -> RolloutValue | None:
    """The decision terms' value of ``own``: ``playouts`` playouts of copies of the seated bots (seat
    order) from the true state, reseeded per playout (common random numbers across the moves
    compared), so it estimates the result of *their* play. It reads the face-down order: decision
    terms only. None unless every bot declares ``action_probabilities`` (the cheap in-process bots
    whose copies play as they do; a search bot's playouts would cost its whole search)."""
    if not all(callable(getattr(a, "action_probabilities", None)) for a in agents):
        return None
    c0, c1 = (copy.deepcopy(a) for a in agents)
    return RolloutValue(playouts, seed, true_order=True, bots=(c0, c1))
