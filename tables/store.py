"""Finished games on disk: one arena results file (``agents.arena.records``), fsync'd.

Each finished game is one ``"type": "game"`` line of an arena results file,
so ``sixtysix replay FILE --game N`` and the browser viewer read it like any
arena record. The header's config marks the file as the tables' own, so a
table never appends to an arena run by mistake: a results file with another
config is refused, even one without games yet (an arena run just started).

Every line is written with one ``O_APPEND`` write and ``fsync``'d before the
game counts as saved, its index taken under an exclusive ``flock`` on the
file, so a server restart or a crash loses no finished game, and a terminal
table and a server may share one file. A line cut off by a crash mid-write
is ended on the next open and skipped, with a warning, by every reader
(``agents.arena.records``).

Lines may carry an ``owner`` (a hash of the browser session's token): the
web table lists a session's own games only.

With ``max_bytes`` the file is bounded: once it has reached that size, the
next game first moves it to ``PATH.1`` (replacing the one before) and
starts a fresh file, whose indices start again at 0. So the disk holds at
most about twice ``max_bytes``, and the server's copy of the games (kept
to list them) at most one file's worth.
"""

from __future__ import annotations

import fcntl
import os
import threading
from typing import Any

from agents.arena.records import (
    ResultsFileError,
    ResultsWriter,
    config_mismatch,
    dumps,
    open_results,
    read_results,
)

CONFIG = {"source": "sixtysix tables", "players": "a person and a bot"}


class RecordStore:
    """Appends finished games to ``path`` (created with its header if missing)."""

    def __init__(self, path: str, max_bytes: int | None = None) -> None:
        self.path = os.path.abspath(path)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        new = not os.path.exists(self.path)
        if not new and os.path.getsize(self.path):
            _check_ours(self.path)
        _, writer = open_results(self.path, CONFIG, resume=True)  # creates, or checks and trims
        writer.close()
        if new:
            _fsync_path(self.path)
            _fsync_path(os.path.dirname(self.path))
        self._size = -1
        self._games: list[dict[str, Any]] = []
        self._reload()

    def _reload(self) -> None:
        """Re-read the file when another writer (another table) changed it."""
        size = os.path.getsize(self.path)
        if size != self._size:
            self._games = read_results(self.path)[1]
            self._size = size

    def append(self, line: dict[str, Any]) -> int:
        """Write one finished game (its ``index`` and ``cluster`` are set here: each game is a
        cluster of its own) and fsync; returns the index."""
        with self._lock:
            if self.max_bytes is not None and os.path.getsize(self.path) >= self.max_bytes:
                self._rotate()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            with ResultsWriter(fd) as writer:  # closes fd
                fcntl.flock(fd, fcntl.LOCK_EX)  # from reading the last index to writing the next
                self._reload()
                index = self._games[-1]["index"] + 1 if self._games else 0
                line = dict(line, index=index, cluster=index)
                writer.write(line)  # its own lock ends this one (one lock per open file): the line is in
                os.fsync(fd)
                self._games.append(line)
                self._size += len(dumps(line).encode()) + 1  # the file as this store left it
        return index

    def _rotate(self) -> None:
        """Move the full file to ``PATH.1`` and start a fresh one (under the file's lock, so
        another table sharing the file rotates it once)."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            same = os.path.exists(self.path) and os.stat(self.path).st_ino == os.fstat(fd).st_ino
            if same and self.max_bytes is not None and os.fstat(fd).st_size >= self.max_bytes:
                os.replace(self.path, self.path + ".1")
                _, writer = open_results(self.path, CONFIG, resume=True)
                writer.close()
                _fsync_path(self.path)
                _fsync_path(os.path.dirname(self.path))
        finally:
            os.close(fd)
        self._size = -1
        self._reload()

    def games(self, owner: str | None = None) -> list[dict[str, Any]]:
        """Recorded games, by index; only ``owner``'s when given."""
        with self._lock:
            self._reload()
            games = list(self._games)
        return games if owner is None else [g for g in games if g.get("owner") == owner]

    def game(self, index: int, owner: str | None = None) -> dict[str, Any]:
        """Game ``index`` (``KeyError`` if absent or, with ``owner``, someone else's)."""
        for g in self.games(owner):
            if g["index"] == index:
                return g
        raise KeyError(index)


def check_records_path(path: str, flag: str) -> None:
    """Refuse, before a game starts, a records path a finished game could not be appended to
    (a folder, a fifo, another run's results file): found at the end, the game would be lost."""
    if os.path.lexists(path) and not os.path.isfile(path):
        raise ValueError(f"{flag} {path}: not a regular file")
    if os.path.isfile(path) and os.path.getsize(path):
        _check_ours(path)


def _check_ours(path: str) -> None:
    """Refuse a results file that is not the tables' own (an arena run's, with or without games)."""
    header = read_results(path)[0]
    if config_mismatch(header["config"], CONFIG):
        raise ResultsFileError(f"{path} belongs to a different run configuration "
                               f"(not the tables' record file: {header['config']})")


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

