"""The end of a deal: docs/rules.md section 4 at the tables whose deal just ended.

Deal results (winner, game points, reason, scores), rewards, match scores
and match ends, computed on the finished tables' columns only.
"""

from __future__ import annotations

import torch

from ..actions import CONTINUE, DECLARE
from ..scoring import MARRIAGE_POINTS, REASONS, SCHNEIDER, TRUMP_MARRIAGE_POINTS, WIN_SCORE
from .state import BatchedState, result_fields

(R_DECLARED, R_CLOSER_BEATEN, R_FALSE_DECLARATION, R_CLOSER_FAILED, R_LAST_TRICK, R_DRAWN) = range(6)
assert REASONS == ("declared", "closer_beaten", "false_declaration", "closer_failed", "last_trick", "drawn")
assert TRUMP_MARRIAGE_POINTS == 2 * MARRIAGE_POINTS


def end_deals(
    s: BatchedState, ended: torch.Tensor, idx: torch.Tensor, a: torch.Tensor, none_ended: torch.Tensor
) -> BatchedState:
    """``s`` with the deals that just ended scored (``ended``; tables ``idx``, computed on
    those columns only; ``a``: the step's actions; ``none_ended``: the result rows of
    ``state.no_results``): deal results, rewards, match scores and match ends."""
    n, k = s.num_envs, idx.numel()
    results = none_ended.clone()  # rows: winner, points, reason, score 0, score 1, match winner, match value
    rewards = torch.zeros((n, 2), dtype=torch.float32, device=s.device)
    match_scores = s.match_scores
    if k:
        columns, signed, match_scores = score(s, idx, a)
        results.index_copy_(1, idx, columns)
        rewards.index_copy_(0, idx, signed.T.float())
    return s.replaced(match_scores=match_scores, rewards=rewards, deal_done=ended, **result_fields(results))


def score(
    s: BatchedState, idx: torch.Tensor, a: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """docs/rules.md section 4 (and the preset's scoring, docs/rules-variants.md) for the
    finished deals at ``idx``: the ``(7, k)`` result rows of :func:`end_deals`, the ``(2, k)``
    signed game points, and the ``(2, N)`` match scores with the game points added."""
    t, k = s.t, idx.numel()
    ka = a.index_select(0, idx)
    p = s.to_act.index_select(0, idx)  # the declarer (or the last trick's winner)
    closed_by = s.closed_by.index_select(0, idx)
    tricks = s.tricks.index_select(1, idx)
    shown = s.shown.index_select(1, idx)
    if t.held:  # marriages the preset holds back do not count (RulesState.score)
        held = s.held_suits.index_select(1, idx) * (tricks <= s.held_at.index_select(1, idx))
        shown = shown & ~held
    marriage_key = shown * 4 + s.trump.index_select(0, idx)
    mp = t.marriage_points.index_select(0, marriage_key.view(-1)).view(2, k)
    scores = s.points.index_select(1, idx) + mp * (tricks > 0)
    s0, s1 = scores[0], scores[1]
    declare = ka == DECLARE
    final = ka == CONTINUE  # in the final window: nobody went out after a close
    if t.last_trick_wins:
        # the deal ended after a trick (the last one, or 66 checked by the engine): its winner p
        # wins as a declaration with 66 or more, else the preset's points; nothing is drawn
        auto = ~(declare | final) & (torch.where(p == 1, s1, s0) >= WIN_SCORE)
        declare = declare | auto
    declared_ok = declare & (torch.where(p == 1, s1, s0) >= WIN_SCORE)
    winner = torch.where(final, 1 - closed_by, (s1 > s0).long())  # the last trick: the higher score
    if t.last_trick_wins:
        winner = torch.where(final, winner, p)
    winner = torch.where(declare, torch.where(declared_ok, p, 1 - p), winner)
    loser_1 = winner == 0
    loser_tricks = torch.where(loser_1, tricks[1], tricks[0])
    loser_score = torch.where(loser_1, s1, s0)
    scale = torch.where(loser_tricks == 0, 3, torch.where(loser_score >= SCHNEIDER, 1, 2))
    drawn = ~(declare | final) & (s0 == s1)
    if t.last_trick_wins:
        drawn = drawn & False
        scale = torch.where(declare | final, scale, t.last_trick_wins)
    beaten = declared_ok & (closed_by == 1 - p)
    false_points: int | torch.Tensor = 2
    if t.false_claim_three:  # 3 to an opponent (the winner) without a trick
        false_points = 3 - (torch.where(loser_1, tricks[0], tricks[1]) > 0).long()
    gp = torch.where(declare & ~declared_ok, false_points, scale)
    if t.failed_close_all_tricks:  # 3 if the closer's opponent took no trick in the whole deal
        opp_tricks = torch.where(closed_by == 1, tricks[0], tricks[1])
    else:  # ... when the talon was closed
        opp_tricks = s.closer_opp_tricks.index_select(0, idx)
    failed = 3 - (opp_tricks > 0).long()
    gp = torch.where(beaten, failed if t.beaten_like_failed else 2, gp)
    gp = torch.where(final, failed, gp)
    gp = gp * ~drawn
    if t.draw_bonus:
        gp = gp + s.bonus.index_select(0, idx) * ~drawn
    reason = torch.where(declared_ok, R_DECLARED, R_FALSE_DECLARATION)
    reason = torch.where(beaten, R_CLOSER_BEATEN, reason)
    reason = torch.where(final, R_CLOSER_FAILED, reason)
    reason = torch.where(declare | final, reason, R_LAST_TRICK + drawn.long())
    signed = torch.stack((1 - 2 * winner, 2 * winner - 1)) * gp  # +gp winner, -gp loser
    match = s.match_scores.index_select(1, idx) + signed.clamp(min=0)
    match_scores = s.match_scores.index_copy(1, idx, match)
    if s.episode == "match":
        over = (match >= t.match_target).any(0)
        match_winner = torch.where(over, winner, -1)
        value = over.long()  # what the match counts for (0: none ended), as sixtysix_env.vector
        if t.double_game:  # a match won 7-0 counts twice (State.match_value)
            value = value + (over & (match.min(0).values == 0)).long()
    else:
        match_winner = torch.full_like(winner, -1)
        value = torch.zeros_like(winner)
    deal_winner = torch.where(drawn, -1, winner)
    return torch.stack((deal_winner, gp, reason, s0, s1, match_winner, value)), signed, match_scores
