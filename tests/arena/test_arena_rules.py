"""The arena under rules presets (docs/rules-variants.md, "Playing a preset") and four-player
team matches (agents.arena.team_match; tests/arena/test_four_arena.py for the rest)."""

from __future__ import annotations

import json

import pytest

from agents.arena import (
    ArenaOptions,
    OptionError,
    RulesMismatchError,
    read_results,
    replay,
    round_robin,
    run,
    team_match,
)
from agents.arena.records import ResultsFileError
from agents.bench.run import BenchOptions, BenchRulesError, bench
from agents.registry import BotRulesError, check_plays
from sixtysix_cli import main as cli
from sixtysix_env.variants import PRESETS, UnknownRulesError


@pytest.mark.parametrize("rules", [*PRESETS, "german+draw_bonus+double_game"])
def test_a_tiny_run_on_each_preset_records_its_rules(tmp_path, rules):
    path = tmp_path / "r.jsonl"
    names, config, lines = run(["heuristic", "random"], games=2, seed=5, rules=rules, results_path=str(path))
    header, games = read_results(str(path))
    assert header["config"]["rules"] == config["rules"] == rules
    assert len(games) == 2 and all(g["deals"] for g in games)
    text = "\n".join(replay(str(path), 0, board=False))  # replays under the file's rules
    assert text.startswith("game 0:") and "result:" in text


def test_schnapsen_games_are_dealt_five_cards_and_replay(tmp_path):
    path = str(tmp_path / "s.jsonl")
    run(["heuristic", "random"], games=1, seed=1, rules="schnapsen", results_path=path)
    first = next(line for line in replay(path, 0, board=False) if " hand " in line)
    assert len(first.split(" hand ")[1].split(":")[0].split()) == 5
    assert "rules schnapsen" in next(replay(path, 0))


def test_a_resume_with_other_rules_is_refused_by_name(tmp_path):
    path = str(tmp_path / "r.jsonl")
    run(["heuristic", "random"], games=2, seed=3, rules="kawu", results_path=path)
    with pytest.raises(RulesMismatchError, match="rules 'kawu'.*'german'"):
        run(["heuristic", "random"], games=4, seed=3, results_path=path, resume=True)
    assert isinstance(RulesMismatchError("x"), ValueError)  # a one-line error of the command (exit 2)
    run(["heuristic", "random"], games=4, seed=3, rules="kawu", results_path=path, resume=True)  # same: fine
    assert len(read_results(path)[1]) == 4


def test_a_file_from_before_presets_resumes_as_german(tmp_path):
    path = tmp_path / "old.jsonl"
    run(["heuristic", "random"], games=2, seed=3, results_path=str(path))
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    del header["config"]["rules"]
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    run(["heuristic", "random"], games=4, seed=3, results_path=str(path), resume=True)
    with pytest.raises(RulesMismatchError):
        run(["heuristic", "random"], games=4, seed=3, rules="schnapsen", results_path=str(path), resume=True)


def test_bad_rules_are_named_errors_before_any_game(capsys):
    with pytest.raises(UnknownRulesError, match="unknown rules preset 'bridge'"):
        ArenaOptions(games=1, rules="bridge")
    with pytest.raises(OptionError):
        ArenaOptions(games=1, rules="schnapsen-pkg+draw_bonus")
    assert cli(["arena", "heuristic", "random", "--games", "1", "--rules", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sixtysix arena: error: --rules unknown rules preset 'nope'")
    assert err.count("\n") == 1


def test_a_double_game_counts_twice():
    opts = {"games": 2, "seed": 1, "progress": False}
    plain = round_robin(["heuristic", "random"], rules="german", **opts)
    double = round_robin(["heuristic", "random"], rules="german+double_game", **opts)
    _, _, lines = run(["heuristic", "random"], rules="german+double_game", **opts)
    shutouts = [line for line in lines if sorted(line["match_score"])[0] == 0 and line["forfeit"] is None]
    assert [line.get("match_value", 1) for line in lines] == [2 if line in shutouts else 1 for line in lines]
    assert shutouts, "seed 1: heuristic shuts random out at least once"
    assert double.pairings[0].games == plain.pairings[0].games + len(shutouts)


def test_the_bench_refuses_other_rules(tmp_path):
    with pytest.raises(BenchRulesError, match="calibrated on plain German"):
        bench("random", BenchOptions(str(tmp_path / "b"), rules="kawu"))
    assert not (tmp_path / "b").exists()


def test_package_bots_play_only_their_preset():
    pytest.importorskip("schnapsen")
    check_plays("schnapsen-pkg:rand", "schnapsen-pkg")
    with pytest.raises(BotRulesError, match="--rules schnapsen-pkg"):
        check_plays("schnapsen-pkg:bully", "schnapsen")
    with pytest.raises(ValueError, match="rand, bully, rdeep"):
        check_plays("schnapsen-pkg:other", "schnapsen-pkg")
    st = round_robin(["schnapsen-pkg:bully", "random"], games=2, seed=2, rules="schnapsen-pkg",
                     progress=False)
    assert st.pairings[0].games == 2 and st.pairings[0].forfeits == 0


def test_a_missing_package_is_a_clear_error(monkeypatch):
    import importlib.util

    from agents import schnapsen_pkg

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "schnapsen" else real(name, *a))
    with pytest.raises(ValueError, match=r"package is not installed: pip install -e '\.\[schnapsen\]'"):
        check_plays("schnapsen-pkg:rand", "schnapsen-pkg")
    with pytest.raises(schnapsen_pkg.PackageMissingError):
        schnapsen_pkg.PackageBot("rand")


def test_a_team_match_is_duplicate_and_resumes(tmp_path):
    path = str(tmp_path / "t.jsonl")
    whole = team_match(["heuristic", "random"], games=4, seed=9)
    assert whole.deals == 8  # each deal twice, the teams swapped
    assert whole.a_deal_wins > whole.b_deal_wins and whole.points_per_deal > 0
    team_match(["heuristic", "random"], games=2, seed=9, results_path=path)
    resumed = team_match(["heuristic", "random"], games=4, seed=9, results_path=path, resume=True)
    assert resumed.to_dict() | {"cpu_share": 0} == whole.to_dict() | {"cpu_share": 0}
    header, lines = read_results(path)
    assert header["config"]["players_per_game"] == 4
    assert [line["type"] for line in lines] == ["game"] * 8
    with pytest.raises(ResultsFileError):  # a two-player run cannot take the file over
        run(["heuristic", "random"], games=2, seed=9, results_path=path, resume=True)
    assert next(replay(path, 0)).startswith("game 0: team 0 four-heuristic")


def test_team_matches_refuse_two_player_options(capsys):
    with pytest.raises(OptionError, match="rules"):
        team_match(["heuristic", "random"], games=1, rules="kawu")
    with pytest.raises(ValueError, match="unknown four-player bot 'pimc'"):
        team_match(["pimc", "random"], games=1)
    assert cli(["arena", "--players", "4", "heuristic", "random", "--games", "1", "--rules", "kawu"]) == 2
    assert "--rules is for two-player games" in capsys.readouterr().err


def test_the_team_match_command(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert cli(["arena", "--players", "4", "random", "heuristic", "--games", "4", "--unit", "deal",
                "--seed", "1", "--json", str(out), "--no-progress", "--move-time", "5",
                "--workers", "2"]) == 0
    text = capsys.readouterr().out
    assert "random vs heuristic" in text and "A pts/deal" in text
    assert json.loads(out.read_text())["pairings"][0]["deals"] == 4
