"""Constants and lookup tables of the batched engine (:mod:`.engine`).

The rules' case analysis as small int64 tensors, built once per device and
rule preset: card bits, the trick (by led card, answer and trump suit), the
next window and turn (by window and action), marriage points, and what
dealing needs. A preset (:mod:`sixtysix_env.variants`) is data here too: its
deck, hand and talon sizes, exchange card and close window are tables, and
its other switches plain attributes that the step reads once per step (one
engine, one preset), never per table.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..actions import CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE, N_ACTIONS
from ..cards import HIGHER, KQ, N_CARDS, POINTS, QUEEN, SUIT_MASKS
from ..engine import CLOSE_RESPONSE, DRAW, FINAL, FOLLOW, LEAD, N_WINDOWS, OVER
from ..scoring import MARRIAGE_POINTS
from ..variants import CREDIT_ANY_TRICK, CREDIT_NEXT_TRICK, DECLARE_AUTO, GERMAN, Rules


def as_device(device: object) -> torch.device:
    """``device`` (a string or ``torch.device``) as a ``torch.device`` that exists here;
    anything else, or a CUDA device without CUDA, is a ``ValueError``."""
    try:
        dev = torch.device(device)  # type: ignore[call-overload]
    except (RuntimeError, TypeError, ValueError):
        raise ValueError(f"device must be a torch device such as 'cpu' or 'cuda', got {device!r}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r}: CUDA is not available here")
    return dev


# Tensors that steps update in place are created outside inference mode, so an
# engine made inside ``torch.inference_mode()`` can still be stepped outside it.
normal_tensors = torch.inference_mode(False)
NOOP = N_ACTIONS  # the action of a table that does not move in a step
N_CODES = N_ACTIONS + 1
FINAL_MASK = (1 << DECLARE) | (1 << CONTINUE)


def _window_tables(close_response: bool = True) -> tuple[list[int], list[int]]:
    """Next window and whether the turn passes, by (window, action), for every
    transition but a follow (decided by the trick). ``close_response``: a close
    opens the opponent's close-response window (else the closer leads on)."""
    nxt, switch = [], []
    for w in range(N_WINDOWS):
        for a in range(N_CODES):
            nw, sw = w, 0
            if w == LEAD and a < N_CARDS:
                nw, sw = FOLLOW, 1
            elif a == CLOSE and w in (LEAD, DRAW):
                nw, sw = (CLOSE_RESPONSE, 1) if close_response else (LEAD, 0)
            elif w == CLOSE_RESPONSE and a in (EXCHANGE, CONTINUE):
                nw, sw = LEAD, 1
            elif w == DRAW and a == CONTINUE:
                nw = LEAD
            elif a == DECLARE or (w == FINAL and a == CONTINUE):
                nw = OVER
            nxt.append(nw)
            switch.append(sw)
    return nxt, switch


KIND_LEAD, KIND_FOLLOW, KIND_DRAW = 1, 2, 3  # kinds of transition that need their own case


def _kind(window: int, action: int) -> int:
    if action < N_CARDS:
        return {LEAD: KIND_LEAD, FOLLOW: KIND_FOLLOW}.get(window, 0)
    return KIND_DRAW if (window, action) == (DRAW, CONTINUE) else 0


# A marriage that never counts (kawu, shown before a trick) is held back until this many tricks.
NEVER = 1 << 30


def _german_play(rules: Rules) -> Rules:
    """``rules`` without the match switches and name: GERMAN iff the deals play and score as German."""
    return Rules(**{f: getattr(rules, f) for f in _DEAL_FIELDS})


_DEAL_FIELDS = tuple(f for f in Rules.__dataclass_fields__ if Rules.__dataclass_fields__[f].init
                     and f not in ("name", "draw_bonus", "double_game", "match_target"))


