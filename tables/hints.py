"""Hints: what a bot would play for the person, with its values per move.

:class:`Hinter` wraps any bot ``agents.make_agent`` builds and answers for
the person's :class:`~sixtysix_env.PlayerView` only, like a bot in the
person's seat. Where the bot has values for its moves they come with the
hint, computed with the bot's own building blocks (its RNG, solver and
opponent model), without changing the bot:

- ``pimc``: the mean over its sampled worlds of
  ``world_action_values`` (game points; the close already charged the
  bot's margin), the average PIMC itself maximizes; exact once the talon
  is spent (the view then fixes every card, one world is the true one);
- ``ismcts``: with the talon open, the mean value (game points) and the
  visits of each root action its search visited (a ``move_time`` may cut it
  short of some); after that, like pimc;
- ``ppo``: the network's probabilities over the legal moves (after its
  obvious-move rules and, with ``assist=full``, the exact solver once the
  talon is spent: then the solver's values);
- ``guided``: the weighted mean value (game points) of each legal move over
  the worlds its search used (:class:`agents.search.guided.SearchResult`),
  the values it weighs with its policy prior to choose; exact once the
  talon is spent;
- any other bot with a ``solver`` (``heuristic``): its move, and the exact
  solver's values once the talon is spent; bots without one: the move only.

Values that are not finite numbers are left out of every hint.

The cheating ``oracle`` cannot give hints: it would read the hidden cards.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

from agents import parse_spec
from agents.core.rules import obvious_action, view_rule_action
from agents.search.determinized import CLOSE_MARGIN, world_action_values
from sixtysix_env import PlayerView, sample_state
from sixtysix_env.actions import DECLARE, actions_of

from .session import make_bot

ISMCTS_MAX_VALUE = 3.0  # ismcts stores values scaled by the largest deal value, 3 game points
PHASE2_WORLDS = 64  # worlds ismcts samples once the talon is closed (its pimc default)

Values = dict[int, float]


def _exact(agent: Any, v: PlayerView) -> Values | None:
    """The solver's exact values when the talon is spent (the view fixes every card)."""
    solver = getattr(agent, "solver", None)
    if v.stock or solver is None:
        return None
    try:
        return {a: float(x) for a, x in solver.action_values(sample_state(v, 0)).items()}
    finally:
        solver.clear()


def _world_mean(agent: Any, v: PlayerView, worlds: int, depth: int) -> Values:
    """PIMC's values: ``world_action_values`` averaged over sampled worlds."""
    n = 1 if v.stock == 0 else worlds
    totals = dict.fromkeys(actions_of(v.legal_mask), 0.0)
    model = getattr(agent, "model", None)
    try:
        for _ in range(n):
            world = model.sample(v, agent.rng) if model is not None else None
            for a, x in world_action_values(v, agent.rng, agent.solver, depth, world).items():
                totals[a] += x
    finally:
        agent.solver.clear()
    return {a: t / n for a, t in totals.items()}


def _best(v: PlayerView, values: Values) -> int:
    """The bot's choice: an obvious move, else the best value (ties: declare, then the lowest id)."""
    a = obvious_action(v)
    if a is not None:
        return a
    return max(values, key=lambda a: (values[a], a == DECLARE, -a))


def _phase2_detail(v: PlayerView, n: int) -> str:
    if v.stock == 0:
        return "exact game points: the talon is spent, so your view fixes every card"
    return f"mean game points over {n} sampled worlds (a close is charged {CLOSE_MARGIN})"


def pimc_hint(agent: Any, v: PlayerView) -> dict[str, Any]:
    values = _world_mean(agent, v, agent.worlds, agent.depth)
    return {"action": _best(v, values), "kind": "game points", "values": values,
            "detail": _phase2_detail(v, agent.worlds)}


def ismcts_hint(agent: Any, v: PlayerView) -> dict[str, Any]:
    if not v.talon_open:
        values = _world_mean(agent, v, PHASE2_WORLDS, 1)
        return {"action": _best(v, values), "kind": "game points", "values": values,
                "detail": _phase2_detail(v, PHASE2_WORLDS)}
    root = agent.search_tree(v)
    # A search cut short by its move_time leaves some first moves unvisited: they have no value.
    kids = {a: ch for a, ch in root.children.items() if ch.visits}
    values = {a: ISMCTS_MAX_VALUE * ch.reward / ch.visits for a, ch in kids.items()}
    visits = {a: ch.visits for a, ch in kids.items()}
    a = obvious_action(v)
    if a is None:  # as the bot chooses, down to its rules of thumb when nothing was searched
        a = max(values, key=lambda a: (values[a], -a)) if values else view_rule_action(v)
    return {"action": a, "kind": "game points", "values": values, "visits": visits,
            "detail": f"mean value of each first move over {sum(visits.values())} search iterations"}


