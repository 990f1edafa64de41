"""What the terminal table says a player may type: ``help``, the move prompt, and why a
preset has no such move (only the moves the preset and the moment allow, docs/rules-variants.md)."""

from __future__ import annotations

import textwrap

from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE
from sixtysix_env.cards import NINE
from sixtysix_env.engine import DRAW
from sixtysix_env.variants import DECLARE_BY_PLAYER, Rules

from .frame import Move

HELP_OTHER = "other:   ? hint    t table again    log recent moves    resign    quit (not saved)    help"


def help_text(rules: Rules) -> str:
    """The ``help`` text: only the moves the preset has (no close, 66 or continue where
    its rule book has none, docs/rules-variants.md)."""
    nine = any(rules.deck >> (6 * s + NINE) & 1 for s in range(4))
    words = [f"a card (TH, 10H, T♥, {'9c' if nine else 'jc'})", "marry H (or marry ♥)", "exchange"]
    if rules.closing:
        words.append("close")
    if rules.declaring == DECLARE_BY_PLAYER:
        words.append("66 (declare)")
    # continue: draw (draw window), decline the exchange (close-response window), or not
    # declare after the last trick of a closed deal (final window: only where one can close)
    decline = rules.closing and rules.exchange_on_close
    also = [w for w, has in (("draw", rules.draw_window), ("decline", decline)) if has]
    if rules.draw_window or rules.closing:
        words.append("continue" + (f" (also: {', '.join(also)})" if also else ""))
    lines = ["moves:   a number from the list, or the move itself:",
             *(" " * 9 + line.replace("\xa0", " ") for line in
               textwrap.wrap(", ".join(w.replace(" ", "\xa0") for w in words), 72))]
    if rules.declaring != DECLARE_BY_PLAYER:
        lines.append("         66 counts by itself: reaching it with a trick wins the deal at once")
    if rules.draw_window:
        lines.append("         Enter alone draws after a trick you took")
    return "\n".join([*lines, HELP_OTHER])


PROMPT_WORDS = (("card", "card"), ("marriage", "'marry H'"), ("exchange", "exchange"), ("close", "close"),
                ("declare", "66"), ("continue", "continue"))


def preset_lacks(rules: Rules, action: int) -> str | None:
    """Why ``action`` never exists under ``rules`` (None if the preset has it)."""
    if action == CLOSE and not rules.closing:
        return f"the {rules.name} rules have no closing"
    if action == DECLARE and rules.declaring != DECLARE_BY_PLAYER:
        return f"the {rules.name} rules have no declaring: reaching 66 with a trick wins at once"
    if action == CONTINUE and not (rules.draw_window or rules.closing):
        return f"the {rules.name} rules have no continue: both draw after each trick by themselves"
    return None


def prompt_text(moves: list[Move], window: int) -> str:
    """The move prompt: the kinds of move legal now (``moves``) in words, nothing else."""
    kinds = {m["kind"] for m in moves}
    words = ["number", *(word for kind, word in PROMPT_WORDS if kind in kinds)]
    enter = "; Enter draws" if window == DRAW and "continue" in kinds else ""
    return f" Your move ({', '.join(words)}; ? hint{enter}): "
