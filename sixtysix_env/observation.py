"""A player's view as a flat float32 array (docs/rules.md section 6), laid out by one table.

Everything is relative to the observing player ("me") and the other one
("opp"), so one network serves both seats. :data:`FEATURES` lists the named
features in order; their offsets (the constants ``HAND``, ``LEGAL``,
``SCORES``...), the observation bounds, the byte padding, the tables below,
:func:`suit_permutation` and :data:`SEEN_PLANES` all derive from it. Binary
features come first and are set as the bits of one big integer, unpacked by a
single ``np.unpackbits``; the scaled counts follow. Encoding sits on the
training hot path, so the encoder itself is written out by hand
(:func:`_bits_int`, :func:`_counts`); the layout test checks it against a
recorded fixture.

A new feature is a row of :data:`FEATURES`, its offset constant, the line of
the encoder that sets it, and the regenerated table below
(``print(feature_table(FEATURES))``; a test compares them).

Kinds: ``cards`` is a 24-card plane indexed by card id (``6 * suit + rank``,
see ``cards.py``), ``actions`` one entry per action id, ``suits`` one per
suit; these rename with the suits. ``flags`` are 0/1; ``count / n`` is a
count divided by ``n``.

Layout of :func:`encode` (``OBS_SIZE`` = 312):

=======  ====  =======================  ==========  ================================================
index    size  name                     kind        meaning
=======  ====  =======================  ==========  ================================================
0-23     24    ``HAND``                 cards       my hand
24-47    24    ``OPP_KNOWN``            cards       opp cards known to me (shown marriage partner,
                                                    exchanged-in or last-drawn face-up trump card)
48-71    24    ``OPP_VOID``             cards       unseen cards the opp cannot hold (phase-2
                                                    voids): they are face down in the talon
72-95    24    ``MY_KNOWN``             cards       my cards the opp knows
96-119   24    ``WON_ME``               cards       cards in my tricks
120-143  24    ``WON_OPP``              cards       cards in opp's tricks
144-167  24    ``PLAYED_ME``            cards       cards I played
168-191  24    ``PLAYED_OPP``           cards       cards opp played
192-215  24    ``TABLE``                cards       card on the table (led, waiting for the answer)
216-239  24    ``TRUMP_CARD``           cards       face-up trump card, while it lies in the talon
240-271  32    ``LEGAL``                actions     legal-action mask (zeros unless it is my turn)
272-275  4     ``TRUMP_SUIT``           suits       trump suit, one-hot
276-279  4     ``SHOWN_ME``             suits       suits of marriages I showed
280-283  4     ``SHOWN_OPP``            suits       suits of marriages opp showed
284-287  4     ``MARRIAGE_NOW``         suits       marriage shown in the current lead window,
                                                    one-hot
288-293  6     ``WINDOW``               flags       window one-hot: lead, draw, close_response,
                                                    follow, final, over
294-295  2     ``CLOSED_BY``            flags       talon closed by me, by opp
296-297  2     ``EXCHANGED_BY``         flags       trump nine exchanged by me, by opp
298-299  2     ``DEALER``               flags       dealer is me, is opp
300      1     ``MY_TURN``              flags       my turn
301      1     ``CAN_DECLARE``          flags       can declare (the player on lead just took a
                                                    trick or showed a marriage)
302      1     ``CLOSER_OPP_NO_TRICK``  flags       the closer's opponent had no trick when the
                                                    talon was closed
303      1     (padding)                flags       always 0: the counts start at a byte boundary
304      1     ``TALON_SIZE_IX``        count / 12  talon size
305-306  2     ``SCORES``               count / 66  my score, opp score (marriages count once a
                                                    trick is taken, as in ``State.score``)
307-308  2     ``TRICKS``               count / 12  my tricks, opp tricks
309      1     ``CLOSER_OPP_TRICKS``    count / 12  the closer's opponent's tricks at closing (0 if
                                                    open)
310-311  2     ``MATCH``                count / 7   match game points: mine, opp's
=======  ====  =======================  ==========  ================================================

:func:`encode_full` (``FULL_OBS_SIZE`` = 384) appends :data:`FULL_FEATURES`,
hidden information for training critics only, never for acting:

=======  ====  =======================  ==========  ================================================
index    size  name                     kind        meaning
=======  ====  =======================  ==========  ================================================
312-335  24    ``OPP_HAND``             cards       opp's true hand
336-359  24    ``TALON_CARDS``          cards       the face-down talon cards still in the talon
360-383  24    ``TALON_ORDER``          cards / 12  their draw order: position from the top + 1
=======  ====  =======================  ==========  ================================================
"""

