"""An external bot's process: started under a supervisor, lines in and out with deadlines, stopped for good.

See :mod:`agents.external` for why the process cannot outlive the arena.
The bot's stderr comes through a pipe that is drained whenever the arena
waits for the bot, into a log capped at :data:`LOG_HEAD` bytes from the
start plus the last :data:`LOG_TAIL` bytes (:class:`StderrLog`: the log
says how much was dropped). Each process gets its own control group
(:mod:`.cgroups`), joined before the supervisor runs, so that everything the
bot starts is in it: :meth:`BotProcess.cpu_seconds` is the group's CPU time,
its memory and process count are bounded, and :meth:`BotProcess.stop` kills
the whole group and removes it. Where there are no usable cgroups the CPU
time is the bot's process tree sampled from ``/proc`` (:mod:`.cputime`); the
supervisor is made a child subreaper, so a bot's orphaned children stay in
that tree. Either way the bot's processes get ``oom_score_adj`` 1000.
"""

from __future__ import annotations

import functools
import math
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from typing import Any

from ..core.lifetime import PR_SET_PDEATHSIG, prctl
from .cgroups import BotGroup, CgroupError, layout, new_group
from .cputime import TreeCpu
from .messages import (
    BotCrash,
    BotMalformed,
    BotTimeout,
    ExternalBotError,
    encode,
    quit_message,
)

MAX_LINE = 1 << 20  # longest reply line accepted (bytes)
QUIT_GRACE = 1.0  # seconds a bot gets to exit after "quit" before it is killed
LOG_HEAD = 256 << 10  # bytes of a bot process's stderr logged from its start
LOG_TAIL = 256 << 10  # and from its end: what lies between is dropped (and counted)
LOG_FILE_CAP = 8 << 20  # a log file past this size keeps only a short tail of each later process
SHORT_TAIL = 4 << 10
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


# ------------------------------------------------------------- the process
# The supervisor: shares the bot's stdin/stdout (fds 3 and 4 carry them past
# the shell's /dev/null for background jobs), drops its own copies so the
# bot's exit is seen as end of file, and on SIGTERM (the parent-death signal,
# or BotProcess.stop) or SIGHUP ends every process the bot started, then its
# own group. Its exit status is the bot's. When the bot exits, whatever is left
# of it is killed too: a dying arena's pipes close before its parent-death
# signal is sent, so the bot may exit on end of file and its supervisor with it
# before the signal arrives, which left a bot's child running (found by
# tests/external).
# "Whatever is left" (reap): every process of the supervisor's group, and every
# process whose parent is the supervisor. The supervisor is a child subreaper,
# so a bot's orphans, including those that left the group (setsid, daemons),
# become its children: killing them orphans their own children to it, which the
# next round kills, until a round finds nothing alive (at most REAP_ROUNDS).
# A process's group is the 3rd field after the LAST ")" of /proc/PID/stat
# (its parent the 2nd, its state the 1st): its name, in parentheses before,
# may hold spaces, ")" and newlines.
# With a cgroup v2 group (its cgroup.kill in $k, the arena's own group's
# cgroup.procs in $h), "whatever is left" is the whole group, killed at once
# (end) instead of reap's rounds: on SIGTERM the supervisor kills it, itself
# included; when the bot exits, it first moves itself to the arena's group,
# so that its exit status is still the bot's. That also ends a daemon that
# changes its pid faster than reap's rounds (found by tests/external), when the
# arena is gone and cannot kill the group itself. Where end fails, reap runs.
REAP_ROUNDS = 64
_SUPERVISOR = (
    "k=$1 h=$2; shift 2\n"
    "end() {\n"
    '  [ -n "$k" ] && { [ -z "$1" ] || echo $$ > "$h"; } && echo 1 > "$k"\n'
    "} 2>/dev/null\n"
    "reap() {\n"
    f"  r={REAP_ROUNDS}\n"
    "  while [ $r -gt 0 ]; do\n"
    "    r=$((r - 1)); k=\n"
    "    for f in /proc/[0-9]*/stat; do\n"
    "      t=\n"
    '      while IFS= read -r l; do t="$t$l "; done 2>/dev/null < "$f"\n'
    "      set -- ${t##*\\)}\n"
    "      p=${f#/proc/}; p=${p%/stat}\n"
    '      if [ "$p" != $$ ] && [ "$1" != Z ] && { [ "$3" = $$ ] || [ "$2" = $$ ]; }; then\n'
    '        kill -KILL "$p" 2>/dev/null && k=1\n'
    "      fi\n"
    "    done\n"
    '    [ -z "$k" ] && return\n'
    "  done\n"
    "}\n"
    "trap 'end; reap; kill -KILL 0' TERM HUP\n"
    "exec 3<&0 4>&1\n"
    '"$@" 0<&3 1>&4 3<&- 4>&- &\n'
    "exec 0</dev/null 1>/dev/null 3<&- 4>&-\n"
    "wait $!\n"
    "s=$?\n"
    "end leave || reap\n"
    "exit $s\n"
)
REAP_WAIT = 2.0  # seconds the supervisor gets to end a bot's processes at stop() before its group is killed
_LINUX = sys.platform.startswith("linux") and os.path.exists("/bin/sh")
_WAITID = hasattr(os, "waitid") and hasattr(os, "WNOWAIT")


