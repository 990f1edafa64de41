"""Stopping a game's searches when the game is gone (replaced by its client, or evicted).

A bot move or hint runs in a pool thread that nothing can interrupt from
outside; a game's search that ran on after its game was replaced kept a
thread busy for nobody, so one client replacing its games in a loop held
every thread. The search bots (``pimc``, ``ismcts``, ``guided``, and any
with an exact solver) already ask their solver's ``stop_when`` condition
every few hundred positions (:class:`agents.search.solver.Solver`), which is
how a deadline stops them: :func:`stop_searches` adds the game's own
``stopped`` flag to every condition the bot sets, with or without a
deadline, so a stopped game's search raises ``OutOfTime`` at its next check
and the bot answers at once (its rules of thumb). Nothing in ``agents``
changes: the hook is the solver's own, per bot instance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.search.budget import OutOfTime
from agents.search.solver import Solver

Stop = Callable[[], bool]
DEPTH = 3  # attribute levels searched for solvers (ismcts keeps a pimc for phase 2, with its own)


def solvers_of(agent: Any, depth: int = DEPTH) -> list[Solver]:
    """The solvers an agent holds, itself or in its parts (``ismcts``'s phase-2 ``pimc``, ``guided``'s
    search), each once."""
    found: dict[int, Solver] = {}
    todo: list[tuple[Any, int]] = [(agent, 0)]
    seen: set[int] = set()
    while todo:
        obj, level = todo.pop()
        if id(obj) in seen or level > depth:
            continue
        seen.add(id(obj))
        if isinstance(obj, Solver):
            found[id(obj)] = obj
            continue
        for value in getattr(obj, "__dict__", {}).values():
            if not isinstance(value, (int, float, str, bytes, list, dict, tuple)):
                todo.append((value, level + 1))
    return list(found.values())


def either(stop: Stop | None, stopped: Stop) -> Stop:
    """``stopped``, or ``stop`` too when there is one (a deadline's ``passed``)."""
    if stop is None:
        return stopped
    return lambda: stopped() or stop()


def stop_searches(agent: Any, stopped: Stop) -> None:
    """From now on every search of ``agent``'s solvers stops at its next check once ``stopped()``
    is true: the condition a deadline sets is combined with it, and it holds between searches too
    (a hint's solver calls set none)."""
    for solver in solvers_of(agent):
        own = solver.stop_when  # the bound method of the class

        def stop_when(stop: Stop | None, own: Callable[[Stop | None], None] = own) -> None:
            own(either(stop, stopped))

        solver.stop_when = stop_when  # type: ignore[method-assign]
        solver.stop_when(None)


__all__ = ["OutOfTime", "either", "solvers_of", "stop_searches"]
