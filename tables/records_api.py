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

import gc
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from json import decoder
from typing import TYPE_CHECKING, Any

from agents.arena.lines import TEAM_KEY
from agents.arena.records import ResultsFileError, Warn, read_results

from .endpoint import (
    SURROGATE,
    ApiError,
    checked_int,
    client_of,
    endpoint,
    owner_of,
    parse_int,
    read_body,
    reserve_body,
)
from .games import Busy, GameStore
from .record_line import RecordError, RecordLine, checked_line, checked_lines, summary
from .viewer import replay_frames

if TYPE_CHECKING:
    from starlette.requests import Request

LIST_LIMIT = 1000  # games listed per record file
UPLOAD_LIMIT = 8 * 1024 * 1024
SOURCE = re.compile(r"[0-9]{1,9}")  # a --records file's number (ASCII digits only)
# The JSON string reader (C, one call): json.decoder has it, its type stubs do not.
scanstring: Callable[[str, int], tuple[str, int]] = getattr(decoder, "scanstring")  # noqa: B009
_collector = threading.Lock()  # collector_paused's count, across the bot threads
_paused_by = 0
_was_enabled = True
PIECE = 1 << 18  # characters of an upload's text decoded per call (text_pieces)
CUT_RUN = 64  # backslashes counted back from a cut at most (a longer run: no cut there)
WHITE = re.compile(r"[ \t\r\n]*")  # JSON's white space
FIELD = re.compile(r'"(jsonl|game)"[ \t\r\n]*:[ \t\r\n]*')  # an upload's field names, as JSON writes them
GAME = re.compile(r"-?[0-9]{1,20}(?![0-9.eE])|null")  # an integer (a fraction or exponent: refused)


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


def sources(tables: GameStore, owner: str) -> list[dict[str, Any]]:
    """The games a browser may view: its own, newest first, then each ``--records`` file's."""
    mine = [summary(g) for g in checked_lines(tables.store.games(owner))[0]]
    out = [{"id": "mine", "title": "Your finished games", "games": mine[-LIST_LIMIT:][::-1],
            "total": len(mine)}]
    for i, path in enumerate(tables.files):
        games, skipped = read_games(path)
        out.append({"id": str(i), "title": os.path.basename(path), "total": len(games), "skipped": skipped,
                    "games": [summary(g) for g in games[:LIST_LIMIT]]})
    return out


def recorded_frames(tables: GameStore, source: str, index: int, owner: str) -> dict[str, Any]:
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
async def api_records(request: Request, tables: GameStore, token: str) -> Any:
    return {"sources": await work(request, tables, sources, tables, owner_of(token))}


@endpoint
async def api_record(request: Request, tables: GameStore, token: str) -> Any:
    index = parse_int(request.path_params["index"], "a game index", 0, 2**31)
    return await work(request, tables, recorded_frames, tables, request.path_params["source"], index,
                      owner_of(token))


@endpoint
async def api_replay(request: Request, tables: GameStore, token: str) -> Any:
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
    return await tables.run_in(slot, paused(upload), body)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while records are parsed, in any thread (a count:
    the last one out restores it). A parse builds about a million objects with no cycles, freed
    by reference counting; full collections over them held the interpreter 0.1-0.3 s at a time
    during one 8 MiB upload, and every other request waited that long."""
    global _paused_by, _was_enabled
    with _collector:
        if not _paused_by:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused_by += 1
    try:
        yield
    finally:
        with _collector:
            _paused_by -= 1
            if not _paused_by and _was_enabled:
                gc.enable()


def paused(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run with the collector paused (:func:`collector_paused`)."""
    def run(*args: Any) -> Any:
        with collector_paused():
            return fn(*args)
    return run


def upload(body: bytearray) -> dict[str, Any]:
    """``{"jsonl": text, "game": N}``: an uploaded file's game list, or the frames of game N.
    The body is emptied as it is decoded, and each copy after that replaces the one before it
    (the text, the file's text, its bytes, its lines), so at most two copies are alive at once."""
    raw = body.decode("utf-8", "replace")
    body.clear()
    pieces, game = upload_fields(raw)
    del raw
    data = b"".join(pieces)
    del pieces
    return uploaded_bytes(data, game)


