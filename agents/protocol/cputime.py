"""The CPU time of a bot's process tree, as a running total that never goes down.

The fallback where no cgroup meters the bot (:mod:`.cgroups`: a group's
counter sees every process, however it was reaped): used by
:class:`~.process.BotProcess` when :func:`~.cgroups.metering` is
``"proc samples"`` or its group has no CPU counter.

The kernel adds a process's CPU time to its parent's (``cutime``/``cstime``)
only when the parent waits for it. A child reaped without a wait (its
parent ignores ``SIGCHLD`` or sets ``SA_NOCLDWAIT``) takes its time with it,
so the sum over the live tree at one moment can shrink, and a bot could
hide any amount of work in short-lived children. :class:`TreeCpu` keeps a
ledger instead: every process seen in the tree is charged what it used while
it was seen (threads included) and keeps that charge when it ends; a
parent's ``cutime`` growth is charged only beyond what its ended children
were charged already. So the total only grows, and a process that ended
keeps its count. Missed (documented in PROTOCOL.md, "CPU time"): what a
child reaped without a wait used after the last sample that saw it, and all
of such a child when it started and ended between two samples."""

from __future__ import annotations

import os
from dataclasses import dataclass

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Seen:
    """One process at one sample (times in clock ticks)."""

    ppid: int
    own: int  # utime + stime: its threads, live and ended
    kids: int  # cutime + cstime: its children that it waited for


Key = tuple[int, int]  # (pid, start time): a pid the kernel reuses is another process


def read_stat(pid: int) -> tuple[Key, Seen] | None:
    """A process's key and times from ``/proc/PID/stat`` (a zombie's too), or None when it is gone.

    Its name, in parentheses, may hold spaces, ")" and newlines: the fields
    are counted from the last ")".
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        ppid, utime, stime, cutime, cstime, start = (int(fields[i]) for i in (1, 11, 12, 13, 14, 19))
    except (OSError, ValueError, IndexError):
        return None
    return (pid, start), Seen(ppid, utime + stime, cutime + cstime)


def scan(root: int) -> dict[Key, Seen]:
    """``root`` and all its live (or not yet reaped) descendants, from ``/proc``."""
    out: dict[Key, Seen] = {}
    stack = [root]
    while stack:
        pid = stack.pop()
        got = read_stat(pid)
        if got is None or got[0] in out:
            continue
        out[got[0]] = got[1]
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                    stack += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            continue
    return out


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and its live descendants now, with the children they waited for."""
    return sum(s.own + s.kids for s in scan(pid).values()) / CLOCK_TICKS


class TreeCpu:
    """The CPU time of a process tree, summed over every process seen (see the module docstring)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.ticks = 0
        self.live: dict[Key, Seen] = {}

    @property
    def seconds(self) -> float:
        return self.ticks / CLOCK_TICKS

    def sample(self) -> float:
        """Look at the tree now; return the total so far. Call it only while the root is not reaped
        (its pid cannot have been reused)."""
        now, before = scan(self.root), self.live
        added = 0
        for key, s in now.items():
            b = before.get(key)
            added += s.own + s.kids if b is None else max(0, s.own - b.own) + max(0, s.kids - b.kids)
        # An ended process was charged while it was seen: what its nearest live ancestor's cutime
        # gained for it (a wait) is taken back, up to that charge.
        charged: dict[Key, int] = {}
        keys = {key[0]: key for key in before}
        for key, s in before.items():
            if key not in now:
                holder = self._live_ancestor(s.ppid, keys, before, now)
                if holder is not None:
                    charged[holder] = charged.get(holder, 0) + s.own + s.kids
        for holder, ticks in charged.items():
            added -= min(ticks, max(0, now[holder].kids - before[holder].kids))
        self.ticks += max(0, added)
        self.live = now
        return self.seconds

    @staticmethod
    def _live_ancestor(ppid: int, keys: dict[int, Key], before: dict[Key, Seen],
                       now: dict[Key, Seen]) -> Key | None:
        """The nearest ancestor seen at both samples, through ancestors that ended in between
        (``keys``: the processes of ``before`` by pid)."""
        for _ in range(len(before)):
            key = keys.get(ppid)
            if key is None:
                return None
            if key in now:
                return key
            ppid = before[key].ppid
        return None
