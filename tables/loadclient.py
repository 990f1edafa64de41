"""The load tests' web client and server (:mod:`.loadtest`, :mod:`.loadhostile`): one browser's
connection (:class:`Client`), one game played to its end with random legal moves (:func:`play_one`),
what the games saw (:class:`Result`), and ``python -m tables.web`` run on a free loopback port
(:func:`local_server`).

The client speaks plain HTTP/1.1 with keep-alive on asyncio streams: a
general-purpose client such as httpx spends more CPU per request than the
server does, and with 50 games in one process it would measure its own
queue rather than the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    games: int = 0
    finished: int = 0
    errors: list[str] = field(default_factory=list)
    requests: int = 0
    move_ms: list[float] = field(default_factory=list)
    reply_ms: list[float] = field(default_factory=list)  # from a move to the bot's answer
    call_ms: list[float] = field(default_factory=list)  # every request but the long polls
    seconds: float = 0.0

    def figures(self) -> dict[str, Any]:
        ms = sorted(self.move_ms)
        pct = (lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]) if ms else (lambda q: float("nan"))
        return {
            "games": self.games, "finished": self.finished, "errors": len(self.errors),
            "requests": self.requests, "moves": len(ms),
            "move_ms_median": round(statistics.median(ms), 2) if ms else None,
            "move_ms_p95": round(pct(0.95), 2), "move_ms_max": round(ms[-1], 2) if ms else None,
            "reply_ms_max": round(max(self.reply_ms), 1) if self.reply_ms else None,
            "seconds": round(self.seconds, 1),
        }


def pick(state: dict[str, Any], rng: random.Random) -> int:
    """A random legal move; declare once at 66, never declare falsely."""
    legal = state["legal"]
    for m in legal:
        if m["kind"] == "declare" and not m.get("false"):
            return m["action"]
    choices = [m for m in legal if not (m["kind"] == "declare" and m.get("false"))] or legal
    return rng.choice(choices)["action"]


class Client:
    """One browser's connection: HTTP/1.1 keep-alive, JSON in and out, its session cookie."""

    def __init__(self, base: str, local_address: str | None = None) -> None:
        host, _, port = base.split("://", 1)[-1].rstrip("/").partition(":")
        self.host, self.port = host, int(port or 80)
        self.local = None if local_address is None else (local_address, 0)
        self.cookie = ""
        self._io: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if self.cookie:
            head += f"Cookie: {self.cookie}\r\n"
        fresh = self._io is None
        reader = await self._send(head.encode() + b"\r\n" + data)
        try:
            line = await reader.readline()
        except ConnectionError:
            line = b""
        if not line and not fresh:  # the server closed the idle keep-alive connection: a browser reconnects
            await self.close()
            reader = await self._send(head.encode() + b"\r\n" + data)
            line = await reader.readline()
        if not line:
            raise ConnectionResetError(f"{method} {path}: the server closed the connection without a reply")
        status = int(line.split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            key = key.strip().lower()
            if key == "content-length":
                length = int(value)
            elif key == "set-cookie" and value.strip().startswith("sixtysix_session="):
                self.cookie = value.strip().split(";")[0]
        return status, json.loads(await reader.readexactly(length))

    async def _send(self, request: bytes) -> asyncio.StreamReader:
        if self._io is None:
            self._io = await asyncio.open_connection(self.host, self.port, local_addr=self.local)
        self._io[1].write(request)
        return self._io[0]

    async def close(self) -> None:
        if self._io is not None:
            io, self._io = self._io, None
            io[1].close()
            try:
                await io[1].wait_closed()
            except OSError:  # already reset by the server
                pass


async def play_one(base: str, seed: int, vs: str, episode: str, res: Result,
                   local_address: str | None = None, client: Client | None = None) -> None:
    """One game to its end, on a connection (and session) of its own, or on ``client``'s (left open:
    a browser's page keeps its connection and cookie from game to game)."""
    rng = random.Random(seed)
    c = client or Client(base, local_address)

    async def call(method: str, path: str, body: Any = None) -> dict[str, Any]:
        res.requests += 1
        t0 = time.perf_counter()
        status, data = await c.call(method, path, body)
        if "wait=" not in path:
            res.call_ms.append(1000 * (time.perf_counter() - t0))
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {data}")
        return data

    try:
        data = await call("POST", "/api/games", {"vs": vs, "hint": "none", "seed": seed, "episode": episode})
        while True:
            g, st = data["game"], data["state"]
            if g["over"] and g["record"] is not None:
                res.finished += 1
                return
            if st["to_act"] != "you":
                data = await call("GET", f"/api/game?since={st['version']}&wait=30")
                continue
            t0 = time.perf_counter()
            data = await call("POST", "/api/game/move", {"action": pick(st, rng), "version": st["version"]})
            res.move_ms.append(1000 * (time.perf_counter() - t0))
            if not data["game"]["over"] and data["state"]["to_act"] != "you":  # time the bot's reply too
                data = await call("GET", f"/api/game?since={data['state']['version']}&wait=30")
                res.reply_ms.append(1000 * (time.perf_counter() - t0))
    finally:
        if client is None:
            await c.close()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@contextmanager
def local_server(*args: str, data: str | None = None, log: str | None = None,
                 timeout: float = 60.0) -> Iterator[str]:
    """Run ``python -m tables.web`` on a free loopback port (``--host`` among ``args``:
    that address, e.g. ``::1``); yields its base URL. The server's stderr goes to the file
    ``log`` (default: a temporary one), never to a pipe that nobody reads: a full pipe
    would stall the server at its next log line."""
    with local_server_process(*args, data=data, log=log, timeout=timeout) as (base, _):
        yield base


@contextmanager
def local_server_process(*args: str, data: str | None = None, log: str | None = None,
                         timeout: float = 60.0) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`local_server`, yielding the server's process too (its memory can be read)."""
    host = args[args.index("--host") + 1] if "--host" in args else "127.0.0.1"
    port = free_port(host)
    with tempfile.TemporaryDirectory() as tmp:
        data = data or os.path.join(tmp, "data")
        log = log or os.path.join(tmp, "server.log")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        with open(log, "ab") as err:
            proc = subprocess.Popen([sys.executable, "-m", "tables.web", "--port", str(port), "--data", data,
                                     *args], env=env, stdout=subprocess.DEVNULL, stderr=err)
        base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        try:
            _wait_until_up(base, proc, log, timeout)
            yield base, proc
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_until_up(base: str, proc: subprocess.Popen[bytes], log: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(base + "/api/bots", timeout=2):
                return
        except OSError:
            if proc.poll() is not None:
                with open(log, encoding="utf-8", errors="replace") as f:
                    raise RuntimeError("the server did not start: " + f.read()[-2000:]) from None
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer in time") from None
            time.sleep(0.1)
