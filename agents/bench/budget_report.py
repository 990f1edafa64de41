"""Strength-at-budget reports: a Markdown table (bots x budgets), the JSON of every cell, a PNG.

Each cell is a bench result (:func:`agents.bench.run.summarize`) with its
``budget`` and ``flat`` (the bot ignores the budget: one bench, shown in
every column and drawn as a flat line). Beside the rating, the points per
deal against one common reference, the ladder's anchor rung, are shown in
a second table (they come free with the bench: no extra games).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from agents.arena.report import md_code, md_table

from .ladder import ANCHOR
from .report import points_text

REFERENCE = ANCHOR[0]  # the common reference of the points-per-deal table: the scale's anchor rung
FLAT_MARK = "*"


def _by_bot(cells: Sequence[dict[str, Any]]) -> dict[str, dict[float, dict[str, Any]]]:
    """Each bot's cells by budget (a flat bot's one cell under every budget)."""
    table: dict[str, dict[float, dict[str, Any]]] = {}
    for c in cells:
        table.setdefault(c["bot"], {})[c["budget"]] = c
    return table


def _rating(c: dict[str, Any] | None) -> str:
    if c is None:
        return "-"
    lo, hi = c["elo_ci"]
    mark = " (forfeits)" if c.get("unreliable") else ""
    return f"{c['elo']:.0f} [{lo:.0f}, {hi:.0f}]{mark}" + (f" {FLAT_MARK}" if c["flat"] else "")


def _points(c: dict[str, Any] | None) -> str:
    row = None if c is None else next((r for r in c["rungs"] if r["rung"] == REFERENCE), None)
    if row is None:
        return "-"
    return points_text(row["points_per_deal"], row["points_per_deal_ci"]) + f" ({row['games']})"


def rows(cells: Sequence[dict[str, Any]], budgets: Sequence[float]
         ) -> list[tuple[str, list[dict[str, Any] | None]]]:
    """Per bot: its cell at each budget (None: not played yet)."""
    out = []
    for bot, by in _by_bot(cells).items():
        one = next(iter(by.values()))  # a flat bot's one bench stands for every budget
        out.append((bot, [one if one["flat"] else by.get(b) for b in budgets]))
    return out


def markdown(cells: Sequence[dict[str, Any]], budgets: Sequence[float]) -> str:
    """The ratings table and the points-per-deal table, with what they mean."""
    head = ["bot", *(f"{b:g} s" for b in budgets)]
    table = rows(cells, budgets)
    games = sum(c["games"] for c in cells)
    lad = cells[0]["ladder"] if cells else {"scale": "-", "move_time": 0, "clock": "cpu"}
    return "\n".join([
        "# Strength at budget", "",
        f"Rating (95% interval) on the fixed ladder ({lad['scale']}; the rungs play at "
        f"{lad['move_time']:g} s of {lad['clock']} time per move) with the bot at each budget of "
        f"{lad['clock']} time per move; {games} matches in all. {FLAT_MARK} the bot ignores the budget (it "
        "is never told its time limit): one bench, at the ladder's time, shown in every column.", "",
        md_table(head, [[md_code(bot), *(_rating(c) for c in cs)] for bot, cs in table]), "",
        f"Points per deal against `{REFERENCE}` (the bot's side, 95% interval, matches):", "",
        md_table(head, [[md_code(bot), *(_points(c) for c in cs)] for bot, cs in table]), ""])


def plot(cells: Sequence[dict[str, Any]], budgets: Sequence[float], path: str) -> None:
    """Rating against budget (log scale), one line per bot with its intervals; flat bots dashed."""
    import matplotlib  # only here: slow to import, and the backend must be set first

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for bot, cs in rows(cells, budgets):
        pts = [(b, c) for b, c in zip(budgets, cs, strict=True) if c is not None]
        if not pts:
            continue
        xs = [b for b, _ in pts]
        ys = [c["elo"] for _, c in pts]
        err = [[c["elo"] - c["elo_ci"][0] for _, c in pts], [c["elo_ci"][1] - c["elo"] for _, c in pts]]
        flat = pts[0][1]["flat"]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, linestyle="--" if flat else "-",
                    label=f"{bot} (ignores the budget)" if flat else bot, alpha=0.6 if flat else 1.0)
    ax.set_xscale("log")
    ax.set_xticks(list(budgets), [f"{b:g}" for b in budgets])
    ax.minorticks_off()
    lad = cells[0]["ladder"] if cells else {"scale": "Elo", "clock": "cpu"}
    ax.set_xlabel(f"seconds of {lad['clock']} time per move (the bot's; the ladder's rungs fixed)")
    ax.set_ylabel(lad["scale"])
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_budget_reports(cells: Sequence[dict[str, Any]], budgets: Sequence[float], out: str) -> None:
    """``budgets.json``, ``budgets.md`` and ``budgets.png`` in ``out``."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "budgets.json"), "w", encoding="utf-8") as f:
        json.dump({"budgets": list(budgets), "reference": REFERENCE, "cells": list(cells)}, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "budgets.md"), "w", encoding="utf-8") as f:
        f.write(markdown(cells, budgets))
    plot(cells, budgets, os.path.join(out, "budgets.png"))
