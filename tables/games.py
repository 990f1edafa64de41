"""The web table's games: one per browser session, the bots' threads, the record file.

:class:`Tables` keeps each browser's :class:`Game` under its session token
(least recently used first, forgotten when idle too long or over the
limit), runs bots and hints in a thread pool off the event loop, lets each
game's bot play on in an asyncio task, and appends every finished game,
once and fsync'd, to ``DATA/games.jsonl`` (:mod:`tables.store`). It knows
nothing of HTTP: the API modules (:mod:`tables.game_api`,
:mod:`tables.records_api`) turn requests into calls here.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from agents import parse_spec

from .hints import Hinter
from .session import Session
from .store import RecordStore

log = logging.getLogger("sixtysix.serve")
SEEN_KEPT = 200  # the person's views kept for a hint bot's opponent model between hints


@dataclass
class Config:
    """What ``sixtysix serve`` was started with."""

    data: str = os.path.join("runs", "tables")
    vs: str = "heuristic"
    hint: str = "pimc"
    bots: list[str] = field(default_factory=list)  # extra specs a browser may pick (any the arena accepts)
    records: list[str] = field(default_factory=list)  # arena results files the viewer offers
    threads: int = 4
    max_games: int = 500
    idle_s: float = 6 * 3600
    allowed_hosts: list[str] = field(default_factory=lambda: ["127.0.0.1", "localhost"])


class Game:
    """One browser session's game: a :class:`Session` and what the server keeps with it."""

    def __init__(self, session: Session, hinter: Hinter | None, owner: str) -> None:
        self.session = session
        self.hinter = hinter
        self.owner = owner
        self.changed = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.hint_lock = asyncio.Lock()
        self.save_lock = asyncio.Lock()
        self.record: int | None = None
        self.seen: list[Any] = []  # the person's views since the last hint (for a hint bot's opponent model)
        self.touched = time.monotonic()
        self._note_view()

    @property
    def pending(self) -> bool:
        """Whether the server still has a move to make for this game (the bot's, or a forced one)."""
        s = self.session
        return not s.over and (s.bot_to_act or s.forced_action() is not None)

    def notify(self) -> None:
        """Wake the requests waiting for a change."""
        self._note_view()
        self.changed.set()
        self.changed = asyncio.Event()

    def _note_view(self) -> None:
        s = self.session
        if self.hinter is not None and s.human_to_act and len(self.seen) < SEEN_KEPT:
            self.seen.append(s.view)

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def payload(self, since: int | None = None) -> dict[str, Any]:
        """The game as the API returns it: its summary, the table now, and the frames after
        version ``since`` when given."""
        s = self.session
        info = s.summary()
        info.update(record=self.record, hint_bot=None if self.hinter is None else self.hinter.name,
                    thinking=self.pending)
        out: dict[str, Any] = {"game": info, "state": s.frame()}
        if since is not None:
            out["frames"] = s.frames_since(since)
        return out


class Tables:
    """The server's state: games by session token, the record store, the bot threads."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.games: OrderedDict[str, Game] = OrderedDict()
        os.makedirs(config.data, exist_ok=True)
        self.store = RecordStore(os.path.join(config.data, "games.jsonl"))
        self.files = [os.path.abspath(p) for p in config.records]
        for p in self.files:
            if not os.path.isfile(p):
                raise ValueError(f"--records {p}: no such file")
        self.operator_specs = {s.strip() for s in [config.vs, config.hint, *config.bots] if s}
        for spec in self.operator_specs:
            if spec.lower() != "none":
                parse_spec(spec)
        self.pool = ThreadPoolExecutor(max_workers=config.threads, thread_name_prefix="sixtysix-bot")

    # ------------------------------------------------------------ games by token
    def game(self, token: str) -> Game:
        """The game of session ``token`` (``KeyError`` if it has none)."""
        g = self.games[token]
        g.touched = time.monotonic()
        self.games.move_to_end(token)
        return g

    def put(self, token: str, game: Game) -> None:
        old = self.games.pop(token, None)
        if old is not None:
            old.stop()
        self.games[token] = game
        self.evict()

    def evict(self) -> None:
        """Forget games idle too long, then the least recently used over the limit
        (finished games are already on disk)."""
        now = time.monotonic()
        for token in [t for t, g in self.games.items() if now - g.touched > self.config.idle_s]:
            self.games.pop(token).stop()
        while len(self.games) > self.config.max_games:
            self.games.pop(next(iter(self.games))).stop()

    def close(self) -> None:
        """Stop every game's bot and the threads (the server is shutting down)."""
        for g in self.games.values():
            g.stop()
        self.pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ playing on
    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the bots' thread pool, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def start_bot(self, game: Game) -> None:
        """Let the bot (and the person's forced moves) play on, off the event loop."""
        if game.task is None or game.task.done():
            game.task = asyncio.get_running_loop().create_task(self._play_on(game))

    async def _play_on(self, game: Game) -> None:
        s = game.session
        try:
            while not s.over:
                if s.bot_to_act:
                    v, kwargs = s.bot_view()
                    action, error = await self.run(s.bot_decide, v, kwargs)
                    s.apply_bot(v, action, error)
                elif (forced := s.forced_action()) is not None:
                    s.play(forced)
                else:
                    break
                game.notify()
            if s.over:
                await self.save(game)
                game.notify()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - never let one game's failure pass silently
            log.exception("the bot loop of a game failed")

    async def save(self, game: Game) -> None:
        """Append the finished game to the record file (once), fsync'd."""
        async with game.save_lock:
            if game.record is None:
                line = game.session.game_line(owner=game.owner)
                game.record = await self.run(self.store.append, line)


__all__ = ["Config", "Game", "Tables"]
