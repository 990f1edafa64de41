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

Where the parts are: this module assembles the app (routes, security
headers, JSON for every error) and is the command line;
:mod:`tables.games` keeps the games and the bots' threads;
:mod:`tables.endpoint` wraps each handler (session cookie, origin check,
JSON in and out); :mod:`tables.game_api` is the API of a browser's game
(``/api/bots``, ``/api/games``, ``/api/game/...``) and
:mod:`tables.records_api` the viewer's (``/api/records``, ``/api/replay``).
Errors are ``{"error": ...}`` with a 4xx status, and leave the game
unchanged.

Run ``python -m tables.web --port 8066``; ``add_arguments`` and ``main``
let the ``sixtysix`` command offer the same as ``sixtysix serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import ipaddress
import logging
import re
import socket
import sys
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from .games import Config, GameStore

try:  # the `web` extra; without it this module still imports, so `sixtysix --help` works
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
except ImportError as e:  # pragma: no cover - depends on the installed extras
    MISSING = f"sixtysix serve needs the web extra: pip install -e '.[web]' ({e})"
else:
    MISSING = ""

log = logging.getLogger("sixtysix.serve")
STATIC = Path(__file__).resolve().parent / "static"
SWEEP_S = 60  # how often idle games are forgotten
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
MAX_CONNECTIONS = 400  # connections (and requests) at once; uvicorn answers 503 past it
KEEP_ALIVE_S = 5  # an idle keep-alive connection is closed after this
SHUTDOWN_S = 2  # on SIGTERM, requests still running (long polls) get this long to finish
MAX_HEADER_BYTES = 16 * 1024  # request line and headers (HeaderCap; h11 for a head still arriving)
# The HTTP parser: h11, which refuses a head that is still incomplete past MAX_HEADER_BYTES, so no
# head held in memory grows past that plus one read (uvicorn[standard] would pick httptools, which
# reads headers of any size); no websocket support (the app has no such route).
HTTP_PARSER, WEBSOCKETS = "h11", "none"  # h11: tables.connections.protocol() is uvicorn's h11 protocol
# uvicorn's own warnings (a malformed request, an unsupported upgrade) are one line per request a
# client chooses to send: only errors are logged, so no client can grow the operator's log.
UVICORN_LOG_LEVEL = "error"
MAX_PORT = 65535
MAX_THREADS = 1024  # bot threads: each is a real OS thread, started on demand
# How long a bot thread may hold the interpreter while the event loop waits for it (CPython's
# default is 5 ms): the event loop takes it back once per blocking call, several times a request,
# and with two busy threads (one client's searches or uploads) the default cost replies tens of ms.
SWITCH_INTERVAL_S = 0.001


class BindError(ValueError):
    """A listening address the operator must confirm (``--allow-remote``) or cannot use."""


async def index_page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _json_http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", "error")
    return JSONResponse({"error": str(detail)}, status_code=status)


async def _json_server_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, ClientDisconnect):  # the browser went away: nothing to answer or log
        return Response(status_code=499)
    log.exception("unexpected error", exc_info=exc)
    return JSONResponse({"error": "internal server error"}, status_code=500)


# A Host header: a name (or IPv4 address) or a bracketed IPv6 address, then at most a port.
HOST = re.compile(r"(?:\[([0-9a-f:.]{2,45})\]|([a-z0-9._-]{1,253}))(?::[0-9]{1,5})?")


def host_of(header: str) -> str:
    """The host of a ``Host`` header, without the port: ``[::1]:8066`` -> ``::1``; ``""`` for
    anything else (``127.0.0.1:80@evil.example`` names no allowed host, whatever it starts with)."""
    m = HOST.fullmatch(header.strip().lower())
    return "" if m is None else m.group(1) or m.group(2)


