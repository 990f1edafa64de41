"""Observations of a :class:`~sixtysix_env.batched.engine.BatchedEngine`, all tables at once.

:func:`observe` returns the 312 features of :func:`sixtysix_env.observation.encode`
(same layout, same float32 values, bit for bit) for one seat per table;
``full=True`` appends the 72 hidden-information features of ``encode_full``
(critics only). ``out=`` writes into a preallocated tensor instead of a new
one (at 4,096 tables a fresh 5 MB tensor per step costs about as much in
page faults as building it). :func:`action_masks` turns the engine's legal
bitmasks into ``(N, 32)`` bool masks; :func:`masks_of` reads them out of
observations of the players to act (features 240-271).

How: the 304 binary features of a table are the bits of one little-endian
304-bit number, built from the card sets and flags with shifts into five
int64 words and reinterpreted as 38 bytes (a free view). A single
``index_select`` from a table of the float bit patterns of all 256 bytes
then writes the 304 binary features. That table has one extra row per table
holding its 8 scaled counts (four rows with ``full``: the talon order too),
so the same gather writes the whole observation in one pass. The 32 flag
bits at 272-303 come from one lookup keyed by the small fields they depend
on (window, seats, trump, marriage, ...). Some seventy small tensor
operations per call, whatever the number of tables.
"""

from __future__ import annotations

import sys

import torch

from ..actions import N_ACTIONS
from ..cards import N_CARDS
from ..engine import MATCH_TARGET, N_WINDOWS, OVER, TALON_SIZE
from ..observation import (
    CAN_DECLARE,
    CLOSED_BY,
    CLOSER_OPP_NO_TRICK,
    DEALER,
    EXCHANGED_BY,
    FULL_OBS_SIZE,
    LEGAL,
    MARRIAGE_NOW,
    MY_TURN,
    N_BITS,
    OBS_SIZE,
    SHOWN_ME,
    SHOWN_OPP,
    TRUMP_SUIT,
    WINDOW,
)
from ..scoring import WIN_SCORE
from .engine import BatchedEngine
from .lookup import normal_tensors

_FLAGS = LEGAL + N_ACTIONS  # bit 0 of the flags word is feature 272
assert _FLAGS == TRUMP_SUIT and N_BITS == _FLAGS + 32 and OBS_SIZE == N_BITS + 8
_F_SHOWN_ME = SHOWN_ME - _FLAGS
_F_SHOWN_OPP = SHOWN_OPP - _FLAGS
_F_MARRIAGE = MARRIAGE_NOW - _FLAGS
_F_WINDOW = WINDOW - _FLAGS
_F_CLOSED = CLOSED_BY - _FLAGS
_F_EXCHANGED = EXCHANGED_BY - _FLAGS
_F_DEALER = DEALER - _FLAGS
_F_MY_TURN = MY_TURN - _FLAGS
_F_CAN_DECLARE = CAN_DECLARE - _FLAGS
_F_NO_TRICK = CLOSER_OPP_NO_TRICK - _FLAGS
_N_CARD_PLANES = 10  # 0-239: ten 24-card planes
_N_BYTES = N_BITS // 8  # 38 bytes of binary features
assert sys.byteorder == "little"  # the byte view of int64 words


# The flags word (features 272-303) of every combination of the small fields it
# depends on, indexed by a mixed-radix key: (digit, radix) from the lowest.
_KEY_DIGITS = (
    ("window", N_WINDOWS), ("me", 2), ("to_act", 2), ("dealer", 2), ("exchanged_by + 1", 3),
    ("closed_by + 1", 3), ("closer_opp_tricks == 0", 2), ("can_declare", 2), ("trump", 4),
    ("marriage_suit + 1", 5),
)
_STRIDE = {}
_n = 1
for _name, _radix in _KEY_DIGITS:
    _STRIDE[_name] = _n
    _n *= _radix
_KEY_SIZE = _n
_KEY_OFFSET = _STRIDE["exchanged_by + 1"] + _STRIDE["closed_by + 1"] + _STRIDE["marriage_suit + 1"]
del _n, _name, _radix


