"""The 32-action table of RULES.md section 5 (pinned public API).

Actions are plain ints; legal sets are 32-bit masks (bit ``a`` set when action
``a`` is legal), the same shape as the environment's action mask.
"""

from __future__ import annotations

import operator

from .cards import CARD_NAMES, N_CARDS, SUIT_LETTERS, bits_of, card_id

N_ACTIONS = 32
MARRIAGE = 24  # 24 + suit: show the marriage of that suit
EXCHANGE = 28
CLOSE = 29
DECLARE = 30
CONTINUE = 31

CARD_ACTIONS_MASK = (1 << N_CARDS) - 1
MARRIAGE_ACTIONS_MASK = 0b1111 << MARRIAGE

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"play {CARD_NAMES[c]}" for c in range(N_CARDS))
    + tuple(f"marriage {s}" for s in SUIT_LETTERS)
    + ("exchange", "close", "declare", "continue")
)
# Lower-case keys: parse_action is case-insensitive ("marriage h", "Play TH").
_NAME_TO_ACTION = {name.lower(): a for a, name in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"action {action} out of range 0-31")
    return ACTION_NAMES[action]


def parse_action(action: int | str) -> int:
    """Parse an action id, an action name (``"close"``) or a card (``"TH"``)."""
    if isinstance(action, str):
        key = action.strip().lower()
        if key in _NAME_TO_ACTION:
            return _NAME_TO_ACTION[key]
        try:
            return card_id(action)
        except ValueError:
            raise ValueError(
                f"unknown action {action!r}: give 0-31, a card name, or one of "
                "'marriage C/S/H/D', 'exchange', 'close', 'declare', 'continue'"
            ) from None
    if isinstance(action, bool):
        raise ValueError(f"not an action: {action!r}")
    try:
        a = operator.index(action)  # ints and numpy integers, not floats
    except TypeError:
        raise ValueError(f"not an action: {action!r}") from None
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {action!r} out of range 0-31")
    return a


def actions_of(mask: int) -> list[int]:
    """Action ids in a 32-bit legal mask, lowest first."""
    return bits_of(mask)