OOM_SCORE_ADJ = 1000  # a bot's processes are the first the kernel kills when memory runs out


def child_setup(parent: int, prctl: Any, procs_files: tuple[str, ...]) -> None:
    """Runs in the child between fork and exec: join the bot's groups (before anything of the bot
    runs), be the first killed when memory runs out, die (via the supervisor) with the arena, and
    adopt the bot's orphans (so their CPU time stays in the tree)."""
    for path in procs_files:  # an error here fails the start (Popen raises it in the arena)
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, b"0")  # "0": the writing process itself
        finally:
            os.close(fd)
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, str(OOM_SCORE_ADJ).encode())
    finally:
        os.close(fd)
    prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _group_args(group: BotGroup | None) -> tuple[str, str]:
    """The supervisor's ``$k`` and ``$h``: the group's ``cgroup.kill`` and the arena's own v2 group's
    ``cgroup.procs`` (empty where the group has no ``cgroup.kill``)."""
    home = layout().v2_home
    kill = group.kill_file if group is not None else None
    if kill is None or home is None:
        return "", ""
    return kill, os.path.join(home, "cgroup.procs")


def _exit_text(code: int | None) -> str:
    if code is None:
        return "is still running"
    if code < 0:
        return f"was killed by signal {-code}"
    if code > 128 and _LINUX:  # the supervisor reports a signal as 128 + n
        return f"exited with status {code} (signal {code - 128}?)"
    return f"exited with status {code}"


