"""Per-bot control groups: how an external bot's CPU time, memory and processes are metered and bounded.

Every bot process (:class:`~.process.BotProcess`) gets its own control group
(:class:`BotGroup`, named ``sixtysix-bot-<arena pid>-<n>``), joined by its
supervisor before the bot's command starts, so the sandbox (bubblewrap) and
every process the bot ever starts are inside, however they leave its process
group or session, and however they are reaped. The group gives:

- **CPU time**: ``cpu.stat``'s ``usage_usec`` (cgroup v2) or
  ``cpuacct.usage`` (v1): every CPU-second of every process that was ever in
  the group, children reaped without a wait included (a ``/proc`` sample
  cannot see those). Read as one small file, cheap enough to poll every 10 ms.
- **Memory**: at most :data:`MEMORY_MAX` bytes (``memory.max``, v2, with no
  swap; or ``memory.limit_in_bytes``, v1, and ``memory.memsw.limit_in_bytes``
  where swap is accounted). A bot past it is killed by the kernel's OOM killer
  inside its group (a crash forfeit); the arena is never chosen.
- **Processes**: at most :data:`PIDS_MAX` tasks, threads included
  (``pids.max``): ``fork`` fails beyond it.
- **The end**: at the game's end (:meth:`BotGroup.remove`), ``cgroup.kill``
  (v2) ends every process in the group at once, a daemon that changes its pid
  every millisecond too; without it, a loop freezes the group (v1 ``freezer``
  where mounted), kills every pid in ``cgroup.procs`` and thaws, until none is
  left. The group is then removed. Groups left by an arena that died (its pid
  is gone) are ended and removed when the next arena makes its first group.
- Every bot process has ``oom_score_adj`` 1000 (set by its supervisor, in and
  out of cgroups): when the machine runs out of memory, a bot goes first.

:func:`metering` names what meters the bots here, as recorded in results
headers and bench reports:

- ``"cgroup v2"``: CPU time, memory and processes from cgroup v2;
- ``"cgroup v1"``: all from cgroup v1 hierarchies;
- ``"cgroup v2+v1"``: a hybrid machine, e.g. a v2 group (no controllers) for
  CPU time and the kill, v1 ``memory`` and ``pids`` for the limits;
- :data:`PROC_SAMPLES`: no writable cgroup hierarchy meters CPU time (not
  root, read-only, not Linux). The fallback: CPU time is sampled from
  ``/proc`` (:mod:`.cputime`: a child that lives between two samples and is
  reaped without a wait is missed), the supervisor kills what it can find of
  the bot's processes (:mod:`.process`), and whatever limits a writable v1
  hierarchy still offers are applied.

:func:`metering_problem` is None only when CPU time is metered (reaped
children included) and memory and processes are bounded; the bench refuses
untrusted bots otherwise, unless told to run them unmetered.

Where the groups are made, and what :func:`metering` says of a machine:
:mod:`.cgroup_layout`.

Not covered: a bot outside the sandbox runs as the arena's user; as root it
could move itself out of its group or raise its own limits (the sandbox
drops every capability).
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import time

from .cgroup_layout import (
    CGROUP_MIXED,
    CGROUP_V1,
    CGROUP_V2,
    PREFIX,
    PROC_SAMPLES,
    V1_FILES,
    Layout,
    Mount,
    find_layout,
    layout,
    metering,
    metering_problem,
    naming,
    parse_mounts,
    parse_own,
    problem,
    remove_dir,
)

MEMORY_MAX = 2 << 30  # bytes of memory (and no swap) a bot's processes may use together
PIDS_MAX = 512  # processes and threads a bot may have at once (a multithreaded engine needs some)
KILL_WAIT = 2.0  # seconds a group gets to empty after it was killed
REMOVE_WAIT = 1.0  # seconds rmdir is retried while the kernel lets go of a group's dead processes
_count = itertools.count(1)


class CgroupError(OSError):
    """A bot's group could not be made (one line)."""

__all__ = [  # what the rest of the project imports from here, the layout's names included
    "CGROUP_MIXED", "CGROUP_V1", "CGROUP_V2", "KILL_WAIT", "MEMORY_MAX", "PIDS_MAX", "PREFIX", "PROC_SAMPLES",
    "REMOVE_WAIT", "V1_FILES", "BotGroup", "CgroupError", "Layout", "Mount", "clean_stale", "find_layout",
    "kill_folder", "layout", "metering", "metering_problem", "naming", "new_group", "parse_mounts",
    "parse_own", "problem", "remove_dir",
]


# ------------------------------------------------------------- one bot's group
def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _pids(folder: str) -> list[int]:
    try:
        with open(os.path.join(folder, "cgroup.procs")) as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return []


def kill_folder(folder: str, wait: float = KILL_WAIT, freezer: str | None = None) -> bool:
    """End every process in the group ``folder``; True once it is empty. ``cgroup.kill`` where the
    group has it, else rounds of: freeze (``freezer``: a v1 freezer group), SIGKILL each, thaw."""
    kill = os.path.join(folder, "cgroup.kill")
    end = time.monotonic() + wait
    while True:
        if os.path.exists(kill):
            try:
                _write(kill, "1")
            except OSError:
                pass
        else:
            _kill_round(folder, freezer)
        if not _pids(folder):
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.005)


