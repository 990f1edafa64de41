"""The rules of thumb every bot and training share.

They read only what a player knows, so the same functions drive the
``heuristic`` bot (on a view), the fast playouts of the search bots
(:func:`rollout_action`, on a determinized state) and the moves a learned
bot is spared (:func:`obvious_action`, :func:`scripted_action`):

- declare as soon as the score reaches 66; a closer who would otherwise
  lose 3 declares falsely at the end when that costs less (2);
- exchange the nine of trumps whenever allowed; show marriages, trumps first
  (under rules where a marriage shown before the first trick is lost, only
  once a trick is taken);
- close when the score plus the points of sure winners makes 66 likely;
- phase 1, following: take a ten or an ace cheaply (the ace of the suit or
  the lowest trump), take any lead with a higher card of its suit when that
  card is a ten or ace, otherwise throw the cheapest card, sparing trumps
  and marriage partners; leading: the cheapest such card;
- phase 2 with the talon closed: lead sure winners (trumps first), else the
  cheapest card; follow with the cheapest winning card, else the cheapest.

The deal's rule preset comes with the state or view (``rules``,
docs/rules-variants.md): its deck tells the outstanding cards (no nines in
Schnapsen), its scoring the final false declaration and when a marriage
counts. This module imports no search: the registry reads
:data:`ASSIST_MODES` from it without loading the solver.
"""

from __future__ import annotations

from typing import Any, Protocol

from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE
from sixtysix_env.cards import ACE, HIGHER, KQ, POINTS, SUIT_MASKS, TEN, bits_of
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, FINAL, FOLLOW, LEAD, TALON_CLOSED, TALON_SPENT, State
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.scoring import WIN_SCORE
from sixtysix_env.variants import CREDIT_TRICK_BEFORE, GERMAN, Rules


class EndgameSolver(Protocol):
    """What :func:`scripted_action` needs of a solver (:class:`agents.search.solver.Solver`)."""

    def endgame_action(self, view: PlayerView, rng: Any) -> int | None: ...


CLOSE_MARGIN = 0  # close when score + sure points + expected pickups >= 66 + margin
PICKUP_PER_WINNER = 3  # points a sure winner is expected to pick up from the opponent


def _discard_cost(card: int, hand: int, trump: int) -> tuple[int, int, int]:
    """Sort key for throwing a card away: cheap, non-trump, not a marriage half."""
    suit = card // 6
    in_marriage = (hand & KQ[suit]) == KQ[suit] and card in (6 * suit + 2, 6 * suit + 3)
    return (suit == trump, in_marriage, POINTS[card] * 10 + card % 6)


def masters(hand: int, outstanding: int) -> int:
    """Cards in ``hand`` that beat every outstanding card of their suit."""
    out = 0
    for c in bits_of(hand):
        if not outstanding & HIGHER[c]:
            out |= 1 << c
    return out


def should_close(hand: int, my_score: int, my_tricks: int, trump: int, outstanding: int) -> bool:
    """Close when sure winners (trumps, or suits the opponent can't trump) bring 66."""
    if my_tricks == 0:
        return False
    trumps = SUIT_MASKS[trump]
    sure = masters(hand, outstanding)
    # Non-trump masters only count when we also hold the top outstanding trumps.
    if outstanding & trumps and not (sure & trumps):
        sure &= trumps
    est = my_score + sum(POINTS[c] for c in bits_of(sure)) + PICKUP_PER_WINNER * sure.bit_count()
    return est >= WIN_SCORE + CLOSE_MARGIN and (hand & trumps).bit_count() >= 2


