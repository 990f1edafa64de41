"""A load test of ``sixtysix serve`` over loopback: many games at once through the API.

Each game is one client (its own session cookie) in one asyncio loop, one
request at a time: it starts a game, plays a random legal move whenever it
is its turn (declaring once it has 66), and waits for the bot's moves with
the long poll. The figures are the response times of the player's own moves
(``POST /api/game/move``), measured by the client from sending the request
to reading the whole reply.

The client speaks plain HTTP/1.1 with keep-alive on asyncio streams
(:class:`~.loadclient.Client`): a general-purpose client such as httpx spends more CPU
per request than the server does, and with 50 games in one process it
would measure its own queue rather than the server.

With ``--attack`` one hostile client (``127.0.0.1``) instead opens many
games without keeping a cookie, against a slow bot, and asks for hints
without pause, while another client (``127.0.0.2``) plays a game to the
end: the figures are the second client's response times and what the
hostile client got (:func:`attack`).

    python -m tables.loadtest --games 50 --vs heuristic          # starts its own server
    python -m tables.loadtest --games 50 --url http://127.0.0.1:8066
    python -m tables.loadtest --attack                           # the per-client caps under attack
    python -m tables.loadtest --hostile                          # fairness and memory (tables.loadhostile)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.arena.argtypes import checked, count_at_most

from .loadclient import Client, Result, free_port, local_server, local_server_process, pick, play_one
from .menu import menu_spec

MAX_SEED = 2**62  # game i plays seed + i, and the server takes seeds below 2**63
MAX_GAMES = 5000  # games at once: each holds a connection (two file descriptors on one machine)
MAX_THREADS = 1024  # the server's own bound on its bot threads (tables.web)


async def run(base: str, games: int, vs: str, episode: str, seed: int = 0) -> Result:
    res = Result(games=games)

    async def one(i: int) -> None:
        try:
            await play_one(base, seed + i, vs, episode, res)
        except Exception as e:  # noqa: BLE001 - every failure is counted and reported
            res.errors.append(f"game {i}: {type(e).__name__}: {e}")

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(games)))
    res.seconds = time.perf_counter() - t0
    return res


@dataclass
class Attack:
    """What :func:`attack` saw: the hostile client's replies by status, how many of its games
    the server still kept, and the other client's game."""

    hostile: dict[int, int] = field(default_factory=dict)
    kept: int = 0
    normal: Result = field(default_factory=Result)

    def figures(self) -> dict[str, Any]:
        return {"hostile_statuses": dict(sorted(self.hostile.items())), "hostile_games_kept": self.kept,
                "normal": self.normal.figures()}


async def attack(base: str, sessions: int = 12, slow: str = "pimc:worlds=128,depth=2",
                 seconds: float = 20.0, normal_vs: str = "heuristic", seed: int = 0) -> Attack:
    """A hostile client (``127.0.0.1``) opens ``sessions`` games against ``slow``, each from a
    fresh session (no cookie kept), and asks for hints without pause for at most ``seconds``,
    while a normal client (``127.0.0.2``) plays one deal against ``normal_vs``."""
    out = Attack()
    clients = [Client(base, "127.0.0.1") for _ in range(sessions)]
    stop = time.monotonic() + seconds

    async def hostile(c: Client, i: int) -> None:
        body = {"vs": slow, "hint": slow, "seat": 1, "seed": seed + i}
        status, _ = await c.call("POST", "/api/games", body)
        out.hostile[status] = out.hostile.get(status, 0) + 1
        while time.monotonic() < stop and not normal.done():
            status, data = await c.call("POST", "/api/game/hint", {})
            out.hostile[status] = out.hostile.get(status, 0) + 1
            if status in (404, 409):  # its game was replaced, or it is the bot's turn
                await asyncio.sleep(0.05)

    async def play_normal() -> None:
        try:
            await play_one(base, seed + 10_000, normal_vs, "deal", out.normal, local_address="127.0.0.2")
        except Exception as e:  # noqa: BLE001 - counted and reported
            out.normal.errors.append(f"{type(e).__name__}: {e}")

    out.normal.games = 1
    normal = asyncio.ensure_future(play_normal())
    t0 = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(normal, *(hostile(c, i) for i, c in enumerate(clients))),
                           seconds + 60)
    out.normal.seconds = time.perf_counter() - t0
    for c in clients:
        status, _ = await c.call("GET", "/api/game")
        out.kept += status == 200
        await c.close()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tables.loadtest", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=count_at_most(MAX_GAMES), default=50,
                   help=f"games played at once (default 50, at most {MAX_GAMES})")
    p.add_argument("--vs", default="heuristic", help="the bot (default heuristic)")
    p.add_argument("--episode", choices=("match", "deal"), default="match")
    p.add_argument("--seed", type=checked(int, "an int", _seed), default=0,
                   help="first card seed (game i uses seed+i)")
    p.add_argument("--url", type=checked(str, "a URL", _url), default=None,
                   help="a running server, http://HOST:PORT (default: start one)")
    p.add_argument("--threads", type=count_at_most(MAX_THREADS), default=4,
                   help="bot threads of the server it starts")
    p.add_argument("--attack", action="store_true", help="one hostile client against the caps, another "
                                                         "playing (see the module docstring)")
    p.add_argument("--hostile", action="store_true",
                   help="one hostile client replacing games and sending 32 uploads at once, another playing: "
                        "the slowest reply and the server's memory (tables.loadhostile; its own server)")
    p.add_argument("--seconds", type=float, default=10.0, help="--hostile: how long the attack lasts")
    p.add_argument("--uploads", type=count_at_most(256), default=32, help="--hostile: uploads at once")
    args = p.parse_args(argv)
    try:
        return _load_test(args)
    except (OSError, RuntimeError, ValueError) as e:  # a server that does not start or answer: one line
        print(f"python -m tables.loadtest: error: {e}", file=sys.stderr)
        return 2


