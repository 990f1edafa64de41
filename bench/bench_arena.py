"""Arena speed: random against random, matches to 7 per minute on one core.

Measures the whole arena path a user gets (``head_to_head`` with duplicate
seeds, the PettingZoo env, forfeit checks, JSONL records) and, for
comparison, bare :func:`agents.play.play_game` calls on one reused env, so
the arena's own overhead is visible. Each number is the median of ``--runs``
timed runs. Target: >= 1,500 matches per minute with ``workers=1``.

    python bench/bench_arena.py --games 2000 --runs 3
    python bench/bench_arena.py --games 2000 --workers 2   # also time a process pool
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from agents.arena import head_to_head
from agents.arena.argtypes import positive_int
from agents.play import make_env, play_game
from agents.random_agent import RandomAgent

TARGET = 1500.0


def _median_rate(fn: Callable[[int], None], games: int, runs: int) -> float:
    """Median games per minute of ``fn(run_index)`` over ``runs`` runs."""
    rates = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        rates.append(games / (time.perf_counter() - start) * 60.0)
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=positive_int, default=2000, help="matches per timed run")
    parser.add_argument("--runs", type=positive_int, default=3, help="timed runs; the median is reported")
    parser.add_argument("--unit", choices=("match", "deal"), default="match")
    parser.add_argument("--workers", type=positive_int, default=1,
                        help="also time a pool of this many workers")
    args = parser.parse_args(argv)
    g, unit = args.games, args.unit
    tmp = tempfile.mkdtemp(prefix="bench_arena_")

    def bare(i: int) -> None:
        env, a, b = make_env(unit), RandomAgent(), RandomAgent()
        for k in range(g):
            play_game(a, b, seed=k, unit=unit, env=env)

    def arena(i: int, workers: int = 1, results: bool = False, move_time: float | None = None) -> None:
        path = os.path.join(tmp, f"r{workers}_{i}_{results}_{move_time}.jsonl") if results else None
        head_to_head("random", "random", games=g, unit=unit, seed=i, workers=workers,
                     results_path=path, move_time=move_time)

    runs = args.runs
    rows = [
        ("play_game loop (no arena)", _median_rate(bare, g, runs)),
        ("head_to_head, workers=1", _median_rate(arena, g, runs)),
        ("head_to_head, workers=1, JSONL results", _median_rate(lambda i: arena(i, results=True), g, runs)),
        ("head_to_head, workers=1, move_time=1s", _median_rate(lambda i: arena(i, move_time=1.0), g, runs)),
    ]
    if args.workers > 1:
        rows.append((f"head_to_head, workers={args.workers}, JSONL results",
                     _median_rate(lambda i: arena(i, workers=args.workers, results=True), g, runs)))
    unit_name = "matches to 7" if unit == "match" else "deals"
    print(f"random vs random, {g} {unit_name} per run, median of {args.runs} runs (cpus: {os.cpu_count()})")
    for label, rate in rows:
        print(f"  {label:<42} {rate:>10,.0f} {unit_name}/min")
    ok = rows[1][1] >= TARGET
    print(f"target >= {TARGET:,.0f}/min with workers=1: {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
