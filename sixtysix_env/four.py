"""Four-player partnership Sixty-Six (docs/rules-four.md): its own small engine.

Seats 0-3 play in that order; partners sit opposite (teams ``seat % 2``:
seats 0 and 2 against 1 and 3). Each gets 6 cards, there is no talon, and
the strict rules of the two-player game's phase 2 apply from the first
trick. Cards, the 32-action table, card points, trick ranks and the deal
scoring are the two-player game's (:mod:`~sixtysix_env.cards`,
:mod:`~sixtysix_env.actions`, :mod:`~sixtysix_env.scoring`); scores, tricks
and game points belong to teams. Every point the rule book leaves open is a
:class:`FourRules` field or a numbered decision of docs/rules-four.md.

Windows (a subset of the two-player ones, same numbers):

- ``LEAD``: play a held card (only the shown marriage's K/Q after a
  marriage), show a marriage, declare (F5).
- ``FOLLOW``: the cards the strict rules allow (F3); the leader's partner
  may first show a marriage of their own (F4.2).
- ``OVER``: the deal has ended (:attr:`FourState.result`, winner a team).

:class:`FourView` is what one seat knows; :func:`sample_four` deals the cards
a seat has not seen to the others consistently with it (determinization).
Standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import DECLARE, MARRIAGE, actions_of, check_action, parse_action
from .cards import CARD_NAMES, HIGHER, KQ, N_CARDS, POINTS, SUIT_MASKS, cards_of, names_of, parse_cards
from .engine import FOLLOW, LEAD, OVER, WINDOW_NAMES
from .scoring import DealResult, declaration, last_trick, marriage_points
from .seeding import make_rng

N_SEATS = 4
FOUR_IDS = ("player_0", "player_1", "player_2", "player_3")
HAND = 6
_DECLARE_BIT = 1 << DECLARE
_QUEENS = sum(1 << (6 * s + 2) for s in range(4))


def team_of(seat: int) -> int:
    return seat & 1


def partner_of(seat: int) -> int:
    return (seat + 2) & 3


def _marriage_bits(hand: int, exclude: int = 0) -> int:
    """The marriage actions of every suit whose K and Q are in ``hand`` (suits in ``exclude`` left out)."""
    q = (hand >> 1) & hand & _QUEENS
    out = 0
    for s in range(4):
        if q >> (6 * s + 2) & 1 and not exclude >> s & 1:
            out |= 1 << (MARRIAGE + s)
    return out


@dataclass(frozen=True)
class FourRules:
    """The numbers and switches of the four-player game (docs/rules-four.md).

    The last three fields let :mod:`sixtysix_env.scoring` score a team deal
    exactly as a two-player deal (no talon, so no closing or last-trick win).
    """

    head_trick: bool = True  # F3.2: beat the trick's winning card when able
    partner_marriage: bool = True  # F4.2: the leader's partner may show one too
    last_trick_bonus: int = 10  # F6.3
    match_target: int = 7  # F7
    name: str = "four"
    false_claim_three: bool = False
    closer_beaten_like_failed: bool = False
    last_trick_wins: int = 0


FOUR = FourRules()


@dataclass(slots=True, repr=False)
class FourState:
    """One four-player deal in progress. Attributes are read-only for callers.

    ``hands``/``played``/``shown``/``known``/``void`` per seat (bitmasks;
    ``shown`` suit bits); ``points``/``tricks``/``won`` per team; ``trick``
    the cards of the trick in progress from its leader on; ``leader``;
    ``marriage_suit`` shown in the current lead window or -1;
    ``partner_shown`` whether the leader's partner showed one this trick;
    ``can_declare`` the seat on lead just won a trick or showed a marriage.
    """

    hands: list[int]
    trump: int
    trump_card: int
    points: list[int]
    tricks: list[int]
    won: list[int]
    played: list[int]
    shown: list[int]
    known: list[int]
    void: list[int]
    window: int
    to_act: int
    leader: int
    trick: list[int]
    marriage_suit: int
    partner_shown: bool
    can_declare: bool
    dealer: int
    match_scores: list[int]
    result: DealResult | None
    rules: FourRules

    closed_by = -1  # no talon: never closed (the shared scoring reads it)

    def clone(self) -> FourState:
        s = FourState.__new__(FourState)
        for f in self.__slots__:
            v = getattr(self, f)
            setattr(s, f, v[:] if type(v) is list else v)
        return s

    __copy__ = clone

    @property
    def is_over(self) -> bool:
        return self.window == OVER

    @property
    def match_over(self) -> bool:
        return max(self.match_scores) >= self.rules.match_target

    @property
    def match_winner(self) -> int | None:
        """The winning team once the match is over."""
        if not self.match_over:
            return None
        return 0 if self.match_scores[0] >= self.rules.match_target else 1

    def score(self, team: int) -> int:
        """A team's deal score: its trick points plus its seats' marriages once it has a trick."""
        if not self.tricks[team]:
            return self.points[team]
        m = marriage_points(self.shown[team], self.trump) + marriage_points(self.shown[team + 2], self.trump)
        return self.points[team] + m

    # ------------------------------------------------------------ legal moves
    def legal_mask(self) -> int:
        w = self.window
        p = self.to_act
        h = self.hands[p]
        if w == LEAD:
            decl = _DECLARE_BIT if self.can_declare and self.tricks[p & 1] else 0
            if self.marriage_suit >= 0:
                return (h & KQ[self.marriage_suit]) | decl
            return h | decl | _marriage_bits(h, self.shown[p])  # a partner's show keeps K and Q in hand
        if w == FOLLOW:
            m = follow_cards(h, self.trick, self.trump, self.rules.head_trick)
            if p == partner_of(self.leader) and self.rules.partner_marriage and not self.partner_shown:
                m |= _marriage_bits(h, self.shown[p])
            return m
        return 0

    def legal_actions(self) -> list[int]:
        return actions_of(self.legal_mask())

    def check_action(self, action: Any) -> int:
        return check_action(action, self.legal_mask(), self._where)

    def _where(self) -> str:
        if self.window == OVER:
            return f": the deal is over ({self.result})"
        return f" for {FOUR_IDS[self.to_act]} in the {WINDOW_NAMES[self.window]} window"

    # ------------------------------------------------------------ transitions
    def apply(self, action: Any) -> None:
        """Play ``action`` for the seat to act; an illegal one raises
        :class:`~sixtysix_env.actions.IllegalActionError`."""
        a = self.check_action(action)
        p = self.to_act
        if a == DECLARE:
            self._end(*declaration(self, p & 1))
        elif a >= MARRIAGE:
            suit = a - MARRIAGE
            self.shown = _with(self.shown, p, 1 << suit)
            self.known = _with(self.known, p, KQ[suit])
            if self.window == LEAD:
                self.marriage_suit = suit
                self.can_declare = True
            else:
                self.partner_shown = True
        elif self.window == LEAD:
            self.hands[p] ^= 1 << a
            self.played[p] |= 1 << a
            self.trick = [a]
            self.window = FOLLOW
            self.to_act = (p + 1) & 3
            self.can_declare = False
            self.marriage_suit = -1
        else:
            self._follow(p, a)

    def play(self, *actions: int | str) -> FourState:
        """Apply actions given as ids or names (``"TH"``, ``"marriage H"``, ``"declare"``)."""
        for a in actions:
            self.apply(parse_action(a) if isinstance(a, str) else a)
        return self

    def _follow(self, p: int, card: int) -> None:
        trick = self.trick
        win_card = winning_card(trick, self.trump)
        lead_suit = trick[0] // 6
        suit = card // 6
        # The strict rules reveal what p lacks (F3.3).
        lacks = 0
        if suit != lead_suit:
            lacks |= SUIT_MASKS[lead_suit]
            if suit != self.trump:
                lacks |= SUIT_MASKS[self.trump]
            elif self.rules.head_trick and win_card // 6 == self.trump and card < win_card:
                lacks |= HIGHER[win_card]
        elif self.rules.head_trick and win_card // 6 == lead_suit and card < win_card:
            lacks |= HIGHER[win_card]
        if lacks:
            self.void = _with(self.void, p, lacks)
        self.hands[p] ^= 1 << card
        self.played[p] |= 1 << card
        trick.append(card)
        if len(trick) < N_SEATS:
            self.to_act = (p + 1) & 3
            return
        best = winning_card(trick, self.trump)
        winner = (self.leader + trick.index(best)) & 3
        team = winner & 1
        self.points[team] += sum(POINTS[c] for c in trick)
        self.tricks[team] += 1
        for c in trick:
            self.won[team] |= 1 << c
        self.trick = []
        self.leader = self.to_act = winner
        self.partner_shown = False
        self.can_declare = True
        if self.hands[winner]:
            self.window = LEAD
        else:
            self.points[team] += self.rules.last_trick_bonus
            self._end(*last_trick(self))

    def _end(self, winner: int | None, game_points: int, reason: str) -> None:
        self.window = OVER
        self.result = DealResult(winner, game_points, reason, (self.score(0), self.score(1)))
        if winner is not None:
            scores = self.match_scores[:]
            scores[winner] += game_points
            self.match_scores = scores

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(names_of(h)) for h in self.hands)
        return (
            f"FourState(window={WINDOW_NAMES[self.window]}, to_act={self.to_act}, hands=[{hands}], "
            f"trump={CARD_NAMES[self.trump_card]}, trick={names_of(sum(1 << c for c in self.trick))}, "
            f"scores=({self.score(0)}, {self.score(1)}), match={self.match_scores}, result={self.result})"
        )


def winning_card(trick: Sequence[int], trump: int) -> int:
    """The card winning the (partial) trick: the highest trump, else the highest of the led suit."""
    best = trick[0]
    for c in trick[1:]:
        if c // 6 == best // 6:
            if c > best:
                best = c
        elif c // 6 == trump:
            best = c
    return best


def follow_cards(hand: int, trick: Sequence[int], trump: int, head: bool = True) -> int:
    """The cards ``hand`` may add to ``trick`` under the strict rules (F3)."""
    lead_suit = trick[0] // 6
    win = winning_card(trick, trump)
    same = hand & SUIT_MASKS[lead_suit]
    if same:
        if head and win // 6 == lead_suit:
            return (same & HIGHER[win]) or same
        return same
    trumps = hand & SUIT_MASKS[trump]
    if trumps:
        if head and win // 6 == trump:
            return (trumps & HIGHER[win]) or trumps
        return trumps
    return hand


def _with(values: list[int], i: int, bits: int) -> list[int]:
    out = values[:]
    out[i] |= bits
    return out


# --------------------------------------------------------------------- dealing
def new_four(
    hands: Sequence[Sequence[int]],
    dealer: int,
    match_scores: Sequence[int] = (0, 0),
    rules: FourRules = FOUR,
) -> FourState:
    """A deal from card ids without validation; trumps are the suit of the
    dealer's last card, shown to all (F2.2)."""
    s = FourState.__new__(FourState)
    s.hands = [sum(1 << c for c in h) for h in hands]
    s.trump_card = hands[dealer][-1]
    s.trump = s.trump_card // 6
    s.points, s.tricks, s.won = [0, 0], [0, 0], [0, 0]
    s.played, s.shown, s.void = [0] * 4, [0] * 4, [0] * 4
    s.known = [0] * 4
    s.known[dealer] = 1 << s.trump_card
    s.window = LEAD
    s.leader = s.to_act = (dealer + 1) & 3
    s.trick = []
    s.marriage_suit = -1
    s.partner_shown = False
    s.can_declare = False
    s.dealer = dealer
    s.match_scores = [int(match_scores[0]), int(match_scores[1])]
    s.result = None
    s.rules = rules
    return s


