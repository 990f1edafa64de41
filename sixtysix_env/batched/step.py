"""One action per table: the transition of every field but the deal results.

Leads, follows and the trick, drawing, marriages, exchanges, closing and
declaring, as one fixed sequence of tensor operations over all tables
(``torch.where`` and the lookup tables of :mod:`.lookup`); a finished deal
gets window OVER and is scored by :mod:`.score`.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from ..actions import CLOSE, EXCHANGE
from ..cards import LAST_TRICK_BONUS, N_CARDS
from ..engine import DRAW, FINAL, LEAD, OVER, TALON_SIZE
from .lookup import KIND_DRAW, KIND_FOLLOW, KIND_LEAD, N_CODES
from .state import BatchedState


def apply(s: BatchedState, action: torch.Tensor) -> BatchedState:
    """The state after ``action`` at every table (``NOOP`` at tables that do not move): every
    field but the deal results; a finished deal gets window OVER."""
    lut, n, cols = s.t, s.num_envs, s.cols
    window, mover = s.window, s.to_act  # the window and the player who moves
    other = 1 - mover
    mover_idx = torch.add(cols, mover, alpha=n)  # flat index of the mover in a (2, N) field
    other_idx = torch.add(s.cols_n, mover, alpha=-n)
    mine = torch.stack((other, mover))  # (2, N) one-hot of the mover
    theirs = 1 - mine
    flat_hands = s.hands.view(-1)
    mover_hand = flat_hands.index_select(0, mover_idx)
    other_hand = flat_hands.index_select(0, other_idx)
    trump, trump_card, closed_by = s.trump, s.trump_card, s.closed_by

    window_action = torch.add(action, window, alpha=N_CODES)  # the (window, action) pair
    kind = lut.kind.index_select(0, window_action)
    play_lead = kind == KIND_LEAD
    follow = kind == KIND_FOLLOW
    draw = kind == KIND_DRAW
    exchange = action == EXCHANGE
    close = action == CLOSE
    m_suit = lut.marriage_suit.index_select(0, action)  # -1 unless a marriage
    marry = m_suit >= 0
    follows = follow.long()  # 1 where a follow completes a trick (multiplies what it scores)
    draws = draw.long()
    trick = _trick(s, action, mover, follow, follows)
    up, last_draw, mover_draws, other_draws = _draws(s, draw, draws)

    # exchange: the trump nine for the face-up card
    exchanges = exchange.long()
    nine = lut.nine.index_select(0, trump)
    card = lut.card_bit.index_select(0, action)  # the card played, 0 for the other actions
    mover_hand = (mover_hand ^ (card | ((lut.one << nine) | up) * exchanges)) | mover_draws
    tricks = s.tricks + trick.win
    window, to_act, points = _next_turn(s, window_action, mover, follow, follows, mover_hand, closed_by,
                                        trick)
    known_by_mover = lut.kq_action.index_select(0, action) | (up * exchanges)
    return s.replaced(
        hands=mine * mover_hand + theirs * (other_hand | other_draws),
        played=s.played | mine * card,
        void=s.void | mine * trick.void,
        won=s.won | trick.win * (card | (lut.one << trick.lead)),
        tricks=tricks,
        shown=s.shown | mine * lut.shown_action.index_select(0, action),
        known=s.known | mine * known_by_mover | theirs * last_draw,
        trump_card=torch.where(exchange, nine, trump_card),
        exchanged_by=torch.where(exchange, mover, s.exchanged_by),
        stock=s.stock - 2 * draws,
        closer_opp_tricks=torch.where(close, tricks.view(-1).index_select(0, other_idx), s.closer_opp_tricks),
        closed_by=torch.where(close, mover, closed_by),
        lead_card=torch.where(play_lead, action, torch.where(follow, -1, s.lead_card)),
        marriage_suit=torch.where(marry, m_suit, torch.where(play_lead, -1, s.marriage_suit)),
        can_declare=(s.can_declare | follow | marry) & ~play_lead,
        window=window, to_act=to_act, points=points,
    )


class Trick(NamedTuple):
    """The trick that a follow completes (every table computes one)."""

    lead: torch.Tensor  # the led card, 0 if none
    ltc: torch.Tensor  # the (led card, answer, trump) key of the trick tables
    winner: torch.Tensor  # its winner
    win: torch.Tensor  # (2, N) one-hot of its winner, 0 without a trick
    phase1: torch.Tensor  # the talon is open
    void: torch.Tensor  # what the answer reveals the follower lacks (phase 2)


def _trick(s: BatchedState, action: torch.Tensor, mover: torch.Tensor, follow: torch.Tensor,
           follows: torch.Tensor) -> Trick:
    """The trick that ``action`` completes where it is a follow (``follows``: 1 there, else 0)."""
    lut = s.t
    lead = s.lead_card.clamp(min=0)
    ltc = torch.add(s.trump, action.clamp(max=N_CARDS - 1), alpha=4).add_(lead, alpha=4 * N_CARDS)
    winner = mover ^ lut.leader_wins.index_select(0, ltc)
    win = torch.stack((1 - winner, winner)) * follows  # one-hot of the trick's winner, 0 without a trick
    phase1 = (s.stock > 0) & (s.closed_by < 0)
    void = lut.void.index_select(0, ltc) * (follow & ~phase1)
    return Trick(lead, ltc, winner, win, phase1, void)


def _draws(
    s: BatchedState, draw: torch.Tensor, draws: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Drawing (continue in the draw window): the winner draws first; at the
    last draw the loser takes the face-up card. Returns the face-up card's
    bit, the loser's face-up card (0 unless the last draw), and the cards the
    player to act and the other player draw (bits, 0 without a draw)."""
    lut, n, stock = s.t, s.num_envs, s.stock
    at = torch.add(s.cols, (TALON_SIZE - stock).clamp(max=TALON_SIZE - 2), alpha=n)
    flat_talon = s.talon.view(-1)
    up = lut.one << s.trump_card
    last_draw = torch.where(draw & (stock == 2), up, 0)
    mover_draws = lut.bit.index_select(0, flat_talon.index_select(0, at)) * draws
    second = lut.bit.index_select(0, flat_talon.index_select(0, at + n)) * draws
    other_draws = torch.where(last_draw != 0, last_draw, second)
    return up, last_draw, mover_draws, other_draws


def _next_turn(
    s: BatchedState,
    window_action: torch.Tensor,
    mover: torch.Tensor,
    follow: torch.Tensor,
    follows: torch.Tensor,
    mover_hand: torch.Tensor,
    closed_by: torch.Tensor,
    trick: Trick,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The next window, the next player to act, and the points with the trick's (and the
    last trick's bonus) to its winner. ``mover``: the player who moved; ``mover_hand``: their
    hand after the move; ``closed_by`` as before it."""
    lut = s.t
    after_trick = torch.where(
        trick.phase1, DRAW, torch.where(mover_hand != 0, LEAD, torch.where(closed_by >= 0, FINAL, OVER))
    )
    window = torch.where(follow, after_trick, lut.next_window.index_select(0, window_action))
    to_act = torch.where(follow, trick.winner, mover ^ lut.switch.index_select(0, window_action))
    last_trick = (after_trick == OVER).long() * follows
    trick_points = lut.trick_points.index_select(0, trick.ltc) + LAST_TRICK_BONUS * last_trick
    return window, to_act, s.points + trick.win * trick_points