def _flags_table() -> torch.Tensor:
    k = torch.arange(_KEY_SIZE)
    d = {name: k // _STRIDE[name] % radix for name, radix in _KEY_DIGITS}
    me, window = d["me"], d["window"]
    closed_by, exchanged_by = d["closed_by + 1"] - 1, d["exchanged_by + 1"] - 1
    suit = d["marriage_suit + 1"] - 1
    one = torch.ones_like(k)
    x = (one << d["trump"]) | (one << (window + _F_WINDOW))
    x |= one << ((d["dealer"] != me).long() + _F_DEALER)
    x |= torch.where(suit >= 0, one << (suit.clamp(min=0) + _F_MARRIAGE), 0)
    x |= torch.where(closed_by >= 0, one << ((closed_by != me).long() + _F_CLOSED), 0)
    x |= ((closed_by >= 0) & (d["closer_opp_tricks == 0"] == 1)).long() << _F_NO_TRICK
    x |= torch.where(exchanged_by >= 0, one << ((exchanged_by != me).long() + _F_EXCHANGED), 0)
    x |= ((d["to_act"] == me) & (window != OVER)).long() << _F_MY_TURN
    return x | (d["can_declare"] << _F_CAN_DECLARE)


class _ObsTables:
    def __init__(self, device: torch.device) -> None:
        def t(values: list[int]) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.int64, device=device)

        bits = (torch.arange(256).unsqueeze(1) >> torch.arange(8)) & 1
        self.byte_bits = bits.to(device=device, dtype=torch.float32)
        self.byte_bool = bits.to(device=device, dtype=torch.bool)
        self.shift4 = t([0, 8, 16, 24])
        # scalar encode divides Python ints by these floats (float64) and stores float32
        scale = [TALON_SIZE, WIN_SCORE, WIN_SCORE, TALON_SIZE, TALON_SIZE, TALON_SIZE]
        scale += [MATCH_TARGET, MATCH_TARGET]
        self.count_scale = torch.tensor(scale, dtype=torch.float64, device=device)
        self.order = torch.tensor([k / TALON_SIZE for k in range(TALON_SIZE + 1)], dtype=torch.float64,
                                  device=device).float()
        self.one = t([1])
        self.talon_pos = t(list(range(TALON_SIZE - 1)))
        self.up_bit = t([0] * N_CARDS + [1 << c for c in range(N_CARDS)])  # by card + 24 * (talon not empty)
        self.lead_bit = t([0] + [1 << c for c in range(N_CARDS)])  # by lead_card + 1
        self.flags = _flags_table().to(device)
        self.pair_rows = t(list(range(9))).unsqueeze(1)


_OBS_TABLES: dict[torch.device, _ObsTables] = {}


def _tables(device: torch.device) -> _ObsTables:
    if device not in _OBS_TABLES:
        _OBS_TABLES[device] = _ObsTables(device)
    return _OBS_TABLES[device]


class _Buffers:
    """Per engine and mode: the gather's source table (the 256 byte rows, then
    ``extra`` rows per table) and its index (the extra-row columns fixed)."""

    @normal_tensors
    def __init__(self, n: int, device: torch.device, full: bool) -> None:
        self.extra = 4 if full else 1
        self.rows = torch.empty((256 + n * self.extra, 8), dtype=torch.float32, device=device)
        self.rows[:256] = _tables(device).byte_bits
        self.per_table = self.rows[256:].view(n, self.extra, 8)
        width = (FULL_OBS_SIZE if full else OBS_SIZE) // 8
        self.idx = torch.empty((n, width), dtype=torch.int64, device=device)
        base = 256 + torch.arange(n, dtype=torch.int64, device=device) * self.extra
        self.idx[:, _N_BYTES] = base
        if full:
            self.idx[:, _N_BYTES + 7 :] = base.unsqueeze(1) + torch.arange(1, 4, device=device)


def _buffers(eng: BatchedEngine, full: bool) -> _Buffers:
    cache = eng.__dict__.setdefault("_obs_buffers", {})
    if full not in cache:
        cache[full] = _Buffers(eng.num_envs, eng.device, full)
    return cache[full]


def action_masks(legal: torch.Tensor) -> torch.Tensor:
    """``(N, 32)`` bool action masks from int64 legal bitmasks ``(N,)``."""
    ot = _tables(legal.device)
    idx = ((legal.unsqueeze(1) >> ot.shift4) & 255).flatten()
    return ot.byte_bool.index_select(0, idx).view(legal.shape[0], N_ACTIONS)


