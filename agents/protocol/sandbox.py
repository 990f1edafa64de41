"""The sandbox of external bots: bubblewrap (``bwrap``) around the bot's command.

``exec:sandbox=1,...`` (or the arena's and the bench's ``--sandbox``) runs
the bot as ``bwrap ... COMMAND``. One bot, one box: each bot process gets

- no network (its own empty network namespace), no other process in sight
  (its own process namespace and ``/proc``), its own IPC and host name, a
  new terminal session (``--new-session``), and it dies with the arena
  (``--die-with-parent``);
- no capabilities (``--cap-drop ALL``), even when the arena runs as root: it
  cannot remount its read-only binds writable, so it cannot rewrite its own
  files to remember a game;
- a read-only ``/proc`` (``--remount-ro``): a bot of an arena run as root
  is user 0, and a sysctl file in ``/proc/sys`` is writable by user 0
  without any capability, so it could otherwise set host-wide values
  (``vm.swappiness``: a note for the next game; ``kernel.core_pattern``: a
  program the kernel runs as root outside the box);
- no kernel keyring: a seccomp filter (:func:`seccomp_filter`, loaded by
  ``bwrap --seccomp``) fails ``add_key``, ``request_key`` and ``keyctl`` with
  ``EPERM``, so no bot leaves a note there for the next one;
- the system read-only: ``/usr`` and the top-level links to it, and of
  ``/etc`` only what programs need to start (:data:`ETC_FILES`, plus a
  minimal ``passwd`` and ``group``), never ``/etc/shadow`` and the like;
  a private empty ``/tmp`` (also its home and working folder's parent);
- a fresh environment: only ``PATH``, ``LANG`` and ``HOME``/``TMPDIR``
  (``/tmp``), never the arena's variables (:data:`KEPT_ENV`); bubblewrap
  itself starts from an empty one (``env -i``), so ``/proc/1/environ`` in
  the box (bubblewrap's own) shows nothing of the arena's either;
- of the rest of the file system only what its command line names: every
  word of the command that is an existing path is bound read-only at its
  real path (after ``realpath``; a link on the way becomes a link in the box),
  a folder whole, a file alone. A program given by path is bound alone,
  except that an interpreter in the ``bin`` folder of a real installation
  (:func:`is_installation`: a virtual environment, a Python, Node or Java
  prefix) brings that installation.

What cannot be bound safely is refused with a one-line :class:`SandboxError`
before the bot starts (the arena checks every sandboxed command before any
game): ``/``, a top-level folder, ``/proc``, ``/sys``, ``/dev``, other
``/etc`` files, anything but files and folders (sockets, devices), and any
path that is, or is a folder above, a protected path: the working folder,
the home folder, the bots' log folder, and what the arena and the bench
register with :func:`protect` (their results files and output folders); and
anything in the bots' log folders or a folder registered with :func:`seal`
(the bench's output folder): a bot given its own log would read what it
wrote in its earlier games.

It does not stop a bot from using all the CPU and memory it is allowed
(the CPU time control and the operating system's limits do that), from
writing notes into its private ``/tmp`` during one game (each game is a
fresh process with a fresh ``/tmp``), or from exploiting a kernel bug.
A folder given on the command line is readable whole, so name only the
bot's own files. :func:`sandbox_problem` says why the sandbox cannot run on
this machine (no ``bwrap``, user namespaces disabled, a processor the
keyring filter does not know), checked before any game.
"""

from __future__ import annotations

import functools
import glob
import os
import platform
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from multiprocessing import util as mp_util

SYSTEM_DIRS = ("/usr",)
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
             "/etc/alternatives", "/etc/localtime", "/etc/nsswitch.conf")  # what the loader and libc read
KEPT_ENV = ("PATH", "LANG")  # the arena's variables a sandboxed bot still gets (when set); no others
NEVER_BOUND = ("/proc", "/sys", "/dev", "/etc")  # the box has its own, or only ETC_FILES of it
OWN = ("/proc", "/dev")  # named as such, never bound: the box has its own (/proc/self/cwd is the box's)
PROTECT_ENV = "SIXTYSIX_SANDBOX_PROTECT"  # protect()'s paths, inherited by the arena's workers
SEAL_ENV = "SIXTYSIX_SANDBOX_SEAL"  # seal()'s folders, inherited likewise
LOG_DIR_ENV, DEFAULT_LOG_DIR = "SIXTYSIX_BOT_LOGS", "bot_logs"  # the bots' logs (agents.external uses these)
INSTALL_MARKERS = ("pyvenv.cfg", "lib/python3*/os.py", "lib/node_modules", "lib/modules")
# The loop that hands the filter to bwrap on fd 9: process.py's supervisor closes all other fds.
# ``env -i``: bwrap starts from an empty environment, since its pid 1 in the box keeps the environment
# it started with, readable by the bot as /proc/1/environ (--clearenv empties only the bot's).
SECCOMP_EXEC = 'exec env -i "$@" 9<"$0"'


