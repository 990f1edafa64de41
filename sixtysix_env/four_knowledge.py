"""What one seat knows in the four-player game, and deals consistent with it.

:class:`FourView` is one seat's view of a :class:`~sixtysix_env.four.FourState`;
:func:`sample_four` deals the cards that seat has not seen to the others
consistently with it (determinization); :func:`describe` is the view as text.
Standard library only.
"""

from __future__ import annotations

import random
from typing import Any

from .cards import CARD_NAMES, N_CARDS, cards_of, names_of
from .engine import OVER, WINDOW_NAMES
from .four import FOUR_IDS, N_SEATS, FourRules, FourState, check_seat
from .scoring import DealResult
from .seeding import make_rng

_VIEW_FIELDS = (
    "player", "hand", "window", "to_act", "legal_mask", "trump", "trump_card", "leader", "trick",
    "points", "tricks", "won", "played", "shown", "known", "void", "hand_sizes", "marriage_suit",
    "partner_shown", "can_declare", "dealer", "match_scores", "result", "scores", "unseen", "rules",
)  # fmt: skip


class FourView:
    """What one seat knows: its hand and everything public. ``known[s]`` the
    cards seat s surely holds (shown marriage partners, the dealer's trump
    card), ``void[s]`` those it surely lacks; ``unseen`` the cards in other
    hands this seat cannot place."""

    __slots__ = _VIEW_FIELDS
    player: int
    hand: int
    window: int
    to_act: int
    legal_mask: int
    trump: int
    trump_card: int
    leader: int
    trick: tuple[int, ...]
    points: tuple[int, ...]
    tricks: tuple[int, ...]
    won: tuple[int, ...]
    played: tuple[int, ...]
    shown: tuple[int, ...]
    known: tuple[int, ...]
    void: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    marriage_suit: int
    partner_shown: bool
    can_declare: bool
    dealer: int
    match_scores: tuple[int, ...]
    result: DealResult | None
    scores: tuple[int, int]
    unseen: int
    rules: FourRules

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FourView):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in _VIEW_FIELDS)

    __hash__ = None  # type: ignore[assignment]

    @property
    def team(self) -> int:
        return self.player & 1

    @property
    def is_over(self) -> bool:
        return self.window == OVER


def view_four(state: FourState, seat: int) -> FourView:
    seat = check_seat(seat, "seat")
    v = FourView.__new__(FourView)
    hand = state.hands[seat]
    v.player = seat
    v.hand = hand
    v.window = state.window
    v.to_act = state.to_act
    v.legal_mask = state.legal_mask() if state.to_act == seat else 0
    v.trump = state.trump
    v.trump_card = state.trump_card
    v.leader = state.leader
    v.trick = tuple(state.trick)
    v.points = tuple(state.points)
    v.tricks = tuple(state.tricks)
    v.won = tuple(state.won)
    v.played = tuple(state.played)
    v.shown = tuple(state.shown)
    v.known = tuple(k & h for k, h in zip(state.known, state.hands, strict=True))
    v.void = tuple(state.void)
    v.hand_sizes = tuple(h.bit_count() for h in state.hands)
    v.marriage_suit = state.marriage_suit
    v.partner_shown = state.partner_shown
    v.can_declare = state.can_declare
    v.dealer = state.dealer
    v.match_scores = tuple(state.match_scores)
    v.result = state.result
    v.scores = (state.score(0), state.score(1))
    seen = hand | sum(state.played) | sum(v.known)
    v.unseen = ((1 << N_CARDS) - 1) & ~seen
    v.rules = state.rules
    return v


def sample_four(v: FourView, rng: int | random.Random | Any | None = None, tries: int = 2000) -> FourState:
    """A full deal consistent with ``v``: the unseen cards dealt to the other
    seats respecting hand sizes, known cards and voids (random restarts; close
    to uniform). ``ValueError`` if no deal is found."""
    gen = make_rng(rng)
    others = [s for s in range(N_SEATS) if s != v.player]
    unseen = cards_of(v.unseen)
    for _ in range(tries):
        hands = [v.known[s] if s != v.player else v.hand for s in range(N_SEATS)]
        room = {s: v.hand_sizes[s] - v.known[s].bit_count() for s in others}
        gen.shuffle(unseen)
        ok = True
        # Most constrained cards first keeps restarts rare.
        for c in sorted(unseen, key=lambda c: sum(1 for s in others if not v.void[s] >> c & 1)):
            seats = [s for s in others if room[s] > 0 and not v.void[s] >> c & 1]
            if not seats:
                ok = False
                break
            seat = _weighted(gen, seats, room)
            hands[seat] |= 1 << c
            room[seat] -= 1
        if ok:
            break
    else:
        raise ValueError(f"no deal is consistent with the view of seat {v.player}")
    s = FourState.__new__(FourState)
    s.hands = hands
    s.trump, s.trump_card = v.trump, v.trump_card
    s.points, s.tricks, s.won = list(v.points), list(v.tricks), list(v.won)
    s.played, s.shown, s.void = list(v.played), list(v.shown), list(v.void)
    s.known = list(v.known)
    s.window, s.to_act, s.leader = v.window, v.to_act, v.leader
    s.trick = list(v.trick)
    s.marriage_suit, s.partner_shown, s.can_declare = v.marriage_suit, v.partner_shown, v.can_declare
    s.dealer = v.dealer
    s.match_scores = list(v.match_scores)
    s.result = v.result
    s.rules = v.rules
    return s


def _weighted(rng: Any, seats: list[int], room: dict[int, int]) -> int:
    """A seat with probability proportional to its free room."""
    r = rng.random() * sum(room[s] for s in seats)
    for s in seats:
        r -= room[s]
        if r < 0:
            return s
    return seats[-1]


def resample_four(state: FourState, seat: int, rng: int | random.Random | Any | None = None) -> FourState:
    """A deal ``seat`` cannot tell apart from ``state``."""
    return sample_four(view_four(state, seat), rng)


def _tricks(n: int) -> str:
    return f"{n} trick" if n == 1 else f"{n} tricks"


def describe(v: FourView) -> str:
    """A text table of one seat's view (the AEC env's renders)."""
    rel = ["me", "left", "partner", "right"]
    lines = [
        f"four-player Sixty-Six, {FOUR_IDS[v.player]} (team {v.team}); trumps {CARD_NAMES[v.trump_card]} "
        f"(dealer {FOUR_IDS[v.dealer]}); match {v.match_scores[0]}-{v.match_scores[1]}",
        f"scores: team 0 {v.scores[0]} ({_tricks(v.tricks[0])}), "
        f"team 1 {v.scores[1]} ({_tricks(v.tricks[1])})",
    ]
    for k in range(N_SEATS):
        s = (v.player + k) & 3
        hand = " ".join(names_of(v.hand)) if s == v.player else f"{v.hand_sizes[s]} cards"
        shown = "".join("CSHD"[i] for i in range(4) if v.shown[s] >> i & 1)
        lines.append(f"  {rel[k]:>7} {FOUR_IDS[s]}: {hand}" + (f"  marriages {shown}" if shown else ""))
    trick = " ".join(CARD_NAMES[c] for c in v.trick)
    lines.append(f"trick (led by {FOUR_IDS[v.leader]}): {trick or '-'}")
    if v.result is not None:
        lines.append(f"deal over: {v.result}")
    else:
        lines.append(f"to act: {FOUR_IDS[v.to_act]} ({WINDOW_NAMES[v.window]})")
    return "\n".join(lines)


__all__ = ["FourView", "describe", "resample_four", "sample_four", "view_four"]
