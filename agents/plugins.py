"""Bots from outside this package: by import path, from a file, or registered by an installed package.

Three spellings, all accepted wherever a bot spec is (``make_agent``, the
arena, every CLI), each optionally followed by ``:key=value,...``
constructor parameters (values are Python literals, else strings):

- ``mypkg.bots:MyBot`` -- a class (or factory) by import path;
- ``path/to/bot.py:MyBot`` -- a class in a file (not on ``sys.path``);
- ``mybot`` -- a bot an installed package registers in the entry-point
  group ``sixtysix.bots`` (``[project.entry-points."sixtysix.bots"]
  mybot = "mypkg.bots:MyBot"`` in its ``pyproject.toml``); ``sixtysix bots``
  lists them.

They never clash with the built-in specs: a built-in name is looked up
first, the built-in bots' parameters always hold ``=`` (``pimc:worlds=30``)
or follow a positional path (``ppo:PATH``), while an import target's first
part after the module is a bare attribute name.

The factory is called as ``factory(seed=seed, **params)`` and must return
an object with ``act(view) -> action`` and ``reset(seed)``
(:class:`agents.base.BaseAgent` gives both).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import re
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

GROUP = "sixtysix.bots"
_ITEMS = re.compile(r"""(?:[^,'"]|'[^']*'|"[^"]*")+""")  # comma-separated, commas in quotes kept


class PluginError(ValueError):
    """A plug-in bot that cannot be found or loaded; the message says which and why."""


def installed() -> dict[str, str]:
    """Bots registered by installed packages: name -> ``module:attribute``."""
    return {ep.name.lower(): ep.value for ep in entry_points(group=GROUP)}


def split_target(spec: str) -> tuple[str, str] | None:
    """``(target, params)`` if ``spec`` names a class by import path or file, else None.

    ``mypkg.bots:MyBot:depth=3`` -> ``("mypkg.bots:MyBot", "depth=3")``.
    """
    head, sep, rest = spec.partition(":")
    if not sep or not head or "=" in head:
        return None
    attr, _, params = rest.partition(":")
    if not attr.isidentifier():
        return None
    return f"{head}:{attr}", params


def load(target: str) -> Any:
    """The object ``module:attribute`` or ``path/file.py:attribute`` names."""
    where, _, attr = target.rpartition(":")
    if where.endswith(".py"):
        module = _module_from_file(Path(where))
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as e:
            raise PluginError(f"cannot import module {where!r} of bot {target!r}: {e}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise PluginError(f"module {where!r} has no {attr!r} (bot {target!r})") from None


def _module_from_file(path: Path) -> Any:
    """Import a bot file once per process under a name derived from its absolute path."""
    path = path.expanduser().resolve()
    if not path.is_file():
        raise PluginError(f"bot file {str(path)!r} does not exist")
    name = "sixtysix_plugin_" + hashlib.blake2b(str(path).encode(), digest_size=6).hexdigest()
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"cannot load bot file {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise PluginError(f"bot file {str(path)!r} failed to import: {type(e).__name__}: {e}") from None
    return module


def parse_params(text: str, spec: str) -> dict[str, Any]:
    """``key=value,...`` with Python-literal values (``3``, ``0.5``, ``'a, b'``, ``True``), else strings."""
    params: dict[str, Any] = {}
    for item in filter(str.strip, _ITEMS.findall(text)):
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise PluginError(f"bad parameter {item!r} in {spec!r}: expected key=value")
        if key in params:
            raise PluginError(f"parameter {key!r} given twice in {spec!r}")
        try:
            params[key] = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            params[key] = raw.strip()
    return params


def build(target: str, params: dict[str, Any], seed: int | None, spec: str) -> Any:
    """Call the factory ``target`` names; a bad signature is a :class:`PluginError`."""
    factory = load(target)
    if not callable(factory):
        raise PluginError(f"{target!r} is not a class or function (bot {spec!r})")
    try:
        agent = factory(seed=seed, **params)
    except TypeError as e:
        raise PluginError(f"bot {spec!r}: {target} does not take these parameters: {e}") from None
    if not callable(getattr(agent, "act", None)):
        raise PluginError(f"bot {spec!r}: {target} made {type(agent).__name__!r}, which has no act(view)")
    return agent
