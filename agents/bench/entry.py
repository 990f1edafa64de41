"""How the bench runs the bot it rates: its kind, where its code runs, and what is refused.

Three kinds of bot (:func:`bot_kind`): ``built-in`` (the project's own, run
in the arena's process), ``external`` (``exec:``, a process of its own) and
``plug-in`` (a Python class from outside the package, :mod:`agents.plugins`).
A plug-in is untrusted code: by default it runs out of process through
:mod:`agents.host`, in the sandbox, a fresh process per game, so it
sees only its player's view (no game state, no arena frame or memory, no
class attribute from an earlier game). Only ``trusted`` (the operator's word)
runs it in the arena's process, and every report says so.

Refused, each with one line before any game: a bot that ``requires_state``
(it would see the true state, or cannot play on a view), an out-of-process bot
where the sandbox cannot run unless the operator gives ``--no-sandbox``, and
one whose CPU, memory and processes cannot be metered and bounded
(:func:`~agents.protocol.cgroups.metering_problem`) unless ``--unmetered``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass

from agents import plugins
from agents.core.lifetime import prctl
from agents.external import parse_exec
from agents.protocol.cgroups import BotGroup, CgroupError, metering, metering_problem, new_group
from agents.protocol.process import child_setup
from agents.protocol.sandbox import check_sandbox, sandbox_argv, sandbox_problem
from agents.registry import KNOWN_AGENTS

BUILT_IN, PLUGIN, EXTERNAL = "built-in", "plug-in", "external"
IN_PROCESS, SANDBOXED, UNSANDBOXED = "in-process", "sandboxed process", "process, no sandbox"
EXEC = "exec:"
AUTO = "auto"
PROJECT_PACKAGES = ("agents", "sixtysix_env", "tables", "training")  # what the host imports, bound read-only
CHECK_TIMEOUT = 60.0  # seconds for the host's --check (an import under load)
HOST_START = 30  # start_timeout of a hosted plug-in: Python and the project import first


class BenchTrustError(ValueError):
    """A bot the bench will not rate as it stands (it reads the true state, or cannot be hosted)."""


class BenchSandboxError(ValueError):
    """An out-of-process bot where the sandbox cannot run, without ``--no-sandbox``."""


class BenchMeteringError(ValueError):
    """An untrusted bot whose CPU, memory and processes cannot be bounded here, without ``--unmetered``."""


@dataclass(frozen=True)
class Entry:
    """The benched bot as the arena plays it: the spec given, the spec played, and its conditions."""

    spec: str  # as the operator gave it (the name in every report)
    played: str  # what the arena plays (a hosted plug-in: an exec: spec)
    kind: str  # BUILT_IN, PLUGIN or EXTERNAL
    isolation: str  # IN_PROCESS, SANDBOXED or UNSANDBOXED
    trusted: bool  # the operator's --trusted-in-process (in-process plug-ins only)
    metering: str  # how its CPU is metered: "in-process", or agents.protocol.cgroups.metering()
    unmetered: bool = False  # out of process with metering_problem() accepted by --unmetered

    @property
    def sandbox(self) -> bool:
        return self.isolation == SANDBOXED

    def label(self) -> str:
        """``"plug-in, trusted, in-process"``: the kind as every report shows it."""
        return ", ".join([self.kind, *(["trusted"] if self.trusted else []), self.isolation])

    def to_dict(self) -> dict[str, object]:
        return {"bot_kind": self.kind, "isolation": self.isolation, "trusted": self.trusted,
                "sandbox": self.sandbox, "metering": self.metering, "unmetered": self.unmetered}


def bot_kind(spec: str) -> str:
    """``built-in``, ``external`` or ``plug-in``, from the spec alone (no plug-in code is imported)."""
    text = spec.strip()
    if text.lower().startswith(EXEC):
        return EXTERNAL
    return BUILT_IN if text.partition(":")[0].strip().lower() in KNOWN_AGENTS else PLUGIN


def plan(spec: str, trusted: bool = False, sandbox: bool | str = AUTO, unmetered: bool = False) -> Entry:
    """How to bench ``spec``, or a one-line named error saying why it is refused (before any game)."""
    kind = bot_kind(spec)
    if kind == BUILT_IN or (kind == PLUGIN and trusted):
        refuse_state_readers(spec, kind)
        return Entry(spec, spec, kind, IN_PROCESS, kind == PLUGIN, "in-process")
    boxed = want_sandbox(spec, sandbox)
    lax = check_metering(spec, unmetered)
    played = spec if kind == EXTERNAL else hosted(spec, boxed)
    if kind == PLUGIN:
        check_hostable(spec, played)
    return Entry(spec, played, kind, SANDBOXED if boxed else UNSANDBOXED, False, metering(), lax)


def want_sandbox(spec: str, sandbox: bool | str) -> bool:
    """Whether an out-of-process bot runs sandboxed: as asked; by default when bubblewrap works here,
    else refused (never a silent fall back to running it as the operator)."""
    if sandbox == AUTO:
        problem = sandbox_problem()
        if problem is not None:
            raise BenchSandboxError(f"bench {spec}: the sandbox cannot run here ({problem}); the bench runs "
                                    "untrusted bots only in it (give --no-sandbox to run it as you anyway)")
        return True
    if sandbox:
        check_sandbox()
    return bool(sandbox)


def check_metering(spec: str, unmetered: bool) -> bool:
    """True when metering is incomplete and ``unmetered`` accepts it; refused when not accepted."""
    problem = metering_problem()
    if problem is None:
        return False
    if not unmetered:
        raise BenchMeteringError(f"bench {spec}: the bot's CPU, memory and processes cannot be metered and "
                                 f"bounded here ({problem}); give --unmetered to rate it anyway")
    return True


def refuse_state_readers(spec: str, kind: str) -> None:
    """Refuse an in-process bot that ``requires_state``: it would be handed the true game state."""
    if kind == BUILT_IN:
        target = KNOWN_AGENTS[spec.strip().partition(":")[0].strip().lower()].target
        reads = getattr(plugins.load(target), "requires_state", False)
    else:
        from agents.registry import make_agent  # trusted: its code may run here

        reads = getattr(make_agent(spec), "requires_state", False)
    if reads:
        raise BenchTrustError(f"bench {spec}: the bot requires the true game state (requires_state); a "
                              "bench rates play on the player's view only")


# ------------------------------------------------------------------ hosting
def hosted(spec: str, sandbox: bool) -> str:
    """The ``exec:`` spec that plays plug-in ``spec`` through :mod:`agents.host`."""
    target, params, paths = locate(spec)
    inner = target + (f":{params}" if params else "")
    words = [sys.executable, "-m", "agents.host"]
    for path in [*project_paths(), *paths]:
        words += ["--path", path]
    opts = f"start_timeout={HOST_START}" + (",sandbox=1" if sandbox else "")
    return f"{EXEC}{opts} " + shlex.join([*words, inner])


def locate(spec: str) -> tuple[str, str, list[str]]:
    """``(target, params, paths)`` of a plug-in spec without importing it: a file's absolute path,
    a module's top-level package folder or file, an installed name's target."""
    name, _, rest = spec.strip().partition(":")
    target = plugins.installed().get(name.strip().lower())
    params = rest
    if target is None:
        split = plugins.split_target(spec.strip())
        if split is None:
            raise plugins.PluginError(f"bench {spec}: no built-in, exec: or plug-in bot of that name")
        target, params = split
    where, _, attr = target.rpartition(":")
    if where.endswith(".py"):
        path = os.path.abspath(os.path.expanduser(where))
        if not os.path.isfile(path):
            raise plugins.PluginError(f"bot file {path!r} does not exist (bot {spec!r})")
        return f"{path}:{attr}", params, [path]
    return target, params, [module_path(where.split(".")[0], spec)]


def module_path(top: str, spec: str) -> str:
    """The folder of top-level package ``top`` (or its module file), found without running it."""
    found = importlib.util.find_spec(top)
    if found is None:
        raise plugins.PluginError(f"cannot find module {top!r} of bot {spec!r}")
    if found.submodule_search_locations:
        return list(found.submodule_search_locations)[0]
    if not found.origin or not os.path.isfile(found.origin):
        raise plugins.PluginError(f"module {top!r} of bot {spec!r} is not a file the sandbox can bind")
    return found.origin


def project_paths() -> list[str]:
    """The project's package folders, which the host imports."""
    return [module_path(p, p) for p in PROJECT_PACKAGES if importlib.util.find_spec(p) is not None]