def masks_of(obs: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """The ``(N, 32)`` bool action masks inside observations of the players to
    act (written into ``out`` if given)."""
    legal = obs[:, LEGAL : LEGAL + N_ACTIONS]
    return legal.bool() if out is None else out.copy_(legal)


def observe(
    eng: BatchedEngine,
    seat: torch.Tensor | None = None,
    *,
    full: bool = False,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """Observation of ``seat`` (default: each table's player to act), ``(N, 312)``
    float32, or ``(N, 384)`` with ``full=True``; equal to ``encode(view(state,
    seat))`` (``encode_full(state, seat)``) table by table. ``out`` (a
    contiguous float32 tensor of that shape) receives it without allocating:
    a fresh 5 MB tensor per step costs as much as the rest in page faults."""
    s = eng.now  # the tables' tensors
    ot = _tables(s.device)
    n, cols = s.num_envs, s.cols
    to_act, window = s.to_act, s.window
    me = to_act if seat is None else seat.to(device=s.device, dtype=torch.int64)
    # the per-player fields of "me" and "opp", by one gather each from their stack
    pairs = torch.stack((s.hands, s.known, s.won, s.played, s.shown, s.tricks, s.match_scores,
                         s.scores(), s.void)).view(-1)
    rows = ot.pair_rows * (2 * n)
    mine = pairs.index_select(0, (rows + torch.add(cols, me, alpha=n)).view(-1)).view(9, n)
    theirs = pairs.index_select(0, (rows + torch.add(s.cols_n, me, alpha=-n)).view(-1)).view(9, n)
    hand, known_me, won_me, played_me, shown_me, tricks_me, match_me, score_me, _ = mine
    opp_hand, known_opp, won_opp, played_opp, shown_opp, tricks_opp, match_opp, score_opp, void_opp = theirs
    stock = s.stock
    up = ot.up_bit.index_select(0, torch.add(s.trump_card, stock > 0, alpha=N_CARDS))
    opp_known = known_opp & opp_hand
    opp_void = void_opp & ~(hand | played_me | played_opp | opp_known | up)
    if not s.t.german:  # a smaller deck: voids outside it are not unseen cards
        opp_void = opp_void & s.t.deck_mask
    table = ot.lead_bit.index_select(0, s.lead_card + 1)
    closed = s.closed_by >= 0
    key = (window + _KEY_OFFSET).add_(me, alpha=_STRIDE["me"]).add_(to_act, alpha=_STRIDE["to_act"])
    key.add_(s.dealer, alpha=_STRIDE["dealer"]).add_(s.exchanged_by, alpha=_STRIDE["exchanged_by + 1"])
    key.add_(s.closed_by, alpha=_STRIDE["closed_by + 1"]).add_(s.trump, alpha=_STRIDE["trump"])
    key.add_(s.closer_opp_tricks == 0, alpha=_STRIDE["closer_opp_tricks == 0"])
    key.add_(s.can_declare, alpha=_STRIDE["can_declare"])
    key.add_(s.marriage_suit, alpha=_STRIDE["marriage_suit + 1"])
    flags = ot.flags.index_select(0, key) | (torch.add(shown_me, shown_opp, alpha=16) << _F_SHOWN_ME)
    legal = eng.legal if seat is None else eng.legal * ((flags >> _F_MY_TURN) & 1)
    counts = torch.stack((stock, score_me, score_opp, tricks_me, tricks_opp, s.closer_opp_tricks * closed,
                          match_me, match_opp), 1)
    buf = _buffers(eng, full)
    buf.per_table[:, 0] = counts.double() / ot.count_scale  # rounded to float32 as encode does
    # features 0-303 as one little-endian 304-bit number per table, in five int64 words
    # (adding is or-ing where the bits do not overlap)
    words = [
        torch.add(hand, opp_known, alpha=1 << 24) | (opp_void << 48),
        (opp_void >> 16) | torch.add(known_me & hand, won_me, alpha=1 << 24) << 8 | (won_opp << 56),
        (won_opp >> 8) | torch.add(played_me, played_opp, alpha=1 << 24) << 16,
        torch.add(table, up, alpha=1 << 24) | (legal << 48),
        (legal >> 16) | (flags << 16),
    ]
    if full:
        size = s.t.talon_size  # the preset's talon (German 12); the order is still scaled by 12
        start = (size - stock).unsqueeze(1)
        pos = ot.talon_pos[: size - 1]
        in_talon = pos >= start  # face-down cards still in the talon (none once spent)
        cards = s.talon[: size - 1].T
        talon_set = ((ot.one << cards) * in_talon).sum(1)
        order = ot.order.index_select(0, (pos - start + 1).clamp(min=0).flatten()).view(n, size - 1)
        buf.per_table[:, 1:].view(n, 24).zero_().scatter_(1, cards, order)
        words.append(opp_hand | (talon_set << 24))
    by = torch.stack(words, 1).view(torch.uint8)  # (N, 8 * words) bytes, lowest first
    buf.idx[:, :_N_BYTES] = by[:, :_N_BYTES]
    if full:
        buf.idx[:, _N_BYTES + 1 : _N_BYTES + 7] = by[:, 40:46]
    if out is None:
        return buf.rows.index_select(0, buf.idx.view(-1)).view(n, -1)
    torch.index_select(buf.rows, 0, buf.idx.view(-1), out=out.view(-1, 8))
    return out


__all__ = ["action_masks", "masks_of", "observe"]
