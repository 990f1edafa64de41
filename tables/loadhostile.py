"""One hostile web client against an honest one, over loopback: the server's fairness bounds.

The hostile client (``127.0.0.1``) runs in a process of its own, so its work
never slows the honest client's clock. For ``seconds`` it

- replaces its game in a loop (``POST /api/games``, cookie kept) against an
  expensive search bot, and opens games without a cookie (its 17th evicts
  its oldest), so a search of a game just thrown away is always running;
- sends ``uploads`` (32) uploads of the largest body the server takes
  (``POST /api/replay``, a valid results file just under ``UPLOAD_LIMIT``),
  each on its own connection, again and again.

Meanwhile the honest client (``127.0.0.2``) plays deals against a cheap bot,
as a browser's page does: one keep-alive connection, one cookie.
The figures (:func:`hostile_scenario`) are the honest client's slowest reply
(every request but the long polls, and the bot's answer to each of its
moves) and the server's memory: its ``VmRSS`` sampled, and its ``VmHWM``
(the most it ever held) at the end. ``python -m tables.loadtest --hostile``
runs it; ``tests/tables/test_tables_fairness.py`` asserts the bounds below.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Any

from .loadclient import Client, Result, local_server_process, play_one

HOSTILE_BOT = "pimc:worlds=128,depth=2"  # the most a browser's pimc may think: about a second a move
HONEST_BOT = "heuristic"
SLOWEST_REPLY_S = 0.5  # the honest client's slowest reply must stay at or under this
MEMORY_BOUND_MIB = 350  # server VmHWM: idle (55) + one upload parsed (about 100) + 16 games + slack
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = json.dumps({"type": "header", "format": "sixtysix-arena/1", "config": {}})


def results_body(limit: int, seed: int = 3) -> bytes:
    """An upload body (``{"jsonl": ...}``) of a valid results file, as close to ``limit`` bytes as
    whole game lines allow: the most work and memory one upload can cost the server."""
    from .session import Session

    s = Session("random", seed=seed, episode="deal")
    rng = random.Random(seed)
    while not s.over:
        if s.bot_to_act:
            s.bot_move()
        else:
            s.play(rng.choice(s.legal_moves())["action"])
    line = s.game_line(index=0, cluster=0)
    lines, size, i = [HEADER], len(json.dumps({"jsonl": HEADER + "\n"})), 0
    while True:
        text = json.dumps({**line, "index": i})
        grown = len(json.dumps(text + "\n")) - 2  # its escaped size inside the body's string
        if size + grown > limit:
            break
        lines.append(text)
        size += grown
        i += 1
    body = json.dumps({"jsonl": "\n".join(lines) + "\n"}).encode()
    assert len(body) <= limit, (len(body), limit)
    return body


def memory_kib(pid: int, key: str) -> int:
    """A ``/proc/PID/status`` figure in KiB (``VmRSS``: now; ``VmHWM``: the most ever); 0 if gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class MemorySampler(threading.Thread):
    """The largest ``VmRSS`` of process ``pid`` seen, sampled every ``every`` seconds."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.max_kib = 0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(self.every):
            self.max_kib = max(self.max_kib, memory_kib(self.pid, "VmRSS"))

    def stop(self) -> None:
        self._halt.set()
        self.join(5)


async def upload_once(host: str, port: int, body: bytes, out: Counter[str], local: str) -> None:
    """One upload on a fresh connection, sent in pieces while its reply is awaited (a refusal
    comes before the body is sent); counts the reply's status, or ``reset``."""
    try:
        reader, writer = await asyncio.open_connection(host, port, local_addr=(local, 0))
    except OSError:
        out["connect failed"] += 1
        return
    head = (f"POST /api/replay HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    reply = asyncio.ensure_future(reader.readline())
    try:
        writer.write(head)
        view = memoryview(body)
        for at in range(0, len(body), 1 << 18):
            if reply.done():
                break
            writer.write(view[at:at + (1 << 18)])
            await writer.drain()
        line = await asyncio.wait_for(reply, 120)
        out[line.split()[1].decode() if line.startswith(b"HTTP/") else "closed"] += 1
    except (OSError, asyncio.TimeoutError, IndexError):
        out["reset"] += 1
    finally:
        reply.cancel()
        writer.close()


async def replace_games(base: str, until: float, out: Counter[str], keep_cookie: bool, slow: str) -> None:
    """New games against ``slow`` without pause: each replaces the last (``keep_cookie``) or, from a
    new session every time, evicts the client's oldest game."""
    c = Client(base, "127.0.0.1")
    seed = 0
    while time.monotonic() < until:
        if not keep_cookie:
            c.cookie = ""
        seed += 1
        try:
            body = {"vs": slow, "hint": "none", "seat": 1, "seed": seed}
            status, _ = await c.call("POST", "/api/games", body)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            await c.close()
            c = Client(base, "127.0.0.1")
            status = 0
        out[f"new game {status}"] += 1
    await c.close()


async def hostile_client(base: str, seconds: float, uploads: int, slow: str,
                         replace: bool = True) -> dict[str, int]:
    """The hostile client's whole attack for ``seconds`` (``replace``: the game loops too); its
    replies counted by kind and status."""
    from .records_api import UPLOAD_LIMIT

    body = results_body(UPLOAD_LIMIT)
    host, _, port = base.split("://", 1)[1].rpartition(":")
    until = time.monotonic() + seconds
    out: Counter[str] = Counter()

    async def uploader() -> None:
        while time.monotonic() < until:
            await upload_once(host, int(port), body, out, "127.0.0.1")

    await asyncio.gather(*(replace_games(base, until, out, keep, slow) for keep in (True, False) if replace),
                         *(uploader() for _ in range(uploads)))
    return dict(out)


def attacker_main(argv: list[str]) -> int:
    """The hostile process: ``BASE SECONDS UPLOADS SLOW REPLACE``; says ``started`` on a line of
    its own, then prints its counts as one JSON line."""
    base, seconds, uploads, slow, replace = argv
    print("started", flush=True)
    print(json.dumps(asyncio.run(hostile_client(base, float(seconds), int(uploads), slow, replace == "1"))),
          flush=True)
    return 0


def start_attacker(base: str, seconds: float, uploads: int, slow: str,
                   replace: bool) -> subprocess.Popen[str]:
    """The hostile client in a process of its own, under way once this returns."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = [base, str(seconds), str(uploads), slow, "1" if replace else "0"]
    proc = subprocess.Popen([sys.executable, "-m", "tables.loadhostile", *args], env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "started":
        proc.kill()
        raise RuntimeError("the hostile client did not start")
    return proc


async def honest_client(base: str, seconds: float, vs: str) -> Result:
    """Deals against ``vs``, one after another, for ``seconds`` (the last one is played out), as
    a browser's page plays them: one keep-alive connection and one cookie throughout."""
    res = Result()
    until = time.monotonic() + seconds
    seed = 10_000
    page = Client(base, "127.0.0.2")
    t0 = time.perf_counter()
    while time.monotonic() < until:
        res.games += 1
        try:
            await play_one(base, seed, vs, "deal", res, client=page)
        except Exception as e:  # noqa: BLE001 - counted and reported
            res.errors.append(f"{type(e).__name__}: {e}")
            await page.close()
            page = Client(base, "127.0.0.2")
        seed += 1
    res.seconds = time.perf_counter() - t0
    await page.close()
    return res


def hostile_scenario(seconds: float = 10.0, uploads: int = 32, slow: str = HOSTILE_BOT,
                     honest: str = HONEST_BOT, threads: int = 4, replace: bool = True) -> dict[str, Any]:
    """Start a server (default caps, ``threads`` bot threads), attack it as the module docstring
    says while the honest client plays, and return the figures."""
    with local_server_process("--threads", str(threads)) as (base, proc):
        idle_kib = memory_kib(proc.pid, "VmRSS")
        sampler = MemorySampler(proc.pid)
        sampler.start()
        attacker = start_attacker(base, seconds + 2, uploads, slow, replace)
        try:
            time.sleep(1.0)  # the attack under way
            res = asyncio.run(honest_client(base, seconds, honest))
            out, _ = attacker.communicate(timeout=seconds + 180)
            hostile = json.loads(out.strip().splitlines()[-1])
        finally:
            if attacker.poll() is None:
                attacker.kill()
                attacker.wait()
            sampler.stop()
        hwm_kib = memory_kib(proc.pid, "VmHWM")
    slowest = max(res.call_ms + res.reply_ms, default=float("nan"))
    return {"honest": {**res.figures(), "slowest_reply_ms": round(slowest, 1), "error_list": res.errors[:5]},
            "hostile": dict(sorted(hostile.items())),
            "server_mib": {"idle": round(idle_kib / 1024, 1), "max_rss": round(sampler.max_kib / 1024, 1),
                           "hwm": round(hwm_kib / 1024, 1), "bound": MEMORY_BOUND_MIB}}


__all__ = ["MEMORY_BOUND_MIB", "SLOWEST_REPLY_S", "hostile_client", "hostile_scenario", "results_body"]


if __name__ == "__main__":
    sys.exit(attacker_main(sys.argv[1:]))
