"""play_game: games through the env, deterministic records, and forfeits (docs/rules.md section 4.4)."""

import math
import signal
import threading
import time

import pytest

from agents import movetime
from agents.base import BaseAgent
from agents.play import EXCEPTION, ILLEGAL, TIMEOUT, GameRecord, derive_seed, make_env, play_game
from agents.random_agent import RandomAgent
from sixtysix_env.actions import actions_of


class RaisingBot(BaseAgent):
    name = "raiser"

    def act(self, view):
        raise RuntimeError("boom")


class IllegalBot(BaseAgent):
    """Plays a card it does not hold (or any illegal action id)."""

    name = "cheat"

    def act(self, view):
        return next(a for a in range(32) if not (view.legal_mask >> a) & 1)


class NotAnActionBot(BaseAgent):
    name = "text"

    def act(self, view):
        return "play TH"


class StubbornBot(BaseAgent):
    """Thinks forever and swallows every Exception: only the alarm can stop it."""

    name = "stubborn"

    def act(self, view):
        while True:
            try:
                time.sleep(0.01)
            except Exception:  # noqa: BLE001 - the point of this bot
                pass


class SlowBot(RandomAgent):
    name = "slow"

    def act(self, view):
        time.sleep(0.2)
        return super().act(view)


class StateBot(RandomAgent):
    """Like the oracle: declares requires_state and checks it gets the true state."""

    name = "state"
    requires_state = True

    def act(self, view, state=None):
        assert state is not None and state.hands[view.player] == view.hand
        return super().act(view)


def test_same_seed_same_record_and_scores_add_up():
    r1 = play_game(RandomAgent(), RandomAgent(), seed=11)
    r2 = play_game(RandomAgent(), RandomAgent(), seed=11)
    assert r1 == r2
    assert r1.forfeit is None and r1.winner in (0, 1)
    assert max(r1.match_score) >= 7 and r1.match_score[r1.winner] >= 7
    for seat in (0, 1):
        assert sum(d["game_points"] for d in r1.deals if d["winner"] == seat) == r1.match_score[seat]
    assert len(r1.actions) == r1.moves
    assert GameRecord.from_dict(r1.to_dict()) == r1


def test_deal_unit_plays_one_deal():
    for seed in range(5):
        r = play_game(RandomAgent(), RandomAgent(), seed=seed, unit="deal", record=False)
        assert len(r.deals) == 1 and r.actions == [] and r.moves > 0
        d = r.deals[0]
        assert r.winner == d["winner"]
        if d["winner"] is not None:
            assert r.match_score[d["winner"]] == d["game_points"]


@pytest.mark.parametrize(
    "bad, reason, detail",
    [(RaisingBot, EXCEPTION, "RuntimeError: boom"), (IllegalBot, ILLEGAL, "illegal action"),
     (NotAnActionBot, ILLEGAL, "not an action")],
)
@pytest.mark.parametrize("seat", [0, 1])
def test_bad_bot_forfeits_the_match(bad, reason, detail, seat):
    bots = [RandomAgent(), RandomAgent()]
    bots[seat] = bad()
    r = play_game(bots[0], bots[1], seed=3)
    assert r.forfeit is not None
    assert r.forfeit["seat"] == seat and r.forfeit["reason"] == reason
    assert detail in r.forfeit["detail"]
    assert r.winner == 1 - seat
    assert max(r.match_score) < 7  # the match ended early, by forfeit


def test_alarm_stops_a_bot_that_never_returns():
    r = play_game(StubbornBot(), StubbornBot(), seed=1, move_time=0.05)
    assert r.forfeit is not None and r.forfeit["reason"] == TIMEOUT
    assert r.winner == 1 - r.forfeit["seat"]


def test_callers_alarm_is_given_back():
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        play_game(RandomAgent(), RandomAgent(), seed=1, move_time=5.0)
        delay, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < delay <= 30.0
        assert signal.getsignal(signal.SIGALRM) is not movetime._on_alarm
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert fired == []