def _kill_round(folder: str, freezer: str | None) -> None:
    state = os.path.join(freezer, "freezer.state") if freezer else None
    try:
        if state:
            _write(state, "FROZEN")
        for pid in _pids(folder):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    finally:
        if state:
            try:
                _write(state, "THAWED")
            except OSError:
                pass


class BotGroup:
    """One bot process's groups (a v2 one and/or one per v1 hierarchy): made with their limits, joined
    by the bot's supervisor, read for CPU time, killed and removed at the end."""

    def __init__(self, lay: Layout, name: str) -> None:
        self.folders: list[str] = []
        self.v2: str | None = None
        self.cpu_file: str | None = None
        self.cpu_scale = 1e-6
        self.seconds = 0.0
        self.freezer: str | None = None
        try:
            self._make(lay, name)
        except OSError as e:
            self.remove()
            raise CgroupError(f"cannot make the bot's control group {name}: {e.strerror or e}") from None

    def _mkdir(self, parent: str, name: str) -> str:
        path = os.path.join(parent, name)
        if path not in self.folders:
            os.mkdir(path)
            self.folders.append(path)
        return path

    def _make(self, lay: Layout, name: str) -> None:
        if lay.v2:
            self.v2 = self._mkdir(lay.v2, name)
            self.cpu_file = os.path.join(self.v2, "cpu.stat")
            self._limit_v2(self.v2, lay.v2_limits)
        for ctl, parent in lay.v1.items():
            if lay.v2 and ctl in ("cpuacct", "freezer"):  # the v2 group counts and kills
                continue
            path = self._mkdir(parent, name)
            if ctl == "cpuacct" and self.cpu_file is None:
                self.cpu_file, self.cpu_scale = os.path.join(path, "cpuacct.usage"), 1e-9
            elif ctl == "memory" and "memory" not in lay.v2_limits:
                _write(os.path.join(path, "memory.limit_in_bytes"), str(MEMORY_MAX))
                memsw = os.path.join(path, "memory.memsw.limit_in_bytes")
                if os.path.exists(memsw):
                    _write(memsw, str(MEMORY_MAX))
            elif ctl == "pids" and "pids" not in lay.v2_limits:
                _write(os.path.join(path, "pids.max"), str(PIDS_MAX))
            elif ctl == "freezer":
                self.freezer = path

    @staticmethod
    def _limit_v2(path: str, limits: frozenset[str]) -> None:
        if "memory" in limits:
            _write(os.path.join(path, "memory.max"), str(MEMORY_MAX))
            for extra, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                if os.path.exists(os.path.join(path, extra)):
                    _write(os.path.join(path, extra), value)
        if "pids" in limits:
            _write(os.path.join(path, "pids.max"), str(PIDS_MAX))

    @property
    def procs_files(self) -> tuple[str, ...]:
        """The ``cgroup.procs`` files a process writes its pid to, to join every group."""
        return tuple(os.path.join(f, "cgroup.procs") for f in self.folders)

    @property
    def kill_file(self) -> str | None:
        """``cgroup.kill`` of the v2 group, where the kernel has it."""
        path = os.path.join(self.v2, "cgroup.kill") if self.v2 else None
        return path if path and os.path.exists(path) else None

    @property
    def meters_cpu(self) -> bool:
        return self.cpu_file is not None

    def cpu_seconds(self) -> float:
        """CPU seconds of every process that was ever in the group (monotone; kept once removed)."""
        if self.cpu_file is None:
            return self.seconds
        try:
            with open(self.cpu_file, "rb") as f:
                data = f.read(128)
            value = int(data.split(None, 2)[1] if self.cpu_scale == 1e-6 else data) * self.cpu_scale
        except (OSError, ValueError, IndexError):
            return self.seconds
        self.seconds = max(self.seconds, value)
        return self.seconds

    def kill(self, wait: float = KILL_WAIT) -> bool:
        """End every process in the groups; True once they are empty."""
        if not self.folders:
            return True
        return kill_folder(self.v2 or self.folders[0], wait, self.freezer)

    def remove(self) -> bool:
        """Kill what is left, read the CPU time a last time and remove the groups (True when all went)."""
        emptied = self.kill()
        self.cpu_seconds()
        gone = all([remove_dir(f, REMOVE_WAIT if emptied else 0.0) for f in reversed(self.folders)])
        if gone:
            self.folders.clear()
            self.cpu_file = None
        return gone


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def clean_stale(lay: Layout) -> int:
    """End and remove the groups of arenas that died (their pid is gone); how many went."""
    parents = [p for p in (lay.v2, *lay.v1.values()) if p]
    removed = 0
    for parent in dict.fromkeys(parents):
        try:
            names = [n for n in os.listdir(parent) if n.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            pid = name[len(PREFIX):].split("-", 1)[0]
            if not pid.isdigit() or int(pid) == os.getpid() or not _dead(int(pid)):
                continue
            folder = os.path.join(parent, name)
            freezer = os.path.join(lay.v1["freezer"], name) if "freezer" in lay.v1 else None
            kill_folder(folder, 0.5, freezer if freezer and os.path.isdir(freezer) else None)
            removed += remove_dir(folder, 0.2)
    return removed


@functools.lru_cache(maxsize=1)
def _cleaned() -> int:
    return clean_stale(layout())


def new_group() -> BotGroup | None:
    """A fresh group for one bot process, or None where this machine has no usable cgroups."""
    lay = layout()
    if not (lay.v2 or lay.v1):
        return None
    _cleaned()
    return BotGroup(lay, f"{PREFIX}{os.getpid()}-{next(_count)}")
