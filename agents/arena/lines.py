"""The shape of a results-file line: every field and element checked before use.

Results files from elsewhere are untrusted data (SECURITY.md): a line of any
shape (wrong types, deep nesting, huge numbers, missing keys) is named by
:func:`game_problem` and skipped by the reader in
:mod:`agents.arena.records`, never a crash.
"""

from __future__ import annotations

import json
import math
from typing import Any

from agents.play import UNITS
from sixtysix_env.actions import N_ACTIONS

# A game line's fields and the types they must have (bools are not ints here).
_INT, _LIST, _OPT_INT = (int,), (list,), (int, type(None))
GAME_FIELDS: dict[str, tuple[type, ...]] = {
    "index": _INT, "seed": _INT, "seats": _LIST, "pairing": _LIST, "cluster": _INT, "unit": (str,),
    "players": _LIST, "agent_seeds": _LIST, "winner": _OPT_INT, "match_score": _LIST, "deals": _LIST,
    "forfeit": (dict, type(None)), "actions": _LIST,
}
MAX_INDEX = 1 << 40  # game indices, player numbers and counts beyond any run
MAX_SEED = 1 << 256
MAX_ACTIONS = 100_000
MAX_POINTS = 100  # game points of a deal: 3 at most, plus any draw bonus (docs/rules-variants.md V1.2)
AIVAT = "aivat"  # the optional field of a game line with its corrected points (agents.arena.corrected)
MAX_CORRECTED = 1000.0  # |corrected game points| per finished deal: far beyond any value function's terms
MAX_NOTE = 500  # characters of the reason a game was not corrected


def _int(x: Any, lo: int = 0, hi: int = MAX_INDEX) -> bool:
    return type(x) is int and lo <= x < hi


def _pair(x: Any, ok: Any, n: int = 2) -> bool:
    return isinstance(x, list) and len(x) == n and all(ok(v) for v in x)


def _deal_ok(d: Any) -> bool:
    return (isinstance(d, dict) and d.get("winner") in (None, 0, 1) and type(d.get("winner")) is not bool
            and _int(d.get("game_points"), 0, MAX_POINTS) and isinstance(d.get("reason"), str))


def game_problem(obj: Any, table: int = 2) -> str | None:
    """Why ``obj`` is not a well-formed game line of a run with ``table`` players at a table (2, or
    4: ``seats``, ``players`` and ``agent_seeds`` per seat, the teams' players alternating), or
    None if it is (every field, every element)."""
    if not isinstance(obj, dict) or obj.get("type") != "game":
        return "not a game record"
    for key, types in GAME_FIELDS.items():
        value = obj.get(key, KeyError)
        if value is KeyError:
            return f"no {key!r}"
        if isinstance(value, bool) or not isinstance(value, types):
            return f"{key!r} is {type(value).__name__}"
    checks = {
        "index": _int(obj["index"]), "seed": _int(obj["seed"], -MAX_SEED, MAX_SEED),
        "cluster": _int(obj["cluster"]), "unit": obj["unit"] in UNITS,
        "winner": obj["winner"] in (None, 0, 1),
        "seats": _pair(obj["seats"], _int, table), "pairing": _pair(obj["pairing"], _int),
        "players": _pair(obj["players"], lambda v: isinstance(v, str), table),
        "agent_seeds": _pair(obj["agent_seeds"], lambda v: _int(v, -MAX_SEED, MAX_SEED), table),
        "match_score": _pair(obj["match_score"], lambda v: _int(v, 0, 100)),
        "actions": len(obj["actions"]) <= MAX_ACTIONS and all(_int(a, 0, N_ACTIONS) for a in obj["actions"]),
        "deals": len(obj["deals"]) <= MAX_ACTIONS and all(_deal_ok(d) for d in obj["deals"]),
        "cpu": obj.get("cpu") is None or _cpu_ok(obj["cpu"]),
        "match_value": obj.get("match_value", 1) in (1, 2) and type(obj.get("match_value", 1)) is int,
        AIVAT: AIVAT not in obj or aivat_problem(obj[AIVAT], len(obj["deals"])) is None,
    }
    bad = [k for k, ok in checks.items() if not ok]
    if bad:
        return f"{bad[0]!r} is out of range or malformed"
    seats = obj["seats"]
    if sorted(seats[:2]) != sorted(obj["pairing"]) or seats[2:] != seats[:2][:len(seats) - 2]:
        return "'seats' do not match 'pairing'"
    f = obj["forfeit"]
    if f is not None and not (f.get("seat") in range(table) and type(f.get("seat")) is int
                              and isinstance(f.get("reason"), str) and isinstance(f.get("detail", ""), str)):
        return "a malformed forfeit"
    return None


