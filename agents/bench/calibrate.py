"""Calibrate the reference ladder: one round robin of the rungs at the bench's time control.

    python -m agents.bench.calibrate --games 40 --workers 2 --results runs/ladder.jsonl

Plays every rung against every other (duplicate deals, the public
calibration seed, the bench's time control: ``MOVE_TIME`` of ``CLOCK``
time; every rung is a reference, so a game lost on time is played again, or
the run stops as too busy), fits Bradley-Terry ratings, shifts them so that ``heuristic`` is
1000, and writes them with this command to ``agents/bench/ladder.json``.
``--resume`` continues a killed run from its results file.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence

from agents.arena import round_robin
from agents.arena.argtypes import positive_int
from agents.arena.fairness import MachineTooBusy
from agents.arena.outputs import check_outputs
from agents.core.lifetime import sigterm_interrupts

from .ladder import ANCHOR, BENCH_SEED, CLOCK, LADDER_PATH, MOVE_TIME, RUNGS, Ladder, save_ladder


def calibrate(games: int, workers: int = 1, results: str | None = None, resume: bool = False,
              rungs: Sequence[str] = RUNGS, move_time: float = MOVE_TIME, command: str = "",
              clock: str = CLOCK) -> Ladder:
    """Play the round robin and return the ladder (ratings anchored at ``heuristic``)."""
    rr = round_robin(list(rungs), games=games, seed=BENCH_SEED, move_time=move_time, clock=clock,
                     workers=workers, results_path=results, resume=resume, progress=sys.stderr.isatty(),
                     report_every=0 if sys.stderr.isatty() else 50, reference=tuple(range(len(rungs))))
    if rr.forfeits:
        print(f"warning: {rr.forfeits} games were decided by forfeit", file=sys.stderr)
    names = list(rr.ratings.names)
    anchor, value = ANCHOR
    shift = value - rr.ratings.elo[names.index(anchor)] if anchor in names else 0.0
    ratings = {n: e + shift for n, e in zip(names, rr.ratings.elo, strict=True)}
    intervals = {n: (lo + shift, hi + shift) for n, (lo, hi) in zip(names, rr.ratings.intervals, strict=True)}
    share = rr.cpu_share
    machine = f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at the end" + (
        f", CPU share {100 * share:.0f}%" if share is not None else "")
    return Ladder(ratings, intervals, move_time, BENCH_SEED, clock, games, command,
                  (anchor, value) if anchor in names else (names[0], 0.0), machine)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.bench.calibrate", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=positive_int, required=True,
                   help="games per pairing (duplicate: an even number)")
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--results", help="JSONL results file (for --resume)")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--out", default=LADDER_PATH, help="ladder JSON to write (default: the shipped one)")
    args = p.parse_args(argv)
    command = "python -m agents.bench.calibrate " + shlex.join(
        [f"--games={args.games}", f"--workers={args.workers}"]
        + ([f"--results={args.results}"] if args.results else []))
    with sigterm_interrupts():  # SIGTERM stops as Ctrl-C does: the pool shuts down, the message below
        try:  # --out first: found only at the end, it would cost the whole round robin
            check_outputs({"--out": args.out}, {"--results": args.results}, force=True, make_parents=False)
            ladder = calibrate(args.games, args.workers, args.results, args.resume, command=command)
            save_ladder(ladder, args.out)
        except (ValueError, OSError, MachineTooBusy) as e:  # a bad results file, a busy machine: one line
            print(f"{p.prog}: error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            where = f"{args.results} (continue with --resume)" if args.results else "nowhere (no --results)"
            print(f"interrupted; finished games are in {where}", file=sys.stderr)
            return 130
    for n in ladder.rungs:
        lo, hi = ladder.intervals[n]
        print(f"{n:10s} {ladder.ratings[n]:7.0f}  [{lo:.0f}, {hi:.0f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
