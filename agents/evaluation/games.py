"""The seam between the arena and the estimator: a finished game line in, corrected points out.

A game line (``agents.record.GameRecord.to_dict()`` plus the arena's keys)
holds the card seed, the unit and every action, so its deals can be
replayed with the engine exactly as the environment dealt them
(:func:`sixtysix_env.aec.first_deal`, then :func:`~sixtysix_env.deals.next_deal`
with :func:`~sixtysix_env.seeding.deal_rng`). Results files come from
elsewhere and are not trusted: a line whose actions are illegal, do not
reproduce its recorded deals, or are not a list of ints raises
:class:`ReplayError` naming the game.

The arena (:mod:`agents.arena.corrected`, ``--estimator aivat``) calls
:func:`game_points` per finished game in the worker that played it and
sums the stored points per cluster like its plain figure;
:func:`pairing_points` computes the same figure (and the cross-fitted one)
from a run's lines, and :func:`estimate` summarises per-unit values for
the bench scripts.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sixtysix_env.aec import first_deal
from sixtysix_env.deals import next_deal
from sixtysix_env.engine import OVER, State
from sixtysix_env.seeding import deal_rng

from .aivat import (
    ACTION,
    DEAL,
    DRAW_TERM,
    SAMPLED,
    Basis,
    DealCorrection,
    Expectation,
    OwnValues,
    Policy,
    Sampler,
    correct_deal,
    expected_after_draw,
)
from .values import ValueFn


class ReplayError(ValueError):
    """A game line that cannot be replayed into the deals it records."""


class NotCorrectable(ValueError):
    """A game the estimator must not correct (a bot that sees the hidden state)."""


LUCK_NAMES = ("deal", "draws", "moves of seat 0", "moves of seat 1", "sampled moves of seat 0",
              "sampled moves of seat 1")  # the coordinates of :func:`seat_luck`


def seat_luck(corrections: Sequence[DealCorrection]) -> list[float]:
    """The luck of a game's deals for seat 0, by :data:`LUCK_NAMES`: the regressors of the arena's
    cross-fitted figure (:mod:`agents.arena.corrected`). Each coordinate has mean zero."""
    out = [0.0] * len(LUCK_NAMES)
    slot = {DEAL: 0, DRAW_TERM: 1, ACTION: 2, SAMPLED: 4}
    for c in corrections:
        for t in c.terms:
            out[slot[t.kind] + int(t.seat == 1 and t.kind in (ACTION, SAMPLED))] += t.value
    return out


def values_of(agent: Any) -> OwnValues | None:
    """The bot's ``move_values(view)`` if it has one: the search's values its declared distribution
    was formed from (``pimc:temp=T``, ``guided:sample=1``), which value its decision terms."""
    fn = getattr(agent, "move_values", None)
    return fn if callable(fn) else None


def policy_of(agent: Any) -> Policy | None:
    """The bot's known move probabilities, else None: ``action_probabilities(view)`` (a policy of the
    view alone), or ``move_distribution(view)`` (the distribution a search bot drew its move from at
    that view in the game it played, None where it drew none: see docs/variance.md)."""
    for name in ("action_probabilities", "move_distribution"):
        fn = getattr(agent, name, None)
        if callable(fn):
            return fn
    return None


def sampler_of(copy: Any, rng: random.Random, k: int = 2) -> Sampler:
    """A sampler that asks ``copy`` (a second instance of a stochastic in-process bot, never the one
    playing) ``k`` times for its move, reseeded from ``rng`` (the estimator's own) before each ask.

    Unbiased as long as the bot's move depends only on the view and its own
    randomness (pimc without inference; not a bot that carries what it saw
    from one decision to the next).
    """

    def sample(v: Any) -> list[int]:
        out = []
        for _ in range(k):
            copy.reset(rng.getrandbits(63))
            out.append(copy.act(v))
        return out

    return sample


def check_correctable(agents: Sequence[Any]) -> None:
    """Refuse bots that see the true state (``requires_state``): the draws are then not luck to them."""
    for agent in agents:
        if getattr(agent, "requires_state", False):
            name = getattr(agent, "name", agent)
            raise NotCorrectable(f"the aivat estimator cannot correct games of {name!s}: "
                                 "it sees the hidden cards")


def replay_deals(line: Mapping[str, Any]) -> list[tuple[State, list[int]]]:
    """The finished deals of a game line: (first state, actions) each, checked against its ``deals``."""
    where = f"game {str(line.get('index', '?'))[:40]}"
    seed, actions, unit = line.get("seed"), line.get("actions"), line.get("unit")
    if isinstance(seed, bool) or not isinstance(seed, int) or unit not in ("match", "deal"):
        raise ReplayError(f"{where}: needs an int seed and unit 'match' or 'deal'")
    if not isinstance(actions, list) or not all(type(a) is int for a in actions):
        raise ReplayError(f"{where}: actions must be a list of ints")
    recorded = line.get("deals")
    if not isinstance(recorded, list):
        raise ReplayError(f"{where}: deals must be a list")
    state = first_deal(seed, None)
    out: list[tuple[State, list[int]]] = []
    start, current = state.clone(), []
    for i, a in enumerate(actions):
        if state.window == OVER:
            raise ReplayError(f"{where}: action {i} comes after the end of the game")
        try:
            state.apply(a)
        except ValueError as e:
            raise ReplayError(f"{where}: action {i}: {e}") from None
        current.append(a)
        if state.window == OVER:
            k = len(out)
            res = state.result
            assert res is not None  # a finished deal has its result
            rec = recorded[k] if k < len(recorded) else None
            if not isinstance(rec, Mapping) or rec.get("winner") != res.winner or (
                    res.winner is not None and rec.get("game_points") != res.game_points):
                raise ReplayError(f"{where}: deal {k} replays to {res.winner, res.game_points}, "
                                  f"the line records {str(rec)[:200]}")
            out.append((start, current))
            if unit == "match" and not state.match_over:
                state = next_deal(state, deal_rng(seed, k + 1))
                start, current = state.clone(), []
    if len(out) != len(recorded):
        raise ReplayError(f"{where}: replays to {len(out)} finished deals, the line records {len(recorded)}")
    return out


@dataclass(frozen=True)
class GamePoints:
    """One player's game points in one game: plain, AIVAT-corrected, the finished deals they cover,
    and the summed luck vector (:meth:`~agents.evaluation.aivat.DealCorrection.luck_vector`)."""

    plain: float
    corrected: float
    deals: int
    luck: tuple[float, ...]


def correct_game(line: Mapping[str, Any], value: ValueFn,
                 seat_policies: Sequence[Policy | None] = (None, None),
                 basis: Basis | None = None,
                 seat_samplers: Sequence[Sampler | None] = (None, None),
                 expect: Expectation = expected_after_draw,
                 move_value: ValueFn | None = None,
                 seat_values: Sequence[OwnValues | None] = (None, None)) -> list[DealCorrection]:
    """The corrections of every finished deal of a game line (policies, samplers and the search bots'
    own move values, :func:`values_of`, by seat)."""
    out = []
    for start, actions in replay_deals(line):
        out.append(correct_deal(start, actions, value, seat_policies, basis=basis, samplers=seat_samplers,
                                expect=expect, move_value=move_value, own_values=seat_values))
        for v in {id(value): value, id(move_value): move_value}.values():
            reset = getattr(v, "reset", None)
            if reset is not None:
                reset()
    return out


def game_points(line: Mapping[str, Any], player: int, value: ValueFn,
                policies: Mapping[int, Policy | None] | None = None,
                basis: Basis | None = None,
                samplers: Mapping[int, Sampler | None] | None = None,
                expect: Expectation = expected_after_draw,
                move_value: ValueFn | None = None) -> GamePoints:
    """Plain and corrected game points of ``player`` (an index in ``line["seats"]``) over the finished deals.

    ``policies`` maps player indices to known policies (:func:`policy_of`),
    ``samplers`` to move samplers (:func:`sampler_of`); ``expect`` takes
    the expectation over a draw (:func:`~agents.evaluation.aivat.sampled_expectation`
    for a costly value function); ``move_value`` values the decision terms
    (it may read the true state, see :func:`~agents.evaluation.aivat.correct_deal`).
    A deal cut short by a forfeit is not among the finished deals; the
    forfeit itself is the arena's to count.
    """
    seats = line.get("seats")
    if not (isinstance(seats, list) and len(seats) == 2 and player in seats):
        raise ReplayError(f"game {line.get('index', '?')}: player {player} is not seated")
    policies = policies or {}
    seat_policies = [policies.get(seats[0]), policies.get(seats[1])]
    samplers = samplers or {}
    seat_samplers = [samplers.get(seats[0]), samplers.get(seats[1])]
    seat = seats.index(player)
    plain = corrected = 0.0
    luck: list[float] = []
    corrections = correct_game(line, value, seat_policies, basis, seat_samplers, expect, move_value)
    for c in corrections:
        p, q = c.for_seat(seat)
        plain += p
        corrected += q
        v = c.luck_vector(seat)
        luck = v if not luck else [x + y for x, y in zip(luck, v, strict=True)]
    return GamePoints(plain, corrected, len(corrections), tuple(luck))


@dataclass(frozen=True)
class PairingPoints:
    """Points per deal of player ``a`` against ``b``: plain, AIVAT (weight 1) and cross-fitted,
    each ``(mean, lo, hi)`` over duplicate clusters like the arena's plain figure."""

    plain: tuple[float, float, float]
    aivat: tuple[float, float, float]
    regression: tuple[float, float, float]
    clusters: int
    deals: int


def pairing_points(lines: Sequence[Mapping[str, Any]], a: int, b: int, value: ValueFn,
                   policies: Mapping[int, Policy | None] | None = None,
                   basis: Basis | None = None) -> PairingPoints:
    """Corrected points per deal of ``a`` v ``b`` over the game lines of a run (the arena's clusters).

    Sums each cluster's (duplicate pair's) points and deals and takes the
    cluster ratio interval, as the plain figure of ``agents.arena.pairing``
    does, for the plain, the AIVAT and the cross-fitted nets.
    """
    from agents.core.stats import ratio_interval  # numpy only when summarising

    from .regression import cross_fitted

    nets: dict[Any, list[Any]] = {}
    for line in lines:
        seats = line.get("seats")
        if not isinstance(seats, list) or sorted(seats) != sorted((a, b)):
            continue
        gp = game_points(line, a, value, policies, basis)
        c = nets.setdefault(line.get("cluster", line.get("index")), [0.0, 0.0, 0, None])
        c[0] += gp.plain
        c[1] += gp.corrected
        c[2] += gp.deals
        if gp.luck:
            c[3] = list(gp.luck) if c[3] is None else [x + y for x, y in zip(c[3], gp.luck, strict=True)]
    keys = [k for k in sorted(nets, key=str) if nets[k][2]]
    deals = [nets[k][2] for k in keys]
    plain = [nets[k][0] for k in keys]
    width = max((len(nets[k][3]) for k in keys if nets[k][3]), default=0)
    luck = [nets[k][3] or [0.0] * width for k in keys]
    regr = cross_fitted(plain, luck) if width else plain
    return PairingPoints(ratio_interval(plain, deals), ratio_interval([nets[k][1] for k in keys], deals),
                         ratio_interval(regr, deals), len(keys), sum(deals))


@dataclass(frozen=True)
class Estimate:
    """Mean, sample SD, 95% Student-t interval and count of per-unit values."""

    mean: float
    sd: float
    lo: float
    hi: float
    n: int


def estimate(values: Sequence[float]) -> Estimate:
    """Summary of per-cluster (or per-deal) values, plain or corrected alike."""
    from agents.core.stats import mean_interval  # numpy only when summarising

    m, lo, hi = mean_interval(values)
    n = len(values)
    if n > 1:
        sd = (sum((x - m) ** 2 for x in values) / (n - 1)) ** 0.5
    else:
        sd = float("nan")
    return Estimate(m, sd, lo, hi, n)


__all__ = [
    "Estimate", "GamePoints", "NotCorrectable", "PairingPoints", "ReplayError",
    "LUCK_NAMES", "check_correctable", "correct_game", "estimate", "game_points", "pairing_points",
    "policy_of", "replay_deals", "sampler_of", "seat_luck", "values_of",
]  # fmt: skip
