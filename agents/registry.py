"""Bots by name: ``make_agent("pimc:worlds=30", seed=1)``.

A spec is a bot name, optionally followed by ``:`` and comma-separated
``key=value`` parameters (``"ismcts:iterations=500,c=0.7"``). A bot may
take one *positional* parameter first, without its key: the ``ppo`` bot's
checkpoint path (``"ppo"`` is the shipped checkpoint,
``"ppo:runs/x/model.pt"``, ``"ppo:runs/x/model.pt,assist=rules"``,
``"ppo:assist=none"``). Unknown bots, unknown or repeated parameters and bad
values raise ``ValueError`` with the list of bots and their parameters.

Every bot is one :class:`BotInfo` line in :data:`KNOWN_AGENTS`: its name,
the ``module:attribute`` of its factory (imported only when the bot is
made, so naming a bot never loads torch or the solver), and its
parameters. The factory is called as ``factory(seed=seed, **params)``.
Adding a bot is one file plus one line here.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import plugins
from .base import Agent
from .core.rules import ASSIST_MODES, assist_mode
from .search.budget import MAX_MOVE_TIME

PLUGIN = "plugin"  # parse_spec's name for a bot from outside the package (agents.plugins)


@dataclass(frozen=True)
class Param:
    """One bot parameter: its type, default, allowed range or choices, and meaning.

    ``parse`` turns the text of a spec into the value (default: ``type``; a
    ``"module:attribute"`` string is imported when first used); numbers are
    checked against ``minimum``/``maximum``, text against ``choices`` (after
    ``parse``) when given.
    """

    type: type
    default: Any
    minimum: float
    help: str
    maximum: float = math.inf
    choices: tuple[str, ...] = ()
    parse: Callable[[str], Any] | str | None = None

    def value(self, raw: str) -> Any:
        """The typed, checked value of ``raw``; ``ValueError`` with the reason."""
        parse = _resolve(self.parse) if isinstance(self.parse, str) else self.parse or self.type
        try:
            value = parse(raw.strip())
        except ValueError as e:
            if isinstance(self.parse, str):  # a checker of its own says what is wrong
                raise
            expected = "one of " + ", ".join(self.choices) if self.choices else self.type.__name__
            raise ValueError(f"expected {expected}") from e
        if self.type in (int, float) and not self.minimum <= value <= self.maximum:  # also rejects nan
            bound = f"<= {self.maximum:g}" if value > self.minimum else f">= {self.minimum:g}"
            raise ValueError(f"must be {bound}")
        if self.choices and value not in self.choices:
            raise ValueError("expected one of " + ", ".join(self.choices))
        return value


@dataclass(frozen=True)
class BotInfo:
    """A registered bot: where its factory lives and what it accepts."""

    name: str
    target: str  # "module:attribute", imported lazily
    help: str
    params: dict[str, Param] = field(default_factory=dict)
    positional: str | None = None  # a parameter that may come first without ``key=``
    raw: str | None = None  # a parameter that takes all of the spec after ``NAME:``, commas and all
    names_itself: bool = False  # the bot's own name is kept (not replaced by the canonical spec)
    rules: tuple[str, ...] = ()  # the only rules presets (by name) it plays; () for every preset


MOVE_TIME = Param(float, None, 0.001, "seconds per move: an anytime search that stops in time (the game's "
                  "--move-time, if smaller, applies; default: the fixed search)", MAX_MOVE_TIME)

KNOWN_AGENTS: dict[str, BotInfo] = {
    b.name: b
    for b in (
        BotInfo("random", "agents.random_agent:RandomAgent", "uniformly random legal actions"),
        BotInfo(
            "heuristic", "agents.heuristic:HeuristicAgent",
            "human rules of thumb; exact solver once the talon is spent",
        ),
        BotInfo(
            "pimc", "agents.pimc:PimcAgent",
            "perfect-information Monte Carlo: sampled worlds, playouts + exact solver",
            {
                "worlds": Param(int, 64, 1, "worlds sampled per decision"),
                "depth": Param(int, 1, 1, "decisions searched by minimax before playouts (talon open)"),
                "infer": Param(int, 0, 0, "1: worlds respect what the opponent's leads revealed", 1),
                "temp": Param(float, 0.0, 0.0, "0: play the best move; above 0: draw it from "
                              "softmax(mean value / temp) and declare that distribution", 100.0),
                "move_time": MOVE_TIME,
            },
        ),
        BotInfo(
            "ismcts", "agents.ismcts:IsmctsAgent",
            "single-observer information-set MCTS; exact solver in phase 2",
            {
                "iterations": Param(int, 1200, 1, "search iterations per decision"),
                "c": Param(float, 0.7, 0.0, "UCB exploration constant (values scaled to [-1, 1])"),
                "worlds": Param(int, 64, 1, "worlds sampled per decision once the talon is closed"),
                "infer": Param(int, 1, 0, "1: worlds respect what the opponent's leads revealed "
                                          "(agents.search.inference); 0: uniform worlds", 1),
                "move_time": MOVE_TIME,
            },
        ),
        BotInfo(
            "oracle", "agents.oracle:OracleAgent",
            "CHEATS: sees the true state; perfect-information upper bound for measurements",
            {"depth": Param(int, 1, 1, "decisions searched by minimax before playouts (talon open)")},
        ),
        BotInfo(
            "ppo", "agents.neural:load_ppo_agent", "trained PPO policy; 'ppo:PATH' for a checkpoint",
            {
                "path": Param(str, None, 0, "checkpoint file (default: the shipped agents/checkpoints/"
                                            "ppo_default.pt)"),
                "assist": Param(str, "full", 0, "full: obvious moves by rule, exact solver once the talon "
                                                "is spent; rules: obvious moves only, no search; none: "
                                                "the network plays every move (1/0: full/none)",
                                choices=ASSIST_MODES, parse=assist_mode),
            },
            positional="path",
        ),
        BotInfo(
            "guided", "agents.guided:GuidedAgent",
            "search guided by a network: worlds weighted by the policy's model of the opponent, critic "
            "leaves, exact solver in phase 2; 'guided:PATH' for a checkpoint",
            {
                "path": Param(str, None, 0, "checkpoint with a full-state critic (default: the shipped "
                                            "agents/checkpoints/ppo_default.pt)"),
                "worlds": Param(int, 64, 1, "worlds sampled per decision"),
                "depth": Param(int, 1, 1, "1: critic after the move; 2: after the opponent's best reply", 2),
                "leaf": Param(str, "critic", 0, "how an open leaf is valued: critic (one forward) or "
                                                "rollout (both sides play the policy's likeliest move until "
                                                "the talon is spent, then the exact solver)",
                              choices=("critic", "rollout")),  # agents.search.guided.LEAVES
                "infer": Param(int, 1, 0, "1: worlds also respect the opponent's rule-based reads "
                                          "(agents.search.inference)", 1),
                "beta": Param(float, 0.5, 0.0, "tempering of the opponent-model likelihood (0: "
                                                 "uniform worlds)", 1.0),
                "eps": Param(float, 0.1, 0.001, "uniform share mixed into the opponent model", 1.0),
                "prior": Param(float, 0.3, 0.0, "weight of the policy prior log pi(a), game points", 10.0),
                "temp": Param(float, 0.2, 0.001, "temperature of the bot's move distribution "
                              "softmax(score / temp)", 100.0),
                "sample": Param(int, 0, 0, "1: draw the move from that distribution (and declare it) "
                                           "instead of playing the best score", 1),
                "move_time": MOVE_TIME,
            },
            positional="path",
        ),
        BotInfo(
            "schnapsen-pkg", "agents.schnapsen_pkg:PackageBot",
            "a bot of the optional `schnapsen` package (pip install -e '.[schnapsen]'), for "
            "--rules schnapsen-pkg only",
            {"kind": Param(str, "rdeep", 0, "rand|bully|rdeep: the package's bot",
                           parse="agents.schnapsen_pkg:check_kind")},
            positional="kind", rules=("schnapsen-pkg",),
        ),
        BotInfo(
            "exec", "agents.external:make_external",
            "a program in any language, over JSON lines (agents/protocol/PROTOCOL.md)",
            {"command": Param(str, None, 0, "[timeout=S,start_timeout=S,name=N,logs=DIR ]COMMAND ARGS...",
                              parse="agents.external:check_command")},
            raw="command", names_itself=True,
        ),
    )
}


def _resolve(target: str) -> Any:
    """The object a ``"module:attribute"`` string names (imported now)."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def describe_agents() -> str:
    """Help text: every bot with its parameters and defaults."""
    lines = []
    for b in KNOWN_AGENTS.values():
        if b.raw:
            lines += [f"  {b.name}:{b.raw.upper()}  - {b.help}", f"      {b.raw}: {b.params[b.raw].help}"]
            continue
        parts = [f"{k}={'|'.join(p.choices) if p.choices else p.default}"
                 for k, p in b.params.items() if k != b.positional]
        head = f"[{b.positional.upper()},]" if b.positional else ""
        lines.append(f"  {b.name}{':' + head + ','.join(parts) if parts else ''}  - {b.help}")
        lines += [f"      {k}: {p.help}" for k, p in b.params.items() if p.choices or k == b.positional]
    lines += [f"  {n}[:key=value,...]  - installed plug-in ({t})"
              for n, t in sorted(plugins.installed().items())]
    lines.append("  module.path:Class[:key=value,...] or path/to/bot.py:Class[:key=value,...]"
                 "  - your own bot class (agents/plugins.py)")
    return "known bots (spec NAME or NAME:key=value,...):\n" + "\n".join(lines)


