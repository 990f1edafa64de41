"""The recipe of the shipped checkpoint (``agents/checkpoints/ppo_default.pt``), as commands that run.

Usage::

    python recipes/shipped_checkpoint.py --dry-run        # print the commands, run nothing
    python recipes/shipped_checkpoint.py                  # run them all, in order (many hours)
    python recipes/shipped_checkpoint.py --from 11        # go on from step 11 after a stop
    python recipes/shipped_checkpoint.py --runs DIR --out FILE

Every step is one command of ``train.py``, ``python -m training.distill`` or
``python -m training.average``, or a copy of a ``last.pt`` into a new run
folder (each resumed run continues a copy, so every stage keeps its own
checkpoint). ``agents/checkpoints/README.md`` says why each stage is there
and what it measured. The stages:

1. **The base policy** (steps 1-7): ``configs/long.yaml`` to 6M steps with
   ``assist: full``, resumed to 10M, then to 12M and 16M with
   ``assist: rules``.
2. **The endgame network** (steps 8-10): rows from 2 x 100,000 deals of the
   base policy, labelled by the exact solver, and the fit on both.
3. **Three more runs** from the base policy without the teacher (steps
   11-16): ``rl22``, ``rl28`` and ``rp``, which plays a quarter of its tables
   against ``pimc:worlds=8``. ``rp`` was stopped by hand at 18,350,080 steps
   of its 20M schedule; ``stop_steps`` stops it there.
4. **The average** (step 17) of the four policies' weights, with the
   endgame network: the file that ``agents/checkpoints/README.md`` used to
   take from commit 21e664a.
5. **The closed-talon network** on the average (steps 18-20), and the
   shipped file with all weights in float16 (step 21).

A resumed run goes on with fresh deals (table positions are not saved), so
the chain reproduces the recipe, not the bits: a new run of it makes a
checkpoint of the same kind, not the same file. The output goes to
``--out``; compare it (``sixtysix arena``) before copying it over the
shipped file.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONG = "configs/long.yaml"
QUIET = ("eval_every=0", "progress=false")  # no evaluation between the ends of the long runs


@dataclass(frozen=True)
class Step:
    """One command (``argv``, run from the repository root) or, with ``copy``, a file
    copied to a new run folder; ``inputs`` must exist before it runs, ``outputs`` after.
    A recipe that can be run again where it stopped also says when a step is ``done``
    (all these files exist: it is skipped) and which file, once there, makes its command
    go on with ``--resume`` (``resume``: a run's ``last.pt``, an arena's results file)."""

    argv: tuple[str, ...] = ()
    copy: tuple[str, str] | None = None
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    done: tuple[str, ...] = ()
    resume: str = ""

    def is_done(self) -> bool:
        return bool(self.done) and all((ROOT / p).exists() for p in self.done)

    def command(self) -> tuple[str, ...]:
        """``argv``, with ``--resume`` if the ``resume`` file exists now."""
        return self.argv + (("--resume",) if self.resume and (ROOT / self.resume).exists() else ())

    def shell(self) -> str:
        """The step as a shell command line."""
        if self.copy is not None:
            src, dst = self.copy
            folder = shlex.quote(str(Path(dst).parent))
            return f"mkdir -p {folder} && cp {shlex.quote(src)} {shlex.quote(dst)}"
        return shlex.join(self.command())

    def run(self) -> None:
        """Do the step from the repository root; a failed command raises."""
        if self.copy is not None:
            src, dst = (ROOT / p for p in self.copy)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            return
        subprocess.run([sys.executable, *self.command()[1:]], cwd=ROOT, check=True)


def train(runs: str, name: str, *overrides: str, resume_from: str | None = None) -> list[Step]:
    """A ``train.py`` run on ``configs/long.yaml``; ``resume_from``: continue a copy of that run's last.pt."""
    last = f"{runs}/{name}/last.pt"
    steps = []
    argv = ("python", "train.py", "--config", LONG, f"name={name}", f"run_dir={runs}")
    if resume_from is not None:
        src = f"{runs}/{resume_from}/last.pt"
        steps.append(Step(copy=(src, last), inputs=(src,), outputs=(last,)))
        argv += ("--resume",)
    steps.append(Step(argv + overrides, inputs=(last,) if resume_from else (), outputs=(last,)))
    return steps


def distill(src: str, out: str, *flags: str, data: tuple[str, ...] = (), collect: bool = False) -> Step:
    """A ``python -m training.distill`` command; ``collect``: it writes its one ``data`` file."""
    data_flags = ("--data", *data) if data else ()
    endgame_from = tuple(flags[i + 1] for i, f in enumerate(flags) if f == "--endgame-from")
    return Step(("python", "-m", "training.distill", src, out, *flags, *data_flags),
                inputs=(src, *endgame_from, *(() if collect else data)),
                outputs=(out, *(data if collect else ())))