def deal_four(
    rng: int | random.Random | Any | None = None,
    dealer: int | None = None,
    match_scores: Sequence[int] = (0, 0),
    rules: FourRules = FOUR,
) -> FourState:
    """Shuffle and deal; ``dealer`` None: chosen from the RNG."""
    rng = make_rng(rng)
    dealer = rng.randrange(4) if dealer is None else _check_seat(dealer, "dealer")
    cards = list(range(N_CARDS))
    rng.shuffle(cards)
    cards = [int(c) for c in cards]
    hands = [cards[HAND * i : HAND * (i + 1)] for i in range(N_SEATS)]
    return new_four(hands, dealer, _scores(match_scores, rules), rules)


def fixed_four(
    hands: Sequence[Sequence[int | str]],
    dealer: int = 3,
    match_scores: Sequence[int] = (0, 0),
    rules: FourRules = FOUR,
) -> FourState:
    """A deal fixed card by card: four hands of 6 (ids or names), all 24 cards
    once; the dealer's last listed card is the trump card. ``ValueError``
    names what is wrong."""
    dealer = _check_seat(dealer, "dealer")
    if isinstance(hands, (str, bytes)) or len(hands) != N_SEATS:
        raise ValueError(f"hands must be four lists of {HAND} cards, got {hands!r}")
    parsed = [parse_cards(h) for h in hands]
    for i, h in enumerate(parsed):
        if len(h) != HAND:
            raise ValueError(f"hands[{i}] has {len(h)} cards, expected {HAND}")
    flat = [c for h in parsed for c in h]
    if len(set(flat)) != N_CARDS:
        dupes = sorted({c for c in flat if flat.count(c) > 1})
        raise ValueError(f"duplicate cards in the deal: {', '.join(CARD_NAMES[c] for c in dupes)}")
    return new_four(parsed, dealer, _scores(match_scores, rules), rules)


