"""AIVAT-style correction of one played deal: its result minus the luck a value function sees.

The estimator replays a finished deal (its first state and its actions) and
adds up zero-mean *luck terms*, each the change of a value estimate ``V``
(game points for seat 0, :mod:`agents.evaluation.values`) that chance or a
known policy alone explains:

- **the deal**: the two hands are exchangeable (a uniform shuffle gives the
  cards of seat 0 and seat 1 with the same law, dealer, trump card and
  talon fixed), so ``(V(s) - V(s with the hands swapped)) / 2`` has mean
  exactly zero;
- **each draw**: when the talon is open and more than one card lies face
  down, "continue" deals the next two talon cards; the term is
  ``V(after the actual draw) - mean V(after each ordered pair of unseen
  cards)``. Given everything both players hold and everything public, the
  face-down cards are in uniformly random order, so the mean over all
  ordered pairs is the exact expectation (the last draw, with one card
  face down, is fixed and has no term);
- **each decision of a bot with a known policy** (``policies[seat]`` gives
  its move probabilities): ``V(after the chosen move) - sum_a pi(a) V(after
  a)``, where the value after "continue" is the mean over the draws;
- **each decision of a bot that can be asked again** (``samplers[seat]``
  returns moves drawn afresh from the same view, e.g. a copy of a
  stochastic in-process bot with a new seed): ``V(after the chosen move) -
  mean V(after each sampled move)``. Chosen and sampled moves are drawn
  from the same distribution, so the mean is an unbiased stand-in for
  ``sum_a pi(a) V(after a)`` and the term has mean zero too.

``corrected = result - sum(terms)``. Each term has conditional mean zero
given the history before it, so the corrected result has the same
expectation as the plain one whatever ``V`` is, provided ``V`` reads no
face-down talon order and the bots do not see the hidden state (the oracle
does: its deals must not be corrected). A good ``V`` makes the corrected
result much less variable. See docs/variance.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

from sixtysix_env.actions import CONTINUE, N_ACTIONS, describe_action
from sixtysix_env.engine import DRAW, OVER, TALON_SIZE, State
from sixtysix_env.knowledge import PlayerView, view

from .values import ValueFn, terminal_value

Policy = Callable[[PlayerView], "Mapping[int, float] | None"]
Basis = Callable[[State], Sequence[float]]
Sampler = Callable[[PlayerView], Sequence[int]]
OwnValues = Callable[[PlayerView], "Mapping[int, float] | None"]
PROBABILITY_TOLERANCE = 1e-6
DEAL, DRAW_TERM, ACTION, SAMPLED = "deal", "draw", "action", "sampled"
KINDS = (DEAL, DRAW_TERM, ACTION, SAMPLED)


class PolicyError(ValueError):
    """A bot's move probabilities are not a distribution over its legal moves, or miss its move."""


@dataclass(frozen=True)
class Term:
    """One luck term: its kind (deal, draw, action), the action's index in the deal (-1: the deal),
    the seat that acted (-1: chance) and its value in game points for seat 0."""

    kind: str
    index: int
    seat: int
    value: float


@dataclass(frozen=True)
class DealCorrection:
    """A finished deal's plain result and its luck terms, in game points for seat 0."""

    result: float
    terms: tuple[Term, ...]
    basis_luck: tuple[float, ...] = ()  # the chance luck of each basis function (see correct_deal)

    @property
    def luck(self) -> float:
        return math.fsum(t.value for t in self.terms)

    @property
    def corrected(self) -> float:
        return self.result - self.luck

    def luck_vector(self, seat: int) -> list[float]:
        """For ``seat``: the luck of the deal, the draws and the known decisions, then ``basis_luck``
        (the regressors of :func:`agents.evaluation.regression.cross_fitted`)."""
        sign = 1.0 if seat == 0 else -1.0
        kinds = [math.fsum(t.value for t in self.terms if t.kind == k) for k in KINDS]
        return [sign * x for x in kinds + list(self.basis_luck)]

    def for_seat(self, seat: int) -> tuple[float, float]:
        """(plain, corrected) game points for ``seat``."""
        sign = 1.0 if seat == 0 else -1.0
        return sign * self.result, sign * self.corrected


def swapped_hands(state: State) -> State:
    """The deal with the two hands exchanged (same dealer, trump card and talon)."""
    s = state.clone()
    s.hands = [state.hands[1], state.hands[0]]
    return s


def deal_term(state: State, value: ValueFn) -> float:
    """The deal's luck for seat 0: ``(V(s) - V(swapped hands)) / 2`` (mean zero by exchangeability)."""
    return (value(state) - value(swapped_hands(state))) / 2


def is_chance_draw(state: State, action: int) -> bool:
    """True when ``action`` draws talon cards whose order is still random (two or more face down)."""
    return state.window == DRAW and action == CONTINUE and state.stock > 2


