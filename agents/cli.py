"""The ``sixtysix`` command: ``arena`` (compare bots) and ``replay`` (show a recorded game)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

from .arena import ArenaOptions, OptionError, replay, round_robin, team_match
from .arena.corrected import DEFAULT_VALUE, ESTIMATOR_NAMES, PLAIN
from .arena.fairness import MachineTooBusy
from .arena.options import BACKENDS
from .arena.outputs import check_outputs
from .arena.teams import TEAM_SIZE
from .argtypes import positive_int, positive_seconds
from .bench import commands as bench_commands
from .four import describe_four_agents
from .lifetime import sigterm_interrupts
from .play import CLOCKS, UNITS
from .protocol.sandbox import protect
from .registry import describe_agents

# How the arena's options are spelled on the command line, for OptionError messages.
FLAGS = {
    "games": "--games", "unit": "--unit", "seed": "--seed", "workers": "--workers",
    "move_time": "--move-time", "results_path": "--results PATH", "resume": "--resume", "sprt": "--sprt",
    "sprt_pair": "--sprt ELO0,ELO1", "sprt_alpha": "--sprt-alpha", "sprt_beta": "--sprt-beta",
    "backend": "--backend", "address": "--address", "clock": "--clock", "sandbox": "--sandbox",
    "rules": "--rules", "players": "--players", "duplicate": "--no-duplicate",
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
the value function --value (solver, heuristic, solver-last, rollout, critic)
and stores the corrected points in --results. With it, --sprt P0,P1 tests the
corrected points per deal (P0, P1 in game points per deal, e.g. --sprt 0,0.2)
instead of Elo. See docs/variance.md.
"""

REPLAY_EPILOG = """\
examples:
  sixtysix replay runs/rr.jsonl --game 0
  sixtysix replay runs/rr.jsonl --game 7 --brief     # one line per action
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


COMMANDS_GROUP = "sixtysix.commands"
BUILT_IN = ("arena", "replay", "bots")


def _add_replay_and_bots(sub: Any) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sixtysix", description="Sixty-Six (Sechsundsechzig): bot arena, replays, and tables to play at."
    )
    sub = parser.add_subparsers(dest="command", required=True)
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
                   help="players at a table: 2 (default) or 4, a team match of two bots (--games deals, each "
                        "played twice with the teams swapped; four-player bots: "
                        "random, heuristic, search[:N])")
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
                   help="plain (default) or aivat: also the variance-reduced points per deal "
                        "(docs/variance.md)")
    a.add_argument("--value", default=DEFAULT_VALUE, metavar="NAME",
                   help=f"value function of --estimator aivat (default {DEFAULT_VALUE}; also heuristic, "
                        "solver-last, rollout, critic)")
    a.add_argument("--results", metavar="PATH", help="JSONL file; each game appended as it ends")
    a.add_argument("--resume", action="store_true", help="continue the run recorded in --results")
    a.add_argument("--json", metavar="PATH", help="write the JSON summary here ('-' for stdout)")
    a.add_argument("--markdown", metavar="PATH", help="write Markdown tables here")
    a.add_argument("--png", metavar="PATH", help="write a chart (ratings and win-rate matrix)")
    a.add_argument("--force", action="store_true",
                   help="let --json/--markdown/--png overwrite existing files")
    a.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")

    _add_replay_and_bots(sub)
    bench_commands.add_parsers(sub)
    for name, command in sorted(plugin_commands().items()):
        summary = (command.__doc__ or name).strip().splitlines()[0].split(": ", 1)[-1]
        c = sub.add_parser(name, help=summary,
                           description=command.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_arguments(c)
    return parser


def plugin_commands() -> dict[str, Any]:
    """Subcommands that installed packages add (entry-point group ``sixtysix.commands``):
    a module with ``add_arguments(parser)`` and ``main(args) -> int`` (``tables`` adds
    ``play`` and ``serve``). Found by name, so this package imports none of them."""
    return {ep.name: ep.load() for ep in entry_points(group=COMMANDS_GROUP) if ep.name not in BUILT_IN}


def _arena(args: argparse.Namespace) -> int:
    options = ArenaOptions(
        games=args.games, unit=args.unit, seed=args.seed, duplicate=args.duplicate, workers=args.workers,
        backend=args.backend, address=args.address, clock=args.clock, sandbox=args.sandbox,
        move_time=args.move_time, results_path=args.results, resume=args.resume, progress=args.progress,
        sprt=args.sprt, sprt_alpha=args.sprt_alpha, sprt_beta=args.sprt_beta, rules=args.rules,
        estimator=args.estimator, value=args.value,
    )
    check_outputs({"--json": args.json, "--markdown": args.markdown, "--png": args.png},
                  {"--results": args.results}, args.force, images={"--png"})
    protect(*(p for p in (args.json, args.markdown, args.png) if p != "-"))  # never bound for a sandboxed bot
    if args.players == TEAM_SIZE:
        return _team_match(args, options)
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


def _team_match(args: argparse.Namespace, options: ArenaOptions) -> int:
    """``--players 4``: the two bots as teams over duplicate deals (agents.arena.teams)."""
    if args.markdown or args.png:
        raise OptionError("--markdown and --png are for two-player runs; a {players} 4 team match "
                          "writes --json")
    stats = team_match(args.bots, options=options)
    print(stats.table())
    summary = json.dumps(stats.to_dict(), indent=2)
    if args.json == "-":
        print(summary)
    elif args.json:
        _write(args.json, summary + "\n")
    return 0


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _replay(args: argparse.Namespace) -> int:
    for line in replay(args.results, args.game, board=not args.brief):
        print(line)
    return 0


def _glue_negative_sprt(argv: list[str]) -> list[str]:
    """``--sprt -20,20`` -> ``--sprt=-20,20`` (argparse takes ``-20,20`` for an option)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":
            out += argv[i:]
            break
        if argv[i] == "--sprt" and i + 1 < len(argv) and re.fullmatch(r"-[\d.][^,]*,.*", argv[i + 1]):
            out.append(f"--sprt={argv[i + 1]}")
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sixtysix`` console script."""
    parser = build_parser()
    args = parser.parse_args(_glue_negative_sprt(sys.argv[1:] if argv is None else list(argv)))
    with sigterm_interrupts():  # SIGTERM stops as Ctrl-C does: pools shut down, the message below
        return _command(args)


def _command(args: argparse.Namespace) -> int:
    """Run the parsed command; a bad input is a one-line error (exit 2), Ctrl-C exits 130."""
    try:
        if args.command == "arena":
            return _arena(args)
        if args.command == "bots":
            print(describe_four_agents() if args.players == TEAM_SIZE else describe_agents())
            return 0
        if args.command == "replay":
            return _replay(args)
        if args.command in bench_commands.COMMANDS:
            return bench_commands.main(args)
        return plugin_commands()[args.command].main(args)
    except BrokenPipeError:  # output piped into `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (ValueError, OSError, MachineTooBusy) as e:
        flags = {**FLAGS, **bench_commands.FLAGS} if args.command in bench_commands.COMMANDS else FLAGS
        message = e.spelled(flags) if isinstance(e, OptionError) else str(e)
        print(f"sixtysix {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; finished games are in the results file (continue with --resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
