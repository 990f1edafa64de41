"""The ``sixtysix bench`` and ``sixtysix leaderboard`` subcommands."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .report import leaderboard
from .run import MAX_GAMES, BenchOptions, bench, read_result

COMMANDS = ("bench", "leaderboard")


def add_parsers(sub: Any) -> None:
    """Add ``bench`` and ``leaderboard`` to the ``sixtysix`` subcommands."""
    b = sub.add_parser("bench", help="rate a bot against the fixed reference ladder",
                       description="Play SPEC against every rung of the reference ladder (fixed seeds, "
                                   "duplicate deals, the ladder's time control, SPRT stop per rung), rates "
                                   "it on the ladder's scale. Run again with the same --out to continue.")
    b.add_argument("spec", help="the bot to bench")
    b.add_argument("--out", help="output folder (default: runs/bench/<spec>)")
    b.add_argument("--workers", type=int, default=1)
    b.add_argument("--max-games", type=int, default=MAX_GAMES, help=f"games per rung at most ({MAX_GAMES})")
    b.add_argument("--ladder", help="ladder JSON (default: agents/bench/ladder.json)")
    b.add_argument("--progress", action="store_true", help="a progress bar per rung")
    lb = sub.add_parser("leaderboard", help="merge bench results into one Markdown table")
    lb.add_argument("files", nargs="+", help="bench.json files (or bench output folders)")
    lb.add_argument("--markdown", help="also write the table to this file")


def main(args: argparse.Namespace) -> int:
    """Run the ``bench`` or ``leaderboard`` command."""
    if args.command == "bench":
        out = args.out or os.path.join("runs", "bench", "".join(c if c.isalnum() else "_" for c in args.spec))
        result = bench(args.spec, BenchOptions(out, args.workers, args.max_games, args.ladder, args.progress))
        lo, hi = result["elo_ci"]
        print(f"{args.spec}: {result['elo']:.0f} [{lo:.0f}, {hi:.0f}] after {result['games']} matches; "
              f"reports in {out}/bench.md, .json, .png")
        return 0
    table = leaderboard([read_result(f) for f in args.files])
    print(table, end="")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table)
    return 0
