"""Scoring a deal (docs/rules.md section 4): what a declaration, a failed close or
the last trick is worth, and to whom.

Small pure functions, the one statement of these rules: the engine ends a
deal with them, and search code that scores imagined endings can call
:func:`game_points` and :func:`marriage_points` instead of restating them.
The deal functions take anything with ``score(p)``, ``tricks``,
``closed_by`` and ``closer_opp_tricks`` (an engine ``State``) and return
``(winner, game points, reason)``. Standard library only.
"""

from __future__ import annotations

from typing import Any, NamedTuple

WIN_SCORE = 66
SCHNEIDER = 33
MARRIAGE_POINTS = 20
TRUMP_MARRIAGE_POINTS = 40

# Deal-end reasons (DealResult.reason).
DECLARED = "declared"  # correct declaration, scored 1/2/3 by the loser
CLOSER_BEATEN = "closer_beaten"  # opponent of the closer went out first: 2
FALSE_DECLARATION = "false_declaration"  # the opponent scores 2
CLOSER_FAILED = "closer_failed"  # closed, nobody went out: 2, or 3 (no trick at closing)
LAST_TRICK = "last_trick"  # talon ran out, all tricks played, higher score wins
DRAWN = "drawn"  # equal scores after the last trick: nobody scores
REASONS = (DECLARED, CLOSER_BEATEN, FALSE_DECLARATION, CLOSER_FAILED, LAST_TRICK, DRAWN)


class DealResult(NamedTuple):
    """How a deal ended: ``winner`` is 0, 1 or None (drawn deal)."""

    winner: int | None
    game_points: int
    reason: str
    scores: tuple[int, int]


def marriage_points(shown: int, trump: int) -> int:
    """Points of the marriages of the suits in ``shown`` (bit s): 20 each, 40 in trumps."""
    return MARRIAGE_POINTS * (shown.bit_count() + ((shown >> trump) & 1))


def game_points(loser_score: int, loser_tricks: int) -> int:
    """What beating a player is worth (4.1): 3 if it took no trick, 2 if its
    score is under 33 (schneider), else 1."""
    if not loser_tricks:
        return 3
    return 1 if loser_score >= SCHNEIDER else 2


def declaration(s: Any, p: int) -> tuple[int, int, str]:
    """Player ``p`` declares (4.1): right with 66, else the opponent scores 2;
    beating the closer is worth 2, anything else :func:`game_points`.
    The state's ``rules`` may score a false declaration 3 against an
    opponent without a trick, and beating the closer as a failed close."""
    opp = 1 - p
    rules = s.rules
    if s.score(p) < WIN_SCORE:
        return opp, 3 if rules.false_claim_three and not s.tricks[opp] else 2, FALSE_DECLARATION
    if s.closed_by == opp:
        if rules.closer_beaten_like_failed:
            return p, closer_failed(s)[1], CLOSER_BEATEN
        return p, 2, CLOSER_BEATEN
    return p, game_points(s.score(opp), s.tricks[opp]), DECLARED


def closer_failed(s: Any) -> tuple[int, int, str]:
    """Nobody declared after a close (4.2): the closer's opponent scores 2, or 3
    if it had no trick when the talon was closed; presets with
    ``rules.failed_close_all_tricks`` (kawu, docs/rules-variants.md V2.6)
    count its tricks over the whole deal instead."""
    opp = 1 - s.closed_by
    tricks = s.tricks[opp] if s.rules.failed_close_all_tricks else s.closer_opp_tricks
    return opp, 3 if tricks == 0 else 2, CLOSER_FAILED


def last_trick(s: Any, winner: int | None = None) -> tuple[int | None, int, str]:
    """All tricks played with the talon spent (4.3, the last-trick bonus already
    counted): the higher score wins :func:`game_points`; equal scores draw the
    deal. Presets whose last trick wins the deal (``rules.last_trick_wins``)
    give the last trick's ``winner`` those game points, or score it as a
    declaration when it has 66."""
    n = s.rules.last_trick_wins
    if n and winner is not None:
        if s.score(winner) >= WIN_SCORE:
            return declaration(s, winner)
        return winner, n, LAST_TRICK
    s0, s1 = s.score(0), s.score(1)
    if s0 == s1:
        return None, 0, DRAWN
    winner = 0 if s0 > s1 else 1
    return winner, game_points(s.score(1 - winner), s.tricks[1 - winner]), LAST_TRICK


__all__ = [
    "CLOSER_BEATEN", "CLOSER_FAILED", "DECLARED", "DRAWN", "DealResult", "FALSE_DECLARATION",
    "LAST_TRICK", "MARRIAGE_POINTS", "REASONS", "SCHNEIDER", "TRUMP_MARRIAGE_POINTS", "WIN_SCORE",
    "closer_failed", "declaration", "game_points", "last_trick", "marriage_points",
]  # fmt: skip
