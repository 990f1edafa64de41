"""A run's learning curve as a picture: ``python -m training.curve runs/NAME``.

Reads the run's ``metrics.csv`` (:mod:`training.logger`) and draws, against
training minutes, the evaluations logged during the run (``eval_every``, and
always one at the end): the match win rate with its 95% interval and the
game points per deal against each evaluation opponent; and, logged at every
update of every run, the learner's game points per deal at the training
tables against each opponent kind (``charts/reward_vs_<kind>``, a moving
average), so a run evaluated only at its end still shows its curve. A run
that logs its CPU time (``charts/cpu_minutes``, the expert-iteration loop:
all its processes and Ray tasks, summed over resumed invocations) is drawn
against CPU minutes instead, which is what its points cost. Writes
``learning_curve.png`` in the run folder (or ``--out``) and prints the
table of the points it drew.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from agents.arena.inputs import MAX_RESULTS_BYTES, read_regular
from agents.arena.outputs import IMAGE_SUFFIXES, image_problem

WIN, LO, HI, POINTS = "eval/win_rate_", "eval/win_rate_lo_", "eval/win_rate_hi_", "eval/points_per_deal_"
TRAINING = "charts/reward_vs_"  # the learner's points per deal at the training tables, per update
CPU = "charts/cpu_minutes"  # the run's CPU minutes so far, where it logs them
FIELDS = ("step", "wall_s", "key", "value")  # the header of metrics.csv (training.logger writes it)


class CurveError(ValueError):
    """No metrics file, or no evaluation in it to draw, or an ``--out`` no chart can be written to."""


class Row(NamedTuple):
    """One line of ``metrics.csv``."""

    step: int
    wall_s: float
    key: str
    value: float


def read_rows(path: Path) -> list[Row]:
    """The lines of a ``metrics.csv``, checked: a run folder may come from elsewhere, so a line
    that is not ``step,wall_s,key,value`` with a whole step and finite numbers is a
    :class:`CurveError` naming it. A last line cut short (a killed run) is left out, as the
    logger drops it on ``--resume``."""
    try:
        text = read_regular(str(path), MAX_RESULTS_BYTES).decode()  # a fifo is refused, never waited on
        if not text.endswith("\n"):
            text = text[:text.rfind("\n") + 1]  # a last line cut short
        lines = list(csv.reader(io.StringIO(text)))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise CurveError(f"cannot read {path}: {reason[:200]}") from None
    if not lines:
        return []
    if lines[0] != list(FIELDS):
        raise CurveError(f"{path} is not a metrics file: its first line is not {','.join(FIELDS)}")
    rows = []
    for n, cells in enumerate(lines[1:], start=2):
        try:
            step, wall_s, key, value = cells
            row = Row(int(step), float(wall_s), key, float(value))
        except ValueError:
            text = ",".join(cells)[:80]
            raise CurveError(f"{path} line {n} is not step,wall_s,key,value: {text!r}") from None
        drawn = key.startswith((WIN, POINTS, TRAINING)) or key == CPU  # LO and HI start with WIN
        if row.step < 0 or not math.isfinite(row.wall_s) or (drawn and not math.isfinite(row.value)):
            raise CurveError(f"{path} line {n}: a negative step or a number to draw that is not finite")
        rows.append(row)
    return rows


def read_training(path: Path) -> dict[str, list[dict[str, float]]]:
    """Opponent kind -> one row per update (step, minutes, points), in step order."""
    out: dict[str, list[dict[str, float]]] = defaultdict(list)
    for r in read_rows(path):
        if r.key.startswith(TRAINING):
            out[r.key[len(TRAINING):]].append({"step": r.step, "minutes": r.wall_s / 60, "points": r.value})
    return {k: sorted(v, key=lambda e: e["step"]) for k, v in out.items()}


def read_evaluations(path: Path, required: bool = True) -> dict[str, list[dict[str, float]]]:
    """Opponent -> one row per evaluation (step, minutes, win, lo, hi, points), in step order
    (``required``: a CurveError if there is none)."""
    rows = read_rows(path)
    evals: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for r in rows:
        for prefix, field in ((LO, "lo"), (HI, "hi"), (WIN, "win"), (POINTS, "points")):
            if r.key.startswith(prefix):
                e = evals[r.key[len(prefix):], r.step]
                e.update({field: r.value, "step": r.step, "minutes": r.wall_s / 60})
                break
    out: dict[str, list[dict[str, float]]] = defaultdict(list)
    for (opponent, _), e in sorted(evals.items(), key=lambda kv: kv[0][1]):
        if {"win", "lo", "hi", "points"} <= e.keys():
            out[opponent].append(e)
    if not out and required:
        raise CurveError(f"{path} holds no evaluation (train with eval_every > 0)")
    return dict(out)


def cpu_clock(path: Path) -> dict[int, float]:
    """Step -> the run's CPU minutes at that step (empty if the run does not log them)."""
    return {r.step: r.value for r in read_rows(path) if r.key == CPU}


