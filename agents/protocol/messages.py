"""The external-bot protocol: its version, its faults, and every message, built and parsed here.

``PROTOCOL.md`` beside this file documents the message flow, every field and
the versioning rules; ``schemas/`` holds a JSON Schema per message, which
describes exactly the dicts built here. A request is built from the seat's
view alone (:mod:`agents.protocol.views`: a two-player
:class:`~sixtysix_env.knowledge.PlayerView` or a four-player
:class:`~sixtysix_env.four_knowledge.FourView`), so it carries exactly what
the player may know. :mod:`agents.external` runs the bot process.

The arena speaks each bot's own minor version: a bot that answers the
handshake with 1.0 or 1.1 gets the 1.1 messages and plays the two-player
German game only (:func:`check_game` refuses it any other game); a bot
speaking 1.2 or later is told the game in ``new_match`` (players, team,
rules) and may play every preset and the four-player game.
"""

from __future__ import annotations

import functools
import json
import re
from importlib.metadata import version
from typing import Any

from sixtysix_env.actions import ACTION_NAMES, N_ACTIONS, actions_of
from sixtysix_env.engine import MATCH_TARGET
from sixtysix_env.four import FourRules
from sixtysix_env.four_knowledge import FourView
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.variants import Rules

from ..core.forfeits import CRASH, ILLEGAL, MALFORMED, PROTOCOL, TIMEOUT
from .views import any_view_message, legal_message, needs_new_protocol, players_of, rules_message
from .views import view_message as view_message

PROTOCOL_VERSION = "1.2"
PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 2
GAMES_MINOR = 2  # the first minor version told the game (new_match players, team, rules)
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


class BotVersionError(BotProtocolError):
    """The bot's protocol version cannot express the game: a preset or four players for a 1.1 bot."""


# ------------------------------------------------------------ the messages
# Every message the arena sends is built here (the views and rules by
# agents.protocol.views) and nowhere else; the schemas in
# agents/protocol/schemas/ describe exactly these dicts.


def request_message(v: PlayerView | FourView, request_id: int, time_ms: int, minor: int = PROTOCOL_MINOR
                    ) -> dict[str, Any]:
    """A decision request: the view (two or four players; ``minor`` the protocol minor version the
    bot speaks), the legal actions (ids and names) and the time budget."""
    return {
        "type": "request",
        "id": request_id,
        "time_ms": time_ms,
        "view": any_view_message(v, minor),
        "legal": legal_message(v.legal_mask),
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
                      clock: str = "wall", rules: Rules | FourRules | None = None) -> dict[str, Any]:
    """A new game: its unit ("match", or one "deal"), the bot's seat, its own RNG seed (derived
    under a key the bot never sees, so it tells nothing about the cards) and what ``time_ms`` limits.

    With ``rules`` (bots speaking 1.2 or later) it also tells the game: ``players`` (2 or 4),
    the bot's ``team`` (four players; else null) and the ``rules`` as data; ``target`` is the
    rules' match target. Without, it is the 1.1 message of the two-player German game."""
    msg: dict[str, Any] = {"type": "new_match", "seed": None if seed is None else int(seed) % (SAFE_INT + 1),
                           "seat": seat, "unit": unit, "target": MATCH_TARGET, "time_ms": time_ms,
                           "clock": clock}
    if rules is not None:
        four = players_of(rules) == 4
        msg.update(target=rules.match_target, players=players_of(rules), team=seat & 1 if four else None,
                   rules=rules_message(rules))
    return msg


def protocol_minor(protocol: str) -> int:
    """The minor version of a ``"MAJOR.MINOR"`` the handshake accepted (a huge one reads as 10^9)."""
    digits = protocol.partition(".")[2]
    return int(digits) if len(digits) <= 9 else 10**9


def check_game(protocol: str, rules: Any) -> None:
    """Refuse (:class:`BotVersionError`) a game the bot's protocol version cannot express."""
    what = needs_new_protocol(rules)
    if what is not None and protocol_minor(protocol) < GAMES_MINOR:
        raise BotVersionError(f"the bot speaks protocol {shown(protocol)}; {what} needs protocol "
                              f"1.{GAMES_MINOR} or later (the game told in new_match)")


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
