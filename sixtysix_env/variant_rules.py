"""The deals of rule presets other than plain German play (docs/rules-variants.md).

A preset's play departs from the German engine only through the six rule
hooks of :class:`~sixtysix_env.contract.RuleHooks` (``legal_mask``,
``take_trick``, ``draw``, ``show_marriage``, ``score``, ``end_deal``). This module
writes the presets' hook functions (public, one rule each) and declares the
two hook records built from them:

- :data:`SWITCH_HOOKS`: German play, plus a draw bonus added at the deal's
  end, marriages held back until they count (``Rules.marriage_credit``) and
  drawing from a talon of the deck's size.
  Deals of the German switches (V1), of a draw bonus, or of a German-play
  preset with its own deck are :class:`RulesState` objects.
- :data:`VARIANT_HOOKS`: the above, plus the German legal mask changed by the
  preset's switches (:func:`variant_legal_mask`) and what follows a trick
  (:func:`variant_take_trick`: 66 checked after every trick, both draw at
  once). The other presets' deals are :class:`VariantState` objects.

Each class has its record's functions bound as its methods once, when the
module loads (:func:`bind_hooks`), so a deal calls them directly; plain
German deals are :class:`~sixtysix_env.engine.State` objects whose hooks are
the engine's own methods (:data:`~sixtysix_env.engine.GERMAN_HOOKS`).
:func:`state_class` picks the class for a deal and :func:`hooks_for` its
hooks (``Rules.hooks``); :mod:`sixtysix_env.deals` and
:mod:`sixtysix_env.knowledge` build states with it. Standard library only.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from .actions import CLOSE_BIT, DECLARE_BIT, EXCHANGE_BIT, MARRIAGE_ACTIONS
from .cards import QUEEN, QUEENS
from .engine import CLOSE_RESPONSE, DRAW, GERMAN_HOOKS, LEAD, OVER, State
from .scoring import WIN_SCORE, declaration, marriage_points
from .variants import (
    CREDIT_NEXT_TRICK,
    CREDIT_TRICK_BEFORE,
    DECLARE_AUTO,
    GERMAN,
    HOOK_NAMES,
    RULE_HOOKS,
    RuleHooks,
    Rules,
)

# A marriage that never counts (lost, docs/rules-variants.md V2.2) waits for this many tricks.
_NEVER = 1 << 30

_FIELDS = tuple(f.name for f in fields(State))
_EXTRA = ("rules", "bonus", "held")
_COPIED = ("hands", "points", "tricks", "won", "played")  # what a clone must not share (see State.clone)


# ------------------------------------------------------------ the hook functions
def score_less_held(s: Any, player: int) -> int:
    """``score`` hook: :meth:`State.score`, less the marriages ``held`` back
    (not counted yet, or lost: V2.2, V4.3)."""
    t = s.tricks[player]
    if not t:
        return s.points[player]
    shown = s.shown[player]
    if s.held is not None:
        suits, at = s.held[player]
        if t <= at:
            shown &= ~suits
    return s.points[player] + marriage_points(shown, s.trump)


def hold_marriage(s: Any, p: int, suit: int) -> None:
    """``show_marriage`` hook: the German show, then, under the rules'
    ``marriage_credit``, the marriage held back until ``p``'s next trick
    (V4.3) or for good when shown without a trick (V2.2)."""
    State.show_marriage(s, p, suit)
    if s.held is None:  # every marriage counts once a trick is taken (German credit)
        return
    credit = s.rules.marriage_credit
    suits, at = s.held[p]
    if credit == CREDIT_NEXT_TRICK:
        entry = (1 << suit, s.tricks[p])
    elif credit == CREDIT_TRICK_BEFORE and not s.tricks[p]:
        entry = (suits | 1 << suit, _NEVER)
    else:
        entry = (suits, at)
    held = list(s.held)
    held[p] = entry
    s.held = (held[0], held[1])


def draw_from_talon(s: Any, p: int) -> None:
    """``draw`` hook: the German draw from a talon of the deck's size (V3.1)."""
    State.draw(s, p, len(s.talon))


def end_with_bonus(s: Any, winner: int | None, game_points: int, reason: str) -> None:
    """``end_deal`` hook: the German end, the winner also scoring the deal's
    draw bonus (V1.2)."""
    State.end_deal(s, winner, game_points + s.bonus if winner is not None else 0, reason)


