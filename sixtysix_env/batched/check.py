"""Differential check of the batched engine against the scalar engine.

:func:`differential` starts N tables from scalar states (random deals, some
already part-played, random match scores and dealers), then repeats: pick a
random legal action per table, step the batched engine and the scalar states
with the same actions, and compare, table by table, everything a caller can
see: the legal masks, the observations of both seats (``encode`` and
``encode_full``), the whole engine state, rewards, deal results and match
ends. When a deal ends the batched engine deals the next one from its own
generator; the check verifies the dealer and match score the rules demand
and that the cards form a deal, then lets the scalar side continue from the
same cards. ``rules=`` runs it under any preset the batched engine plays
(docs/rules-variants.md): the scalar side is then ``RulesState`` and
``VariantState`` deals, and the check also compares the preset's own state
(marriages held back, the draw bonus) and what a finished match counts for
(``match_value``). Both the test suite (short) and
``bench/bench_batched_diff.py`` (a million decisions or more) run this one
function.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from ..actions import CLOSE, DECLARE
from ..deals import deal, new_state, next_bonus, next_dealer
from ..engine import OVER, State
from ..observation import FULL_OBS_SIZE, OBS_SIZE, encode_full_into
from ..scoring import WIN_SCORE
from ..variants import Rules, rules_from_spec
from .engine import BatchedEngine
from .observe import action_masks, observe
from .state import FIELDS

# A random style per table, so that every way a deal ends occurs often: how
# often a legal declaration is taken at random, whether one is always taken
# at 66 or more, and how often closing stays among the choices.
DECLARE_RATES = (0.0, 0.02, 0.3, 1.0)
CLOSE_RATES = (0.0, 0.1, 1.0)


@dataclass
class DiffReport:
    decisions: int = 0
    deals: int = 0
    matches: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


def random_states(n: int, rng: random.Random, max_moves: int = 30, rules: Any = None) -> list[State]:
    """Scalar states spread over the game: random dealer and match score (and a
    draw bonus of 0 or 1 where the rules have one), then 0..max_moves random
    legal actions (restarting a deal that ends)."""
    r = rules_from_spec(rules)
    target = r.match_target

    def fresh() -> State:
        bonus = rng.randrange(2) if r.draw_bonus else 0
        return deal(rng, None, (rng.randrange(target), rng.randrange(target)), r, bonus)

    out = []
    for _ in range(n):
        s = fresh()
        for _ in range(rng.randrange(max_moves + 1)):
            s.apply(rng.choice(s.legal_actions()))
            if s.window == OVER:
                s = fresh()
        out.append(s)
    return out


def _style(rng: random.Random) -> tuple[float, bool, float]:
    return rng.choice(DECLARE_RATES), rng.random() < 0.5, rng.choice(CLOSE_RATES)


def _choose(s: State, rng: random.Random, style: tuple[float, bool, float]) -> int:
    declare_rate, at_66, close_rate = style
    actions = s.legal_actions()
    others = [a for a in actions if a != DECLARE]
    if len(others) < len(actions) and (
        not others or rng.random() < declare_rate or (at_66 and s.score(s.to_act) >= WIN_SCORE)
    ):
        return DECLARE
    if CLOSE in others and len(others) > 1 and rng.random() >= close_rate:
        others.remove(CLOSE)
    return rng.choice(others)


def _fail(i: int, what: str, s: State, detail: str = "") -> None:
    raise AssertionError(f"table {i}: {what} differs\nscalar: {s!r}\n{detail}")


def differential(
    num_tables: int,
    decisions: int,
    seed: int = 0,
    *,
    device: str | torch.device = "cpu",
    episode: str = "match",
    rules: Any = None,
) -> DiffReport:
    """Step ``num_tables`` tables until ``decisions`` decisions were compared
    (under ``rules``, a preset spec; German by default); raises
    ``AssertionError`` naming the table and the field at the first difference."""
    rng = random.Random(seed)
    states = random_states(num_tables, rng, rules=rules)
    styles = [_style(rng) for _ in range(num_tables)]
    eng = BatchedEngine.from_states(states, seed, device=device, episode=episode)
    report = DiffReport()
    full = np.empty((num_tables, FULL_OBS_SIZE), np.float32)
    while report.decisions < decisions:
        compare(eng, states, full)
        actions = [_choose(s, rng, styles[i]) for i, s in enumerate(states)]
        eng.step(torch.tensor(actions, device=eng.device), autoreset=False)
        for s, a in zip(states, actions, strict=True):
            s.apply(a)
        report.decisions += num_tables
        compare(eng, states, full)  # deals just ended are compared in the OVER window too
        done = eng.deal_done.tolist()
        rewards = eng.rewards.tolist()
        match_done = eng.match_done.tolist()
        match_winner = eng.match_winner.tolist()
        match_value = eng.match_value.tolist()
        ended = [i for i in range(num_tables) if done[i]]
        for i in range(num_tables):
            s = states[i]
            if done[i] != s.is_over:
                _fail(i, "deal_done", s)
            if not s.is_over:
                if rewards[i] != [0.0, 0.0] or match_done[i]:
                    _fail(i, "reward or match end of an unfinished deal", s, str(rewards[i]))
                continue
            r = s.result
            assert r is not None  # the deal is over
            if eng.result(i) != r:
                _fail(i, "deal result", s, f"batched: {eng.result(i)}")
            want = [0.0, 0.0]
            if r.winner is not None:
                want[r.winner], want[1 - r.winner] = r.game_points, -r.game_points
            if rewards[i] != want:
                _fail(i, "rewards", s, f"batched {rewards[i]}, want {want}")
            over = episode == "match" and s.match_over
            if match_done[i] != over or match_winner[i] != (s.match_winner if over else -1):
                _fail(i, "match end", s, f"batched {match_done[i]} {match_winner[i]}")
            if match_value[i] != (s.match_value if over else 0):
                _fail(i, "match value", s, f"batched {match_value[i]}, want {s.match_value}")
            report.deals += 1
            report.matches += over
            report.reasons[r.reason] = report.reasons.get(r.reason, 0) + 1
        eng.autoreset()
        for i in ended:
            states[i] = _next_scalar(eng, i, states[i], episode)
    compare(eng, states, full)
    return report


def _next_scalar(eng: BatchedEngine, i: int, old: State, episode: str) -> State:
    """The scalar next deal: dealer, match score and draw bonus by the rules, the
    cards of the batched engine's deal (checked to be a deal of the preset's deck)."""
    rules: Rules = old.rules
    new_match = episode == "deal" or old.match_over
    dealer = int(eng.dealer[i])
    if not new_match and dealer != next_dealer(old):
        _fail(i, "next dealer", old, f"batched {dealer}")
    scores = [0, 0] if new_match else old.match_scores
    if eng.match_scores[:, i].tolist() != scores:
        _fail(i, "match scores of the next deal", old, f"batched {eng.match_scores[:, i].tolist()}")
    bonus = 0 if new_match else next_bonus(old)
    if int(eng.bonus[i]) != bonus:
        _fail(i, "draw bonus of the next deal", old, f"batched {int(eng.bonus[i])}, want {bonus}")
    h0, h1 = eng.hands[:, i].tolist()
    talon = eng.talon[:, i].tolist()
    tbits = sum(1 << c for c in talon)
    n = rules.hand_size
    if (h0.bit_count() != n or h1.bit_count() != n or len(set(talon)) != rules.talon_size
            or h0 | h1 | tbits != rules.deck or h0 & h1 or (h0 | h1) & tbits):
        what = f"new deal (not the {rules.deck.bit_count()} cards of the deck)"
        _fail(i, what, old, f"{h0:x} {h1:x} {talon}")
    hands = [[c for c in range(24) if h >> c & 1] for h in (h0, h1)]
    return new_state(hands, talon, dealer, scores, rules, bonus)


def compare(eng: BatchedEngine, states: list[State], full: np.ndarray | None = None) -> None:
    """Assert that table i of ``eng`` is ``states[i]`` for every i: every
    field, the legal mask, the action mask, the observations of both seats
    (``encode`` and ``encode_full``) and, for a finished deal, its result.
    ``full``: a ``(len(states), 384)`` float32 scratch array."""
    if full is None:
        full = np.empty((len(states), FULL_OBS_SIZE), np.float32)
    for i, s in enumerate(states):
        if s.is_over and eng.result(i) != s.result:
            _fail(i, "deal result", s, f"batched: {eng.result(i)}")
    legal = eng.legal.tolist()
    masks = action_masks(eng.legal).cpu().numpy()
    to_act = eng.to_act
    obs_act = observe(eng).cpu().numpy()
    full_act = observe(eng, full=True).cpu().numpy()
    full_other = observe(eng, 1 - to_act, full=True).cpu().numpy()
    fields = {k: getattr(eng, k).movedim(-1, 0).tolist() for k in FIELDS}
    bonus = eng.bonus.tolist()
    held = torch.stack((eng.held_suits, eng.held_at), -1).movedim(1, 0).tolist()  # [i][p] = (suits, at)
    for i, s in enumerate(states):
        if bonus[i] != s.bonus:
            _fail(i, "draw bonus", s, f"batched {bonus[i]}")
        if s.held is not None and [tuple(h) for h in held[i]] != list(s.held):
            _fail(i, "held marriages", s, f"batched {held[i]}, want {s.held}")
        for k in FIELDS:
            got = fields[k][i]
            want = getattr(s, k)
            if k == "talon":
                want = [max(c, 0) for c in want]
            elif isinstance(want, list):
                pass
            else:
                want = int(want)
            if got != want:
                _fail(i, f"field {k}", s, f"batched {got}, want {want}")
        if legal[i] != s.legal_mask():
            _fail(i, "legal mask", s, f"batched {legal[i]:#x}")
        if not (masks[i] == [(s.legal_mask() >> a) & 1 == 1 for a in range(32)]).all():
            _fail(i, "action mask", s)
        p = s.to_act
        for seat, got in ((p, full_act), (1 - p, full_other)):
            encode_full_into(s, seat, full[i])
            if not np.array_equal(got[i], full[i]):
                bad = np.flatnonzero(got[i] != full[i]).tolist()
                _fail(i, f"observation of seat {seat}", s, f"features {bad}: {got[i][bad]} vs {full[i][bad]}")
        if not np.array_equal(obs_act[i], full_act[i, :OBS_SIZE]):
            _fail(i, "observe(full=False)", s)


__all__ = ["DiffReport", "compare", "differential", "random_states"]
