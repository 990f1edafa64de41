"""The 32-action table of docs/rules.md section 5 (pinned public API), and the one
legality check every entry point shares.

Actions are plain ints; legal sets are 32-bit masks (bit ``a`` set when action
``a`` is legal), the same shape as the environment's action mask.
:func:`check_action` is how the engine, the environments and the arena decide
that an action is legal, and :class:`IllegalActionError` the error they raise
(its message names the action and the legal ones).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from .cards import CARD_NAMES, N_CARDS, N_SUITS, QUEEN, QUEENS, SUIT_LETTERS, bits_of, card_id

N_ACTIONS = 32
MARRIAGE = 24  # 24 + suit: show the marriage of that suit
EXCHANGE = 28
CLOSE = 29
DECLARE = 30
CONTINUE = 31

CARD_ACTIONS_MASK = (1 << N_CARDS) - 1
MARRIAGE_ACTIONS_MASK = 0b1111 << MARRIAGE
# Single-action bits of legal masks.
EXCHANGE_BIT, CLOSE_BIT, DECLARE_BIT, CONTINUE_BIT = (1 << a for a in (EXCHANGE, CLOSE, DECLARE, CONTINUE))
# MARRIAGE_ACTIONS[(hand >> 1) & hand & QUEENS]: the marriage action bits of the suits a hand
# holds both K and Q of (a look-up, not a loop: legal masks are the search bots' hottest path).
MARRIAGE_ACTIONS: dict[int, int] = {
    sum(1 << (6 * s + QUEEN) for s in range(N_SUITS) if m >> s & 1): m << MARRIAGE for m in range(16)
}


def marriage_actions(hand: int) -> int:
    """The marriage action bits ``hand`` could show (suits held with both K and Q)."""
    return MARRIAGE_ACTIONS[(hand >> 1) & hand & QUEENS]

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


def to_int(value: Any) -> int:
    """An int from an int-like (numpy integers too); -1 for anything else
    (bools, floats, strings): user input is never rounded into an action."""
    if isinstance(value, bool):
        return -1
    try:
        return operator.index(value)
    except TypeError:
        return -1


def describe_action(action: Any) -> str:
    """``"30 (declare)"`` for an action id, ``repr`` for anything else (messages, infos)."""
    a = to_int(action)
    return f"{a} ({ACTION_NAMES[a]})" if 0 <= a < N_ACTIONS else repr(action)


class IllegalActionError(ValueError):
    """An action played where it is not legal; the message names it and the legal ones.

    ``action`` is the action as given, ``legal_mask`` the legal set.
    """

    def __init__(self, message: str, action: Any = None, legal_mask: int = 0) -> None:
        super().__init__(message)
        self.action = action
        self.legal_mask = legal_mask

    def __reduce__(self) -> tuple[Any, ...]:  # keep the fields across processes
        return (type(self), (str(self), self.action, self.legal_mask))


def _legal_id(action: Any, legal_mask: int) -> int:
    """``action`` as an int if ``legal_mask`` allows it, else -1."""
    a = action if type(action) is int else to_int(action)
    return a if 0 <= a < N_ACTIONS and legal_mask >> a & 1 else -1


def is_legal(action: Any, legal_mask: int) -> bool:
    """Whether ``legal_mask`` allows ``action`` (the test of :func:`check_action`)."""
    return _legal_id(action, legal_mask) >= 0


def check_action(action: Any, legal_mask: int, where: Callable[[], str] | None = None) -> int:
    """``action`` as an int if ``legal_mask`` allows it; else :class:`IllegalActionError`.

    Ints and numpy integers are actions; bools, floats and strings never are.
    ``where`` (called only for the message) says where the action was played,
    e.g. ``" for player_0 in the lead window"``.
    """
    a = _legal_id(action, legal_mask)
    if a >= 0:
        return a
    legal = ", ".join(describe_action(x) for x in actions_of(legal_mask))
    message = f"illegal action {describe_action(action)}{where() if where else ''}; "
    message += f"legal: {legal}" if legal else "no action is legal"
    raise IllegalActionError(message, action, legal_mask)


def random_action(legal_mask: int, rng: Any) -> int:
    """A uniformly random legal action, drawn with ``rng.choice`` from a
    ``random.Random`` or ``rng.integers`` from a numpy ``Generator``."""
    legal = actions_of(legal_mask)
    if hasattr(rng, "integers"):
        return legal[int(rng.integers(len(legal)))]
    return rng.choice(legal)
