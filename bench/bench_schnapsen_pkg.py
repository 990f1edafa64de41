"""Cross-check the ``schnapsen-pkg`` preset against the ``schnapsen`` package on many deals.

Deals ``--random`` deals played by the package's random bots and
``--strong`` deals played by its rdeep bots (sampling look-ahead), each
compared move by move (legal moves) and at the end (winner, game points,
score) by :func:`agents.schnapsen_pkg.compare_deal`; prints the counts and
the first disagreement, if any. Needs ``pip install -e ".[schnapsen]"``.

    python bench/bench_schnapsen_pkg.py --random 10000 --strong 1000
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import time

from agents.arena.argtypes import positive_int
from agents.schnapsen_pkg import Mismatch, compare_deal


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=positive_int, default=10_000)
    parser.add_argument("--strong", type=positive_int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for label, n, strong in (("random", args.random, False), ("strong", args.strong, True)):
        rng = random.Random(f"{args.seed}:{label}")
        outcomes: collections.Counter = collections.Counter()
        start = time.process_time()
        for k in range(n):
            try:
                r = compare_deal(rng, strong).result
            except Mismatch as e:
                raise SystemExit(f"{label} deal {k}: {e}") from None
            outcomes[f"{r.reason}:{r.game_points}"] += 1
        took = time.process_time() - start
        print(f"{label}: {n} deals agree ({took:.0f}s CPU) {dict(sorted(outcomes.items()))}")
    print("load:", os.getloadavg())


if __name__ == "__main__":
    main()
