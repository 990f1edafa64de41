"""Where this machine's cgroups are, and where a bot's groups can be made (:class:`Layout`).

cgroup v2 is found from ``/proc/self/mountinfo``
and ``/proc/self/cgroup`` (``/sys/fs/cgroup`` itself on a pure v2 machine,
``/sys/fs/cgroup/unified`` on a hybrid one). Bot groups go under the arena's
own v2 group when its ``cgroup.subtree_control`` has (or can be given)
``memory`` and ``pids``; the kernel refuses that to a group with processes of
its own ("no internal processes"), so next under its parent, beside the
arena's group, where the controllers are enabled; else under the arena's own
group without them, the limits then coming from v1 where mounted. v1 groups
go under the arena's own group in each of the ``cpuacct``, ``memory``,
``pids`` and ``freezer`` hierarchies. Everything is probed once per process
(a group made and removed).

:func:`metering` and :func:`metering_problem` say what a :class:`Layout`
meters and bounds (:mod:`.cgroups` makes, reads and removes the groups).
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field

PROC_SAMPLES = "proc samples"  # the fallback: /proc sampling, no memory or process limits
CGROUP_V2, CGROUP_V1, CGROUP_MIXED = "cgroup v2", "cgroup v1", "cgroup v2+v1"
PREFIX = "sixtysix-bot-"  # bot groups are PREFIX<arena pid>-<n>
V1_FILES = {"cpuacct": "cpuacct.usage", "memory": "memory.limit_in_bytes", "pids": "pids.max",
            "freezer": "freezer.state"}


@dataclass(frozen=True)
class Mount:
    """One mounted cgroup hierarchy: where, its root inside the hierarchy, and its v1 controllers."""

    path: str
    root: str
    v2: bool
    controllers: frozenset[str]


def _unescape(text: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code in ("040", "011", "012", "134"):
        text = text.replace("\\" + code, chr(int(code, 8)))
    return text


def parse_mounts(mountinfo: str) -> list[Mount]:
    """The cgroup mounts of a ``/proc/self/mountinfo`` text, first mount of each hierarchy first."""
    out = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        v2 = tail[0] == "cgroup2"
        opts = frozenset() if v2 else frozenset(tail[2].split(",")) & set(V1_FILES)
        out.append(Mount(_unescape(fields[4]), _unescape(fields[3]), v2, opts))
    return out


def parse_own(cgroup: str) -> dict[str, str]:
    """The arena's group in each hierarchy of a ``/proc/self/cgroup`` text: ``""`` for v2, else a
    v1 controller name."""
    out: dict[str, str] = {}
    for line in cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            out[""] = parts[2]
        for name in parts[1].split(","):
            if name:
                out[name] = parts[2]
    return out


def _folder(mount: Mount, own: str | None) -> str | None:
    """The arena's group as a folder under ``mount``, or None where the mount cannot show it."""
    if own is None or not (own == mount.root or own.startswith(mount.root.rstrip("/") + "/")):
        return None
    rel = own[len(mount.root):].strip("/")
    return os.path.join(mount.path, rel) if rel else mount.path


@dataclass
class Layout:
    """Where this arena makes its bots' groups, and what they offer."""

    v2: str | None = None  # folder the v2 groups go in
    v2_home: str | None = None  # the arena's own v2 group (a supervisor leaves its bot's group to it)
    v2_limits: frozenset[str] = frozenset()  # of "memory", "pids": what v2 groups made there bound
    v1: dict[str, str] = field(default_factory=dict)  # v1 controller -> folder its groups go in

    def source(self, what: str) -> str | None:
        """Which hierarchy gives ``what`` (``cpu``, ``memory``, ``pids``, ``kill``): "v2", "v1" or None."""
        if what in ("cpu", "kill") and self.v2:
            return "v2"
        if what in self.v2_limits:
            return "v2"
        v1 = {"cpu": "cpuacct", "memory": "memory", "pids": "pids"}.get(what)
        return "v1" if (v1 in self.v1 if v1 else bool(self.v1)) else None


def _probe(parent: str, files: tuple[str, ...]) -> set[str] | None:
    """Make and remove a group under ``parent``: which of ``files`` it had, or None when none can be made."""
    path = os.path.join(parent, f"{PREFIX}{os.getpid()}-probe")
    try:
        os.mkdir(path)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        return {f for f in files if os.path.exists(os.path.join(path, f))}
    finally:
        remove_dir(path, 0.2)