def draw_outcomes(state: State) -> list[State]:
    """Every equally likely state after "continue" in ``state``: one per ordered pair of face-down cards.

    The face-down cards are ``talon[i:11]`` (``talon[11]``, the face-up trump
    card or the nine exchanged for it, comes last); the drawer takes the
    first of the pair, the other player the second.
    """
    if not is_chance_draw(state, CONTINUE):
        raise ValueError("draw_outcomes needs a draw window with two or more face-down cards")
    i = TALON_SIZE - state.stock
    hidden = state.talon[i:TALON_SIZE - 1]
    out = []
    for c1, c2 in permutations(hidden, 2):
        rest = tuple(c for c in hidden if c != c1 and c != c2)
        s = state.clone()
        s.talon = state.talon[:i] + (c1, c2) + rest + state.talon[TALON_SIZE - 1:]
        s.apply_unchecked(CONTINUE)
        out.append(s)
    return out


def expected_after_draw(state: State, value: ValueFn) -> float:
    """Exact expectation of ``V`` over the draw "continue" makes in ``state``."""
    vals = [value(s) for s in draw_outcomes(state)]
    return math.fsum(vals) / len(vals)


def mean_vector(rows: Sequence[Sequence[float]]) -> list[float]:
    return [math.fsum(col) / len(rows) for col in zip(*rows, strict=True)]


Expectation = Callable[[State, ValueFn], float]


def sampled_expectation(rng: random.Random, k: int) -> Expectation:
    """An unbiased stand-in for :func:`expected_after_draw`: the mean of ``V`` over ``k`` draws picked
    uniformly (with replacement) by ``rng``, the estimator's own. For costly value functions."""
    if k < 1:
        raise ValueError(f"draw samples must be at least 1, got {k}")

    def expect(state: State, value: ValueFn) -> float:
        outcomes = draw_outcomes(state)
        return math.fsum(value(outcomes[rng.randrange(len(outcomes))]) for _ in range(k)) / k

    return expect


def value_after(state: State, action: int, value: ValueFn,
                expect: Expectation = expected_after_draw) -> float:
    """``V`` after ``action``; after a random draw, its expectation over the draws (``expect``)."""
    if is_chance_draw(state, action):
        return expect(state, value)
    child = state.clone()
    child.apply_unchecked(action)
    return value(child)


def check_probabilities(probs: Mapping[int, float], v: PlayerView, chosen: int, who: str) -> dict[int, float]:
    """The nonzero move probabilities, checked: a distribution over legal moves that includes ``chosen``."""
    if not isinstance(probs, Mapping):
        raise PolicyError(f"{who}: move probabilities must be a dict of action: probability, "
                          f"got {type(probs).__name__}")
    out: dict[int, float] = {}
    for key, p in probs.items():
        a = -1 if isinstance(key, bool) or not hasattr(key, "__index__") else key.__index__()
        if not (0 <= a < N_ACTIONS and v.legal_mask >> a & 1):
            raise PolicyError(f"{who}: move probability for an illegal action {describe_action(key)}")
        try:
            p = float(p)
        except (TypeError, ValueError):
            p = math.nan
        if not (math.isfinite(p) and p >= 0):
            raise PolicyError(f"{who}: move probability {p!r} for {describe_action(a)} is not in [0, 1]")
        if p > 0:
            out[a] = p
    total = math.fsum(out.values())
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise PolicyError(f"{who}: move probabilities sum to {total:.9g}, not 1")
    if chosen not in out:
        raise PolicyError(f"{who}: played {describe_action(chosen)}, to which it gave probability 0")
    return out


def action_term(state: State, action: int, probs: Mapping[int, float], value: ValueFn,
                expect: Expectation = expected_after_draw) -> float:
    """``V(after action) - sum_a pi(a) V(after a)``; zero for a move played with probability 1."""
    if len(probs) == 1:
        return 0.0
    total = math.fsum(probs.values())
    after = {a: value_after(state, a, value, expect) for a in probs}
    return after[action] - math.fsum(p * after[a] for a, p in probs.items()) / total


def sampled_term(state: State, action: int, samples: Sequence[int], legal_mask: int, value: ValueFn,
                 who: str, expect: Expectation = expected_after_draw) -> float:
    """``V(after action) - mean V(after each sample)``; zero when every sample is the chosen move."""
    if not samples:
        raise PolicyError(f"{who}: the sampler returned no moves")
    for s in samples:
        if isinstance(s, bool) or not hasattr(s, "__index__") or not legal_mask >> s.__index__() & 1:
            raise PolicyError(f"{who}: the sampler returned an illegal move {describe_action(s)}")
    if all(s == action for s in samples):
        return 0.0
    mean = math.fsum(value_after(state, s.__index__(), value, expect) for s in samples) / len(samples)
    return value_after(state, action, value, expect) - mean


