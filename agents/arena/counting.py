"""What one game line counts in points per deal: its finished deals and the deal a forfeit ended.

A forfeit ends the deal in progress, which the record leaves out of its
``deals``; that deal counts as lost by the forfeiting bot for the most a deal
can cost (:func:`forfeit_cost`). At a four-player table a forfeit costs the
forfeiting seat's team (:func:`forfeit_side`). The plain figure (:mod:`.pairing`), the
corrected one (:mod:`.corrected`) and the sequential stop (:mod:`.sprt`)
all count it so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.record import side_of
from sixtysix_env.scoring import game_points
from sixtysix_env.variants import GERMAN

MAX_DEAL_POINTS = game_points(0, 0)  # a schwarz (docs/rules.md 4.1): the most a deal scores in any preset


def forfeit_cost(deals: Sequence[Mapping[str, Any]], rules: Any = GERMAN) -> int:
    """The most the deal a forfeit ended could have cost: a schwarz, plus the draw bonus it
    carried under ``rules`` (1 after one or more drawn deals just before it, docs/rules-variants.md V1.2)."""
    drawn_before = bool(deals) and deals[-1]["winner"] is None
    return MAX_DEAL_POINTS + (1 if getattr(rules, "draw_bonus", 0) and drawn_before else 0)


def forfeit_side(line: Mapping[str, Any]) -> int | None:
    """The side (seat, or team at a four-player table) that forfeited the game, or None."""
    f = line.get("forfeit")
    if f is None:
        return None
    return side_of(f["seat"], len(line.get("seats") or line.get("players") or ()))


def forfeit_net(line: Mapping[str, Any], seat: int, rules: Any = GERMAN) -> int:
    """``seat``'s (a side's: a team's at four players) net game points of the deal a forfeit ended
    (0 without a forfeit)."""
    side = forfeit_side(line)
    if side is None:
        return 0
    cost = forfeit_cost(line["deals"], rules)
    return -cost if side == seat else cost


def counted_deals(line: Mapping[str, Any]) -> int:
    """The deals a game counts in points per deal: its finished deals and the one a forfeit ended."""
    return len(line["deals"]) + (line.get("forfeit") is not None)
