"""Bots by name: ``make_agent("pimc:worlds=30", seed=1)``.

A spec is a bot name, optionally followed by ``:`` and comma-separated
``key=value`` parameters (``"ismcts:iterations=500,c=0.7"``). The PPO bot
takes a checkpoint path first: ``"ppo"`` (the shipped checkpoint),
``"ppo:runs/x/model.pt"``, then optionally how it is helped:
``assist=full`` (the default: obvious moves by rule and the exact solver
once the talon is spent), ``assist=rules`` (obvious moves by rule, no
search) or ``assist=none`` (the network alone; ``1``/``0`` mean full/none):
``"ppo:assist=rules"``, ``"ppo:runs/x/model.pt,assist=none"``. Unknown bots,
unknown or repeated parameters and bad values raise ``ValueError`` with the list of bots and their parameters.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from .base import Agent
from .heuristic import ASSIST_MODES, assist_mode


@dataclass(frozen=True)
class Param:
    """One bot parameter: its type, default, allowed range and meaning."""

    type: type
    default: Any
    minimum: float
    help: str
    maximum: float = float("inf")


@dataclass(frozen=True)
class BotInfo:
    """A registered bot: where its class lives and what it accepts."""

    name: str
    target: str  # "module:attribute", imported lazily
    help: str
    params: dict[str, Param] = field(default_factory=dict)


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
                                          "(agents.inference); 0: uniform worlds", 1),
            },
        ),
        BotInfo(
            "oracle", "agents.oracle:OracleAgent",
            "CHEATS: sees the true state; perfect-information upper bound for measurements",
            {"depth": Param(int, 1, 1, "decisions searched by minimax before playouts (talon open)")},
        ),
        BotInfo(
            "ppo", "agents.neural:load_ppo_agent", "trained PPO policy; 'ppo:PATH' for a checkpoint",
            {"assist": Param(str, "full", 0, "full: obvious moves by rule, exact solver once the talon is "
                                             "spent; rules: obvious moves only, no search; none: the "
                                             "network plays every move")},
        ),
    )
}


def describe_agents() -> str:
    """Help text: every bot with its parameters and defaults."""
    lines = []
    for b in KNOWN_AGENTS.values():
        params = ", ".join(f"{k}={p.default}" for k, p in b.params.items())
        lines.append(f"  {b.name}{':' + params if params else ''}  - {b.help}")
    lines.append("  ppo:PATH[,assist=full|rules|none]  - PPO policy from a checkpoint file")
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
        raise _error(f"unknown bot {name!r} in spec {spec!r}")
    if name == "ppo":
        return name, _parse_ppo(spec, rest)
    values = {k: p.default for k, p in info.params.items()}
    if not rest.strip():
        return name, values
    seen = set()
    for item in rest.split(","):
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
            value = param.type(raw.strip())
        except ValueError:
            raise _error(f"bad value {raw!r} for {name}:{key} (expected {param.type.__name__})") from None
        if not param.minimum <= value <= param.maximum:  # also rejects nan
            bound = f"<= {param.maximum:g}" if value > param.minimum else f">= {param.minimum:g}"
            raise _error(f"bad value {raw!r} for {name}:{key} (must be {bound})")
        values[key] = value
    return name, values


def _parse_ppo(spec: str, rest: str) -> dict[str, Any]:
    """``ppo`` parameters: an optional checkpoint path first, then ``assist=full|rules|none``."""
    path, _, tail = rest.partition(",")
    path = path.strip()
    if path.startswith("assist="):
        path, tail = "", rest
    values: dict[str, Any] = {"path": path or None, "assist": "full"}
    if tail.strip():
        key, eq, raw = tail.partition("=")
        if key.strip() != "assist" or raw.strip().lower() not in ASSIST_MODES + ("0", "1"):
            raise _error(f"bad ppo parameters {tail!r} in {spec!r}: expected 'assist=full', 'assist=rules' "
                         "or 'assist=none' after the checkpoint path")
        values["assist"] = assist_mode(raw)
    return values


def canonical_name(name: str, values: dict[str, Any]) -> str:
    """The spec string naming a bot: defaults are left out (``"pimc"``, ``"pimc:worlds=8"``)."""
    info = KNOWN_AGENTS[name]
    if name == "ppo":
        parts = ([values["path"]] if values.get("path") else []) + (
            [f"assist={values['assist']}"] if values.get("assist", "full") != "full" else [])
        return "ppo:" + ",".join(parts) if parts else "ppo"
    changed = [f"{k}={v}" for k, v in values.items() if v != info.params[k].default]
    return name + (":" + ",".join(changed) if changed else "")


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build a bot from its spec string (see the module docstring)."""
    name, values = parse_spec(spec)
    if name == "ppo":
        from agents.neural import load_ppo_agent

        return load_ppo_agent(values["path"], seed=seed, assist=values["assist"])
    module, _, attr = KNOWN_AGENTS[name].target.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    agent = cls(seed=seed, **values)
    agent.name = canonical_name(name, values)
    return agent
