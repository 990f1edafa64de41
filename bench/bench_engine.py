"""Engine speed: seeded random deals through the rules engine.

Plays deals with uniformly random legal actions and reports decisions/s and
deals/s, the median over several timed runs. ``--mode checked`` goes through
:meth:`State.apply` (legality check), ``unchecked`` through
:meth:`State.apply_unchecked` (what search bots use), ``clone`` adds a
:meth:`State.clone` before every decision (the cost a search bot pays), and
``all`` runs the three. ``--no-declare`` removes declaring from the choice,
so that deals run to the end (closer failed, last trick) instead of ending
at the first random false declaration. The random choice is a cheap bit pick so that the
numbers measure the engine, not ``random.choice``. Time is the process's CPU
time, so that a busy shared machine skews the numbers less. Target: >= 300,000
decisions/s on one core in ``unchecked`` mode.

    python bench/bench_engine.py --seconds 2 --runs 5 --seed 0
    python bench/bench_engine.py --no-declare --mode unchecked
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from agents.arena.argtypes import positive_int, positive_seconds
from sixtysix_env.actions import DECLARE
from sixtysix_env.deals import deal

MODES = ("checked", "unchecked", "clone")


def _pick(mask: int, r: float) -> int:
    """The k-th set bit of ``mask`` for k = floor(r * popcount): a uniform legal action."""
    k = int(r * mask.bit_count())
    for _ in range(k):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def run(mode: str, seconds: float, seed: int, no_declare: bool = False) -> tuple[int, int, float]:
    """Play deals for about ``seconds``; returns (decisions, deals, elapsed)."""
    rng = random.Random(seed)
    rand = rng.random
    keep = ~(1 << DECLARE) if no_declare else -1
    decisions = deals = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(50):
            s = deal(rng)
            if mode == "checked":
                while s.window != 5:
                    s.apply(_pick(s.legal_mask() & keep, rand()))
                    decisions += 1
            elif mode == "unchecked":
                while s.window != 5:
                    s.apply_unchecked(_pick(s.legal_mask() & keep, rand()))
                    decisions += 1
            else:
                while s.window != 5:
                    s = s.clone()
                    s.apply_unchecked(_pick(s.legal_mask() & keep, rand()))
                    decisions += 1
            deals += 1
        now = time.process_time()
        if now >= deadline:
            return decisions, deals, now - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive_seconds, default=2.0, help="length of one timed run")
    parser.add_argument("--runs", type=positive_int, default=5, help="timed runs per mode (median reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=(*MODES, "all"), default="all")
    parser.add_argument(
        "--no-declare",
        action="store_true",
        help="never declare, so deals run to the last trick (longer deals, like search rollouts)",
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.runs < 1:
        parser.error("--seconds must be > 0 and --runs >= 1")
    modes = MODES if args.mode == "all" else (args.mode,)
    for mode in modes:
        dps, gps = [], []
        for i in range(args.runs):
            decisions, deals, elapsed = run(mode, args.seconds, args.seed + i, args.no_declare)
            dps.append(decisions / elapsed)
            gps.append(deals / elapsed)
        print(
            f"{mode:>9}: {statistics.median(dps):>10,.0f} decisions/s  "
            f"{statistics.median(gps):>8,.0f} deals/s  "
            f"({statistics.median(dps) / statistics.median(gps):.1f} decisions/deal, "
            f"median of {args.runs} x {args.seconds:g}s)"
        )


if __name__ == "__main__":
    main()