def _error(msg: str) -> ValueError:
    return ValueError(f"{msg}\n{describe_agents()}")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a spec into the bot name and its typed parameters (defaults filled in)."""
    if not isinstance(spec, str) or not spec.strip():
        raise _error(f"agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    info = KNOWN_AGENTS.get(name)
    if info is None:
        return _parse_plugin(spec.strip(), name, rest)
    values = {k: p.default for k, p in info.params.items()}
    if info.raw:
        try:
            return name, {info.raw: info.params[info.raw].value(rest)}
        except ValueError as e:
            raise _error(f"bad spec {spec!r}: {e}") from None
    items = rest.split(",") if rest.strip() else []
    if info.positional and items and items[0].partition("=")[0].strip() not in info.params:
        path, _, rest = rest.partition(",")  # the positional value may hold anything but a comma
        try:
            values[info.positional] = info.params[info.positional].value(path) if path.strip() else None
        except ValueError as e:
            raise _error(f"bad value {path!r} for {name}:{info.positional} ({e})") from None
        items = rest.split(",") if rest.strip() else []
    seen = set()
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq:
            raise _error(f"bad parameter {item!r} in {spec!r}: expected key=value")
        param = info.params.get(key)
        if param is None:
            known = ", ".join(info.params) or "none"
            raise _error(f"unknown parameter {key!r} for bot {name!r} (its parameters: {known})")
        if key in seen:
            raise _error(f"parameter {key!r} given twice in {spec!r}")
        seen.add(key)
        try:
            values[key] = param.value(raw)
        except ValueError as e:
            raise _error(f"bad value {raw!r} for {name}:{key} ({e})") from None
    return name, values


def _parse_plugin(spec: str, name: str, rest: str) -> tuple[str, dict[str, Any]]:
    """A bot registered by an installed package, or a class by import path or file."""
    target = plugins.installed().get(name)
    params = rest
    if target is None:
        split = plugins.split_target(spec)
        if split is None:
            raise _error(f"unknown bot {name!r} in spec {spec!r}")
        target, params = split
    try:
        plugins.load(target)  # a typo fails here, before any game
        return PLUGIN, {"target": target, "params": plugins.parse_params(params, spec), "spec": spec}
    except plugins.PluginError as e:
        raise _error(str(e)) from None


class BotRulesError(ValueError):
    """A bot spec that cannot play the rules preset of the game it was asked to."""


def check_plays(spec: str, rules: str) -> None:
    """Raise :class:`BotRulesError` if the bot of ``spec`` does not play the preset of the
    ``rules`` spec (a bad bot spec raises as :func:`parse_spec` does)."""
    from sixtysix_env.variants import rules_from_spec

    name, _ = parse_spec(spec)
    info = KNOWN_AGENTS.get(name)
    preset = rules_from_spec(rules)
    if info is not None and info.rules and preset.name not in info.rules:
        raise BotRulesError(f"bot {spec!r} plays only the rules {', '.join(info.rules)}, not "
                            f"{preset.spec!r} (give --rules {info.rules[0]})")


def canonical_name(name: str, values: dict[str, Any]) -> str:
    """The spec string naming a bot: defaults are left out (``"pimc"``, ``"pimc:worlds=8"``,
    ``"ppo:x.pt,assist=none"``)."""
    info = KNOWN_AGENTS[name]
    if info.raw:
        return f"{name}:{values[info.raw]}"
    parts = [str(v) if k == info.positional else f"{k}={v}"
             for k, v in values.items() if v != info.params[k].default]
    return name + (":" + ",".join(parts) if parts else "")


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build a bot from its spec string (see the module docstring)."""
    name, values = parse_spec(spec)
    if name == PLUGIN:
        agent = plugins.build(values["target"], values["params"], seed, values["spec"])
        agent.name = values["spec"]
        return agent
    agent = _resolve(KNOWN_AGENTS[name].target)(seed=seed, **values)
    if not KNOWN_AGENTS[name].names_itself:
        agent.name = canonical_name(name, values)
    return agent