class BotProcess:
    """One running bot: non-blocking pipes, line reads with a deadline, group kill."""

    def __init__(self, argv: tuple[str, ...], log_path: str) -> None:
        self.log = StderrLog(log_path)
        self.log.note(f"sixtysix {time.strftime('%Y-%m-%d %H:%M:%S')}: starting {shlex.join(argv)} "
                      f"(arena pid {os.getpid()})")
        cmd: list[str] = list(argv)
        preexec = None
        self.group: BotGroup | None = None
        if _LINUX:
            try:
                self.group = new_group()
            except CgroupError as e:
                self.log.close()
                raise BotCrash(f"could not start {shlex.join(argv)}: {e}") from None
            group = self.group
            cmd = ["/bin/sh", "-c", _SUPERVISOR, "sixtysix-bot", *_group_args(group), *argv]
            joins = group.procs_files if group else ()
            preexec = functools.partial(child_setup, os.getpid(), prctl(), joins)
        try:
            self.popen = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                start_new_session=True, preexec_fn=preexec, close_fds=True,
            )
        except (OSError, subprocess.SubprocessError) as e:
            self.log.close()
            if self.group is not None:
                self.group.remove()
            raise BotCrash(f"could not start {shlex.join(argv)}: {e}") from None
        where = f"; control group {os.path.basename(self.group.folders[0])}" if self.group else ""
        self.log.note(f"pid {self.popen.pid} (process group{where})")
        assert self.popen.stdin and self.popen.stdout and self.popen.stderr
        self.pid = self.popen.pid
        self.in_fd = self.popen.stdin.fileno()
        self.out_fd = self.popen.stdout.fileno()
        self.err_fd = self.popen.stderr.fileno()
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            os.set_blocking(fd, False)
        self.poll = select.poll()
        self.poll.register(self.out_fd, select.POLLIN)
        self.poll.register(self.err_fd, select.POLLIN)
        self.buf = bytearray()
        self.stopped = False
        self.cpu = None if self.group is not None and self.group.meters_cpu else TreeCpu(self.pid)

    @property
    def log_path(self) -> str:
        return self.log.path

    def drain_stderr(self) -> None:
        """Move what the bot wrote to stderr into its log (so a chatty bot never blocks on it)."""
        if self.err_fd < 0:
            return
        for _ in range(64):  # at most 4 MiB per call: the rest waits for the next one
            try:
                chunk = os.read(self.err_fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.poll.unregister(self.err_fd)
                self.err_fd = -1
                return
            self.log.write(chunk)

    def cpu_seconds(self) -> float:
        """CPU seconds the bot's processes used so far: its group's counter (every process ever in it,
        however reaped), else its process tree sampled (:class:`~.cputime.TreeCpu`). It never goes
        down, and keeps its count once the process has ended; 0 where neither exists."""
        if self.cpu is None:
            assert self.group is not None
            return self.group.cpu_seconds()
        if self.popen.returncode is None:  # not reaped, so its pid is still this process's
            self.cpu.sample()
        return self.cpu.seconds

    def alive(self) -> bool:
        return not self.stopped and self.exit_status(0) is None

    def exit_status(self, timeout: float | None) -> int | None:
        """The process's exit status, waiting up to ``timeout`` seconds (None: until it exits); None
        while it runs. Its CPU time is read once more before it is reaped: a zombie keeps its times."""
        if self.popen.returncode is None and _WAITID:
            end = None if timeout is None else time.monotonic() + timeout
            pause = 0.001
            flags = os.WEXITED | os.WNOWAIT | (0 if end is None else os.WNOHANG)
            while True:
                try:
                    exited = os.waitid(os.P_PID, self.pid, flags)
                except ChildProcessError:  # reaped already
                    break
                if exited is not None:
                    if self.cpu is not None:
                        self.cpu.sample()
                    break
                assert end is not None  # a wait without WNOHANG returns at the exit
                left = end - time.monotonic()
                if left <= 0:
                    return None
                time.sleep(min(pause, left))
                pause = min(2 * pause, 0.05)
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.in_fd, view):]
            except BlockingIOError:
                self.drain_stderr()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BotTimeout("does not read its standard input") from None
                select.select([self.err_fd] if self.err_fd >= 0 else [], [self.in_fd], [], left)
            except OSError:  # EPIPE: it closed its end
                raise self.crash("closed its standard input") from None

    def pending(self) -> bool:
        """Whether the bot has written anything (or closed its output) since the last reply."""
        self.drain_stderr()
        return bool(self.buf) or bool(select.select([self.out_fd], [], [], 0)[0])

    def recv(self, deadline: float, waiting_for: str) -> bytes:
        buf = self.buf
        while True:
            i = buf.find(b"\n", 0, MAX_LINE + 1)  # however the line came in chunks
            if i >= 0:
                line = bytes(buf[:i])
                del buf[: i + 1]
                return line
            if len(buf) > MAX_LINE:
                raise BotMalformed(f"line longer than {MAX_LINE} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotTimeout(f"no {waiting_for} within the time budget")
            events = dict(self.poll.poll(math.ceil(left * 1000)))
            if self.err_fd in events:
                self.drain_stderr()
            if self.out_fd not in events:
                continue
            try:
                chunk = os.read(self.out_fd, 65536)
            except BlockingIOError:
                continue
            except OSError as e:
                raise self.crash(f"its standard output failed ({e.strerror})") from None
            if not chunk:
                raise self.crash("closed its standard output" + (" mid-line" if buf else ""))
            buf += chunk

    def crash(self, what: str) -> BotCrash:
        """The crash fault, with the exit status and the last line of the bot's stderr."""
        code = self.exit_status(0.2)
        detail = f"{what}; the process {_exit_text(code)}"
        self.drain_stderr()
        last = self.log.last_line()
        return BotCrash(detail + (f"; stderr: {last}" if last else ""))

    def stop(self, grace: float, why: str) -> None:
        """End the bot and its process group; with ``grace``, ask it to quit first."""
        if self.stopped:
            return
        self.stopped = True
        self.cpu_seconds()  # the whole tree, before any of it is ended
        if grace > 0 and self.exit_status(0) is None:
            try:
                self.send(encode(quit_message()), time.monotonic() + grace)
            except ExternalBotError:
                pass
        try:
            self.popen.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        if grace > 0:
            self.exit_status(grace)
        if self.group is not None:  # every process of the bot's, however it left the tree
            self.group.kill()
        elif _LINUX and self.exit_status(0) is None:  # its supervisor ends all it started (reap)
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self.exit_status(REAP_WAIT)
        try:  # the group outlives its leader while any member lives, so its id is never reused
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        code = self.exit_status(None)
        if self.group is not None and not self.group.remove():
            self.log.note(f"control group {self.group.folders[0]} could not be removed")
        self.drain_stderr()
        self.popen.stdout.close()  # type: ignore[union-attr]
        self.popen.stderr.close()  # type: ignore[union-attr]
        self.err_fd = -1
        self.log.note(f"stopped ({why}); the process {_exit_text(code)}")
        self.log.close()


class StderrLog:
    """One process's stderr, appended to its bot's log: the first ``head`` bytes as they come, then
    only the last ``tail`` kept.

    The tail is written when the log closes, after a line that says how many
    bytes were dropped in between. Our own lines start with ``--- ``. The log
    file is shared by the bot's processes in one arena process (one per game):
    each gets its own head and tail until the file has passed
    :data:`LOG_FILE_CAP`, and from then on only its last :data:`SHORT_TAIL` bytes.
    """

    def __init__(self, path: str, head: int = LOG_HEAD, tail: int = LOG_TAIL) -> None:
        self.file: Any = open(path, "ab")  # noqa: SIM115 - closed by close()
        full = self.file.tell() >= LOG_FILE_CAP
        self.path, self.head = path, 0 if full else head
        self.head_left = self.head
        self.tail_cap = SHORT_TAIL if full else tail
        self.tail = bytearray()
        self.dropped = 0

    def note(self, text: str) -> None:
        """One of the arena's own lines (not counted against the cap)."""
        if self.file is not None:
            self._flush_tail()
            self.file.write(f"--- {text}\n".encode())
            self.file.flush()

    def write(self, data: bytes) -> None:
        if self.file is None:
            return
        if self.head_left > 0 and not self.tail:
            part, data = data[:self.head_left], data[self.head_left:]
            self.file.write(part)
            self.file.flush()
            self.head_left -= len(part)
        if data:
            self.tail += data
            over = len(self.tail) - self.tail_cap
            if over > 0:
                del self.tail[:over]
                self.dropped += over

    def last_line(self) -> str:
        """The last line the bot wrote to stderr (our own '---' lines skipped), shortened."""
        if self.tail:
            text = bytes(self.tail[-2048:]).decode("utf-8", "replace")
        else:
            try:
                with open(self.path, "rb") as f:
                    f.seek(0, os.SEEK_END)
                    f.seek(max(0, f.tell() - 2048))
                    text = f.read().decode("utf-8", "replace")
            except OSError:
                return ""
        for line in reversed(text.splitlines()):
            if line.strip() and not line.startswith("--- "):
                return line.strip()[:200]
        return ""

    def _flush_tail(self) -> None:
        if not self.tail and not self.dropped:
            return
        if self.dropped:
            self.file.write(f"\n--- {self.dropped} bytes of stderr dropped here (this process's log keeps "
                            f"its first {self.head} bytes and its last {len(self.tail)})\n".encode())
        self.file.write(bytes(self.tail))
        if self.tail and not self.tail.endswith(b"\n"):
            self.file.write(b"\n")
        self.tail.clear()
        self.dropped = 0
        self.head_left = 0  # after a dropped stretch, everything goes through the tail

    def close(self) -> None:
        if self.file is not None:
            try:
                self._flush_tail()
                self.file.close()
            except OSError:
                pass
            self.file = None
