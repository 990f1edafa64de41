"""Round-trip time of one decision request through the external-bot protocol.

Collects the decision views of heuristic self-play deals, then times
``ExternalAgent.act(view)`` on them in turn, ``--requests`` times: building
the request from the view, writing it to the bot's pipe, the bot's reading,
parsing, choosing and answering, and reading and checking the reply. It
also times the arena's side alone (building and encoding the request,
decoding and checking a reply) to show where the time goes. Reports
median, mean, 99th percentile and max per bot, in microseconds.

    .venv/bin/python bench/bench_external.py
    .venv/bin/python bench/bench_external.py "exec:node examples/bots/random_bot.js" --requests 5000
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agents import make_agent
from agents.arena.argtypes import count_or_zero, positive_int
from agents.core.rules import rollout_action
from agents.protocol.messages import decode, encode, parse_action, request_message
from sixtysix_env.deals import deal
from sixtysix_env.knowledge import PlayerView, view

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_BOT = f"exec:{sys.executable} {ROOT / 'examples/bots/random_bot.py'}"


def positions(deals: int, seed: int) -> list[PlayerView]:
    """Every decision's view in ``deals`` heuristic self-play deals."""
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        s = deal(rng)
        while not s.is_over:
            out.append(view(s, s.to_act))
            s.apply_unchecked(rollout_action(s))
    return out


def summary(us: list[float]) -> str:
    us = sorted(us)
    p99 = us[min(len(us) - 1, int(0.99 * len(us)))]
    return (f"n={len(us)}  median {us[len(us) // 2]:7.1f} us  mean {statistics.fmean(us):7.1f}"
            f"  p99 {p99:7.1f}  max {us[-1]:8.1f}")


def arena_side(views: list[PlayerView], n: int) -> list[float]:
    """Microseconds of the arena's own work per request (no process)."""
    reply = b'{"type":"action","id":0,"action":%d}'
    out = []
    for i in range(n):
        v = views[i % len(views)]
        a = (v.legal_mask & -v.legal_mask).bit_length() - 1
        t = time.perf_counter()
        encode(request_message(v, 0, 1000))
        parse_action(decode(reply % a), 0, v.legal_mask)
        out.append((time.perf_counter() - t) * 1e6)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bots", nargs="*", default=[DEFAULT_BOT],
                    help="exec: specs (default: the Python example)")
    ap.add_argument("--requests", type=positive_int, default=5000)
    ap.add_argument("--deals", type=positive_int, default=40)
    ap.add_argument("--warmup", type=count_or_zero, default=200)
    args = ap.parse_args(argv)
    views = positions(args.deals, 0)
    print(f"{len(views)} distinct decision views, {args.requests} requests per bot")
    print(f"{'arena side only':>44}: {summary(arena_side(views, args.requests))}")
    with tempfile.TemporaryDirectory() as logs:
        for spec in args.bots:
            bot = make_agent(spec, seed=1)
            bot.log_dir = logs  # type: ignore[attr-defined]
            bot.log_path = str(Path(logs) / "bench.log")  # type: ignore[attr-defined]
            try:
                bot.reset(1)
                for i in range(args.warmup):
                    bot.act(views[i % len(views)])
                us = []
                for i in range(args.requests):
                    v = views[i % len(views)]
                    t = time.perf_counter()
                    bot.act(v)
                    us.append((time.perf_counter() - t) * 1e6)
            finally:
                bot.close()  # type: ignore[attr-defined]
            info = bot.bot_info or {}  # type: ignore[attr-defined]
            label = f"{info.get('name', '?')} {info.get('version', '')}"
            print(f"{label:>44}: {summary(us)}")


if __name__ == "__main__":
    main()
