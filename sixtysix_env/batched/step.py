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


def apply(s: BatchedState, a: torch.Tensor) -> None:
    """Play ``a`` (``NOOP`` at tables that do not move): every field but the
    deal results; a finished deal gets window OVER."""
    t, n, cols = s.t, s.num_envs, s.cols
    w, p = s.window, s.to_act
    o = 1 - p
    pi = torch.add(cols, p, alpha=n)  # flat index of the player to act in a (2, N) field
    oi = torch.add(s.cols_n, p, alpha=-n)
    mine = torch.stack((o, p))  # (2, N) one-hot of the player to act
    theirs = 1 - mine
    flat_hands = s.hands.view(-1)
    hp = flat_hands.index_select(0, pi)
    ho = flat_hands.index_select(0, oi)
    trump, trump_card, closed_by = s.trump, s.trump_card, s.closed_by

    wa = torch.add(a, w, alpha=N_CODES)  # the (window, action) pair
    kind = t.kind.index_select(0, wa)
    play_lead = kind == KIND_LEAD
    follow = kind == KIND_FOLLOW
    draw = kind == KIND_DRAW
    exchange = a == EXCHANGE
    close = a == CLOSE
    m_suit = t.marriage_suit.index_select(0, a)  # -1 unless a marriage
    marry = m_suit >= 0
    f = follow.long()
    d = draw.long()
    tr = _trick(s, a, p, follow, f)
    up, last_draw, draw_p, draw_o = _draws(s, draw, d)

    # exchange: the trump nine for the face-up card
    e = exchange.long()
    nine = t.nine.index_select(0, trump)
    cb = t.card_bit.index_select(0, a)  # the card played, 0 for the other actions
    hp = (hp ^ (cb | ((t.one << nine) | up) * e)) | draw_p
    s.hands = mine * hp + theirs * (ho | draw_o)
    s.played = s.played | mine * cb
    s.void = s.void | mine * tr.void
    s.won = s.won | tr.win * (cb | (t.one << tr.lead))
    s.tricks = s.tricks + tr.win
    s.shown = s.shown | mine * t.shown_action.index_select(0, a)
    known_p = t.kq_action.index_select(0, a) | (up * e)
    s.known = s.known | mine * known_p | theirs * last_draw
    s.trump_card = torch.where(exchange, nine, trump_card)
    s.exchanged_by = torch.where(exchange, p, s.exchanged_by)
    s.stock = s.stock - 2 * d
    opp_tricks = s.tricks.view(-1).index_select(0, oi)
    s.closer_opp_tricks = torch.where(close, opp_tricks, s.closer_opp_tricks)
    s.closed_by = torch.where(close, p, closed_by)
    s.lead_card = torch.where(play_lead, a, torch.where(follow, -1, s.lead_card))
    s.marriage_suit = torch.where(marry, m_suit, torch.where(play_lead, -1, s.marriage_suit))
    s.can_declare = (s.can_declare | follow | marry) & ~play_lead
    _next_turn(s, wa, p, follow, f, hp, closed_by, tr)


class Trick(NamedTuple):
    """The trick that a follow completes (every table computes one)."""

    lead: torch.Tensor  # the led card, 0 if none
    ltc: torch.Tensor  # the (led card, answer, trump) key of the trick tables
    winner: torch.Tensor  # its winner
    win: torch.Tensor  # (2, N) one-hot of its winner, 0 without a trick
    phase1: torch.Tensor  # the talon is open
    void: torch.Tensor  # what the answer reveals the follower lacks (phase 2)


def _trick(s: BatchedState, a: torch.Tensor, p: torch.Tensor, follow: torch.Tensor, f: torch.Tensor) -> Trick:
    t = s.t
    lead = s.lead_card.clamp(min=0)
    ltc = torch.add(s.trump, a.clamp(max=N_CARDS - 1), alpha=4).add_(lead, alpha=4 * N_CARDS)
    winner = p ^ t.leader_wins.index_select(0, ltc)
    win = torch.stack((1 - winner, winner)) * f  # one-hot of the trick's winner, 0 without a trick
    phase1 = (s.stock > 0) & (s.closed_by < 0)
    void = t.void.index_select(0, ltc) * (follow & ~phase1)
    return Trick(lead, ltc, winner, win, phase1, void)


def _draws(
    s: BatchedState, draw: torch.Tensor, d: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Drawing (continue in the draw window): the winner draws first; at the
    last draw the loser takes the face-up card. Returns the face-up card's
    bit, the loser's face-up card (0 unless the last draw), and the cards the
    player to act and the other player draw (bits, 0 without a draw)."""
    t, n, stock = s.t, s.num_envs, s.stock
    at = torch.add(s.cols, (TALON_SIZE - stock).clamp(max=TALON_SIZE - 2), alpha=n)
    flat_talon = s.talon.view(-1)
    up = t.one << s.trump_card
    last_draw = torch.where(draw & (stock == 2), up, 0)
    draw_p = t.bit.index_select(0, flat_talon.index_select(0, at)) * d
    second = t.bit.index_select(0, flat_talon.index_select(0, at + n)) * d
    draw_o = torch.where(last_draw != 0, last_draw, second)
    return up, last_draw, draw_p, draw_o


def _next_turn(
    s: BatchedState,
    wa: torch.Tensor,
    p: torch.Tensor,
    follow: torch.Tensor,
    f: torch.Tensor,
    hp: torch.Tensor,
    closed_by: torch.Tensor,
    tr: Trick,
) -> None:
    """The next window and player to act, and the trick's points (with the
    last trick's bonus) to its winner. ``p``: the player who moved; ``hp``:
    their hand after the move; ``closed_by`` as before it."""
    t = s.t
    after_trick = torch.where(
        tr.phase1, DRAW, torch.where(hp != 0, LEAD, torch.where(closed_by >= 0, FINAL, OVER))
    )
    s.window = torch.where(follow, after_trick, t.next_window.index_select(0, wa))
    s.to_act = torch.where(follow, tr.winner, p ^ t.switch.index_select(0, wa))
    last_trick = (after_trick == OVER).long() * f
    trick_points = t.trick_points.index_select(0, tr.ltc) + LAST_TRICK_BONUS * last_trick
    s.points = s.points + tr.win * trick_points
