"""Anytime search: bots use the move time they are given and stop in time (agents/search/budget.py)."""

from __future__ import annotations

import gc
import time

import pytest

from agents import make_agent
from agents.core.rules import obvious_action, view_rule_action
from agents.play import play_game
from agents.random_agent import RandomAgent
from agents.search.budget import MARGIN_SHARE, MIN_MARGIN, Deadline, OutOfTime, effective_budget
from agents.search.solver import Solver
from sixtysix_env.actions import actions_of
from tests.helpers import random_views


class FakeClock:
    """A clock that moves ``step`` seconds on every reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def searched_views(n: int = 40) -> list:
    """Phase-1 decisions no rule answers (the ones the search bots search)."""
    out = [v for v in random_views(30, seed=3) if v.legal_mask and v.talon_open and obvious_action(v) is None]
    assert len(out) >= n
    return out[:n]


def test_budget_is_the_smaller_of_own_and_given():
    assert effective_budget(None, None) is None
    assert effective_budget(0.5, None) == 0.5
    assert effective_budget(None, 0.2) == 0.2
    assert effective_budget(0.5, 0.2) == 0.2


def test_deadline_keeps_a_margin_and_predicts_the_next_unit():
    clock = FakeClock(0.0)
    d = Deadline(0.1, clock)
    assert d.stop_at == pytest.approx(0.1 * (1 - MARGIN_SHARE))
    assert Deadline(0.02, clock).stop_at == pytest.approx(0.02 - max(0.02 * MARGIN_SHARE, MIN_MARGIN))
    clock.now = 0.02  # first unit took 20 ms: another fits before 60 ms
    assert d.more()
    clock.now = 0.045  # the longest unit was 25 ms: 45 + 25 > 60
    assert not d.more()
    assert not d.passed()
    clock.now = 0.061
    assert d.passed()
    with pytest.raises(ValueError):
        Deadline(0.0)


def test_pimc_samples_worlds_until_the_fake_deadline():
    v = searched_views(1)[0]
    bot = make_agent("pimc:worlds=5", seed=1)
    bot.act(v)
    assert bot.last_worlds == 5  # no budget: the fixed search
    bot.move_time = 1.0
    bot.clock = FakeClock(0.001)  # every reading 1 ms later: about 600 ms of readings
    bot.act(v)
    assert bot.last_worlds > 5


def test_a_search_past_its_deadline_stops_at_once():
    pimc, ismcts = make_agent("pimc", seed=1), make_agent("ismcts", seed=1)
    for bot in (pimc, ismcts):
        bot.move_time = 0.01
        bot.clock = FakeClock(1.0)  # every reading is past the deadline
    for v in searched_views(5):
        assert pimc.act(v) == view_rule_action(v)  # not one world in time: the rules of thumb
        assert pimc.last_worlds == 0
        assert ismcts.act(v) in actions_of(v.legal_mask)
        assert ismcts.last_iterations == 1  # the first descent always runs


def test_solver_stops_when_told():
    s = Solver()
    s.stop_when(lambda: True)
    with pytest.raises(OutOfTime):
        s.check()
    s.stop_when(None)
    s.check()


@pytest.mark.parametrize("spec", ["pimc", "ismcts"])
def test_search_bots_use_the_budget_and_stop(spec):
    """Real time, so loosely: the fixed search would take seconds at these settings."""
    bot = make_agent(f"{spec}:worlds=5000,move_time=0.1" if spec == "pimc"
                     else f"{spec}:iterations=100000,move_time=0.1", seed=2)
    assert bot.budget == 0.1
    for v in searched_views(4):
        start = time.perf_counter()
        bot.act(v)
        assert time.perf_counter() - start < 0.5  # 0.1 s less the margin, unless the machine is very busy
        assert 1 <= (bot.last_worlds if spec == "pimc" else bot.last_iterations) < 100000


def test_play_game_hands_the_move_time_to_the_bots():
    a, b = make_agent("pimc:worlds=2", seed=1), make_agent("ismcts:iterations=20", seed=2)
    play_game(a, b, seed=5, unit="deal", move_time=0.05)  # a forfeit on a busy machine does not matter here
    assert a.budget == 0.05 and b.budget == 0.05 and b._phase2.budget == 0.05
    play_game(a, b, seed=5, unit="deal")
    assert a.budget is None and b.budget is None


@pytest.mark.parametrize("spec", ["pimc", "ismcts", "guided"])
def test_move_time_is_a_spec_parameter(spec):
    bot = make_agent(f"{spec}:move_time=0.25", seed=1)
    assert bot.move_time == 0.25 and bot.budget == 0.25
    bot.game_start(0, "match", 0.1)  # the game's limit is smaller: it applies
    assert bot.budget == 0.1
    assert make_agent(spec, seed=1).budget is None  # no move_time: the fixed search
    for bad in ("0", "-1", "nan", "inf", "1e7", "fast"):
        with pytest.raises(ValueError, match="move_time"):
            make_agent(f"{spec}:move_time={bad}")


def test_no_garbage_collection_lands_inside_a_timed_move():
    """A full collection over another bot's tables took 35-40 ms: the play loop pauses it per move."""
    seen = []

    class Probe(RandomAgent):
        def act(self, view):
            seen.append(gc.isenabled())
            return super().act(view)

    assert gc.isenabled()
    play_game(Probe(seed=1), make_agent("random", seed=2), seed=3, unit="deal", move_time=5.0)
    assert seen and not any(seen) and gc.isenabled()


@pytest.mark.parametrize("spec", ["pimc:worlds=2", "ismcts:iterations=20"])
def test_search_bots_pause_the_collector_while_they_search(spec):
    """Also outside the play loop (a user's own loop): no collection walks the search's tables."""
    bot, seen = make_agent(spec, seed=1), []
    search = bot._search

    def probe(*args):
        seen.append(gc.isenabled())
        return search(*args)

    bot._search = probe
    for v in searched_views(3):
        bot.act(v)
    assert seen == [False] * 3 and gc.isenabled()
