"""Four-player Sixty-Six: engine speed and duplicate team matches of the bots.

Random legal play through :mod:`sixtysix_env.four` (decisions per CPU
second), then duplicate matches (each deal played twice, teams swapped) of
``heuristic`` vs ``random`` and ``search`` vs ``heuristic``, reporting each
team's game points.

    python bench/bench_four.py --deals 200 --search-deals 100
"""

from __future__ import annotations

import argparse
import os
import random
import time

from agents.arena.argtypes import positive_int, positive_seconds
from agents.four.match import duplicate
from sixtysix_env.four_deals import deal_four


def engine_speed(seconds: float) -> float:
    rng = random.Random(0)
    n = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        s = deal_four(rng)
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
            n += 1
    return n / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive_seconds, default=2.0)
    parser.add_argument("--deals", type=positive_int, default=200)
    parser.add_argument("--search-deals", type=positive_int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"engine: {engine_speed(args.seconds):,.0f} decisions/s (random play, checked apply)")
    for teams, n in ((("heuristic", "random"), args.deals), (("search", "heuristic"), args.search_deals)):
        start = time.process_time()
        a, b = duplicate(teams, n, args.seed)
        took = time.process_time() - start
        print(f"{teams[0]} vs {teams[1]}: {a} - {b} game points over {n} deals x 2 ({took:.0f}s CPU)")
    print("load:", os.getloadavg())


if __name__ == "__main__":
    main()