class SandboxError(ValueError):
    """A command the sandbox cannot box safely (one line, raised before the bot starts)."""


# ----------------------------------------------------------- protected paths
_PROTECTED: set[str] = set()


def protect(*paths: str | None) -> None:
    """Never bind these paths or a folder above them (the arena's results, the bench's output).

    Kept for the process's life and in :data:`PROTECT_ENV`, so workers started later inherit them.
    """
    new = {os.path.realpath(p) for p in paths if p}
    if new - _PROTECTED:
        _PROTECTED.update(new)
        os.environ[PROTECT_ENV] = os.pathsep.join(sorted(_PROTECTED | _env_protected()))


def _env_protected(name: str = PROTECT_ENV) -> set[str]:
    return {p for p in os.environ.get(name, "").split(os.pathsep) if p}


_SEALED: set[str] = set()


def seal(*folders: str | None) -> None:
    """Never bind these folders, a folder above them, or anything in them (the bench's output folder).

    The bots' log folders are sealed too (:func:`sealed_paths`): a bot given a file in one would read
    what it wrote to its log in an earlier game.
    """
    protect(*folders)
    new = {os.path.realpath(p) for p in folders if p}
    if new - _SEALED:
        _SEALED.update(new)
        os.environ[SEAL_ENV] = os.pathsep.join(sorted(_SEALED | _env_protected(SEAL_ENV)))


def sealed_paths(cwd: str, logs: Iterable[str | None] = ()) -> set[str]:
    """The real folders nothing in which may be bound: the bots' log folders and :func:`seal`'s."""
    default = os.environ.get(LOG_DIR_ENV) or DEFAULT_LOG_DIR
    paths = {default, *_SEALED, *_env_protected(SEAL_ENV), *(p for p in logs if p)}
    return {os.path.realpath(os.path.join(cwd, p)) for p in paths}


def protected_paths(cwd: str, extra: Iterable[str | None] = ()) -> set[str]:
    """The real paths no bind may equal or lie above: working and home folders, logs, registered ones."""
    logs = os.environ.get(LOG_DIR_ENV) or DEFAULT_LOG_DIR
    paths = {cwd, os.path.expanduser("~"), os.path.join(cwd, logs), *_PROTECTED, *_env_protected()}
    paths.update(p for p in extra if p)
    return {os.path.realpath(os.path.join(cwd, p)) for p in paths}


def refusal(real: str, protected: Iterable[str], sealed: Iterable[str] = ()) -> str | None:
    """Why the real path ``real`` must not be bound, or None when it may be."""
    if real == "/" or (real.count("/") == 1 and os.path.isdir(real)):
        return "is / or a top-level folder"
    if any(real == d or real.startswith(d + "/") for d in NEVER_BOUND):
        return "is under " + next(d for d in NEVER_BOUND if real == d or real.startswith(d + "/"))
    mode = os.stat(real).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return "is neither a file nor a folder"
    for p in sorted(protected):
        if p == real or p.startswith(real.rstrip("/") + "/"):
            return f"is or holds the protected {p} (working, home, log or results folder)"
    return refusal_in(real, sealed)


def refusal_in(real: str, sealed: Iterable[str]) -> str | None:
    """Why ``real`` (existing or not) must not be bound: it lies in a sealed folder; or None."""
    for p in sorted(sealed):
        if real.startswith(p + "/"):
            return f"lies in {p} (the bots' logs or the bench's output: a bot would read its earlier games)"
    return None


# ------------------------------------------------------------------ the binds
def named_paths(argv: Sequence[str], cwd: str, protected: Iterable[str | None] = ()) -> list[str]:
    """The real paths to bind for the command (see :func:`bind_plan`)."""
    return bind_plan(argv, cwd, protected)[0]


def bind_plan(argv: Sequence[str], cwd: str, protected: Iterable[str | None] = ()
              ) -> tuple[list[str], list[tuple[str, str]]]:
    """The real paths to bind read-only, and the ``(target, link)`` links that lead to them.

    Words of the command that are existing paths (or ``key=PATH``), the program given by path,
    and the installation of an interpreter in a real installation's ``bin`` folder. Raises
    :class:`SandboxError` for a path that cannot be bound safely (:func:`refusal`).
    """
    extra = list(protected)
    guarded, sealed = protected_paths(cwd, extra), sealed_paths(cwd, extra)
    keep: list[str] = []
    links: list[tuple[str, str]] = []
    for path in sorted(set(_named(argv, cwd)), key=len):
        real = os.path.realpath(path)
        if not os.path.exists(real) and refusal_in(real, sealed):  # a log file a later game would bind
            raise SandboxError(f"--sandbox: cannot bind {path!r}: {real} {refusal_in(real, sealed)}")
        if not os.path.exists(real) or _covered(real, keep) or _in_system(real) or _covered(path, OWN):
            continue
        why = refusal(real, guarded, sealed)
        if why is not None:
            raise SandboxError(f"--sandbox: cannot bind {path!r}: {real} {why}; name only the bot's files")
        keep = [k for k in keep if not k.startswith(real + "/")] + [real]
    for path in sorted(set(_named(argv, cwd)), key=len):
        real = os.path.realpath(path)
        if path != real and _covered(real, keep) and not _in_box(path, keep):
            links.append((real, path))
    return sorted(keep, key=len), links


