"""The external-bot protocol: its version, its faults, and every message, built and parsed here.

``PROTOCOL.md`` beside this file documents the message flow, every field and
the versioning rules; ``schemas/`` holds a JSON Schema per message, which
describes exactly the dicts built here. A request is built from a
:class:`~sixtysix_env.knowledge.PlayerView` alone, so it carries exactly
what the player may know. :mod:`agents.external` runs the bot process.
"""

from __future__ import annotations

import functools
import json
import re
from importlib.metadata import version
from typing import Any

from sixtysix_env.actions import ACTION_NAMES, N_ACTIONS, actions_of
from sixtysix_env.cards import CARD_NAMES, SUIT_LETTERS
from sixtysix_env.engine import MATCH_TARGET, WINDOW_NAMES
from sixtysix_env.knowledge import PlayerView

from ..forfeits import CRASH, ILLEGAL, MALFORMED, PROTOCOL, TIMEOUT

PROTOCOL_VERSION = "1.1"
PROTOCOL_MAJOR = 1
SAFE_INT = (1 << 53) - 1  # seeds are sent below this, exact in every JSON parser


# ----------------------------------------------------------------- the faults
class ExternalBotError(Exception):
    """A fault of an external bot; ``forfeit_reason`` is what the game record says."""

    forfeit_reason = PROTOCOL

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BotTimeout(ExternalBotError):
    """No reply (or the bot did not read its input) within the time budget."""

    forfeit_reason = TIMEOUT


class BotCrash(ExternalBotError):
    """The process could not start, exited, or closed its pipes."""

    forfeit_reason = CRASH


class BotMalformed(ExternalBotError):
    """A line that is not one JSON object in UTF-8 (bad JSON, nested too deep, not UTF-8, too long)."""

    forfeit_reason = MALFORMED


class BotIllegalAction(ExternalBotError):
    """A well-formed reply naming an action that is not legal now."""

    forfeit_reason = ILLEGAL


class BotProtocolError(ExternalBotError):
    """Valid JSON that breaks the protocol: wrong type or id, missing field, bad version, unasked output."""

    forfeit_reason = PROTOCOL


# ------------------------------------------------------------ the messages
# Every message the arena sends is built here and nowhere else; the schemas
# in agents/protocol/schemas/ describe exactly these dicts.


# Card names of every 8-bit slice of a card mask, so a mask becomes names in three lookups.
_SLICES = tuple(
    tuple(tuple(CARD_NAMES[8 * k + i] for i in range(8) if b >> i & 1) for b in range(256)) for k in range(3)
)


def _cards(mask: int) -> list[str]:
    """Card names of a 24-bit mask, lowest id first."""
    lo, mid, hi = _SLICES
    return [*lo[mask & 255], *mid[mask >> 8 & 255], *hi[mask >> 16 & 255]]


def _card(card: int) -> str | None:
    return CARD_NAMES[card] if card >= 0 else None


def _seat(p: int) -> int | None:
    return p if p >= 0 else None


def _suits(bits: int) -> list[str]:
    return [SUIT_LETTERS[s] for s in range(4) if bits >> s & 1]


_LEGAL = tuple({"id": a, "name": ACTION_NAMES[a]} for a in range(N_ACTIONS))


def view_message(v: PlayerView) -> dict[str, Any]:
    """The ``view`` of a request: what ``v.player`` may know (docs/rules.md section 6), and nothing else.

    Built from the fields of the PlayerView alone, so it cannot leak what
    the view does not hold; the tests resample the hidden cards and check
    that it does not change.
    """
    closed = v.closed_by >= 0
    return {
        "seat": v.player,
        "window": WINDOW_NAMES[v.window],
        "dealer": v.dealer,
        "hand": _cards(v.hand),
        "trump": SUIT_LETTERS[v.trump],
        "trump_card": _card(v.trump_card),
        "talon": v.stock,
        "closed_by": v.closed_by if closed else None,
        "closer_opp_tricks": v.closer_opp_tricks if closed else None,
        "lead_card": _card(v.lead_card),
        "marriage_suit": SUIT_LETTERS[v.marriage_suit] if v.marriage_suit >= 0 else None,
        "can_declare": bool(v.can_declare),
        "scores": [v.scores[0], v.scores[1]],
        "points": [v.points[0], v.points[1]],
        "tricks": [v.tricks[0], v.tricks[1]],
        "played": [_cards(v.played[0]), _cards(v.played[1])],
        "won": [_cards(v.won[0]), _cards(v.won[1])],
        "marriages": [_suits(v.shown[0]), _suits(v.shown[1])],
        "exchanged_by": _seat(v.exchanged_by),
        "opp_hand_size": v.opp_hand_size,
        "opp_known": _cards(v.opp_known),
        "opp_excluded": _cards(v.opp_void),
        "my_known": _cards(v.my_known),
        "my_excluded": _cards(v.my_void),
        "unseen": _cards(v.unseen),
        "match_scores": [v.match_scores[0], v.match_scores[1]],
    }


def request_message(v: PlayerView, request_id: int, time_ms: int) -> dict[str, Any]:
    """A decision request: the view, the legal actions (ids and names) and the time budget."""
    return {
        "type": "request",
        "id": request_id,
        "time_ms": time_ms,
        "view": view_message(v),
        "legal": [_LEGAL[a] for a in actions_of(v.legal_mask)],
    }


