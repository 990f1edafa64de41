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
import logging
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from .games import Config, Tables

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
SWEEP_S = 60  # how often idle games are forgotten


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
    config = config or Config()
    tables = Tables(config)

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

    hosts = ["*"] if "*" in config.allowed_hosts else config.allowed_hosts
    app = Starlette(
        routes=routes(), lifespan=lifespan,
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
