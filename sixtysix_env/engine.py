"""The rules of Sixty-Six as a small, fast, pure state machine (RULES.md).

A :class:`State` is one deal of a match: both hands, the talon, the trick
piles and the decision window. Sets of cards are 24-bit ints and legal sets of
actions 32-bit ints, so a state is a handful of small ints that copies in
about a microsecond (search bots clone it millions of times).

The player to act is always in exactly one window (RULES.md section 5):

====================  ==========================================================
window                legal actions
====================  ==========================================================
``LEAD``              play a held card (only the shown marriage's K/Q after a
                      marriage), marriage, exchange, close, declare
``DRAW``              continue (both draw), close, exchange, declare
``CLOSE_RESPONSE``    continue (decline), exchange (holding the trump nine)
``FOLLOW``            the cards the phase-1 or phase-2 rules allow
``FINAL``             declare or continue, after the last trick of a closed deal
``OVER``              nothing: the deal has ended, see :attr:`State.result`
====================  ==========================================================

Typical use::

    rng = random.Random(7)
    state = deal(rng)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    state.result  # DealResult(winner=..., game_points=..., reason=...)

    # a fixed deal played by action names (tests, puzzles)
    fixed_deal(hands, talon, dealer=1).play("AC", "9C", "continue", "marriage H")

The engine knows nothing about environments, numpy or what a player may see;
``knowledge.py`` derives a player's view from a state.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from typing import Any, NamedTuple

from .actions import (
    CLOSE,
    CONTINUE,
    DECLARE,
    EXCHANGE,
    MARRIAGE,
    N_ACTIONS,
    action_name,
    actions_of,
    parse_action,
)
from .cards import (
    CARD_NAMES,
    LAST_TRICK_BONUS,
    N_CARDS,
    POINTS,
    SUIT_MASKS,
    card_id,
    cards_of,
    names_of,
)

LEAD, DRAW, CLOSE_RESPONSE, FOLLOW, FINAL, OVER = range(6)
PLAYER_IDS = ("player_0", "player_1")  # the environments' agent names, seat 0 and seat 1

# The talon's phase (RULES.md 3): open (phase 1), closed by a player with cards
# still face down, or spent (every card drawn). Phase-2 rules apply unless open.
TALON_OPEN, TALON_CLOSED, TALON_SPENT = "open", "closed", "spent"


def talon_phase(s: Any) -> str:
    """The talon phase of a :class:`State` or a ``PlayerView`` (both carry ``stock`` and ``closed_by``)."""
    if s.stock == 0:
        return TALON_SPENT
    return TALON_CLOSED if s.closed_by >= 0 else TALON_OPEN

WINDOW_NAMES = ("lead", "draw", "close_response", "follow", "final", "over")
N_WINDOWS = 6

TALON_SIZE = 12
HAND_SIZE = 6
MATCH_TARGET = 7
WIN_SCORE = 66
SCHNEIDER = 33
MARRIAGE_POINTS = 20
TRUMP_MARRIAGE_POINTS = 40

# Deal-end reasons (DealResult.reason).
DECLARED = "declared"  # correct declaration, scored 1/2/3 by the loser
CLOSER_BEATEN = "closer_beaten"  # opponent of the closer went out first: 2
FALSE_DECLARATION = "false_declaration"  # the opponent scores 2
CLOSER_FAILED = "closer_failed"  # closed, nobody went out: 2, or 3 (no trick at closing)
LAST_TRICK = "last_trick"  # talon ran out, all tricks played, higher score wins
DRAWN = "drawn"  # equal scores after the last trick: nobody scores
REASONS = (DECLARED, CLOSER_BEATEN, FALSE_DECLARATION, CLOSER_FAILED, LAST_TRICK, DRAWN)

_EXCHANGE_BIT = 1 << EXCHANGE
_CLOSE_BIT = 1 << CLOSE
_DECLARE_BIT = 1 << DECLARE
_CONTINUE_BIT = 1 << CONTINUE
_DRAW_MASK = _CONTINUE_BIT | _CLOSE_BIT | _DECLARE_BIT
_FINAL_MASK = _DECLARE_BIT | _CONTINUE_BIT

# HIGHER[c]: cards of c's suit that beat c.
HIGHER: tuple[int, ...] = tuple(
    SUIT_MASKS[c // 6] & ~((2 << c) - 1) for c in range(N_CARDS)
)
# KQ[s]: the king and queen of suit s.
KQ: tuple[int, ...] = tuple((1 << (6 * s + 2)) | (1 << (6 * s + 3)) for s in range(4))
_QUEENS = sum(1 << (6 * s + 2) for s in range(4))
# (hand >> 1) & hand & _QUEENS has the queen bit of every suit held with its king;
# this maps that value to the marriage action bits.
_MARRIAGE_ACTIONS: dict[int, int] = {}
for _m in range(16):
    _key = sum(1 << (6 * s + 2) for s in range(4) if _m >> s & 1)
    _MARRIAGE_ACTIONS[_key] = _m << MARRIAGE
del _m, _key


class DealResult(NamedTuple):
    """How a deal ended: ``winner`` is 0, 1 or None (drawn deal)."""

    winner: int | None
    game_points: int
    reason: str
    scores: tuple[int, int]


class State:
    """One deal in progress (plus the match score around it).

    Attributes are public and documented here; treat them as read-only and
    change a state only through :meth:`apply`.

    - ``hands[p]``: cards held by player p (bitmask).
    - ``talon``: the 12 talon cards as dealt, ``talon[0]`` drawn first,
      ``talon[11]`` the card first turned face up. ``stock`` cards remain
      (the last of them the face-up ``trump_card``, which an exchange changes).
    - ``trump``: trump suit. ``closed_by``: closer or -1;
      ``closer_opp_tricks``: the opponent's tricks when the talon was closed.
    - ``points[p]``: card points in p's tricks (plus the last-trick bonus);
      ``tricks[p]``: tricks taken; ``won[p]``: cards in p's tricks;
      ``played[p]``: cards p has played; ``shown[p]``: suits of marriages
      p showed (bit s); ``exchanged_by``: who exchanged the trump nine or -1.
    - ``known[p]``: cards of p's the opponent has seen (shown marriage
      partner, exchanged-in trump card, the face-up card drawn last); only
      meaningful while still in ``hands[p]``. ``void[p]``: cards p is known
      not to hold, revealed by the phase-2 duty to follow, beat and trump.
    - ``window``, ``to_act``; ``lead_card`` (-1 when none on the table);
      ``marriage_suit``: suit shown in the current lead window or -1;
      ``can_declare``: the player on lead just took a trick or showed a
      marriage and has not led since.
    - ``dealer``, ``match_scores``, ``result`` (a :class:`DealResult` once over).
    """

    __slots__ = (
        "hands",
        "talon",
        "stock",
        "trump",
        "trump_card",
        "closed_by",
        "closer_opp_tricks",
        "points",
        "tricks",
        "won",
        "played",
        "shown",
        "exchanged_by",
        "known",
        "void",
        "window",
        "to_act",
        "lead_card",
        "marriage_suit",
        "can_declare",
        "dealer",
        "match_scores",
        "result",
    )

    hands: list[int]
    talon: tuple[int, ...]
    stock: int
    trump: int
    trump_card: int
    closed_by: int
    closer_opp_tricks: int
    points: list[int]
    tricks: list[int]
    won: list[int]
    played: list[int]
    shown: list[int]
    exchanged_by: int
    known: list[int]
    void: list[int]
    window: int
    to_act: int
    lead_card: int
    marriage_suit: int
    can_declare: bool
    dealer: int
    match_scores: list[int]
    result: DealResult | None

    # ----------------------------------------------------------------- basics
    def clone(self) -> State:
        """An independent copy.

        The lists that change every trick are copied; ``shown``, ``known``,
        ``void`` and ``match_scores`` change rarely, so the engine replaces
        them instead of mutating them, and a clone may share them (one reason
        attributes are read-only for callers). Search bots clone constantly.
        """
        s = State.__new__(State)
        s.hands = self.hands[:]
        s.talon = self.talon
        s.stock = self.stock
        s.trump = self.trump
        s.trump_card = self.trump_card
        s.closed_by = self.closed_by
        s.closer_opp_tricks = self.closer_opp_tricks
        s.points = self.points[:]
        s.tricks = self.tricks[:]
        s.won = self.won[:]
        s.played = self.played[:]
        s.shown = self.shown
        s.exchanged_by = self.exchanged_by
        s.known = self.known
        s.void = self.void
        s.window = self.window
        s.to_act = self.to_act
        s.lead_card = self.lead_card
        s.marriage_suit = self.marriage_suit
        s.can_declare = self.can_declare
        s.dealer = self.dealer
        s.match_scores = self.match_scores
        s.result = self.result
        return s

    __copy__ = clone

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in State.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable

    @property
    def is_over(self) -> bool:
        """True once the deal has ended (``result`` is set)."""
        return self.window == OVER

    @property
    def leader(self) -> int:
        """The player on lead (who leads, or led, the current trick)."""
        w = self.window
        if w == FOLLOW or w == CLOSE_RESPONSE:
            return 1 - self.to_act
        return self.to_act

    @property
    def talon_open(self) -> bool:
        """Phase 1: the talon holds cards and nobody closed it."""
        return self.closed_by < 0 and self.stock > 0

    @property
    def talon_phase(self) -> str:
        """``TALON_OPEN``, ``TALON_CLOSED`` or ``TALON_SPENT`` (see :func:`talon_phase`)."""
        return talon_phase(self)

    @property
    def match_over(self) -> bool:
        return self.match_scores[0] >= MATCH_TARGET or self.match_scores[1] >= MATCH_TARGET

    @property
    def match_winner(self) -> int | None:
        if self.match_scores[0] >= MATCH_TARGET:
            return 0
        if self.match_scores[1] >= MATCH_TARGET:
            return 1
        return None

    def marriage_points(self, player: int) -> int:
        """Points of the marriages ``player`` showed, counted or not yet."""
        m = self.shown[player]
        return MARRIAGE_POINTS * (m.bit_count() + ((m >> self.trump) & 1))

    def score(self, player: int) -> int:
        """Deal score: trick points, plus marriages once a trick is taken."""
        if self.tricks[player]:
            return self.points[player] + self.marriage_points(player)
        return self.points[player]

    # ------------------------------------------------------------ legal moves
    def legal_mask(self) -> int:
        """Legal actions of the player to act, as a 32-bit mask."""
        w = self.window
        p = self.to_act
        h = self.hands[p]
        if w == FOLLOW:
            if self.closed_by < 0 and self.stock:
                return h
            lead = self.lead_card
            same = h & SUIT_MASKS[lead // 6]
            if same:
                return (same & HIGHER[lead]) or same
            return (h & SUIT_MASKS[self.trump]) or h
        if w == LEAD:
            decl = _DECLARE_BIT if self.can_declare and self.tricks[p] else 0
            ms = self.marriage_suit
            if ms >= 0:
                m = (h & KQ[ms]) | decl
                if self.closed_by < 0:
                    m |= _CLOSE_BIT
                return m
            if self.closed_by < 0 and self.stock:
                m = h | decl | _CLOSE_BIT | _MARRIAGE_ACTIONS[(h >> 1) & h & _QUEENS]
                if self.tricks[p] and (h >> (6 * self.trump)) & 1:
                    m |= _EXCHANGE_BIT
                return m
            return h | decl
        if w == DRAW:
            if (h >> (6 * self.trump)) & 1:
                return _DRAW_MASK | _EXCHANGE_BIT
            return _DRAW_MASK
        if w == CLOSE_RESPONSE:
            if (h >> (6 * self.trump)) & 1:
                return _CONTINUE_BIT | _EXCHANGE_BIT
            return _CONTINUE_BIT
        if w == FINAL:
            return _FINAL_MASK
        return 0

    def legal_actions(self) -> list[int]:
        return actions_of(self.legal_mask())

    def is_legal(self, action: int) -> bool:
        return 0 <= action < N_ACTIONS and (self.legal_mask() >> action) & 1 == 1

    # ------------------------------------------------------------ transitions
    def apply(self, action: int) -> None:
        """Play ``action`` for the player to act (mutates the state).

        Raises ``ValueError`` naming the action and the legal ones when it is
        not legal here.
        """
        mask = self.legal_mask()
        a = action if type(action) is int else _as_int(action)
        if not 0 <= a < N_ACTIONS or not (mask >> a) & 1:
            raise ValueError(self._illegal_message(action, mask))
        self.apply_unchecked(a)

    def play(self, *actions: int | str) -> State:
        """Apply actions given as ids or names (``"TH"``, ``"marriage H"``,
        ``"close"``, ``"continue"``...), each checked; returns ``self``.

        Readable scripts for tests, puzzles and examples:
        ``fixed_deal(...).play("AC", "9C", "continue")``.
        """
        for action in actions:
            self.apply(parse_action(action) if isinstance(action, str) else action)
        return self

    def _illegal_message(self, action: Any, mask: int) -> str:
        if self.window == OVER:
            return f"the deal is over ({self.result}); no action is legal"
        try:
            what = f"{action} ({action_name(action)})"
        except (ValueError, TypeError):
            what = repr(action)
        legal = ", ".join(f"{a} ({action_name(a)})" for a in actions_of(mask))
        return (
            f"illegal action {what} for player_{self.to_act} in the "
            f"{WINDOW_NAMES[self.window]} window; legal: {legal}"
        )

    def apply_unchecked(self, action: int) -> None:
        """:meth:`apply` without the legality check, for callers that took
        ``action`` from :meth:`legal_mask` (search bots, benchmarks)."""
        w = self.window
        p = self.to_act
        if w == FOLLOW:
            self._follow(p, action)
        elif w == LEAD:
            if action < N_CARDS:
                self.hands[p] ^= 1 << action
                self.played[p] |= 1 << action
                self.lead_card = action
                self.window = FOLLOW
                self.to_act = 1 - p
                self.can_declare = False
                self.marriage_suit = -1
            elif action < EXCHANGE:
                suit = action - MARRIAGE
                self.shown = _with_bits(self.shown, p, 1 << suit)
                self.known = _with_bits(self.known, p, KQ[suit])
                self.marriage_suit = suit
                self.can_declare = True
            elif action == EXCHANGE:
                self._exchange(p)
            elif action == CLOSE:
                self._close(p)
            else:
                self._declare(p)
        elif w == DRAW:
            if action == CONTINUE:
                self._draw(p)
                self.window = LEAD
            elif action == CLOSE:
                self._close(p)
            elif action == EXCHANGE:
                self._exchange(p)
            else:
                self._declare(p)
        elif w == CLOSE_RESPONSE:
            if action == EXCHANGE:
                self._exchange(p)
            self.window = LEAD
            self.to_act = 1 - p
        elif w == FINAL:
            if action == DECLARE:
                self._declare(p)
            else:
                closer = self.closed_by
                self._end(1 - closer, 3 if self.closer_opp_tricks == 0 else 2, CLOSER_FAILED)

    def _follow(self, p: int, card: int) -> None:
        lead = self.lead_card
        bit = 1 << card
        hands = self.hands
        hands[p] ^= bit
        self.played[p] |= bit
        lead_suit = lead // 6
        suit = card // 6
        if suit == lead_suit:
            winner = p if card > lead else 1 - p
        else:
            winner = p if suit == self.trump else 1 - p
        phase1 = self.closed_by < 0 and self.stock
        if not phase1:
            # Phase 2: the duty to follow, beat and trump reveals voids.
            if suit != lead_suit:
                v = SUIT_MASKS[lead_suit]
                if suit != self.trump:
                    v |= SUIT_MASKS[self.trump]
                self.void = _with_bits(self.void, p, v)
            elif card < lead:
                self.void = _with_bits(self.void, p, HIGHER[lead])
        self.points[winner] += POINTS[lead] + POINTS[card]
        self.tricks[winner] += 1
        self.won[winner] |= bit | (1 << lead)
        self.lead_card = -1
        self.can_declare = True
        self.to_act = winner
        if phase1:
            self.window = DRAW
        elif hands[winner]:
            self.window = LEAD
        elif self.closed_by >= 0:
            self.window = FINAL
        else:
            self.points[winner] += LAST_TRICK_BONUS
            self._end_by_score()

    def _draw(self, p: int) -> None:
        i = TALON_SIZE - self.stock
        self.hands[p] |= 1 << self.talon[i]
        if self.stock == 2:
            self.hands[1 - p] |= 1 << self.trump_card
            self.known = _with_bits(self.known, 1 - p, 1 << self.trump_card)
        else:
            self.hands[1 - p] |= 1 << self.talon[i + 1]
        self.stock -= 2

    def _exchange(self, p: int) -> None:
        nine = 6 * self.trump
        self.hands[p] ^= (1 << nine) | (1 << self.trump_card)
        self.known = _with_bits(self.known, p, 1 << self.trump_card)
        self.trump_card = nine
        self.exchanged_by = p

    def _close(self, p: int) -> None:
        self.closed_by = p
        self.closer_opp_tricks = self.tricks[1 - p]
        self.window = CLOSE_RESPONSE
        self.to_act = 1 - p

    def _declare(self, p: int) -> None:
        opp = 1 - p
        if self.score(p) >= WIN_SCORE:
            if self.closed_by == opp:
                self._end(p, 2, CLOSER_BEATEN)
            else:
                self._end(p, self._scale(opp), DECLARED)
        else:
            self._end(opp, 2, FALSE_DECLARATION)

    def _scale(self, loser: int) -> int:
        """Game points for beating ``loser``: 1, 2 (schneider) or 3 (no trick)."""
        if not self.tricks[loser]:
            return 3
        return 1 if self.score(loser) >= SCHNEIDER else 2

    def _end_by_score(self) -> None:
        s0, s1 = self.score(0), self.score(1)
        if s0 == s1:
            self._end(None, 0, DRAWN)
        else:
            winner = 0 if s0 > s1 else 1
            self._end(winner, self._scale(1 - winner), LAST_TRICK)

    def _end(self, winner: int | None, game_points: int, reason: str) -> None:
        self.window = OVER
        self.lead_card = -1
        self.result = DealResult(winner, game_points, reason, (self.score(0), self.score(1)))
        if winner is not None:
            scores = self.match_scores[:]  # replaced, not mutated: clones share it
            scores[winner] += game_points
            self.match_scores = scores

    # ---------------------------------------------------------------- display
    def __repr__(self) -> str:
        return (
            f"State(window={WINDOW_NAMES[self.window]}, to_act={self.to_act}, "
            f"hands=[{' '.join(names_of(self.hands[0]))} | {' '.join(names_of(self.hands[1]))}], "
            f"trump_card={CARD_NAMES[self.trump_card]}, stock={self.stock}, "
            f"closed_by={self.closed_by}, lead={self.lead_card}, "
            f"scores=({self.score(0)}, {self.score(1)}), tricks={self.tricks}, "
            f"match={self.match_scores}, result={self.result})"
        )


def _with_bits(pair: list[int], p: int, bits: int) -> list[int]:
    """A copy of ``pair`` with ``bits`` set in entry ``p`` (copy on write)."""
    out = pair[:]
    out[p] |= bits
    return out


def _as_int(action: Any) -> int:
    """An int from an int-like (numpy integers too); -1 for anything else (bools, floats)."""
    if isinstance(action, bool):
        return -1
    try:
        return operator.index(action)
    except TypeError:
        return -1


def _check_dealer(dealer: Any) -> int:
    if isinstance(dealer, bool) or dealer not in (0, 1):
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    return int(dealer)


def _check_match_scores(match_scores: Any) -> list[int]:
    """Two game-point counts in 0..6 (a deal is only dealt while the match is on)."""
    try:
        n = -1 if isinstance(match_scores, (str, bytes)) else len(match_scores)
    except TypeError:
        n = -1
    if n != 2:
        raise ValueError(f"match scores must be two ints, got {match_scores!r}")
    if any(isinstance(g, bool) or _as_int(g) != g or not 0 <= g < MATCH_TARGET for g in match_scores):
        raise ValueError(f"match scores must be ints in 0..{MATCH_TARGET - 1}, got {list(match_scores)!r}")
    return [int(match_scores[0]), int(match_scores[1])]


# --------------------------------------------------------------------- dealing
def make_rng(seed: int | random.Random | Any | None = None) -> Any:
    """A ``random.Random`` from a seed, or an RNG passed through.

    Any object with ``shuffle`` and ``random`` methods works, notably
    ``random.Random`` and ``numpy.random.Generator``.
    """
    if seed is None or isinstance(seed, int):
        return random.Random(seed)
    if hasattr(seed, "shuffle") and hasattr(seed, "random"):
        return seed
    raise ValueError(f"expected an int seed or an RNG with shuffle/random, got {seed!r}")


def new_state(
    hands: Sequence[Sequence[int]],
    talon: Sequence[int],
    dealer: int,
    match_scores: Sequence[int] = (0, 0),
) -> State:
    """A fresh deal from card ids, without validation (see :func:`fixed_deal`)."""
    s = State.__new__(State)
    h0 = h1 = 0
    for c in hands[0]:
        h0 |= 1 << c
    for c in hands[1]:
        h1 |= 1 << c
    s.hands = [h0, h1]
    s.talon = tuple(talon)
    s.stock = TALON_SIZE
    s.trump_card = s.talon[-1]
    s.trump = s.trump_card // 6
    s.closed_by = -1
    s.closer_opp_tricks = 0
    s.points = [0, 0]
    s.tricks = [0, 0]
    s.won = [0, 0]
    s.played = [0, 0]
    s.shown = [0, 0]
    s.exchanged_by = -1
    s.known = [0, 0]
    s.void = [0, 0]
    s.window = LEAD
    s.to_act = 1 - dealer
    s.lead_card = -1
    s.marriage_suit = -1
    s.can_declare = False
    s.dealer = dealer
    s.match_scores = [int(match_scores[0]), int(match_scores[1])]
    s.result = None
    return s


def deal(
    rng: int | random.Random | Any | None = None,
    dealer: int | None = None,
    match_scores: Sequence[int] = (0, 0),
) -> State:
    """Shuffle and deal one deal. ``dealer`` None: chosen at random."""
    rng = make_rng(rng)
    dealer = (1 if rng.random() < 0.5 else 0) if dealer is None else _check_dealer(dealer)
    cards = list(range(N_CARDS))
    rng.shuffle(cards)
    if type(cards[0]) is not int:  # an RNG that swapped in its own integer type
        cards = [int(c) for c in cards]
    return new_state((cards[0:6], cards[6:12]), cards[12:24], dealer, _check_match_scores(match_scores))


def fixed_deal(
    hands: Sequence[Sequence[int | str]],
    talon: Sequence[int | str],
    dealer: int = 0,
    match_scores: Sequence[int] = (0, 0),
) -> State:
    """A deal fixed card by card (RULES.md section 7), fully validated.

    ``hands[p]`` are player p's 6 cards; ``talon[0]`` is drawn first and
    ``talon[-1]`` is the face-up trump card. Cards are ids or names. Raises
    ``ValueError`` naming what is wrong: bad names, wrong counts, duplicate or
    missing cards, a bad dealer or match score.
    """
    from .cards import parse_cards

    dealer = _check_dealer(dealer)
    if isinstance(hands, (str, bytes)) or len(hands) != 2:
        raise ValueError(f"hands must be two lists of 6 cards, got {hands!r}")
    parsed_hands = []
    for p, hand in enumerate(hands):
        cards = parse_cards(hand)
        if len(cards) != HAND_SIZE:
            raise ValueError(f"hands[{p}] has {len(cards)} cards, expected {HAND_SIZE}")
        parsed_hands.append(cards)
    parsed_talon = parse_cards(talon)
    if len(parsed_talon) != TALON_SIZE:
        raise ValueError(f"talon has {len(parsed_talon)} cards, expected {TALON_SIZE}")
    everything = parsed_hands[0] + parsed_hands[1] + parsed_talon
    seen: set[int] = set()
    dupes = sorted({c for c in everything if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
    if dupes:
        raise ValueError(f"duplicate cards in the deal: {', '.join(CARD_NAMES[c] for c in dupes)}")
    missing = sorted(set(range(N_CARDS)) - seen)
    if missing:
        raise ValueError(f"missing cards in the deal: {', '.join(CARD_NAMES[c] for c in missing)}")
    return new_state(parsed_hands, parsed_talon, dealer, _check_match_scores(match_scores))


def next_dealer(state: State) -> int:
    """The winner of a deal deals the next; after a drawn deal, the same dealer."""
    if state.result is None:
        raise ValueError("the deal is not over yet")
    return state.dealer if state.result.winner is None else state.result.winner


def next_deal(state: State, rng: int | random.Random | Any | None = None) -> State:
    """Deal the match's next deal after ``state`` ended (dealer by the rules)."""
    if state.match_over:
        raise ValueError(f"the match is over: {state.match_scores}")
    return deal(rng, next_dealer(state), state.match_scores)


__all__ = [
    "CARD_NAMES",
    "CLOSER_BEATEN",
    "CLOSER_FAILED",
    "CLOSE_RESPONSE",
    "DECLARED",
    "DRAW",
    "DRAWN",
    "DealResult",
    "FALSE_DECLARATION",
    "FINAL",
    "FOLLOW",
    "LAST_TRICK",
    "LEAD",
    "OVER",
    "State",
    "card_id",
    "cards_of",
    "deal",
    "fixed_deal",
    "new_state",
    "next_deal",
]
