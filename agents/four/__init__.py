"""Bots for four-player partnership Sixty-Six (:mod:`sixtysix_env.four`).

``make_four_agent("random" | "heuristic" | "search[:worlds]" | "net:PATH", seed)``
builds one; an unknown name is a ``ValueError`` naming the known ones, a
``net:PATH`` that is no team checkpoint a one-line
:class:`~agents.core.checkpoint.CheckpointError` (a ``ValueError`` too).
"""

from __future__ import annotations

from typing import Any

from .bots import FourHeuristicAgent, FourRandomAgent, heuristic_action
from .search import FourSearchAgent

FOUR_AGENTS = ("random", "heuristic", "search", "net")


FOUR_HELP = {
    "random": "uniform over the legal actions",
    "heuristic": "rules of thumb: declare at 66, show marriages, lead aces, feed a winning partner",
    "search": "PIMC: N sampled deals per legal action (default 12), played out by the heuristic",
    "net": "a team network trained by train.py --config configs/team.yaml (greedy)",
}


def describe_four_agents() -> str:
    """Help text: every four-player bot spec (``sixtysix bots --players 4``)."""
    specs = {"random": "random", "heuristic": "heuristic", "search": "search[:N]", "net": "net:PATH"}
    lines = [f"  {specs[name]:<12} - {FOUR_HELP[name]}" for name in FOUR_AGENTS]
    return ("four-player bots (sixtysix arena --players 4 A B; docs/rules-four.md);\n"
            "one spec plays both partners of a team:\n" + "\n".join(lines))


def make_four_agent(spec: str, seed: int | None = None) -> Any:
    """A four-player bot from a spec: ``random``, ``heuristic``, ``search`` or ``search:N`` (N worlds),
    ``net:PATH`` (a team checkpoint, :mod:`agents.four.net`)."""
    name, _, arg = str(spec).partition(":")
    if name == "random" and not arg:
        return FourRandomAgent(seed)
    if name == "heuristic" and not arg:
        return FourHeuristicAgent(seed)
    if name == "search":
        try:
            worlds = int(arg) if arg else 12
        except ValueError:
            raise ValueError(f"four-player bot {spec!r}: search:N needs an int N") from None
        return FourSearchAgent(seed, worlds)
    if name == "net" and arg:
        from .net import load_four_net_agent  # torch only when a network plays

        return load_four_net_agent(arg, seed)
    raise ValueError(f"unknown four-player bot {spec!r}: choose one of {', '.join(FOUR_AGENTS)} "
                     "(search:N, net:PATH)")


__all__ = ["FOUR_AGENTS", "FOUR_HELP", "FourHeuristicAgent", "FourRandomAgent", "FourSearchAgent",
           "describe_four_agents", "heuristic_action", "make_four_agent"]  # fmt: skip
