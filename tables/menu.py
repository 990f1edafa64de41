"""The bots a browser may choose: a fixed menu, checked as plain text before anything runs.

A browser never hands the server a bot spec to interpret. What it sends
(``vs``, ``hint``) must be either

- one of the operator's own specs (``--vs``, ``--hint``, ``--bots``),
  matched as the exact whole string, never extended with parameters; or
- a built-in bot of :data:`MENU` with parameters from its short list, each
  value written as plain digits (or one of a few words) within the cap
  below.

The check is a regular expression and a table lookup: nothing is handed to
``agents.registry``, imported, or started before a spec has passed it, so a
spec that names a program (``exec:``), a file (``bot.py:Class``), a module
(``pkg.mod:Class``), an installed plug-in, or a checkpoint path is refused
without being read. The caps keep a browser's bot to about a second of
thinking per move (``pimc:worlds=128,depth=2`` and
``ismcts:iterations=5000`` measured at 1.2 s and 1.4 s on one core of the
development machine, ``guided:worlds=128,depth=2`` at 0.2 s of CPU time in
the worst of 59 decisions of random deals, at load 4); ``move_time`` is
capped at :data:`MAX_MOVE_TIME`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection
from dataclasses import dataclass

from sixtysix_env.variants import PRESETS, SWITCHES, RulesConflictError, rules_from_spec

MAX_SPEC_CHARS = 120  # longer text is refused unread
MAX_MOVE_TIME = 2.0  # seconds: the most thinking time per move a browser may ask for
INT = re.compile(r"[0-9]{1,6}")
NUMBER = re.compile(r"[0-9]{1,6}(\.[0-9]{1,6})?")
SPEC = re.compile(r"([a-z]{1,16})(?::([a-z_]{1,16}=[a-z0-9.]{1,13}(?:,[a-z_]{1,16}=[a-z0-9.]{1,13}){0,5}))?")


class MenuError(ValueError):
    """A bot a browser may not choose; the message says why, in one line."""


@dataclass(frozen=True)
class Cap:
    """One parameter a browser may set: whole numbers (``integer``) or decimals from
    ``low`` to ``high``, or one of ``words``."""

    low: float = 0
    high: float = 0
    integer: bool = True
    words: tuple[str, ...] = ()

    def check(self, raw: str) -> bool:
        if self.words:
            return raw in self.words
        if not (INT if self.integer else NUMBER).fullmatch(raw):
            return False
        return self.low <= float(raw) <= self.high

    def describe(self) -> str:
        if self.words:
            return "|".join(self.words)
        return f"{self.low:g}..{self.high:g}"


MOVE_TIME = Cap(0.01, MAX_MOVE_TIME, integer=False)
BIT = Cap(0, 1)
# The built-in bots a browser may name, and the parameters it may set on each. ``ppo`` and ``guided``
# play the shipped checkpoint only (no path); ``oracle`` cheats, so it may be an opponent, never a hint.
MENU: dict[str, dict[str, Cap]] = {
    "random": {},
    "heuristic": {},
    "pimc": {"worlds": Cap(1, 128), "depth": Cap(1, 2), "infer": BIT, "move_time": MOVE_TIME},
    "ismcts": {"iterations": Cap(1, 5000), "c": Cap(0, 10, integer=False), "worlds": Cap(1, 128),
               "infer": BIT, "move_time": MOVE_TIME},
    "guided": {"worlds": Cap(1, 128), "depth": Cap(1, 2), "infer": BIT, "move_time": MOVE_TIME},
    "oracle": {"depth": Cap(1, 2)},
    "ppo": {"assist": Cap(words=("full", "rules", "none"))},
}
CHEATS = frozenset({"oracle"})


def describe_menu() -> dict[str, dict[str, str]]:
    """The menu as the API lists it: bot -> parameter -> allowed values."""
    return {name: {k: c.describe() for k, c in params.items()} for name, params in MENU.items()}


def menu_spec(text: object, operator: frozenset[str] | set[str], what: str) -> str:
    """``text`` if a browser may choose it (see the module docstring), else :class:`MenuError`.

    Pure string work: nothing is parsed by the bot registry, imported or started here.
    """
    if not isinstance(text, str) or not text or len(text) > MAX_SPEC_CHARS:
        raise MenuError(f"{what} must be a bot from the menu (GET /api/bots), e.g. 'heuristic' or "
                        f"'pimc:worlds=32'")
    if text in operator:
        return text
    m = SPEC.fullmatch(text)
    if m is None or m.group(1) not in MENU:
        raise MenuError(f"{what}: a browser may choose only the built-in bots of the menu "
                        "(GET /api/bots) or the server's own exact specs")
    name, caps = m.group(1), MENU[m.group(1)]
    seen: set[str] = set()
    for item in (m.group(2) or "").split(",") if m.group(2) else []:
        key, _, raw = item.partition("=")
        cap = caps.get(key)
        if cap is None:
            raise MenuError(f"{what}: {name} takes no parameter {key!r} here "
                            f"(allowed: {', '.join(caps) or 'none'})")
        if key in seen:
            raise MenuError(f"{what}: parameter {key!r} given twice")
        seen.add(key)
        if not cap.check(raw):
            raise MenuError(f"{what}: {name}:{key} must be {cap.describe()} here")
    return text


def _rules_menu() -> tuple[str, ...]:
    """Every preset with every combination of switches its game allows, as canonical specs."""
    out = []
    for name in PRESETS:
        for n in range(len(SWITCHES) + 1):
            for switches in itertools.combinations(SWITCHES, n):
                try:
                    out.append(rules_from_spec("+".join((name, *switches))).spec)
                except RulesConflictError:
                    continue
    return tuple(out)


# The rules a browser may choose (``rules`` of a new game): whole canonical spec strings only.
RULES_MENU: tuple[str, ...] = _rules_menu()
MAX_RULES_CHARS = 64  # longer text is refused unread


def menu_rules(text: object, allowed: Collection[str]) -> str:
    """``text`` if it is one of the ``allowed`` rules specs (the whole exact string), else
    :class:`MenuError`. Compared as text: a browser's rules are never parsed."""
    if isinstance(text, str) and len(text) <= MAX_RULES_CHARS and text in allowed:
        return text
    raise MenuError(f"rules must be one of {', '.join(allowed)} (GET /api/bots lists them)")


__all__ = ["CHEATS", "MAX_MOVE_TIME", "MENU", "MenuError", "RULES_MENU", "describe_menu", "menu_rules",
           "menu_spec"]