from __future__ import annotations

import textwrap
from typing import Any, NamedTuple

import numpy as np

from .actions import MARRIAGE, N_ACTIONS
from .cards import N_CARDS, N_SUITS, RANK_NAMES, make_card
from .engine import MATCH_TARGET, N_WINDOWS, OVER, TALON_SIZE, State
from .knowledge import PlayerView, view
from .scoring import WIN_SCORE

CARDS, ACTIONS, SUITS, FLAGS, COUNT = "cards", "actions", "suits", "flags", "count"


class Feature(NamedTuple):
    """One named piece of the observation; ``offset`` is filled in by the layout."""

    name: str
    kind: str  # CARDS, ACTIONS, SUITS, FLAGS or COUNT
    size: int
    doc: str
    scale: float = 1.0  # the encoded value is (count or value) / scale
    high: float = 1.0  # upper bound of the observation space
    seen: bool = False  # a plane of cards whose place the observer knows (SEEN_PLANES)
    offset: int = -1

    @property
    def renames_with_suits(self) -> bool:
        return self.kind in (CARDS, ACTIONS, SUITS)


# fmt: off
FEATURES: tuple[Feature, ...] = (
    Feature("HAND", CARDS, N_CARDS, "my hand", seen=True),
    Feature("OPP_KNOWN", CARDS, N_CARDS, "opp cards known to me (shown marriage partner, "
            "exchanged-in or last-drawn face-up trump card)"),
    Feature("OPP_VOID", CARDS, N_CARDS, "unseen cards the opp cannot hold (phase-2 voids): "
            "they are face down in the talon"),
    Feature("MY_KNOWN", CARDS, N_CARDS, "my cards the opp knows"),
    Feature("WON_ME", CARDS, N_CARDS, "cards in my tricks", seen=True),
    Feature("WON_OPP", CARDS, N_CARDS, "cards in opp's tricks", seen=True),
    Feature("PLAYED_ME", CARDS, N_CARDS, "cards I played"),
    Feature("PLAYED_OPP", CARDS, N_CARDS, "cards opp played"),
    Feature("TABLE", CARDS, N_CARDS, "card on the table (led, waiting for the answer)", seen=True),
    Feature("TRUMP_CARD", CARDS, N_CARDS, "face-up trump card, while it lies in the talon", seen=True),
    Feature("LEGAL", ACTIONS, N_ACTIONS, "legal-action mask (zeros unless it is my turn)"),
    Feature("TRUMP_SUIT", SUITS, N_SUITS, "trump suit, one-hot"),
    Feature("SHOWN_ME", SUITS, N_SUITS, "suits of marriages I showed"),
    Feature("SHOWN_OPP", SUITS, N_SUITS, "suits of marriages opp showed"),
    Feature("MARRIAGE_NOW", SUITS, N_SUITS, "marriage shown in the current lead window, one-hot"),
    Feature("WINDOW", FLAGS, N_WINDOWS, "window one-hot: lead, draw, close_response, follow, final, over"),
    Feature("CLOSED_BY", FLAGS, 2, "talon closed by me, by opp"),
    Feature("EXCHANGED_BY", FLAGS, 2, "trump nine exchanged by me, by opp"),
    Feature("DEALER", FLAGS, 2, "dealer is me, is opp"),
    Feature("MY_TURN", FLAGS, 1, "my turn"),
    Feature("CAN_DECLARE", FLAGS, 1, "can declare (the player on lead just took a trick or showed a "
            "marriage)"),
    Feature("CLOSER_OPP_NO_TRICK", FLAGS, 1, "the closer's opponent had no trick when the talon was closed"),
    # Counts (after the binary part, padded to whole bytes). Scores can pass 66
    # (up to 120 + 10 + 100 marriage points); match points can reach 9.
    Feature("TALON_SIZE_IX", COUNT, 1, "talon size", scale=TALON_SIZE),
    Feature("SCORES", COUNT, 2, "my score, opp score (marriages count once a trick is taken, "
            "as in ``State.score``)", scale=WIN_SCORE, high=4.0),
    Feature("TRICKS", COUNT, 2, "my tricks, opp tricks", scale=TALON_SIZE),
    Feature("CLOSER_OPP_TRICKS", COUNT, 1, "the closer's opponent's tricks at closing (0 if open)",
            scale=TALON_SIZE),
    Feature("MATCH", COUNT, 2, "match game points: mine, opp's", scale=MATCH_TARGET, high=2.0),
)

