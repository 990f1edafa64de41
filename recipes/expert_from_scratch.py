"""The recipe of the network trained from scratch, in four phases, as commands that run.

Usage::

    python recipes/expert_from_scratch.py --dry-run     # print the commands, run nothing
    python recipes/expert_from_scratch.py               # run them all, in order (CPU-hours)
    python recipes/expert_from_scratch.py               # again after a stop: goes on where it stopped
    python recipes/expert_from_scratch.py --selfplay-steps 5000000 --to 11   # a shorter phase 1, no arena
    python recipes/expert_from_scratch.py --runs DIR --out FILE

No teacher, no network from elsewhere, no hand-written player to imitate
(docs/training.md, "Self-play with search"). The steps:

1. **Phase 1, PPO self-play** on the batched engine: ``configs/selfplay.yaml``
   (league of the network, its past snapshots and a few random and
   heuristic tables, played against, never imitated), stopped at
   ``--selfplay-steps`` environment steps (``stop_steps``; its
   ``time_limit`` is switched off so a stopped and resumed phase ends at the
   same step). It makes a policy and a full-state critic.
2. **Freeze** phase 1's network as ``selfplay/final.pt``: phase 1 is done once
   this file exists, and is never run again.
3. **Phase 2, expert iteration** (``configs/expert_warm.yaml``) from that
   network (``init``): the guided search plays itself with the current
   network, the network learns the search's move values and the deals'
   results. Generation on Ray (``workers: 8`` CPUs on this machine; add
   ``ray_address=HOST:PORT`` to the command for a cluster).
4. **Phase 3, expert iteration with rollout leaves** (``configs/expert_rollout.yaml``)
   from phase 2's network: every open leaf of the search is played on by
   the current policy and then solved exactly, instead of valued by the
   critic.
5. **Draw** its learning curve (``learning_curve.png`` in the run folder).
6. **Phase 4, the endgame and closed-talon networks** (steps 6-11,
   ``python -m training.distill``): phase 3's policy plays 2 x
   ``--distill-deals`` deals; every decision once the talon is spent is
   labelled with the exact solver's value of each move, and a network fitted
   to those labels decides there (``endgame/endgame.pt``). Then 2 x
   ``--distill-deals`` more, whose decisions after a close are labelled by
   the guided search with phase 3's network as its guide (``--labels
   guided``), and a network fitted to them decides after a close. The
   positions are the network's own, the labels its own search's; the last
   fit writes all three networks to ``--out``.
12. **Measure** the network alone (``assist=rules``: no search, one forward
   pass per decision) against pimc on 400 duplicate matches in the arena.

Run again after a stop, the recipe skips what is done and resumes what was
under way: a run whose ``last.pt`` exists goes on with ``--resume`` (phases 2
and 3 exactly as the uninterrupted run would; phase 1 with fresh deals from its
last checkpoint), the arena with ``--resume`` of its results file.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other recipe, when run from anywhere

from shipped_checkpoint import Step, parser, run_chain  # noqa: E402

SELFPLAY, WARM, ROLLOUT = "configs/selfplay.yaml", "configs/expert_warm.yaml", "configs/expert_rollout.yaml"
PHASE1, PHASE2, PHASE3, PHASE4 = "selfplay", "expert_warm", "expert_rollout", "endgame"  # run folders
DISTILL_DEALS = 100_000  # per collect step of phase 4 (docs/training.md, "The recipe")
SELFPLAY_STEPS = 27_000_000  # about 60 minutes of phase 1 at 7,500 steps/s (docs/training.md, Throughput)
OUT = "expert/expert.pt"


def steps(runs: str = "runs", out: str = f"runs/{OUT}", selfplay_steps: int = SELFPLAY_STEPS,
          selfplay_config: str = SELFPLAY, expert_config: str = WARM,
          rollout_config: str = ROLLOUT, distill_deals: int = DISTILL_DEALS) -> list[Step]:
    """Every step of the recipe, in order."""
    p1, p2, p3, p4 = f"{runs}/{PHASE1}", f"{runs}/{PHASE2}", f"{runs}/{PHASE3}", f"{runs}/{PHASE4}"
    p1_last, frozen, warm = f"{p1}/last.pt", f"{p1}/final.pt", f"{p2}/last.pt"
    last, curve, results = f"{p3}/last.pt", f"{p3}/learning_curve.png", f"{p3}/vs_pimc.jsonl"
    bot = f"ppo:{out},assist=rules"
    return [
        Step(("python", "train.py", "--config", selfplay_config, f"name={PHASE1}", f"run_dir={runs}",
              "time_limit=0", f"stop_steps={selfplay_steps}"), outputs=(p1_last,), done=(frozen,),
             resume=p1_last),
        Step(copy=(p1_last, frozen), inputs=(p1_last,), outputs=(frozen,), done=(frozen,)),
        Step(("python", "train.py", "--config", expert_config, f"name={PHASE2}", f"run_dir={runs}",
              f"init={frozen}"), inputs=(frozen,), outputs=(warm,), resume=warm),
        Step(("python", "train.py", "--config", rollout_config, f"name={PHASE3}", f"run_dir={runs}",
              f"init={warm}"), inputs=(warm,), outputs=(last,), resume=last),
        Step(("python", "-m", "training.curve", p3), inputs=(last,), outputs=(curve,)),
        *phase4(last, p4, out, distill_deals),
        Step(("python", "-m", "sixtysix_cli", "arena", bot, "pimc", "--games", "400", "--workers", "2",
              "--seed", "1", "--results", results), inputs=(out,), outputs=(results,), resume=results),
    ]


def phase4(last: str, p4: str, out: str, deals: int) -> list[Step]:
    """Two collect steps and a fit for the endgame network (on ``last``), then the same for the
    closed-talon network (on the endgame network's file, written to ``out``)."""
    chain: list[Step] = []
    endgame = f"{p4}/endgame.pt"
    closed = ("--phase", "closed", "--labels", "guided", "--lines", "1")
    for flags, source, target, seeds, epochs in (((), last, endgame, (1, 2), "10"),
                                                 (closed, endgame, out, (3, 4), "12")):
        rows = tuple(f"{p4}/rows{i}.npz" for i in seeds)
        chain += [Step(("python", "-m", "training.distill", last, f"{p4}/collect{i}.pt", *flags,
                        "--deals", str(deals), "--seed", str(i), "--epochs", "1", "--data", r),
                       inputs=(last,), outputs=(r,), done=(r,)) for i, r in zip(seeds, rows, strict=True)]
        chain.append(Step(("python", "-m", "training.distill", source, target, *flags, "--data", *rows,
                           "--epochs", epochs), inputs=(source, *rows), outputs=(target,), done=(target,)))
    return chain


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__, OUT)
    p.add_argument("--selfplay-steps", type=int, default=SELFPLAY_STEPS, metavar="N",
                   help=f"environment steps of phase 1 (default {SELFPLAY_STEPS:,})")
    p.add_argument("--selfplay-config", default=SELFPLAY, metavar="YAML",
                   help=f"phase 1 (default {SELFPLAY})")
    p.add_argument("--expert-config", default=WARM, metavar="YAML", help=f"phase 2 (default {WARM})")
    p.add_argument("--rollout-config", default=ROLLOUT, metavar="YAML", help=f"phase 3 (default {ROLLOUT})")
    p.add_argument("--distill-deals", type=int, default=DISTILL_DEALS, metavar="N",
                   help=f"deals of each of phase 4's four collect steps (default {DISTILL_DEALS:,})")
    args = p.parse_args(argv)
    for flag, value in (("--selfplay-steps", args.selfplay_steps), ("--distill-deals", args.distill_deals)):
        if value < 1:
            p.error(f"{flag} must be at least 1, got {value}")
    chain = steps(args.runs, args.out or f"{args.runs}/{OUT}", args.selfplay_steps, args.selfplay_config,
                  args.expert_config, args.rollout_config, args.distill_deals)
    return run_chain(chain, args, p)


if __name__ == "__main__":
    sys.exit(main())
