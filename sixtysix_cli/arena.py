"""``sixtysix arena``: play bots against each other and rate them."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from agents.arena import ArenaOptions, round_robin
from agents.arena.argtypes import positive_int, positive_seconds
from agents.arena.corrected import DEFAULT_VALUE, ESTIMATOR_NAMES, PLAIN
from agents.arena.options import BACKENDS
from agents.arena.outputs import check_outputs
from agents.play import CLOCKS, UNITS
from agents.protocol.sandbox import protect
from agents.registry import describe_agents

# How the arena's options are spelled on the command line, for OptionError messages.
FLAGS = {
    "games": "--games", "unit": "--unit", "seed": "--seed", "workers": "--workers",
    "move_time": "--move-time", "results_path": "--results PATH", "resume": "--resume", "sprt": "--sprt",
    "sprt_pair": "--sprt ELO0,ELO1", "sprt_alpha": "--sprt-alpha", "sprt_beta": "--sprt-beta",
    "backend": "--backend", "address": "--address", "clock": "--clock", "sandbox": "--sandbox",
    "rules": "--rules", "players_per_game": "--players", "duplicate": "--no-duplicate",
    "estimator": "--estimator", "value": "--value",
}

ARENA_EPILOG = """\
examples:
  sixtysix arena heuristic random --games 200
  sixtysix arena random heuristic pimc:worlds=30 --games 100 --workers 4 \\
      --results runs/rr.jsonl --markdown runs/rr.md --json runs/rr.json --png runs/rr.png
  sixtysix arena heuristic random --games 100 --results runs/rr.jsonl --resume   # continue a killed run
  sixtysix arena heuristic random --unit deal --games 2000 --move-time 0.5
  sixtysix arena pimc:worlds=30 heuristic --sprt 0,50 --games 2000   # stop once A is (not) 50 Elo stronger
  sixtysix arena heuristic random --sprt=-20,20 --sprt-alpha 0.01 --sprt-beta 0.01 --games 500
  sixtysix arena heuristic pimc --games 400 --backend ray --workers 8 [--address HOST:PORT]   # on Ray
  python -m agents.arena heuristic random --games 50

Bots are spec strings for agents.make_agent: random, heuristic, pimc:worlds=30,
ismcts:iterations=2000, oracle (cheats: sees all cards), ppo:PATH.
Duplicate mode (default) plays every card seed twice with the seats swapped,
each game with fresh bots. Deals come from a secret master seed drawn per run
(kept in --results, so results files reveal the deals: never give them to a
bot); --seed N is reproducible but lets a bot recompute the deals. A bot that
raises, plays an illegal action or overruns --move-time (of --clock wall or
cpu time) loses that game by forfeit; summaries count forfeits by kind.
Results are identical for any --workers. See docs/benchmark.md.

--sprt ELO0,ELO1 (two bots only) runs a sequential probability ratio test of
H0 "A is ELO0 Elo stronger than B" against H1 "A is ELO1 stronger" (error
rates --sprt-alpha, --sprt-beta; default 0.05 each) and stops at the first
game where it accepts either; --games is then the maximum. In duplicate mode
it decides only after both seatings of a card seed. The verdict counts games
in index order, so it is the same for any --workers and with --resume (games
other workers finish after the decision are kept in --results but not
counted). (--sprt -20,20 works too, as does --sprt=-20,20.)

