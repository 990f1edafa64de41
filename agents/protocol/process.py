"""An external bot's process: started under a supervisor, lines in and out with deadlines, stopped for good.

See :mod:`agents.external` for why the process cannot outlive the arena.
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

from ..lifetime import PR_SET_PDEATHSIG, prctl
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


# ------------------------------------------------------------- the process
# The supervisor: shares the bot's stdin/stdout (fds 3 and 4 carry them past
# the shell's /dev/null for background jobs), drops its own copies so the
# bot's exit is seen as end of file, and on SIGTERM (the parent-death signal)
# or SIGHUP kills the whole process group. Its exit status is the bot's.
# When the bot exits, whatever is left of its group (its children) is killed
# too: a dying arena's pipes close before its parent-death signal is sent, so
# the bot may exit on end of file and its supervisor with it before the signal
# arrives, which left a bot's child running (found by tests/external).
_SUPERVISOR = (
    "trap 'kill -KILL 0' TERM HUP\n"
    "exec 3<&0 4>&1\n"
    '"$@" 0<&3 1>&4 3<&- 4>&- &\n'
    "exec 0</dev/null 1>/dev/null 3<&- 4>&-\n"
    "wait $!\n"
    "s=$?\n"
    "for f in /proc/[0-9]*/stat; do\n"
    '  read -r p _ _ _ g _ 2>/dev/null < "$f" || continue\n'
    '  [ "$g" = $$ ] && [ "$p" != $$ ] && kill -KILL "$p" 2>/dev/null\n'
    "done\n"
    "exit $s\n"
)
_LINUX = sys.platform.startswith("linux") and os.path.exists("/bin/sh")


def _child_setup(parent: int, prctl: Any) -> None:
    """Runs in the child between fork and exec: die (via the supervisor) with the arena."""
    prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "is still running"
    if code < 0:
        return f"was killed by signal {-code}"
    if code > 128 and _LINUX:  # the supervisor reports a signal as 128 + n
        return f"exited with status {code} (signal {code - 128}?)"
    return f"exited with status {code}"


class _BotProcess:
    """One running bot: non-blocking pipes, line reads with a deadline, group kill."""

    def __init__(self, argv: tuple[str, ...], log_path: str) -> None:
        self.log_path = log_path
        with open(log_path, "ab") as log:
            log.write(f"--- sixtysix {time.strftime('%Y-%m-%d %H:%M:%S')}: starting {shlex.join(argv)} "
                      f"(arena pid {os.getpid()})\n".encode())
            log.flush()
            cmd: list[str] = list(argv)
            preexec = None
            if _LINUX:
                cmd = ["/bin/sh", "-c", _SUPERVISOR, "sixtysix-bot", *argv]
                preexec = functools.partial(_child_setup, os.getpid(), prctl())
            try:
                self.popen = subprocess.Popen(
                    cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, bufsize=0,
                    start_new_session=True, preexec_fn=preexec, close_fds=True,
                )
            except (OSError, subprocess.SubprocessError) as e:
                raise BotCrash(f"could not start {shlex.join(argv)}: {e}") from None
            log.write(f"--- pid {self.popen.pid} (process group)\n".encode())
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.pid = self.popen.pid
        self.in_fd = self.popen.stdin.fileno()
        self.out_fd = self.popen.stdout.fileno()
        os.set_blocking(self.in_fd, False)
        os.set_blocking(self.out_fd, False)
        self.poll = select.poll()
        self.poll.register(self.out_fd, select.POLLIN)
        self.buf = bytearray()
        self.stopped = False

    def alive(self) -> bool:
        return not self.stopped and self.popen.poll() is None

    def send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.in_fd, view):]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [self.in_fd], [], left)[1]:
                    raise BotTimeout("does not read its standard input") from None
            except (BrokenPipeError, ConnectionResetError):
                raise self.crash("closed its standard input") from None

    def pending(self) -> bool:
        """Whether the bot has written anything (or closed its output) since the last reply."""
        return bool(self.buf) or bool(self.poll.poll(0))

    def recv(self, deadline: float, waiting_for: str) -> bytes:
        buf = self.buf
        while True:
            i = buf.find(b"\n")
            if i >= 0:
                line = bytes(buf[:i])
                del buf[: i + 1]
                return line
            if len(buf) > MAX_LINE:
                raise BotMalformed(f"line longer than {MAX_LINE} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotTimeout(f"no {waiting_for} within the time budget")
            if not self.poll.poll(math.ceil(left * 1000)):
                continue
            try:
                chunk = os.read(self.out_fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise self.crash("closed its standard output" + (" mid-line" if buf else ""))
            buf += chunk

    def crash(self, what: str) -> BotCrash:
        """The crash fault, with the exit status and the last line of the bot's stderr."""
        try:
            code = self.popen.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            code = None
        detail = f"{what}; the process {_exit_text(code)}"
        last = _last_line(self.log_path)
        return BotCrash(detail + (f"; stderr: {last}" if last else ""))

    def stop(self, grace: float, why: str) -> None:
        """End the bot and its process group; with ``grace``, ask it to quit first."""
        if self.stopped:
            return
        self.stopped = True
        if grace > 0 and self.popen.poll() is None:
            try:
                self.send(encode(quit_message()), time.monotonic() + grace)
            except ExternalBotError:
                pass
        try:
            self.popen.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        if grace > 0:
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        try:  # the group outlives its leader while any member lives, so its id is never reused
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        code = self.popen.wait()
        self.popen.stdout.close()  # type: ignore[union-attr]
        try:
            with open(self.log_path, "ab") as log:
                log.write(f"--- stopped ({why}); the process {_exit_text(code)}\n".encode())
        except OSError:
            pass


def _last_line(path: str, n: int = 2048) -> str:
    """The last line the bot wrote to stderr (our own '---' lines skipped), shortened."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - n))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        if line.strip() and not line.startswith("--- "):
            return line.strip()[:200]
    return ""
