"""A player's view as a flat float32 array (RULES.md section 6).

Everything is relative to the observing player ("me") and the other one
("opp"), so one network serves both seats. Binary features come first and are
built with one ``np.unpackbits`` over a big integer of bitmasks; a few scaled
counts follow. That keeps :func:`encode` at a few microseconds, which matters
because it sits on the training hot path.

Layout of :func:`encode` (``OBS_SIZE`` = 312; card planes are indexed by card
id, ``6 * suit + rank``, see ``cards.py``):

=========  ====  ===========================================================
index      size  meaning
=========  ====  ===========================================================
0-23       24    my hand
24-47      24    opp cards known to me (shown marriage partner, exchanged-in
                 or last-drawn face-up trump card)
48-71      24    unseen cards the opp cannot hold (phase-2 voids): they are
                 face down in the talon
72-95      24    my cards the opp knows
96-119     24    cards in my tricks
120-143    24    cards in opp's tricks
144-167    24    cards I played
168-191    24    cards opp played
192-215    24    card on the table (led, waiting for the answer)
216-239    24    face-up trump card, while it lies in the talon
240-271    32    legal-action mask (zeros unless it is my turn)
272-275    4     trump suit, one-hot
276-279    4     suits of marriages I showed
280-283    4     suits of marriages opp showed
284-287    4     marriage shown in the current lead window, one-hot
288-293    6     window one-hot: lead, draw, close_response, follow, final, over
294, 295   2     talon closed by me, by opp
296, 297   2     trump nine exchanged by me, by opp
298, 299   2     dealer is me, is opp
300        1     my turn
301        1     can declare (the player on lead just took a trick or showed
                 a marriage)
302        1     the closer's opponent had no trick when the talon was closed
303        1     (always 0, padding)
304        1     talon size / 12
305, 306   2     my score / 66, opp score / 66 (marriages count once a trick is
                 taken, as in ``State.score``)
307, 308   2     my tricks / 12, opp tricks / 12
309        1     the closer's opponent's tricks at closing / 12 (0 if open)
310, 311   2     match game points: mine / 7, opp's / 7
=========  ====  ===========================================================

:func:`encode_full` (``FULL_OBS_SIZE`` = 384) appends hidden information for
training critics only, never for acting:

=========  ====  ===========================================================
312-335    24    opp's true hand
336-359    24    the face-down talon cards still in the talon
360-383    24    their draw order: (position from the top + 1) / 12
=========  ====  ===========================================================
"""

from __future__ import annotations

import numpy as np

from .actions import N_ACTIONS
from .engine import MATCH_TARGET, OVER, TALON_SIZE, WIN_SCORE, State
from .knowledge import PlayerView, view

# Offsets of the binary part (bits of one big int, unpacked little-endian).
HAND = 0
OPP_KNOWN = 24
OPP_VOID = 48
MY_KNOWN = 72
WON_ME = 96
WON_OPP = 120
PLAYED_ME = 144
PLAYED_OPP = 168
TABLE = 192
TRUMP_CARD = 216
LEGAL = 240
TRUMP_SUIT = 272
SHOWN_ME = 276
SHOWN_OPP = 280
MARRIAGE_NOW = 284
WINDOW = 288
CLOSED_BY = 294
EXCHANGED_BY = 296
DEALER = 298
MY_TURN = 300
CAN_DECLARE = 301
CLOSER_OPP_NO_TRICK = 302
N_BITS = 304  # 38 bytes
# Offsets of the scaled counts.
TALON_SIZE_IX = 304
SCORES = 305
TRICKS = 307
CLOSER_OPP_TRICKS = 309
MATCH = 310
OBS_SIZE = 312

OPP_HAND = 312
TALON_CARDS = 336
TALON_ORDER = 360
FULL_OBS_SIZE = 384

_N_BYTES = N_BITS // 8
_N_BYTES_PADDED = OBS_SIZE // 8
_MATCH_SCALE = float(MATCH_TARGET)
_SCORE_SCALE = float(WIN_SCORE)
_COUNT_SCALE = float(TALON_SIZE)

# Bounds for the observation space: bits in [0, 1]; scores can pass 66
# (at most 120 + 10 + 100 marriage points), match points can reach 9.
OBS_LOW = np.zeros(OBS_SIZE, dtype=np.float32)
OBS_HIGH = np.ones(OBS_SIZE, dtype=np.float32)
OBS_HIGH[SCORES : SCORES + 2] = 4.0
OBS_HIGH[MATCH : MATCH + 2] = 2.0
FULL_OBS_LOW = np.zeros(FULL_OBS_SIZE, dtype=np.float32)
FULL_OBS_HIGH = np.concatenate([OBS_HIGH, np.ones(FULL_OBS_SIZE - OBS_SIZE, dtype=np.float32)])


