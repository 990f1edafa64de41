"""Strength of the bot ladder: whole matches to 7, duplicate seats, arena statistics.

Each pairing is an arena head-to-head (:func:`agents.arena.head_to_head`) of
``--matches`` card seeds, each played twice with the seats swapped. Prints
the match win rate of A with its Wilson 95% interval and A's net game points
per deal with the arena's cluster 95% interval (over duplicate pairs), the
same numbers ``sixtysix arena`` reports.

    .venv/bin/python bench/bench_ladder.py heuristic random --matches 100
    .venv/bin/python bench/bench_ladder.py --ladder --matches 50 --workers 2
"""

from __future__ import annotations

import argparse
import time

from agents.arena import PairingStats, head_to_head
from agents.arena.argtypes import positive_int

LADDER = (("heuristic", "random"), ("pimc", "heuristic"), ("ismcts", "pimc"), ("ismcts", "heuristic"))


def duel(spec_a: str, spec_b: str, matches: int, seed: int = 0,
         workers: int = 1) -> tuple[PairingStats, float]:
    """``matches`` card seeds x 2 seatings of A against B; the statistics and the seconds taken."""
    start = time.perf_counter()
    st = head_to_head(spec_a, spec_b, games=2 * matches, seed=seed, workers=workers)
    return st, time.perf_counter() - start


def report(st: PairingStats, seconds: float) -> str:
    lo, hi = st.win_rate_ci
    plo, phi = st.points_per_deal_ci
    return (
        f"{st.a:>22} vs {st.b:<22} matches {st.games:4d}  A wins {st.win_rate:.3f} "
        f"[{lo:.3f}, {hi:.3f}]  gp/deal {st.points_per_deal:+.3f} [{plo:+.3f}, {phi:+.3f}] "
        f"({st.deals} deals, forfeits {st.a_forfeits}/{st.b_forfeits}, {seconds:.0f} s)"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", nargs="?", help="agent spec A, e.g. pimc:worlds=30")
    ap.add_argument("b", nargs="?", help="agent spec B")
    ap.add_argument("--matches", type=positive_int, default=50,
                    help="card seeds (each played in both seatings)")
    ap.add_argument("--seed", type=int, default=0, help="master seed of the arena schedule")
    ap.add_argument("--workers", type=positive_int, default=1, help="processes to play in")
    ap.add_argument("--ladder", action="store_true", help="run the standard ladder pairings")
    args = ap.parse_args(argv)
    pairs = list(LADDER) if args.ladder else [(args.a, args.b)]
    if not args.ladder and (args.a is None or args.b is None):
        ap.error("give two agent specs or --ladder")
    for a, b in pairs:
        print(report(*duel(a, b, args.matches, args.seed, args.workers)), flush=True)


if __name__ == "__main__":
    main()
