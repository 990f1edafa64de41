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

:class:`FourState`, :class:`FourRules` and the
:class:`~sixtysix_env.four_knowledge.FourView` implement the game contract
of :mod:`sixtysix_env.contract`, as the two-player game does. This module is
the state machine (legal moves, tricks, deal end);
:mod:`~sixtysix_env.four_deals` deals, and :mod:`~sixtysix_env.four_knowledge`
is what one seat knows (:class:`~sixtysix_env.four_knowledge.FourView`) and
the deals consistent with it. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import (
    DECLARE,
    DECLARE_BIT,
    MARRIAGE,
    actions_of,
    check_action,
    is_legal,
    marriage_actions,
    parse_action,
    to_int,
)
from .cards import CARD_NAMES, HIGHER, KQ, POINTS, SUIT_MASKS, names_of, with_bits
from .engine import FOLLOW, LEAD, OVER, WINDOW_NAMES
from .scoring import DealResult, declaration, last_trick, marriage_points

N_SEATS = 4
FOUR_IDS = ("player_0", "player_1", "player_2", "player_3")
HAND = 6


def team_of(seat: int) -> int:
    return seat & 1


def partner_of(seat: int) -> int:
    return (seat + 2) & 3


@dataclass(frozen=True)
class FourRules:
    """The numbers and switches of the four-player game (docs/rules-four.md).

    The last four fields let :mod:`sixtysix_env.scoring` score a team deal
    exactly as a two-player deal (no talon, so no closing or last-trick win);
    with them it is the :class:`~sixtysix_env.contract.GameRules` of the game contract.
    """

    head_trick: bool = True  # F3.2: beat the trick's winning card when able
    partner_marriage: bool = True  # F4.2: the leader's partner may show one too
    last_trick_bonus: int = 10  # F6.3
    match_target: int = 7  # F7
    name: str = "four"
    false_claim_three: bool = False
    closer_beaten_like_failed: bool = False
    last_trick_wins: int = 0
    failed_close_all_tricks: bool = False


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
            decl = DECLARE_BIT if self.can_declare and self.tricks[p & 1] else 0
            if self.marriage_suit >= 0:
                return (h & KQ[self.marriage_suit]) | decl
            # a partner's show keeps K and Q in hand: each seat shows a marriage once
            return h | decl | (marriage_actions(h) & ~(self.shown[p] << MARRIAGE))
        if w == FOLLOW:
            m = follow_cards(h, self.trick, self.trump, self.rules.head_trick)
            if p == partner_of(self.leader) and self.rules.partner_marriage and not self.partner_shown:
                m |= marriage_actions(h) & ~(self.shown[p] << MARRIAGE)
            return m
        return 0

    def legal_actions(self) -> list[int]:
        return actions_of(self.legal_mask())

    def is_legal(self, action: int) -> bool:
        return is_legal(action, self.legal_mask())

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
            self.shown = with_bits(self.shown, p, 1 << suit)
            self.known = with_bits(self.known, p, KQ[suit])
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
            self.void = with_bits(self.void, p, lacks)
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


def check_seat(seat: Any, what: str) -> int:
    """``seat`` as an int if it is a seat 0-3, else ``ValueError`` naming ``what``."""
    if to_int(seat) not in (0, 1, 2, 3):  # ints and numpy ints; never a bool or float
        raise ValueError(f"{what} must be a seat 0-3, got {seat!r}")
    return to_int(seat)


__all__ = [
    "FOUR", "FOUR_IDS", "FourRules", "FourState", "HAND", "N_SEATS", "check_seat", "follow_cards",
    "partner_of", "team_of", "winning_card",
]  # fmt: skip
