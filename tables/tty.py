"""Drawing for the terminal tables: cards with Unicode suits and colour where the terminal
has them, and moves laid out in columns (:mod:`tables.terminal`, :mod:`tables.four_terminal`)."""

from __future__ import annotations

import os
import re
from typing import TextIO

from .frame import Move
from .moves import SUIT_SYMBOLS

_NAME = re.compile(r"\b([9JQKTA])([CSHD])\b")
RED, BOLD, DIM, RESET = "\033[31m", "\033[1m", "\033[2m", "\033[0m"


class Style:
    """Cards and emphasis for one terminal: Unicode suits where the encoding has
    them, colour where the terminal has it."""

    def __init__(self, color: bool, unicode: bool) -> None:
        self.color = color
        self.suits = SUIT_SYMBOLS if unicode else "CSHD"

    def card(self, name: str) -> str:
        rank = "10" if name[0] == "T" else name[0]
        suit = "CSHD".index(name[1])
        text = rank + self.suits[suit]
        if self.color and suit in (2, 3):
            return RED + text + RESET
        return text

    def suit(self, letter: str) -> str:
        s = "CSHD".index(letter)
        text = self.suits[s]
        return RED + text + RESET if self.color and s in (2, 3) else text

    def text(self, s: str) -> str:
        """Card names (``TH``) in ``s`` drawn as cards; suit symbols coloured."""
        s = _NAME.sub(lambda m: self.card(m.group(0)), s)
        if self.color:
            s = re.sub("[♥♦]", lambda m: RED + m.group(0) + RESET, s)
        elif self.suits != SUIT_SYMBOLS:
            s = s.translate({ord(a): b for a, b in zip(SUIT_SYMBOLS, "CSHD", strict=True)})
        return s

    def bold(self, s: str) -> str:
        return BOLD + s + RESET if self.color else s

    def dim(self, s: str) -> str:
        return DIM + s + RESET if self.color else s


def detect_style(stream: TextIO, color: str) -> Style:
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        SUIT_SYMBOLS.encode(enc)
        unicode = True
    except (UnicodeEncodeError, LookupError):
        unicode = False
    if color == "auto":
        on = stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"
    else:
        on = color == "always"
    return Style(on, unicode)


def move_label(m: Move, st: Style) -> str:
    return st.card(m["card"]) if m["kind"] == "card" else st.text(m["label"])


def visible_len(s: str) -> int:
    """Length on screen (colour codes take no room)."""
    return len(re.sub(r"\033\[[0-9;]*m", "", s))


def columns(items: list[str], st: Style, width: int = 72) -> list[str]:
    """Items side by side, wrapped at ``width`` visible characters."""
    out, line, used = [], "", 0
    for item in items:
        visible = visible_len(item)
        cell = max(visible + 3, 9)
        if used and used + cell > width:
            out.append(line.rstrip())
            line, used = "", 0
        line += item + " " * (cell - visible)
        used += cell
    if line:
        out.append(line.rstrip())
    return ["  " + x for x in out]

__all__ = ["Style", "columns", "detect_style", "move_label", "visible_len"]
