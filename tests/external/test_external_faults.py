"""Every fault of an external bot is a forfeit with its reason; the run goes on; no process is left.

The faulty test bot (bots/faulty_bot.py) misbehaves at its N-th request in
every process, and a fault kills the process, so each game of a run is
forfeited the same way and each starts a fresh process.
"""

from __future__ import annotations

import pytest
from external_helpers import FAULTY, PY_BOT, logged_pids, spec, wait_gone

from agents.arena import head_to_head, run

# fault kind -> (faulty_bot arguments, exec options, forfeit reason, words in the detail)
FAULTS = {
    "no reply in time": (["fault=timeout", "at=3"], {"timeout": 0.3}, "timeout", "no reply"),
    "crash": (["fault=crash", "at=3"], {}, "crash", "status 3"),
    "malformed JSON": (["fault=malformed", "at=3"], {}, "malformed", "not JSON"),
    "illegal action": (["fault=illegal", "at=3"], {}, "illegal", "illegal action"),
    "wrong request id": (["fault=wrongid", "at=3"], {}, "protocol", "does not answer request"),
    "unasked output": (["fault=chatty", "at=2"], {}, "protocol", "note"),  # seen early or as the reply
    "wrong protocol version": (["fault=badhello"], {}, "protocol", "speaks protocol '2.0'"),
    "no handshake in time": (["fault=nohello"], {"start_timeout": 0.3}, "timeout", "handshake"),
}


@pytest.mark.parametrize("kind", list(FAULTS))
def test_fault_is_a_forfeit_with_its_reason_and_the_run_goes_on(kind, tmp_path):
    args, opts, reason, words = FAULTS[kind]
    bad = spec(FAULTY + args, tmp_path, **opts)
    names, _, lines = run([bad, "random"], games=4, seed=2, workers=1)
    assert len(lines) == 4  # the run played every game
    for line in lines:
        f = line["forfeit"]
        assert f is not None and line["seats"][f["seat"]] == 0, line  # the faulty bot forfeited
        assert f["reason"] == reason and words in f["detail"], f
        assert line["winner"] == 1 - f["seat"]
    pids = logged_pids(tmp_path)
    assert len(pids) >= 2 * 4  # a fresh process (supervisor + bot) for every game
    assert not wait_gone(pids)


def test_crash_detail_names_the_exit_status_and_the_last_stderr_line(tmp_path):
    bad = spec(FAULTY + ["fault=crash", "at=1"], tmp_path)
    _, _, lines = run([bad, "random"], games=1, seed=2)
    detail = lines[0]["forfeit"]["detail"]
    assert "exited with status 3" in detail and "crashing on purpose" in detail


def test_play_loop_move_time_also_ends_a_silent_bot(tmp_path):
    """With the arena's move time shorter than the bot's own timeout, the play loop's
    alarm forfeits the move and the agent kills the process, which is out of step."""
    bad = spec(FAULTY + ["fault=timeout", "at=2"], tmp_path, timeout=30)
    _, _, lines = run([bad, "random"], games=2, seed=2, move_time=0.3)
    assert [x["forfeit"]["reason"] for x in lines] == ["timeout", "timeout"]
    assert not wait_gone(logged_pids(tmp_path))


def test_a_faulty_bot_does_not_hurt_a_good_one_in_the_same_run(tmp_path):
    good = spec(PY_BOT, tmp_path)
    bad = spec(FAULTY + ["fault=malformed", "at=2"], tmp_path)
    _, _, lines = run([good, bad, "random"], games=2, seed=4)
    by_pair = {tuple(x["pairing"]): [] for x in lines}
    for x in lines:
        by_pair[tuple(x["pairing"])].append(x)
    assert all(x["forfeit"] is None for x in by_pair[(0, 2)])
    assert all(x["forfeit"]["reason"] == "malformed" for x in by_pair[(0, 1)] + by_pair[(1, 2)])
    assert not wait_gone(logged_pids(tmp_path))


def test_faults_with_two_workers(tmp_path):
    bad = spec(FAULTY + ["fault=illegal", "at=2"], tmp_path)
    st = head_to_head(bad, "random", games=4, seed=2, workers=2)
    assert st.games == 4 and st.a_forfeits == 4 and st.b_wins == 4
    assert not wait_gone(logged_pids(tmp_path))
