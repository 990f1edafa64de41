"""Search bots reply in time: every long loop asks the clock, and cleanup waits until after the reply.

Deterministic: the clocks here are fakes a test moves (agents/search/budget.py).
"""

from __future__ import annotations

import random

import pytest

from agents import make_agent
from agents.search.budget import OutOfTime
from agents.search.solver import CHECK_MASK, Solver
from sixtysix_env.actions import CLOSE, actions_of
from sixtysix_env.deals import deal
from sixtysix_env.knowledge import sample_state, view
from tests.agents.test_anytime import searched_views


class JumpClock:
    """Reads 0 for the first ``after`` readings, then far past any deadline; counts the readings."""

    def __init__(self, after: int) -> None:
        self.after, self.readings = after, 0

    def __call__(self) -> float:
        self.readings += 1
        return 0.0 if self.readings <= self.after else 1e9


def closed_views(n: int) -> list:
    """Decisions after a close at the first lead: every world is a 6-against-6 endgame for the solver."""
    out = []
    for seed in range(40):
        s = deal(random.Random(seed))
        if CLOSE not in s.legal_actions():
            continue
        s.apply(CLOSE)
        while not s.is_over and len(out) < n:
            v = view(s, s.to_act)
            if len(actions_of(v.legal_mask)) > 1:
                out.append(v)
                break
            s.apply(s.legal_actions()[0])
    assert len(out) == n
    return out


@pytest.mark.parametrize("spec", ["pimc", "ismcts", "guided"])
@pytest.mark.parametrize("after", [1, 5, 40, 300])
def test_a_clock_jump_mid_search_ends_the_move_at_the_next_check(spec, after):
    """Time jumps past the deadline during a world (in the solver, a playout, between worlds):
    the move asks the clock at most a few more times and plays a legal action."""
    for v in searched_views(3) + closed_views(2):
        bot = make_agent(f"{spec}:move_time=0.1", seed=1)
        bot.clock = JumpClock(after)
        if spec == "ismcts":
            bot._phase2.clock = bot.clock
        a = bot.act(v)
        assert a in actions_of(v.legal_mask)
        assert bot.clock.readings <= max(after, 1) + 3, bot.clock.readings


def test_the_solver_honours_a_deadline_on_a_phase_1_position():
    """The engine-level search (phase 1, exponential) asks the deadline too, not only the endgame's."""
    s = deal(random.Random(1))
    solver = Solver()
    calls = [0]
    solve = solver.solve

    def counted(*args):
        calls[0] += 1
        return solve(*args)

    solver.solve = counted  # type: ignore[method-assign]
    solver.stop_when(lambda: True)
    with pytest.raises(OutOfTime):
        solver.solve(s)
    assert calls[0] <= CHECK_MASK + 1  # it took thousands of positions when only the endgame asked


def test_the_solver_stops_within_a_check_interval_of_the_deadline():
    for v in closed_views(3):
        world = sample_state(v, random.Random(0))
        solver, asked = Solver(), []

        def stop(asked: list = asked) -> bool:
            asked.append(1)
            return len(asked) >= 2

        solver.stop_when(stop)
        try:
            solver.action_values(world)
        except OutOfTime:
            pass
        assert len(asked) <= 2


@pytest.mark.parametrize("spec", ["pimc", "ismcts"])
def test_tables_are_freed_after_the_reply(spec):
    """A move sets its tables aside in O(1); the play loop's untimed hooks free them."""
    bot = make_agent("pimc:worlds=2" if spec == "pimc" else "ismcts:iterations=20,worlds=2", seed=1)
    solvers = [bot.solver] + ([bot._phase2.solver] if spec == "ismcts" else [])
    for v in closed_views(2) + searched_views(2):
        bot.act(v)
        assert not any(s._searches for s in solvers)  # nothing kept for the next move
        assert any(s._retired for s in solvers)  # nothing freed before the reply
        bot.deal_end({})
        assert not any(s._retired for s in solvers)
    bot.act(closed_views(1)[0])
    bot.game_end(None)
    assert not any(s._retired for s in solvers)
    bot.act(closed_views(1)[0])
    bot.reset(2)  # a new game frees everything
    assert not any(s._retired or s._searches for s in solvers)
