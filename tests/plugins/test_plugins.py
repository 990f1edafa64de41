"""Bots from anywhere: by import path, from a file, by an installed package's entry point, and external."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from external.external_helpers import NO_NODE, NODE, NODE_BOT, PY_BOT

from agents import describe_agents, make_agent, parse_spec
from agents.arena import read_results, round_robin
from sixtysix_cli import main as cli

HERE = Path(__file__).resolve().parent
FILE_BOT = '''
from agents.base import BaseAgent, require_turn
from sixtysix_env.actions import random_action


class FileBot(BaseAgent):
    def __init__(self, seed=None, move_time=None, greeting="hi"):
        super().__init__(seed, move_time)
        self.greeting = greeting

    def act(self, view):
        require_turn(view)
        return random_action(view.legal_mask, self.rng)
'''


@pytest.fixture
def file_bot(tmp_path) -> str:
    path = tmp_path / "my_bot.py"
    path.write_text(FILE_BOT)
    return str(path)


@pytest.fixture
def installed_bot(tmp_path, monkeypatch) -> str:
    """A package that registers 'tinyrule' in the sixtysix.bots entry-point group, on sys.path."""
    site = tmp_path / "site"
    (site / "tinybots").mkdir(parents=True)
    (site / "tinybots" / "__init__.py").write_text("from plugin_bots import RuleBot as TinyRule\n")
    info = site / "tinybots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinybots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[sixtysix.bots]\ntinyrule = tinybots:TinyRule\n")
    monkeypatch.syspath_prepend(str(site))
    return "tinyrule"


def test_import_path_and_file_specs_with_constructor_parameters(file_bot):
    bot = make_agent("plugin_bots:LowestBot:bias=3", seed=1)
    assert bot.bias == 3 and bot.name == "plugin_bots:LowestBot:bias=3"
    fbot = make_agent(f"{file_bot}:FileBot:greeting='hello, you'", seed=2)
    assert fbot.greeting == "hello, you"
    assert parse_spec(f"{file_bot}:FileBot:greeting=x")[1]["params"] == {"greeting": "x"}


def test_builtin_specs_keep_their_meaning():
    assert parse_spec("pimc:worlds=30") == ("pimc", {"worlds": 30, "depth": 1, "infer": 0, "temp": 0.0,
                                                      "move_time": None})
    assert parse_spec("ppo:a:b.pt")[1]["path"] == "a:b.pt"


@pytest.mark.parametrize("spec,fragment", [
    ("nosuchmodule.x:Bot", "cannot import module"),
    ("plugin_bots:NoSuchBot", "has no 'NoSuchBot'"),
    ("/no/such/file.py:Bot", "does not exist"),
    ("plugin_bots:LowestBot:bias", "expected key=value"),
    ("plugin_bots:LowestBot:bias=1,bias=2", "twice"),
])
def test_bad_plugin_specs_are_clear_errors(spec, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_spec(spec)


def test_wrong_constructor_parameters_are_a_clear_error():
    with pytest.raises(ValueError, match="does not take these parameters"):
        make_agent("plugin_bots:LowestBot:depth=2")


def test_entry_point_bots_are_listed_and_made(installed_bot, capsys):
    assert installed_bot in describe_agents()
    assert make_agent(installed_bot, seed=1).name == installed_bot
    assert cli(["bots"]) == 0
    assert installed_bot in capsys.readouterr().out


def test_round_robin_of_plugin_and_external_bots_plays_whole_legal_matches(file_bot, installed_bot, tmp_path):
    logs = tmp_path / "logs"
    players = ["plugin_bots:LowestBot", f"{file_bot}:FileBot", installed_bot,
               f"exec:logs={logs} {shlex.join(PY_BOT)}"]
    if NODE:
        players.append(f"exec:logs={logs} {shlex.join(NODE_BOT)}")
    path = str(tmp_path / "rr.jsonl")
    round_robin(players, games=2, seed=5, workers=1, progress=False, results_path=path)
    lines = read_results(path)[1]
    assert len(lines) == 2 * len(players) * (len(players) - 1) // 2
    for line in lines:
        assert line["forfeit"] is None, line["forfeit"]  # only legal moves, no crash
        assert max(line["match_score"]) >= 7
    if not NODE:
        pytest.skip(NO_NODE + " (the other bots played)")


def test_plugin_bots_in_arena_worker_processes(file_bot, tmp_path):
    path = str(tmp_path / "rr.jsonl")
    round_robin(["agents.random_agent:RandomAgent", f"{file_bot}:FileBot"], games=4, seed=1, workers=2,
                progress=False, results_path=path)
    assert [line["forfeit"] for line in read_results(path)[1]] == [None] * 4


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
