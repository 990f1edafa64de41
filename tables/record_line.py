"""The one check of a game line before the viewer uses it: every field typed, bounded, finite.

Records reach the viewer from untrusted places (a browser's upload, the
operator's ``--records`` files from elsewhere, the tables' own file, which
another program may share). :func:`checked_line` is where each enters:
it builds a new line holding only the fields the viewer reads, each checked
(ints in range, strings of bounded length, no floats at all), and drops
every other key. So nothing a file holds (NaN, a list nested hundreds
deep, a megabyte player name repeated in every frame's move text) reaches
a reply, and :mod:`tables.viewer` and the lists use the fields without
checking them again.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .menu import MAX_RULES_CHARS

MAX_INDEX = 1 << 40  # game indices beyond any run (agents.arena.lines)
MAX_SEED = 1 << 256
MAX_ACTIONS = 5000  # far more than any match: a longer list is not a real record
MAX_NAME = 100  # characters of a player's name shown (longer names are cut): it is in every move's text
MAX_REASON = 64  # characters of a deal's or a forfeit's reason
MAX_DETAIL = 500  # characters of a forfeit's detail shown
MAX_POINTS = 100  # game points of one deal or of a match score
UNITS = ("match", "deal")


class RecordError(ValueError):
    """A game line the viewer cannot use; the message says which field."""


class RecordedDeal(TypedDict):
    reason: str
    game_points: int


class RecordedForfeit(TypedDict):
    seat: int
    reason: str
    detail: str


class RecordLine(TypedDict):
    """A checked game line: only what the viewer reads."""

    index: int
    seed: int
    unit: str
    players: list[str]
    winner: int | None
    match_score: list[int]
    moves: int
    actions: list[int]
    deals: list[RecordedDeal]
    forfeit: RecordedForfeit | None
    rules: str


def _int(x: Any, lo: int, hi: int) -> bool:
    return type(x) is int and lo <= x <= hi


def _pair(x: Any, ok: Any) -> bool:
    return type(x) is list and len(x) == 2 and all(ok(v) for v in x)


def _str(x: Any, limit: int | None = None) -> bool:
    """A string (of at most ``limit`` characters) that UTF-8 can carry: JSON's ``\\ud800``
    escapes give Python strings with lone surrogates, which no reply could encode."""
    if type(x) is not str or (limit is not None and len(x) > limit):
        return False
    if not x.isascii():
        try:
            x.encode()
        except UnicodeEncodeError:
            return False
    return True


def _text(x: Any, limit: int) -> str:
    """A string field shown in a reply, cut to ``limit`` characters."""
    return x if len(x) <= limit else x[:limit - 1] + "…"


def checked_line(obj: Any) -> RecordLine:
    """The viewer's copy of game line ``obj``, or :class:`RecordError` naming the bad field."""
    if type(obj) is not dict:
        raise RecordError("not a game record")

    def need(key: str, ok: bool) -> None:
        if not ok:
            raise RecordError(f"not a game record: {key!r} is missing, mistyped or out of range")

    actions = obj.get("actions")
    if not isinstance(actions, list):
        raise RecordError("not a game record: 'actions' is missing or not a list")
    need("actions", len(actions) <= MAX_ACTIONS and all(_int(a, 0, 31) for a in actions))
    need("index", _int(obj.get("index"), 0, MAX_INDEX))
    need("seed", _int(obj.get("seed"), -MAX_SEED, MAX_SEED))
    need("unit", obj.get("unit") in UNITS and type(obj.get("unit")) is str)
    need("players", _pair(obj.get("players"), _str))
    need("winner", obj.get("winner") is None or _int(obj.get("winner"), 0, 1))
    need("match_score", _pair(obj.get("match_score"), lambda v: _int(v, 0, MAX_POINTS)))
    moves = obj.get("moves", len(actions))
    need("moves", _int(moves, 0, MAX_ACTIONS))
    deals = obj.get("deals", [])
    need("deals", type(deals) is list and len(deals) <= MAX_ACTIONS and all(
        type(d) is dict and _int(d.get("game_points"), 0, MAX_POINTS) and _str(d.get("reason"), MAX_REASON)
        for d in deals))
    f = obj.get("forfeit")
    need("forfeit", f is None or (type(f) is dict and _int(f.get("seat"), 0, 1)
                                  and _str(f.get("reason"), MAX_REASON) and _str(f.get("detail", ""))))
    rules = obj.get("rules", "german")
    need("rules", _str(rules, MAX_RULES_CHARS))
    return RecordLine(
        index=obj["index"], seed=obj["seed"], unit=obj["unit"],
        players=[_text(p, MAX_NAME) for p in obj["players"]], winner=obj.get("winner"),
        match_score=list(obj["match_score"]), moves=moves, actions=list(actions),
        deals=[RecordedDeal(reason=d["reason"], game_points=d["game_points"]) for d in deals],
        forfeit=None if f is None else RecordedForfeit(
            seat=f["seat"], reason=f["reason"], detail=_text(f.get("detail", ""), MAX_DETAIL)),
        rules=rules,
    )


def checked_lines(lines: list[dict[str, Any]]) -> tuple[list[RecordLine], int]:
    """The lines that pass :func:`checked_line`, and how many did not."""
    out = []
    for line in lines:
        try:
            out.append(checked_line(line))
        except RecordError:
            continue
    return out, len(lines) - len(out)


def summary(line: RecordLine) -> dict[str, Any]:
    """A checked game line in a few fields, for lists."""
    return {"index": line["index"], "players": line["players"], "unit": line["unit"],
            "winner": line["winner"], "match_score": line["match_score"], "moves": line["moves"],
            "forfeit": None if line["forfeit"] is None else line["forfeit"]["reason"]}


__all__ = ["RecordError", "RecordLine", "checked_line", "checked_lines", "summary"]
