"""External bots in the arena: the spec, the example bots, workers, logs and closing."""

from __future__ import annotations

import json
import os
import shlex
import sys

import pytest
from external_helpers import (
    FAULTY,
    NO_NODE,
    NODE,
    NODE_BOT,
    PY_BOT,
    ROOT,
    check,
    logged_pids,
    spec,
    wait_gone,
)

from agents import make_agent, parse_spec
from agents.arena import head_to_head, round_robin, run
from agents.external import ExternalAgent, make_external, parse_exec
from agents.play import play_game
from agents.random_agent import RandomAgent


# -------------------------------------------------------------------- specs
def test_exec_spec_is_the_command_line_after_exec():
    s = parse_exec("python3 examples/bots/random_bot.py --level 'a b'")
    assert s.argv == ("python3", "examples/bots/random_bot.py", "--level", "a b")
    assert (s.timeout, s.start_timeout, s.name, s.logs) == (10.0, 10.0, None, None)
    o = parse_exec("timeout=0.5,start_timeout=3,name=rnd,logs=/tmp/x python3 bot.py")
    assert (o.argv, o.timeout, o.start_timeout, o.name, o.logs) == (("python3", "bot.py"), 0.5, 3.0, "rnd",
                                                                     "/tmp/x")


@pytest.mark.parametrize(("tail", "match"), [
    ("", "needs a command"),
    ("timeout=1", "needs a command"),
    ("no-such-program-anywhere x", "not found"),
    ("timeout=0 python3 x", "positive seconds"),
    ("timeout=nan python3 x", "positive seconds"),
    ("colour=red python3 x", "unknown exec option 'colour'"),
    ("timeout=1,timeout=2 python3 x", "given twice"),
    ("python3 'unbalanced", "bad exec command"),
])
def test_bad_exec_specs_fail_before_any_game(tail, match):
    with pytest.raises(ValueError, match=match):
        parse_exec(tail)
    with pytest.raises(ValueError, match=match):
        parse_spec("exec:" + tail)


def test_registry_builds_exec_bots_and_other_specs_are_unchanged(tmp_path):
    assert parse_spec("pimc:worlds=30")[1]["worlds"] == 30
    assert parse_spec("ppo:runs/x.pt,assist=rules")[1] == {"path": "runs/x.pt", "assist": "rules"}
    name, values = parse_spec("EXEC:python3 bot.py")
    assert name == "exec" and parse_exec(values["command"]).argv == ("python3", "bot.py")
    bot = make_agent(spec(PY_BOT, tmp_path), seed=3)
    assert isinstance(bot, ExternalAgent) and bot.name.startswith("exec:") and bot.pid is None
    named = make_external(f"name=mine {shlex.join(PY_BOT)}")
    assert named.name == "mine"


# ---------------------------------------------------------- the example bots
def test_python_example_handshake_log_and_close(tmp_path):
    bot = make_external(f"logs={tmp_path} {shlex.join(PY_BOT)}", seed=1)
    bot.reset(7)
    assert bot.bot_info == {"name": "random-py", "version": "1.1", "protocol": "1.2"}
    check({"type": "hello", **bot.bot_info}, "bot_hello")
    pid = bot.pid
    assert pid is not None and bot.log_path.startswith(str(tmp_path))
    rec = play_game(bot, RandomAgent(), seed=1)
    assert rec.forfeit is None and max(rec.match_score) >= 7
    assert bot.pid == pid  # one process serves many games
    rec2 = play_game(RandomAgent(), bot, seed=2)
    assert rec2.forfeit is None and bot.pid == pid
    bot.close()
    bot.close()
    assert bot.pid is None and not wait_gone(logged_pids(tmp_path))
    log = open(bot.log_path).read()
    assert "starting" in log and "stopped (closed); the process exited with status 0" in log


def test_the_bot_sees_every_message_in_order(tmp_path):
    """A recording bot gets hello, new_match, requests, a deal_end per deal, match_end, quit;
    every line valid under its schema."""
    record = tmp_path / "seen.jsonl"
    bot = make_external(f"logs={tmp_path} {shlex.join(FAULTY)} record={record}", seed=1)
    rec = play_game(bot, RandomAgent(), seed=4, move_time=5.0)
    bot.close()
    msgs = [json.loads(line) for line in record.read_text().splitlines()]
    kinds = [m["type"] for m in msgs]
    assert kinds[:2] == ["hello", "new_match"] and kinds[-2:] == ["match_end", "quit"]
    assert kinds.count("deal_end") == len(rec.deals) and 0 < kinds.count("request") < rec.moves
    assert msgs[1]["seat"] == 0 and msgs[1]["unit"] == "match" and msgs[1]["time_ms"] == 5000
    assert [m["id"] for m in msgs if m["type"] == "request"] == list(range(kinds.count("request")))
    assert msgs[-2]["match_scores"] == list(rec.match_score) and msgs[-2]["winner"] == rec.winner
    for m in msgs:
        check(m, "arena_hello" if m["type"] == "hello" else m["type"])


def _play_round_robin(players, workers, games=4):
    return run(players, games=games, seed=11, workers=workers, move_time=5.0)


def test_python_example_round_robin_whole_matches_legal_moves(tmp_path):
    py = spec(PY_BOT, tmp_path)
    names, _, lines = _play_round_robin([py, "random"], workers=1)
    assert len(lines) == 4
    for line in lines:
        assert line["forfeit"] is None  # an illegal move, a timeout or a fault would forfeit
        assert max(line["match_score"]) >= 7 and line["moves"] == len(line["actions"]) > 0
    assert not wait_gone(logged_pids(tmp_path))


