"""Cards of Sixty-Six: ids, names, points and ranks (docs/rules.md section 1).

This module is the single source of truth for card constants. A card id is
``6 * suit + rank`` with suits clubs, spades, hearts, diamonds (0-3) and ranks
9, J, Q, K, 10, A (0-5); so a higher id within one suit is a higher card.
Sets of cards are 24-bit integers (bit ``c`` set when card ``c`` is present):
that keeps engine state small and cheap to copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

N_CARDS = 24
N_SUITS = 4
SUIT_LETTERS = "CSHD"
RANK_LETTERS = "9JQKTA"
SUIT_NAMES = ("clubs", "spades", "hearts", "diamonds")
RANK_NAMES = ("nine", "jack", "queen", "king", "ten", "ace")

NINE, JACK, QUEEN, KING, TEN, ACE = range(6)
RANK_POINTS = (0, 2, 3, 4, 10, 11)
POINTS: tuple[int, ...] = tuple(RANK_POINTS[c % 6] for c in range(N_CARDS))
TOTAL_POINTS = 120
LAST_TRICK_BONUS = 10
FULL_DECK = (1 << N_CARDS) - 1

SUIT_MASKS: tuple[int, ...] = tuple(0b111111 << (6 * s) for s in range(N_SUITS))
# HIGHER[c]: the cards of c's suit that beat c. KQ[s]: the king and queen of suit s (its marriage).
HIGHER: tuple[int, ...] = tuple(SUIT_MASKS[c // 6] & ~((2 << c) - 1) for c in range(N_CARDS))
KQ: tuple[int, ...] = tuple((1 << (6 * s + QUEEN)) | (1 << (6 * s + KING)) for s in range(N_SUITS))
QUEENS = sum(1 << (6 * s + QUEEN) for s in range(N_SUITS))  # (hand >> 1) & hand & QUEENS: suits with K and Q
CARD_NAMES: tuple[str, ...] = tuple(
    RANK_LETTERS[c % 6] + SUIT_LETTERS[c // 6] for c in range(N_CARDS)
)
_NAME_TO_ID = {name: c for c, name in enumerate(CARD_NAMES)}


def suit_of(card: int) -> int:
    return card // 6


def rank_of(card: int) -> int:
    return card % 6


def make_card(suit: int, rank: int) -> int:
    return 6 * suit + rank


def card_id(card: int | str) -> int:
    """Parse a card given as its id (0-23) or its name (``"TH"``, ``"9d"``).

    Raises ``ValueError`` for anything else, so bad input fails at the API.
    """
    if isinstance(card, bool):
        raise ValueError(f"not a card: {card!r}")
    if isinstance(card, int) or (hasattr(card, "__index__") and not isinstance(card, str)):
        c = int(card)
        if 0 <= c < N_CARDS:
            return c
        raise ValueError(f"card id {c} out of range 0-23")
    if isinstance(card, str):
        named = _NAME_TO_ID.get(card.strip().upper())
        if named is None:
            raise ValueError(
                f"unknown card name {card!r}: expected rank 9 J Q K T A then suit C S H D, e.g. 'TH'"
            )
        return named
    raise ValueError(f"not a card: {card!r} (give an id 0-23 or a name like 'TH')")


def card_name(card: int) -> str:
    return CARD_NAMES[card_id(card)]


def as_list(value: Any, what: str) -> list[Any]:
    """``value`` as a list if it is an ordered collection (list, tuple, numpy
    array...); else ``ValueError`` naming ``what``. A string, dict or set is
    never read as one: its characters, keys or arbitrary order would silently
    become other cards or scores."""
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{what} must be a list, got the string {value!r}")
    if isinstance(value, (Mapping, AbstractSet)):
        raise ValueError(f"{what} must be a list, got a {type(value).__name__}: {value!r}")
    try:
        return list(value)
    except TypeError:
        raise ValueError(f"{what} must be a list, got {value!r}") from None


def parse_cards(cards: Iterable[int | str], what: str = "cards") -> list[int]:
    """Parse a list of cards (ids or names) into ids; ``what`` names it in errors."""
    return [card_id(c) for c in as_list(cards, what)]


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def with_bits(masks: list[int], i: int, bits: int) -> list[int]:
    """A copy of ``masks`` with ``bits`` set in entry ``i``: copy on write,
    so the engines' clones may share lists that change rarely."""
    out = masks[:]
    out[i] |= bits
    return out


# _BYTE_BITS[k][b]: the set bits of byte value b placed at byte k of a 32-bit mask.
_BYTE_BITS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(4)
)


def bits_of(mask: int) -> list[int]:
    """Positions of the set bits of a non-negative int, lowest first.

    Masks of up to 32 bits (card sets, legal-action sets) take four table
    look-ups instead of a loop per bit: agents list legal actions constantly.
    """
    if 0 <= mask < 1 << 32:
        t0, t1, t2, t3 = _BYTE_BITS
        return list(t0[mask & 255] + t1[mask >> 8 & 255] + t2[mask >> 16 & 255] + t3[mask >> 24])
    if mask < 0:
        raise ValueError(f"a card or action mask cannot be negative: {mask}")
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_of(mask: int) -> list[int]:
    """Card ids in a bitmask, lowest first."""
    return bits_of(mask)


def names_of(mask: int) -> list[str]:
    return [CARD_NAMES[c] for c in cards_of(mask)]


def points_of(mask: int) -> int:
    return sum(POINTS[c] for c in cards_of(mask))