def _enable(folder: str, wanted: tuple[str, ...]) -> None:
    """Try to give groups under ``folder`` the controllers ``wanted`` (a refusal is only a missing limit)."""
    try:
        with open(os.path.join(folder, "cgroup.subtree_control")) as f:
            have = set(f.read().split())
        with open(os.path.join(folder, "cgroup.controllers")) as f:
            offered = set(f.read().split())
    except OSError:
        return
    for name in wanted:
        if name in offered and name not in have:
            try:
                with open(os.path.join(folder, "cgroup.subtree_control"), "w") as f:
                    f.write(f"+{name}")
            except OSError:  # EBUSY: the folder's group has processes of its own
                pass


def _v2_place(own: str) -> tuple[str | None, frozenset[str]]:
    """The folder for v2 bot groups (see the module docstring) and the limits groups there get."""
    wanted = ("memory", "pids")
    files = ("cpu.stat", "memory.max", "pids.max")
    fallback: tuple[str | None, frozenset[str]] = (None, frozenset())
    parent = os.path.dirname(own)
    for folder in (own, parent) if os.path.exists(os.path.join(parent, "cgroup.procs")) else (own,):
        _enable(folder, wanted)
        got = _probe(folder, files)
        if got is None or "cpu.stat" not in got:
            continue
        limits = frozenset(n for n in wanted if f"{n}.max" in got)
        if limits == frozenset(wanted):
            return folder, limits
        if fallback[0] is None:
            fallback = (folder, limits)
    return fallback


def find_layout(mountinfo: str, cgroup: str) -> Layout:
    """Where bot groups can be made here, from the two ``/proc/self`` texts (each place probed)."""
    own = parse_own(cgroup)
    layout = Layout()
    seen: set[str] = set()
    for mount in parse_mounts(mountinfo):
        if mount.v2:
            home = _folder(mount, own.get(""))
            if home and layout.v2 is None and "cgroup.procs" in os.listdir(home):
                layout.v2, layout.v2_limits = _v2_place(home)
                layout.v2_home = home if layout.v2 else None
            continue
        for name in sorted(mount.controllers - set(layout.v1)):
            home = _folder(mount, own.get(name))
            if home and (home in seen or (_probe(home, (V1_FILES[name],)) or set()) == {V1_FILES[name]}):
                layout.v1[name] = home
                seen.add(home)
    return layout


@functools.lru_cache(maxsize=1)
def layout() -> Layout:
    """This machine's :class:`Layout` (probed once per process; empty where there are no cgroups)."""
    try:
        with open("/proc/self/mountinfo") as f:
            mountinfo = f.read()
        with open("/proc/self/cgroup") as f:
            cgroup = f.read()
        return find_layout(mountinfo, cgroup)
    except OSError:
        return Layout()


def naming(lay: Layout) -> str:
    """The :func:`metering` name of a layout."""
    if lay.source("cpu") is None:
        return PROC_SAMPLES
    used = {lay.source(w) for w in ("cpu", "memory", "pids")} - {None}
    return CGROUP_V2 if used == {"v2"} else CGROUP_V1 if used == {"v1"} else CGROUP_MIXED


def problem(lay: Layout) -> str | None:
    """What a layout leaves unmetered or unbounded (one line), or None."""
    missing = [what for what, src in (("CPU time", lay.source("cpu")), ("memory", lay.source("memory")),
                                      ("processes", lay.source("pids"))) if src is None]
    if not missing:
        return None
    if len(missing) == 3:
        return "no writable cgroup hierarchy here (CPU is sampled from /proc)"
    return f"the cgroups here do not meter or bound: {', '.join(missing)}"


@functools.lru_cache(maxsize=1)
def metering() -> str:
    """How external bots are metered on this machine: ``"cgroup v2"``, ``"cgroup v1"``,
    ``"cgroup v2+v1"`` or :data:`PROC_SAMPLES` (recorded in results headers and bench reports)."""
    return naming(layout())


def metering_problem() -> str | None:
    """None when every bot process's CPU time (children reaped without a wait included) is metered
    and its memory and process count are bounded; else one line saying why not (the bench then
    refuses untrusted bots unless told otherwise)."""
    return problem(layout())


def remove_dir(path: str, wait: float) -> bool:
    """Remove an (emptied) group folder, retried for ``wait`` seconds while the kernel still holds its
    dead processes; True once it is gone."""
    end = time.monotonic() + wait
    pause = 0.002
    while True:
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() >= end:
                return False
            time.sleep(pause)
            pause = min(2 * pause, 0.05)
