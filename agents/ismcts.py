"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012).

One tree over action histories seen from the bot's seat. Each iteration
samples a world consistent with the view (a determinization), walks the tree
choosing among the actions legal *in that world* by UCB with availability
counts (a child's exploration term counts the visits in which it was
available, not the parent's visits), adds one node, and values the leaf
with a heuristic playout that hands over to the exact solver once the talon
is closed or spent (:func:`agents.search.determinized.playout_value`). Values are game
points scaled to [-1, 1], each node storing them for the player who moved
into it. A close made in the tree is valued by the solver as if the closer
saw every card (strategy fusion), so the closer's reward gives up
``CLOSE_MARGIN`` game points, as PIMC's closes must win by that margin.

The root is searched in rounds with common random numbers: each round
samples one world and runs one iteration under every root action in it, so
root actions are compared on the same worlds, the way PIMC compares them,
and a world's luck (worth up to 3 points either way, far more than the
difference between two moves) cancels out of the comparison. Without it
the plain tree stayed level with PIMC even at 2500 iterations. With it, 1200
iterations scored slightly better than PIMC (+0.057 points per deal over
400 matches), just short of a significant margin. The root action with the
best mean value is played.

Worlds respect what the opponent's leads revealed (``infer``, on by
default; :mod:`agents.search.inference`): an opponent that led without showing a
marriage held no King-Queen pair, and one that led after a trick without
exchanging did not hold the trump nine. Plain PIMC's worlds ignore this.
With both, the default beats PIMC by a small margin (README, measured numbers).

Phase 1 (talon open) is where the tree search runs. Once the talon is
closed or spent the bot plays like PIMC with the exact solver (with the
talon spent that is exact: the view fixes every card), since exact values
per world beat sampled playouts there. Obvious moves are played at once
(:func:`agents.core.rules.obvious_action`).

