"""What the external-bot protocol tells a bot of its game: the seat's view and the rules, as JSON data.

Each builder reads one object of the game contract (:mod:`sixtysix_env.contract`)
and nothing else: :func:`view_message` a two-player
:class:`~sixtysix_env.knowledge.PlayerView`, :func:`four_view_message` a
:class:`~sixtysix_env.four_knowledge.FourView`, :func:`rules_message` a
:class:`~sixtysix_env.variants.Rules` or :class:`~sixtysix_env.four.FourRules`.
A view holds no hidden card, so no message built from it can leak one; the
tests resample the hidden cards and check the messages do not change.
:mod:`agents.protocol.messages` puts them into messages; ``PROTOCOL.md``
documents every field, ``schemas/request.schema.json`` and
``schemas/new_match.schema.json`` describe them exactly.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from sixtysix_env.actions import ACTION_NAMES, N_ACTIONS, actions_of
from sixtysix_env.cards import CARD_NAMES, RANK_LETTERS, SUIT_LETTERS
from sixtysix_env.engine import WINDOW_NAMES
from sixtysix_env.four import FourRules
from sixtysix_env.four_knowledge import FourView
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.variants import GERMAN, Rules

# Card names of every 8-bit slice of a card mask, so a mask becomes names in three lookups.
_SLICES = tuple(
    tuple(tuple(CARD_NAMES[8 * k + i] for i in range(8) if b >> i & 1) for b in range(256)) for k in range(3)
)


def cards(mask: int) -> list[str]:
    """Card names of a 24-bit mask, lowest id first."""
    lo, mid, hi = _SLICES
    return [*lo[mask & 255], *mid[mask >> 8 & 255], *hi[mask >> 16 & 255]]


def _card(card: int) -> str | None:
    return CARD_NAMES[card] if card >= 0 else None


def _seat(p: int) -> int | None:
    return p if p >= 0 else None


def _suits(bits: int) -> list[str]:
    return [SUIT_LETTERS[s] for s in range(4) if bits >> s & 1]


def _suit(s: int) -> str | None:
    return SUIT_LETTERS[s] if s >= 0 else None


_LEGAL = tuple({"id": a, "name": ACTION_NAMES[a]} for a in range(N_ACTIONS))


def legal_message(mask: int) -> list[dict[str, Any]]:
    """The legal actions of a mask, lowest id first, each ``{"id", "name"}``."""
    return [_LEGAL[a] for a in actions_of(mask)]


def view_message(v: PlayerView, minor: int = 2) -> dict[str, Any]:
    """The ``view`` of a two-player request: what ``v.player`` may know (docs/rules.md section 6),
    and nothing else. ``minor`` is the protocol minor version the bot speaks: ``bonus`` is sent
    from 1.2 on."""
    closed = v.closed_by >= 0
    msg = {
        "seat": v.player,
        "window": WINDOW_NAMES[v.window],
        "dealer": v.dealer,
        "hand": cards(v.hand),
        "trump": SUIT_LETTERS[v.trump],
        "trump_card": _card(v.trump_card),
        "talon": v.stock,
        "closed_by": v.closed_by if closed else None,
        "closer_opp_tricks": v.closer_opp_tricks if closed else None,
        "lead_card": _card(v.lead_card),
        "marriage_suit": _suit(v.marriage_suit),
        "can_declare": bool(v.can_declare),
        "scores": [v.scores[0], v.scores[1]],
        "points": [v.points[0], v.points[1]],
        "tricks": [v.tricks[0], v.tricks[1]],
        "played": [cards(v.played[0]), cards(v.played[1])],
        "won": [cards(v.won[0]), cards(v.won[1])],
        "marriages": [_suits(v.shown[0]), _suits(v.shown[1])],
        "exchanged_by": _seat(v.exchanged_by),
        "opp_hand_size": v.opp_hand_size,
        "opp_known": cards(v.opp_known),
        "opp_excluded": cards(v.opp_void),
        "my_known": cards(v.my_known),
        "my_excluded": cards(v.my_void),
        "unseen": cards(v.unseen),
        "match_scores": [v.match_scores[0], v.match_scores[1]],
    }
    if minor >= 2:
        msg["bonus"] = v.bonus
    return msg


def four_view_message(v: FourView) -> dict[str, Any]:
    """The ``view`` of a four-player request: what seat ``v.player`` may know (docs/rules-four.md),
    and nothing else. Lists of four are by seat, lists of two by team (``seat % 2``)."""
    return {
        "seat": v.player,
        "team": v.player & 1,
        "partner": (v.player + 2) & 3,
        "window": WINDOW_NAMES[v.window],
        "dealer": v.dealer,
        "leader": v.leader,
        "hand": cards(v.hand),
        "trump": SUIT_LETTERS[v.trump],
        "trump_card": CARD_NAMES[v.trump_card],
        "trick": [CARD_NAMES[c] for c in v.trick],
        "marriage_suit": _suit(v.marriage_suit),
        "partner_shown": bool(v.partner_shown),
        "can_declare": bool(v.can_declare),
        "scores": [v.scores[0], v.scores[1]],
        "points": [v.points[0], v.points[1]],
        "tricks": [v.tricks[0], v.tricks[1]],
        "won": [cards(v.won[0]), cards(v.won[1])],
        "played": [cards(m) for m in v.played],
        "marriages": [_suits(m) for m in v.shown],
        "known": [cards(m) for m in v.known],
        "excluded": [cards(m) for m in v.void],
        "hand_sizes": list(v.hand_sizes),
        "unseen": cards(v.unseen),
        "match_scores": [v.match_scores[0], v.match_scores[1]],
    }


def any_view_message(v: PlayerView | FourView, minor: int = 2) -> dict[str, Any]:
    """The ``view`` of a request for either game."""
    return four_view_message(v) if isinstance(v, FourView) else view_message(v, minor)


def _value(name: str, value: Any) -> Any:
    if name == "deck":
        return cards(value)
    if name == "exchange_rank":
        return RANK_LETTERS[value]
    return value


def rules_message(rules: Rules | FourRules) -> dict[str, Any]:
    """The rules as data: every field of the rules record (the ones that make the game, not
    those derived from them), the deck as card names, the exchange card as a rank letter;
    a two-player preset also has its ``spec`` (:func:`~sixtysix_env.variants.rules_from_spec`)."""
    if not isinstance(rules, Rules | FourRules):
        raise TypeError(f"game rules must be Rules or FourRules, got {type(rules).__name__}")
    msg = {"name": rules.name}
    msg.update((f.name, _value(f.name, getattr(rules, f.name))) for f in fields(rules) if f.compare)
    if isinstance(rules, Rules):
        msg["spec"] = rules.spec
    return msg


def players_of(rules: Rules | FourRules) -> int:
    """2 or 4: the players of a game under ``rules``."""
    return 4 if isinstance(rules, FourRules) else 2


def needs_new_protocol(rules: Any) -> str | None:
    """What a bot speaking protocol 1.1 or older cannot play under ``rules`` (its words), or
    None: those bots play the two-player German game only."""
    if isinstance(rules, FourRules):
        return "the four-player game"
    if rules is GERMAN or rules == GERMAN:
        return None
    spec = rules.spec if isinstance(rules, Rules) else type(rules).__name__
    return f"rules preset {spec!r}"


__all__ = ["any_view_message", "cards", "four_view_message", "legal_message", "needs_new_protocol",
           "players_of", "rules_message", "view_message"]