@functools.lru_cache(maxsize=1)
def arena_version() -> str:
    """The installed sixtysix package's version (the hello's ``arena_version``), or ``"unknown"``."""
    try:

        return version("sixtysix")
    except Exception:  # noqa: BLE001 - not installed: the source tree
        return "unknown"


def hello_message() -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "arena": "sixtysix",
            "arena_version": arena_version()}


def new_match_message(seed: int | None, seat: int, unit: str | None, time_ms: int,
                      clock: str = "wall") -> dict[str, Any]:
    """A new game: its unit ("match" to 7, or one "deal"), the bot's seat, its own RNG seed (derived
    under a key the bot never sees, so it tells nothing about the cards) and what ``time_ms`` limits."""
    return {"type": "new_match", "seed": None if seed is None else int(seed) % (SAFE_INT + 1),
            "seat": seat, "unit": unit, "target": MATCH_TARGET, "time_ms": time_ms, "clock": clock}


def deal_end_message(index: int, deal: dict[str, Any]) -> dict[str, Any]:
    """A deal ended (``deal`` as in ``GameRecord.deals``: all public)."""
    return {"type": "deal_end", "deal": index, "winner": deal["winner"],
            "game_points": deal["game_points"], "reason": deal["reason"], "scores": list(deal["scores"])}


def match_end_message(record: Any, seat: int) -> dict[str, Any]:
    """The game ended; a forfeit's detail only reaches the bot that forfeited."""
    f = record.forfeit
    forfeit = None if f is None else {"seat": f["seat"], "reason": f["reason"],
                                      "detail": f["detail"] if f["seat"] == seat else None}
    return {"type": "match_end", "unit": record.unit, "winner": record.winner,
            "match_scores": list(record.match_score), "deals": len(record.deals), "forfeit": forfeit}


def quit_message() -> dict[str, Any]:
    return {"type": "quit"}


def encode(msg: dict[str, Any]) -> bytes:
    """One JSON line (compact, ASCII, newline-terminated)."""
    return (json.dumps(msg, separators=(",", ":")) + "\n").encode()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(line: bytes) -> dict[str, Any]:
    """Parse one reply line; anything but a JSON object in UTF-8 is :class:`BotMalformed`.

    The bytes are decoded as UTF-8 first (``json.loads`` of bytes would take
    UTF-16 and UTF-32 too), ``NaN`` and ``Infinity`` are refused, and nesting
    too deep to parse is malformed like any other bad line.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BotMalformed(f"not UTF-8: {clip(line)}") from None
    try:
        msg = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # JSONDecodeError; nesting deeper than the parser's stack
        raise BotMalformed(f"not JSON: {clip(line)}") from None
    if not isinstance(msg, dict):
        raise BotMalformed(f"not a JSON object: {clip(line)}")
    return msg


def clip(line: bytes, n: int = 80) -> str:
    """A bot's line for an error message: its first ``n`` bytes as a Python bytes literal (so
    control characters and invalid UTF-8 show as escapes), "..." when cut."""
    return repr(line[:n]) + ("..." if len(line) > n else "")


def shown(value: Any, n: int = 80) -> str:
    """A value from a bot's message for an error message: its ``repr``, cut to ``n`` characters
    (a bot's value may be a megabyte long or nested too deep to print)."""
    try:
        text = repr(value[: n + 1] if isinstance(value, str) else value)
    except (RecursionError, ValueError):
        text = f"a {type(value).__name__} nested too deep to show"
    return text[:n] + ("..." if len(text) > n else "")


def parse_hello(msg: dict[str, Any]) -> dict[str, str]:
    """Check a bot's handshake; return its name, version and protocol."""
    if msg.get("type") != "hello":
        raise BotProtocolError(f"expected a 'hello' reply to the handshake, got type "
                               f"{shown(msg.get('type'))}")
    info = {}
    for key in ("name", "version", "protocol"):
        value = msg.get(key)
        if not isinstance(value, str) or not value:
            raise BotProtocolError(f"handshake: {key!r} must be a non-empty string, got {shown(value)}")
        info[key] = value
    m = re.fullmatch(r"(\d{1,9})\.\d+", info["protocol"])  # int() refuses thousands of digits
    if m is None or int(m.group(1)) != PROTOCOL_MAJOR:
        raise BotProtocolError(
            f"handshake: bot speaks protocol {shown(info['protocol'])}, the arena speaks {PROTOCOL_VERSION}")
    return info


def parse_action(msg: dict[str, Any], request_id: int, legal_mask: int) -> int:
    """The action of a reply to request ``request_id``, checked against the legal mask."""
    if msg.get("type") != "action":
        raise BotProtocolError(f"expected an 'action' reply to request {request_id}, got type "
                               f"{shown(msg.get('type'))}")
    rid = msg.get("id")
    if type(rid) is not int or rid != request_id:
        raise BotProtocolError(f"reply id {shown(rid)} does not answer request {request_id}")
    a = msg.get("action")
    if type(a) is not int:
        raise BotProtocolError(f"'action' must be an integer action id, got {shown(a)}")
    if not (0 <= a < N_ACTIONS and legal_mask >> a & 1):
        what = f"{a} ({ACTION_NAMES[a]})" if 0 <= a < N_ACTIONS else shown(a)
        legal = ", ".join(str(x) for x in actions_of(legal_mask))
        raise BotIllegalAction(f"illegal action {what}; legal: {legal}")
    return a
