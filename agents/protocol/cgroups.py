"""Per-bot control groups: how an external bot's CPU time, memory and processes are metered and bounded.

(Being written: the API below is fixed; the implementation follows.)
"""

from __future__ import annotations

import functools

PROC_SAMPLES = "proc samples"  # the fallback: /proc sampling, no memory or process limits


@functools.lru_cache(maxsize=1)
def metering() -> str:
    """How external bots are metered on this machine: ``"cgroup v2"``, ``"cgroup v1"`` or
    :data:`PROC_SAMPLES` (recorded in results headers and bench reports)."""
    return PROC_SAMPLES


def metering_problem() -> str | None:
    """None when every bot process's CPU time (children reaped without a wait included) is metered
    and its memory and process count are bounded; else one line saying why not (the bench then
    refuses untrusted bots unless told otherwise)."""
    m = metering()
    return None if m != PROC_SAMPLES else "no writable cgroup hierarchy here (CPU is sampled from /proc)"
