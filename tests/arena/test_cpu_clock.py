"""The CPU-time control reads a precise clock (issue 29, "no time forfeits at 50 ms").

A process CPU-time timer (``ITIMER_PROF``) makes Linux keep the process's
CPU clock by scheduler ticks while it is set: ``time.process_time`` then
moved in 4 ms steps and the timer fired after as little as 11 ms of a 20 ms
limit, so bots lost moves they made in time. The arena now sets no CPU-time
timer; its wall-clock alarm reads the CPU clock itself.
"""

from __future__ import annotations

import signal
import sys
import time

import pytest

from agents.play import play_game
from agents.random_agent import RandomAgent


def burn(seconds: float) -> None:
    t = time.thread_time()
    while time.thread_time() - t < seconds:
        pass


class ClockWatcher(RandomAgent):
    """Looks at the timers and at the CPU clock's steps while it moves."""

    name = "watcher"
    prof: list = []
    steps: list = []

    def act(self, view):
        self.prof.append(signal.getitimer(signal.ITIMER_PROF)[0])
        last, largest, end = time.process_time(), 0.0, time.perf_counter() + 0.02
        while time.perf_counter() < end:  # reads only the process clock, as a search's deadline does
            now = time.process_time()
            largest, last = max(largest, now - last), now
        self.steps.append(largest)
        return super().act(view)


def test_no_cpu_timer_runs_and_the_cpu_clock_is_precise_during_a_move():
    bot = ClockWatcher()
    bot.prof, bot.steps = [], []
    rec = play_game(bot, RandomAgent(), seed=1, unit="deal", move_time=5.0, clock="cpu")
    assert rec.forfeit is None and bot.prof
    assert max(bot.prof) == 0.0  # no ITIMER_PROF set
    assert max(bot.steps) < 0.001  # no tick-sized steps (4 ms on a 250 Hz kernel)


class Slow:
    """Burns CPU time as it is freed: a timeout raised in ``__del__`` would only be printed by Python."""

    done = False

    def __del__(self):
        burn(0.3)
        Slow.done = True


class SwallowingBot(RandomAgent):
    """Its move frees a slow object (the alarm is due inside its ``__del__``), then keeps thinking."""

    name = "swallowing"

    def act(self, view):
        Slow()  # freed at once: __del__ runs, and the alarm at 0.1 s is due inside it
        burn(0.3)
        return super().act(view)


def test_a_timeout_due_in_a_finalizer_waits_for_it(monkeypatch):
    """The alarm lets ``__del__`` finish (a timeout there would be swallowed, and reported through
    ``sys.unraisablehook``), then stops the bot in its own code (issue 40)."""
    unraisable: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    Slow.done = False
    t = time.process_time()
    rec = play_game(SwallowingBot(), RandomAgent(), seed=1, unit="deal", move_time=(0.1, None), clock="cpu")
    assert rec.forfeit["seat"] == 0 and rec.forfeit["kind"] == "time"
    assert "without moving" in rec.forfeit["detail"]  # stopped by the alarm, not measured after returning
    assert Slow.done and not unraisable
    assert time.process_time() - t < 0.55  # the move was cut short after __del__, not run to its end


class SlowCycle:
    """Garbage in a reference cycle whose finalizer burns CPU time: only a collection frees it."""

    freed = False

    def __init__(self):
        self.me = self

    def __del__(self):
        burn(0.3)
        SlowCycle.freed = True


class LitteringBot(RandomAgent):
    """Its first move is quick but leaves a slow cycle and enough garbage for a collection to be due."""

    name = "littering"
    moved = False

    def act(self, view):
        if not self.moved:
            self.moved = True
            SlowCycle()
            self.junk = [[] for _ in range(5000)]  # kept: freeing them would make the collection not due
        return super().act(view)


@pytest.mark.parametrize("clock", ["cpu", "wall"])
def test_a_collection_due_after_a_move_is_not_charged_to_it(clock):
    SlowCycle.freed = False
    rec = play_game(LitteringBot(), RandomAgent(), seed=1, unit="deal", move_time=(0.25, None), clock=clock)
    assert SlowCycle.freed  # the collection ran during the game ...
    assert rec.forfeit is None  # ... but after the move's time was read (it burns 0.3 s, over the limit)
