"""The sandbox of external bots: bubblewrap (``bwrap``) around the bot's command.

``exec:sandbox=1,...`` (or the arena's and the bench's ``--sandbox``) runs
the bot as ``bwrap ... COMMAND``. Inside, the bot has:

- no network (its own empty network namespace), no other process in sight
  (its own process namespace and ``/proc``), its own IPC and host name;
- the system read-only (``/usr``, ``/etc`` and the top-level links to them),
  a private empty ``/tmp`` (also its home and working folder's parent);
- a fresh environment: only ``PATH``, ``LANG`` and ``HOME``/``TMPDIR``
  (``/tmp``), never the arena's variables (:data:`KEPT_ENV`);
- of the rest of the file system only what its command line names: every
  word of the command that is an existing path is bound read-only at the
  same place (a folder whole, a file alone), and for a program given by path
  in a ``bin`` folder its installation and virtual environment (see
  :func:`named_paths`); so results files, reports, logs and the project's
  other files are not there. A program elsewhere (``./bot.py``) is bound
  alone, never the folders around it.

It does not stop a bot from using all the CPU and memory it is allowed
(the CPU time control and the operating system's limits do that), from
writing notes into its private ``/tmp`` during one game (each game is a
fresh process with a fresh ``/tmp``), or from exploiting a kernel bug.
Nothing is written to a named path: a folder given on the command line is
readable, so name only the bot's own files. :func:`sandbox_problem` says why
the sandbox cannot run on this machine (no ``bwrap``, or user namespaces
disabled), checked before any game.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence

SYSTEM_DIRS = ("/usr", "/etc")
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
KEPT_ENV = ("PATH", "LANG")  # the arena's variables a sandboxed bot still gets (when set); no others


def sandbox_argv(argv: Sequence[str], cwd: str | None = None) -> list[str]:
    """``argv`` wrapped in bubblewrap (see the module docstring), run from ``cwd`` (default: here)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--clearenv", "--proc", "/proc", "--dev", "/dev",
           "--tmpfs", "/tmp", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    for name in KEPT_ENV:
        if name in os.environ:
            cmd += ["--setenv", name, os.environ[name]]
    for d in SYSTEM_DIRS:
        if os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
    for link in TOP_LINKS:
        if os.path.islink(link):
            cmd += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            cmd += ["--ro-bind", link, link]
    for path in named_paths(argv, cwd):
        cmd += ["--ro-bind", path, path]
    return [*cmd, "--dir", cwd, "--chdir", cwd, "--", *argv]


def named_paths(argv: Sequence[str], cwd: str) -> list[str]:
    """The existing paths the command names, outside the system folders.

    Words of the command that are paths (or ``key=PATH``), and for a program given by path
    the program itself, and when it lies in a ``bin`` folder (an interpreter) its installation
    (the folder above that ``bin``) and virtual environment. Only then: the folder above any
    other program's folder (``./bots/bot.py`` -> ``.``) would bind the run's results with it.
    A program given by name is found on ``PATH`` inside the sandbox, among the system's programs.
    """
    values = [w.partition("=")[2] if "=" in w else w for w in argv[1:]]  # key=PATH names PATH
    words = [os.path.join(cwd, w) for w in values if w and not w.startswith("-")]
    if argv and os.sep in argv[0]:
        program = os.path.abspath(os.path.join(cwd, argv[0]))
        real = os.path.realpath(program)
        words += [program, real]
        for exe in {program, real}:
            if os.path.basename(os.path.dirname(exe)) == "bin":
                words.append(os.path.dirname(os.path.dirname(exe)))
                env = python_env(exe)
                words += [env] if env else []
    system = tuple(d + "/" for d in SYSTEM_DIRS)
    found = sorted({os.path.abspath(w) for w in words}, key=len)
    keep: list[str] = []
    for p in found:  # a path inside one already bound comes with it
        if os.path.exists(p) and not p.startswith(system) and p != "/" and not p.startswith(
                tuple(k + "/" for k in keep)):
            keep.append(p)
    return keep


def python_env(program: str) -> str | None:
    """The virtual environment a program lives in (a parent folder with ``pyvenv.cfg``), if any."""
    d = os.path.dirname(os.path.abspath(program))
    for _ in range(3):
        if os.path.exists(os.path.join(d, "pyvenv.cfg")):
            return d
        d = os.path.dirname(d)
    return None


@functools.lru_cache(maxsize=1)
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots here, or None when it can (tried once per process)."""
    if not sys.platform.startswith("linux"):
        return "the sandbox needs Linux (bubblewrap)"
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    try:
        r = subprocess.run(sandbox_argv(["/bin/true"]), capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap does not run: {e}"
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot create its namespaces here: {why[-1] if why else r.returncode}"
    return None


def check_sandbox() -> None:
    """Raise a one-line ValueError when bots cannot be sandboxed on this machine."""
    problem = sandbox_problem()
    if problem is not None:
        raise ValueError(f"--sandbox: {problem}")
