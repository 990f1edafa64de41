"""A bot that misbehaves in any way forfeits its game; the arena run goes on (issue 15).

And processes never outlive the arena: killed (SIGKILL, SIGTERM, SIGINT)
mid-run, its workers, forkserver and resource tracker end within seconds,
the results file stays intact, and ``--resume`` gives the numbers of an
uninterrupted run.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents.arena import head_to_head, read_results, schedule
from agents.random_agent import RandomAgent

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "external"))
from external_helpers import wait_gone  # noqa: E402
from test_external_kill import descendants  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class Misbehaving(RandomAgent):
    """Random play, but on its ``when``-th call of ``act`` (counted over the run) does ``what``."""

    name = "bad"

    def __init__(self, what, when=3):
        super().__init__()
        self.what, self.when, self.calls = what, when, 0

    def act(self, view):
        self.calls += 1
        if self.calls == self.when:
            return self.what()
        return super().act(view)


class BadReset(RandomAgent):
    name = "bad-reset"

    def reset(self, seed=None):
        raise RuntimeError("cannot reset")


class OddName(RandomAgent):
    @property
    def name(self):
        raise RuntimeError("no name")


class Chatty(RandomAgent):
    name = 42  # not a str

    def act(self, view):
        print("thinking out loud")
        return super().act(view)


def _raise(e):
    def go():
        raise e
    return go


ACTS = {
    "sys.exit": (_raise(SystemExit(3)), "exception", "SystemExit"),
    "BaseException": (_raise(BaseException("odd")), "exception", "BaseException"),
    "GeneratorExit": (_raise(GeneratorExit()), "exception", "GeneratorExit"),
    "None": (lambda: None, "illegal", "illegal action"),
    "float": (lambda: 3.0, "illegal", "illegal action"),
    "str": (lambda: "3", "illegal", "illegal action"),
    "numpy float": (lambda: np.float64(3), "illegal", "illegal action"),
    "numpy array": (lambda: np.array([1, 2]), "illegal", "illegal action"),
}


@pytest.mark.parametrize("kind", ACTS)
def test_a_misbehaving_act_forfeits_and_the_run_goes_on(tmp_path, kind):
    what, reason, detail = ACTS[kind]
    path = tmp_path / "r.jsonl"
    st = head_to_head(Misbehaving(what), RandomAgent(), games=4, unit="deal", results_path=str(path))
    games = read_results(str(path))[1]
    assert [g["index"] for g in games] == [0, 1, 2, 3]  # every game played and recorded
    forfeits = [g["forfeit"] for g in games if g["forfeit"]]
    assert len(forfeits) == 1 and st.a_forfeits == 1
    assert forfeits[0]["reason"] == reason and detail in forfeits[0]["detail"]


def test_a_bot_whose_reset_raises_forfeits_every_game():
    st = head_to_head(BadReset(), RandomAgent(), games=4, unit="deal")
    assert st.a_forfeits == 4 and st.b_forfeits == 0


def test_names_that_are_not_strings_and_prints_do_not_break_the_run(capsys):
    st = head_to_head(OddName(), Chatty(), games=4, unit="deal")
    assert (st.a, st.b, st.forfeits) == ("OddName", "42", 0)
    out = capsys.readouterr()
    assert "thinking out loud" not in out.out and "thinking out loud" in out.err


def test_a_real_ctrl_c_still_stops_the_run():
    with pytest.raises(KeyboardInterrupt):
        head_to_head(Misbehaving(_raise(KeyboardInterrupt())), RandomAgent(), games=4, unit="deal")


EXIT_BOT = """
import os
from agents.random_agent import RandomAgent

class ExitBot(RandomAgent):
    def __init__(self, seed=None, target=0):
        super().__init__(seed=seed)
        self.target, self.armed = target, False

    def reset(self, seed=None):
        super().reset(seed)
        self.armed = seed == self.target

    def act(self, view):
        if self.armed:
            os._exit(7)  # kills the worker process, no exception, no cleanup
        return super().act(view)
"""


@pytest.mark.slow
def test_a_bot_that_kills_its_worker_forfeits_that_game_by_crash(tmp_path):
    (tmp_path / "exit_bot.py").write_text(EXIT_BOT)
    tasks = schedule(2, 12, 0, True)
    victim = tasks[5]  # and its duplicate twin, game 4: same cards, same bot seed
    target = victim.agent_seeds[victim.seats.index(0)]  # the bot is player 0
    bot = f"{tmp_path / 'exit_bot.py'}:ExitBot:target={target}"
    path = tmp_path / "r.jsonl"
    st = head_to_head(bot, "random", games=12, unit="deal", workers=2, results_path=str(path), seed=0)
    games = read_results(str(path))[1]
    assert [g["index"] for g in games] == list(range(12))
    crashed = [g for g in games if g["forfeit"]]
    assert [g["index"] for g in crashed] == [4, 5]
    for g in crashed:
        assert g["forfeit"]["reason"] == "crash" and g["seats"][g["forfeit"]["seat"]] == 0
    assert st.a_forfeits == 2 and st.games == 12


KILL_GAMES = 6000  # random vs random: a few seconds with 2 workers, so the kill lands mid-run


def _arena(path, json_path, *extra):
    return [sys.executable, "-m", "sixtysix_cli", "arena", "random", "random", "--games", str(KILL_GAMES),
            "--workers", "2", "--no-progress", "--seed", "0", "--results", str(path), "--json",
            str(json_path), *extra]


def _default_sigint() -> None:
    """In the child: Ctrl-C as in a terminal, even where the tests inherit an ignored SIGINT
    (a shell's background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    d = tmp_path_factory.mktemp("clean")
    subprocess.run(_arena(d / "r.jsonl", d / "r.json"), cwd=ROOT, check=True, capture_output=True,
                   timeout=300)
    return _unmeasured(json.loads((d / "r.json").read_text()))


def _unmeasured(summary):
    """A JSON summary without its measured CPU shares."""
    summary.pop("cpu_share", None)
    for p in summary["pairings"]:
        p.pop("cpu_share", None)
    return summary


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux only")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_killed_arena_leaves_no_process_and_resumes_to_the_same_numbers(tmp_path, sig, uninterrupted):
    path = tmp_path / "r.jsonl"
    arena = subprocess.Popen(_arena(path, tmp_path / "r.json"), cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    try:
        deadline = time.monotonic() + 60
        # workers (2) + forkserver + resource tracker, and some games recorded
        while not (len(descendants(arena.pid)) >= 4 and path.exists() and path.read_text().count("\n") > 50):
            assert arena.poll() is None and time.monotonic() < deadline, "the run ended before the kill"
            time.sleep(0.02)
        below = descendants(arena.pid)
        os.kill(arena.pid, sig)
        start = time.monotonic()
        code = arena.wait(timeout=10)
        if sig != signal.SIGKILL:
            assert time.monotonic() - start < 2
        assert code == (-sig if sig == signal.SIGKILL else 130)  # SIGTERM stops as Ctrl-C does
        assert not wait_gone(below, timeout=3)
        if sig != signal.SIGKILL:
            err = arena.stderr.read()
            assert "continue with --resume" in err and "leaked" not in err, err  # the pool shut down cleanly
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    recorded = read_results(str(path))[1]  # intact: every line well formed
    assert 0 < len(recorded) < KILL_GAMES
    p = subprocess.run(_arena(path, tmp_path / "r.json", "--resume"), cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "damaged" not in p.stderr and "do not match" not in p.stderr
    assert _unmeasured(json.loads((tmp_path / "r.json").read_text())) == uninterrupted
