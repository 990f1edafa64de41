"""The ``sixtysix bench`` and ``sixtysix leaderboard`` subcommands."""

from __future__ import annotations

import argparse
import os
from typing import Any

from agents.arena.corrected import DEFAULT_VALUE, ESTIMATOR_NAMES, PLAIN
from agents.arena.outputs import check_outputs

from .report import leaderboard
from .run import AUTO, MAX_GAMES, BenchOptions, bench, read_result

COMMANDS = ("bench", "leaderboard")


def add_parsers(sub: Any) -> None:
    """Add ``bench`` and ``leaderboard`` to the ``sixtysix`` subcommands."""
    b = sub.add_parser("bench", help="rate a bot against the fixed reference ladder",
                       description="Play SPEC against every rung of the reference ladder (secret deals per "
                                   "rung, duplicate deals, fresh bots per game, the ladder's CPU-time "
                                   "control, SPRT stop per rung), rates it on the ladder's scale. Run again "
                                   "with the same --out to continue. Results files reveal the deals: never "
                                   "give them to a bot.")
    b.add_argument("spec", help="the bot to bench")
    b.add_argument("--out", help="output folder (default: runs/bench/<spec>)")
    b.add_argument("--workers", type=int, default=1)
    b.add_argument("--max-games", type=int, default=MAX_GAMES, help=f"games per rung at most ({MAX_GAMES})")
    b.add_argument("--ladder", help="ladder JSON (default: agents/bench/ladder.json)")
    b.add_argument("--progress", action="store_true", help="a progress bar per rung (default: a line every "
                                                                "10 matches)")
    b.add_argument("--seed", type=int, default=None,
                   help="public master seed, for a reproducible bench: a bot can recompute the deals from "
                        "it, so trusted bots only (default: a secret seed per rung)")
    b.add_argument("--sandbox", dest="sandbox", action="store_true", default=AUTO,
                   help="run an exec: bot in bubblewrap (default: when bubblewrap works here)")
    b.add_argument("--no-sandbox", dest="sandbox", action="store_false", help="never sandbox the bot")
    b.add_argument("--rules", default="german", metavar="SPEC",
                   help="rules preset: only german (the ladder is calibrated on it; others are refused)")
    b.add_argument("--estimator", choices=ESTIMATOR_NAMES, default=PLAIN,
                   help="plain (default) or aivat: also the corrected points per deal of every rung "
                        "(the rating stays from match results)")
    b.add_argument("--value", default=DEFAULT_VALUE, metavar="NAME",
                   help=f"value function of --estimator aivat (default {DEFAULT_VALUE})")
    lb = sub.add_parser("leaderboard", help="merge bench results into one Markdown table")
    lb.add_argument("files", nargs="+", help="bench.json files (or bench output folders)")
    lb.add_argument("--markdown", help="also write the table to this file")
    lb.add_argument("--force", action="store_true", help="let --markdown overwrite an existing file")


def main(args: argparse.Namespace) -> int:
    """Run the ``bench`` or ``leaderboard`` command."""
    if args.command == "bench":
        out = args.out or os.path.join("runs", "bench", "".join(c if c.isalnum() else "_" for c in args.spec))
        result = bench(args.spec, BenchOptions(out, args.workers, args.max_games, args.ladder, args.progress,
                                               args.seed, args.sandbox, args.rules, args.estimator,
                                               args.value))
        lo, hi = result["elo_ci"]
        mark = " (UNRELIABLE: forfeits decided matches)" if result["unreliable"] else ""
        print(f"{args.spec}: {result['elo']:.0f} [{lo:.0f}, {hi:.0f}]{mark} after {result['games']} matches; "
              f"reports in {out}/bench.md, .json, .png")
        return 0
    check_outputs({"--markdown": args.markdown}, {f"input {i + 1}": f for i, f in enumerate(args.files)},
                  args.force)
    results = [r for r in (read_result(f) for f in args.files) if r is not None]
    if not results:
        raise ValueError("no bench result to show (every file was skipped)")
    table = leaderboard(results)
    print(table, end="")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table)
    return 0
