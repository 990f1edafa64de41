"""The ``sixtysix`` command: its parser, and each subcommand run with one-line errors."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

from agents.arena import OptionError
from agents.arena.fairness import MachineTooBusy
from agents.bench import commands as bench_commands
from agents.core.lifetime import sigterm_interrupts

from . import arena
from . import replay as replay_commands
from .arena import FLAGS

COMMANDS_GROUP = "sixtysix.commands"
BUILT_IN = ("arena", *replay_commands.COMMANDS)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand: the built-in ones and those of installed plug-ins."""
    parser = argparse.ArgumentParser(
        prog="sixtysix", description="Sixty-Six (Sechsundsechzig): bot arena, replays, and tables to play at."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    arena.add_parser(sub)
    replay_commands.add_parsers(sub)
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


def glue_negative_sprt(argv: list[str]) -> list[str]:
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
    args = parser.parse_args(glue_negative_sprt(sys.argv[1:] if argv is None else list(argv)))
    with sigterm_interrupts():  # SIGTERM stops as Ctrl-C does: pools shut down, the message below
        return _command(args)


def _command(args: argparse.Namespace) -> int:
    """Run the parsed command; a bad input is a one-line error (exit 2), Ctrl-C exits 130."""
    try:
        if args.command == "arena":
            return arena.run(args)
        if args.command in replay_commands.COMMANDS:
            return replay_commands.main(args)
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
