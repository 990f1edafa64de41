"""``sixtysix serve``: play Sixty-Six against any bot in the browser.

A local web app (Starlette on uvicorn, one port, ``127.0.0.1`` by default)
with one page, ``tables/static/index.html`` (plain HTML/CSS/JavaScript, no
build step). Each browser gets an unguessable session token in an
``HttpOnly``, ``SameSite=Strict`` cookie; its game is kept under that token,
so no request names a game and one browser cannot read or move in
another's. The page sees only what :meth:`tables.session.Session.frame`
builds from its player's view.

Bots and hints think in a thread pool, off the event loop, so a slow bot
never stalls another game; the page long-polls for the bot's moves
(``GET /api/game?since=V&wait=S``) and shows them one by one. Finished games
are appended, fsync'd, to ``DATA/games.jsonl`` (:mod:`tables.store`) before
the reply that reports the end, so a restart loses none.

The JSON API (errors are ``{"error": ...}`` with a 4xx status, and leave
the game unchanged):

=========================  ================================================
``GET  /api/bots``         the bots a table can offer, the defaults
``POST /api/games``        new game ``{"vs", "hint", "seed", "episode", "seat"}``
``GET  /api/game``         the game; ``?since=V`` adds the frames after
                           version V, ``&wait=S`` waits up to S seconds for one
``POST /api/game/move``    ``{"action": 0-31 | "TH" | "marry H" ..., "version": V}``
``POST /api/game/hint``    the hint bot's move and values per move
``POST /api/game/resign``  give up (the record says so)
``GET  /api/records``      games to view: yours, and the files of ``--records``
``GET  /api/records/S/N``  the frames of game N of source S
``POST /api/replay``       ``{"jsonl": text, "game": N}``: view an uploaded file
=========================  ================================================

Run ``python -m tables.web --port 8066``; ``add_arguments`` and ``main``
let the ``sixtysix`` command offer the same as ``sixtysix serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import secrets
import sys
import tempfile
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import KNOWN_AGENTS, parse_spec

from .hints import Hinter
from .session import EPISODES, IllegalMove, Session
from .store import RecordStore, summary
from .viewer import replay_frames

try:  # the `web` extra; without it this module still imports, so `sixtysix --help` works
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
except ImportError as e:  # pragma: no cover - depends on the installed extras
    MISSING = f"sixtysix serve needs the web extra: pip install -e '.[web]' ({e})"
else:
    MISSING = ""

log = logging.getLogger("sixtysix.serve")
STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "sixtysix_session"
TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
COOKIE_AGE = 30 * 24 * 3600
BODY_LIMIT = 16 * 1024
UPLOAD_LIMIT = 8 * 1024 * 1024
MAX_WAIT = 30.0
LIST_LIMIT = 1000  # games listed per record file
# The most a browser may ask of a built-in bot (the operator's own --vs/--hint/--bots are not capped).
PARAM_CAPS = {"worlds": 256, "iterations": 5000, "depth": 2}


class ApiError(Exception):
    """A request the API refuses: a 4xx status and a message for the JSON body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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

    def notify(self) -> None:
        """Wake the requests waiting for a change."""
        self._note_view()
        self.changed.set()
        self.changed = asyncio.Event()

    def _note_view(self) -> None:
        s = self.session
        if self.hinter is not None and s.human_to_act and len(self.seen) < 200:
            self.seen.append(s.view)


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

    # ------------------------------------------------------------ bots
    def check_spec(self, spec: Any, what: str) -> str:
        """A bot spec a browser may choose: the operator's, or a built-in bot within caps."""
        if not isinstance(spec, str) or not spec.strip() or len(spec) > 200:
            raise ApiError(400, f"{what} must be a bot spec such as 'heuristic' or 'pimc:worlds=32'")
        spec = spec.strip()
        if spec in self.operator_specs:
            return spec
        try:
            name, values = parse_spec(spec)
        except ValueError as e:
            raise ApiError(400, str(e).split("\n")[0]) from None
        if name not in KNOWN_AGENTS or (name == "ppo" and values.get("path")):
            raise ApiError(400, f"{what}: a browser may choose the built-in bots only "
                                "(start the server with --bots SPEC to offer others)")
        for key, cap in PARAM_CAPS.items():
            if key in values and values[key] > cap:
                raise ApiError(400, f"{what}: {key} may be at most {cap} here")
        return spec

    def bots(self) -> dict[str, Any]:
        out = []
        for b in KNOWN_AGENTS.values():
            out.append({"spec": b.name, "help": b.help, "cheats": b.name == "oracle",
                        "params": {k: {"default": p.default, "help": p.help} for k, p in b.params.items()}})
        extra = sorted(self.operator_specs - set(KNOWN_AGENTS) - {"none"})
        return {"bots": out, "extra": extra, "vs": self.config.vs, "hint": self.config.hint,
                "episodes": list(EPISODES)}

    # ------------------------------------------------------------ games
    def game(self, token: str) -> Game:
        g = self.games.get(token)
        if g is None:
            raise ApiError(404, "no game: start one with POST /api/games")
        g.touched = time.monotonic()
        self.games.move_to_end(token)
        return g

    def put(self, token: str, game: Game) -> None:
        old = self.games.pop(token, None)
        if old is not None and old.task is not None:
            old.task.cancel()
        self.games[token] = game
        self.evict()

    def evict(self) -> None:
        """Forget games idle too long, then the least recently used over the limit
        (finished games are already on disk)."""
        now = time.monotonic()
        for token in [t for t, g in self.games.items() if now - g.touched > self.config.idle_s]:
            self._drop(token)
        while len(self.games) > self.config.max_games:
            self._drop(next(iter(self.games)))

    def _drop(self, token: str) -> None:
        g = self.games.pop(token)
        if g.task is not None:
            g.task.cancel()

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
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

    def payload(self, game: Game, since: int | None = None) -> dict[str, Any]:
        s = game.session
        info = s.summary()
        info.update(record=game.record, hint_bot=None if game.hinter is None else game.hinter.name,
                    thinking=s.bot_to_act or s.forced_action() is not None)
        out: dict[str, Any] = {"game": info, "state": s.frame()}
        if since is not None:
            out["frames"] = s.frames_since(since)
        return out

    # ------------------------------------------------------------ records
    def sources(self, owner: str) -> list[dict[str, Any]]:
        mine = [summary(g) for g in self.store.games(owner)]
        out = [{"id": "mine", "title": "Your finished games", "games": mine[-LIST_LIMIT:][::-1],
                "total": len(mine)}]
        for i, path in enumerate(self.files):
            games = _read_games(path)
            out.append({"id": str(i), "title": os.path.basename(path), "total": len(games),
                        "games": [summary(g) for g in games[:LIST_LIMIT]]})
        return out

    def record(self, source: str, index: int, owner: str) -> dict[str, Any]:
        if source == "mine":
            try:
                return self.store.game(index, owner)
            except KeyError:
                raise ApiError(404, f"you have no finished game {index}") from None
        if not source.isdigit() or int(source) >= len(self.files):
            raise ApiError(404, f"no record source {source!r}")
        for g in _read_games(self.files[int(source)]):
            if g["index"] == index:
                return g
        raise ApiError(404, f"no game {index} in {os.path.basename(self.files[int(source)])}")


