"""The rules of Sixty-Six as a small, fast, pure state machine (docs/rules.md).

A :class:`State` is one deal of a match: both hands, the talon, the trick
piles and the decision window. Sets of cards are 24-bit ints and legal sets of
actions 32-bit ints, so a state is a handful of small ints that is cheap to
copy (search bots clone it millions of times).

The player to act is always in exactly one window (docs/rules.md section 5):

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

:mod:`sixtysix_env.deals` makes the states; ``state.apply(action)`` plays one
until ``state.is_over``, then ``state.result`` is its :class:`DealResult`. An
illegal action raises :class:`~sixtysix_env.actions.IllegalActionError` (a
``ValueError``) naming the action, the window and the legal actions;
:meth:`State.check_action` is that check alone, for the environments. How a
deal ends and what it is worth is :mod:`sixtysix_env.scoring`.

A :class:`State` implements the game contract (:mod:`sixtysix_env.contract`);
its rule hooks (``State.hooks``) are its own methods, the presets' classes
(:mod:`sixtysix_env.variant_rules`) bind theirs. The engine knows nothing of
environments, numpy or what a player may see (:mod:`~sixtysix_env.knowledge`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .actions import (
    CLOSE,
    CLOSE_BIT,
    CONTINUE_BIT,
    DECLARE,
    DECLARE_BIT,
    EXCHANGE,
    EXCHANGE_BIT,
    MARRIAGE,
    MARRIAGE_ACTIONS,
    N_ACTIONS,
    actions_of,
    check_action,
    is_legal,
    parse_action,
)
from .cards import CARD_NAMES, HIGHER, KQ, N_CARDS, POINTS, QUEENS, SUIT_MASKS, names_of, with_bits
from .scoring import DealResult, closer_failed, declaration, last_trick, marriage_points
from .variants import GERMAN, HOOK_NAMES, RULE_HOOKS, RuleHooks, Rules

LEAD, DRAW, CLOSE_RESPONSE, FOLLOW, FINAL, OVER = range(6)
PLAYER_IDS = ("player_0", "player_1")  # the environments' agent names, seat 0 and seat 1

# The talon's phase (docs/rules.md section 3): open (phase 1), closed by a player with cards
# still face down, or spent (every card drawn). Phase-2 rules apply unless open.
TALON_OPEN, TALON_CLOSED, TALON_SPENT = "open", "closed", "spent"


def talon_phase(s: Any) -> str:
    """The talon phase of a :class:`State` or a ``PlayerView`` (both carry ``stock`` and ``closed_by``)."""
    if s.stock == 0:
        return TALON_SPENT
    return TALON_CLOSED if s.closed_by >= 0 else TALON_OPEN

WINDOW_NAMES = ("lead", "draw", "close_response", "follow", "final", "over")
N_WINDOWS = 6

# The German game's numbers (a deal's own are in ``State.rules``).
TALON_SIZE = GERMAN.talon_size
HAND_SIZE = GERMAN.hand_size
MATCH_TARGET = GERMAN.match_target
_DRAW_MASK = CONTINUE_BIT | CLOSE_BIT | DECLARE_BIT
_FINAL_MASK = DECLARE_BIT | CONTINUE_BIT


@dataclass(slots=True, repr=False)  # eq compares every field; no hash (mutable)
class State:
    """One deal in progress (plus the match score around it).

    Attributes are public and documented here; treat them as read-only and
    change a state only through :meth:`apply`. Deals come from
    :mod:`sixtysix_env.deals`, not from the constructor.

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
    - ``rules``: the preset this deal follows (:mod:`sixtysix_env.variants`);
      ``bonus`` and ``held``: see :class:`~sixtysix_env.variant_rules.RulesState`.
    - ``hooks`` (class): the :class:`~sixtysix_env.variants.RuleHooks` its methods are.
    """

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
    # The German game's values, on the class: a German deal carries and clones
    # nothing more than before presets existed (RulesState gives them slots).
    rules: ClassVar[Rules] = GERMAN
    bonus: ClassVar[int] = 0
    held: ClassVar[tuple[tuple[int, int], tuple[int, int]] | None] = None
    hooks: ClassVar[RuleHooks]  # set below the class

    # ----------------------------------------------------------------- basics
    def clone(self) -> State:
        """An independent copy (search bots clone constantly). ``shown``, ``known``, ``void``
        and ``match_scores`` change rarely, so the engine replaces them instead of mutating
        them and a clone shares them (one reason attributes are read-only for callers)."""
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
        target = self.rules.match_target
        return self.match_scores[0] >= target or self.match_scores[1] >= target

    @property
    def match_winner(self) -> int | None:
        target = self.rules.match_target
        return 0 if self.match_scores[0] >= target else 1 if self.match_scores[1] >= target else None

    @property
    def match_value(self) -> int:
        """Matches the finished match counts for: 2 for a 7-0 win with the
        double-game switch (docs/rules-variants.md V1.3), else 1."""
        if self.rules.double_game and self.match_over and min(self.match_scores) == 0:
            return 2
        return 1

    def marriage_points(self, player: int) -> int:
        """Points of the marriages ``player`` showed, counted or not yet."""
        return marriage_points(self.shown[player], self.trump)

    def score(self, player: int) -> int:
        """Deal score: trick points, plus marriages once a trick is taken (a rule hook)."""
        if self.tricks[player]:
            return self.points[player] + marriage_points(self.shown[player], self.trump)
        return self.points[player]

    # ------------------------------------------------------------ legal moves
    def legal_mask(self) -> int:
        """Legal actions of the player to act, as a 32-bit mask (a rule hook)."""
        w = self.window
        p = self.to_act
        h = self.hands[p]
        # ``self.closed_by < 0 and self.stock`` below is :attr:`talon_open`,
        # inlined: the legal mask is the search bots' hottest path.
        if w == FOLLOW:
            if self.closed_by < 0 and self.stock:
                return h
            lead = self.lead_card
            same = h & SUIT_MASKS[lead // 6]
            if same:
                return (same & HIGHER[lead]) or same
            return (h & SUIT_MASKS[self.trump]) or h
        if w == LEAD:
            decl = DECLARE_BIT if self.can_declare and self.tricks[p] else 0
            ms = self.marriage_suit
            if ms >= 0:
                m = (h & KQ[ms]) | decl
                if self.talon_open:
                    m |= CLOSE_BIT
                return m
            if self.closed_by < 0 and self.stock:
                m = h | decl | CLOSE_BIT | MARRIAGE_ACTIONS[(h >> 1) & h & QUEENS]
                if self.tricks[p] and (h >> (6 * self.trump)) & 1:
                    m |= EXCHANGE_BIT
                return m
            return h | decl
        if w == DRAW:
            if (h >> (6 * self.trump)) & 1:
                return _DRAW_MASK | EXCHANGE_BIT
            return _DRAW_MASK
        if w == CLOSE_RESPONSE:
            if (h >> (6 * self.trump)) & 1:
                return CONTINUE_BIT | EXCHANGE_BIT
            return CONTINUE_BIT
        if w == FINAL:
            return _FINAL_MASK
        return 0

    def legal_actions(self) -> list[int]:
        return actions_of(self.legal_mask())

    def is_legal(self, action: int) -> bool:
        return is_legal(action, self.legal_mask())

    # ------------------------------------------------------------ transitions
    def apply(self, action: int) -> None:
        """Play ``action`` for the player to act (mutates the state); an illegal one raises
        :class:`~sixtysix_env.actions.IllegalActionError` naming it and the legal ones."""
        mask = self.legal_mask()
        if not (type(action) is int and 0 <= action < N_ACTIONS and mask >> action & 1):  # hot path first
            action = check_action(action, mask, self._where)
        self.apply_unchecked(action)

    def check_action(self, action: Any) -> int:
        """``action`` as an int if the player to act may play it; else
        :class:`~sixtysix_env.actions.IllegalActionError` naming the action,
        the player, the window and the legal actions (ints and numpy integers
        are actions; bools, floats and strings never are)."""
        return check_action(action, self.legal_mask(), self._where)

    def _where(self) -> str:
        """Where an action was played, for the illegal-action message."""
        if self.window == OVER:
            return f": the deal is over ({self.result})"
        return f" for {PLAYER_IDS[self.to_act]} in the {WINDOW_NAMES[self.window]} window"

    def play(self, *actions: int | str) -> State:
        """Apply actions given as ids or names (``"TH"``, ``"marriage H"``, ``"close"``...),
        each checked; returns ``self``. Readable scripts for tests, puzzles and examples:
        ``fixed_deal(...).play("AC", "9C", "continue")``."""
        for action in actions:
            self.apply(parse_action(action) if isinstance(action, str) else action)
        return self

    def apply_unchecked(self, action: int) -> None:
        """:meth:`apply` without the legality check, for callers that took
        ``action`` from :meth:`legal_mask` (search bots, benchmarks)."""
        w = self.window
        p = self.to_act
        if w == FOLLOW:
            self.take_trick(p, action)
        elif w == OVER:
            return
        # Each action below is legal in the windows its comment names, so the
        # action decides what happens; the window only where the same action
        # means different things.
        elif action < N_CARDS:  # lead a card (LEAD)
            self.hands[p] ^= 1 << action
            self.played[p] |= 1 << action
            self.lead_card = action
            self.window = FOLLOW
            self.to_act = 1 - p
            self.can_declare = False
            self.marriage_suit = -1
        elif action < EXCHANGE:  # show a marriage (LEAD)
            self.show_marriage(p, action - MARRIAGE)
        elif w == CLOSE_RESPONSE:  # exchange or continue, then the closer leads
            if action == EXCHANGE:
                self._exchange(p)
            self.window = LEAD
            self.to_act = 1 - p
        elif action == EXCHANGE:  # LEAD, DRAW
            self._exchange(p)
        elif action == CLOSE:  # LEAD, DRAW
            self._close(p)
        elif action == DECLARE:  # LEAD, DRAW, FINAL
            self.end_deal(*declaration(self, p))
        elif w == DRAW:  # continue: both draw
            self.draw(p)
            self.window = LEAD
        else:  # FINAL, continue: the closer failed
            self.end_deal(*closer_failed(self))

    # ------------------------------------------------------------- rule hooks
    def show_marriage(self, p: int, suit: int) -> None:
        """Rule hook: ``p`` shows the marriage of ``suit`` (it counts once ``p`` has a trick)."""
        self.shown = with_bits(self.shown, p, 1 << suit)
        self.known = with_bits(self.known, p, KQ[suit])
        self.marriage_suit = suit
        self.can_declare = True

    def take_trick(self, p: int, card: int) -> None:
        """Rule hook: ``p`` follows with ``card``; the winner then draws, leads, or the deal ends."""
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
        phase1 = self.closed_by < 0 and self.stock  # talon_open, inlined (hot path)
        if not phase1:
            # Phase 2: the duty to follow, beat and trump reveals voids.
            if suit != lead_suit:
                v = SUIT_MASKS[lead_suit]
                if suit != self.trump:
                    v |= SUIT_MASKS[self.trump]
                self.void = with_bits(self.void, p, v)
            elif card < lead:
                self.void = with_bits(self.void, p, HIGHER[lead])
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
            self.points[winner] += self.rules.last_trick_bonus
            self.end_deal(*last_trick(self, winner))

    def draw(self, p: int, talon_size: int = TALON_SIZE) -> None:
        """Rule hook: both draw, ``p`` first, the face-up card last (a preset's talon may be smaller)."""
        i = talon_size - self.stock
        self.hands[p] |= 1 << self.talon[i]
        if self.stock == 2:
            self.hands[1 - p] |= 1 << self.trump_card
            self.known = with_bits(self.known, 1 - p, 1 << self.trump_card)
        else:
            self.hands[1 - p] |= 1 << self.talon[i + 1]
        self.stock -= 2

    def _exchange(self, p: int) -> None:
        nine = 6 * self.trump + self.rules.exchange_rank
        self.hands[p] ^= (1 << nine) | (1 << self.trump_card)
        self.known = with_bits(self.known, p, 1 << self.trump_card)
        self.trump_card = nine
        self.exchanged_by = p

    def _close(self, p: int) -> None:
        self.closed_by = p
        self.closer_opp_tricks = self.tricks[1 - p]
        if self.rules.exchange_on_close:
            self.window = CLOSE_RESPONSE
            self.to_act = 1 - p
        else:
            self.window = LEAD

    def end_deal(self, winner: int | None, game_points: int, reason: str) -> None:
        """Rule hook: the deal ends; ``result`` set, the game points to the match score."""
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


GERMAN_HOOKS = State.hooks = RULE_HOOKS["german"] = RuleHooks(*(getattr(State, n) for n in HOOK_NAMES))

__all__ = [
    "CLOSE_RESPONSE", "DRAW", "FINAL", "FOLLOW", "GERMAN_HOOKS", "LEAD", "OVER", "PLAYER_IDS", "State",
    "TALON_CLOSED", "TALON_OPEN", "TALON_SPENT", "WINDOW_NAMES", "talon_phase",
]  # fmt: skip