def decision_term(state: State, i: int, a: int, bot: tuple[Policy | None, Sampler | None, OwnValues | None],
                  mv: ValueFn, expect: Expectation) -> Term | None:
    """The luck term of decision ``i`` (move ``a``) of the player to act, whose known policy, sampler
    and own move values are ``bot``; None for no term."""
    policy, sampler, own = bot
    p = state.to_act
    v = view(state, p)
    probs = policy(v) if policy is not None else None
    if probs is not None:
        probs = check_probabilities(probs, v, a, f"the policy of seat {p}")
        q = own(v) if own is not None and len(probs) > 1 else None
        if q is not None:
            t = own_term(a, probs, q, f"the move values of seat {p}") * (1.0 if p == 0 else -1.0)
        else:
            t = action_term(state, a, probs, mv, expect)
        return Term(ACTION, i, p, t) if t else None
    if sampler is not None:
        t = sampled_term(state, a, sampler(v), v.legal_mask, mv, f"the sampler of seat {p}", expect)
        return Term(SAMPLED, i, p, t) if t else None
    return None


def own_term(action: int, probs: Mapping[int, float], q: Mapping[int, float], who: str) -> float:
    """``q(action) - sum_a pi(a) q(a)`` for the player to act; ``q`` must value every move of ``probs``."""
    if not isinstance(q, Mapping) or not all(
            a in q and isinstance(q[a], int | float) and math.isfinite(q[a]) for a in probs):
        raise PolicyError(f"{who}: need a finite value for every move of the distribution")
    return float(q[action]) - math.fsum(p * float(q[a]) for a, p in probs.items())


def correct_deal(
    start: State,
    actions: Sequence[int],
    value: ValueFn,
    policies: Sequence[Policy | None] = (None, None),
    *,
    with_deal_term: bool = True,
    basis: Basis | None = None,
    samplers: Sequence[Sampler | None] = (None, None),
    expect: Expectation = expected_after_draw,
    move_value: ValueFn | None = None,
    own_values: Sequence[OwnValues | None] = (None, None),
) -> DealCorrection:
    """Replay one deal from ``start`` (its first state) through ``actions`` and collect its luck terms.

    ``policies[seat]``: the move probabilities of a bot whose policy the
    arena knows (a function of the view alone), or None for a black box;
    ``samplers[seat]`` (used where there is no policy): fresh draws of the
    bot's move from a view.
    Raises ``ValueError`` (``IllegalActionError``) for an illegal action,
    ``PolicyError`` for bad probabilities, and ``ValueError`` when the
    actions do not finish the deal.

    ``basis`` (optional): functions of the state (same contract as ``V``)
    whose chance luck is summed coordinate by coordinate into
    ``basis_luck``, the deal and the draws alike. Each coordinate has mean
    zero too, so a regression may weigh them afterwards
    (:mod:`agents.evaluation.regression`): in effect the best linear ``V``.

    ``expect``: how the expectation of ``V`` over a draw is taken, exact
    (the default) or :func:`sampled_expectation` for a costly ``V``.

    ``move_value`` (default ``value``): the value used by the decision
    terms (known policies, samplers) alone. Unlike ``value`` it may read the
    whole true state, the face-down order too: a bot draws its move from
    its view with its own randomness, independently of that order, so the
    term's mean is zero given the full state.

    ``own_values[seat]``: the values (game points for the player to act) a
    search bot formed its declared move distribution from; where given for
    a decision, its term is ``q(chosen) - sum_a pi(a) q(a)`` with those
    values instead of ``move_value``'s (fixed before the draw: mean zero).
    """
    state = start.clone()
    mv = value if move_value is None else move_value
    terms: list[Term] = []
    luck: list[float] = []
    if basis is not None:
        luck = [(x - y) / 2 for x, y in zip(basis(state), basis(swapped_hands(state)), strict=True)]
    if with_deal_term:
        terms.append(Term(DEAL, -1, -1, deal_term(state, value)))
    for i, a in enumerate(actions):
        if state.window == OVER:
            raise ValueError(f"action {i} ({describe_action(a)}) comes after the end of the deal")
        a = state.check_action(a)
        p = state.to_act
        if policies[p] is not None or samplers[p] is not None:
            term = decision_term(state, i, a, (policies[p], samplers[p], own_values[p]), mv, expect)
            if term is not None:
                terms.append(term)
        if is_chance_draw(state, a):
            before = expect(state, value)
            if basis is not None:
                expected = mean_vector([basis(s) for s in draw_outcomes(state)])
            state.apply_unchecked(a)
            if basis is not None:
                luck = [x + b - e for x, b, e in zip(luck, basis(state), expected, strict=True)]
            terms.append(Term(DRAW_TERM, i, -1, value(state) - before))
        else:
            state.apply_unchecked(a)
    if state.window != OVER:
        raise ValueError(f"the {len(actions)} actions do not finish the deal")
    return DealCorrection(terminal_value(state), tuple(terms), tuple(luck))


__all__ = [
    "DealCorrection", "Expectation", "OwnValues", "Policy", "PolicyError", "Sampler", "Term", "action_term",
    "check_probabilities", "correct_deal", "deal_term", "decision_term", "draw_outcomes",
    "expected_after_draw", "is_chance_draw", "own_term", "sampled_expectation", "sampled_term",
    "swapped_hands", "value_after",
]  # fmt: skip
