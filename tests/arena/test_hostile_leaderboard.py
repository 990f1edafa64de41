"""``sixtysix leaderboard`` on bench results from elsewhere: a file whose figures its own rung rows
contradict, a name that would break the Markdown table, or a path that is no regular file is skipped
with a one-line warning (or shown escaped): never a traceback, a hang, or a wrong table in silence."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agents.bench.run import rating_of
from sixtysix_cli import main

ROWS = [{"rung": "random", "rung_elo": 0.0, "games": 4, "a_wins": 3, "b_wins": 1, "draws": 0, "a_forfeits": 0,
         "b_forfeits": 1, "a_forfeit_kinds": {"time": 0, "crash": 0, "illegal": 0, "protocol": 0},
         "b_forfeit_kinds": {"time": 1, "crash": 0, "illegal": 0, "protocol": 0}, "win_rate": 0.75},
        {"rung": "heuristic", "rung_elo": 1000.0, "games": 4, "a_wins": 1, "b_wins": 2, "draws": 1,
         "a_forfeits": 0, "b_forfeits": 0, "win_rate": 0.375}]


def good() -> dict[str, Any]:
    return {"bot": "good", **rating_of(ROWS), "forfeits": {
        "bot": {"time": 0, "crash": 0, "illegal": 0, "protocol": 0},
        "ladder": {"time": 1, "crash": 0, "illegal": 0, "protocol": 0}}, "rungs": copy.deepcopy(ROWS)}


def _set(path: str, value: Any) -> Any:
    def edit(r: dict[str, Any]) -> None:
        keys = path.split(".")
        target = r
        for k in keys[:-1]:
            target = target[int(k)] if k.isdigit() else target[k]
        target[keys[-1]] = value
    return edit


FORGED = {
    "negative matches": _set("games", -5),
    "a rating its rungs do not give": _set("elo", 3000.0),
    "a huge finite rating": _set("elo", 1e300),
    "an interval that excludes the rating": _set("elo_ci", [2000.0, 2100.0]),
    "a string for unreliable": _set("unreliable", "no"),
    "forfeits decided but not marked": _set("unreliable", False),
    "a win rate of 750%": _set("rungs.0.win_rate", 7.5),
    "wins that are not the games": _set("rungs.0.a_wins", 40),
    "a rung listed twice": lambda r: r["rungs"].append(copy.deepcopy(r["rungs"][0])),
    "huge forfeit counts": _set("forfeits.bot.time", 10**30),
    "forfeits by kind that do not add up": _set("rungs.0.b_forfeit_kinds.time", 0),
    "a name with a line break": _set("bot", "x\n| 1 | `fake` | 9999 |"),
    "null forfeits by kind": _set("rungs.0.a_forfeit_kinds", None),
    "a rung without its win rate": lambda r: r["rungs"][1].pop("win_rate"),
    "a null win rate after games": _set("rungs.1.win_rate", None),
}


@pytest.mark.parametrize("forgery", list(FORGED))
def test_a_result_its_own_rungs_contradict_is_skipped_with_a_warning(tmp_path, capsys, forgery):
    ok, bad = tmp_path / "ok.json", tmp_path / "bad.json"
    ok.write_text(json.dumps(good()))
    forged = good()
    FORGED[forgery](forged)
    bad.write_text(json.dumps(forged))
    assert main(["leaderboard", str(ok), str(bad)]) == 0
    out, err = capsys.readouterr()
    assert err.count("skipped, not a bench result") == 1 and str(bad) in err
    rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 2 and "`good`" in rows[1]  # the header and the good result alone


def test_names_cannot_break_the_table(tmp_path, capsys):
    files = []
    for k, name in enumerate(["pipe|bot", "a`b ``c`", "good"]):
        f = tmp_path / f"{k}.json"
        f.write_text(json.dumps({**good(), "bot": name}))
        files.append(str(f))
    assert main(["leaderboard", *files]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(rows) == 5 and all(line.replace("\\|", "").count("|") == 9 for line in rows)
    assert "pipe\\|bot" in out and "``` a`b ``c` ```" in out


@pytest.mark.parametrize("kind", ["fifo", "device", "folder without bench.json"])
def test_a_path_that_is_no_regular_file_is_skipped_at_once(tmp_path, capsys, kind):
    ok, odd = tmp_path / "ok.json", tmp_path / "odd.json"
    ok.write_text(json.dumps(good()))
    if kind == "fifo":
        os.mkfifo(odd)  # reading it would block for ever
    elif kind == "device":
        odd.symlink_to("/dev/zero")
    else:
        odd.mkdir()
    assert main(["leaderboard", str(ok), str(odd)]) == 0
    err = capsys.readouterr().err
    assert err.count("skipped, not a bench result (cannot read it") == 1, err


def test_a_consistent_result_is_shown(tmp_path, capsys):
    f = Path(tmp_path / "ok.json")
    f.write_text(json.dumps(good()))
    assert main(["leaderboard", str(f)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "`good`" in out and "(unreliable)" in out and "0/1 (ladder: time 1)" in out
