"""The move alarm stops an in-process bot only at a safe point (issue 40).

A due alarm never raises inside an import (the module would be left
half-initialised), a finalizer (``__del__``, a weakref callback,
``weakref.finalize``: Python swallows the timeout and reports it), or a hook
the interpreter calls (``sys.unraisablehook``, ``gc.callbacks``): it looks
again a few milliseconds later, and stops the bot in its own code. Every
limit here is CPU time and every delay burns CPU (``time.thread_time``), so
the outcomes do not depend on the machine's load.
"""

from __future__ import annotations

import gc
import sys
import time
import weakref

import pytest

from agents import movetime
from agents.play import play_game
from agents.random_agent import RandomAgent
from agents.registry import make_agent

LIMIT = 0.05  # CPU seconds per move of the bot under test; its opponent has no limit
BUSY = 0.3  # CPU seconds the slow part burns: the alarm is due well inside it


def burn(seconds: float) -> None:
    t = time.thread_time()
    while time.thread_time() - t < seconds:
        pass


def stuck() -> None:
    """A bot that never returns: only the alarm ends its move."""
    while True:
        pass


def play(bot: RandomAgent) -> dict:
    rec = play_game(bot, RandomAgent(), seed=1, unit="deal", move_time=(LIMIT, None), clock="cpu")
    assert rec.forfeit is not None and rec.forfeit["seat"] == 0 and rec.forfeit["kind"] == "time"
    return rec.forfeit


@pytest.fixture
def unraisable(monkeypatch) -> list:
    """What reaches ``sys.unraisablehook`` during the test (a swallowed timeout would)."""
    seen: list = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))
    return seen


@pytest.fixture
def verdicts(monkeypatch) -> list:
    """Each answer of the alarm's safe-point check: False means it looked again later."""
    seen: list = []
    check = movetime.safe_point

    def spy(frame, entry):
        seen.append(check(frame, entry))
        return seen[-1]

    monkeypatch.setattr(movetime, "safe_point", spy)
    return seen


def test_a_timeout_never_lands_inside_an_import(tmp_path, monkeypatch, unraisable, verdicts):
    name = f"slow_module_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(
        "import time\nt = time.thread_time()\n"
        f"while time.thread_time() - t < {BUSY}:\n    pass\nDONE = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    class Importer(RandomAgent):
        def act(self, view):
            __import__(name)
            stuck()

    try:
        forfeit = play(Importer())
        module = sys.modules[name]
    finally:
        sys.modules.pop(name, None)
    assert module.DONE  # fully initialised: the alarm waited for the import to end
    assert "without moving" in forfeit["detail"]  # then stopped the bot in its own loop
    assert False in verdicts and verdicts[-1] is True and not unraisable


class Flag:
    done = False


def slow_finalizer(*args: object) -> None:
    burn(BUSY)
    Flag.done = True


class Finalized:
    def __del__(self):
        slow_finalizer()


class Target:
    """Something a weak reference or a finalizer can watch."""


def by_del(bot: RandomAgent) -> None:
    Finalized()


def by_weakref_callback(bot: RandomAgent) -> None:
    bot.ref = weakref.ref(Target(), slow_finalizer)  # the target dies at once: the callback runs


def by_finalize(bot: RandomAgent) -> None:
    weakref.finalize(Target(), slow_finalizer)


def by_gc_callback(bot: RandomAgent) -> None:
    gc.callbacks.append(slow_finalizer)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(slow_finalizer)


@pytest.mark.parametrize("trigger", [by_del, by_weakref_callback, by_finalize, by_gc_callback])
def test_a_finalizer_or_callback_at_the_deadline_runs_whole(trigger, unraisable, verdicts):
    Flag.done = False

    class Bot(RandomAgent):
        def act(self, view):
            trigger(self)
            stuck()

    forfeit = play(Bot())
    assert Flag.done and "without moving" in forfeit["detail"]
    assert False in verdicts and not unraisable  # the timeout was never raised (and swallowed) in there


def test_the_unraisable_hook_is_not_interrupted(monkeypatch, verdicts):
    """A bot's ``__del__`` fails: Python hands the error to ``sys.unraisablehook`` (pytest's, here a
    slow one) while the move's time runs out; the hook finishes and sees only the bot's error."""
    seen: list = []

    def hook(u):
        burn(BUSY)
        seen.append(u.exc_type)

    monkeypatch.setattr(sys, "unraisablehook", hook)

    class Failing:
        def __del__(self):
            raise ValueError("the bot's own error")

    class Bot(RandomAgent):
        def act(self, view):
            Failing()
            stuck()

    forfeit = play(Bot())
    assert seen == [ValueError] and "without moving" in forfeit["detail"]
    assert False in verdicts


def test_a_swallowed_timeout_comes_back(unraisable):
    class Swallower(RandomAgent):
        def act(self, view):
            for _ in range(3):
                try:
                    stuck()
                except BaseException:  # noqa: BLE001 - it swallows the timeout twice
                    pass
            stuck()

    assert "without moving" in play(Swallower())["detail"] and not unraisable


def test_a_bot_with_its_own_meter_is_stopped_at_the_wall_cap(monkeypatch):
    """Its CPU limit is its meter's business (an external bot's); the alarm is the backstop after the
    wall cap, and says so."""
    monkeypatch.setattr(movetime, "WALL_CAP", 1.0)
    monkeypatch.setattr(movetime, "WALL_SLACK", 0.0)
    monkeypatch.setattr(movetime, "BACKSTOP", 0.05)

    class Waiter(RandomAgent):
        def cpu_time(self):
            return 0.0

        def act(self, view):
            while True:
                time.sleep(1)

    detail = play(Waiter())["detail"]
    assert "wall time (the cap" in detail and "CPU time without" not in detail


def outer(entry):
    return inner(entry)


def inner(entry):
    return movetime.safe_point(sys._getframe(), entry)


def test_safe_point_needs_the_move_below_it():
    here = sys._getframe().f_code
    assert outer(here) and outer(outer.__code__)  # inside the move, nothing unsafe on the way
    assert not movetime.safe_point(sys._getframe(), outer.__code__)  # outside it (up into pytest)
    assert not movetime.safe_point(sys._getframe(), None)  # pytest's frames: a test runner's hooks


@pytest.mark.parametrize("spec", ["pimc", "ismcts"])
def test_built_in_search_bots_never_need_the_alarm(spec, verdicts):
    """They check their own deadline (agents.search.budget), well before the limit: the alarm is never
    due during their moves, so it never interrupts them anywhere."""
    rec = play_game(make_agent(spec), RandomAgent(), seed=1, unit="match", move_time=(LIMIT, None),
                    clock="cpu")
    assert rec.forfeit is None and len(rec.actions) > 10 and verdicts == []