--estimator aivat (plain rules only) also reports the AIVAT-corrected game
points per deal beside the plain duplicate figure, with its 95% interval and
the SD ratio plain/corrected; each worker corrects the games it played with
the value function --value (solver, heuristic, solver-last, rollout, critic,
own) and stores the corrected points and the luck in --results. The luck is
weighed by cross-fitted regression weights (aivat-weight1: weight 1); where
that would not narrow the interval, the figure is the plain one and a note
says so. With it, --sprt P0,P1 tests the corrected points per deal (P0, P1
in game points per deal, e.g. --sprt 0,0.2) instead of Elo. See
docs/variance.md.
"""

def _elo_pair(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        elo0, elo1 = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ELO0,ELO1 (two numbers), got {text!r}") from None
    return elo0, elo1



def add_parser(sub: Any) -> None:
    """Add ``arena`` to the ``sixtysix`` subcommands."""
    a = sub.add_parser(
        "arena", help="play bots against each other and rate them",
        description="Head-to-head (two bots) or round robin (three or more), with statistics.",
        epilog=ARENA_EPILOG + "\n" + describe_agents(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument("bots", nargs="+", metavar="BOT", help="bot specs (at least two)")
    a.add_argument("--games", type=positive_int, default=100, help="games per pairing (default 100)")
    a.add_argument("--unit", choices=UNITS, default="match",
                   help="a game is a match to 7 (default) or a single deal")
    a.add_argument("--players", type=int, choices=(2, 4), default=2,
                   help="players at a table: 2 (default) or 4: each bot is a team (both partners), and a "
                        "duplicate pair is one deal with the teams swapped (sixtysix bots --players 4)")
    a.add_argument("--rules", default="german", metavar="SPEC",
                   help="rules preset, a name plus +switches: german (default), kawu, schnapsen, "
                        "schnapsen-pkg, german+draw_bonus+double_game (docs/rules-variants.md)")
    a.add_argument("--seed", type=int, default=None,
                   help="master seed of every card and bot seed (default: a secret one drawn for the run and "
                        "kept in --results; a public seed lets a bot recompute the deals: trusted bots only)")
    a.add_argument("--no-duplicate", dest="duplicate", action="store_false",
                   help="do not replay each card seed with the seats swapped")
    a.add_argument("--workers", type=positive_int, default=1,
                   help="processes (with --backend ray: Ray actors) to play in (default 1)")
    a.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local processes (default) or a Ray cluster (pip install -e '.[ray]')")
    a.add_argument("--address", default=None, metavar="HOST:PORT",
                   help="with --backend ray: the cluster to join (default: start a local one for the run)")
    a.add_argument("--move-time", type=positive_seconds, default=None, metavar="SECONDS",
                   help="per-move time limit; over it the bot forfeits (default: none)")
    a.add_argument("--clock", choices=CLOCKS, default="wall",
                   help="what --move-time limits: wall-clock time (default) or the bot's own CPU time "
                        "(fair on a busy machine)")
    a.add_argument("--sandbox", action="store_true",
                   help="run exec: bots inside bubblewrap: no network, none of the arena's files")
    a.add_argument("--sprt", type=_elo_pair, default=None, metavar="ELO0,ELO1",
                   help="stop early once an SPRT of H0 'A is ELO0 stronger' vs H1 'A is ELO1 stronger' "
                        "decides (two bots only; --games is the maximum; with --estimator aivat in "
                        "game points per deal, not Elo)")
    a.add_argument("--sprt-alpha", type=float, default=None, metavar="P",
                   help="SPRT false-positive rate (accepting H1 when H0 holds; default 0.05)")
    a.add_argument("--sprt-beta", type=float, default=None, metavar="P",
                   help="SPRT false-negative rate (accepting H0 when H1 holds; default 0.05)")
    a.add_argument("--estimator", choices=ESTIMATOR_NAMES, default=PLAIN,
                   help="plain (default), aivat (cross-fitted weights) or aivat-weight1 (weight 1): "
                        "also the variance-reduced points per deal (docs/variance.md)")
    a.add_argument("--value", default=DEFAULT_VALUE, metavar="NAME",
                   help=f"value function of --estimator aivat (default {DEFAULT_VALUE}; also heuristic, "
                        "solver-last, rollout, critic, own)")
    a.add_argument("--results", metavar="PATH", help="JSONL file; each game appended as it ends")
    a.add_argument("--resume", action="store_true", help="continue the run recorded in --results")
    a.add_argument("--json", metavar="PATH", help="write the JSON summary here ('-' for stdout)")
    a.add_argument("--markdown", metavar="PATH", help="write Markdown tables here")
    a.add_argument("--png", metavar="PATH", help="write a chart (ratings and win-rate matrix)")
    a.add_argument("--force", action="store_true",
                   help="let --json/--markdown/--png overwrite existing files")
    a.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Run ``sixtysix arena``: a head-to-head or round robin, of two-player or team (``--players 4``)
    games."""
    options = ArenaOptions(
        games=args.games, unit=args.unit, seed=args.seed, duplicate=args.duplicate, workers=args.workers,
        backend=args.backend, address=args.address, clock=args.clock, sandbox=args.sandbox,
        move_time=args.move_time, results_path=args.results, resume=args.resume, progress=args.progress,
        sprt=args.sprt, sprt_alpha=args.sprt_alpha, sprt_beta=args.sprt_beta, rules=args.rules,
        estimator=args.estimator, value=args.value, players_per_game=args.players,
    )
    check_outputs({"--json": args.json, "--markdown": args.markdown, "--png": args.png},
                  {"--results": args.results}, args.force, images={"--png"})
    protect(*(p for p in (args.json, args.markdown, args.png) if p != "-"))  # never bound for a sandboxed bot
    result = round_robin(args.bots, options=options)
    print(result.table())
    summary = json.dumps(result.to_dict(), indent=2)
    if args.json == "-":
        print(summary)
    elif args.json:
        _write(args.json, summary + "\n")
    if args.markdown:
        _write(args.markdown, result.markdown())
    if args.png:
        result.plot(args.png)
    return 0


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