Anytime: with a per-move budget (``move_time`` in the spec, or the game's
limit handed over by the play loop; :mod:`agents.search.budget`) the search
runs rounds until the budget less a safety margin is used (at least one
round; a round past the soft deadline stops early) instead of a fixed
``iterations``, and phase 2 samples worlds as anytime PIMC does.
"""

from __future__ import annotations

import math

from sixtysix_env.actions import CLOSE, actions_of
from sixtysix_env.engine import OVER, State
from sixtysix_env.knowledge import PlayerView, sample_state

from .base import BaseAgent, require_turn
from .core.rules import obvious_action, view_rule_action
from .pimc import PimcAgent
from .search.budget import MAX_UNITS, Anytime, Deadline, OutOfTime, gc_paused
from .search.determinized import CLOSE_MARGIN, playout_value, solvable
from .search.solver import Solver, terminal_value

MAX_VALUE = 3.0  # the largest deal value, to scale rewards into [-1, 1]
CLOSE_TAX = CLOSE_MARGIN / MAX_VALUE  # scaled reward a close made in the tree gives up


class Node:
    """Statistics of one action history: visits, reward sum, availability."""

    __slots__ = ("children", "visits", "reward", "avail", "mover")

    def __init__(self, mover: int) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 0
        self.mover = mover


class IsmctsAgent(Anytime, BaseAgent):
    """SO-ISMCTS with ``iterations`` determinized iterations per decision."""

    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        move_time: float | None = None,
        iterations: int = 1200,
        c: float = 0.7,
        worlds: int = 64,
        infer: int = 1,
    ) -> None:
        super().__init__(seed, move_time)
        if iterations < 1 or c < 0 or worlds < 1:
            raise ValueError(f"need iterations >= 1, c >= 0, worlds >= 1; got {iterations}, {c}, {worlds}")
        self.iterations = iterations
        self.c = c
        self.solver = Solver()
        self._phase2 = PimcAgent(seed=seed, move_time=move_time, worlds=worlds, infer=infer)
        self.last_iterations = 0  # iterations the last search used
        self._retired_tree: Node | None = None  # the last search's tree, until ``release`` frees it
        self.model = self._phase2.model  # one record of the deal for both phases

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._phase2.reset(seed)  # also resets the shared model
        self.solver.clear()
        self.release()

    def release(self) -> None:
        self.solver.release()
        self._phase2.release()
        self._retired_tree = None

    def game_start(self, seat: int, unit: str, move_time: float | None) -> None:
        super().game_start(seat, unit, move_time)
        self._phase2.game_start(seat, unit, move_time)

    def act(self, view: PlayerView) -> int:
        deadline = self.deadline()  # first: all of the move's work counts
        require_turn(view)
        if self.model is not None:
            self.model.observe(view)
        a = obvious_action(view)
        if a is not None:
            return a
        self.release()  # the last search's tables and tree, if no hook freed them: inside this budget
        if not view.talon_open:
            return self._phase2.act_within(view, deadline)
        with gc_paused():  # until the tables are set aside
            try:
                return self._search(view, deadline)
            finally:
                self.solver.set_aside()

    def _search(self, view: PlayerView, deadline: Deadline | None) -> int:
        root = self.search_tree(view, deadline)
        self._retired_tree = root  # freed by ``release``, not before the reply
        visited = [a for a, ch in root.children.items() if ch.visits]  # all, unless the budget ran out
        if not visited:
            return view_rule_action(view)  # not one descent in time: the rules of thumb
        return max(visited, key=lambda a: (root.children[a].reward / root.children[a].visits, -a))

    def search_tree(self, view: PlayerView, deadline: Deadline | None | bool = True) -> Node:
        """The root of the tree after ``iterations`` iterations (at least one round),
        or as many as the budget allows (``deadline``; True: one from the budget, starting now).

        Iterations run in rounds: one sampled world per round, one descent per
        root action in it, so root actions are compared on the same worlds
        (common random numbers, as PIMC does: a world's luck cancels out of
        the comparison); below the root, UCB as usual.
        """
        me = view.player
        root = Node(1 - me)
        rng = self.rng
        legal = actions_of(view.legal_mask)
        for a in legal:
            root.children[a] = Node(me)
        budget = self.deadline() if deadline is True else (None if deadline is False else deadline)
        limit = self.iterations if budget is None else MAX_UNITS
        self.solver.stop_when(None if budget is None else budget.passed)
        done = 0
        try:
            while done < limit:
                world = self.model.sample(view, rng) if self.model is not None else sample_state(view, rng)
                for a in legal:
                    if done and budget is not None and budget.passed():
                        break  # a late round stops early (only visited root actions are compared)
                    s = world.clone()
                    s.apply_unchecked(a)
                    self._descend(s, [root, root.children[a]], me, me if a == CLOSE else -1)
                    done += 1
                if budget is not None and not budget.more():
                    break
        except OutOfTime:  # only with a deadline: the descent in progress backs nothing up
            pass
        finally:
            self.solver.stop_when(None)
            self.solver.set_aside()  # O(1): ``release`` frees the tables later
        self.last_iterations = done
        return root

    def _descend(self, s: State, path: list[Node], me: int, closer: int) -> None:
        """One iteration below the root: select by UCB among the actions legal in
        the world ``s``, add one node, value the leaf, back the value up ``path``."""
        rng = self.rng
        c = self.c
        node = path[-1]
        while s.window != OVER and not solvable(s):
            legal = actions_of(s.legal_mask())
            untried = [a for a in legal if a not in node.children]
            if untried:
                a = untried[rng.randrange(len(untried))]
                child = Node(s.to_act)
                node.children[a] = child
                for b in legal:
                    ch = node.children.get(b)
                    if ch is not None:
                        ch.avail += 1
                if a == CLOSE:
                    closer = s.to_act
                s.apply_unchecked(a)
                path.append(child)
                break
            best_a, best_u = legal[0], -math.inf
            for a in legal:
                ch = node.children[a]
                ch.avail += 1
                u = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if u > best_u:
                    best_a, best_u = a, u
            node = node.children[best_a]
            if best_a == CLOSE:
                closer = s.to_act
            s.apply_unchecked(best_a)
            path.append(node)
        if s.window == OVER:
            value = terminal_value(s, me)
        else:
            value = playout_value(s, me, self.solver)
        r = value / MAX_VALUE
        if closer >= 0:
            r += -CLOSE_TAX if closer == me else CLOSE_TAX
        for n in path:
            n.visits += 1
            n.reward += r if n.mover == me else -r