class HostCheck:
    """Only requests with one ``Host`` header naming an allowed host (no DNS rebinding; with two,
    the check and the origin test could read different ones). Starlette's own
    ``TrustedHostMiddleware`` cannot read an IPv6 literal (``[::1]:8066``), hence this one."""

    def __init__(self, app: Any, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self.allowed = {h.strip("[]").lower() for h in allowed_hosts}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            hosts = [v.decode("latin-1") for k, v in scope["headers"] if k == b"host"]
            if len(hosts) != 1 or host_of(hosts[0]) not in self.allowed:
                response = JSONResponse({"error": "invalid host header"}, status_code=400)
                return await response(scope, receive, send)
        await self.app(scope, receive, send)


def head_bytes(scope: Any) -> int:
    """The size of a request's line and headers as sent (``NAME: VALUE\\r\\n`` per header)."""
    query = scope.get("query_string") or b""
    target = len(scope.get("raw_path") or scope["path"].encode()) + (len(query) + 1 if query else 0)
    line = len(scope["method"]) + 1 + target + len(" HTTP/1.1\r\n")
    return line + sum(len(k) + len(v) + 4 for k, v in scope["headers"])


class HeaderCap:
    """431 for a request whose line and headers exceed ``cap`` bytes. h11 enforces its limit
    only on a head that is still arriving, and a head read whole in a single piece (asyncio reads
    up to 256 KiB at once) passes it: so the cap is checked here, on every request."""

    def __init__(self, app: Any, cap: int) -> None:
        self.app = app
        self.cap = cap

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and head_bytes(scope) > self.cap:
            response = JSONResponse({"error": f"request line and headers over {self.cap} bytes"},
                                    status_code=431)
            return await response(scope, receive, send)
        await self.app(scope, receive, send)


class ClientRequests:
    """At most ``cap`` requests in progress per client (:func:`tables.endpoint.client_key`), so
    one client cannot hold every connection the server takes (long polls last 30 s): 429 past it."""

    def __init__(self, app: Any, cap: int) -> None:
        self.app = app
        self.cap = cap
        self.busy: Counter[str] = Counter()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        from .endpoint import client_key

        client = client_key((scope.get("client") or (None,))[0])
        if self.busy[client] >= self.cap:
            response = JSONResponse({"error": f"at most {self.cap} requests at once per client"},
                                    status_code=429)
            return await response(scope, receive, send)
        self.busy[client] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.busy[client] -= 1
            if self.busy[client] <= 0:
                del self.busy[client]


class UploadGate:
    """The body budget of an upload (``POST /api/replay``, :class:`tables.bodies.BodyBudget`),
    checked before anything else: a hostile client's refused uploads come hundreds a second,
    and each one here costs the event loop a header lookup and a 429 sent unread with the
    connection closed. The reservation is the endpoint's (:func:`tables.endpoint.reserve_body`),
    released when the request ends whatever answers it."""

    REFUSED = (b'{"error": "too many request bodies in progress (per client or on the server): '
               b'try again shortly"}')

    def __init__(self, app: Any, tables: GameStore) -> None:
        self.app = app
        self.tables = tables

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/api/replay":
            return await self.app(scope, receive, send)
        from .endpoint import RESERVED, client_key
        from .records_api import UPLOAD_LIMIT

        lengths = [v for k, v in scope["headers"] if k == b"content-length"]
        if len(lengths) != 1 or not lengths[0].isdigit() or int(lengths[0]) > UPLOAD_LIMIT:
            return await self.app(scope, receive, send)  # the endpoint says what is wrong
        client, size = client_key((scope.get("client") or (None,))[0]), int(lengths[0])
        if not self.tables.bodies.reserve(client, size):
            return await self.refuse(send)
        scope[RESERVED] = (client, size)
        try:
            await self.app(scope, receive, send)
        finally:
            if scope.pop(RESERVED, None) is not None:
                self.tables.bodies.release(client, size)

    async def refuse(self, send: Any) -> None:
        headers = [(b"content-type", b"application/json"), (b"connection", b"close"),
                   (b"content-length", str(len(self.REFUSED)).encode()), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": self.REFUSED})


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


def routes() -> list[Any]:
    """Every route of the app: the page, the API, the static files."""
    from .game_api import api_bots, api_game, api_hint, api_move, api_new, api_resign  # need Starlette
    from .records_api import api_record, api_records, api_replay

    return [
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


def create_app(config: Config | None = None) -> Starlette:
    """The web app (an ASGI application) for ``config``."""
    if MISSING:
        raise ImportError(MISSING)
    from .endpoint import origin_of

    config = config or Config()
    origins = [origin_of(o) for o in config.allowed_origins]
    if "" in origins:
        raise ValueError("--allowed-origin: give scheme://host[:port], e.g. https://table.lan")
    config = dataclasses.replace(config, allowed_origins=origins)
    tables = GameStore(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(SWEEP_S)
                tables.evict()

        sweeper = asyncio.get_running_loop().create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            tables.close()

    app = Starlette(
        routes=routes(), lifespan=lifespan,
        middleware=[Middleware(UploadGate, tables=tables), Middleware(SecurityHeaders),
                    Middleware(HeaderCap, cap=MAX_HEADER_BYTES),
                    Middleware(HostCheck, allowed_hosts=config.allowed_hosts),
                    Middleware(ClientRequests, cap=config.requests_per_client)],
        exception_handlers={HTTPException: _json_http_error, Exception: _json_server_error},
    )
    app.state.tables = tables
    return app


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``sixtysix serve``."""
    d = Config()
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; ::1 works; any address outside "
                             "loopback needs --allow-remote)")
    parser.add_argument("--port", type=int, default=8066, help="port (default 8066)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow --host outside loopback: anyone who can reach the port may play "
                             "(see SECURITY.md)")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a host name browsers may use in the URL (repeatable; default: loopback "
                             "names, the --host address and, for 0.0.0.0 or ::, this machine's name)")
    parser.add_argument("--allowed-origin", action="append", default=[], metavar="URL",
                        help="an origin the page may also be served from, e.g. https://table.lan for "
                             "a TLS proxy in front (repeatable; default: the server's own only)")
    parser.add_argument("--vs", default="heuristic", metavar="SPEC", help="the default opponent")
    parser.add_argument("--rules", default="german", metavar="SPEC",
                        help="the rules of a new game (default german; docs/rules-variants.md)")
    parser.add_argument("--rules-choices", nargs="*", default=None, metavar="SPEC",
                        help="the only rules a browser may choose (default: every preset and switch "
                             "combination; --rules is always one)")
    parser.add_argument("--hint", default="pimc", metavar="SPEC",
                        help="the default hint bot ('none': no hints)")
    parser.add_argument("--bots", nargs="*", default=[], metavar="SPEC",
                        help="more bots a browser may choose, each as this exact string (any spec the "
                             "arena accepts, e.g. ppo:PATH; they run with your rights)")
    parser.add_argument("--data", default=Config.data, metavar="DIR",
                        help=f"folder of the finished games, DIR/games.jsonl (default {Config.data})")
    parser.add_argument("--records", nargs="*", default=[], metavar="FILE",
                        help="arena results files (JSONL) the viewer offers")
    parser.add_argument("--threads", type=int, default=d.threads,
                        help=f"threads the bots think in (default {d.threads})")
    parser.add_argument("--max-games", type=int, default=d.max_games,
                        help=f"games kept in memory (default {d.max_games})")
    parser.add_argument("--games-per-client", type=int, default=d.games_per_client,
                        help=f"games kept per remote address (default {d.games_per_client})")
    parser.add_argument("--searches-per-client", type=int, default=d.searches_per_client,
                        help=f"bot moves and hints thinking at once per remote address "
                             f"(default {d.searches_per_client})")
    parser.add_argument("--requests-per-client", type=int, default=d.requests_per_client,
                        help=f"requests in progress at once per remote address, long polls included "
                             f"(default {d.requests_per_client})")
    parser.add_argument("--records-max-mb", type=float, default=d.records_max_bytes / 2**20,
                        help=f"DATA/games.jsonl is rotated to games.jsonl.1 past this size "
                             f"(default {d.records_max_bytes // 2**20})")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is reachable from this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, allow_remote: bool, extra: Sequence[str]) -> list[str]:
    """The ``Host`` names browsers may use for a server bound to ``host`` (never ``*``);
    :class:`BindError` for an address outside loopback without ``allow_remote``."""
    host = host.strip("[]")
    if not is_loopback(host) and not allow_remote:
        raise BindError(f"--host {host} is reachable from other machines: add --allow-remote to "
                        "serve there (anyone who reaches the port may play; see SECURITY.md)")
    names = [*LOOPBACK_NAMES, *extra]
    if host in ("0.0.0.0", "::"):
        name = socket.gethostname()
        names += [name, socket.getfqdn(name)]
    else:
        names.append(host)
    if any(n.strip() in ("*", "") for n in names):
        raise BindError("--allowed-host: name each host; '*' would let any site's pages reach the server")
    return list(dict.fromkeys(n.strip("[]").lower() for n in names))


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

    from . import connections  # uvicorn's h11 protocol, connections bounded per client and in time

    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        hosts = allowed_hosts(args.host, args.allow_remote, args.allowed_host)
        counts = {"--threads": args.threads, "--max-games": args.max_games,
                  "--games-per-client": args.games_per_client,
                  "--searches-per-client": args.searches_per_client,
                  "--requests-per-client": args.requests_per_client}
        for flag, n in counts.items():
            if n < 1:
                raise ValueError(f"{flag} must be at least 1, got {n}")
        if args.threads > MAX_THREADS:
            raise ValueError(f"--threads must be at most {MAX_THREADS}, got {args.threads}")
        if not 1 <= args.port <= MAX_PORT:
            raise ValueError(f"--port must be 1..{MAX_PORT}, got {args.port}")
        if not 0.01 <= args.records_max_mb <= 1e6:
            raise ValueError(f"--records-max-mb must be 0.01..1e6, got {args.records_max_mb}")
        config = Config(data=args.data, vs=args.vs, hint=args.hint, bots=list(args.bots),
                        records=list(args.records), threads=args.threads, max_games=args.max_games,
                        games_per_client=args.games_per_client, searches_per_client=args.searches_per_client,
                        requests_per_client=args.requests_per_client,
                        records_max_bytes=int(args.records_max_mb * 2**20), allowed_hosts=hosts,
                        allowed_origins=list(args.allowed_origin),
                        rules=args.rules, rules_choices=args.rules_choices)
        app = create_app(config)
    except ValueError as e:
        print(f"sixtysix serve: error: {e}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(f"sixtysix serve: warning: listening on {args.host}, outside loopback: anyone who can reach "
              f"port {args.port} may play here (host names allowed: {', '.join(hosts)})",
              file=sys.stderr, flush=True)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Sixty-Six tables on http://{shown}:{args.port}/  (finished games: "
          f"{app.state.tables.store.path}; Ctrl-C to stop)", flush=True)
    uvicorn.run(app, host=args.host.strip("[]"), port=args.port, log_level=UVICORN_LOG_LEVEL,
                access_log=False, limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE_S,
                timeout_graceful_shutdown=SHUTDOWN_S, h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                http=connections.protocol(args.requests_per_client + 16, connections.HEAD_S),
                ws=WEBSOCKETS, proxy_headers=False, server_header=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
