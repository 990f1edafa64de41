"""The four-player table as the person may see it: moves, refusals and the frame, from their view.

The person sits at seat 0 of a four-player partnership game
(docs/rules-four.md), the partner at seat 2 (``"partner"``), the opponents at
seats 1 (``"left"``, who plays after the person) and 3 (``"right"``). Every
function here reads only the person's
:class:`~sixtysix_env.four_knowledge.FourView` (their hand and everything
public) and the public tricks (:class:`tables.frame.Tricks`), so a frame, a
refusal or a move label never names a card the person has not seen. Sides
(``you``, ``opponent``, the match score, a deal's winner) are teams.

The frame's shape is the ``TypedDict`` classes below; a test checks that
every key ``tables/static/four.js`` reads is declared here.
"""

from __future__ import annotations

from typing import TypedDict

from sixtysix_env import ACTION_NAMES
from sixtysix_env.actions import DECLARE, MARRIAGE, actions_of
from sixtysix_env.cards import CARD_NAMES, HIGHER, SUIT_LETTERS, SUIT_MASKS, SUIT_NAMES, cards_of
from sixtysix_env.engine import FOLLOW, LEAD, OVER, WINDOW_NAMES
from sixtysix_env.four import partner_of, winning_card
from sixtysix_env.four_knowledge import FourView
from sixtysix_env.scoring import WIN_SCORE

from .frame import (
    KIND_ORDER,
    DealFrame,
    Event,
    MatchScore,
    Move,
    Side,
    Trick,
    TrickCard,
    Tricks,
    card_names,
    card_order,
)
from .moves import SUIT_SYMBOLS, marriage_points

SEAT_WORDS = ("you", "left", "partner", "right")  # seat 0 (the person) to 3, clockwise
SEAT_NAMES = ("You", "Left", "Partner", "Right")  # how texts begin with a seat


class FourSeat(TypedDict):
    """Another seat as the person sees it."""

    cards: int  # cards in hand
    known: list[str]  # cards it surely holds (a shown marriage's K and Q, the dealer's trump card)
    marriages: list[str]  # suit letters of the marriage it showed


class FourSeats(TypedDict):
    left: FourSeat
    partner: FourSeat
    right: FourSeat


class FourTableFrame(TypedDict):
    """What the person sees of a four-player table (:func:`four_frame`)."""

    players: int  # 4
    dealer: str  # a seat word
    match: MatchScore  # you: the person's team
    trump: str
    trump_card: str
    trump_held: bool  # the dealer still holds the trump card
    hand: list[str]
    seats: FourSeats
    trick: Trick  # who: a seat word
    last_trick: Trick | None
    you: Side  # the person's team
    opponent: Side  # the other team
    to_act: str | None
    window: str
    legal: list[Move]
    illegal: dict[str, str]


class FourFrame(FourTableFrame):
    """A four-player frame as a session sends it (:meth:`tables.four_session.FourSession.frame`)."""

    version: int
    deal: int
    deal_result: DealFrame | None
    events: list[Event]


def four_moves(v: FourView) -> list[Move]:
    """The person's legal moves in table order (cards as held, marriages, declaring); none
    when it is not their turn."""
    if v.to_act != v.player or v.window == OVER:
        return []
    moves = [four_move(v, a) for a in actions_of(v.legal_mask)]
    order = {c: i for i, c in enumerate(card_order(cards_of(v.hand), v.trump))}
    moves.sort(key=lambda m: (KIND_ORDER[m["kind"]], order.get(m["action"], m["action"])))
    return moves


def four_move(v: FourView, a: int) -> Move:
    """Legal action ``a`` as the four-player table offers it."""
    name = ACTION_NAMES[a]
    if a < MARRIAGE:
        return Move(action=a, name=name, kind="card", card=CARD_NAMES[a], label=CARD_NAMES[a])
    if a == DECLARE:
        score = v.scores[v.team]
        false = score < WIN_SCORE
        return Move(action=a, name=name, kind="declare", false=false,
                    label=f"Declare 66 ({'false: ' if false else ''}your team has {score})")
    s = a - MARRIAGE
    trumps = ", trumps" if s == v.trump else ""
    return Move(action=a, name=name, kind="marriage", suit=SUIT_LETTERS[s],
                label=f"Marriage {SUIT_SYMBOLS[s]} ({marriage_points(s, v.trump)}{trumps})")


def why_illegal_four(v: FourView, action: int) -> str | None:
    """Why ``action`` is not legal for the person now (None if it is), in the four-player
    rules' words. Reads only the view."""
    if (v.legal_mask >> action) & 1:
        return None
    if v.window == OVER:
        return "the deal is over"
    if v.to_act != v.player:
        return "it is not your turn"
    if action < 24:
        return _why_not_card(v, action)
    if MARRIAGE <= action < MARRIAGE + 4:
        return _why_not_marriage(v, action - MARRIAGE)
    if action == DECLARE:
        if v.tricks[v.team] == 0:
            return "your team needs a trick before you can declare"
        if v.window != LEAD:
            return "you may declare only on lead"
        return "you may declare only right after winning a trick or showing a marriage"
    return f"the four-player game has no {ACTION_NAMES[action]}: play a card, show a marriage or declare 66"


