"""Issue 40: the two halves of a duplicate pair (every game of one deal) are never in play at once.

Two processes of one bot playing the same deal at the same time could tell each other their
cards (here through ``fcntl`` locks on the bot's own read-only script); the arena starts a game
only when no game of its deal is in play, with any backend, any number of workers, and for
games played again. Different deals still run side by side.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future
from pathlib import Path

import pytest

from agents.arena import ray_backend, runner
from agents.arena.api import run
from agents.arena.records import read_results
from agents.arena.runner import InProcess, ProcessPool, Setup, env_for, play_missing, play_task
from agents.arena.schedule import Task, deal_key, schedule, take_free
from agents.play import make_env

BOT = Path(__file__).parent / "bots" / "lockchannel.py"


class Events:
    """Start and end times of games (by task), checked for two games of one deal in play at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: dict[int, list[tuple[Task, float, float]]] = {}
        self.open: dict[int, tuple[Task, float]] = {}
        self.peak = self.twice = 0

    def start(self, task: Task) -> None:
        with self.lock:  # noted, not asserted: a pool's thread must go on
            self.twice += any(deal_key(t) == deal_key(task) for t, _ in self.open.values())
            self.open[id(task)] = (task, time.monotonic())
            self.peak = max(self.peak, len(self.open))

    def end(self, task: Task) -> None:
        with self.lock:
            t, begun = self.open.pop(id(task))
            self.spans.setdefault(deal_key(t), []).append((t, begun, time.monotonic()))

    def check(self) -> None:
        assert self.twice == 0, "a deal was in play twice at once"
        for spans in self.spans.values():
            spans.sort(key=lambda s: s[1])
            for (_, _, end), (_, begin, _) in zip(spans, spans[1:], strict=False):
                assert end <= begin


def line_of(task: Task) -> dict:
    return {"type": "game", "index": task.index, "seats": list(task.seats), "winner": 0}


class VoidFirst:
    """A guard that voids the first line of every third game: those games are played again."""

    def __init__(self) -> None:
        self.seen: set[int] = set()

    def void(self, line: dict) -> bool:
        first = line["index"] not in self.seen
        self.seen.add(line["index"])
        return first and line["index"] % 3 == 0


def test_take_free_skips_deals_in_play():
    tasks = deque(schedule(2, 6, seed=1, duplicate=True))
    first = take_free(tasks, set())
    assert first.index == 0
    second = take_free(tasks, {deal_key(first)})
    assert second.index == 2 and second.cluster == 1  # game 1 (the mirror of game 0) waits
    assert take_free(deque([tasks[0]]), {deal_key(tasks[0])}) is None


@pytest.mark.parametrize("players", [2, 3])
def test_simulated_scheduler_never_overlaps_a_deal(players):
    """Random completion order and games queued again: no deal twice in play, all workers busy."""
    rng = random.Random(players)
    events, workers = Events(), 3
    tasks = deque(schedule(players, 12, seed=5, duplicate=True))
    total, finished, running = len(tasks), set(), []
    while tasks or running:
        while len(running) < workers and (t := take_free(tasks, {deal_key(r) for r in running})) is not None:
            events.start(t)
            running.append(t)
        done = running.pop(rng.randrange(len(running)))
        events.end(done)
        if rng.random() < 0.2 and done.index not in finished:
            tasks.appendleft(done)  # played again (a reference bot's time loss)
        finished.add(done.index)
    events.check()
    assert len(finished) == total and events.peak == workers


class FakeExecutor:
    """Stands in for the worker pool: runs each game in a thread that records when it is in play."""

    events: Events

    def __init__(self, n, mp_context=None, initializer=None, initargs=()):
        self.rng = random.Random(len(initargs))

    def submit(self, fn, task):
        fut: Future = Future()
        delay = self.rng.uniform(0.001, 0.02)

        def play():
            self.events.start(task)
            time.sleep(delay)
            self.events.end(task)
            fut.set_result(line_of(task))

        threading.Thread(target=play, daemon=True).start()
        return fut

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def test_process_pool_never_overlaps_a_deal(monkeypatch):
    events = Events()
    monkeypatch.setattr(FakeExecutor, "events", events, raising=False)
    monkeypatch.setattr(runner, "ProcessPoolExecutor", FakeExecutor)
    tasks = schedule(3, 10, seed=2, duplicate=True)
    setup = Setup(("random", "random", "random"), "deal", (None, None, None))
    replayed: list[int] = []
    done: dict = {}
    play_missing(setup, ["a", "b", "c"], tasks, done, ProcessPool(4), guard=VoidFirst(), replayed=replayed)
    events.check()
    assert sorted(done) == [t.index for t in tasks] and events.peak > 1
    assert replayed and all(i % 3 == 0 for i in replayed)