def upload_fields(raw: str) -> tuple[list[bytes], int | None]:
    """The two fields of an upload's JSON body (the file's text as UTF-8 pieces, :func:`text_pieces`),
    read by a parser of that shape alone: no other value is ever built (``[[],[],...]`` would cost
    20 times its size in lists) and no nesting is read (400 otherwise)."""
    shape = ApiError(400, "send {\"jsonl\": the text of an arena results file, \"game\": N}")
    fields: dict[str, Any] = {}
    at = _skip(raw, 0, "{")
    while not raw.startswith("}", at):
        m = FIELD.match(raw, at)
        if m is None or m.group(1) in fields:
            raise shape
        at = m.end()
        if m.group(1) == "jsonl" and raw.startswith('"', at):
            fields["jsonl"], at = text_pieces(raw, at + 1)
        elif m.group(1) == "game" and (n := GAME.match(raw, at)) is not None:
            fields["game"], at = None if n.group() == "null" else int(n.group()), n.end()
        else:
            raise shape
        at = WHITE.match(raw, at).end()  # type: ignore[union-attr]
        if not raw.startswith(",", at):
            break
        at = WHITE.match(raw, at + 1).end()  # type: ignore[union-attr]
        if raw.startswith("}", at):  # a comma before the end: not JSON
            raise shape
    if not raw.startswith("}", at) or raw[at + 1:].strip(" \t\r\n"):
        raise shape
    pieces = fields.get("jsonl")
    if not pieces or not any(p.strip() for p in pieces):
        raise shape
    game = fields.get("game")
    return pieces, None if game is None else checked_int(game, "game", 0, 2**31)


def text_pieces(raw: str, at: int) -> tuple[list[bytes], int]:
    """The JSON string whose text starts at ``raw[at]`` (after its opening quote), as UTF-8 pieces,
    and the position after its closing quote. It is decoded a piece of about :data:`PIECE`
    characters at a time, each cut just before a ``\\n`` escape (a line of the file), so that no
    one call holds the interpreter long (one 8 MiB string: 0.14 s on a loaded machine, while the
    event loop waited); a lone surrogate escape is a 400."""
    pieces: list[bytes] = []
    while True:
        cut = _line_cut(raw, at + PIECE)
        piece = '"' + raw[at:cut] + '"' if cut >= 0 else ""
        try:  # the last piece is read in place, to its closing quote
            text, end = scanstring(piece, 1) if cut >= 0 else scanstring(raw, at)
        except ValueError:
            raise ApiError(400, "the request body is not valid JSON") from None
        if SURROGATE.search(text):
            raise ApiError(400, "the request body holds a lone surrogate (\\ud800-\\udfff), which is no text")
        pieces.append(text.encode("utf-8"))
        if cut < 0:
            return pieces, end
        if end < len(piece):  # the string closed inside this piece
            return pieces, at + end - 1
        at = cut


def _line_cut(raw: str, start: int) -> int:
    """The first ``\\n`` escape at or after ``start`` that surely starts an escape (an even run of
    at most :data:`CUT_RUN` backslashes before it); -1 if none."""
    cut = raw.find("\\n", start)
    while cut >= 0:
        run = 0
        while run <= CUT_RUN and raw[cut - run - 1] == "\\":
            run += 1
        if run % 2 == 0 and run <= CUT_RUN:
            return cut
        cut = raw.find("\\n", cut + 1)
    return -1


def _skip(raw: str, at: int, char: str) -> int:
    """The position after ``char`` (and the white space around it) at ``at``, else a 400."""
    at = WHITE.match(raw, at).end()  # type: ignore[union-attr]
    if not raw.startswith(char, at):
        raise ApiError(400, "send {\"jsonl\": the text of an arena results file, \"game\": N}")
    return WHITE.match(raw, at + 1).end()  # type: ignore[union-attr]


async def work(request: Request, tables: GameStore, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a worker thread, in one of the client's slots (429 when it has none free):
    reading record files and uploads counts against the same cap as bots and hints."""
    try:
        return await tables.search(client_of(request), paused(fn), *args, wait=False)
    except Busy as e:
        raise ApiError(e.status, str(e)) from None


__all__ = ["api_record", "api_records", "api_replay", "sources"]
