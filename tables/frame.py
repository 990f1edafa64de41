"""The table as the person may see it: a JSON-ready frame from their view and the public tricks.

A frame is built from the person's :class:`~sixtysix_env.PlayerView` and the
cards played to the tricks (every move in Sixty-Six is public once made),
nothing else, so nothing else about the hidden cards can reach a screen.
Cards are written by name (``"TH"``); the tables draw them. Seats are
``"you"`` and ``"opponent"``.

The frame's shape is declared once, by the ``TypedDict`` classes below: the
Python side builds and reads them, and a test checks that every key the
browser's scripts read (``tables/static/table.js``) is declared here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from sixtysix_env import ACTION_NAMES, PlayerView
from sixtysix_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE, actions_of
from sixtysix_env.cards import CARD_NAMES, SUIT_LETTERS, cards_of
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, FINAL, OVER, WINDOW_NAMES
from sixtysix_env.scoring import WIN_SCORE

from .moves import SUIT_SYMBOLS, marriage_points, talon_word, why_illegal

YOU, OPPONENT = "you", "opponent"
KIND_ORDER = {"card": 0, "marriage": 1, "exchange": 2, "close": 3, "declare": 4, "continue": 5}
CONTINUE_LABELS = {DRAW: "Draw", CLOSE_RESPONSE: "Continue (no exchange)", FINAL: "Continue (no declaration)"}


class MoveBase(TypedDict):
    """The keys of every move."""

    action: int
    name: str
    kind: str  # a key of KIND_ORDER
    label: str


class Move(MoveBase, total=False):
    """One legal move as a table offers it: a card of the hand or a button."""

    card: str  # kind "card"
    suit: str  # kind "marriage"
    false: bool  # kind "declare": the player has less than 66


class Side(TypedDict):
    """One player's public tally in the deal."""

    score: int
    tricks: int
    marriages: list[str]  # suit letters
    pending: int  # marriage points that count once the player takes a trick


class MatchScore(TypedDict):
    you: int
    opponent: int
    target: int


class TrickCard(TypedDict):
    who: str
    card: str


class Trick(TypedDict):
    cards: list[TrickCard]
    taken_by: str | None


class TableFrame(TypedDict):
    """What one player sees of the table (:func:`table_frame`)."""

    dealer: str
    match: MatchScore
    trump: str
    trump_card: str | None
    talon: int
    talon_state: str
    closed_by: str | None
    hand: list[str]
    opponent_cards: int
    opponent_known: list[str]
    trick: Trick
    last_trick: Trick | None
    you: Side
    opponent: Side
    to_act: str | None
    window: str
    legal: list[Move]
    illegal: dict[str, str]  # card name -> why it may not be played now


class DealScores(TypedDict):
    you: int
    opponent: int


class DealFrame(TypedDict):
    """A finished deal from the person's side (:meth:`tables.narration.Narrator.deal_result`)."""

    deal: int
    winner: str | None
    game_points: int
    reason: str
    scores: DealScores
    text: str
    match_over: bool


class Event(TypedDict):
    """One line of the moves log."""

    seq: int
    version: int
    deal: int
    who: str | None
    action: int | None
    text: str


class Frame(TableFrame):
    """A table frame as a session sends it (:meth:`tables.session.Session.frame`)."""

    version: int
    deal: int
    deal_result: DealFrame | None
    events: list[Event]


class Forfeit(TypedDict):
    seat: int
    reason: str
    detail: str


class YouAndBot(TypedDict):
    you: int
    opponent: int


class GameSummary(TypedDict):
    """The game around the table (:meth:`tables.session.Session.summary`)."""

    bot: str
    episode: str
    seat: str  # "player_0" or "player_1"
    version: int
    over: bool
    winner: str | None  # "you" or "opponent"
    match_score: YouAndBot | None  # once the game is over
    forfeit: Forfeit | None
    title: str | None  # who won, for both tables (tables.narration.Narrator.result_title)
    seed: int | None  # once the game is over, or when the person chose it
    deals: list[DealFrame]
    rules: str  # the rules preset's spec (docs/rules-variants.md); "four" at a four-player table
    players: int  # 2, or 4: the person and a partner bot against two bots (tables.four_session)
    partner: str | None  # the partner bot's spec at a four-player table (``bot``: the opponents')


class GameInfo(GameSummary):
    """The summary as the web API sends it (:meth:`tables.games.Game.payload`)."""

    record: int | None  # the game's index in the server's record file, once saved
    hint_bot: str | None
    thinking: bool  # the bot is choosing its move


