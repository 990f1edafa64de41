"""Solver speed: exact values of random phase-2 positions.

Positions come from random play (:func:`agents.search.positions.random_position`): by
default the lead right after the talon is spent, 6 cards each. Prints the
median, 99th percentile and worst time per solve. Targets: median < 5 ms,
worst < 100 ms.

    .venv/bin/python bench/bench_solver.py --positions 1000
    .venv/bin/python bench/bench_solver.py --closed --cards 5
"""

from __future__ import annotations

import argparse
import random
import time

from agents.arena.argtypes import positive_int
from agents.search.positions import random_position
from agents.search.solver import solve
from sixtysix_env.engine import LEAD


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=positive_int, default=1000)
    ap.add_argument("--cards", type=int, choices=range(1, 7), default=6,
                    help="cards in the hand of the player to act (1-6)")
    ap.add_argument("--closed", action="store_true", help="positions after a close instead of a spent talon")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    states = [random_position(rng, args.cards, args.closed, LEAD) for _ in range(args.positions)]
    times = []
    values: dict[int, int] = {}
    for s in states:
        t = time.perf_counter()
        v = solve(s)
        times.append((time.perf_counter() - t) * 1e3)
        values[v] = values.get(v, 0) + 1
    times.sort()
    n = len(times)
    kind = "closed" if args.closed else "spent"
    print(
        f"{n} positions (talon {kind}, {args.cards} cards): median {times[n // 2]:.3f} ms, "
        f"p99 {times[min(n - 1, int(n * 0.99))]:.3f} ms, worst {times[-1]:.3f} ms, "
        f"total {sum(times) / 1e3:.2f} s; values {dict(sorted(values.items()))}"
    )


if __name__ == "__main__":
    main()