def next_four(state: FourState, rng: int | random.Random | Any | None = None) -> FourState:
    """The match's next deal: the deal passes to the left after every deal (F7)."""
    if state.result is None:
        raise ValueError("the deal is not over yet")
    if state.match_over:
        raise ValueError(f"the match is over: {state.match_scores}")
    return deal_four(rng, (state.dealer + 1) & 3, state.match_scores, state.rules)


def _check_seat(seat: Any, what: str) -> int:
    if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
        raise ValueError(f"{what} must be a seat 0-3, got {seat!r}")
    return int(seat)


def _scores(match_scores: Any, rules: FourRules) -> list[int]:
    ok = not isinstance(match_scores, (str, bytes)) and len(match_scores) == 2
    if not ok or any(type(g) is not int or not 0 <= g < rules.match_target for g in match_scores):
        top = rules.match_target - 1
        raise ValueError(f"match scores must be two ints in 0..{top}, got {match_scores!r}")
    return list(match_scores)


# --------------------------------------------------------------------- knowledge
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
    seat = _check_seat(seat, "seat")
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
    rng = make_rng(rng)
    others = [s for s in range(N_SEATS) if s != v.player]
    unseen = cards_of(v.unseen)
    for _ in range(tries):
        hands = [v.known[s] if s != v.player else v.hand for s in range(N_SEATS)]
        room = {s: v.hand_sizes[s] - v.known[s].bit_count() for s in others}
        rng.shuffle(unseen)
        ok = True
        # Most constrained cards first keeps restarts rare.
        for c in sorted(unseen, key=lambda c: sum(1 for s in others if not v.void[s] >> c & 1)):
            seats = [s for s in others if room[s] > 0 and not v.void[s] >> c & 1]
            if not seats:
                ok = False
                break
            s = _weighted(rng, seats, room)
            hands[s] |= 1 << c
            room[s] -= 1
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


def describe(v: FourView) -> str:
    """A text table of one seat's view (the AEC env's renders)."""
    rel = ["me", "left", "partner", "right"]
    lines = [
        f"four-player Sixty-Six, {FOUR_IDS[v.player]} (team {v.team}); trumps {CARD_NAMES[v.trump_card]} "
        f"(dealer {FOUR_IDS[v.dealer]}); match {v.match_scores[0]}-{v.match_scores[1]}",
        f"scores: team 0 {v.scores[0]} ({v.tricks[0]} tricks), team 1 {v.scores[1]} ({v.tricks[1]} tricks)",
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


__all__ = [
    "FOUR", "FOUR_IDS", "FourRules", "FourState", "FourView", "N_SEATS", "deal_four", "describe",
    "fixed_four", "follow_cards", "new_four", "next_four", "partner_of", "resample_four", "sample_four",
    "team_of", "view_four", "winning_card",
]  # fmt: skip
