"""Time per decision of a bot, on positions from heuristic self-play.

Collects the decisions of ``--deals`` heuristic-vs-heuristic deals (each
decision's view), then times ``bot.act`` on every one of them, one core.
Reports mean, median, 99th percentile and max, over all decisions and over
the phase-1 decisions (talon open, more than one legal move), where search
bots spend their time.

    .venv/bin/python bench/bench_decide.py pimc ismcts --deals 40
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from agents import make_agent
from agents.arena.argtypes import positive_int
from agents.play import play_deal
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.knowledge import PlayerView


def positions(deals: int, seed: int) -> list[PlayerView]:
    """Every decision's view in ``deals`` heuristic self-play deals."""
    rng = random.Random(seed)
    heuristic = make_agent("heuristic", seed=seed)
    out: list[PlayerView] = []

    def record(_state: State, v: PlayerView) -> None:
        out.append(v)  # and let the heuristic play

    for _ in range(deals):
        play_deal(deal(rng), (heuristic, heuristic), record)
    return out


def summary(ms: list[float]) -> str:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    return (f"n={len(ms):5d}  mean {statistics.fmean(ms):7.1f} ms  median {ms[len(ms) // 2]:7.1f}"
            f"  p99 {p99:7.1f}  max {ms[-1]:7.1f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bots", nargs="+", help="agent specs, e.g. pimc ismcts:iterations=500")
    ap.add_argument("--deals", type=positive_int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    views = positions(args.deals, args.seed)
    for spec in args.bots:
        bot = make_agent(spec, seed=1)
        all_ms, open_ms = [], []
        for v in views:
            t = time.perf_counter()
            bot.act(v)
            ms = 1000 * (time.perf_counter() - t)
            all_ms.append(ms)
            if v.talon_open and v.legal_mask & (v.legal_mask - 1):
                open_ms.append(ms)
        print(f"{spec}\n  all decisions      {summary(all_ms)}\n  talon open, choice {summary(open_ms)}")


if __name__ == "__main__":
    main()
