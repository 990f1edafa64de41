"""The environments' ``info`` dicts: the same keys, plain numbers, on every step.

Replay buffers and loggers (Tianshou, SB3's ``Monitor``, TorchRL) stack the
infos of many steps, so every info of both environments has exactly the keys
of :data:`INFO_KEYS`, each an ``int``:

=================  ============================================================
key                value
=================  ============================================================
``deal_over``      1 if a deal ended in this step, else 0
``deal_winner``    the seat (0/1) that won the deal that ended; -1 for a drawn
                   deal or when no deal ended
``deal_points``    game points (1-3) of the deal that ended; 0 otherwise
``reason_code``    how it ended: ``REASON_CODES[reason]`` (1-6, in the order of
                   :data:`~sixtysix_env.scoring.REASONS`); 0 when no deal ended
``deal_score_0``   card points of seat 0 / 1 at the end of the deal that ended;
``deal_score_1``   0 otherwise
``deals_done``     deals finished so far in this match (episode)
``match_score_0``  game points of seat 0 / 1 in the match after this step
``match_score_1``
``illegal``        1 if this step ended the episode with an illegal action
=================  ============================================================

The Gymnasium env adds ``seat`` (the learner's seat, an ``int`` 0/1 in every
mode) and ``action_mask`` (int8, 32). The rich result of the last finished deal (winner's name, reason
string, scores by agent; under a rule preset other than plain German also
``rules``, ``bonus`` and ``match_value``, see :func:`rich_result`) is
``env.unwrapped.last_deal_result`` in both environments (None until a deal
ends). ``info_mode="rich"`` also adds the pre-1.1 keys ``deal_result``,
``match_score`` and ``deal`` (nested dicts, present after the first deal
and kept until the next one ends) that the arena and the tables read: see :func:`rich_info`.
"""

from __future__ import annotations

from typing import Any

from .engine import PLAYER_IDS, State
from .scoring import REASONS, DealResult
from .variants import GERMAN

#: ``reason_code`` of each deal-end reason; 0 means no deal ended.
REASON_CODES = {reason: i + 1 for i, reason in enumerate(REASONS)}
#: The keys of every info, in order.
INFO_KEYS = (
    "deal_over", "deal_winner", "deal_points", "reason_code", "deal_score_0", "deal_score_1",
    "deals_done", "match_score_0", "match_score_1", "illegal",
)
#: The keys that describe the deal that ended in a step.
DEAL_KEYS = INFO_KEYS[:6]
#: ``info_mode`` values: plain numbers only, or with the nested pre-1.1 keys as well.
INFO_MODES = ("flat", "rich")


def flat_info(state: State, ended: DealResult | None, deals_done: int,
              illegal: bool = False) -> dict[str, int]:
    """The info of a step: ``ended`` is the result of the deal that ended in it, or None."""
    ms = state.match_scores
    info = {
        "deal_over": 0, "deal_winner": -1, "deal_points": 0, "reason_code": 0,
        "deal_score_0": 0, "deal_score_1": 0, "deals_done": int(deals_done),
        "match_score_0": int(ms[0]), "match_score_1": int(ms[1]), "illegal": int(illegal),
    }
    if ended is not None:
        info.update(
            deal_over=1, deal_winner=-1 if ended.winner is None else int(ended.winner),
            deal_points=int(ended.game_points), reason_code=REASON_CODES[ended.reason],
            deal_score_0=int(ended.scores[0]), deal_score_1=int(ended.scores[1]),
        )
    return info


def rich_result(result: DealResult, state: State | None = None) -> dict[str, Any]:
    """A deal result by agent name: ``{"winner": agent or None, "game_points", "reason", "scores"}``.

    Under a preset other than plain German (``state.rules``, docs/rules-variants.md)
    it also says what the preset changed: ``"rules"`` (the spec), ``"bonus"``
    (draw-bonus game points included in ``game_points``) and ``"match_value"``
    (2 for a double game once the match is over, else 1)."""
    winner = result.winner
    out: dict[str, Any] = {
        "winner": None if winner is None else PLAYER_IDS[winner],
        "game_points": result.game_points,
        "reason": result.reason,
        "scores": {PLAYER_IDS[0]: result.scores[0], PLAYER_IDS[1]: result.scores[1]},
    }
    if state is not None and state.rules != GERMAN:
        out["rules"] = state.rules.spec
        out["bonus"] = state.bonus if winner is not None else 0
        out["match_value"] = state.match_value
    return out


def rich_info(state: State, result: DealResult, deal: int) -> dict[str, Any]:
    """The pre-1.1 keys after deal ``deal`` ended (``info_mode="rich"``): ``deal_result``
    (:func:`rich_result`), ``match_score`` (``{agent: game points}``) and ``deal``."""
    ms = state.match_scores
    return {
        "deal_result": rich_result(result, state),
        "match_score": {PLAYER_IDS[0]: ms[0], PLAYER_IDS[1]: ms[1]},
        "deal": deal,
    }


def check_info_mode(info_mode: object) -> None:
    """``ValueError`` unless ``info_mode`` is one of :data:`INFO_MODES`."""
    if info_mode not in INFO_MODES:
        raise ValueError(f"info_mode must be one of {list(INFO_MODES)}, got {info_mode!r}")


__all__ = [
    "DEAL_KEYS", "INFO_KEYS", "INFO_MODES", "REASON_CODES",
    "check_info_mode", "flat_info", "rich_info", "rich_result",
]
