"""The person's moves in words: what a typed or sent move means, and why one is refused.

Both read only the person's :class:`~sixtysix_env.PlayerView`, so a refusal
("the talon is closed: you must follow suit (hearts)") never tells more than
the player already knows. :class:`IllegalMove` carries that reason; the
tables show it and leave the game as it was.
"""

from __future__ import annotations

import re

from sixtysix_env import ACTION_NAMES, PlayerView, parse_action
from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE
from sixtysix_env.cards import CARD_NAMES, SUIT_LETTERS, SUIT_NAMES
from sixtysix_env.contract import GameView
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, FINAL, FOLLOW, LEAD, OVER
from sixtysix_env.scoring import MARRIAGE_POINTS, TRUMP_MARRIAGE_POINTS

SUIT_SYMBOLS = "♣♠♥♦"
MOVE_TEXT_LIMIT = 40
_CARD_WORD = re.compile(r"^(10|[9jqkta])\s*([cshd♣♠♥♦])$", re.IGNORECASE)
_MARRY_WORDS = ("marry", "marriage", "m", "show", "meld", "20", "40")
_WORDS = {
    "exchange": EXCHANGE, "x": EXCHANGE, "swap": EXCHANGE,
    "close": CLOSE,
    "66": DECLARE, "declare": DECLARE, "claim": DECLARE, "out": DECLARE,
    "continue": CONTINUE, "draw": CONTINUE, "decline": CONTINUE, "pass": CONTINUE,
    "go": CONTINUE, "no": CONTINUE, "c": CONTINUE,
}


class IllegalMove(ValueError):
    """A move the person may not make now; the message says why. The game is unchanged."""


def marriage_points(suit: int, trump: int) -> int:
    return TRUMP_MARRIAGE_POINTS if suit == trump else MARRIAGE_POINTS


def talon_word(v: PlayerView) -> str:
    """``"closed"``, ``"open"`` or ``"spent"``: the talon as the player sees it."""
    if v.closed_by >= 0:
        return "closed"
    return "open" if v.stock else "spent"


# ------------------------------------------------------------------ reading
def parse_card_word(text: str) -> int | None:
    """``"TH"``, ``"th"``, ``"10H"``, ``"T♥"``, ``"10 ♥"`` -> card id; None if not a card."""
    m = _CARD_WORD.match(text.strip())
    if m is None:
        return None
    rank = "T" if m.group(1) == "10" else m.group(1).upper()
    suit = m.group(2).upper()
    suit = SUIT_LETTERS[SUIT_SYMBOLS.index(suit)] if suit in SUIT_SYMBOLS else suit
    return CARD_NAMES.index(rank + suit)


def parse_suit_word(text: str) -> int | None:
    """``"H"``, ``"♥"``, ``"hearts"``, ``"heart"`` -> suit; None if not a suit."""
    t = text.strip().lower()
    for s in range(4):
        if t in (SUIT_LETTERS[s].lower(), SUIT_SYMBOLS[s], SUIT_NAMES[s], SUIT_NAMES[s][:-1]):
            return s
    return None


def parse_move(v: GameView, text: str) -> int:
    """The action a person means by ``text`` in view ``v``: a card (``TH``, ``10H``, ``T♥``),
    ``marry H``, ``exchange``, ``close``, ``66``/``declare``, ``continue``/``draw``, or an
    action name (``play TH``, ``marriage H``). ``ValueError`` when the text is no move at
    all; whether the move is legal is :func:`why_illegal`'s question."""
    if not isinstance(text, str) or len(text) > MOVE_TEXT_LIMIT:
        raise ValueError("a move is a short text: a card, 'marry' and a suit, close, 66 or continue")
    t = " ".join(text.strip().lower().split())
    action = _parse_words(v, t)
    if action is None:
        try:
            action = parse_action(t)
        except ValueError:
            raise ValueError(
                f"not a move: {text.strip()!r}; type a card (rank 9 J Q K T A, then suit C S H D), "
                "'marry' and a suit, 'exchange', 'close', '66' or 'continue'") from None
    return action