def _seed(value: int) -> int:
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"must be in [0, 2**62], got {value}")
    return value


def _url(text: str) -> str:
    """``text`` if :class:`Client` can reach it: ``http://HOST[:PORT]``, a name or IPv4 address."""
    u = urllib.parse.urlsplit(text)
    try:
        port = u.port
    except ValueError:
        port = -1
    if u.scheme != "http" or not u.hostname or ":" in u.hostname or port == -1 or u.path not in ("", "/") \
            or u.query or u.fragment or u.username is not None:
        raise ValueError(f"must be http://HOST or http://HOST:PORT (a name or an IPv4 address), got {text!r}")
    return text


def check_bot(args: argparse.Namespace) -> None:
    """A :class:`~tables.menu.MenuError` (one line) unless the server takes ``--vs``: a bot of the menu,
    or (``--url``) one of the running server's own specs; asked before any game starts, so a typo
    is not one error per game."""
    own: set[str] = set()
    if args.url:
        with urllib.request.urlopen(args.url.rstrip("/") + "/api/bots", timeout=10) as r:
            listing = json.loads(r.read(1 << 20))
        extra = listing.get("extra") if isinstance(listing, dict) else None
        own = {s for s in extra if isinstance(s, str)} if isinstance(extra, list) else set()
    menu_spec(args.vs, own, "--vs")


def _load_test(args: argparse.Namespace) -> int:
    if args.hostile:
        from .loadhostile import MEMORY_BOUND_MIB, SLOWEST_REPLY_S, hostile_scenario

        figures = hostile_scenario(min(max(args.seconds, 1.0), 600.0), args.uploads, threads=args.threads)
        print(json.dumps(figures, indent=2))
        fair = figures["honest"]["slowest_reply_ms"] <= 1000 * SLOWEST_REPLY_S
        return 0 if fair and figures["server_mib"]["hwm"] < MEMORY_BOUND_MIB else 1
    if args.attack:
        if args.url:
            out = asyncio.run(attack(args.url, seed=args.seed))
        else:
            with local_server("--threads", str(args.threads)) as base:
                out = asyncio.run(attack(base, seed=args.seed))
        print(json.dumps(out.figures(), indent=2))
        return 0 if out.normal.finished == 1 else 1
    check_bot(args)
    if args.url:
        res = asyncio.run(run(args.url, args.games, args.vs, args.episode, args.seed))
    else:
        # every game comes from this one address: let it have all the games and threads
        with local_server("--threads", str(args.threads), "--games-per-client", str(args.games),
                          "--max-games", str(max(args.games, 500)),
                          "--searches-per-client", str(args.threads),
                          "--requests-per-client", str(2 * args.games)) as base:
            res = asyncio.run(run(base, args.games, args.vs, args.episode, args.seed))
    print(json.dumps(res.figures(), indent=2))
    for e in res.errors[:10]:
        print(e, file=sys.stderr)
    return 0 if not res.errors and res.finished == res.games else 1

__all__ = [  # the client and server of .loadclient too, as the tests and scripts import them from here
    "Attack", "Client", "Result", "attack", "free_port", "local_server", "local_server_process", "main",
    "pick", "play_one", "run",
]


if __name__ == "__main__":
    sys.exit(main())