def _in_box(path: str, keep: Sequence[str]) -> bool:
    """Whether ``path`` is in the box already: in a bound or system folder (through its links)."""
    folder = os.path.realpath(os.path.dirname(path))
    return any(_covered(p, keep) or _in_system(p) for p in (path, folder))


def _named(argv: Sequence[str], cwd: str) -> list[str]:
    """The absolute paths the command names, and its program's installations."""
    values = [w.partition("=")[2] if "=" in w else w for w in argv[1:]]  # key=PATH names PATH
    words = [os.path.abspath(os.path.join(cwd, w)) for w in values if w and not w.startswith("-")]
    if argv and os.sep in argv[0]:
        program = os.path.abspath(os.path.join(cwd, argv[0]))
        words.append(program)
        for exe in {program, os.path.realpath(program)}:
            if os.path.basename(os.path.dirname(exe)) == "bin":
                words += installations(os.path.dirname(os.path.dirname(exe)))
    return words


def installations(prefix: str) -> list[str]:
    """``prefix`` when it is a real installation, with the base one of a virtual environment."""
    real = os.path.realpath(prefix)
    if real == "/" or _in_system(real) or not is_installation(real):
        return []  # the system's own (/usr, /) is in the box already
    home = _venv_home(prefix)
    base = os.path.dirname(home) if home else None
    return [prefix] + ([base] if base and is_installation(base) else [])


def is_installation(prefix: str) -> bool:
    """Whether ``prefix`` holds an installation (a marker of :data:`INSTALL_MARKERS`, or this Python's).

    Only then does a program in ``prefix/bin`` bring it: any other folder above a ``bin`` (the
    working folder, a home) is the operator's, with results and seeds in it.
    """
    real = os.path.realpath(prefix)
    ours = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    return real in ours or any(glob.glob(os.path.join(glob.escape(real), m)) for m in INSTALL_MARKERS)