def _parse_words(v: GameView, t: str) -> int | None:
    card = parse_card_word(t)
    if card is not None:
        return card
    if t.startswith("play "):
        return parse_card_word(t[5:])
    words = t.split(" ")
    if words[0] in _MARRY_WORDS:
        if len(words) == 1:
            legal = [a for a in range(MARRIAGE, EXCHANGE) if (v.legal_mask >> a) & 1]
            if len(legal) > 1:
                raise ValueError("which marriage? say 'marry H' (or C, S, D)")
            return legal[0] if legal else MARRIAGE + v.trump
        suit = parse_suit_word(" ".join(words[1:]))
        return None if suit is None else MARRIAGE + suit
    return _WORDS.get(t)


# ------------------------------------------------------------------ refusing
def why_illegal(v: PlayerView, action: int) -> str | None:
    """Why ``action`` is not legal for the player of view ``v`` (None if it is),
    in words a player understands. Reads only the view."""
    if (v.legal_mask >> action) & 1:
        return None
    if v.window == OVER:
        return "the game is over"
    if v.to_act != v.player:
        return "it is not your turn"
    if action < 24:
        return _why_not_card(v, action)
    if MARRIAGE <= action < EXCHANGE:
        return _why_not_marriage(v, action - MARRIAGE)
    if action == EXCHANGE:
        return _why_not_exchange(v)
    if action == CLOSE:
        if not v.talon_open:
            return f"the talon is already {talon_word(v)}"
        if v.window in (FOLLOW, CLOSE_RESPONSE):
            return "only the player on lead may close the talon"
        return "you cannot close now"
    if action == DECLARE:
        if v.tricks[v.player] == 0:
            return "you need a trick before you can declare"
        return "you may declare only right after taking a trick or showing a marriage"
    if action == CONTINUE and v.window in (LEAD, FOLLOW):
        return "you are on lead: play a card" if v.window == LEAD else "play a card to the trick"
    return f"{ACTION_NAMES[action]} is not possible now"


def _why_not_card(v: PlayerView, card: int) -> str:
    w, hand = v.window, v.hand
    if not (hand >> card) & 1:
        return f"you do not hold {CARD_NAMES[card]}"
    if w == DRAW:
        return "you took the trick: draw first (continue), or close, exchange or declare"
    if w == CLOSE_RESPONSE:
        return "the talon was just closed: continue (or exchange the nine of trumps) first"
    if w == FINAL:
        return "no cards left to play: declare or continue"
    if w == LEAD and v.marriage_suit >= 0:
        return f"after showing the marriage in {SUIT_NAMES[v.marriage_suit]} you must lead its king or queen"
    if w == FOLLOW:
        lead = v.lead_card
        lead_suit = lead // 6
        talon, suit = talon_word(v), SUIT_NAMES[lead_suit]
        if not hand & (0b111111 << (6 * lead_suit)):
            return f"the talon is {talon}: with no {suit} you must play a trump"
        if card // 6 != lead_suit:
            return f"the talon is {talon}: you must follow suit ({suit})"
        return f"the talon is {talon}: you must beat {CARD_NAMES[lead]} with a higher {suit[:-1]}"
    return f"{CARD_NAMES[card]} cannot be played now"


def _why_not_marriage(v: PlayerView, suit: int) -> str:
    if v.window != LEAD:
        return "a marriage is shown when you lead"
    if not v.talon_open:
        return f"no marriages once the talon is {talon_word(v)}"
    if v.marriage_suit >= 0:
        return "one marriage per lead: now lead its king or queen"
    return f"you do not hold the king and queen of {SUIT_NAMES[suit]}"


def _why_not_exchange(v: PlayerView) -> str:
    w = v.window
    if not (v.hand >> (6 * v.trump)) & 1:
        return "you do not hold the nine of trumps"
    if not v.talon_open and w != CLOSE_RESPONSE:
        return f"the talon is {talon_word(v)}"
    if w == FOLLOW:
        return "only the player on lead may exchange"
    if w == LEAD and v.marriage_suit >= 0:
        return "exchange before showing a marriage, not after"
    if v.tricks[v.player] == 0:
        return "you may exchange only after taking a trick"
    return "you cannot exchange now"


__all__ = ["SUIT_SYMBOLS", "IllegalMove", "marriage_points", "parse_card_word", "parse_move",
           "parse_suit_word", "talon_word", "why_illegal"]
