"""Strength at budget: each bot benched against the fixed ladder at several CPU times per move.

``sixtysix bench --budgets 0.02 0.05 0.1 0.5 BOT...`` runs one bench
(:func:`agents.bench.run.bench`) per bot and budget, a *cell*: the bot plays
at the budget while the rungs keep the ladder's time control, so every
rating is on the same fixed scale. A bot that is never told its time limit
(no ``game_start``/``time_control`` hook: ``random``, ``heuristic``,
``ppo``) plays the same at every budget, so it is benched once, at the
ladder's time, and shown flat. Each cell is a bench folder
``OUT/<bot>/<budget>s/`` whose per-rung results files make a killed run
continue where it stopped; the table and the picture
(:mod:`agents.bench.budget_report`) are rewritten from every finished cell.
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agents.registry import make_agent

from .budget_report import write_budget_reports
from .ladder import load_ladder
from .run import BenchOptions, bench

BUDGETS = (0.02, 0.05, 0.1, 0.5)  # seconds of CPU time per move (docs/benchmark.md, "Strength at budget")
MIN_BUDGET = 0.01  # below it the search bots' safety margin (agents.search.budget) leaves no time to search
MAX_BUDGET = 60.0  # a bench plays thousands of moves: a minute each is already days


class BudgetError(ValueError):
    """A bad ``--budgets`` value or bot spec of a strength-at-budget run."""


@dataclass(frozen=True)
class Cell:
    """One bench of the table: a bot at a budget (``flat``: the bot ignores it; played once)."""

    bot: str
    budget: float
    flat: bool

    def folder(self, out: str) -> str:
        """The cell's bench folder: ``OUT/<bot>-<hash>/<budget>s`` (the hash keeps look-alike specs apart)."""
        slug = "".join(c if c.isalnum() else "_" for c in self.bot)[:40]
        digest = hashlib.blake2b(self.bot.encode(), digest_size=4).hexdigest()
        return os.path.join(out, f"{slug}-{digest}", f"{self.budget:g}s")


@dataclass(frozen=True)
class BudgetOptions:
    """How to run the table: the budgets, and the options every cell's bench shares."""

    budgets: tuple[float, ...] = BUDGETS
    bench: BenchOptions = field(default_factory=lambda: BenchOptions(os.path.join("runs", "budgets")))


def check_budgets(values: Sequence[Any]) -> tuple[float, ...]:
    """The budgets, sorted and without repeats; each finite, from MIN_BUDGET to MAX_BUDGET seconds."""
    if not values:
        raise BudgetError("--budgets: give at least one budget in seconds")
    out = set()
    for v in values:
        try:
            s = float(v)
        except (TypeError, ValueError):
            raise BudgetError(f"--budgets: {v!r} is not a number of seconds") from None
        if not (math.isfinite(s) and MIN_BUDGET <= s <= MAX_BUDGET):
            raise BudgetError(f"--budgets: {v!r} is out of range (from {MIN_BUDGET:g} to {MAX_BUDGET:g} s of "
                              "CPU time per move)")
        out.add(s)
    return tuple(sorted(out))


def uses_budget(spec: str) -> bool:
    """Whether the bot of ``spec`` is told its time limit (the play loop's ``game_start`` or
    ``time_control`` hook: search bots, external bots), so it may play differently at each budget."""
    try:
        agent = make_agent(spec)
    except ValueError as e:
        first = str(e).splitlines()[0]
        raise BudgetError(f"bot {spec!r}: {first} ('sixtysix bots' lists the bots)") from None
    try:
        return any(callable(getattr(agent, hook, None)) for hook in ("game_start", "time_control"))
    finally:
        close = getattr(agent, "close", None)
        if callable(close):
            close()


def plan(specs: Sequence[str], budgets: Sequence[float], ladder_time: float) -> list[Cell]:
    """The cells to play, bot by bot: a budget-aware bot at every budget, others once at ``ladder_time``."""
    if not specs:
        raise BudgetError("give at least one bot to bench")
    seen = set()
    for spec in specs:
        if spec.strip() in seen:
            raise BudgetError(f"bot {spec!r} is given twice")
        seen.add(spec.strip())
    cells = []
    for spec in specs:
        if uses_budget(spec):
            cells += [Cell(spec, b, False) for b in budgets]
        else:
            cells.append(Cell(spec, ladder_time, True))
    return cells


def run_budgets(specs: Sequence[str], options: BudgetOptions) -> list[dict[str, Any]]:
    """Play (or finish) every cell; write ``budgets.md``, ``.json`` and ``.png`` in the output
    folder after each cell; return the cells' results."""
    budgets = check_budgets(options.budgets)
    ladder = load_ladder(options.bench.ladder_path)
    cells = plan(specs, budgets, ladder.move_time)
    out = options.bench.out
    flat = [c.bot for c in cells if c.flat]
    say(f"{len(specs)} bot(s) x {len(budgets)} budget(s) ({', '.join(f'{b:g}' for b in budgets)} s of "
        f"{ladder.clock} time per move), {len(cells)} benches, at most {options.bench.max_games} matches per "
        f"rung; the rungs play at {ladder.move_time:g} s; results in {out}")
    if flat:
        say(f"{', '.join(flat)} ignore the budget (never told the time limit): benched once, at "
            f"{ladder.move_time:g} s, drawn flat")
    results: list[dict[str, Any]] = []
    for k, cell in enumerate(cells, 1):
        say(f"bench {k}/{len(cells)}: {cell.bot} at {cell.budget:g} s")
        result = bench(cell.bot, replace(options.bench, out=cell.folder(out), move_time=cell.budget))
        results.append({**result, "budget": cell.budget, "flat": cell.flat})
        write_budget_reports(results, budgets, out)
    return results


def say(text: str) -> None:
    """A progress line on stderr, at once."""
    print(f"budgets: {text}", file=sys.stderr, flush=True)
