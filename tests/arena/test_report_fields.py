"""Issue 40: every report says how the games were played: the seed kind, the sandbox, each bot's
kind, the metering of external bots and the games played again; the results header records them
(untrusted when read back, absent in older files, which still resume)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agents.arena import read_results, round_robin
from agents.arena.api import bot_kind
from agents.arena.records import ConditionsMismatchError, open_results
from agents.protocol import sandbox
from agents.protocol.cgroups import metering
from agents.random_agent import RandomAgent
from sixtysix_cli import main

BOT = Path(__file__).resolve().parents[2] / "examples" / "bots" / "random_bot.py"
EXEC = f"exec:start_timeout=60 {sys.executable} {BOT}"
PLUGIN = "agents.random_agent:RandomAgent"
FIELDS = ("seed_kind", "sandbox", "bot_kinds", "metering", "replays")


def _edit_header(path: Path, **fields) -> None:
    """Rewrite the header line with ``fields`` set (None: removed)."""
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    for k, v in fields.items():
        if v is None:
            header.pop(k, None)
        else:
            header[k] = v
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))


def test_bot_kinds():
    assert [bot_kind(p) for p in ("random", "pimc:worlds=3", EXEC, PLUGIN, "my/bot.py:Bot")] == [
        "built-in", "built-in", "external", "plug-in", "plug-in"]
    assert bot_kind(RandomAgent()) == "built-in"

    class Mine(RandomAgent):
        pass

    assert bot_kind(Mine()) == "plug-in"  # code from outside the project, in the arena's process


def test_summary_and_header_record_how_the_run_was_played(tmp_path):
    path = tmp_path / "r.jsonl"
    result = round_robin(["random", EXEC, PLUGIN], games=2, unit="deal", results_path=path)
    d = result.to_dict()
    assert {k: d[k] for k in FIELDS} == {"seed_kind": "secret", "sandbox": False,
                                         "bot_kinds": ["built-in", "external", "plug-in"],
                                         "metering": metering(), "replays": 0}
    assert all(p["replays"] == 0 for p in d["pairings"])
    header = read_results(str(path))[0]
    assert {k: header[k] for k in FIELDS} == {k: d[k] for k in FIELDS}
    line = f"Seed secret; sandbox off; bots: random built-in, {EXEC} external, {PLUGIN} plug-in; " \
           f"metering {metering()}; games replayed 0"
    assert line in result.table() and line.replace("|", "\\|") in result.markdown()


def test_a_public_seed_and_no_external_bot(tmp_path):
    d = round_robin(["random", "heuristic"], games=2, unit="deal", seed=7).to_dict()
    assert (d["seed_kind"], d["metering"]) == ("public", "in-process")
    assert d["bot_kinds"] == ["built-in", "built-in"]


def test_an_old_file_without_the_fields_resumes(tmp_path):
    path = tmp_path / "r.jsonl"
    round_robin(["random", "heuristic"], games=2, unit="deal", results_path=path)
    _edit_header(path, **dict.fromkeys(FIELDS[:-1]))
    header = read_results(str(path))[0]
    assert not set(FIELDS[:-1]) & set(header) and header["replays"] == 0
    d = round_robin(["random", "heuristic"], games=4, unit="deal", results_path=path, resume=True).to_dict()
    assert d["seed_kind"] == "secret" and d["sandbox"] is False  # a 128-bit seed: drawn, not typed
    assert len(read_results(str(path))[1]) == 4


def test_malformed_fields_from_a_file_are_ignored(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    round_robin(["random", "heuristic"], games=2, unit="deal", results_path=path)
    _edit_header(path, seed_kind="guessable", sandbox="yes", bot_kinds=["built-in"], metering="x" * 500,
                 replays=10**9)
    with path.open("a") as f:
        f.write('{"type": "replay", "index": -1, "pairing": [0, 1], "why": "worker died"}\n')
        f.write('{"type": "replay", "index": 3, "pairing": [0, 1], "why": "reference timeout"}\n')
    header = read_results(str(path))[0]
    err = capsys.readouterr().err
    assert not {"seed_kind", "sandbox", "bot_kinds", "metering"} & set(header)
    assert "malformed header field 'sandbox'" in err and "damaged replay line" in err
    assert header["replays"] == 1  # counted from the good replay lines, never read from the header
    round_robin(["random", "heuristic"], games=4, unit="deal", results_path=path, resume=True)


def test_a_resume_keeps_the_recorded_conditions(tmp_path):
    path = tmp_path / "r.jsonl"
    round_robin(["random", "heuristic"], games=2, unit="deal", results_path=path)
    _edit_header(path, sandbox=True)
    with pytest.raises(ConditionsMismatchError, match="sandbox: file has True, this run False"):
        round_robin(["random", "heuristic"], games=4, unit="deal", results_path=path, resume=True)
    _edit_header(path, sandbox=False)
    seed = read_results(str(path))[0]["config"]["seed"]
    with pytest.raises(ConditionsMismatchError, match="seed_kind: file has 'secret', this run 'public'"):
        round_robin(["random", "heuristic"], games=4, unit="deal", results_path=path, resume=True, seed=seed)


def test_a_header_without_games_is_taken_over_with_this_runs_conditions(tmp_path):
    path = tmp_path / "r.jsonl"
    config = {"players": ["a", "b"]}
    open_results(str(path), config, conditions={"sandbox": True})[1].close()
    _, writer = open_results(str(path), config, conditions={"sandbox": False})
    writer.close()
    assert read_results(str(path))[0]["sandbox"] is False


def test_cli_reports_and_protects_its_outputs(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.setenv(sandbox.PROTECT_ENV, "")
    out = tmp_path / "out"
    md, js, res = out / "rr.md", out / "rr.json", tmp_path / "runs" / "rr.jsonl"
    assert main(["arena", "random", "heuristic", "--games", "2", "--unit", "deal", "--seed", "3",
                 "--results", str(res), "--markdown", str(md), "--json", str(js), "--no-progress"]) == 0
    assert ("Seed public; sandbox off; bots: random built-in, heuristic built-in; metering in-process; "
            "games replayed 0") in md.read_text()
    summary = json.loads(js.read_text())
    assert summary["seed_kind"] == "public" and summary["replays"] == 0
    protected = sandbox._PROTECTED
    assert {str(md.resolve()), str(js.resolve()), str(res.resolve()), str(res.parent.resolve())} <= protected


EXIT_BOT = """
import os
from agents.random_agent import RandomAgent

class ExitBot(RandomAgent):
    def __init__(self, seed=None, target=0):
        super().__init__(seed=seed)
        self.armed, self.target = False, target

    def reset(self, seed=None):
        super().reset(seed)
        self.armed = seed == self.target

    def act(self, view):
        if self.armed:
            os._exit(7)
        return super().act(view)
"""


@pytest.mark.slow
def test_games_in_flight_when_a_worker_dies_are_counted_as_replayed(tmp_path):
    from agents.arena import head_to_head
    from agents.arena.schedule import schedule

    (tmp_path / "exit_bot.py").write_text(EXIT_BOT)
    victim = schedule(2, 6, 0, True)[3]
    bot = f"{tmp_path / 'exit_bot.py'}:ExitBot:target={victim.agent_seeds[victim.seats.index(0)]}"
    path = tmp_path / "r.jsonl"
    st = head_to_head(bot, "random", games=6, unit="deal", workers=2, results_path=str(path), seed=0)
    replays = [json.loads(x) for x in path.read_text().splitlines() if '"replay"' in x]
    assert replays and all(r["why"] == "worker died" for r in replays)
    assert st.replays == len(replays) == read_results(str(path))[0]["replays"]
