"""Forfeits: the reason a game record names, and the four kinds every summary counts.

A forfeit's ``reason`` says exactly what went wrong (an external bot's
"malformed" line, an in-process bot's "exception"); its :class:`ForfeitKind`
groups reasons into the four kinds that summaries, ``bench.md``, results
files and the leaderboard count: time, crash, illegal, protocol.
"""

from __future__ import annotations

from enum import Enum


class ForfeitKind(str, Enum):
    """What kind of fault lost a game by forfeit."""

    TIME = "time"
    CRASH = "crash"
    ILLEGAL = "illegal"
    PROTOCOL = "protocol"


# Every forfeit reason a record may hold, and its kind.
TIMEOUT, EXCEPTION, ILLEGAL, CRASH, MALFORMED, PROTOCOL = (
    "timeout", "exception", "illegal", "crash", "malformed", "protocol")
REASON_KINDS: dict[str, ForfeitKind] = {
    TIMEOUT: ForfeitKind.TIME, EXCEPTION: ForfeitKind.CRASH, CRASH: ForfeitKind.CRASH,
    ILLEGAL: ForfeitKind.ILLEGAL, MALFORMED: ForfeitKind.PROTOCOL, PROTOCOL: ForfeitKind.PROTOCOL,
}
KINDS = tuple(k.value for k in ForfeitKind)
RESIGNED = "resigned"  # a person who gives up at a table (docs/rules.md section 4.4): no fault, so no kind


def kind_of(reason: object) -> str:
    """The kind of a forfeit reason (an unknown reason, e.g. from an old file, is a crash)."""
    kind = REASON_KINDS.get(reason) if isinstance(reason, str) else None
    return (kind or ForfeitKind.CRASH).value


def no_forfeits() -> dict[str, int]:
    """A zero count per kind, in the fixed order time, crash, illegal, protocol."""
    return dict.fromkeys(KINDS, 0)


def kinds_text(counts: dict[str, int]) -> str:
    """``"time 2, crash 1"`` (kinds with a count only; ``"none"`` for none)."""
    return ", ".join(f"{k} {n}" for k, n in counts.items() if n) or "none"
