"""What the examples' tests check in every example's output."""

from __future__ import annotations

import re


def assert_compared(out: str) -> None:
    """The trained and the untrained network's game points per deal against each bot (policy_bot.evaluate)."""
    for opponent in ("random", "heuristic"):
        for label in ("trained", "untrained"):
            line = rf" {label} +vs {opponent}: [+-]\d\.\d{{3}} game points per deal \(95% CI"
            assert re.search(line, out), (label, opponent, out[-2000:])