def average(out: str, *inputs: str) -> Step:
    """A ``python -m training.average`` command."""
    return Step(("python", "-m", "training.average", out, *inputs), inputs=inputs, outputs=(out,))


def steps(runs: str = "runs", out: str = "runs/shipped/ppo_default.pt") -> list[Step]:
    """Every step of the recipe, in order."""
    base, avg = f"{runs}/rules16/last.pt", f"{runs}/avg/average.pt"
    eg, closed = f"{runs}/eg", f"{runs}/closed"
    no_teacher = ("assist=rules", "teacher=")
    return [
        *train(runs, "ship", "progress=false"),  # 0 -> 6M steps, assist: full
        *train(runs, "ship10", "total_steps=10000000", "teacher_steps=10000000", resume_from="ship"),
        *train(runs, "rules", "assist=rules", "total_steps=12000000", *QUIET, resume_from="ship10"),
        *train(runs, "rules16", "total_steps=16000000", *QUIET, resume_from="rules"),
        *(distill(base, f"{eg}/{name}.pt", "--deals", "100000", "--seed", str(seed),
                  data=(f"{eg}/rows{seed}.npz",), collect=True) for name, seed in (("a", 1), ("b", 2))),
        distill(base, f"{eg}/ship16.pt", "--epochs", "10", data=(f"{eg}/rows1.npz", f"{eg}/rows2.npz")),
        *train(runs, "rl22", *no_teacher, "total_steps=22000000", *QUIET, resume_from="rules16"),
        *train(runs, "rl28", "total_steps=28000000", *QUIET, resume_from="rl22"),
        *train(runs, "rp", *no_teacher, "opp_self=0.35", "opp_snapshot=0.15", "opp_heuristic=0.25",
               "opp_pimc=0.25", "total_steps=20000000", "stop_steps=18350080", *QUIET, resume_from="rules16"),
        average(avg, f"{eg}/ship16.pt", *(f"{runs}/{r}/last.pt" for r in ("rl22", "rl28", "rp"))),
        *(distill(avg, f"{closed}/c{seed}.pt", "--phase", "closed", "--lines", "1", "--deals", "130000",
                  "--chunk", "2000", "--epochs", "1", "--seed", str(seed), data=(f"{closed}/rows{seed}.npz",),
                  collect=True) for seed in (3, 4)),
        distill(avg, f"{closed}/cS.pt", "--phase", "closed", "--epochs", "12", "--threads", "1",
                data=(f"{closed}/rows3.npz", f"{closed}/rows4.npz")),
        distill(f"{closed}/cS.pt", out, "--phase", "closed", "--endgame-from", f"{closed}/cS.pt", "--half"),
    ]


def parser(doc: str | None, out: str) -> argparse.ArgumentParser:
    """The recipes' command line (a recipe may add its own options)."""
    p = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.add_argument("--from", dest="first", type=int, default=1, metavar="STEP",
                   help="start at this step (1-based), after the earlier ones have run")
    p.add_argument("--to", dest="last", type=int, default=0, metavar="STEP",
                   help="stop after this step (default: the last)")
    p.add_argument("--runs", default="runs", help="folder of the run folders and files (default runs)")
    p.add_argument("--out", default=None, help=f"the network made (default RUNS/{out})")
    return p


def run_chain(chain: list[Step], args: argparse.Namespace, p: argparse.ArgumentParser) -> int:
    """Print (``--dry-run``) or run the steps ``--from`` .. ``--to``; a step that is done is skipped."""
    last = args.last or len(chain)
    if not 1 <= args.first <= len(chain):
        p.error(f"--from must be a step from 1 to {len(chain)}, got {args.first}")
    if not args.first <= last <= len(chain):
        p.error(f"--to must be a step from --from ({args.first}) to {len(chain)}, got {last}")
    for i, step in enumerate(chain[args.first - 1:last], start=args.first):
        if step.is_done():
            print(f"# step {i}/{len(chain)}: done ({', '.join(step.done)} exists)", flush=True)
            continue
        print(f"# step {i}/{len(chain)}\n{step.shell()}", flush=True)
        if args.dry_run:
            continue
        try:
            step.run()
        except subprocess.CalledProcessError as e:
            print(f"error: step {i} failed (exit status {e.returncode}); run the recipe again to go on "
                  f"from it once fixed", file=sys.stderr)
            return 1
    return 0


def main(argv: list[str] | None = None, recipe: Callable[[str, str], list[Step]] = steps,
         doc: str | None = __doc__, out: str = "shipped/ppo_default.pt") -> int:
    """Print or run ``recipe(runs, out)``'s steps."""
    p = parser(doc, out)
    args = p.parse_args(argv)
    return run_chain(recipe(args.runs, args.out or f"{args.runs}/{out}"), args, p)


if __name__ == "__main__":
    sys.exit(main())
