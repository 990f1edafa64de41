"""Bots for Sixty-Six behind one interface (see ``agents.base``).

``make_agent(spec, seed)`` builds any bot of the ladder from a spec string:
``"random"``, ``"heuristic"``, ``"pimc"``, ``"ismcts:iterations=800"``,
``"oracle"`` (cheats: sees the true state, for upper-bound measurements),
``"ppo"`` / ``"ppo:PATH"``. ``KNOWN_AGENTS`` and ``describe_agents()`` list
them with their parameters.
"""

from .base import Agent, BaseAgent
from .registry import KNOWN_AGENTS, BotInfo, Param, describe_agents, make_agent, parse_spec

__all__ = [
    "KNOWN_AGENTS",
    "Agent",
    "BaseAgent",
    "BotInfo",
    "Param",
    "describe_agents",
    "make_agent",
    "parse_spec",
]
