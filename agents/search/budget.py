"""Time budgets for anytime search: when to stop, with a safety margin.

A bot learns its per-move budget from its own ``move_time`` parameter (in
its spec, ``pimc:move_time=0.1``) or from the play loop, which hands the
game's limit to every bot's ``game_start(seat, unit, move_time)`` hook; the
smaller of the two applies. Without either the search is exactly the fixed
one (``worlds``, ``iterations``), so results stay reproducible.

With a budget the search runs in units (a world, a round of iterations)
until :meth:`Deadline.more` says the next unit would not finish before the
soft deadline: the budget less ``max(MARGIN_SHARE * budget, MIN_MARGIN)``,
the next unit assumed as long as the longest one so far. A unit still
running at the soft deadline is dropped: the solver asks the deadline every
few hundred positions and raises :class:`OutOfTime` (and with no unit done
the bot plays its rules of thumb). The deadline starts when ``act`` starts,
so all of a move's work counts. The garbage collector is paused during a
search (:func:`gc_paused`: a full collection over a big transposition table
alone outlasts a short budget), and the search's tables are set aside in
O(1), never freed after the last clock check: :meth:`Anytime.release`
frees them from the play loop's untimed ``deal_end``/``game_end`` hooks, or
at the start of the next search, where the deadline counts it. The margin,
a share of the budget, absorbs the rest (unwinding, the noise of a busy machine).
``bench/bench_budget.py`` measures the CPU time per move against the budget.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

MARGIN_SHARE = 0.4  # share of the budget kept free (unwinding, noise: a busy machine's caches, page faults)
MIN_MARGIN = 0.01  # seconds kept free at least (a slow solver call, a garbage collection)
# The longest per-move limit a game or a bot spec accepts, in seconds: setitimer overflows a little
# above 1e9 seconds, so a limit is capped well below that (about 11.6 days, far beyond any game).
MAX_MOVE_TIME = 1e6
MAX_UNITS = 1_000_000  # a ceiling on the units of one search, even with a huge budget


def effective_budget(own: float | None, given: float | None) -> float | None:
    """The budget that applies: the smaller of the bot's own and the one the game gives (None: none)."""
    budgets = [b for b in (own, given) if b is not None]
    return min(budgets) if budgets else None


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for one search.

    A full collection walks every object alive, the transposition-table
    entries of the search in progress included: 35-40 ms measured at 0.05 s
    a move, a timeout by itself. A search frees its tables by reference
    counting when it ends (``Solver.clear``), so nothing piles up; cycles wait
    for the next collection, outside the move.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class OutOfTime(Exception):
    """A search passed its deadline in the middle of a unit (raised by the solver)."""


class Deadline:
    """The soft deadline of one decision, started when it is made.

    ``clock`` is any monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(self, budget: float, clock: Callable[[], float] = time.perf_counter) -> None:
        if budget <= 0:
            raise ValueError(f"budget must be positive seconds, got {budget!r}")
        self.clock = clock
        self.start = self.last = clock()
        self.stop_at = self.start + budget - max(MARGIN_SHARE * budget, MIN_MARGIN)
        self.longest = 0.0

    def more(self) -> bool:
        """Call after each unit of work: does one more unit, as long as the longest so far, fit?"""
        now = self.clock()
        self.longest = max(self.longest, now - self.last)
        self.last = now
        return now + self.longest <= self.stop_at

    def passed(self) -> bool:
        """The soft deadline is past (a check inside a unit, which then stops early)."""
        return self.clock() >= self.stop_at


class Anytime:
    """Mixin for search bots: the budget from the spec and from the play loop's ``game_start``."""

    move_time: float | None
    given_time: float | None = None
    clock: Callable[[], float] = staticmethod(time.perf_counter)  # a test may set a fake one

    def game_start(self, seat: int, unit: str, move_time: float | None) -> None:
        """The play loop's hook: the game's per-move limit (None: no limit)."""
        self.given_time = move_time

    def release(self) -> None:
        """Free what the last search set aside (its tables): work no move needs before it replies."""

    def deal_end(self, deal: object) -> None:
        """The play loop's hook, outside any move's time: free the last search's tables."""
        self.release()

    def game_end(self, record: object) -> None:
        """The play loop's hook, outside any move's time: free the last search's tables."""
        self.release()

    @property
    def budget(self) -> float | None:
        """Seconds this bot may think per move, or None for the fixed search."""
        return effective_budget(self.move_time, self.given_time)

    def deadline(self) -> Deadline | None:
        """A deadline for the decision starting now, or None without a budget."""
        b = self.budget
        return None if b is None else Deadline(b, self.clock)
