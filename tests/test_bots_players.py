"""``sixtysix bots --players 4`` lists the four-player bots, and ``sixtysix replay`` counts
"1 trick", not "1 tricks" (issue 42)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agents.four import FOUR_AGENTS, make_four_agent
from sixtysix_cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_bots_lists_two_player_bots_by_default(capsys):
    assert main(["bots"]) == 0
    assert main(["bots", "--players", "2"]) == 0
    default, two = capsys.readouterr().out.split("known bots")[1:]
    assert default == two and "pimc" in default and "four-player" not in default


def test_bots_players_4_lists_every_four_player_bot_and_each_builds(capsys):
    assert main(["bots", "--players", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("four-player bots") and "--players 4" in out and "pimc" not in out
    specs = re.findall(r"^  (\S+)\s+- ", out, re.MULTILINE)
    assert [s.split("[")[0].split(":")[0] for s in specs] == list(FOUR_AGENTS)
    for spec in (*FOUR_AGENTS[:-1], "search:3"):  # net:PATH needs a checkpoint (tests/training/test_team.py)
        assert make_four_agent(spec, 0) is not None


def test_bots_refuses_other_player_counts(capsys):
    with pytest.raises(SystemExit) as e:
        main(["bots", "--players", "3"])
    assert e.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_docs_describe_the_four_player_bots():
    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    section = text.split("## Four-player bots", 1)[1].split("\n## ", 1)[0]
    assert "sixtysix bots --players 4" in section
    for name in FOUR_AGENTS:
        assert f"`{name}" in section


def test_replay_says_1_trick(tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    assert main(["arena", "random", "heuristic", "--games", "1", "--unit", "deal", "--seed", "1",
                 "--no-duplicate", "--no-progress", "--results", str(results)]) == 0
    capsys.readouterr()
    assert main(["replay", str(results), "--game", "0"]) == 0
    out = capsys.readouterr().out
    assert "(1 trick)" in out and "(0 tricks)" in out
    assert not re.search(r"\b1 tricks\b", out)
