"""Argparse types for the counts and times of every command (``sixtysix``, ``bench/`` scripts):
a bad value is argparse's one-line error naming the option, exit status 2, before any work."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from .options import check_positive_int, check_seconds


def checked(parse: Callable[[str], Any], what: str, check: Callable[[Any], Any]) -> Callable[[str], Any]:
    """An argparse type: ``parse`` the text (``what`` it should be), then ``check`` the value."""

    def convert(text: str) -> Any:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        try:
            return check(value)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return convert


positive_int = checked(int, "an int", check_positive_int)
"""A count (games, deals, workers, runs...): an int from 1 to ``MAX_COUNT``."""

positive_seconds = checked(float, "a number", check_seconds)
"""A duration: finite positive seconds (up to ``MAX_MOVE_TIME``)."""


def _count_or_zero(value: int) -> int:
    if value < 0:
        raise ValueError(f"must be at least 0, got {value}")
    return 0 if value == 0 else check_positive_int(value)


def _number_above(low: float, inclusive: bool) -> Callable[[float], float]:
    def check(value: float) -> float:
        if not (math.isfinite(value) and (value >= low if inclusive else value > low)):
            bound = "at least" if inclusive else "above"
            raise ValueError(f"must be a finite number {bound} {low:g}, got {value}")
        return value
    return check


count_or_zero = checked(int, "an int", _count_or_zero)
"""A count that may be 0 (warm-up moves, extra samples): an int from 0 to ``MAX_COUNT``."""

positive_number = checked(float, "a number", _number_above(0.0, inclusive=False))
"""A rate, a temperature, a learning rate: a finite number above 0 (not NaN, not infinite)."""

non_negative_number = checked(float, "a number", _number_above(0.0, inclusive=True))
"""A penalty or a weight: a finite number of at least 0."""


def count_at_most(high: int) -> Callable[[str], Any]:
    """A count from 1 to ``high`` (below ``MAX_COUNT``: processes, threads, connections at once)."""
    def check(value: int) -> int:
        if check_positive_int(value) > high:
            raise ValueError(f"must be at most {high}, got {value}")
        return value

    return checked(int, "an int", check)
