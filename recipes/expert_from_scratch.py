"""The recipe of the network trained from scratch by self-play with search, as commands that run.

Usage::

    python recipes/expert_from_scratch.py --dry-run     # print the commands, run nothing
    python recipes/expert_from_scratch.py               # run them all, in order (CPU-days: see below)
    python recipes/expert_from_scratch.py --from 2      # go on from step 2 after a stop
    python recipes/expert_from_scratch.py --runs DIR --out FILE

No teacher, no network to start from, no hand-written player to imitate: the
guided search plays itself with the current network, and the network learns
its move distributions and the deals' results (docs/training.md, "Self-play
with search"). The steps:

1. **Train** ``configs/expert_long.yaml``: generation on Ray (``workers: 8``
   CPUs on this machine; add ``ray_address=HOST:PORT`` to the command for a
   cluster). Interrupted, the same command with ``--resume`` goes on where
   ``last.pt`` stands, exactly as the uninterrupted run would.
2. **Draw** its learning curve (``learning_curve.png`` in the run folder).
3. **Copy** the network to ``--out``.
4. **Measure** the network alone (``assist=rules``: no search) against pimc
   on 400 duplicate matches in the arena.

Generation is deterministic given the seed, so a rerun on the same code makes
the same network on the same machine type (torch's float sums may differ
between CPU types).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other recipe, when run from anywhere

from shipped_checkpoint import Step, main  # noqa: E402

CONFIG = "configs/expert_long.yaml"
NAME = "expert_long"


def steps(runs: str = "runs", out: str = "runs/expert/expert.pt") -> list[Step]:
    """Every step of the recipe, in order."""
    folder = f"{runs}/{NAME}"
    last, curve = f"{folder}/last.pt", f"{folder}/learning_curve.png"
    bot = f"ppo:{out},assist=rules"
    return [
        Step(("python", "train.py", "--config", CONFIG, f"name={NAME}", f"run_dir={runs}"), outputs=(last,)),
        Step(("python", "-m", "training.curve", folder), inputs=(last,), outputs=(curve,)),
        Step(copy=(last, out), inputs=(last,), outputs=(out,)),
        Step(("python", "-m", "agents.cli", "arena", bot, "pimc", "--games", "400", "--workers", "2",
              "--seed", "1", "--results", f"{folder}/vs_pimc.jsonl"), inputs=(out,),
             outputs=(f"{folder}/vs_pimc.jsonl",)),
    ]


if __name__ == "__main__":
    sys.exit(main(None, steps, __doc__, "expert/expert.pt"))