def rule_action(
    *,
    legal: int,
    hand: int,
    window: int,
    lead_card: int,
    trump: int,
    phase2: bool,
    me: int,
    closed_by: int,
    closer_opp_tricks: int,
    my_score: int,
    my_tricks: int,
    outstanding: int,
    opp_tricks: int = 1,
    rules: Rules = GERMAN,
) -> int:
    """The heuristic's action from what one player knows; ``legal`` is its mask.

    ``outstanding``: cards of the deck neither in ``hand`` nor played
    (opponent's hand plus talon), which tells sure winners.
    """
    if legal >> DECLARE & 1:
        if my_score >= WIN_SCORE:
            return DECLARE
        if window == FINAL and closed_by == me and false_claim_cost(rules, opp_tricks) < (
            3 if (opp_tricks if rules.failed_close_all_tricks else closer_opp_tricks) == 0 else 2
        ):
            return DECLARE  # a false declaration costs less than failing as closer
    if legal >> EXCHANGE & 1:
        return EXCHANGE
    if window in (DRAW, CLOSE_RESPONSE, FINAL):
        return CONTINUE  # close after drawing, at the lead, with a full hand
    cards = legal & 0xFFFFFF
    if window == LEAD:
        marriages = (legal >> MARRIAGE) & 0xF if marriage_counts(rules, my_tricks) else 0
        if marriages:
            suit = trump if marriages >> trump & 1 else max(bits_of(marriages))
            return MARRIAGE + suit
        if legal >> CLOSE & 1 and should_close(hand, my_score, my_tricks, trump, outstanding):
            return CLOSE
        if not phase2 and cards in KQ:  # after a marriage: lead the queen, keep the king's 4
            return min(bits_of(cards))
        if phase2:
            sure = masters(cards, outstanding)
            if sure:
                sure_trumps = sure & SUIT_MASKS[trump]
                if sure_trumps and outstanding & SUIT_MASKS[trump]:
                    return max(bits_of(sure_trumps))
                return max(bits_of(sure), key=lambda c: (POINTS[c], c))
        return min(bits_of(cards), key=lambda c: _discard_cost(c, hand, trump))
    if window == FOLLOW:
        lead_suit = lead_card // 6
        lead_is_trump = lead_suit == trump
        winners = []
        for c in bits_of(cards):
            s = c // 6
            if (s == lead_suit and c > lead_card) or (s == trump and not lead_is_trump):
                winners.append(c)
        if phase2:
            if winners:
                return min(winners, key=lambda c: (c // 6 == trump, POINTS[c], c))
            return min(bits_of(cards), key=lambda c: _discard_cost(c, hand, trump))
        if winners:
            same = [c for c in winners if c // 6 == lead_suit]
            high_lead = lead_card % 6 >= TEN and not lead_is_trump
            if high_lead:
                if same:
                    return min(same)
                spare = [c for c in winners if not (c % 6 in (2, 3) and hand & KQ[c // 6] == KQ[c // 6])]
                return min(spare or winners, key=lambda c: (POINTS[c], c))
            big = [c for c in same if c % 6 >= TEN and not lead_is_trump]
            if big:
                return max(big) if any(c % 6 == ACE for c in big) else min(big)
        return min(bits_of(cards), key=lambda c: _discard_cost(c, hand, trump))
    raise ValueError(f"no rule for window {window}")


def rollout_action(state: State) -> int:
    """The heuristic's move for the player to act in a full state (playouts).

    Uses only what that player knows, so playouts do not cheat.
    """
    p = state.to_act
    return _rule_action_of(state, p, state.legal_mask(), state.hands[p], state.score(p))


def view_rule_action(view: PlayerView) -> int:
    """:func:`rule_action` for a player's view."""
    p = view.player
    return _rule_action_of(view, p, view.legal_mask, view.hand, view.scores[p])


def _rule_action_of(s: State | PlayerView, p: int, legal: int, hand: int, score: int) -> int:
    """:func:`rule_action` from the fields a state and a view share."""
    return rule_action(
        legal=legal,
        hand=hand,
        window=s.window,
        lead_card=s.lead_card,
        trump=s.trump,
        phase2=not s.talon_open,
        me=p,
        closed_by=s.closed_by,
        closer_opp_tricks=s.closer_opp_tricks,
        my_score=score,
        my_tricks=s.tricks[p],
        outstanding=s.rules.deck & ~(hand | s.played[0] | s.played[1]),
        opp_tricks=s.tricks[1 - p],
        rules=s.rules,
    )


def false_claim_cost(rules: Rules, opp_tricks: int) -> int:
    """Game points a false declaration gives the opponent (docs/rules-variants.md V2)."""
    return 3 if rules.false_claim_three and not opp_tricks else 2


def marriage_counts(rules: Rules, my_tricks: int) -> bool:
    """Whether a marriage shown now will count (lost before the first trick under kawu's rules)."""
    return bool(my_tricks) or rules.marriage_credit != CREDIT_TRICK_BEFORE


ASSIST_MODES = ("full", "rules", "none")
"""How much a learned bot is helped (``ppo:assist=...``, ``train.py``'s ``assist``):
``full``: obvious moves by rule and the exact solver once the talon is spent;
``rules``: obvious moves by rule only, no search; ``none``: the network plays every move."""


def assist_mode(assist: bool | int | str) -> str:
    """One of :data:`ASSIST_MODES`; ``True``/``1`` mean ``full``, ``False``/``0`` ``none``."""
    if assist in (1, "1"):  # True == 1
        return "full"
    if assist in (0, "0"):
        return "none"
    if isinstance(assist, str) and assist.strip().lower() in ASSIST_MODES:
        return assist.strip().lower()
    raise ValueError(f"assist must be one of {', '.join(ASSIST_MODES)} (or 1/0), got {assist!r}")


def scripted_action(view: PlayerView, solver: EndgameSolver, rng: Any, mode: str = "full") -> int | None:
    """A move a bot may play without its own judgement, or None: an
    :func:`obvious_action` (modes ``full`` and ``rules``), or the exact
    solver's move once the talon is spent (:meth:`Solver.endgame_action`,
    mode ``full``). The ``ppo`` bot and its training use this, so the network
    decides only the real choices."""
    if mode == "none":
        return None
    a = obvious_action(view)
    if a is None and mode == "full":
        a = solver.endgame_action(view, rng)
    return a


def obvious_action(view: PlayerView) -> int | None:
    """A move no search needs to weigh, or None.

    The only legal move; a correct declaration (declaring at once dominates
    waiting); the exchange of the trump nine (a higher trump for the lowest);
    showing a marriage, trumps first (20 or 40 points and a lead one was
    going to make anyway).
    """
    legal = view.legal_mask
    if legal and not legal & (legal - 1):
        return legal.bit_length() - 1
    if legal >> DECLARE & 1 and view.scores[view.player] >= WIN_SCORE:
        return DECLARE
    if legal >> EXCHANGE & 1:
        return EXCHANGE
    marriages = (legal >> MARRIAGE) & 0xF if marriage_counts(view.rules, view.tricks[view.player]) else 0
    if marriages:
        return MARRIAGE + (view.trump if marriages >> view.trump & 1 else max(bits_of(marriages)))
    return None


PHASE_WINDOWS = (LEAD, FOLLOW, FINAL)  # the windows where a card (or the final declaration) is decided


def is_endgame_view(view: PlayerView) -> bool:
    """A decision with the talon spent (lead, follow or final): the view
    fixes every card, so the exact solver knows the value of every move."""
    return view.talon_phase == TALON_SPENT and view.window in PHASE_WINDOWS and bool(view.legal_mask)


def is_closed_view(view: PlayerView) -> bool:
    """A decision (lead, follow or final) with the talon closed and cards
    still face down in it: the view hides the opponent's hand among the
    unseen cards, so no single world is the true one."""
    return view.talon_phase == TALON_CLOSED and view.window in PHASE_WINDOWS and bool(view.legal_mask)