def _read_games(path: str) -> list[dict[str, Any]]:
    from agents.records import ResultsFileError, read_results

    try:
        return read_results(path)[1]
    except (OSError, ResultsFileError) as e:
        raise ApiError(422, f"cannot read {os.path.basename(path)}: {e}") from None


def owner_of(token: str) -> str:
    """What a record keeps of a session token: a hash that cannot be turned back into it."""
    return hashlib.sha256(("sixtysix-owner:" + token).encode()).hexdigest()[:32]


# ---------------------------------------------------------------- requests
Handler = Callable[[Request, Tables, str], Awaitable[Any]]


def endpoint(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Session cookie, origin check, JSON replies and errors around one API handler."""

    async def handle(request: Request) -> Response:
        tables: Tables = request.app.state.tables
        token = request.cookies.get(COOKIE, "")
        fresh = TOKEN.fullmatch(token) is None
        if fresh:
            token = secrets.token_urlsafe(32)
        try:
            if request.method != "GET":
                _check_origin(request)
            result = await fn(request, tables, token)
            status = 200
            if isinstance(result, tuple):
                result, status = result
            response: Response = JSONResponse(result, status_code=status)
        except ApiError as e:
            response = JSONResponse({"error": e.message}, status_code=e.status)
        response.headers["Cache-Control"] = "no-store"
        if fresh:
            response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, httponly=True, samesite="strict", path="/")
        return response

    return handle


def _check_origin(request: Request) -> None:
    """Requests that change something come from this server's own page (no CSRF)."""
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "")
        if origin.split("://", 1)[-1] != host:
            raise ApiError(403, "cross-origin request refused")