@pytest.mark.skipif(NODE is None, reason=NO_NODE)
def test_python_and_node_examples_in_a_round_robin_with_workers(tmp_path):
    """Both example bots play whole matches with legal moves only, with 1 and 2 workers,
    with the same results (the bots are seeded by new_match); no process is left."""
    players = [spec(PY_BOT, tmp_path / "w1"), spec(NODE_BOT, tmp_path / "w1"), "random"]
    _, _, one = _play_round_robin(players, workers=1)
    assert len(one) == 12 and all(line["forfeit"] is None for line in one)
    assert all(max(line["match_score"]) >= 7 for line in one)
    assert not wait_gone(logged_pids(tmp_path / "w1"))
    players2 = [spec(PY_BOT, tmp_path / "w2"), spec(NODE_BOT, tmp_path / "w2"), "random"]
    _, _, two = _play_round_robin(players2, workers=2)
    assert [(x["winner"], x["actions"]) for x in two] == [(x["winner"], x["actions"]) for x in one]
    assert len(list((tmp_path / "w2").glob("*.log"))) >= 2  # bots ran in the workers
    assert not wait_gone(logged_pids(tmp_path / "w2"))


def test_python_example_with_two_workers(tmp_path):
    py = spec(PY_BOT, tmp_path)
    st = head_to_head(py, "random", games=4, workers=2, seed=3)
    assert st.games == 4 and st.forfeits == 0
    assert not wait_gone(logged_pids(tmp_path))


def test_round_robin_result_and_names(tmp_path):
    py = spec(PY_BOT, tmp_path, name="py")
    res = round_robin([py, "random"], games=2, seed=1)
    assert res.names == [py, "random"] and res.pairings[0].forfeits == 0


# ------------------------------------------------------------------ closing
def test_close_ends_the_whole_process_group(tmp_path):
    """A bot that ignores quit and end of input, with a grandchild that never reads
    stdin: close() still ends all three processes (supervisor, bot, grandchild)."""
    bot = make_external(f"logs={tmp_path} {shlex.join(FAULTY)} stubborn=1 grandchild=1")
    bot.reset(1)
    rec = play_game(bot, RandomAgent(), seed=5)
    assert rec.forfeit is None
    pids = logged_pids(tmp_path)
    assert len(pids) == 3 and not any(p == os.getpid() for p in pids)
    bot.close(grace=0.2)
    assert not wait_gone(pids)


def test_stderr_goes_to_the_log_file_per_bot(tmp_path):
    a = make_external(f"logs={tmp_path} {shlex.join(FAULTY)} fault=crash at=2")
    b = make_external(f"logs={tmp_path} {shlex.join(PY_BOT)}")
    rec = play_game(a, b, seed=1)
    a.close()
    b.close()
    assert rec.forfeit["reason"] == "crash"
    assert a.log_path != b.log_path
    assert "faulty_bot: crashing on purpose" in open(a.log_path).read()
    assert "crashing" not in open(b.log_path).read()


def test_examples_exit_at_end_of_input():
    import subprocess

    for argv in [PY_BOT] + ([NODE_BOT] if NODE else []):
        p = subprocess.run(argv, input=b'{"type":"hello","protocol":"1.0"}\n', capture_output=True,
                           timeout=20)
        assert p.returncode == 0 and json.loads(p.stdout)["type"] == "hello"


def test_relative_command_resolves_from_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    bot = make_agent(f"exec:logs={tmp_path} {sys.executable} examples/bots/random_bot.py")
    try:
        bot.reset(1)
        assert bot.bot_info["name"] == "random-py"
    finally:
        bot.close()


def test_a_request_round_trip_costs_well_under_a_millisecond(tmp_path):
    """The issue's bar is 1 ms; bench/bench_external.py measures it properly."""
    import random
    import statistics
    import time

    from sixtysix_env.deals import deal
    from sixtysix_env.knowledge import view

    rng = random.Random(0)
    views = []
    while len(views) < 200:
        s = deal(rng)
        while not s.is_over:
            views.append(view(s, s.to_act))
            s.apply(rng.choice(s.legal_actions()))
    with make_external(f"logs={tmp_path} {shlex.join(PY_BOT)}") as bot:
        bot.reset(1)
        for v in views[:50]:
            bot.act(v)
        took = []
        for v in views:
            t = time.perf_counter()
            bot.act(v)
            took.append(time.perf_counter() - t)
    assert statistics.median(took) < 1e-3


def test_each_game_starts_from_a_clean_slate(tmp_path):
    """An external bot's per-game state (budget, clock, fault, deals, seat) is one object, new at each
    reset: a CPU-timed game with a short move time leaves nothing behind for the next game."""
    bot = ExternalAgent(PY_BOT, timeout=5.0, log_dir=str(tmp_path))
    try:
        play_game(bot, RandomAgent(), seed=3, unit="deal", move_time=0.5, clock="cpu")
        played = bot.game
        assert (played.clock, played.budget, played.seat) == ("cpu", 0.5, 0) and played.deals == 1
        bot.reset(7)
        assert bot.game == type(played)(seed=7, budget=5.0) and bot.game is not played
    finally:
        bot.close()
