"""A run's learning curve as a picture: ``python -m training.curve runs/NAME``.

Reads the run's ``metrics.csv`` (:mod:`training.logger`) and draws, against
training minutes, the evaluations logged during the run (``eval_every``):
the match win rate with its 95% interval and the game points per deal
against each evaluation opponent. Writes ``learning_curve.png`` in the run
folder (or ``--out``) and prints the table of the points it drew.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

WIN, LO, HI, POINTS = "eval/win_rate_", "eval/win_rate_lo_", "eval/win_rate_hi_", "eval/points_per_deal_"


class CurveError(ValueError):
    """No metrics file, or no evaluation in it to draw."""


def read_evaluations(path: Path) -> dict[str, list[dict[str, float]]]:
    """Opponent -> one row per evaluation (step, minutes, win, lo, hi, points), in step order."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise CurveError(f"cannot read {path}: {e}") from None
    evals: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for r in rows:
        key = r.get("key") or ""
        for prefix, field in ((LO, "lo"), (HI, "hi"), (WIN, "win"), (POINTS, "points")):
            if key.startswith(prefix):
                e = evals[key[len(prefix):], int(r["step"])]
                e.update({field: float(r["value"]), "step": int(r["step"]),
                          "minutes": float(r["wall_s"]) / 60})
                break
    out: dict[str, list[dict[str, float]]] = defaultdict(list)
    for (opponent, _), e in sorted(evals.items(), key=lambda kv: kv[0][1]):
        if {"win", "lo", "hi", "points"} <= e.keys():
            out[opponent].append(e)
    if not out:
        raise CurveError(f"{path} holds no evaluation (train with eval_every > 0)")
    return dict(out)


def draw(evals: dict[str, list[dict[str, float]]], out: Path, title: str) -> None:
    import matplotlib  # only here: slow to import, and the backend must be set first

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (win, pts) = plt.subplots(1, 2, figsize=(11, 4))
    for opponent, rows in sorted(evals.items()):
        t = [r["minutes"] for r in rows]
        line, = win.plot(t, [100 * r["win"] for r in rows], marker="o", label=f"vs {opponent}")
        win.fill_between(t, [100 * r["lo"] for r in rows], [100 * r["hi"] for r in rows],
                         color=line.get_color(), alpha=0.15)
        pts.plot(t, [r["points"] for r in rows], marker="o", color=line.get_color(), label=f"vs {opponent}")
    win.set(xlabel="training minutes", ylabel="matches won (%, 95% interval)", ylim=(0, 100))
    pts.set(xlabel="training minutes", ylabel="game points per deal")
    pts.axhline(0, color="grey", lw=0.8)
    win.axhline(50, color="grey", lw=0.8)
    for ax in (win, pts):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.curve", description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path, help="the run folder (holding metrics.csv)")
    p.add_argument("--out", type=Path, help="PNG to write (default: RUN/learning_curve.png)")
    args = p.parse_args(argv)
    try:
        evals = read_evaluations(args.run / "metrics.csv")
        out = args.out or args.run / "learning_curve.png"
        draw(evals, out, f"{args.run.name}: evaluations during training")
    except (CurveError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for opponent, rows in sorted(evals.items()):
        for r in rows:
            print(f"vs {opponent:10s} step {r['step']:>11,}  {r['minutes']:6.1f} min  "
                  f"won {100 * r['win']:5.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]  "
                  f"{r['points']:+.3f} points/deal")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
