"""The results file survives anything a user can do to it (issue 15).

Damaged, cut or hand-edited lines are skipped with a warning and their games
replayed; a run can be extended with more games; a failed start never
blocks the next run; processes can append to one file at once.
"""

import json
import subprocess
import sys

import pytest

from agents.arena import head_to_head, read_results, round_robin, run
from agents.arena.playback import find_game
from agents.arena.records import as_played, open_results
from agents.play import check_move_time

RR = ["random", "heuristic", "random"]


def _games(path):
    return [as_played(g) for g in read_results(str(path))[1]]


def _edit(line, **changes):
    g = json.loads(line)
    for k, v in changes.items():
        if v is KeyError:
            del g[k]
        else:
            g[k] = v
    return json.dumps(g)


# Each damage: (lines of a finished 6-game file) -> new file text.
DAMAGES = {
    "corrupt middle line": lambda ls: "".join([ls[0], ls[1], "{not json\n", *ls[3:]]),
    "cut last line that ends in a newline": lambda ls: "".join([*ls[:-1], ls[-1][:30] + "\n"]),
    "cut last line": lambda ls: "".join([*ls[:-1], ls[-1][:30]]),
    "missing deals": lambda ls: "".join([ls[0], _edit(ls[1], deals=KeyError) + "\n", *ls[2:]]),
    "wrong type": lambda ls: "".join([ls[0], _edit(ls[1], winner="0") + "\n", *ls[2:]]),
    "index outside the schedule": lambda ls: "".join([*ls[:2], _edit(ls[2], index=-3) + "\n", *ls[3:]]),
    "seed not the schedule's": lambda ls: "".join([*ls[:3], _edit(ls[3], seed=12345) + "\n", *ls[4:]]),
    "seats not the schedule's": lambda ls: "".join([*ls[:3], _edit(ls[3], seats=[1, 0]) + "\n", *ls[4:]]),
    "a JSON list": lambda ls: "".join([*ls[:3], "[1, 2]\n", *ls[3:]]),
    "blank and null lines": lambda ls: "".join([*ls[:3], "\n", "null\n", *ls[3:]]),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_line_is_skipped_with_a_warning_and_its_game_replayed(tmp_path, capsys, damage):
    full = tmp_path / "full.jsonl"
    ref = head_to_head("random", "heuristic", games=6, seed=3, results_path=str(full))
    ref_games = _games(full)
    part = tmp_path / "part.jsonl"
    part.write_text(DAMAGES[damage](full.read_text().splitlines(keepends=True)))
    capsys.readouterr()
    assert head_to_head("random", "heuristic", games=6, seed=3, results_path=str(part), resume=True) == ref
    assert "warning:" in capsys.readouterr().err
    assert _games(part) == ref_games  # every good line kept, the lost game recorded again
    # and a second resume plays nothing new
    size = part.stat().st_size
    assert head_to_head("random", "heuristic", games=6, seed=3, results_path=str(part), resume=True) == ref
    assert part.stat().st_size == size


def test_a_line_missing_a_field_is_damaged_not_a_key_error(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    head_to_head("random", "random", games=2, results_path=str(path))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + _edit(lines[1], deals=KeyError) + "\n" + lines[2])
    with pytest.raises(ValueError, match="has no game 0"):
        find_game(str(path), 0)
    assert "damaged results line" in capsys.readouterr().err
    assert find_game(str(path), 1)["index"] == 1


def test_a_round_robin_extends_with_more_games(tmp_path):
    path = tmp_path / "rr.jsonl"
    kw = dict(seed=7, unit="deal")
    run(RR, games=4, results_path=str(path), **kw)
    first = path.read_text().count("\n")
    extended = round_robin(RR, games=8, results_path=str(path), resume=True, **kw)
    assert path.read_text().count("\n") == first + 3 * 4  # only the new games were played
    clean = round_robin(RR, games=8, results_path=str(tmp_path / "clean.jsonl"), **kw)
    assert extended.pairings == clean.pairings
    assert _games(path) == _games(tmp_path / "clean.jsonl")
    # the header keeps the first run's count (games may change between resumes); shrinking works too
    assert read_results(str(path))[0]["config"]["games"] == 4
    small = round_robin(RR, games=4, results_path=str(path), resume=True, **kw)
    assert small.pairings == round_robin(RR, games=4, **kw).pairings


def test_a_failed_start_does_not_block_the_next_run(tmp_path):
    path = tmp_path / "sub" / "r.jsonl"
    _, writer = open_results(str(path), {"players": ["x", "y"], "seed": 99})  # header only: a failed start
    writer.close()
    st = head_to_head("random", "random", games=2, results_path=str(path))  # no --resume needed
    assert st == head_to_head("random", "random", games=2, results_path=str(path), resume=True)
    assert read_results(str(path))[0]["config"]["players"] == ["random", "random#2"]


def test_reports_make_their_folders(tmp_path):
    result = round_robin(["random", "heuristic"], games=2)
    result.plot(str(tmp_path / "new" / "dir" / "x.png"))
    assert (tmp_path / "new" / "dir" / "x.png").stat().st_size > 0


def test_move_time_must_be_a_limit_the_alarm_can_set():
    for bad in (float("inf"), float("nan"), 1e300, 1e7, 0, -1):
        with pytest.raises(ValueError, match="move_time"):
            head_to_head("random", "random", games=2, move_time=bad)
    assert check_move_time(1e6) == 1e6
    assert head_to_head("random", "random", games=2, move_time=1e6).forfeits == 0


APPEND = """
import sys
from agents.arena.records import open_results
_, w = open_results(sys.argv[1], {"players": ["a", "b"]}, resume=True)
base = int(sys.argv[2])
for i in range(base, base + 400):
    w.write({"type": "game", "index": i, "seed": i, "seats": [0, 1], "pairing": [0, 1], "cluster": i,
             "unit": "deal", "players": ["a", "b"], "agent_seeds": [1, 2], "winner": 0, "match_score": [2, 0],
             "deals": [{"winner": 0, "game_points": 2, "reason": "x", "scores": [66, 10]}] * 3,
             "forfeit": None, "actions": [k % 32 for k in range(3000)], "moves": 3000})  # > a write buffer
w.close()
"""


@pytest.mark.slow
def test_processes_can_append_to_one_file_at_once(tmp_path, capsys):
    path = tmp_path / "shared.jsonl"
    open_results(str(path), {"players": ["a", "b"]})[1].close()
    procs = [subprocess.Popen([sys.executable, "-c", APPEND, str(path), str(base)]) for base in (0, 400)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    _, games = read_results(str(path))
    assert [g["index"] for g in games] == list(range(800))
    assert "warning" not in capsys.readouterr().err
    assert path.read_text().count('"type":"header"') == 1