class Lookup:
    """Lookup tables on one device for one rule preset (built once per device and preset),
    and the preset's switches as attributes."""

    @normal_tensors
    def __init__(self, device: torch.device, rules: Rules = GERMAN) -> None:
        def t(values: Sequence[int]) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.int64, device=device)

        self.bit = t([1 << c for c in range(N_CARDS)])
        self.card_bit = t([1 << a if a < N_CARDS else 0 for a in range(N_CODES)])  # by action
        self.suit_of_lead = t([SUIT_MASKS[c // 6] for c in range(N_CARDS)])
        self.higher = t(HIGHER)
        self.suit_mask = t(SUIT_MASKS)
        self.rules = rules
        # the preset's switches, read by the step once per engine (module docstring)
        self.german = _german_play(rules) == GERMAN  # deals play and score as plain German
        self.talon_size, self.hand_size = rules.talon_size, rules.hand_size
        self.deck_mask = rules.deck
        self.draw_window = rules.draw_window  # else both draw at once after a phase-1 trick
        self.closing = rules.closing
        self.late_marriages = rules.late_marriages
        self.king_only = rules.marriage_king_only
        self.free_exchange = rules.free_exchange
        self.auto_declare = rules.declaring == DECLARE_AUTO
        self.held = rules.marriage_credit != CREDIT_ANY_TRICK  # marriages held back (held_suits, held_at)
        self.credit_next_trick = rules.marriage_credit == CREDIT_NEXT_TRICK
        self.last_trick_bonus = rules.last_trick_bonus
        self.last_trick_wins = rules.last_trick_wins
        self.false_claim_three = rules.false_claim_three
        self.beaten_like_failed = rules.closer_beaten_like_failed
        self.failed_close_all_tricks = bool(getattr(rules, "failed_close_all_tricks", False))
        self.draw_bonus = rules.draw_bonus
        self.double_game = rules.double_game
        self.match_target = rules.match_target
        # the exchange card by trump suit: the trump nine (German) or jack (Schnapsen)
        self.nine = t([6 * s + rules.exchange_rank for s in range(4)])
        self.kq_action = t([KQ[a - MARRIAGE] if MARRIAGE <= a < EXCHANGE else 0 for a in range(N_CODES)])
        # the cards that may be led after a marriage: its K or Q (or the K alone, marriage_king_only)
        queens = [1 << (6 * s + QUEEN) if rules.marriage_king_only else 0 for s in range(4)]
        self.kq = t([kq & ~queen for kq, queen in zip(KQ, queens, strict=True)])
        self.marriage_suit = t([a - MARRIAGE if MARRIAGE <= a < EXCHANGE else -1 for a in range(N_CODES)])
        # marriage actions of a hand, from its low 12 bits (clubs, spades) and its high 12 bits
        self.married_low = t([sum(1 << (MARRIAGE + s) for s in (0, 1) if x >> (6 * s + 2) & 3 == 3)
                              for x in range(4096)])
        self.married_high = t([sum(1 << (MARRIAGE + 2 + s) for s in (0, 1) if x >> (6 * s + 2) & 3 == 3)
                               for x in range(4096)])
        marriages = range(MARRIAGE, EXCHANGE)
        self.shown_action = t([1 << (a - MARRIAGE) if a in marriages else 0 for a in range(N_CODES)])
        # marriage points of a shown-suits set (4 bits) under trump suit: [shown * 4 + trump]
        self.marriage_points = t(
            [MARRIAGE_POINTS * (m.bit_count() + (m >> tr & 1)) for m in range(16) for tr in range(4)]
        )
        # the trick, by (led card, answer, trump) = lead * 96 + card * 4 + trump
        leader_wins, void, points = [], [], []
        for lead in range(N_CARDS):
            for card in range(N_CARDS):
                for tr in range(4):
                    same = lead // 6 == card // 6
                    leader_wins.append(int(not (card > lead if same else card // 6 == tr)))
                    # phase 2: what the answer reveals the follower lacks
                    if same:
                        void.append(HIGHER[lead] if card < lead else 0)
                    else:
                        void.append(SUIT_MASKS[lead // 6] | (SUIT_MASKS[tr] if card // 6 != tr else 0))
                    points.append(POINTS[lead] + POINTS[card])
        self.leader_wins = t(leader_wins)
        self.void = t(void)
        self.trick_points = t(points)
        nxt, switch = _window_tables(rules.exchange_on_close)
        self.next_window = t(nxt)
        self.switch = t(switch)
        self.kind = t([_kind(w, a) for w in range(N_WINDOWS) for a in range(N_CODES)])
        self.one = t([1])
        # dealing: a Fisher-Yates over the deck's cards for the talon, then one of the
        # C(2 * hand, hand) subsets of the rest for player 0 (German: C(12, 6) = 924)
        size, hand, cards = rules.talon_size, rules.hand_size, rules.cards
        self.fy_base = t(list(range(max(size, 2 * hand)))).unsqueeze(1)
        self.fy_span = t([len(cards) - i for i in range(size)]).unsqueeze(1)
        self.subsets = t([m for m in range(1 << (2 * hand)) if m.bit_count() == hand])
        self.suit = t([c // 6 for c in range(N_CARDS)])
        self.deck = t(list(cards)).unsqueeze(1)


_LOOKUPS: dict[tuple[torch.device, Rules], Lookup] = {}


def lookup(device: torch.device, rules: Rules = GERMAN) -> Lookup:
    """The :class:`Lookup` of ``device`` and ``rules``, built on first use."""
    key = (device, rules)
    if key not in _LOOKUPS:
        _LOOKUPS[key] = Lookup(device, rules)
    return _LOOKUPS[key]