async def read_json(request: Request, limit: int = BODY_LIMIT) -> dict[str, Any]:
    """The JSON object of a request body (415, 413 or 400 otherwise)."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise ApiError(415, "send JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise ApiError(413, f"request body over {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"request body over {limit} bytes")
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise ApiError(400, "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(400, f"{what} must be an integer in {lo}..{hi}")
    return value


def _query_int(request: Request, key: str, lo: int, hi: int) -> int | None:
    raw = request.query_params.get(key)
    if raw is None:
        return None
    try:
        return _int(int(raw), key, lo, hi)
    except ValueError:
        raise ApiError(400, f"{key} must be an integer in {lo}..{hi}") from None


@endpoint
async def api_bots(request: Request, tables: Tables, token: str) -> Any:
    return tables.bots()


@endpoint
async def api_new(request: Request, tables: Tables, token: str) -> Any:
    body = await read_json(request)
    unknown = set(body) - {"vs", "hint", "seed", "episode", "seat"}
    if unknown:
        raise ApiError(400, f"unknown field(s): {', '.join(sorted(unknown))}")
    vs = tables.check_spec(body.get("vs", tables.config.vs), "vs")
    hint = body.get("hint", tables.config.hint)
    if hint is None or (isinstance(hint, str) and hint.strip().lower() in ("", "none")):
        hint = None
    else:
        hint = tables.check_spec(hint, "hint")
        if parse_spec(hint)[0] == "oracle":
            raise ApiError(400, "hint: the oracle sees the hidden cards, so it cannot give hints")
    seed = body.get("seed")
    seed = None if seed is None else _int(seed, "seed", 0, 2**63 - 1)
    episode = body.get("episode", "match")
    if episode not in EPISODES:
        raise ApiError(400, f"episode must be one of {', '.join(EPISODES)}")
    seat = body.get("seat")
    seat = secrets.randbelow(2) if seat is None else _int(seat, "seat", 0, 1)

    def build() -> tuple[Session, Hinter | None]:
        s = Session(vs, seed=seed, episode=episode, seat=seat)
        return s, (Hinter(hint, seed=s.seed ^ 0x5EED) if hint else None)

    try:
        session, hinter = await tables.run(build)
    except ValueError as e:
        raise ApiError(400, str(e).split("\n")[0]) from None
    game = Game(session, hinter, owner_of(token))
    tables.put(token, game)
    tables.start_bot(game)
    return tables.payload(game, since=-1), 201


@endpoint
async def api_game(request: Request, tables: Tables, token: str) -> Any:
    game = tables.game(token)
    s = game.session
    if not s.over and (s.bot_to_act or s.forced_action() is not None):
        tables.start_bot(game)  # a no-op while its task runs; restarts one that ended early
    since = _query_int(request, "since", -1, 2**31)
    wait = request.query_params.get("wait")
    if wait is not None:
        try:
            wait_s = min(max(float(wait), 0.0), MAX_WAIT)
        except ValueError:
            raise ApiError(400, "wait must be a number of seconds") from None
        if since is None:
            raise ApiError(400, "wait needs since")
        pending = s.bot_to_act or s.forced_action() is not None or (s.over and game.record is None)
        if s.version <= since and pending:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(game.changed.wait(), wait_s)
    return tables.payload(game, since)


@endpoint
async def api_move(request: Request, tables: Tables, token: str) -> Any:
    game = tables.game(token)
    body = await read_json(request)
    s = game.session
    if set(body) - {"action", "version"}:
        raise ApiError(400, "a move is {\"action\": ..., \"version\": ...}")
    version = body.get("version")
    if version is not None and _int(version, "version", 0, 2**31) != s.version:
        raise ApiError(409, f"the game has moved on (version {s.version}); reload it")
    if s.over:
        raise ApiError(409, "the game is over")
    if not s.human_to_act:
        raise ApiError(409, "it is not your turn")
    action = body.get("action")
    try:
        if isinstance(action, str):
            action = s.parse_move(action)
        elif isinstance(action, int) and not isinstance(action, bool):
            s.check_legal(action)
        else:
            raise ValueError("action must be an action id (0-31) or a move: a card name, 'close', '66'...")
    except IllegalMove as e:
        raise ApiError(422, f"illegal move: {e}") from None
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    before = s.version
    s.play(action)
    if s.over:
        await tables.save(game)
    else:
        tables.start_bot(game)
    game.notify()
    return tables.payload(game, since=before)


@endpoint
async def api_hint(request: Request, tables: Tables, token: str) -> Any:
    game = tables.game(token)
    s = game.session
    if game.hinter is None:
        raise ApiError(409, "this game has no hint bot")
    if not s.human_to_act:
        raise ApiError(409, "no hint: it is not your turn")
    version, v = s.version, s.view
    seen, game.seen = game.seen, []
    hinter = game.hinter

    def think() -> dict[str, Any]:
        for past in seen:
            hinter.observe(past)
        return hinter.hint(v)

    async with game.hint_lock:
        h = await tables.run(think)
    values = [{"action": a, "value": x, **({"visits": h["visits"][a]} if h.get("visits") else {})}
              for a, x in sorted(h["values"].items(), key=lambda kv: -kv[1])]
    return {"hint": {"bot": h["bot"], "action": h["action"], "kind": h["kind"], "detail": h["detail"],
                     "values": values, "version": version}, "stale": s.version != version}


@endpoint
async def api_resign(request: Request, tables: Tables, token: str) -> Any:
    game = tables.game(token)
    s = game.session
    if s.over:
        raise ApiError(409, "the game is over")
    before = s.version
    s.resign()
    await tables.save(game)
    game.notify()
    return tables.payload(game, since=before)


@endpoint
async def api_records(request: Request, tables: Tables, token: str) -> Any:
    return {"sources": await tables.run(tables.sources, owner_of(token))}


@endpoint
async def api_record(request: Request, tables: Tables, token: str) -> Any:
    source = request.path_params["source"]
    try:
        index = int(request.path_params["index"])
    except ValueError:
        raise ApiError(400, "a game index is an integer") from None
    line = await tables.run(tables.record, source, index, owner_of(token))
    try:
        return await tables.run(replay_frames, line)
    except ValueError as e:
        raise ApiError(422, f"cannot replay game {index}: {e}") from None


@endpoint
async def api_replay(request: Request, tables: Tables, token: str) -> Any:
    body = await read_json(request, UPLOAD_LIMIT)
    text = body.get("jsonl")
    if not isinstance(text, str) or not text.strip():
        raise ApiError(400, "send {\"jsonl\": the text of an arena results file, \"game\": N}")
    index = body.get("game")
    index = None if index is None else _int(index, "game", 0, 2**31)

    def load() -> Any:
        from agents.records import ResultsFileError, read_results

        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
            f.flush()
            try:
                games = read_results(f.name)[1]
            except ResultsFileError as e:
                raise ApiError(422, str(e).replace(f.name, "the file")) from None
        if index is None:
            return {"games": [summary(g) for g in games[:LIST_LIMIT]], "total": len(games)}
        for g in games:
            if g["index"] == index:
                try:
                    return replay_frames(g)
                except ValueError as e:
                    raise ApiError(422, f"cannot replay game {index}: {e}") from None
        raise ApiError(404, f"the file has no game {index}")

    return await tables.run(load)


async def index_page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _json_http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", "error")
    return JSONResponse({"error": str(detail)}, status_code=status)


async def _json_server_error(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error", exc_info=exc)
    return JSONResponse({"error": "internal server error"}, status_code=500)


class SecurityHeaders:
    """Headers that keep the page to itself: no framing, no foreign scripts, no sniffing."""

    CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
           "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def add(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", self.CSP.encode()),
                            (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                            (b"x-frame-options", b"DENY")]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, add)


def create_app(config: Config | None = None) -> Starlette:
    """The web app (an ASGI application) for ``config``."""
    if MISSING:
        raise ImportError(MISSING)
    config = config or Config()
    tables = Tables(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(60)
                tables.evict()

        sweeper = asyncio.get_running_loop().create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            for g in tables.games.values():
                if g.task is not None:
                    g.task.cancel()
            tables.pool.shutdown(wait=False, cancel_futures=True)

    routes = [
        Route("/", index_page),
        Route("/api/bots", api_bots),
        Route("/api/games", api_new, methods=["POST"]),
        Route("/api/game", api_game),
        Route("/api/game/move", api_move, methods=["POST"]),
        Route("/api/game/hint", api_hint, methods=["POST"]),
        Route("/api/game/resign", api_resign, methods=["POST"]),
        Route("/api/records", api_records),
        Route("/api/records/{source}/{index}", api_record),
        Route("/api/replay", api_replay, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = ["*"] if "*" in config.allowed_hosts else config.allowed_hosts
    app = Starlette(
        routes=routes, lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders), Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        exception_handlers={HTTPException: _json_http_error, Exception: _json_server_error},
    )
    app.state.tables = tables
    return app


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``sixtysix serve``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8066, help="port (default 8066)")
    parser.add_argument("--vs", default="heuristic", metavar="SPEC", help="the default opponent")
    parser.add_argument("--hint", default="pimc", metavar="SPEC",
                        help="the default hint bot ('none': no hints)")
    parser.add_argument("--bots", nargs="*", default=[], metavar="SPEC",
                        help="more bots a browser may choose (any spec the arena accepts, e.g. ppo:PATH)")
    parser.add_argument("--data", default=Config.data, metavar="DIR",
                        help=f"folder of the finished games, DIR/games.jsonl (default {Config.data})")
    parser.add_argument("--records", nargs="*", default=[], metavar="FILE",
                        help="arena results files (JSONL) the viewer offers")
    parser.add_argument("--threads", type=int, default=4, help="threads the bots think in (default 4)")
    parser.add_argument("--max-games", type=int, default=500, help="games kept in memory (default 500)")


def main(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """Run ``sixtysix serve`` with parsed ``args`` (or a list of command-line words)."""
    if not isinstance(args, argparse.Namespace):
        parser = argparse.ArgumentParser(prog="sixtysix serve", description=__doc__.split("\n\n")[0])
        add_arguments(parser)
        args = parser.parse_args(args)
    if MISSING:
        print(MISSING, file=sys.stderr)
        return 2
    import uvicorn

    hosts = ["127.0.0.1", "localhost"]
    if args.host not in hosts:
        hosts.append("*" if args.host in ("0.0.0.0", "::") else args.host)
    config = Config(data=args.data, vs=args.vs, hint=args.hint, bots=list(args.bots),
                    records=list(args.records), threads=max(1, args.threads),
                    max_games=max(1, args.max_games), allowed_hosts=hosts)
    try:
        app = create_app(config)
    except ValueError as e:
        print(f"sixtysix serve: error: {e}", file=sys.stderr)
        return 2
    print(f"Sixty-Six tables on http://{args.host}:{args.port}/  (finished games: "
          f"{app.state.tables.store.path}; Ctrl-C to stop)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
