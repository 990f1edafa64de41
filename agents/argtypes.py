"""Argparse types for the counts and times of every command (``sixtysix``, ``bench/`` scripts):
a bad value is argparse's one-line error naming the option, exit status 2, before any work."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from agents.arena.options import check_positive_int, check_seconds


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