TEAM_KEY = "players_per_game"  # the header config of a four-player run says 4 here (absent: 2)


def table_of(config: Any) -> int:
    """Players at a table in a results file's header config: 4, or 2 (absent or anything else)."""
    return 4 if isinstance(config, dict) and config.get(TEAM_KEY) == 4 else 2


MAX_EXACT_INT = 1 << 53  # a JSON int beyond this is no measured or computed number (and overflows floats)


def finite_number(x: Any) -> bool:
    """A finite JSON number: a float other than NaN and the infinities, or an int of at most 2**53
    (bools are not numbers here). Never raises, whatever ``x`` is (``math.isfinite`` raises on huge ints)."""
    if type(x) is int:
        return abs(x) <= MAX_EXACT_INT
    return type(x) is float and math.isfinite(x)


def seconds_ok(x: Any) -> bool:
    """A measured time: a finite, non-negative number (not a bool)."""
    return finite_number(x) and x >= 0


def aivat_problem(field: Any, deals: int) -> str | None:
    """Why a game line's ``aivat`` field is malformed, or None: ``{"value": NAME, "points": [p0, p1]}``
    (the corrected game points of the players in seats 0 and 1: finite, zero-sum, bounded by the
    deal count; optionally ``"luck"``, a short list of finite numbers) or
    ``{"value": NAME, "skipped": REASON}`` (a game the estimator must not correct)."""
    if not isinstance(field, dict) or not isinstance(field.get("value"), str) or len(field["value"]) > 40:
        return "not an object with a value name"
    if set(field) == {"value", "skipped"}:
        return None if isinstance(field["skipped"], str) and len(field["skipped"]) <= MAX_NOTE else "bad note"
    points = field.get("points")
    if set(field) - {"luck"} != {"value", "points"} or not _pair(points, finite_number) \
            or not isinstance(points, list):
        return "no pair of finite points"
    luck = field.get("luck", [])  # seat 0's luck by kind (agents.evaluation.games.seat_luck)
    bound_luck = MAX_CORRECTED * max(1, deals)
    if not isinstance(luck, list) or len(luck) > 16 or not all(finite_number(x) and abs(x) <= bound_luck
                                                               for x in luck):
        return "luck is not a short list of finite numbers"
    bound = MAX_CORRECTED * max(1, deals)
    if abs(points[0]) > bound or abs(points[0] + points[1]) > 1e-6 * (1 + abs(points[0])):
        return "points out of range or not zero-sum"
    return None


def _cpu_ok(c: Any) -> bool:
    return isinstance(c, dict) and all(seconds_ok(c.get(k)) for k in ("wall", "cpu"))


def parse_line(raw: bytes) -> tuple[Any, str | None]:
    """One results line as JSON: (the object, None), or (None, why it is not JSON) for any bytes."""
    try:
        return json.loads(raw), None
    except RecursionError:
        return None, "nested too deeply"
    except (ValueError, MemoryError) as e:  # bad JSON or UTF-8, an int too long to convert
        return None, f"not JSON ({str(e)[:80]})"


def jsonable(v: Any) -> Any:
    """``v`` for strict JSON: tuples become lists, NaN and infinities None."""
    if isinstance(v, tuple | list):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v