FULL_FEATURES: tuple[Feature, ...] = (
    Feature("OPP_HAND", CARDS, N_CARDS, "opp's true hand"),
    Feature("TALON_CARDS", CARDS, N_CARDS, "the face-down talon cards still in the talon"),
    Feature("TALON_ORDER", CARDS, N_CARDS, "their draw order: position from the top + 1", scale=TALON_SIZE),
)
# fmt: on


def _layout(features: tuple[Feature, ...], start: int = 0) -> tuple[tuple[Feature, ...], int, int]:
    """The features with offsets, where the binary part ends (padded to whole
    bytes, so the counts start at a byte boundary) and the total size."""
    out, offset, n_bits = [], start, None
    for f in features:
        if f.kind == COUNT and n_bits is None:
            n_bits = offset = -(-offset // 8) * 8
        elif f.kind != COUNT and n_bits is not None:
            raise ValueError(f"binary feature {f.name} after the counts")
        out.append(f._replace(offset=offset))
        offset += f.size
    return tuple(out), offset if n_bits is None else n_bits, offset


FEATURES, N_BITS, OBS_SIZE = _layout(FEATURES)
FULL_FEATURES, _, FULL_OBS_SIZE = _layout(FULL_FEATURES, OBS_SIZE)
FEATURE: dict[str, Feature] = {f.name: f for f in FEATURES + FULL_FEATURES}

HAND = FEATURE["HAND"].offset
OPP_KNOWN = FEATURE["OPP_KNOWN"].offset
OPP_VOID = FEATURE["OPP_VOID"].offset
MY_KNOWN = FEATURE["MY_KNOWN"].offset
WON_ME = FEATURE["WON_ME"].offset
WON_OPP = FEATURE["WON_OPP"].offset
PLAYED_ME = FEATURE["PLAYED_ME"].offset
PLAYED_OPP = FEATURE["PLAYED_OPP"].offset
TABLE = FEATURE["TABLE"].offset
TRUMP_CARD = FEATURE["TRUMP_CARD"].offset
LEGAL = FEATURE["LEGAL"].offset
TRUMP_SUIT = FEATURE["TRUMP_SUIT"].offset
SHOWN_ME = FEATURE["SHOWN_ME"].offset
SHOWN_OPP = FEATURE["SHOWN_OPP"].offset
MARRIAGE_NOW = FEATURE["MARRIAGE_NOW"].offset
WINDOW = FEATURE["WINDOW"].offset
CLOSED_BY = FEATURE["CLOSED_BY"].offset
EXCHANGED_BY = FEATURE["EXCHANGED_BY"].offset
DEALER = FEATURE["DEALER"].offset
MY_TURN = FEATURE["MY_TURN"].offset
CAN_DECLARE = FEATURE["CAN_DECLARE"].offset
CLOSER_OPP_NO_TRICK = FEATURE["CLOSER_OPP_NO_TRICK"].offset
TALON_SIZE_IX = FEATURE["TALON_SIZE_IX"].offset
SCORES = FEATURE["SCORES"].offset
TRICKS = FEATURE["TRICKS"].offset
CLOSER_OPP_TRICKS = FEATURE["CLOSER_OPP_TRICKS"].offset
MATCH = FEATURE["MATCH"].offset
OPP_HAND = FEATURE["OPP_HAND"].offset
TALON_CARDS = FEATURE["TALON_CARDS"].offset
TALON_ORDER = FEATURE["TALON_ORDER"].offset

#: Card planes of cards whose place the observer knows (see :func:`unseen_cards`).
SEEN_PLANES: tuple[int, ...] = tuple(f.offset for f in FEATURES if f.seen)


def _bounds(features: tuple[Feature, ...], start: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Observation-space bounds: 0 below, each feature's ``high`` above (1 for padding)."""
    high = np.ones(size - start, dtype=np.float32)
    for f in features:
        high[f.offset - start : f.offset - start + f.size] = f.high
    return np.zeros(size - start, dtype=np.float32), high


OBS_LOW, OBS_HIGH = _bounds(FEATURES, 0, OBS_SIZE)
FULL_OBS_LOW, FULL_OBS_HIGH = (
    np.concatenate([part, hidden])
    for part, hidden in zip((OBS_LOW, OBS_HIGH), _bounds(FULL_FEATURES, OBS_SIZE, FULL_OBS_SIZE), strict=True)
)

_N_BYTES = N_BITS // 8
_N_BYTES_OBS = OBS_SIZE // 8  # whole bytes: the counts are 8 floats after a byte boundary
_TALON_SCALE = float(FEATURE["TALON_SIZE_IX"].scale)
_SCORE_SCALE = float(FEATURE["SCORES"].scale)
_TRICK_SCALE = float(FEATURE["TRICKS"].scale)
_CLOSER_SCALE = float(FEATURE["CLOSER_OPP_TRICKS"].scale)
_MATCH_SCALE = float(FEATURE["MATCH"].scale)
_ORDER_SCALE = float(FEATURE["TALON_ORDER"].scale)
_ACTION_BITS = np.arange(N_ACTIONS, dtype=np.int64)


# ------------------------------------------------------------------ encoding
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


def _counts(v: PlayerView) -> list[float]:
    """The count features of ``v``, scaled, in table order."""
    me = v.player
    opp = 1 - me
    return [
        v.stock / _TALON_SCALE,
        v.scores[me] / _SCORE_SCALE,
        v.scores[opp] / _SCORE_SCALE,
        v.tricks[me] / _TRICK_SCALE,
        v.tricks[opp] / _TRICK_SCALE,
        v.closer_opp_tricks / _CLOSER_SCALE if v.closed_by >= 0 else 0.0,
        v.match_scores[me] / _MATCH_SCALE,
        v.match_scores[opp] / _MATCH_SCALE,
    ]


def encode_bits(v: PlayerView) -> np.ndarray:
    """The binary part of the observation (indices ``0..N_BITS-1``) as uint8 0/1."""
    raw = np.frombuffer(_bits_int(v).to_bytes(_N_BYTES, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")


def encode_with_mask(v: PlayerView) -> tuple[np.ndarray, np.ndarray]:
    """The observation and the int8 action mask of ``v`` from a single unpack
    (the environments' hot path): the mask is the observation's ``LEGAL`` part."""
    raw = np.frombuffer(_bits_int(v).to_bytes(_N_BYTES_OBS, "little"), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little")  # OBS_SIZE bits; the counts' bits are zero
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
    stock = state.stock
    size = len(state.talon)  # 12, or a preset's shorter talon
    hidden = state.talon[size - stock : size - 1] if stock else ()
    talon_mask = 0
    for c in hidden:
        talon_mask |= 1 << c
    x = state.hands[1 - player] | (talon_mask << (TALON_CARDS - OPP_HAND))
    raw = np.frombuffer(x.to_bytes((TALON_ORDER - OPP_HAND) // 8, "little"), dtype=np.uint8)
    out[OPP_HAND:TALON_ORDER] = np.unpackbits(raw, bitorder="little")
    order = out[TALON_ORDER : TALON_ORDER + N_CARDS]
    order[:] = 0.0
    for i, c in enumerate(hidden):
        order[c] = (i + 1) / _ORDER_SCALE


def encode_full(state: State, player: int) -> np.ndarray:
    """Perfect-information observation for ``player``: :func:`encode` of its
    view plus the opponent's hand and the talon contents and order.

    For centralized critics and oracle baselines only: a policy that sees it
    cheats.
    """
    out = np.empty(FULL_OBS_SIZE, dtype=np.float32)
    encode_full_into(state, player, out)
    return out


# ------------------------------------------------------------------ reading observations
def mask_to_array(mask: int | np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Legal-action bitmask(s) as a bool array: an int gives shape ``(32,)``,
    an int array of shape ``(N,)`` gives ``(N, 32)``; written into ``out`` if given."""
    return np.not_equal((np.asarray(mask, dtype=np.int64)[..., None] >> _ACTION_BITS) & 1, 0, out=out)


def unseen_cards(obs: Any) -> Any:
    """The 24-card plane of cards the observer has not seen anywhere (not in
    its hand, no trick, not on the table, not the face-up trump card): the
    opponent's hand plus the face-down talon; with the talon spent, exactly
    the opponent's hand. Works on numpy arrays and torch tensors, batched or
    not (last axis ``OBS_SIZE``)."""
    seen = sum(obs[..., p : p + N_CARDS] for p in SEEN_PLANES)
    return 1.0 - seen.clip(0.0, 1.0)


def suit_permutation(perm: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Gather indices ``(obs_src, action_src)`` that rename suit ``s`` to
    ``perm[s]``: ``obs[..., obs_src]`` and ``values[..., action_src]`` then
    describe the renamed position, which has the same values (the rules
    treat suits alike; which one is trumps is part of the observation).
    Fitting on randomly renamed rows gives 24 times the data for free."""
    if sorted(perm) != list(range(N_SUITS)):
        raise ValueError(f"perm must be a permutation of 0..{N_SUITS - 1}, got {perm!r}")
    suit_src = np.empty(N_SUITS, dtype=np.int64)
    act_src = np.arange(N_ACTIONS)
    for s in range(N_SUITS):
        suit_src[perm[s]] = s
        for r in range(len(RANK_NAMES)):
            act_src[make_card(perm[s], r)] = make_card(s, r)
    act_src[MARRIAGE : MARRIAGE + N_SUITS] = MARRIAGE + suit_src
    sources = {CARDS: act_src[:N_CARDS], ACTIONS: act_src, SUITS: suit_src}
    obs_src = np.arange(OBS_SIZE)
    for f in FEATURES:
        if f.renames_with_suits:
            obs_src[f.offset : f.offset + f.size] = f.offset + sources[f.kind]
    return obs_src, act_src


_PADDING_DOC = "always 0: the counts start at a byte boundary"
_COLUMNS = (("index", 7), ("size", 4), ("name", 23), ("kind", 10), ("meaning", 48))


def feature_table(features: tuple[Feature, ...]) -> str:
    """The reStructuredText table of ``features`` (the module docstring shows it)."""
    rows, end = [], features[0].offset
    for f in features:
        if f.offset > end:  # the padding before the counts
            rows.append((end, f.offset - end, "(padding)", FLAGS, _PADDING_DOC))
        kind = f"{f.kind} / {f.scale:g}" if f.scale != 1 else f.kind
        rows.append((f.offset, f.size, f"``{f.name}``", kind, f.doc))
        end = f.offset + f.size
    rule = "  ".join("=" * w for _, w in _COLUMNS)
    lines = [rule, "  ".join(h.ljust(w) for h, w in _COLUMNS).rstrip(), rule]
    for offset, size, name, kind, doc in rows:
        index = str(offset) if size == 1 else f"{offset}-{offset + size - 1}"
        cells = (index, str(size), name, kind)
        head = "  ".join(x.ljust(w) for x, (_, w) in zip(cells, _COLUMNS[:-1], strict=True)) + "  "
        for i, part in enumerate(textwrap.wrap(doc, _COLUMNS[-1][1], break_on_hyphens=False)):
            lines.append((head if i == 0 else " " * len(head)) + part)
    lines.append(rule)
    return "\n".join(lines)


__all__ = [
    "ACTIONS", "CAN_DECLARE", "CARDS", "CLOSED_BY", "CLOSER_OPP_NO_TRICK", "CLOSER_OPP_TRICKS", "COUNT",
    "DEALER", "EXCHANGED_BY", "FEATURE", "FEATURES", "FLAGS", "FULL_FEATURES", "FULL_OBS_HIGH",
    "FULL_OBS_LOW", "FULL_OBS_SIZE", "Feature", "HAND", "LEGAL", "MARRIAGE_NOW", "MATCH", "MY_KNOWN",
    "MY_TURN", "N_BITS", "OBS_HIGH", "OBS_LOW", "OBS_SIZE", "OPP_HAND", "OPP_KNOWN", "OPP_VOID",
    "PLAYED_ME", "PLAYED_OPP", "SCORES", "SEEN_PLANES", "SHOWN_ME", "SHOWN_OPP", "SUITS", "TABLE",
    "TALON_CARDS", "TALON_ORDER", "TALON_SIZE_IX", "TRICKS", "TRUMP_CARD", "TRUMP_SUIT", "WINDOW",
    "WON_ME", "WON_OPP", "encode", "encode_bits", "encode_full", "encode_full_into", "encode_into",
    "encode_with_mask", "feature_table", "mask_to_array", "suit_permutation", "unseen_cards",
]  # fmt: skip
