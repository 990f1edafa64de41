"""The web table's games: one per browser session, the bots' threads, the record file.

:class:`GameStore` keeps each browser's :class:`Game` under its session token,
runs bots and hints in a pool of daemon threads off the event loop, lets
each game's bot play on in an asyncio task, and appends every finished
game, once and fsync'd, to ``DATA/games.jsonl`` (:mod:`tables.store`). It
knows nothing of HTTP: the API modules (:mod:`tables.game_api`,
:mod:`tables.records_api`) turn requests into calls here.

The server stays up for everyone. A *client* is a remote address (a
hostile client drops cookies, so a session token alone would not count
it); each has at most ``games_per_client`` games (a new one replaces that
client's own least recently used game) and ``searches_per_client`` bot
moves and hints thinking at once (more bot moves wait their turn, more
hints are refused with a 429); a slot is held until its thread's work
ends, and a game that is replaced, evicted or forgotten stops its searches
at their next deadline check (:mod:`tables.cancel`), so a client never
holds more threads than its slots. A full server forgets finished games (they
are on disk) and games idle past ``idle_s``, never another client's
unfinished game before that; with none to forget, a new game is refused
(503). The threads are daemons, so a search still running at shutdown is
abandoned and the process exits at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any

from agents import parse_spec
from sixtysix_env.variants import rules_from_spec

from .bodies import MIB, BodyBudget
from .cancel import stop_searches
from .four_session import FourSession
from .frame import GameInfo
from .hints import Hinter
from .menu import RULES_MENU
from .session import Session
from .store import RecordStore
from .tokens import SessionTokens

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
    idle_s: float = 2 * 3600  # an unfinished game untouched this long may be forgotten
    games_per_client: int = 16  # games kept per remote address
    searches_per_client: int = 2  # bot moves and hints thinking at once per remote address
    requests_per_client: int = 32  # requests in progress at once per remote address (long polls too)
    records_max_bytes: int = 16 * 1024 * 1024  # DATA/games.jsonl is rotated past this size
    body_bytes_per_client: int = 9 * MIB  # request bodies held at once per client: one upload and more
    body_bytes_total: int = 32 * MIB  # request bodies held at once, all clients (tables.bodies)
    allowed_hosts: list[str] = field(default_factory=lambda: ["127.0.0.1", "localhost", "::1"])
    allowed_origins: list[str] = field(default_factory=list)  # besides the server's own (a TLS proxy's)
    rules: str = "german"  # the rules of a new game when the browser names none
    rules_choices: list[str] | None = None  # the rules a browser may choose (None: every entry of RULES_MENU)


class Busy(Exception):
    """The client (or the server) has no room for this now: the API answers 429 or 503."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class DaemonPool(Executor):
    """A fixed pool of daemon threads: like ``ThreadPoolExecutor``, except that a task still
    running when the process exits (a long search) is abandoned instead of waited for."""

    def __init__(self, threads: int, name: str) -> None:
        self._tasks: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self._closed = False
        for i in range(threads):
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True).start()
        self._threads = threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self._closed:
            raise RuntimeError("the pool is shut down")
        f: Future[Any] = Future()
        self._tasks.put((f, lambda: fn(*args, **kwargs)))
        return f

    def _work(self) -> None:
        while (task := self._tasks.get()) is not None:
            f, fn = task
            if not f.set_running_or_notify_cancel():
                continue
            try:
                f.set_result(fn())
            except BaseException as e:  # noqa: BLE001 - handed to the waiting coroutine
                f.set_exception(e)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._closed = True
        for _ in range(self._threads):
            self._tasks.put(None)


class Slot:
    """One of a client's search slots, held until :meth:`release` (once; later calls do nothing).
    :meth:`GameStore.run_in` releases it when the thread's work ends, not when the awaiting request
    or game loop goes away: a search still running in its thread still counts."""

    def __init__(self, slots: ClientSlots, client: str) -> None:
        self._slots = slots
        self.client = client
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self._slots.give_back(self.client)


class ClientSlots:
    """Searches in progress per client: at most ``cap`` at once for each (event loop only)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.busy: Counter[str] = Counter()
        self._freed = asyncio.Event()

    async def take(self, client: str, wait: bool) -> Slot:
        """One of ``client``'s slots; without ``wait``, :class:`Busy` when none is free."""
        while self.busy[client] >= self.cap:
            if not wait:
                raise Busy(429, f"at most {self.cap} searches (bot moves and hints) at once per client")
            freed = self._freed
            await freed.wait()
        self.busy[client] += 1
        return Slot(self, client)

    def give_back(self, client: str) -> None:
        self.busy[client] -= 1
        if self.busy[client] <= 0:
            del self.busy[client]
        self._freed.set()
        self._freed = asyncio.Event()


class Game:
    """One browser session's game: a :class:`Session` and what the server keeps with it."""

    def __init__(self, session: Session | FourSession, hinter: Hinter | None, owner: str,
                 client: str = "") -> None:
        self.session = session
        self.hinter = hinter
        self.owner = owner
        self.client = client  # the remote address that started it
        self.changed = asyncio.Event()
        self.task: asyncio.Task[Any] | None = None
        self.hint_lock = asyncio.Lock()
        self.save_lock = asyncio.Lock()
        self.record: int | None = None
        self.seen: list[Any] = []  # the person's views since the last hint (for a hint bot's opponent model)
        self.touched = time.monotonic()
        self.stopped = threading.Event()  # set when the game is gone: its searches stop at their next check
        stop_searches(session.bot, self.stopped.is_set)
        if hinter is not None:
            stop_searches(hinter.agent, self.stopped.is_set)
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

    @property
    def unsaved(self) -> bool:
        """Over, and still to be written to the record file (a four-player game never is)."""
        return self.session.over and self.session.recorded and self.record is None

    @property
    def unfinished(self) -> bool:
        return not self.session.over or self.unsaved

    def stop(self) -> None:
        """The game is gone (replaced, evicted, the server stopping): its bot loop ends now, and a
        search still running in a thread stops at its next deadline check."""
        self.stopped.set()
        if self.task is not None:
            self.task.cancel()

    def payload(self, since: int | None = None) -> dict[str, Any]:
        """The game as the API returns it: its summary, the table now, and the frames after
        version ``since`` when given."""
        s = self.session
        info = GameInfo(**s.summary(), record=self.record,
                        hint_bot=None if self.hinter is None else self.hinter.name, thinking=self.pending)
        out: dict[str, Any] = {"game": info, "state": s.frame()}
        if since is not None:
            out["frames"] = s.frames_since(since)
        return out