def on_cpu_clock(series: dict[str, list[dict[str, float]]], clock: dict[int, float]) -> None:
    """Put each row's ``minutes`` on the CPU clock (rows of steps it has no time for keep theirs)."""
    for rows in series.values():
        for r in rows:
            r["minutes"] = clock.get(int(r["step"]), r["minutes"])


def moving_average(values: list[float], width: int) -> list[float]:
    """The mean of each value and the ``width - 1`` before it (fewer at the start)."""
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v - (values[i - width] if i >= width else 0.0)
        out.append(total / min(i + 1, width))
    return out


def draw(evals: dict[str, list[dict[str, float]]], training: dict[str, list[dict[str, float]]], out: Path,
         title: str, xlabel: str = "training minutes") -> None:
    import matplotlib  # only here: slow to import, and the backend must be set first

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (win, pts) = plt.subplots(1, 2, figsize=(11, 4))
    colors: dict[str, str] = {}
    for opponent, rows in sorted(evals.items()):
        t = [r["minutes"] for r in rows]
        line, = win.plot(t, [100 * r["win"] for r in rows], marker="o", label=f"vs {opponent}")
        win.fill_between(t, [100 * r["lo"] for r in rows], [100 * r["hi"] for r in rows],
                         color=line.get_color(), alpha=0.15)
        pts.plot(t, [r["points"] for r in rows], marker="o", color=line.get_color(), label=f"vs {opponent}")
        colors[opponent] = line.get_color()
    for opponent, rows in sorted(training.items()):
        smooth = moving_average([r["points"] for r in rows], max(1, len(rows) // 20))
        pts.plot([r["minutes"] for r in rows], smooth, lw=1, ls="--", color=colors.get(opponent),
                 label=f"training tables vs {opponent}")
    win.set(xlabel=xlabel, ylabel="matches won (%, 95% interval)", ylim=(0, 100))
    pts.set(xlabel=xlabel, ylabel="game points per deal")
    pts.axhline(0, color="grey", lw=0.8)
    win.axhline(50, color="grey", lw=0.8)
    for ax in (win, pts):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def check_out(out: str | Path) -> None:
    """A :class:`CurveError` unless a chart can be written at ``out`` (:func:`image_problem`)."""
    problem = image_problem(out, make_parents=False)
    if problem is not None:
        raise CurveError(f"--out {str(out) or repr(str(out))} {problem}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.curve", description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path, help="the run folder (holding metrics.csv)")
    p.add_argument("--out", help=f"the chart to write, {' or '.join(IMAGE_SUFFIXES)} (default: "
                                 "RUN/learning_curve.png)")
    args = p.parse_args(argv)
    metrics = args.run / "metrics.csv"
    out = args.run / "learning_curve.png" if args.out is None else Path(args.out)
    try:
        if args.out is not None:  # before reading: matplotlib would refuse it only at the end
            check_out(args.out)
        training = read_training(metrics)
        evals = read_evaluations(metrics, required=not training)
        check_out(out)
        clock = cpu_clock(metrics)
        on_cpu_clock(evals, clock)
        on_cpu_clock(training, clock)
        title = f"{args.run.name}: evaluations" + (" and training tables" if training else "")
        draw(evals, training, out, title, "CPU minutes" if clock else "training minutes")
    except (CurveError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    unit = "CPU min" if clock else "min"
    for opponent, rows in sorted(evals.items()):
        for r in rows:
            print(f"vs {opponent:10s} step {r['step']:>11,}  {r['minutes']:6.1f} {unit}  "
                  f"won {100 * r['win']:5.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]  "
                  f"{r['points']:+.3f} points/deal")
    for opponent, rows in sorted(training.items()):
        tenth = max(1, len(rows) // 10)
        first, last = (sum(r["points"] for r in part) / len(part) for part in (rows[:tenth], rows[-tenth:]))
        print(f"training tables vs {opponent}: {len(rows)} updates, {first:+.3f} points/deal in the first "
              f"tenth, {last:+.3f} in the last")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
