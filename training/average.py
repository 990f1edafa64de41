"""Weight averaging: one policy from several runs that share an ancestor.

Usage::

    python -m training.average OUT.pt A.pt B.pt [C.pt ...]              # phase networks of A
    python -m training.average OUT.pt A.pt B.pt --endgame-from E.pt    # or of E

Why: PPO runs resumed from one checkpoint and trained further with
different settings end in nearby points of weight space. The element-wise
mean of their weights (a "model soup", Wortsman et al., 2022) is still one
network, one forward pass per decision and no search, and it often plays
better than each of its parts, like an ensemble that costs nothing at play
time. The shipped checkpoint is such a mean (``agents/checkpoints/README.md``).

Averaging networks that do **not** descend from one checkpoint gives
nonsense (hidden units are in no common order); the tool cannot check
ancestry, only that the shapes agree.

What it writes: the first input without optimizer, snapshot pool and RNG
state, whose policy and critic weights are the means of all inputs', with
the endgame network of ``--endgame-from`` (or of the first input, if it has
one) and its closed-talon network if it has one, and ``"average_policies"``
recording the inputs; atomically. It plays as ``ppo:OUT.pt`` (add
``,assist=rules`` for no search at all).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import torch

from agents.arena.outputs import OutputError, check_outputs
from agents.core import checkpoint

RECORD = "average_policies"  # the checkpoint entry that records an average's inputs
DROPPED = (*checkpoint.PHASE_KEYS.values(), *checkpoint.PHASE_RECORDS.values(),
           RECORD)  # entries of the first input that the average does not keep as they are


def average_state_dicts(states: list[dict[str, torch.Tensor]], names: list[str]) -> dict[str, torch.Tensor]:
    """Element-wise mean of same-shaped state dicts (float32).

    ``names`` label the inputs in the ``ValueError`` raised when keys or
    shapes differ."""
    if not states or len(names) != len(states):
        raise ValueError(f"need one name per state dict, got {len(states)} dicts and {len(names)} names")
    first = states[0]
    for state, name in zip(states[1:], names[1:], strict=True):
        if state.keys() != first.keys():
            raise ValueError(f"{name} has other layers than {names[0]}: "
                             f"{sorted(state.keys() ^ first.keys())}")
        for k, v in state.items():
            if v.shape != first[k].shape:
                raise ValueError(f"{name}: {k} has shape {tuple(v.shape)}, "
                                 f"{names[0]} has {tuple(first[k].shape)}")
    return {k: torch.stack([s[k].float() for s in states]).mean(0) for k in first}


def average_checkpoints(paths: list[Path], endgame_from: Path | None = None) -> dict[str, Any]:
    """The averaged checkpoint (see the module docstring); ``ValueError`` on bad input."""
    if len(paths) < 2:
        raise ValueError(f"give at least two checkpoints to average, got {len(paths)}")
    ckpts = [checkpoint.load(p) for p in paths]
    for c, p in zip(ckpts, paths, strict=True):
        checkpoint.policy_from(c, p)  # the weights fit the config's layer sizes
    names = [str(p) for p in paths]
    out = checkpoint.playable(ckpts[0], *DROPPED)
    out["policy"] = average_state_dicts([c["policy"] for c in ckpts], names)
    if all(isinstance(c.get("critic"), dict) for c in ckpts):
        out["critic"] = average_state_dicts([c["critic"] for c in ckpts], names)
    else:
        out.pop("critic", None)  # a critic from one input would not match the averaged policy
    source = endgame_from if endgame_from is not None else paths[0]
    source_ckpt = ckpts[0] if endgame_from is None else checkpoint.load(endgame_from)
    nets = {phase: checkpoint.phase_net_from(source_ckpt, source, phase) for phase in checkpoint.PHASE_KEYS}
    if nets["spent"] is None and endgame_from is not None:
        raise ValueError(f"--endgame-from {endgame_from} has no endgame network")
    for phase, net in nets.items():  # the endgame (and closed-talon) network, with its record
        if net is not None:
            out = checkpoint.with_phase_net(out, phase, net, source_ckpt.get(checkpoint.PHASE_RECORDS[phase]))
    out[RECORD] = {"inputs": names, "global_steps": [c.get("global_step") for c in ckpts],
                   "endgame_from": str(source) if nets["spent"] is not None else None}
    return out


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line; the output may not be one of the inputs."""
    p = argparse.ArgumentParser(prog="python -m training.average",
                                description=(__doc__ or "").split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", type=Path, help="where to write the averaged checkpoint")
    p.add_argument("inputs", type=Path, nargs="+", help="checkpoints to average (two or more)")
    p.add_argument("--endgame-from", type=Path, metavar="CKPT",
                   help="take the endgame network (and closed-talon network, if any) from CKPT "
                        "(default: the first input's, if any)")
    a = p.parse_args(argv)
    if a.out.resolve() in {i.resolve() for i in a.inputs}:
        p.error(f"{a.out} is also an input; write the average to a new file")
    try:  # a folder, a fifo, below a file, or the source of the endgame network
        source = None if a.endgame_from is None else str(a.endgame_from)
        check_outputs({"OUT": str(a.out)}, {"--endgame-from": source}, force=True)
    except OutputError as e:
        p.error(str(e))
    return a


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        out = average_checkpoints(args.inputs, args.endgame_from)
        checkpoint.save_atomic(out, args.out)
    except (ValueError, OSError) as e:  # bad inputs, NaN weights, a full disk: one line
        print(f"error: {e}", file=sys.stderr)
        return 2
    eg = out[RECORD]["endgame_from"]
    closed = "closed" in out
    print(f"averaged {len(args.inputs)} policies; endgame network: {eg or 'none'}"
          + (f"; closed-talon network: {eg}" if closed else ""))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
