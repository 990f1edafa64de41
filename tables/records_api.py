"""The API of the record viewer: recorded games to step through, all cards face up.

=========================  ================================================
``GET  /api/records``      games to view: yours, and the files of ``--records``
``GET  /api/records/S/N``  the frames of game N of source S
``POST /api/replay``       ``{"jsonl": text, "game": N}``: view an uploaded file
=========================  ================================================

Source ``mine`` is the browser's own finished games (by the hash of its
session token); ``0``, ``1``, ... are the operator's ``--records`` files.
Every game line, from any source, passes :func:`tables.record_line.checked_line`
as it is read here (one that does not is left out; a file's count of skipped
lines includes it); games are then re-run from their seed and actions by
:func:`tables.viewer.replay_frames`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.arena.lines import TEAM_KEY
from agents.arena.records import ResultsFileError, Warn, read_results

from .endpoint import (
    ApiError,
    checked_int,
    client_of,
    endpoint,
    json_object,
    owner_of,
    parse_int,
    read_body,
    reserve_body,
)
from .games import Busy, Tables
from .record_line import RecordError, RecordLine, checked_line, checked_lines, summary
from .viewer import replay_frames

if TYPE_CHECKING:
    from starlette.requests import Request

LIST_LIMIT = 1000  # games listed per record file
UPLOAD_LIMIT = 8 * 1024 * 1024
SOURCE = re.compile(r"[0-9]{1,9}")  # a --records file's number (ASCII digits only)


def read_games(path: str, name: str | None = None,
               data: bytes | None = None) -> tuple[list[RecordLine], int]:
    """The checked game lines of results file ``path`` (or of its text ``data``) and how many
    damaged lines were skipped (422, calling it ``name``, if it cannot be read). Nothing is
    written to the server's log: a browser's request, an upload above all, must not fill it."""
    name = name or os.path.basename(path)
    warn = Warn(path, quiet=True)
    try:
        header, games = read_results(path, data, warn)
    except (OSError, ResultsFileError) as e:
        raise ApiError(422, f"cannot read {name}: {str(e).replace(path, name)}") from None
    except RecursionError:  # a line nested too deep for the JSON reader
        raise ApiError(422, f"cannot read {name}: a line is nested too deep") from None
    if header["config"].get(TEAM_KEY) is not None:
        raise ApiError(422, f"cannot read {name}: a four-player team match has no replays")
    rules = header["config"].get("rules")  # an arena file's rules are in its header (replayed checked)
    if rules is not None:
        for g in games:
            g.setdefault("rules", rules)
    checked, bad = checked_lines(games)
    return checked, warn.count + bad


def frames_of(games: list[RecordLine], index: int, where: str) -> dict[str, Any]:
    """The viewer's frames of game ``index`` among ``games`` (404 if absent, 422 if it does not replay)."""
    for g in games:
        if g["index"] == index:
            return replay(g)
    raise ApiError(404, f"no game {index} in {where}")


def replay(line: RecordLine) -> dict[str, Any]:
    try:
        return replay_frames(line)
    except ValueError as e:
        raise ApiError(422, f"cannot replay game {line['index']}: {e}") from None


def sources(tables: Tables, owner: str) -> list[dict[str, Any]]:
    """The games a browser may view: its own, newest first, then each ``--records`` file's."""
    mine = [summary(g) for g in checked_lines(tables.store.games(owner))[0]]
    out = [{"id": "mine", "title": "Your finished games", "games": mine[-LIST_LIMIT:][::-1],
            "total": len(mine)}]
    for i, path in enumerate(tables.files):
        games, skipped = read_games(path)
        out.append({"id": str(i), "title": os.path.basename(path), "total": len(games), "skipped": skipped,
                    "games": [summary(g) for g in games[:LIST_LIMIT]]})
    return out


def recorded_frames(tables: Tables, source: str, index: int, owner: str) -> dict[str, Any]:
    """The frames of game ``index`` of ``source`` (``mine`` or a ``--records`` file's number)."""
    if source == "mine":
        try:
            line = checked_line(tables.store.game(index, owner))
        except KeyError:
            raise ApiError(404, f"you have no finished game {index}") from None
        except RecordError as e:
            raise ApiError(422, f"cannot replay game {index}: {e}") from None
        return replay(line)
    number = parse_int(source, "a record source", 0, 2**31) if SOURCE.fullmatch(source) else None
    if number is None or number >= len(tables.files):
        raise ApiError(404, f"no record source {source[:40]!r}")
    path = tables.files[number]
    return frames_of(read_games(path)[0], index, os.path.basename(path))


def uploaded(text: str, index: int | None) -> dict[str, Any]:
    """An uploaded results file: its game list, or the frames of game ``index``."""
    return uploaded_bytes(text.encode("utf-8", "replace"), index)


def uploaded_bytes(data: bytes, index: int | None) -> dict[str, Any]:
    """:func:`uploaded` of the file's bytes."""
    games, skipped = read_games("the file", "the file", data)
    if index is None:
        return {"games": [summary(g) for g in games[:LIST_LIMIT]], "total": len(games), "skipped": skipped}
    return frames_of(games, index, "the file")


@endpoint
async def api_records(request: Request, tables: Tables, token: str) -> Any:
    return {"sources": await work(request, tables, sources, tables, owner_of(token))}


@endpoint
async def api_record(request: Request, tables: Tables, token: str) -> Any:
    index = parse_int(request.path_params["index"], "a game index", 0, 2**31)
    return await work(request, tables, recorded_frames, tables, request.path_params["source"], index,
                      owner_of(token))


@endpoint
async def api_replay(request: Request, tables: Tables, token: str) -> Any:
    """Memory first, then a slot, then the body: an upload past the client's (or the server's)
    body budget, or with no slot free, is refused unread (429)."""
    reserve_body(request, UPLOAD_LIMIT)
    try:
        slot = await tables.slots.take(client_of(request), wait=False)
    except Busy as e:
        raise ApiError(e.status, str(e), close=True) from None
    try:
        body = await read_body(request, UPLOAD_LIMIT)
    except BaseException:
        slot.release()
        raise
    return await tables.run_in(slot, upload, body)


def upload(body: bytearray) -> dict[str, Any]:
    """``{"jsonl": text, "game": N}``: an uploaded file's game list, or the frames of game N.
    The body is emptied as it is decoded, and each copy after that replaces the one before it
    (text, the file's text, its bytes, its lines), so at most two copies are alive at once."""
    data = json_object(body)  # empties body
    text = data.pop("jsonl", None)
    index = data.get("game")
    del data
    if not isinstance(text, str) or not text.strip():
        raise ApiError(400, "send {\"jsonl\": the text of an arena results file, \"game\": N}")
    game = None if index is None else checked_int(index, "game", 0, 2**31)
    raw = text.encode("utf-8", "replace")
    del text
    return uploaded_bytes(raw, game)


async def work(request: Request, tables: Tables, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a worker thread, in one of the client's slots (429 when it has none free):
    reading record files and uploads counts against the same cap as bots and hints."""
    try:
        return await tables.search(client_of(request), fn, *args, wait=False)
    except Busy as e:
        raise ApiError(e.status, str(e)) from None


__all__ = ["api_record", "api_records", "api_replay", "sources"]
