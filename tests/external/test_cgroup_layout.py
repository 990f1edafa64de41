"""How the cgroups of a machine are read (``/proc/self/mountinfo`` and ``/proc/self/cgroup``), and what
:func:`~agents.protocol.cgroups.metering` and :func:`~agents.protocol.cgroups.metering_problem` say of
each kind: pure v2, a v1/v2 hybrid, v1 only, none. Pure text and data: runs on any machine."""

from __future__ import annotations

from agents.protocol.cgroups import (
    CGROUP_MIXED,
    CGROUP_V1,
    CGROUP_V2,
    PROC_SAMPLES,
    Layout,
    Mount,
    find_layout,
    naming,
    parse_mounts,
    parse_own,
    problem,
)

HYBRID = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
33 31 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
42 23 0:39 / /mnt/odd\\040place rw - cgroup2 cgroup2 rw
"""
HYBRID_SELF = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/\n0::/\n"


def test_mounts_and_own_groups_are_read_from_proc_texts() -> None:
    mounts = parse_mounts(HYBRID)
    assert [m.path for m in mounts] == ["/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/memory",
                                        "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/mnt/odd place"]
    assert mounts[0] == Mount("/sys/fs/cgroup/cpu,cpuacct", "/", False, frozenset({"cpuacct"}))
    assert mounts[3].v2 and not mounts[3].controllers
    own = parse_own(HYBRID_SELF)
    assert own == {"": "/", "name=systemd": "/", "pids": "/", "memory": "/process_api/abc", "cpu": "/",
                   "cpuacct": "/"}


def test_each_kind_of_machine_is_named_and_judged() -> None:
    pure = Layout(v2="/sys/fs/cgroup/a", v2_home="/sys/fs/cgroup/a", v2_limits=frozenset({"memory", "pids"}))
    hybrid = Layout(v2="/u", v2_home="/u", v1={"memory": "/m", "pids": "/p"})
    v1 = Layout(v1={"cpuacct": "/c", "memory": "/m", "pids": "/p", "freezer": "/f"})
    v2_bare = Layout(v2="/u", v2_home="/u")  # CPU time and the kill, no limits
    limits_only = Layout(v1={"memory": "/m", "pids": "/p"})
    assert [naming(x) for x in (pure, hybrid, v1, v2_bare, limits_only, Layout())] == [
        CGROUP_V2, CGROUP_MIXED, CGROUP_V1, CGROUP_V2, PROC_SAMPLES, PROC_SAMPLES]
    assert problem(pure) is problem(hybrid) is problem(v1) is None
    assert problem(v2_bare) == "the cgroups here do not meter or bound: memory, processes"
    assert problem(limits_only) == "the cgroups here do not meter or bound: CPU time"
    assert "no writable cgroup" in (problem(Layout()) or "")


def test_a_hierarchy_where_no_group_can_be_made_is_not_used(tmp_path) -> None:
    """A folder that looks like a cgroup mount but makes no cgroup files (read-only, not a cgroupfs)."""
    mountinfo = (f"41 31 0:38 / {tmp_path} rw - cgroup2 cgroup2 rw\n"
                 f"50 31 0:40 / {tmp_path}/m rw - cgroup cgroup rw,memory\n")
    (tmp_path / "cgroup.procs").write_text("")
    (tmp_path / "m").mkdir()
    lay = find_layout(mountinfo, "4:memory:/\n0::/\n")
    assert lay == Layout() and naming(lay) == PROC_SAMPLES
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith("sixtysix")]  # its probes removed


def test_without_cgroups_a_bot_is_metered_from_proc(tmp_path, monkeypatch) -> None:
    """The fallback: no group, CPU time sampled from /proc (the process's own time is seen)."""
    import sys
    import time

    from agents.protocol import process

    monkeypatch.setattr(process, "new_group", lambda: None)
    script = tmp_path / "burn.py"
    script.write_text("import time\nt = time.process_time()\nwhile time.process_time() - t < 0.2:\n    pass\n"
                      "print('done', flush=True)\ninput()\n")
    proc = process.BotProcess((sys.executable, "-S", str(script)), str(tmp_path / "burn.log"))
    try:
        assert proc.group is None and proc.recv(time.monotonic() + 30, "done") == b"done"
        assert proc.cpu_seconds() >= 0.15
    finally:
        proc.stop(0, "test over")
