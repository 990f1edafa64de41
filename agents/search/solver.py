"""Exact perfect-information solver for one deal of Sixty-Six.

Values are game points for the player to act, zero-sum: ``+g`` when that
player wins the deal for ``g`` game points, ``-g`` when the opponent does, 0
for a drawn deal. The solver sees the whole engine state (both hands, the
talon order), so bots use it on determinized worlds or once the talon is
spent, when the view fixes every card.

Phase 2 (talon closed or spent) is the main case. It runs on a compact
internal form: two hand masks, two deal scores, "has a trick" flags and the
card led, searched with alpha-beta, a transposition table keyed on lead
positions, cheap upper bounds from the scoring scale (1/2/3) and the
dominance of declaring at once when a correct declaration is worth that
bound (the loser's score and tricks only grow, so waiting cannot pay more;
against a closer who closed before the opponent's first trick, waiting for
the failed close's 3 can beat declaring for 2). A false declaration is a
move worth -2; it matters for a closer facing -3. Other windows (phase 1,
the close response, a marriage shown just before closing) are searched
move by move over the engine itself, exactly but slowly: phase 1 from early
in the deal is far too large to solve, so callers bound it themselves.

Rule presets (docs/rules-variants.md): the compact search reads the deal's
``rules`` for what it scores (the last-trick bonus, a last trick that wins
the deal, false declarations worth 3, beating the closer scored as a failed
close, marriages lost before the first trick) and adds a draw bonus to every
won deal. Presets whose phase 2 has more moves or another way to end
(marriages after the talon closed, 66 checked after every trick, marriages
credited at the next trick: both Schnapsen presets) are searched over the
engine's moves, exact and slower.

Public functions: :func:`solve` (value), :func:`best_action`,
:func:`action_values`, :meth:`Solver.endgame_action` (a player's exact
move once the talon is spent). A :class:`Solver` keeps transposition tables between
calls (useful when one decision solves many related positions).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from sixtysix_env.actions import DECLARE, actions_of
from sixtysix_env.cards import HIGHER, POINTS, SUIT_MASKS
from sixtysix_env.engine import FOLLOW, LEAD, OVER, State
from sixtysix_env.knowledge import PlayerView, sample_state
from sixtysix_env.scoring import SCHNEIDER, WIN_SCORE, marriage_points
from sixtysix_env.variants import CREDIT_NEXT_TRICK, DECLARE_BY_PLAYER, GERMAN, Rules

from ..core.rules import is_endgame_view
from .budget import OutOfTime

INF = 1 << 10  # larger than any deal value (|value| <= 3 plus a draw bonus under 100)
CHECK_MASK = 255  # with a stop condition, asked every CHECK_MASK + 1 searched positions (a few hundred µs)
FALSE_DECLARATION_VALUE = -2  # the German game's; rules with false_claim_three make it -3 sometimes

_Search = tuple[Callable[..., int], Callable[..., int], dict[Any, Any]]


def child_value(child: State, p: int, search: Callable[[State, bool], int]) -> int:
    """Value for ``p`` of the position after p's move: the deal's result, or
    ``search(child, same)`` from the side of the player to act there (negated
    when that is the opponent, ``same`` False)."""
    if child.window == OVER:
        return terminal_value(child, p)
    return search(child, True) if child.to_act == p else -search(child, False)


def terminal_value(state: State, player: int) -> int:
    """Value of a finished deal for ``player``."""
    res = state.result
    if res is None:
        raise ValueError("the deal is not over")
    if res.winner is None:
        return 0
    return res.game_points if res.winner == player else -res.game_points


def compact_rules(rules: Rules) -> bool:
    """Whether the compact phase-2 search models ``rules`` (else: the engine's moves)."""
    return (not rules.late_marriages and rules.declaring == DECLARE_BY_PLAYER
            and rules.marriage_credit != CREDIT_NEXT_TRICK)


def counted_marriages(state: State, p: int) -> int:
    """Marriage points of ``p`` that count once p has a trick (less those lost for good)."""
    shown = state.shown[p]
    if state.held is not None:
        suits, at = state.held[p]
        if state.tricks[p] <= at:
            shown &= ~suits
    return marriage_points(shown, state.trump)


def _make_phase2(trump: int, closer: int, cot0: bool, marriages: tuple[int, int], watch: list[Any],
                 rules: Rules = GERMAN, bonus: int = 0) -> _Search:
    """Build the compact phase-2 search for one set of deal constants.

    ``closer``: who closed (-1: talon spent); ``cot0``: the closer's opponent
    had no trick at closing; ``marriages``: marriage points shown by each
    player (they count once that player has a trick). Scores passed around
    are deal scores (card points plus counted marriages). ``watch`` is the
    solver's ``[nodes, stop]``: with a ``stop`` callable, every ``CHECK_MASK + 1``-th
    searched position (lead positions here, engine positions in ``Solver._generic``)
    asks it and raises :class:`OutOfTime` when it says so.
    ``rules`` and ``bonus``: the deal's preset and draw bonus (module docstring).
    """
    trumps = SUIT_MASKS[trump]
    suit_masks = SUIT_MASKS
    higher = HIGHER
    points = POINTS
    failed_closer_gp = (3 if cot0 else 2) + bonus  # the most a failed close can give
    all_tricks = rules.failed_close_all_tricks  # kawu: the opponent's tricks over the whole deal (V2.6)

    def failed_close(opp_has_trick: bool) -> int:
        """What the closer's opponent scores for a failed close, knowing whether it has a trick now."""
        if all_tricks:
            return (2 if opp_has_trick else 3) + bonus
        return failed_closer_gp

    beaten_closer_gp = failed_close(True) if rules.closer_beaten_like_failed else 2 + bonus
    false_gp = (2 + bonus, 3 + bonus if rules.false_claim_three else 2 + bonus)  # by whether opp has no trick
    last_bonus, last_wins = rules.last_trick_bonus, rules.last_trick_wins
    tt: dict[int, tuple[int, int]] = {}

    def scale(s_loser: int, t_loser: bool) -> int:
        if not t_loser:
            return 3 + bonus
        return (1 if s_loser >= SCHNEIDER else 2) + bonus

    def declare_value(p: int, sp: int, so: int, to: bool) -> int:
        """Value for ``p`` declaring with score ``sp`` (opponent: ``so``, ``to``)."""
        if sp >= WIN_SCORE:
            if closer == 1 - p:
                return beaten_closer_gp
            return scale(so, to)
        return -false_gp[not to]

    def last_trick(w: int, sw: int, so: int, to: bool) -> int:
        """Value for ``w``, who took the last trick (both hands now empty)."""
        if closer >= 0:
            cont = -failed_close(to) if w == closer else failed_close(True)
            d = declare_value(w, sw, so, to)
            return d if d > cont else cont
        sw += last_bonus
        if last_wins:  # the last trick wins the deal (scored as a declaration with 66)
            return declare_value(w, sw, so, to) if sw >= WIN_SCORE else last_wins + bonus
        if sw > so:
            return scale(so, to)
        if sw < so:
            return -scale(sw, True)
        return 0

    def upper(p: int, so: int, to: bool) -> int:
        """Most ``p`` can still win (the opponent's score and tricks only grow)."""
        if closer == 1 - p:
            return failed_closer_gp
        return scale(so, to)

    def lead(p: int, hl: int, hf: int, sl: int, sf: int, tl: bool, tf: bool,
             alpha: int, beta: int, can_declare: bool) -> int:
        """Value for ``p`` on lead with hand ``hl`` (opponent holds ``hf``)."""
        ub = upper(p, sf, tf)
        declare = declare_value(p, sl, sf, tf) if can_declare and tl else -INF
        if declare >= ub:  # a correct declaration worth the most p can win: nothing beats it now
            return declare
        if ub <= alpha:
            return ub
        lb = -upper(1 - p, sl, tl)
        if lb >= beta:
            return lb
        if ub < beta:
            beta = ub
        if lb > alpha:
            alpha = lb
        key = ((((hl << 24) | hf) << 8 | sl) << 8 | sf) << 4 | (p << 3) | (tl << 2) | (tf << 1) | can_declare
        entry = tt.get(key)
        if entry is not None:
            lo, hi = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        if watch[1] is not None:
            watch[0] += 1
            if not watch[0] & CHECK_MASK and watch[1]():
                raise OutOfTime
        a0, b0 = alpha, beta
        best = declare  # declaring (correctly or not) is a move; -INF when it is not legal
        if best > alpha:
            alpha = best
        if best < beta:
            # Order: non-trump aces and tens first (they usually take points),
            # then the rest high to low.
            m = hl
            order = []
            while m:
                low = m & -m
                order.append(low.bit_length() - 1)
                m ^= low
            order.reverse()
            for c in order:
                v = follow(1 - p, hf, hl ^ (1 << c), sf, sl, tf, tl, c, -beta, -alpha)
                v = -v
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        if best <= a0:
            tt[key] = (entry[0] if entry else -INF, best)
        elif best >= b0:
            tt[key] = (best, entry[1] if entry else INF)
        else:
            tt[key] = (best, best)
        return best

    def follow(p: int, hf: int, hl: int, sf: int, sl: int, tf: bool, tl: bool, card: int,
               alpha: int, beta: int) -> int:
        """Value for ``p`` following ``card`` with hand ``hf``."""
        lead_suit_mask = suit_masks[card // 6]
        same = hf & lead_suit_mask
        if same:
            legal = (same & higher[card]) or same
        else:
            legal = (hf & trumps) or hf
        card_is_trump = (1 << card) & trumps
        pc = points[card]
        best = -INF
        leader = 1 - p
        m = legal
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            nh = hf ^ low
            gain = pc + points[c]
            if low & lead_suit_mask:
                wins = c > card
            else:
                wins = bool(low & trumps) and not card_is_trump
            if wins:
                ns = sf + gain + (0 if tf else marriages[p])
                if not nh:
                    v = last_trick(p, ns, sl, tl)
                else:
                    v = lead(p, nh, hl, ns, sl, True, tl, alpha, beta, True)
            else:
                ns = sl + gain + (0 if tl else marriages[leader])
                if not hl:
                    v = -last_trick(leader, ns, sf, tf)
                else:
                    v = -lead(leader, hl, nh, ns, sf, True, tf, -beta, -alpha, True)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    return lead, follow, tt


class Solver:
    """Exact solver with transposition tables kept between calls.

    One table per set of deal constants (trump, closer, marriages shown), so a
    solver may be reused across positions of any deals; :meth:`clear` frees
    them. :meth:`set_aside` drops them in O(1) instead and keeps them until
    :meth:`release` (or the next ``set_aside``/``clear``) frees them: freeing
    a big table is work a timed move need not do before it replies. At most
    one set waits, so memory stays bounded.
    """

    def __init__(self) -> None:
        self._searches: dict[tuple[Any, ...], _Search] = {}
        self._retired: dict[tuple[Any, ...], _Search] = {}
        self._watch: list[Any] = [0, None]

    def __getstate__(self) -> dict[str, Any]:
        """A copy (pickle, ``copy.deepcopy``) starts with empty tables: they are a cache of exact
        values, and their closures neither pickle nor may be shared with the original's deadline."""
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def clear(self) -> None:
        """Free every table."""
        self._searches = {}
        self._retired = {}

    def set_aside(self) -> None:
        """Start afresh in O(1); the old tables wait for :meth:`release` (freeing the set waiting before)."""
        if self._searches:
            self._retired, self._searches = self._searches, {}

    def release(self) -> None:
        """Free the tables :meth:`set_aside` kept (where time is not counted, or counted by a deadline)."""
        self._retired = {}

    def stop_when(self, stop: Callable[[], bool] | None) -> None:
        """From now on a search raises :class:`~agents.search.budget.OutOfTime` once
        ``stop()`` is true (asked every few hundred positions); None: never."""
        self._watch[:] = [0, stop]

    def check(self) -> None:
        """Raise :class:`~agents.search.budget.OutOfTime` if the ``stop_when`` condition holds."""
        stop = self._watch[1]
        if stop is not None and stop():
            raise OutOfTime

    def _search_for(self, state: State) -> _Search:
        key = (state.trump, state.closed_by, state.closer_opp_tricks == 0,
               counted_marriages(state, 0), counted_marriages(state, 1), state.rules, state.bonus)
        s = self._searches.get(key)
        if s is None:
            s = _make_phase2(key[0], key[1], key[2], (key[3], key[4]), self._watch, key[5], key[6])
            self._searches[key] = s
        return s

    # ----------------------------------------------------------------- values
    def solve(self, state: State, alpha: int = -INF, beta: int = INF) -> int:
        """Value of ``state`` for the player to act (exact within the window)."""
        if state.window == OVER:
            raise ValueError("the deal is over; use terminal_value(state, player)")
        p = state.to_act
        w = state.window
        if not state.talon_open and (w == FOLLOW or (w == LEAD and state.marriage_suit < 0)) \
                and compact_rules(state.rules):
            lead, follow, _ = self._search_for(state)
            opp = 1 - p
            h = state.hands
            sp, so = state.score(p), state.score(opp)
            tp, to = state.tricks[p] > 0, state.tricks[opp] > 0
            if w == LEAD:
                return lead(p, h[p], h[opp], sp, so, tp, to, alpha, beta, state.can_declare)
            return follow(p, h[p], h[opp], sp, so, tp, to, state.lead_card, alpha, beta)
        # FINAL, the close response, a lead after marriage-then-close, phase 1.
        return self._generic(state, alpha, beta)

    def _in_window(self, alpha: int, beta: int) -> Callable[[State, bool], int]:
        """:func:`child_value`'s search of a child in the mover's window (negated for the opponent)."""
        return lambda c, same: self.solve(c, alpha, beta) if same else self.solve(c, -beta, -alpha)

    def _generic(self, state: State, alpha: int, beta: int) -> int:
        """Negamax over engine moves (any window; exponential in phase 1)."""
        watch = self._watch
        if watch[1] is not None:  # phase 1 is exponential: a deadline is asked here too
            watch[0] += 1
            if not watch[0] & CHECK_MASK and watch[1]():
                raise OutOfTime
        p = state.to_act
        best = -INF
        for a in actions_of(state.legal_mask()):
            child = state.clone()
            child.apply_unchecked(a)
            v = child_value(child, p, self._in_window(alpha, beta))
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def action_values(self, state: State) -> dict[int, int]:
        """Exact value of every legal action for the player to act."""
        if state.window == OVER:
            raise ValueError("the deal is over; no action is legal")
        p = state.to_act
        out = {}
        for a in actions_of(state.legal_mask()):
            child = state.clone()
            child.apply_unchecked(a)
            if child.window == OVER:
                out[a] = terminal_value(child, p)
            elif child.to_act == p:
                out[a] = self.solve(child)
            else:
                out[a] = -self.solve(child)
        return out

    def best_action(self, state: State) -> tuple[int, int]:
        """A best action and its value; ties go to the lowest action id.

        Declaring wins ties, so a correct declaration is never put off.
        """
        values = self.action_values(state)
        best_v = max(values.values())
        if values.get(DECLARE) == best_v:
            return DECLARE, best_v
        return min(a for a, v in values.items() if v == best_v), best_v

    def endgame_action(self, view: PlayerView, rng: random.Random) -> int | None:
        """The exact move once the talon is spent, else None.

        With the talon spent the view fixes every card (the unseen cards are the
        opponent's hand), so the one world :func:`sample_state` can draw is the
        true state and the solver's move is perfect play. This is the endgame of
        every bot that does not search by itself (``heuristic``, ``ppo``).
        Clears the tables afterwards.
        """
        if not is_endgame_view(view):
            return None
        try:
            return self.best_action(sample_state(view, rng))[0]
        finally:
            self.clear()


def solve(state: State) -> int:
    """Exact value of ``state`` for the player to act (see module docstring)."""
    return Solver().solve(state)


def action_values(state: State) -> dict[int, int]:
    """Exact value of every legal action for the player to act."""
    return Solver().action_values(state)


def best_action(state: State) -> tuple[int, int]:
    """``(action, value)`` of a best action for the player to act."""
    return Solver().best_action(state)


def minimax(state: State) -> int:
    """Plain minimax over engine moves: no pruning, no table, no shortcuts.

    The reference the solver is tested against; exponential, small positions only.
    """
    p = state.to_act
    best = -INF
    for a in actions_of(state.legal_mask()):
        child = state.clone()
        child.apply_unchecked(a)
        best = max(best, child_value(child, p, lambda c, _same: minimax(c)))
    return best