def check_hostable(spec: str, played: str) -> None:
    """Build the plug-in once in its own process (sandboxed and in a bot's control group, as it will
    play): refuse it with the host's one line when it cannot be hosted (it requires the state, it fails
    to import or build)."""
    s = parse_exec(played[len(EXEC):])
    argv = [*s.argv[:-1], "--check", s.argv[-1]]
    group = _check_group()  # the plug-in's code runs here: bounded like a game's bot, killed whole at the end
    joins = group.procs_files if group is not None else ()
    linux = sys.platform.startswith("linux")
    preexec = functools.partial(child_setup, os.getpid(), prctl(), joins) if linux else None
    try:
        r = subprocess.run(sandbox_argv(argv) if s.sandbox else argv, capture_output=True, text=True,
                           timeout=CHECK_TIMEOUT, stdin=subprocess.DEVNULL, check=False, preexec_fn=preexec)
    except subprocess.TimeoutExpired:
        raise BenchTrustError(f"bench {spec}: the plug-in did not build within {CHECK_TIMEOUT:g} s") from None
    finally:
        if group is not None:
            group.kill()
            group.remove()
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines()
        why = lines[-1] if lines else f"exit status {r.returncode}"
        raise BenchTrustError(f"bench {spec}: cannot host the plug-in: {why}")


def _check_group() -> BotGroup | None:
    """A bot's control group for the build check, or None where there is none (``--unmetered``)."""
    try:
        return new_group() if sys.platform.startswith("linux") else None
    except CgroupError:
        return None
