"""Decisions per second of random legal play through the full AEC loop.

Measures what a training loop pays: ``env()`` with its wrappers,
``agent_iter``, ``last`` (observation building included), a uniformly random
legal action from the mask, ``step``. Match episodes, reset when over.

    .venv/bin/python bench/bench_env.py [--decisions 50000] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from agents.arena.argtypes import positive_int
from sixtysix_env.aec import env


def run_once(n_decisions: int, seed: int) -> tuple[float, float]:
    """Decisions per wall-clock second and per CPU second over ``n_decisions``
    decisions (the CPU figure is the one-core speed on a busy shared machine)."""
    rng = random.Random(seed)
    e = env()
    e.reset(seed=seed)
    done = 0
    episode = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while done < n_decisions:
        for _agent in e.agent_iter():
            obs, _reward, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(legal[rng.randrange(len(legal))]))
            done += 1
        episode += 1
        e.reset(seed=seed + episode)
    return done / (time.perf_counter() - start), done / (time.process_time() - cpu_start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=positive_int, default=50_000, help="decisions per run")
    parser.add_argument("--runs", type=positive_int, default=5, help="runs; the median is reported")
    args = parser.parse_args()
    runs = [run_once(args.decisions, seed) for seed in range(args.runs)]
    for i, what in enumerate(("wall-clock", "CPU")):
        rates = [r[i] for r in runs]
        print(
            f"AEC env, random legal play: median {statistics.median(rates):,.0f} decisions per "
            f"{what} second (runs: {', '.join(f'{r:,.0f}' for r in rates)})"
        )


if __name__ == "__main__":
    main()
