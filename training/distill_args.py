"""The command line of :mod:`training.distill`: every value and path checked before any work.

A bad value is argparse's one-line error naming the flag (exit 2): counts
within bounds (a typo of many digits would plan millions of jobs), finite
positive rates, layer sizes within the bound every checkpoint is held to,
a seed torch takes. The paths are checked by :func:`check_paths` once the
command starts, before an hour of collecting: ``OUT`` and a ``--data`` file
still to be written must be files that can be written (not ``''``, a
folder, a fifo, or below a file) and must not name an input, which they
would overwrite.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.arena.argtypes import checked, count_at_most, positive_int, positive_number
from agents.arena.outputs import check_outputs
from agents.core import checkpoint
from agents.core.nets import MAX_WIDTH, check_hidden

from .config_checks import MAX_PROCESSES
from .phase_rows import LABELS

MAX_WORLDS = 4096  # worlds per closed-talon row, as expert iteration's search allows
MAX_SEED = 2**63 - 1  # torch's generators take no larger seed


def _share(value: float) -> float:
    if not 0.0 <= value <= 1.0:  # NaN fails
        raise ValueError(f"must be in [0, 1], got {value}")
    return value


def _seed(value: int) -> int:
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"must be in [0, 2**63 - 1], got {value}")
    return value


def _size(value: int) -> int:
    if not 1 <= value <= MAX_WIDTH:
        raise ValueError(f"must be a layer size in 1..{MAX_WIDTH}, got {value}")
    return value


PROCESS_COUNT = count_at_most(MAX_PROCESSES)


def parse(argv: list[str], doc: str = "") -> argparse.Namespace:
    """The command line (``doc``: the tool's docstring, for ``--help``); bad values are argparse
    errors that name the flag."""
    p = argparse.ArgumentParser(prog="python -m training.distill", description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", help="a train.py checkpoint (last.pt, best.pt or a policy file)")
    p.add_argument("out", help="where to write the checkpoint with its endgame network")
    p.add_argument("--deals", type=positive_int, default=60_000,
                   help="deals to play for rows (default 60000)")
    p.add_argument("--phase", choices=tuple(checkpoint.PHASE_KEYS), default="spent",
                   help="the network to make: 'spent' (talon spent, the default) or "
                        "'closed' (talon closed with cards left in it)")
    p.add_argument("--worlds", type=count_at_most(MAX_WORLDS), default=16,
                   help="worlds sampled from the view to label a closed-talon row (default 16)")
    p.add_argument("--labels", choices=LABELS, default="uniform",
                   help="closed-talon rows: 'uniform' worlds (PIMC's values, the default) or 'guided' "
                        "(the guided search's values, its worlds weighted by the checkpoint's policy)")
    p.add_argument("--lines", type=positive_int, default=6, help="endgame lines played per deal (default 6)")
    p.add_argument("--explore", type=checked(float, "a number", _share), default=0.1,
                   help="share of random moves (default 0.1)")
    p.add_argument("--chunk", type=positive_int, default=1000, help="deals per collect job (default 1000)")
    p.add_argument("--data", type=Path, nargs="+", default=[],
                   help="row files (.npz): read and joined if they all exist; "
                        "one missing file is collected and written")
    p.add_argument("--hidden", type=checked(int, "an int", _size), nargs="+", default=[512, 512, 256],
                   help="hidden layer sizes of the endgame network (default 512 512 256)")
    p.add_argument("--endgame-from", type=Path, metavar="CKPT",
                   help="copy CKPT's network of --phase instead of collecting and fitting one "
                        "(it depends on no policy: a newer policy can reuse it)")
    p.add_argument("--half", action="store_true",
                   help="store all networks in float16: half the file size, play all but unchanged")
    p.add_argument("--no-augment", dest="augment", action="store_false",
                   help="do not rename suits at random while fitting")
    p.add_argument("--tau", type=positive_number, default=0.25, help="target temperature in game points")
    p.add_argument("--epochs", type=positive_int, default=8)
    p.add_argument("--batch", type=positive_int, default=512)
    p.add_argument("--lr", type=positive_number, default=1e-3)
    p.add_argument("--workers", type=PROCESS_COUNT, default=2, help="collect processes (default 2)")
    p.add_argument("--threads", type=PROCESS_COUNT, default=2, help="torch threads for the fit")
    p.add_argument("--seed", type=checked(int, "an int", _seed), default=1)
    p.add_argument("--no-progress", dest="progress", action="store_false")
    a = p.parse_args(argv)
    try:
        check_hidden(a.hidden, "--hidden")
    except ValueError as e:
        p.error(str(e))
    if a.labels == "guided" and (a.phase != "closed" or a.lines != 1):
        p.error("--labels guided is for --phase closed with --lines 1 (once the talon is spent every "
                "label is exact; the search follows each deal from its start)")
    return a


def check_paths(args: argparse.Namespace) -> None:
    """An :class:`~agents.arena.outputs.OutputError` (a ``ValueError``) unless ``OUT`` and a
    ``--data`` file still to be written can be written and name no input (the checkpoint,
    ``--endgame-from``, the ``--data`` files that exist) nor each other."""
    existing = [f for f in args.data if f.exists()]
    inputs = {"CHECKPOINT": str(args.checkpoint),
              "--endgame-from": None if args.endgame_from is None else str(args.endgame_from),
              **{f"--data {f}": str(f) for f in existing}}
    outputs = {"OUT": str(args.out)}
    if len(args.data) == 1 and not existing:  # the one file the collected rows are written to
        outputs["--data"] = str(args.data[0])
    check_outputs(outputs, inputs, force=True)
