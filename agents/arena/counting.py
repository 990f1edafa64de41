"""What one game line counts in points per deal: its finished deals and the deal a forfeit ended.

A forfeit ends the deal in progress, which the record leaves out of its
``deals``; that deal counts as lost by the forfeiting bot for the most a deal
can cost (:func:`forfeit_cost`). The plain figure (:mod:`.pairing`), the
corrected one (:mod:`.corrected`) and the sequential stop (:mod:`.sprt`)
all count it so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sixtysix_env.scoring import game_points
from sixtysix_env.variants import GERMAN, Rules

MAX_DEAL_POINTS = game_points(0, 0)  # a schwarz (docs/rules.md 4.1): the most a deal scores in any preset


def forfeit_cost(deals: Sequence[Mapping[str, Any]], rules: Rules = GERMAN) -> int:
    """The most the deal a forfeit ended could have cost: a schwarz, plus the draw bonus it
    carried under ``rules`` (1 after one or more drawn deals just before it, docs/rules-variants.md V1.2)."""
    drawn_before = bool(deals) and deals[-1]["winner"] is None
    return MAX_DEAL_POINTS + (1 if rules.draw_bonus and drawn_before else 0)


def forfeit_net(line: Mapping[str, Any], seat: int, rules: Rules = GERMAN) -> int:
    """``seat``'s net game points of the deal a forfeit ended (0 without a forfeit)."""
    f = line.get("forfeit")
    if f is None:
        return 0
    cost = forfeit_cost(line["deals"], rules)
    return -cost if f["seat"] == seat else cost


def counted_deals(line: Mapping[str, Any]) -> int:
    """The deals a game counts in points per deal: its finished deals and the one a forfeit ended."""
    return len(line["deals"]) + (line.get("forfeit") is not None)
