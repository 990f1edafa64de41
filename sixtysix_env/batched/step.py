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
from ..cards import N_CARDS
from ..engine import DRAW, FINAL, LEAD, OVER
from ..scoring import WIN_SCORE
from .lookup import KIND_DRAW, KIND_FOLLOW, KIND_LEAD, N_CODES, NEVER
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
    new = s.replaced(
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
    if lut.german:
        return new
    return _preset(s, new, action, mine, marry, mover_idx, follow)


def _preset(s: BatchedState, new: BatchedState, action: torch.Tensor, mine: torch.Tensor,
            marry: torch.Tensor, mover_idx: torch.Tensor, follow: torch.Tensor) -> BatchedState:
    """What a preset's deal (``VariantState``) changes after the German transition ``s`` to
    ``new``: marriages held back, 66 checked after every trick, both drawing at once. Python
    branches on the engine's one preset; tensor operations over every table."""
    lut = s.t
    changes = {}
    if lut.held:  # RulesState._hold_marriage
        mover = mine == 1
        mover_tricks = s.tricks.view(-1).index_select(0, mover_idx)
        suit_bit = lut.shown_action.index_select(0, action)
        if lut.credit_next_trick:  # counts at the owner's next trick won
            at = mover & marry
            changes["held_suits"] = torch.where(at, suit_bit, s.held_suits)
            changes["held_at"] = torch.where(at, mover_tricks, s.held_at)
        else:  # shown before the owner's first trick: lost for good
            lost = mover & (marry & (mover_tricks == 0))
            changes["held_suits"] = s.held_suits | suit_bit * lost
            changes["held_at"] = torch.where(lost, NEVER, s.held_at)
        new = new.replaced(**changes)
    window = new.window
    if lut.auto_declare:  # the trick's winner with 66 or more wins the deal at once (scored as declared)
        winner = new.to_act
        scores = new.scores()
        won = follow & (window != OVER) & (torch.where(winner == 1, scores[1], scores[0]) >= WIN_SCORE)
        window = torch.where(won, OVER, window)
    if not lut.draw_window:  # no draw window: both draw at once, the trick's winner first
        drawing = window == DRAW
        ups, downs, stock = _draw_at_once(new, drawing)
        new = new.replaced(hands=new.hands | ups, known=new.known | downs, stock=stock,
                           window=torch.where(drawing, LEAD, window))
    elif lut.auto_declare:
        new = new.replaced(window=window)
    return new


def _draw_at_once(s: BatchedState, drawing: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Both players draw at tables ``drawing`` (the player to act, the trick's winner, first;
    at the last draw the other takes the face-up card): the ``(2, N)`` cards drawn, the
    ``(2, N)`` cards that become known (the face-up card), and the stock after."""
    lut, n, stock = s.t, s.num_envs, s.stock
    size = lut.talon_size
    at = torch.add(s.cols, (size - stock).clamp(max=size - 2), alpha=n)
    flat_talon = s.talon.view(-1)
    draws = drawing.long()
    last = torch.where(drawing & (stock == 2), lut.one << s.trump_card, 0)
    first = lut.bit.index_select(0, flat_talon.index_select(0, at)) * draws
    second = lut.bit.index_select(0, flat_talon.index_select(0, at + n)) * draws
    second = torch.where(last != 0, last, second)
    winner = s.to_act
    win = torch.stack((1 - winner, winner))  # one-hot of the drawing winner
    lose = 1 - win
    return win * first + lose * second, lose * last, stock - 2 * draws


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
    size = lut.talon_size
    at = torch.add(s.cols, (size - stock).clamp(max=size - 2), alpha=n)
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
    trick_points = lut.trick_points.index_select(0, trick.ltc) + lut.last_trick_bonus * last_trick
    return window, to_act, s.points + trick.win * trick_points
