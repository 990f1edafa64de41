"""The deals of rule presets other than plain German play (docs/rules-variants.md).

A plain German deal is an :class:`~sixtysix_env.engine.State`, which reads
no rules on its hot paths. :class:`RulesState` gives a deal its own
``rules``, ``bonus`` and ``held`` (German play with the match switches, a
draw bonus or a smaller deck); :class:`VariantState` applies the play of the
other presets on top of the German legal mask and trick. :func:`state_class`
picks the class for a deal; :mod:`sixtysix_env.deals` and
:mod:`sixtysix_env.knowledge` build states with it. Standard library only.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from .actions import CLOSE_BIT, DECLARE_BIT, EXCHANGE_BIT, MARRIAGE_ACTIONS
from .cards import QUEEN, QUEENS
from .engine import CLOSE_RESPONSE, DRAW, LEAD, OVER, TALON_SIZE, State
from .scoring import WIN_SCORE, declaration, marriage_points
from .variants import CREDIT_NEXT_TRICK, CREDIT_TRICK_BEFORE, DECLARE_AUTO, GERMAN, Rules

# A marriage that never counts (lost, docs/rules-variants.md V2.2) waits for this many tricks.
_NEVER = 1 << 30

_FIELDS = tuple(f.name for f in fields(State))
_EXTRA = ("rules", "bonus", "held")
_COPIED = ("hands", "points", "tricks", "won", "played")  # what a clone must not share (see State.clone)


class RulesState(State):
    """A deal with rules other than the plain German defaults: ``rules``,
    ``bonus`` and ``held`` are its own (slots) instead of the class's. German
    play; the match switches (draw bonus, double game) need nothing more."""

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

    def score(self, player: int) -> int:
        """:meth:`State.score`, less the marriages ``held`` back (not counted yet, or lost)."""
        t = self.tricks[player]
        if not t:
            return self.points[player]
        shown = self.shown[player]
        if self.held is not None:
            suits, at = self.held[player]
            if t <= at:
                shown &= ~suits
        return self.points[player] + marriage_points(shown, self.trump)

    def _hold_marriage(self, p: int, suit_bit: int) -> None:
        """Record a marriage that does not count yet (or ever) under the rules' credit."""
        credit = self.rules.marriage_credit
        suits, at = self.held[p]  # type: ignore[index]
        if credit == CREDIT_NEXT_TRICK:
            entry = (suit_bit, self.tricks[p])
        elif credit == CREDIT_TRICK_BEFORE and not self.tricks[p]:
            entry = (suits | suit_bit, _NEVER)
        else:
            entry = (suits, at)
        held = list(self.held)  # type: ignore[arg-type]
        held[p] = entry
        self.held = (held[0], held[1])
        self.can_declare = True

    def _end(self, winner: int | None, game_points: int, reason: str) -> None:
        State._end(self, winner, game_points + self.bonus if winner is not None else 0, reason)

    def _draw(self, p: int, talon_size: int = TALON_SIZE) -> None:
        State._draw(self, p, len(self.talon))  # the deck of the rules may be smaller

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, k) for k in (*_FIELDS, *_EXTRA))

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for k, v in zip((*_FIELDS, *_EXTRA), state, strict=True):
            setattr(self, k, v)


class VariantState(RulesState):
    """A deal of a preset whose play differs from the German game's
    (:mod:`sixtysix_env.variants`): the German legal mask and trick, then
    what the preset's :class:`~sixtysix_env.variants.Rules` change. German
    deals stay :class:`State` (or :class:`RulesState` with the match
    switches), so the German hot paths read no rules."""

    __slots__ = ()

    def legal_mask(self) -> int:
        m = State.legal_mask(self)
        w = self.window
        r = self.rules
        h = self.hands[self.to_act]
        low = (h >> (6 * self.trump + r.exchange_rank)) & 1
        if w == LEAD:
            ms = self.marriage_suit
            if ms >= 0:
                if r.marriage_king_only:
                    m &= ~(1 << (6 * ms + QUEEN))
            elif self.closed_by < 0 and self.stock:
                m &= ~EXCHANGE_BIT
                if low and (r.free_exchange or self.tricks[self.to_act]):
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

    def _follow(self, p: int, card: int) -> None:
        State._follow(self, p, card)
        if self.window == OVER:
            return
        r = self.rules
        winner = self.to_act
        if r.declaring == DECLARE_AUTO and self.score(winner) >= WIN_SCORE:
            self._end(*declaration(self, winner))  # 66 is checked after every trick
        elif self.window == DRAW and not r.draw_window:
            self._draw(winner)  # no draw window: both draw at once
            self.window = LEAD


def state_class(rules: Rules, bonus: int = 0) -> type[State]:
    """The engine class for deals under ``rules`` (and a draw bonus)."""
    if rules.varies_play:
        return VariantState
    return State if (rules is GERMAN or rules == GERMAN) and not bonus else RulesState


__all__ = ["RulesState", "VariantState", "state_class"]