def variant_legal_mask(s: Any) -> int:
    """``legal_mask`` hook: the German legal mask, then what the preset's
    switches change (exchange card and timing, closing, late marriages, the
    card led after a marriage, no declare action under automatic 66)."""
    m = State.legal_mask(s)
    w = s.window
    r = s.rules
    h = s.hands[s.to_act]
    low = (h >> (6 * s.trump + r.exchange_rank)) & 1
    if w == LEAD:
        ms = s.marriage_suit
        if ms >= 0:
            if r.marriage_king_only:
                m &= ~(1 << (6 * ms + QUEEN))
        elif s.closed_by < 0 and s.stock:
            m &= ~EXCHANGE_BIT
            if low and (r.free_exchange or s.tricks[s.to_act]):
                m |= EXCHANGE_BIT
        elif r.late_marriages:
            m |= MARRIAGE_ACTIONS[(h >> 1) & h & QUEENS]
        if not r.closing:
            m &= ~CLOSE_BIT
        if r.declaring == DECLARE_AUTO:
            m &= ~DECLARE_BIT
    elif w == DRAW or w == CLOSE_RESPONSE:
        m = (m & ~EXCHANGE_BIT) | (EXCHANGE_BIT if low else 0)
    return m


def variant_take_trick(s: Any, p: int, card: int) -> None:
    """``take_trick`` hook: the German trick, then 66 checked for the trick's
    winner under automatic declaring (V4), and both drawing at once where the
    preset has no draw window (V2.3, V3.4)."""
    State.take_trick(s, p, card)
    if s.window == OVER:
        return
    r = s.rules
    winner = s.to_act
    if r.declaring == DECLARE_AUTO and s.score(winner) >= WIN_SCORE:
        s.end_deal(*declaration(s, winner))  # 66 is checked after every trick
    elif s.window == DRAW and not r.draw_window:
        s.draw(winner)  # no draw window: both draw at once
        s.window = LEAD


SWITCH_HOOKS = replace(
    GERMAN_HOOKS,
    draw=draw_from_talon,
    show_marriage=hold_marriage,
    score=score_less_held,
    end_deal=end_with_bonus,
)
VARIANT_HOOKS = replace(SWITCH_HOOKS, legal_mask=variant_legal_mask, take_trick=variant_take_trick)
RULE_HOOKS["switches"] = SWITCH_HOOKS
RULE_HOOKS["variant"] = VARIANT_HOOKS


def bind_hooks(cls: type[State], hooks: RuleHooks) -> None:
    """Make ``hooks`` the methods of ``cls`` (once, as the class is made), so
    that the engine calls them without a lookup through the record."""
    for name in HOOK_NAMES:
        setattr(cls, name, getattr(hooks, name))
    cls.hooks = hooks


# ------------------------------------------------------------------ the classes
class RulesState(State):
    """A deal with rules other than the plain German defaults: ``rules``,
    ``bonus`` and ``held`` are its own (slots) instead of the class's, and its
    hooks are :data:`SWITCH_HOOKS`: German play, a draw bonus at the deal's
    end, marriages held back until they count."""

    __slots__ = _EXTRA
    # Instance slots shadowing State's class-level defaults: a pattern mypy cannot express.
    rules: Rules  # type: ignore[misc]
    bonus: int  # type: ignore[misc]
    held: tuple[tuple[int, int], tuple[int, int]] | None  # type: ignore[misc]

    def clone(self) -> State:
        s = object.__new__(type(self))
        for name in _FIELDS:
            setattr(s, name, getattr(self, name))
        for name in _COPIED:
            setattr(s, name, getattr(self, name)[:])
        s.rules, s.bonus, s.held = self.rules, self.bonus, self.held
        return s

    __copy__ = clone

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        same = State.__eq__(self, other)
        return bool(same) and all(getattr(self, k) == getattr(other, k) for k in _EXTRA)

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, k) for k in (*_FIELDS, *_EXTRA))

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for k, v in zip((*_FIELDS, *_EXTRA), state, strict=True):
            setattr(self, k, v)


class VariantState(RulesState):
    """A deal of a preset whose play differs from the German game's
    (:mod:`sixtysix_env.variants`): its hooks are :data:`VARIANT_HOOKS`, the
    German legal mask and trick, then what the preset's
    :class:`~sixtysix_env.variants.Rules` change. German deals stay
    :class:`State` (or :class:`RulesState` with the match switches), so the
    German hot paths read no rules."""

    __slots__ = ()


bind_hooks(RulesState, SWITCH_HOOKS)
bind_hooks(VariantState, VARIANT_HOOKS)


def state_class(rules: Rules, bonus: int = 0) -> type[State]:
    """The engine class for deals under ``rules`` (and a draw bonus)."""
    if rules.varies_play:
        return VariantState
    return State if (rules is GERMAN or rules == GERMAN) and not bonus else RulesState


def hooks_for(rules: Rules, bonus: int = 0) -> RuleHooks:
    """The rule hooks of deals under ``rules`` and a draw bonus: ``rules.hooks``,
    but :data:`SWITCH_HOOKS` for a German deal carrying a bonus (:func:`state_class`)."""
    return state_class(rules, bonus).hooks


__all__ = [
    "RulesState", "SWITCH_HOOKS", "VARIANT_HOOKS", "VariantState", "bind_hooks", "draw_from_talon",
    "end_with_bonus", "hold_marriage", "hooks_for", "score_less_held", "state_class", "variant_legal_mask",
    "variant_take_trick",
]  # fmt: skip
