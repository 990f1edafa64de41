"""Legal actions of every table's player to act, and the check of a step's actions."""

from __future__ import annotations

from typing import Any

import torch

from ..actions import (
    CLOSE,
    CONTINUE,
    DECLARE,
    EXCHANGE,
    N_ACTIONS,
    IllegalActionError,
    action_name,
    actions_of,
)
from ..engine import WINDOW_NAMES
from .lookup import FINAL_MASK
from .state import BatchedState


def final_over_masks(s: BatchedState) -> torch.Tensor:
    """``(2N,)``: the legal masks of the FINAL and OVER windows (constants),
    in the layout :func:`legal_mask` appends to its per-window rows."""
    final = torch.full((s.num_envs,), FINAL_MASK, dtype=torch.int64, device=s.device)
    return torch.cat((final, torch.zeros_like(final)))


def legal_mask(s: BatchedState, final_over: torch.Tensor) -> torch.Tensor:
    """Legal actions of each table's player to act as int64 32-bit masks
    (``State.legal_mask`` for every column; 0 once a deal is over);
    ``final_over`` from :func:`final_over_masks`."""
    t = s.t
    n = s.num_envs
    pi = torch.add(s.cols, s.to_act, alpha=n)
    h = s.hands.view(-1).index_select(0, pi)
    closed = s.closed_by >= 0
    talon_open = (s.stock > 0) & ~closed
    trump = s.trump
    nine = (h >> t.nine.index_select(0, trump)) & 1
    has_trick = s.tricks.view(-1).index_select(0, pi) > 0
    # follow: phase 1 any card; phase 2 follow suit and beat, else trump, else any
    lead = s.lead_card.clamp(min=0)
    same = h & t.suit_of_lead.index_select(0, lead)
    beat = same & t.higher.index_select(0, lead)
    trumps = h & t.suit_mask.index_select(0, trump)
    beat_or_follow = torch.where(beat != 0, beat, same)
    forced = torch.where(same != 0, beat_or_follow, torch.where(trumps != 0, trumps, h))
    follow = torch.where(talon_open, h, forced)
    # lead: a card (the shown marriage's K or Q), marriage, exchange, close, declare; the
    # preset's switches (one engine, one preset) drop or add actions for every table at once
    decl = (s.can_declare & has_trick).long() << DECLARE if not t.auto_declare else 0
    ms = s.marriage_suit
    after_marriage = (h & t.kq.index_select(0, ms.clamp(min=0))) | decl
    if t.closing:
        after_marriage = after_marriage | (talon_open.long() << CLOSE)
    married = t.married_low.index_select(0, h & 4095) | t.married_high.index_select(0, h >> 12)
    exchange = nine if t.free_exchange else has_trick.long() & nine
    opened = (h | decl | married) | (exchange << EXCHANGE | ((1 << CLOSE) if t.closing else 0))
    phase2 = h | decl | married if t.late_marriages else h | decl
    lead_mask = torch.where(ms >= 0, after_marriage, torch.where(talon_open, opened, phase2))
    draw = (nine << EXCHANGE) | ((1 << CONTINUE) | (1 << CLOSE) | (1 << DECLARE))
    by_window = torch.stack((lead_mask, draw, draw & ~((1 << CLOSE) | (1 << DECLARE)), follow))
    # windows FINAL and OVER are constants, kept after the four rows of by_window
    by_window = torch.cat((by_window.view(-1), final_over))
    return by_window.index_select(0, torch.add(s.cols, s.window, alpha=n))


def action_tensor(actions: Any, num_envs: int, device: torch.device) -> torch.Tensor:
    """``actions`` as an int64 tensor of shape ``(num_envs,)`` on ``device``: integer ids
    of any integer dtype (a tensor, numpy array or list). A bool, float or other value is
    a ``ValueError``, never rounded into an action, as in the scalar envs."""
    try:
        a = torch.as_tensor(actions)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"actions must be {num_envs} integer action ids, got {actions!r:.80}") from None
    if a.dtype == torch.bool or a.dtype.is_floating_point or a.dtype.is_complex:
        raise ValueError(f"actions must be integer action ids, got dtype {a.dtype}")
    if a.shape != (num_envs,):
        raise ValueError(f"expected actions of shape ({num_envs},), got {tuple(a.shape)}")
    return a.to(device=device, dtype=torch.int64)


def active_tensor(active: Any, num_envs: int, device: torch.device) -> torch.Tensor:
    """``active`` (the tables that move) as a bool tensor of shape ``(num_envs,)`` on
    ``device`` (a tensor, numpy array or list of bools); anything else is a ``ValueError``."""
    try:
        m = torch.as_tensor(active)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"active must be {num_envs} bools, got {active!r:.80}") from None
    if m.dtype != torch.bool:
        raise ValueError(f"active must be a bool mask, got dtype {m.dtype}")
    if m.shape != (num_envs,):
        raise ValueError(f"expected active of shape ({num_envs},), got {tuple(m.shape)}")
    return m.to(device=device)


def check_actions(s: BatchedState, legal: torch.Tensor, a: torch.Tensor, active: torch.Tensor | None) -> None:
    """Raise :class:`~sixtysix_env.actions.IllegalActionError` (a ``ValueError``) naming
    the tables where ``a`` is not in ``legal`` (the masks of
    :func:`legal_mask`; ``active``: only those tables count)."""
    inside = (a >= 0) & (a < N_ACTIONS)
    ok = inside & (((legal >> (a * inside)) & 1) == 1)
    if active is not None:
        ok |= ~active
    if bool(ok.all()):
        return
    bad = (~ok).nonzero().flatten().tolist()
    i = bad[0]
    act, legal_i = int(a[i]), int(legal[i])
    try:
        what = f"{act} ({action_name(act)})"
    except ValueError:
        what = str(act)
    names = ", ".join(f"{x} ({action_name(x)})" for x in actions_of(legal_i))
    raise IllegalActionError(
        f"illegal action at {len(bad)} table(s) {bad[:8]}; table {i}: {what} for "
        f"player_{int(s.to_act[i])} in the {WINDOW_NAMES[int(s.window[i])]} window; legal: {names}",
        act,
        legal_i,
    )