def ppo_hint(agent: Any, v: PlayerView) -> dict[str, Any]:
    action = agent.act(v)
    exact = _exact(agent, v) if agent.assist == "full" else None
    if exact is not None:
        return {"action": action, "kind": "game points", "values": exact,
                "detail": "exact game points: with the talon spent the bot plays the solver"}
    legal = actions_of(v.legal_mask)
    z = agent.logits(v)
    top = max(float(z[a]) for a in legal)
    e = {a: math.exp(float(z[a]) - top) for a in legal}
    total = sum(e.values())
    return {"action": action, "kind": "probability", "values": {a: x / total for a, x in e.items()},
            "detail": "the network's probability of each legal move"}


def guided_hint(agent: Any, v: PlayerView) -> dict[str, Any]:
    action = agent.act(v)
    result = agent.last_result
    if not result.worlds:  # an obvious move: no search, no values
        return {"action": action, "kind": None, "values": {}, "detail": "a move no search needs"}
    values = {a: float(result.action_values[a]) for a in actions_of(v.legal_mask)}
    detail = _phase2_detail(v, result.worlds) if v.stock == 0 else (
        f"mean game points over {result.worlds} sampled worlds, weighted by how likely your opponent's "
        f"moves were in each (a close is charged {CLOSE_MARGIN})")
    return {"action": action, "kind": "game points", "values": values, "detail": detail}


def plain_hint(agent: Any, v: PlayerView) -> dict[str, Any]:
    action = agent.act(v)
    exact = _exact(agent, v)
    if exact is not None:
        return {"action": action, "kind": "game points", "values": exact,
                "detail": "exact game points: the talon is spent, so your view fixes every card"}
    return {"action": action, "kind": None, "values": {}, "detail": "this bot gives no values"}


HINTS: dict[str, Callable[[Any, PlayerView], dict[str, Any]]] = {
    "pimc": pimc_hint, "ismcts": ismcts_hint, "ppo": ppo_hint, "guided": guided_hint,
}


class Hinter:
    """A hint bot in the person's seat; one hint at a time (thread-safe)."""

    def __init__(self, spec: str, seed: int | None = None) -> None:
        self.kind = parse_spec(spec)[0]
        self.agent = make_bot(spec, seed)
        if getattr(self.agent, "requires_state", False):
            raise ValueError(f"{spec!r} sees the hidden cards (it cheats), so it cannot give hints")
        self.agent.reset(seed)
        self.name = str(self.agent.name)
        self._lock = threading.Lock()

    def observe(self, v: PlayerView) -> None:
        """Show the bot a view of the person's (a bot with an opponent model,
        such as ismcts, learns from every one, as if it sat in that seat)."""
        model = getattr(self.agent, "model", None)
        if model is not None and v.legal_mask:
            with self._lock:
                model.observe(v)

    def hint(self, v: PlayerView) -> dict[str, Any]:
        """``{"bot", "action", "kind", "values": {action: value}, "detail"}`` for view ``v``."""
        if not v.legal_mask:
            raise ValueError("no hint: it is not your turn")
        legal = actions_of(v.legal_mask)
        with self._lock:
            model = getattr(self.agent, "model", None)
            if model is not None:
                model.observe(v)
            out: dict[str, Any]
            if len(legal) == 1:
                out = {"action": legal[0], "kind": None, "values": {}, "detail": "the only legal move"}
            else:
                out = HINTS.get(self.kind, plain_hint)(self.agent, v)
        # A value that is not a finite number (a search with no weight left, a network's NaN) is no
        # value: it is left out, and strict JSON could not carry it.
        out["values"] = {a: float(x) for a, x in out["values"].items() if math.isfinite(x)}
        if "visits" in out:
            out["visits"] = {a: n for a, n in out["visits"].items() if a in out["values"]}
        out["bot"] = self.name
        return out


__all__ = ["HINTS", "Hinter"]