class FakeRay:
    """Just enough of ``ray`` for :class:`~agents.arena.ray_backend.RayBackend`: actors as threads."""

    def __init__(self, events: Events) -> None:
        self.events, self.rng = events, random.Random(7)

    def remote(self, **_):
        ray = self

        class Ref:
            def __init__(self, task):
                self.task = task

        class Method:
            def __init__(self, fn):
                self.fn = fn

            def remote(self, *args):
                return self.fn(*args)

        class Actor:
            def __init__(self):
                self.play = Method(self._play)
                self.close = Method(lambda: None)

            def _play(self, task):
                ray.events.start(task)
                return Ref(task)

        class Factory:
            @staticmethod
            def remote(setup):
                return Actor()

        return lambda cls: Factory

    def wait(self, refs, num_returns=1):
        ready = refs[self.rng.randrange(len(refs))]
        return [ready], [r for r in refs if r is not ready]

    def get(self, ref, timeout=None):
        if isinstance(ref, list):
            return None
        self.events.end(ref.task)
        return line_of(ref.task)

    def kill(self, actor):
        pass


def test_ray_backend_never_overlaps_a_deal(monkeypatch):
    events = Events()
    monkeypatch.setattr(ray_backend, "import_ray", lambda: FakeRay(events))
    monkeypatch.setattr(ray_backend.RayBackend, "_connect", lambda self, ray: False)
    tasks = schedule(2, 16, seed=3, duplicate=True)
    done: dict = {}
    replayed: list[int] = []
    play_missing(Setup(("random", "random"), "deal", (None, None)), ["a", "b"], tasks, done,
                 ray_backend.RayBackend(workers=3), guard=VoidFirst(), replayed=replayed)
    events.check()
    assert sorted(done) == [t.index for t in tasks] and events.peak == 3 and replayed


def _spec(log: Path, wait: float) -> str:
    return f"exec:start_timeout=60,timeout=30 {sys.executable} {BOT} {log} {wait}"


def _entries(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def _opponent_hands(lines: list[dict], bot: int) -> dict[tuple[int, ...], list[int]]:
    """For every game: the bot's first hand -> the opponent's first hand (from the deal's seed)."""
    out = {}
    env = make_env("deal")
    for line in lines:
        env.reset(seed=line["seed"])
        hands = env.unwrapped.game_state.hands
        seat = line["seats"].index(bot)
        mine = tuple(c for c in range(24) if hands[seat] >> c & 1)
        out[mine] = [c for c in range(24) if hands[1 - seat] >> c & 1]
    return out


def test_lock_channel_reads_the_mirror_when_both_halves_overlap(tmp_path):
    """The control: two halves of one pair played at once, the cheat learns the opponent's hand."""
    log = tmp_path / "log.jsonl"
    setup = Setup((_spec(log, 5.0), "random"), "deal", (None, None))
    pair = schedule(2, 2, seed=11, duplicate=True)
    lines: list[dict] = []
    threads = [threading.Thread(target=lambda t=t: lines.append(play_task(setup, env_for(setup), t)))
               for t in pair]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    truth = _opponent_hands(lines, 0)
    learned = [e for e in _entries(log) if e["read"] == truth[tuple(e["hand"])]]
    assert learned  # the half that looked last read the other's hand: the channel is real


@pytest.mark.parametrize("workers", [2, 3])
def test_lock_channel_gains_nothing_with_workers(tmp_path, workers):
    log = tmp_path / "log.jsonl"
    _, _, lines = run([_spec(log, 0.6), "random"], games=8, unit="deal", workers=workers,
                      results_path=tmp_path / "r.jsonl")
    truth = _opponent_hands(lines, 0)
    entries = _entries(log)
    assert len(entries) == 8
    assert not [e for e in entries if e["read"] == truth[tuple(e["hand"])]]
    assert len(read_results(str(tmp_path / "r.jsonl"))[1]) == 8


def test_in_process_plays_one_game_at_a_time(monkeypatch):
    events = Events()
    real = runner.play_task

    def play(setup, env, task, wrap=None):
        events.start(task)
        try:
            return real(setup, env, task, wrap)
        finally:
            events.end(task)

    monkeypatch.setattr(runner, "play_task", play)
    done: dict = {}
    play_missing(Setup(("random", "random"), "deal", (None, None)), ["a", "b"], schedule(2, 4, 1, True), done,
                 InProcess(), guard=VoidFirst())
    events.check()
    assert events.peak == 1 and sorted(done) == [0, 1, 2, 3]