def _bits_int(v: PlayerView) -> int:
    """All binary features of ``v`` as one Python int (bit i = feature i)."""
    me = v.player
    opp = 1 - me
    x = (
        v.hand
        | (v.opp_known << OPP_KNOWN)
        | ((v.opp_void & v.unseen) << OPP_VOID)
        | (v.my_known << MY_KNOWN)
        | (v.won[me] << WON_ME)
        | (v.won[opp] << WON_OPP)
        | (v.played[me] << PLAYED_ME)
        | (v.played[opp] << PLAYED_OPP)
        | (v.legal_mask << LEGAL)
        | (1 << (TRUMP_SUIT + v.trump))
        | (v.shown[me] << SHOWN_ME)
        | (v.shown[opp] << SHOWN_OPP)
        | (1 << (WINDOW + v.window))
        | (1 << (DEALER + (v.dealer != me)))
    )
    if v.lead_card >= 0:
        x |= 1 << (TABLE + v.lead_card)
    if v.trump_card >= 0:
        x |= 1 << (TRUMP_CARD + v.trump_card)
    if v.marriage_suit >= 0:
        x |= 1 << (MARRIAGE_NOW + v.marriage_suit)
    if v.closed_by >= 0:
        x |= 1 << (CLOSED_BY + (v.closed_by != me))
        if v.closer_opp_tricks == 0:
            x |= 1 << CLOSER_OPP_NO_TRICK
    if v.exchanged_by >= 0:
        x |= 1 << (EXCHANGED_BY + (v.exchanged_by != me))
    if v.to_act == me and v.window != OVER:
        x |= 1 << MY_TURN
    if v.can_declare:
        x |= 1 << CAN_DECLARE
    return x


def encode_bits(v: PlayerView) -> np.ndarray:
    """The binary part of the observation (indices 0..303) as uint8 0/1.

    The environment slices the action mask out of it (``[LEGAL:LEGAL+32]``)
    instead of unpacking the legal mask a second time.
    """
    raw = np.frombuffer(_bits_int(v).to_bytes(_N_BYTES, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")


def _counts(v: PlayerView) -> list[float]:
    me = v.player
    opp = 1 - me
    return [
        v.stock / _COUNT_SCALE,
        v.scores[me] / _SCORE_SCALE,
        v.scores[opp] / _SCORE_SCALE,
        v.tricks[me] / _COUNT_SCALE,
        v.tricks[opp] / _COUNT_SCALE,
        v.closer_opp_tricks / _COUNT_SCALE if v.closed_by >= 0 else 0.0,
        v.match_scores[me] / _MATCH_SCALE,
        v.match_scores[opp] / _MATCH_SCALE,
    ]


def encode_with_mask(v: PlayerView) -> tuple[np.ndarray, np.ndarray]:
    """The observation and the int8 action mask of ``v`` from a single unpack
    (the environments' hot path: a third faster than ``encode`` plus a mask)."""
    raw = np.frombuffer(_bits_int(v).to_bytes(_N_BYTES_PADDED, "little"), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little")  # OBS_SIZE bits, the last 8 zero
    obs = bits.astype(np.float32)
    obs[N_BITS:] = _counts(v)
    return obs, bits[LEGAL : LEGAL + N_ACTIONS].astype(np.int8)


def encode_into(v: PlayerView, out: np.ndarray) -> None:
    """Write the observation of ``v`` into ``out[:OBS_SIZE]`` (a float32 row)."""
    out[:N_BITS] = encode_bits(v)
    out[N_BITS:OBS_SIZE] = _counts(v)


def encode(v: PlayerView) -> np.ndarray:
    """The observation of view ``v``: float32, shape ``(OBS_SIZE,)``."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    encode_into(v, out)
    return out


def encode_full_into(state: State, player: int, out: np.ndarray) -> None:
    """Write :func:`encode_full` into ``out[:FULL_OBS_SIZE]``."""
    encode_into(view(state, player), out)
    opp_hand = state.hands[1 - player]
    stock = state.stock
    start = TALON_SIZE - stock
    hidden = state.talon[start : TALON_SIZE - 1] if stock else ()
    talon_mask = 0
    for c in hidden:
        talon_mask |= 1 << c
    x = opp_hand | (talon_mask << 24)
    raw = np.frombuffer(x.to_bytes(6, "little"), dtype=np.uint8)
    out[OPP_HAND:TALON_ORDER] = np.unpackbits(raw, bitorder="little")
    order = out[TALON_ORDER:FULL_OBS_SIZE]
    order[:] = 0.0
    for i, c in enumerate(hidden):
        order[c] = (i + 1) / _COUNT_SCALE


def encode_full(state: State, player: int) -> np.ndarray:
    """Perfect-information observation for ``player``: :func:`encode` of its
    view plus the opponent's hand and the talon contents and order.

    For centralized critics and oracle baselines only: a policy that sees it
    cheats.
    """
    out = np.empty(FULL_OBS_SIZE, dtype=np.float32)
    encode_full_into(state, player, out)
    return out


__all__ = [
    "FULL_OBS_HIGH",
    "FULL_OBS_LOW",
    "FULL_OBS_SIZE",
    "LEGAL",
    "N_BITS",
    "OBS_HIGH",
    "OBS_LOW",
    "OBS_SIZE",
    "encode",
    "encode_bits",
    "encode_full",
    "encode_full_into",
    "encode_into",
    "encode_with_mask",
]
