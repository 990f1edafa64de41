"""Four-player team lines are replayed on resume, never taken on trust (agents.arena.teams, .verify).

A team line carries its deal's card seed, dealer and both plays' actions; a
resumed run counts it only when the seed is the run's and the moves replay
to its results. Any other line is skipped with a one-line warning naming the
file and deal, and the deal is played again, so the summary is the honest one.
"""

from __future__ import annotations

import json

import pytest

from agents.arena.records import read_results
from agents.arena.teams import team_match
from agents.arena.verify import team_line_problem
from agents.four.match import deal_of
from sixtysix_cli import main as cli

TEAMS = ["heuristic", "random"]
SEED, GAMES = 9, 3


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    """A finished three-deal team run: its results file and summary."""
    path = str(tmp_path_factory.mktemp("team") / "t.jsonl")
    stats = team_match(TEAMS, games=GAMES, seed=SEED, results_path=path)
    return path, stats


def lines_of(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(raw) for raw in f if raw.strip()]


def illegal_action(line: dict) -> int:
    """An action the first mover of the first play may not take."""
    legal = deal_of(line["seed"], line["dealer"]).legal_mask()
    return next(a for a in range(32) if not legal >> a & 1)


def flip_winner(line: dict) -> None:
    w, points = line["results"][0]
    line["results"][0] = [0, 1] if w is None else [1 - w, points]


def change_move(line: dict) -> None:
    line["actions"][0][0] = illegal_action(line)


def change_points(line: dict) -> None:
    line["results"][1][1] += 1


def change_seed(line: dict) -> None:
    line["seed"] += 1


def change_dealer(line: dict) -> None:
    line["dealer"] = (line["dealer"] + 1) % 4


def drop_moves(line: dict) -> None:
    del line["actions"]


def drop_last_move(line: dict) -> None:
    line["actions"][1].pop()


def extra_move(line: dict) -> None:
    line["actions"][0].append(0)


def old_format(line: dict) -> None:  # a line from before team lines had seeds and moves
    for key in ("seed", "dealer", "actions"):
        del line[key]


def garbage_actions(line: dict) -> None:
    line["actions"] = [[True], {"a": 1}]


FORGERIES = {
    flip_winner: "does not follow from its moves (play 1: its winner or game points",
    change_move: "does not follow from its moves (play 1: action 1 (",
    change_points: "does not follow from its moves (play 2: its winner or game points",
    change_seed: "does not match this run's schedule",
    change_dealer: "does not match this run's schedule",
    drop_moves: "has no recorded seed and moves, so its result cannot be checked",
    drop_last_move: "does not follow from its moves (play 2: the deal is not over",
    extra_move: "does not follow from its moves (play 1: action",
    old_format: "has no recorded seed and moves",
    garbage_actions: "is malformed ('actions' is not two lists of action ids)",
}


def test_team_lines_carry_seeds_and_moves_that_replay(honest):
    path, stats = honest
    _, lines = read_results(path)
    assert [line["index"] for line in lines] == list(range(GAMES))
    for line in lines:
        assert {"seed", "dealer", "actions", "results"} <= set(line)
        assert len(line["actions"]) == 2 and all(line["actions"])
        assert team_line_problem(line, SEED) is None
        assert team_line_problem(line, SEED + 1).startswith("does not match this run's schedule")
    assert stats.deals == 2 * GAMES


def test_a_resume_of_an_honest_file_plays_nothing_and_warns_nothing(honest, tmp_path, capsys):
    path, stats = honest
    copy = tmp_path / "t.jsonl"
    copy.write_text(open(path, encoding="utf-8").read(), encoding="utf-8")
    assert team_match(TEAMS, games=GAMES, seed=SEED, results_path=str(copy), resume=True) == stats
    assert len(lines_of(str(copy))) == GAMES + 1
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("forge", list(FORGERIES), ids=lambda f: f.__name__)
def test_a_forged_line_is_refused_and_its_deal_played_again(honest, tmp_path, capsys, forge):
    path, stats = honest
    lines = lines_of(path)
    forge(lines[2])  # the line of deal 1
    forged = tmp_path / "t.jsonl"
    forged.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    resumed = team_match(TEAMS, games=GAMES, seed=SEED, results_path=str(forged), resume=True)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"warning: {forged}: team deal 1 {FORGERIES[forge]}")
    assert err[0].endswith("; it is played again")
    assert resumed == stats  # the forged result is not counted: the deal's honest one is
    _, now = read_results(str(forged))
    assert now == read_results(path)[1]  # the last line of deal 1 is the honest one again


def test_a_whole_line_from_another_seed_is_refused(honest, tmp_path, capsys):
    path, stats = honest
    other = str(tmp_path / "other.jsonl")
    team_match(TEAMS, games=GAMES, seed=SEED + 1, results_path=other)
    lines = lines_of(path)
    lines[1] = lines_of(other)[1]  # self-consistent, but another run's deal 0
    forged = tmp_path / "t.jsonl"
    forged.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert team_match(TEAMS, games=GAMES, seed=SEED, results_path=str(forged), resume=True) == stats
    assert "team deal 0 does not match this run's schedule" in capsys.readouterr().err


def test_hostile_shapes_are_named_never_a_crash(honest):
    _, lines = read_results(honest[0])
    base = lines[0]
    for key, value in [("seed", True), ("seed", -1), ("seed", 1 << 70), ("seed", "7"), ("dealer", 4),
                       ("dealer", None), ("actions", [[0]]), ("actions", [[0] * 65, []]),
                       ("actions", [[-1], []]), ("actions", [[32], []]), ("actions", "x")]:
        why = team_line_problem({**base, key: value}, SEED)
        assert why is not None and why.startswith("is malformed"), (key, value, why)


def test_the_command_resumes_and_warns_in_one_line(honest, tmp_path, capsys):
    path, _ = honest
    lines = lines_of(path)
    flip_winner(lines[3])
    forged = tmp_path / "t.jsonl"
    forged.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert cli(["arena", "--players", "4", *TEAMS, "--games", str(GAMES), "--seed", str(SEED),
                "--results", str(forged), "--resume", "--no-progress"]) == 0
    out = capsys.readouterr()
    assert [ln for ln in out.err.splitlines() if ln.startswith("warning:")] == [
        f"warning: {forged}: team deal 2 does not follow from its moves (play 1: its winner or game points "
        "are not what its moves give); it is played again"]
    assert "team match (four players, duplicate deals)" in out.out