def card_order(cards: list[int], trump: int) -> list[int]:
    """Cards as a hand is held: suits alternating in colour, trumps last, low to high."""
    suits = [s for s in (0, 2, 1, 3) if s != trump] + [trump]
    return sorted(cards, key=lambda c: (suits.index(c // 6), c % 6))


def card_names(mask: int, trump: int) -> list[str]:
    """The cards of ``mask`` by name, in :func:`card_order`."""
    return [CARD_NAMES[c] for c in card_order(cards_of(mask), trump)]


@dataclass
class Tricks:
    """The trick on the table and the last one taken, as (seat, card) pairs.
    Both tables and the viewer keep them the same way."""

    cards: list[tuple[int, int]] = field(default_factory=list)
    taken_by: int | None = None  # who takes the trick on the table, once it is complete
    last: tuple[list[tuple[int, int]], int] | None = None  # the previous trick and who took it

    def play(self, seat: int, card: int, lead: bool, taken_by: int | None) -> None:
        """``seat`` played ``card`` (leading, or completing the trick that ``taken_by`` takes)."""
        if lead:
            if self.taken_by is not None:
                self.last = (self.cards, self.taken_by)
            self.cards, self.taken_by = [(seat, card)], None
        else:
            self.cards, self.taken_by = self.cards + [(seat, card)], taken_by


# ------------------------------------------------------------------ moves
def legal_moves(v: PlayerView) -> list[Move]:
    """The legal moves of the view's player in table order (cards as held, then the buttons);
    none when it is not their turn."""
    if v.to_act != v.player or v.window == OVER:
        return []
    moves = [move_entry(v, a) for a in actions_of(v.legal_mask)]
    order = {c: i for i, c in enumerate(card_order(cards_of(v.hand), v.trump))}
    moves.sort(key=lambda m: (KIND_ORDER[m["kind"]], order.get(m["action"], m["action"])))
    return moves


def move_entry(v: PlayerView, a: int) -> Move:
    """Legal action ``a`` as a table offers it: its kind and a label (a button's text)."""
    name = ACTION_NAMES[a]
    if a < 24:
        return Move(action=a, name=name, kind="card", card=CARD_NAMES[a], label=CARD_NAMES[a])
    if a < EXCHANGE:
        s = a - MARRIAGE
        trumps = ", trumps" if s == v.trump else ""
        return Move(action=a, name=name, kind="marriage", suit=SUIT_LETTERS[s],
                    label=f"Marriage {SUIT_SYMBOLS[s]} ({marriage_points(s, v.trump)}{trumps})")
    if a == EXCHANGE:
        return Move(action=a, name=name, kind="exchange",
                    label=f"Exchange {CARD_NAMES[6 * v.trump]} for {CARD_NAMES[v.trump_card]}")
    if a == CLOSE:
        return Move(action=a, name=name, kind="close",
                    label="Close the talon" + (" (no draw)" if v.window == DRAW else ""))
    if a == DECLARE:
        score = v.scores[v.player]
        false = score < WIN_SCORE
        return Move(action=a, name=name, kind="declare", false=false,
                    label=f"Declare 66 ({'false: ' if false else ''}you have {score})")
    return Move(action=a, name=name, kind="continue", label=CONTINUE_LABELS.get(v.window, "Continue"))


def card_refusals(v: PlayerView) -> dict[str, str]:
    """Why each card in hand that may not be played now may not (for dimmed cards)."""
    reasons = {CARD_NAMES[c]: why_illegal(v, c) for c in cards_of(v.hand)}
    return {name: r for name, r in reasons.items() if r is not None}


# ------------------------------------------------------------------ the frame
def table_frame(v: PlayerView, tricks: Tricks, finished: bool) -> TableFrame:
    """What view ``v``'s player sees of the table, with the public ``tricks``
    (``finished``: the game has ended, even if the view's deal has not)."""
    me, opp = v.player, 1 - v.player

    def who(p: int) -> str:
        return YOU if p == me else OPPONENT

    def trick(cards: list[tuple[int, int]], taken_by: int | None) -> Trick:
        return Trick(cards=[TrickCard(who=who(p), card=CARD_NAMES[c]) for p, c in cards],
                     taken_by=None if taken_by is None else who(taken_by))

    over = v.window == OVER or finished
    moves = [] if over else legal_moves(v)
    return TableFrame(
        dealer=who(v.dealer),
        match=MatchScore(you=v.match_scores[me], opponent=v.match_scores[opp], target=v.rules.match_target),
        trump=SUIT_LETTERS[v.trump],
        trump_card=CARD_NAMES[v.trump_card] if v.trump_card >= 0 else None,
        talon=v.stock,
        talon_state=talon_word(v),
        closed_by=who(v.closed_by) if v.closed_by >= 0 else None,
        hand=card_names(v.hand, v.trump),
        opponent_cards=v.opp_hand_size,
        opponent_known=card_names(v.opp_known, v.trump),
        trick=trick(tricks.cards, tricks.taken_by),
        last_trick=None if tricks.last is None else trick(*tricks.last),
        you=_side(v, me),
        opponent=_side(v, opp),
        to_act=None if over else who(v.to_act),
        window=WINDOW_NAMES[v.window],
        legal=moves,
        illegal=card_refusals(v) if moves else {},
    )


def _side(v: PlayerView, p: int) -> Side:
    shown = [s for s in range(4) if v.shown[p] >> s & 1]
    pending = 0 if v.tricks[p] else sum(marriage_points(s, v.trump) for s in shown)
    return Side(score=v.scores[p], tricks=v.tricks[p], marriages=[SUIT_LETTERS[s] for s in shown],
                pending=pending)


__all__ = ["OPPONENT", "YOU", "DealFrame", "Event", "Forfeit", "Frame", "GameInfo", "GameSummary",
           "MatchScore", "Move", "MoveBase", "Side", "TableFrame", "Trick", "TrickCard", "Tricks",
           "YouAndBot", "card_names", "card_order", "legal_moves", "move_entry", "table_frame"]
