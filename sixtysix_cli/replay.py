"""``sixtysix replay`` (show a recorded game) and ``sixtysix bots`` (list the bot specs)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.arena import replay
from agents.four import describe_four_agents
from agents.registry import describe_agents

COMMANDS = ("replay", "bots")

REPLAY_EPILOG = """\
examples:
  sixtysix replay runs/rr.jsonl --game 0
  sixtysix replay runs/rr.jsonl --game 7 --brief     # one line per action
"""


def add_parsers(sub: Any) -> None:
    """The ``replay`` and ``bots`` commands' parsers."""
    r = sub.add_parser(
        "replay", help="replay a recorded game move by move",
        description="Re-run a game of an arena results file through the environment and print it.",
        epilog=REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("results", metavar="RESULTS", help="a JSONL results file written by 'sixtysix arena'")
    r.add_argument("--game", type=int, required=True, help="game index (as in the file)")
    r.add_argument("--brief", action="store_true", help="one line per action instead of the table picture")

    b = sub.add_parser("bots", help="list every bot spec this installation knows (built-in and plug-ins)",
                       description="List the bot specs: two-player bots (default) or, with --players 4, "
                                   "the four-player partnership bots.")
    b.add_argument("--players", type=int, choices=(2, 4), default=2,
                   help="the bots of 2-player (default) or 4-player tables (arena --players 4)")


def main(args: argparse.Namespace) -> int:
    """Run ``sixtysix replay`` or ``sixtysix bots``."""
    if args.command == "bots":
        print(describe_four_agents() if args.players == 4 else describe_agents())
        return 0
    for line in replay(args.results, args.game, board=not args.brief):
        print(line)
    return 0