def _venv_home(prefix: str) -> str | None:
    """The ``home`` (base interpreter's folder) a virtual environment's ``pyvenv.cfg`` names, if any."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    return os.path.realpath(value.strip())
    except OSError:
        pass
    return None


def _covered(path: str, keep: Sequence[str]) -> bool:
    return any(path == k or path.startswith(k + "/") for k in keep)


def _in_system(path: str) -> bool:
    """Whether the box has ``path`` already (the system folders, the allowed ``/etc`` files)."""
    return _covered(path, [*SYSTEM_DIRS, *ETC_FILES, *(t for t in TOP_LINKS if not os.path.islink(t))])


# ---------------------------------------------------------------- the keyring
AUDIT_ARCH = {  # seccomp_data.arch -> the numbers of add_key, request_key, keyctl
    0xC000003E: (248, 249, 250),  # x86_64
    0x40000003: (286, 287, 288),  # i386 (also reachable from x86_64 by int 0x80)
    0xC00000B7: (217, 218, 219),  # aarch64
    0x40000028: (309, 310, 311),  # arm (aarch64's 32-bit mode)
    0xC00000F3: (217, 218, 219),  # riscv64
}
HOST_ARCHES = {"x86_64": 0xC000003E, "amd64": 0xC000003E, "aarch64": 0xC00000B7, "arm64": 0xC00000B7,
               "riscv64": 0xC00000F3}
X32_BIT = 0x40000000  # x86_64's x32 system calls: refused whole
_LD_W_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
RET_ALLOW, RET_EPERM = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM


def seccomp_filter() -> bytes:
    """A classic BPF program (``struct sock_filter`` array) that fails the keyring calls with EPERM.

    Every architecture in :data:`AUDIT_ARCH` is checked, so a bot cannot reach the keyring through
    another system-call table; a call of any other architecture is refused.
    """
    def op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
        return struct.pack("=HBBI", code, jt, jf, k)

    prog = [op(_LD_W_ABS, 4)]  # seccomp_data.arch
    for arch, calls in AUDIT_ARCH.items():
        block = [op(_LD_W_ABS, 0)]  # seccomp_data.nr
        if arch == 0xC000003E:
            block.append(op(_JGE, X32_BIT, len(calls) + 1, 0))
        block += [op(_JEQ, nr, len(calls) - i, 0) for i, nr in enumerate(calls)]
        block += [op(_RET, RET_ALLOW), op(_RET, RET_EPERM)]
        prog += [op(_JEQ, arch, 0, len(block))] + block
    prog.append(op(_RET, RET_EPERM))
    return b"".join(prog)


def host_problem() -> str | None:
    """Why the keyring filter cannot guard this machine (a processor it does not know), or None."""
    machine = platform.machine().lower()
    known = machine in HOST_ARCHES
    return None if known else f"the sandbox's keyring filter does not know {machine!r} processors"


# -------------------------------------------------------- the private files
_FILES: dict[int, str] = {}  # pid -> its private folder (the filter, passwd, group)


def private_dir() -> str:
    """This process's private (0700) folder with the filter and the box's ``passwd`` and ``group``."""
    d = _FILES.get(os.getpid())
    if d is None or not os.path.exists(os.path.join(d, "group")):
        d = tempfile.mkdtemp(prefix="sixtysix-sandbox-")
        uid, gid = os.getuid(), os.getgid()
        name = "root" if uid == 0 else "bot"
        _write(d, "seccomp.bpf", seccomp_filter())
        _write(d, "passwd", f"{name}:x:{uid}:{gid}:{name}:/tmp:/bin/sh\n".encode())
        _write(d, "group", f"{name}:x:{gid}:\n".encode())
        _FILES[os.getpid()] = d
        # Removed at exit, an arena worker's too (multiprocessing ends its workers without atexit).
        mp_util.Finalize(None, shutil.rmtree, args=(d,), kwargs={"ignore_errors": True}, exitpriority=0)
    return d


def _write(folder: str, name: str, data: bytes) -> None:
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)



# -------------------------------------------------------------- the command
def sandbox_argv(argv: Sequence[str], cwd: str | None = None,
                 protected: Iterable[str | None] = ()) -> list[str]:
    """``argv`` wrapped in bubblewrap (see the module docstring), run from ``cwd`` (default: here).

    ``protected``: more paths never to bind (besides :func:`protected_paths`). Raises
    :class:`SandboxError` for a command that cannot be boxed safely.
    """
    cwd = os.path.abspath(cwd or os.getcwd())
    binds, links = bind_plan(argv, cwd, protected)
    d = private_dir()
    cmd = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
           "--cap-drop", "ALL", "--seccomp", "9", "--clearenv", "--proc", "/proc", "--remount-ro", "/proc",
           "--dev", "/dev", "--tmpfs", "/tmp", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    cmd += [a for name in KEPT_ENV if name in os.environ for a in ("--setenv", name, os.environ[name])]
    cmd += system_binds()
    cmd += ["--ro-bind", os.path.join(d, "passwd"), "/etc/passwd", "--ro-bind", os.path.join(d, "group"),
            "/etc/group"]
    for path in binds:
        cmd += ["--ro-bind", path, path]
    for target, link in links:
        cmd += ["--symlink", target, link]
    return ["/bin/sh", "-c", SECCOMP_EXEC, os.path.join(d, "seccomp.bpf"), *cmd,
            "--dir", cwd, "--chdir", cwd, "--", *argv]


def system_binds() -> list[str]:
    """The bwrap options for the system: ``/usr``, the top-level links, the ``/etc`` files programs need."""
    cmd: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
    for link in TOP_LINKS:
        if os.path.islink(link):
            cmd += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            cmd += ["--ro-bind", link, link]
    for path in ETC_FILES:
        if os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    return cmd


@functools.lru_cache(maxsize=1)
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots here, or None when it can (tried once per process)."""
    if not sys.platform.startswith("linux"):
        return "the sandbox needs Linux (bubblewrap)"
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    problem = host_problem()
    if problem is not None:
        return problem
    try:
        argv = sandbox_argv(["/bin/true"], cwd="/tmp")
        r = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap does not run: {e}"
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot create its namespaces here: {why[-1] if why else r.returncode}"
    return None


def check_sandbox(argvs: Iterable[Sequence[str]] = (), protected: Iterable[str | None] = ()) -> None:
    """Raise a one-line ValueError when bots cannot be sandboxed here, or these commands not safely."""
    problem = sandbox_problem()
    if problem is not None:
        raise SandboxError(f"--sandbox: {problem}")
    check_binds(argvs, protected)


def check_binds(argvs: Iterable[Sequence[str]], protected: Iterable[str | None] = ()) -> None:
    """Raise :class:`SandboxError` for a command whose binds are not safe, run from here (no bwrap needed)."""
    extra = list(protected)
    for argv in argvs:
        bind_plan(argv, os.getcwd(), extra)
