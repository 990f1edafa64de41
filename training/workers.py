"""Worker processes that never outlive the process that made them, however it ends.

:func:`start` makes a ``ProcessPoolExecutor`` whose workers ignore Ctrl-C
(a terminal sends it to the whole process group: the parent alone decides)
and die with their parent, SIGKILL included: on Linux each asks the kernel
to kill it when its parent dies (``PR_SET_PDEATHSIG``), elsewhere a thread
in each watches the parent. The parent is the process that calls
:func:`start` (no fork server in between), and the thread that calls it
must live as long as the workers (the main thread): the kernel's signal
follows the thread that forked.

``fork=True`` (Linux only; the teacher's workers, which run the search in
pure Python) forks every worker at once from the caller: each is armed
within milliseconds, and the ``fork`` context needs no resource-tracker
process (its semaphores are unlinked at once). ``fork=False`` spawns fresh
interpreters (distillation's workers, which run torch): a worker arms itself
once its imports are done, and one whose parent died before that exits
then; multiprocessing's resource tracker, which the workers share, exits
when the last of them has. :func:`stop` with ``now`` (an interrupt, an
error) kills the workers at once instead of waiting for their jobs.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from agents.core.lifetime import die_with_parent

LINUX = sys.platform.startswith("linux")


def start(workers: int, fork: bool) -> ProcessPoolExecutor:
    """``workers`` processes that die with this one, started now (see the module docstring)."""
    context = multiprocessing.get_context("fork" if fork and LINUX else "spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_arm, initargs=(os.getpid(),))
    pool.submit(os.getpid)  # starts the workers now (with fork: all of them)
    return pool


def stop(pool: ProcessPoolExecutor, now: bool = False) -> None:
    """Shut ``pool`` down; ``now``: kill its workers at once, dropping their jobs."""
    if now:  # no public way to do this before Python 3.14's kill_workers()
        for process in list(pool._processes.values()):
            process.kill()
    pool.shutdown(wait=not now, cancel_futures=True)


@contextmanager
def running(workers: int, fork: bool) -> Iterator[ProcessPoolExecutor]:
    """:func:`start` for a ``with`` block; leaving it by an exception kills the workers at once."""
    pool = start(workers, fork)
    done = False
    try:
        yield pool
        done = True
    finally:
        stop(pool, now=not done)


def _arm(parent: int) -> None:
    """A worker's initializer: ignore Ctrl-C, and die with ``parent``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not a handler of the parent's, inherited by fork
    if not die_with_parent(signal.SIGKILL, parent):  # not Linux: a thread watches the parent
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)
