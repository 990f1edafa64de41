"""Processes never outlive their parent: the parent-death signal, in one place.

And a stop by SIGTERM is a stop by Ctrl-C (:func:`sigterm_interrupts`): the
same clean-up runs (pools shut down, the last line of a results file
complete, the "continue with --resume" message), where the default action
would end the process at once and leave its pool's semaphores to the
resource tracker. A section that must not stop half way (a training update,
the save after a stop) holds both signals until its end (:func:`signals_held`).

A process the arena or training starts (a pool worker, an external bot's
supervisor) asks Linux to signal it when its parent dies, however the
parent ends (SIGKILL included, where no cleanup code of the parent runs).
Elsewhere the call is a no-op and the callers' normal shutdown paths apply.
"""

from __future__ import annotations

import ctypes
import functools
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

PR_SET_PDEATHSIG = 1  # linux/prctl.h


@functools.lru_cache(maxsize=1)
def prctl() -> Any:
    """libc's ``prctl`` (Linux)."""
    return ctypes.CDLL(None, use_errno=True).prctl


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> bool:
    """Ask Linux to send ``sig`` to this process when its parent (thread) dies.

    Pool workers call it first thing, so that a killed parent takes its
    workers, and their bots, with it. ``parent`` is the pid the caller
    expects as its parent (pass it when known: a parent that died before
    this call is then noticed too); this process ends at once if its parent
    is another. Returns whether the signal could be set (Linux only).
    """
    expected = os.getppid() if parent is None else parent
    ok = sys.platform.startswith("linux") and prctl()(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    if os.getppid() != expected:  # the parent died before the signal was armed
        os.kill(os.getpid(), sig)
    return ok


def die_with(pid: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to this process as soon as process ``pid`` (an ancestor, say) ends.

    The parent-death signal is not enough for a forkserver's children (the
    arena's pool workers): their parent is the forkserver, which lives on as
    long as they do (they hold its keep-alive pipe), so a killed arena would
    leave both behind. A daemon thread waits on a pidfd of ``pid`` (Linux),
    else polls it every 0.2 s.
    """

    def watch() -> None:
        try:
            fd = os.pidfd_open(pid)
            select.select([fd], [], [])
        except (AttributeError, OSError):  # no pidfds here, or ``pid`` is gone already
            while _alive(pid):
                time.sleep(0.2)
        os.kill(os.getpid(), sig)

    threading.Thread(target=watch, name=f"die-with-{pid}", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Stop:
    """Which signal stopped the process (SIGINT unless :func:`sigterm_interrupts` saw SIGTERM).
    Noted when the handler runs, not read from the exception: a library (Ray's ``get``) may raise a
    fresh Ctrl-C in its place."""

    signum: int = signal.SIGINT

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process the signal ended."""
        return 128 + self.signum


@contextmanager
def sigterm_interrupts() -> Iterator[Stop]:
    """While this holds, SIGTERM raises :class:`KeyboardInterrupt` (named ``"SIGTERM"``) in the main
    thread, as Ctrl-C does, and the yielded :class:`Stop` records it; elsewhere (not the main
    thread) it does nothing."""
    stop = Stop()

    def handler(signum: int, _frame: Any) -> None:
        stop.signum = signum
        raise KeyboardInterrupt(stop.name)

    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def signals_held(redeliver: bool = True) -> Iterator[list[int]]:
    """While this holds, SIGINT and SIGTERM are noted (in the yielded list), not acted on: a section
    that must not stop half way (a PPO update, the save after a stop) runs to its end. On leaving it
    normally the first noted signal is raised again, to the handlers in place before, unless
    ``redeliver`` is false; an exception leaving it drops them (it stops the process anyway).
    Elsewhere than the main thread it does nothing."""
    pending: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield pending
        return

    def note(signum: int, _frame: Any) -> None:
        pending.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield pending
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
    if pending and redeliver:
        signal.raise_signal(pending[0])
