"""The ``sixtysix bench`` and ``sixtysix leaderboard`` subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from agents.arena.argtypes import positive_int
from agents.arena.corrected import DEFAULT_VALUE, ESTIMATOR_NAMES, PLAIN
from agents.arena.outputs import check_outputs

from .budget_report import markdown as budget_markdown
from .budgets import BUDGETS, BudgetError, BudgetOptions, check_budgets, run_budgets
from .report import leaderboard
from .run import AUTO, MAX_GAMES, BenchOptions, bench, read_result

COMMANDS = ("bench", "leaderboard")
FLAGS = {"games": "--max-games"}  # how bench spells the arena options it renames, for OptionError messages


def add_parsers(sub: Any) -> None:
    """Add ``bench`` and ``leaderboard`` to the ``sixtysix`` subcommands."""
    b = sub.add_parser("bench", help="rate a bot against the fixed reference ladder",
                       description="Play SPEC against every rung of the reference ladder (secret deals per "
                                   "rung, duplicate deals, fresh bots per game, exec: bots and plug-ins out "
                                   "of process in the sandbox, the ladder's CPU-time "
                                   "control, SPRT stop per rung), rates it on the ladder's scale. Run again "
                                   "with the same --out to continue. Results files reveal the deals: never "
                                   "give them to a bot.")
    b.add_argument("spec", nargs="*", help="the bot to bench (with --budgets: one or more)")
    b.add_argument("--out", help="output folder (default: runs/bench/<spec>; with --budgets: runs/budgets)")
    b.add_argument("--budgets", nargs="+", metavar="S",
                   help="strength at budget: bench every bot at each of these CPU seconds per move (the "
                        f"rungs keep the ladder's), e.g. {' '.join(f'{x:g}' for x in BUDGETS)}; writes "
                        "budgets.md, .json, .png; bots never told their time limit are benched once")
    b.add_argument("--workers", type=positive_int, default=1)
    b.add_argument("--max-games", type=positive_int, default=MAX_GAMES,
                   help=f"games per rung at most ({MAX_GAMES})")
    b.add_argument("--ladder", help="ladder JSON (default: agents/bench/ladder.json)")
    b.add_argument("--progress", action="store_true", help="a progress bar per rung (default: a line every "
                                                                "10 matches)")
    b.add_argument("--seed", type=int, default=None,
                   help="public master seed, for a reproducible bench: a bot can recompute the deals from "
                        "it, so trusted bots only (default: a secret seed per rung)")
    b.add_argument("--sandbox", dest="sandbox", action="store_true", default=AUTO,
                   help="run an exec: bot or a plug-in in bubblewrap (the default; without bubblewrap the "
                        "bench refuses them unless --no-sandbox)")
    b.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                   help="run an exec: bot or a plug-in out of process but unsandboxed, as you")
    b.add_argument("--trusted-in-process", dest="trusted", action="store_true",
                   help="the plug-in's code is trusted: run it in the arena's process (it could read the "
                        "game state; every report says 'trusted, in-process'); default: out of process, "
                        "sandboxed")
    b.add_argument("--unmetered", action="store_true",
                   help="rate an exec: bot or plug-in even where its CPU time, memory and processes cannot "
                        "be metered and bounded (recorded in the reports)")
    b.add_argument("--move-time", type=float, default=None, metavar="S",
                   help="the bot's own CPU seconds per move (default: the ladder's; the rungs keep the "
                        "ladder's)")
    b.add_argument("--rules", default="german", metavar="SPEC",
                   help="rules preset: only german (the ladder is calibrated on it; others are refused)")
    b.add_argument("--estimator", choices=ESTIMATOR_NAMES, default=PLAIN,
                   help="plain (default), aivat (cross-fitted weights) or aivat-weight1 (weight 1): "
                        "also the corrected points per deal of every rung (the rating stays from match "
                        "results)")
    b.add_argument("--value", default=DEFAULT_VALUE, metavar="NAME",
                   help=f"value function of --estimator aivat (default {DEFAULT_VALUE})")
    lb = sub.add_parser("leaderboard", help="merge bench results into one Markdown table")
    lb.add_argument("files", nargs="+", help="bench.json files (or bench output folders)")
    lb.add_argument("--markdown", help="also write the table to this file")
    lb.add_argument("--force", action="store_true", help="let --markdown overwrite an existing file")


def main(args: argparse.Namespace) -> int:
    """Run the ``bench`` or ``leaderboard`` command."""
    if args.command == "bench" and args.budgets is not None:
        return _budgets(args)
    if args.command == "bench":
        if len(args.spec) != 1:
            raise BudgetError(f"give one bot (several only with --budgets), got {len(args.spec)}")
        args.spec = args.spec[0]
        out = out_folder(args.out, os.path.join("runs", "bench", "".join(c if c.isalnum() else "_"
                                                                          for c in args.spec)))
        result = bench(args.spec, BenchOptions(out, args.workers, args.max_games, args.ladder, args.progress,
                                               args.seed, args.sandbox, args.rules, args.move_time,
                                               args.estimator, args.value, args.trusted, args.unmetered))
        lo, hi = result["elo_ci"]
        mark = " (UNRELIABLE: forfeits decided matches)" if result["unreliable"] else ""
        mark += " (trusted, in-process)" if result.get("trusted") else ""
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


def _budgets(args: argparse.Namespace) -> int:
    """``sixtysix bench --budgets S... BOT...``: the strength-at-budget table."""
    if args.move_time is not None:
        raise BudgetError("--move-time and --budgets: give one (--budgets sets the bot's time per move)")
    numbers, specs = split_budgets(args.budgets)
    budgets, args.spec = check_budgets(numbers), specs + args.spec
    out = out_folder(args.out, os.path.join("runs", "budgets"))
    options = BenchOptions(out, args.workers, args.max_games, args.ladder, args.progress, args.seed,
                           args.sandbox, args.rules, estimator=args.estimator, value=args.value,
                           trusted=args.trusted, unmetered=args.unmetered)
    cells = run_budgets(args.spec, BudgetOptions(budgets, options))
    print(budget_markdown(cells, budgets), end="")
    print(f"reports in {out}/budgets.md, .json, .png", file=sys.stderr)
    return 0


def out_folder(out: str | None, default: str) -> str:
    """``--out`` (``default`` when not given), refused before any game if it can be no folder."""
    if out is None:
        return default
    if not out:
        raise ValueError("--out '' is empty: name a folder")
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"--out {out} exists and is not a folder")
    return out


def split_budgets(words: list[str]) -> tuple[list[str], list[str]]:
    """``--budgets 0.02 0.1 pimc ismcts``: the leading numbers are the budgets, the rest bots."""
    for k, word in enumerate(words):
        try:
            float(word)
        except ValueError:
            return words[:k], words[k:]
    return words, []
