"""The checks a config field declares (:func:`training.config.knob`): ranges, choices, specs, names.

Each takes the key and the value (its type already checked) and raises a
:class:`~training.config_file.ConfigError` naming the key. Every int count is
also held below a ceiling (:data:`MAX_STEPS`, or a smaller one where the
value is allocated or started at once), so a typo of many digits is an error
when the config is read, not a run that never ends or fills the memory.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from agents import KNOWN_AGENTS, parse_spec
from agents.arena.options import MAX_COUNT
from agents.core.nets import check_hidden
from sixtysix_env.variants import rules_from_spec

from .config_file import ConfigError

VALUE_TEACHER = "pimc-values"  # the teacher that distils PIMC's action values (not a bot spec)
MAX_STEPS = 10**12  # the most steps, updates or iterations any count may ask for (years of training)
MAX_TABLES = 1 << 16  # tables stepped together, or steps per table per update: each is allocated at once
MAX_BATCH = 1 << 24  # decisions per batch (num_envs * rollout_steps), held in memory at once
MAX_PROCESSES = 1024  # worker processes or threads: each is started at once

Check = Callable[[str, Any], None]  # raises ConfigError naming the key if the value cannot make a run


def shown(value: Any) -> str:
    """``value`` for an error message: its repr, cut short (an int of thousands of digits, as a
    checkpoint's config may hold, has none: Python refuses to convert it)."""
    try:
        return repr(value)[:80]
    except ValueError:
        return f"an int of {value.bit_length()} bits" if isinstance(value, int) else type(value).__name__


def bad_value(key: str, value: Any, want: str) -> ConfigError:
    return ConfigError(f"config key {key!r} must be {want}, got {shown(value)}")


def at_least(low: int | float, most: int = MAX_STEPS) -> Check:
    """Values >= ``low`` (NaN fails); ints also at most ``most``."""
    def check(key: str, value: Any) -> None:
        if not value >= low:
            raise bad_value(key, value, f">= {low}")
        if isinstance(value, int) and value > most:
            raise bad_value(key, value, f"at most {most:,}")
    return check


def above(low: float) -> Check:
    """Values > ``low`` (NaN fails)."""
    def check(key: str, value: Any) -> None:
        if not value > low:
            raise bad_value(key, value, f"> {low}")
    return check


def between(low: float, high: float, low_open: bool = False) -> Check:
    """Values in [low, high], or (low, high] with ``low_open`` (NaN fails)."""
    def check(key: str, value: Any) -> None:
        if not (low < value if low_open else low <= value) or not value <= high:
            raise bad_value(key, value, f"in {'(' if low_open else '['}{low}, {high}]")
    return check


def one_of(choices: tuple[str, ...]) -> Check:
    def check(key: str, value: Any) -> None:
        if value not in choices:
            raise bad_value(key, value, f"one of {choices}")
    return check


def sizes(key: str, value: list[int]) -> None:
    """Hidden layer sizes within the bound every checkpoint is held to (``agents.core.nets.check_hidden``)."""
    try:
        check_hidden(value, f"config key {key!r}")
    except ValueError as e:
        raise ConfigError(str(e)) from None


def bot_spec(key: str, value: str, allowed: tuple[str, ...] = ()) -> None:
    """An agent spec that ``agents.parse_spec`` accepts (or one of ``allowed``)."""
    if value in allowed:
        return
    try:
        parse_spec(value)
    except ValueError as e:
        either = " or ".join(repr(a) for a in allowed)
        raise ConfigError(f"config key {key!r} must be {either + ' or ' if either else ''}an agent spec, "
                          f"got {value!r}: {e}") from None


def builtin_bot(spec: str) -> bool:
    """Whether ``spec`` names a bot of this package with plain parameters, so nothing it starts,
    imports or reads comes from outside: no ``exec:`` program, no plug-in, module or ``.py`` file,
    no checkpoint ``path`` (``ppo:PATH``, ``guided:PATH``). Only a built-in name is parsed:
    parsing any other spec imports its code. Not a bot at all ('', ``pimc-values``): nothing runs."""
    if spec in ("", VALUE_TEACHER):
        return True
    info = KNOWN_AGENTS.get(spec.strip().partition(":")[0].strip().lower())
    if info is None or info.raw:
        return False
    try:
        _, values = parse_spec(spec)
    except ValueError:
        return True  # it runs nothing: the field's own check names the problem
    return values.get("path") is None


def rules_spec(key: str, value: str) -> None:
    """A rule preset spec of docs/rules-variants.md (``sixtysix_env.variants.rules_from_spec``)."""
    try:
        rules_from_spec(value)
    except ValueError as e:
        raise ConfigError(f"config key {key!r}: {e}") from None


def teacher_spec(key: str, value: str) -> None:
    bot_spec(key, value, (VALUE_TEACHER, ""))


def folder_name(key: str, value: str) -> None:
    """A name that becomes one folder below ``run_dir``: no separators, not ``.`` or ``..``."""
    seps = {"/", "\\", "\0", os.sep, os.altsep or "/"}
    if value in ("", ".", "..") or any(c in value for c in seps):
        raise bad_value(key, value, "a plain folder name (no path separators, not '', '.' or '..')")


def folder_path(key: str, value: str) -> None:
    if not value or "\0" in value:
        raise bad_value(key, value, "a folder path")


AT_LEAST_1, AT_LEAST_0 = at_least(1), at_least(0)
TABLES = at_least(1, MAX_TABLES)
PROCESSES, PROCESSES_OR_0 = at_least(1, MAX_PROCESSES), at_least(0, MAX_PROCESSES)
GAMES = at_least(0, MAX_COUNT)  # matches per evaluation: what the arena plays at most (0: none)