class GameStore:
    """The server's state: games by session token, the record store, the bot threads."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.games: OrderedDict[str, Game] = OrderedDict()
        os.makedirs(config.data, exist_ok=True)
        self.store = RecordStore(os.path.join(config.data, "games.jsonl"), config.records_max_bytes)
        self.tokens = SessionTokens(os.path.join(config.data, "session.key"))
        self.files = [os.path.abspath(p) for p in config.records]
        for p in self.files:
            if not os.path.isfile(p):
                raise ValueError(f"--records {p}: no such file")
        self.operator_specs = {s.strip() for s in [config.vs, config.hint, *config.bots] if s}
        for spec in self.operator_specs:
            if spec.lower() != "none":
                parse_spec(spec)
        self.rules_default = rules_from_spec(config.rules).spec  # the operator's: trusted, parsed
        choices = RULES_MENU if config.rules_choices is None else config.rules_choices
        self.rules_choices = list(dict.fromkeys(rules_from_spec(r).spec for r in choices))
        if self.rules_default not in self.rules_choices:
            self.rules_choices.insert(0, self.rules_default)
        self.pool = DaemonPool(config.threads, "sixtysix-bot")
        self.slots = ClientSlots(config.searches_per_client)
        self.bodies = BodyBudget(config.body_bytes_per_client, config.body_bytes_total)

    # ------------------------------------------------------------ games by token
    def game(self, token: str) -> Game:
        """The game of session ``token`` (``KeyError`` if it has none)."""
        g = self.games[token]
        g.touched = time.monotonic()
        self.games.move_to_end(token)
        return g

    def drop(self, token: str) -> None:
        """Forget the game of ``token`` (a new one is being built for it), stopping its searches."""
        old = self.games.pop(token, None)
        if old is not None:
            old.stop()

    def put(self, token: str, game: Game) -> None:
        """Keep ``game`` under ``token`` (replacing the token's old game). Makes room first: the
        client's own least recently used games over its cap, then (server full) finished or
        idle games; :class:`Busy` (503) when the server holds only others' unfinished games."""
        old = self.games.pop(token, None)
        if old is not None:
            old.stop()
        self.evict()
        own = [t for t, g in self.games.items() if g.client == game.client]
        for t in own[:max(0, len(own) - self.config.games_per_client + 1)]:
            self.games.pop(t).stop()
        if len(self.games) >= self.config.max_games:
            spare = [t for t, g in self.games.items() if not g.unfinished]
            for t in spare[:len(self.games) - self.config.max_games + 1]:
                self.games.pop(t).stop()
        if len(self.games) >= self.config.max_games:
            raise Busy(503, "the server is full: try again later")
        self.games[token] = game

    def evict(self) -> None:
        """Forget games idle too long (finished games are already on disk)."""
        now = time.monotonic()
        for token in [t for t, g in self.games.items() if now - g.touched > self.config.idle_s]:
            self.games.pop(token).stop()

    def close(self) -> None:
        """Stop every game's bot and the threads (the server is shutting down)."""
        for g in self.games.values():
            g.stop()
        self.pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ playing on
    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the bots' thread pool, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def search(self, client: str, fn: Callable[..., Any], *args: Any, wait: bool) -> Any:
        """``fn(*args)`` (a bot move, a hint, a replay, a new game: any work for one client) in one
        of ``client``'s slots (without ``wait``: :class:`Busy` when it has none free)."""
        return await self.run_in(await self.slots.take(client, wait), fn, *args)

    async def run_in(self, slot: Slot, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the pool, holding ``slot`` until the thread's work ends (the future's
        done callback): a caller that stops waiting (a replaced game's loop, a cancelled request)
        leaves the slot held while its search still runs, so no client holds more threads than
        its slots. Work not yet started when the caller stops waiting never starts."""
        loop = asyncio.get_running_loop()
        try:
            future = self.pool.submit(fn, *args)
        except BaseException:
            slot.release()
            raise

        def done(_: Future[Any]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server has stopped
                loop.call_soon_threadsafe(slot.release)

        future.add_done_callback(done)
        return await asyncio.wrap_future(future)

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
                    action, error = await self.search(game.client, s.bot_decide, v, kwargs, wait=True)
                    if not s.apply_bot(v, action, error) and s.bot_to_act:
                        s.forfeit_bot("the bot's move could not be applied")
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
            if s.bot_to_act:  # the game ends (a forfeit the browser sees) instead of thinking forever
                s.forfeit_bot("the server could not run the bot")
                await self.save(game)
                game.notify()

    async def save(self, game: Game) -> None:
        """Append the finished game to the record file (once), fsync'd."""
        async with game.save_lock:
            if game.unsaved:
                line = game.session.game_line(owner=game.owner)
                game.record = await self.search(game.client, self.store.append, line, wait=True)


__all__ = ["Busy", "ClientSlots", "Slot", "Config", "DaemonPool", "Game", "GameStore"]