def _why_not_card(v: FourView, card: int) -> str:
    hand = v.hand
    if not (hand >> card) & 1:
        return f"you do not hold {CARD_NAMES[card]}"
    if v.window == LEAD:
        return f"after showing the marriage in {SUIT_NAMES[v.marriage_suit]} you must lead its king or queen"
    lead_suit = v.trick[0] // 6
    win = winning_card(v.trick, v.trump)
    suit = SUIT_NAMES[lead_suit]
    if hand & SUIT_MASKS[lead_suit]:
        if card // 6 != lead_suit:
            return f"you must follow suit ({suit})"
        return f"you must head the trick: beat {CARD_NAMES[win]} with a higher {suit[:-1]}"
    if hand & SUIT_MASKS[v.trump] and hand & SUIT_MASKS[v.trump] & HIGHER[win] and win // 6 == v.trump:
        return f"with no {suit} you must over-trump {CARD_NAMES[win]}"
    return f"with no {suit} you must play a trump"


def _why_not_marriage(v: FourView, suit: int) -> str:
    if v.shown[v.player]:
        return "each player shows a marriage once a deal, and you have shown yours"
    if v.window == FOLLOW and v.player != partner_of(v.leader):
        return "a marriage is shown on lead, or by the leader's partner before their card"
    if v.window == FOLLOW and v.partner_shown:
        return "one marriage per trick by the leader's partner"
    if v.window == LEAD and v.marriage_suit >= 0:
        return "one marriage per lead: now lead its king or queen"
    return f"you do not hold the king and queen of {SUIT_NAMES[suit]}"


def refusals(v: FourView) -> dict[str, str]:
    """Why each card in hand that may not be played now may not (for dimmed cards)."""
    reasons = {CARD_NAMES[c]: why_illegal_four(v, c) for c in cards_of(v.hand)}
    return {name: r for name, r in reasons.items() if r is not None}


def _trick(cards: list[tuple[int, int]], taken_by: int | None) -> Trick:
    return Trick(cards=[TrickCard(who=SEAT_WORDS[p], card=CARD_NAMES[c]) for p, c in cards],
                 taken_by=None if taken_by is None else SEAT_WORDS[taken_by])


def four_frame(v: FourView, tricks: Tricks, finished: bool) -> FourTableFrame:
    """What the person (seat 0 of view ``v``) sees of the table, with the public ``tricks``
    (``finished``: the game has ended, even if the view's deal has not)."""
    over = v.window == OVER or finished
    moves = [] if over else four_moves(v)
    seats = {SEAT_WORDS[s]: FourSeat(cards=v.hand_sizes[s], known=card_names(v.known[s], v.trump),
                                     marriages=[SUIT_LETTERS[x] for x in range(4) if v.shown[s] >> x & 1])
             for s in (1, 2, 3)}
    me, opp = v.team, 1 - v.team
    return FourTableFrame(
        players=4,
        dealer=SEAT_WORDS[v.dealer],
        match=MatchScore(you=v.match_scores[me], opponent=v.match_scores[opp], target=v.rules.match_target),
        trump=SUIT_LETTERS[v.trump],
        trump_card=CARD_NAMES[v.trump_card],
        trump_held=not (v.played[v.dealer] >> v.trump_card) & 1,
        hand=card_names(v.hand, v.trump),
        seats=FourSeats(left=seats["left"], partner=seats["partner"], right=seats["right"]),
        trick=_trick(tricks.cards, tricks.taken_by),
        last_trick=None if tricks.last is None else _trick(*tricks.last),
        you=team_side(v, me),
        opponent=team_side(v, opp),
        to_act=None if over else SEAT_WORDS[v.to_act],
        window=WINDOW_NAMES[v.window],
        legal=moves,
        illegal=refusals(v) if moves else {},
    )


def team_side(v: FourView, team: int) -> Side:
    """A team's public tally: its score, tricks and both its seats' marriages."""
    shown = [s for seat in (team, team + 2) for s in range(4) if v.shown[seat] >> s & 1]
    pending = 0 if v.tricks[team] else sum(marriage_points(s, v.trump) for s in shown)
    return Side(score=v.scores[team], tricks=v.tricks[team], marriages=[SUIT_LETTERS[s] for s in shown],
                pending=pending)


__all__ = ["SEAT_NAMES", "SEAT_WORDS", "FourFrame", "FourSeat", "FourSeats", "FourTableFrame", "four_frame",
           "four_move", "four_moves", "refusals", "team_side", "why_illegal_four"]
