"""Results lines that are well formed but forged: a resumed run counts a game only when its result
follows from its own moves and its seeds are the schedule's, and a results path that is a fifo or a
device is refused at once with one line (reading either would hang or never end)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.arena import head_to_head

ROOT = Path(__file__).resolve().parents[2]
Line = dict[str, Any]


def _flip_all(g: Line) -> None:
    """The loser's game rewritten as a win, consistently: winner, score and every deal."""
    g["winner"] = 1 - g["winner"]
    g["match_score"] = g["match_score"][::-1]
    for d in g["deals"]:
        d["winner"] = None if d["winner"] is None else 1 - d["winner"]
        d["scores"] = d["scores"][::-1]


FORGERIES: dict[str, Callable[[Line], None]] = {
    "winner and score flipped": lambda g: (g.update(winner=1 - g["winner"],
                                                    match_score=g["match_score"][::-1])),
    "winner, score and deals flipped": _flip_all,
    "another bot seed": lambda g: g.update(agent_seeds=[g["agent_seeds"][0] + 1, g["agent_seeds"][1]]),
    "another duplicate pair": lambda g: g.update(cluster=g["cluster"] + 1),
    "an illegal action": lambda g: g["actions"].insert(0, 31 if g["actions"][0] != 31 else 30),
    "a move dropped": lambda g: g["actions"].pop(),
    "a deal's points raised": lambda g: g["deals"][0].update(
        game_points=3 if g["deals"][0]["game_points"] != 3 else 1),
}


@pytest.mark.parametrize("unit", ["deal", "match"])
@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forged_result_is_played_again_not_counted(tmp_path, capsys, unit, forgery):
    games = 4 if unit == "deal" else 2
    honest = tmp_path / "honest.jsonl"
    ref = head_to_head("random", "heuristic", games=games, seed=11, unit=unit, results_path=str(honest))
    lines = honest.read_text().splitlines()
    forged = []
    for text in lines[1:]:
        g = json.loads(text)
        if g["forfeit"] is None and g["winner"] is not None:
            FORGERIES[forgery](g)
        forged.append(json.dumps(g))
    path = tmp_path / "forged.jsonl"
    path.write_text("\n".join([lines[0], *forged]) + "\n")
    capsys.readouterr()
    assert head_to_head("random", "heuristic", games=games, seed=11, unit=unit, results_path=str(path),
                        resume=True) == ref
    err = capsys.readouterr().err
    assert "warning:" in err and "it is played again" in err


def test_an_honest_file_resumes_without_a_word(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    ref = head_to_head("random", "heuristic", games=2, seed=2, unit="match", results_path=str(path))
    capsys.readouterr()
    assert head_to_head("random", "heuristic", games=2, seed=2, unit="match", results_path=str(path),
                        resume=True) == ref
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_results_path_that_is_no_regular_file_is_one_line_at_once(tmp_path, kind):
    path = tmp_path / "r.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    arena = ["arena", "random", "random", "--games", "2", "--unit", "deal", "--no-progress", "--results"]
    for cmd in ([*arena, str(path)], [*arena, str(path), "--resume"], ["replay", str(path), "--game", "0"]):
        r = subprocess.run([sys.executable, "-m", "sixtysix_cli", *cmd], capture_output=True, text=True,
                           timeout=60, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
        assert r.returncode == 2 and r.stderr.strip().splitlines() == [
            f"sixtysix {cmd[0]}: error: {path}: not a regular file, not a results file"]


@pytest.mark.parametrize("spec_sandbox, flag, warned", [(False, False, True), (True, False, False),
                                                         (False, True, False)])
def test_exec_bots_outside_the_sandbox_are_named_a_risk(tmp_path, capsys, monkeypatch, spec_sandbox, flag,
                                                        warned):
    """Outside bubblewrap an external bot runs as the operator and can read the results file with the
    master seed: the arena says so once (the secret deals hold against it only in the sandbox)."""
    from agents.arena import api

    monkeypatch.setattr(api, "check_sandbox", lambda: None)
    monkeypatch.setattr(api, "play_missing", lambda *a, **k: 0)  # the warning comes before any game
    command = f"{sys.executable} -S {ROOT / 'examples/bots/random_bot.py'}"
    bot = f"exec:{'sandbox=1 ' if spec_sandbox else ''}{command}"
    api.head_to_head(bot, "random", games=2, unit="deal", sandbox=flag, results_path=str(tmp_path / "r"))
    assert capsys.readouterr().err.count("exec: bots run outside the sandbox") == (1 if warned else 0)