def test_slow_move_forfeits_by_measurement_outside_the_main_thread():
    out = {}
    t = threading.Thread(target=lambda: out.update(r=play_game(SlowBot(), SlowBot(), seed=2, move_time=0.05)))
    t.start()
    t.join()
    r = out["r"]
    assert r.forfeit is not None and r.forfeit["reason"] == TIMEOUT and "took" in r.forfeit["detail"]


def test_generous_time_limit_changes_nothing():
    assert play_game(RandomAgent(), RandomAgent(), seed=4, move_time=30.0) == play_game(
        RandomAgent(), RandomAgent(), seed=4
    )


def test_state_is_passed_to_bots_that_require_it():
    r = play_game(StateBot(), RandomAgent(), seed=6)
    assert r.forfeit is None


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError):
        play_game(RandomAgent(), RandomAgent(), seed=1, unit="rubber")
    with pytest.raises(ValueError):
        play_game(RandomAgent(), RandomAgent(), seed=1, move_time=0)


def test_recorded_actions_replay_to_the_same_deals():
    r = play_game(RandomAgent(), RandomAgent(), seed=9)
    env = make_env("match")
    env.reset(seed=9)
    for a in r.actions:
        assert a in actions_of(env.unwrapped.game_state.legal_mask())
        env.step(a)
    assert all(env.unwrapped.terminations.values())
    assert list(env.unwrapped.game_state.match_scores) == list(r.match_score)


def test_derive_seed_is_stable():
    assert derive_seed(0, "game", 0) == derive_seed(0, "game", 0)
    assert derive_seed(0, "game", 0) != derive_seed(0, "game", 1)
    assert 0 <= derive_seed("x") < 2**63


class MaskForger(RandomAgent):
    """Rewrites the legal mask of its view to allow everything, then plays an illegal action."""

    name = "forger"

    def act(self, view):
        illegal = next(a for a in range(32) if not (view.legal_mask >> a) & 1)
        view.legal_mask = (1 << 32) - 1
        view.hand = "not a hand"
        return illegal


class RecordEditor(RandomAgent):
    """Edits the deal results and the record its hooks are given."""

    name = "editor"

    def deal_end(self, deal):
        deal["winner"] = 5
        deal.clear()

    def game_end(self, record):
        record.winner = 7
        record.deals.append("junk")


def test_a_bot_edits_only_its_own_copies():
    rec = play_game(MaskForger(), RandomAgent(seed=1), seed=3)
    assert rec.forfeit["reason"] == ILLEGAL and rec.forfeit["kind"] == "illegal" and rec.winner == 1
    rec = play_game(RecordEditor(seed=2), RandomAgent(seed=1), seed=3)
    assert rec.winner in (0, 1) and rec.deals and all(d["winner"] in (0, 1, None) for d in rec.deals)
    assert "junk" not in rec.deals and rec.forfeit is None


class MeterBot(RandomAgent):
    """Has a ``cpu_time()`` meter that reads ``readings`` in turn (the last one from then on)."""

    def __init__(self, readings, seed=None):
        super().__init__(seed=seed)
        self.readings = list(readings)

    def cpu_time(self):
        value = self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]
        if isinstance(value, BaseException):
            raise value
        return value


# The play loop reads each meter when the game is set up, as it starts and as it ends.
@pytest.mark.parametrize(("a", "b"), [
    ([1e6, 1e6, 0.0], [0.0]),  # goes back (a process that ended and read 0)
    ([5.0, 5.0, RuntimeError("gone")], [0.0]),  # fails at the end
    ([1.0, 1.0, float("nan")], [0.0]),
    ([0.0, 0.0, SystemExit(3)], [0.0]),  # not the caller's exit
    ([0.0, 0.0, 1e308], [0.0, 0.0, 1e308]),  # together past the largest float
])
def test_a_games_cpu_time_is_finite_and_never_negative_whatever_a_meter_reads(a, b):
    rec = play_game(MeterBot(a, seed=1), MeterBot(b, seed=2), seed=3, unit="deal")
    for key in ("wall", "cpu"):
        assert math.isfinite(rec.cpu[key]) and rec.cpu[key] >= 0, rec.cpu
