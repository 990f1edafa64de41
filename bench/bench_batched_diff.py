"""Differential bench: the batched engine against the scalar engine, decision by decision.

Runs :func:`sixtysix_env.batched.check.differential` until ``--decisions``
decisions have been compared, in chunks that each start from new random
positions (random deals, some part-played, random match scores and
dealers). At every step and table it compares every engine field, the legal
and action masks, both seats' observations (``encode`` and
``encode_full``), rewards, deal results and match ends (under ``--rules``
also the held marriages, the draw bonus and what a match counts for); any difference
stops the run with the table, the field and the scalar state.

    python bench/bench_batched_diff.py                     # 1,000,000 decisions, match episodes
    python bench/bench_batched_diff.py --decisions 200000 --episode deal
    python bench/bench_batched_diff.py --device cuda
    python bench/bench_batched_diff.py --rules kawu        # a rule preset (docs/rules-variants.md)
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import torch

from agents.arena.argtypes import positive_int
from sixtysix_env.batched.check import differential


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=positive_int, default=1_000_000, help="decisions to compare in all")
    ap.add_argument("--tables", type=positive_int, default=256)
    ap.add_argument("--chunk", type=positive_int, default=100_000,
                    help="decisions per chunk (fresh positions each)")
    ap.add_argument("--episode", choices=("match", "deal"), default="match")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=positive_int, default=1)
    ap.add_argument("--rules", default=None, help="rule preset spec (default german), e.g. kawu")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    decisions = deals = matches = 0
    reasons: Counter[str] = Counter()
    chunk = 0
    while decisions < args.decisions:
        want = min(args.chunk, args.decisions - decisions)
        report = differential(args.tables, want, args.seed + chunk, device=args.device, episode=args.episode,
                              rules=args.rules)
        decisions += report.decisions
        deals += report.deals
        matches += report.matches
        reasons.update(report.reasons)
        chunk += 1
        elapsed = time.perf_counter() - t0
        print(f"  {decisions:>10,} decisions agree ({deals:,} deals, {elapsed:.0f} s)", flush=True)
    print(
        f"differential: {decisions:,} decisions agreed with the scalar engine on every field, mask, "
        f"observation (both seats, encode and encode_full), reward and deal result; {deals:,} deals "
        f"({', '.join(f'{k} {v:,}' for k, v in sorted(reasons.items()))}), {matches:,} matches; "
        f"{args.tables} tables, {args.episode} episodes, rules {args.rules or 'german'}, {args.device}, "
        f"{time.perf_counter() - t0:.0f} s"
    )


if __name__ == "__main__":
    main()
