"""Hostile bots gain nothing and cannot hurt the run; hostile files cannot hurt commands (issues 23, 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.arena import head_to_head, read_results, replay
from agents.arena.lines import game_problem
from agents.bench.run import rating_of
from agents.play import make_env
from agents.random_agent import RandomAgent
from sixtysix_cli import main

BOTS = Path(__file__).resolve().parent / "bots" / "hostile.py"


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _opponent_hands(results: Path) -> dict[tuple[int, int], int]:
    """(agent seed, seat) -> the opponent's true first hand, from the results file."""
    out = {}
    for g in read_results(str(results))[1]:
        env = make_env("deal")
        env.reset(seed=g["seed"])
        hands = env.unwrapped.game_state.hands
        for seat in (0, 1):
            out[(g["agent_seeds"][seat], seat)] = hands[1 - seat]
    return out


def _seed_attack(tmp_path: Path, monkeypatch, **kw) -> tuple[int, float]:
    """Run the seed attacker; return (games where it found the card seed, share of opponent cards named)."""
    log = tmp_path / "attack.jsonl"
    monkeypatch.setenv("HOSTILE_LOG", str(log))
    results = tmp_path / "r.jsonl"
    head_to_head(f"{BOTS}:SeedAttacker", "random", games=8, unit="deal", results_path=str(results), **kw)
    truth = _opponent_hands(results)
    entries = _log(log)
    assert len(entries) == 8
    right = [bin(e["guess"] & truth[(e["agent_seed"], e["seat"])]).count("1") / 6 for e in entries]
    return sum(e["found"] for e in entries), sum(right) / len(right)


def test_a_bot_cannot_rebuild_the_deal_from_its_seed(tmp_path, monkeypatch):
    found, right = _seed_attack(tmp_path, monkeypatch)  # the default: a secret master seed
    assert found == 0
    assert right < 0.6  # chance: about 6 of the 17 cards it cannot place


def test_a_public_seed_is_unsafe_as_documented(tmp_path, monkeypatch):
    found, right = _seed_attack(tmp_path, monkeypatch, seed=7)
    assert found == 8 and right == 1.0  # the attack works on a small public seed: the test can fail


def test_a_bot_with_memory_never_meets_its_mirror(tmp_path):
    log = tmp_path / "memory.jsonl"
    bot = f"{BOTS}:MemoryBot:log='{log}'"
    head_to_head(bot, "random", games=8, unit="deal", seed=3, workers=1)
    head_to_head(bot, "random", games=4, unit="deal", seed=3, workers=2)
    entries = _log(log)
    assert len(entries) == 12 and all(e["remembered"] == 0 and e["guess"] is None for e in entries)


def test_a_bot_that_edits_what_it_is_given_only_harms_itself(tmp_path):
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("hostile_vandal", BOTS)
    mod = module_from_spec(spec)
    spec.loader.exec_module(mod)
    results = tmp_path / "v.jsonl"
    st = head_to_head(mod.Vandal(), RandomAgent(), games=6, seed=1, results_path=str(results))
    assert st.games == 6
    games = read_results(str(results))[1]
    assert len(games) == 6 and all(game_problem(g) is None for g in games)
    for g in games:  # every record is the game as played: it replays to the recorded deals
        assert g["forfeit"] is None or g["forfeit"]["seat"] == g["seats"].index(0)
        assert -1 not in g["actions"] and all(d["winner"] in (0, 1, None) for d in g["deals"])
        list(replay(str(results), g["index"], board=False))


def test_output_options_never_destroy_files(tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    assert main(["arena", "random", "random", "--games", "2", "--seed", "1", "--results", str(results)]) == 0
    before = results.read_bytes()
    for flag in ("--json", "--markdown", "--png"):
        rc = main(["arena", "random", "random", "--games", "2", "--seed", "1", "--results", str(results),
                   "--resume", flag, str(results)])
        assert rc == 2 and results.read_bytes() == before
        assert f"{flag} {results} is the --results file" in capsys.readouterr().err
    other = tmp_path / "old.md"
    other.write_text("keep me")
    new = tmp_path / "new.jsonl"
    argv = ["arena", "random", "random", "--games", "2", "--results", str(new), "--markdown", str(other)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--markdown" in err and "exists; pass --force" in err and err.count("\n") == 1
    assert other.read_text() == "keep me" and not new.exists()  # refused before any game
    assert main(["arena", "random", "random", "--games", "2", "--markdown", str(other), "--force"]) == 0
    assert other.read_text() != "keep me"
    assert main(["arena", "random", "random", "--games", "2", "--json", str(tmp_path / "s"),
                 "--markdown", str(tmp_path / "s")]) == 2


HOSTILE_LINES = [
    b"[" * 200_000 + b"]" * 200_000,  # RecursionError in json
    b'{"type": "game", "index": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b"5", b'"game"', b"null", b"[]", b"{}",
    b'{"type": "game"}',
    b'{"type": "game", "index": 1e999}',
    b'{"type": "game", "index": ' + b"9" * 5000 + b"}",
]


def _damaged(good: dict) -> list[bytes]:
    """Game lines of every wrong shape, built from a good one."""
    bad = []
    for key, value in [("seats", ["a", 1]), ("seats", [0, 1, 2]), ("pairing", [5, 7]), ("actions", [99]),
                       ("actions", ["x"]), ("deals", [{"winner": "me"}]), ("deals", [5]),
                       ("index", -1), ("index", 10 ** 30), ("winner", True), ("forfeit", {"seat": "x"}),
                       ("match_score", [1]), ("players", [1, 2]), ("cpu", {"wall": "x", "cpu": 1}),
                       ("unit", "tournament"), ("seed", 1.5), ("agent_seeds", None)]:
        bad.append(json.dumps({**good, key: value}).encode())
    bad.append(json.dumps({k: v for k, v in good.items() if k != "deals"}).encode())
    return bad


def test_results_lines_of_any_shape_are_skipped_with_a_warning(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    ref = head_to_head("random", "heuristic", games=4, seed=2, unit="deal", results_path=str(path))
    lines = path.read_bytes().splitlines()
    good = json.loads(lines[2])
    damaged = HOSTILE_LINES + _damaged(good)
    assert all(game_problem(json.loads(b)) for b in _damaged(good))
    path.write_bytes(b"\n".join(lines[:2] + damaged + lines[3:]) + b"\n")  # game 1 is lost among them
    capsys.readouterr()
    header, games = read_results(str(path))
    err = capsys.readouterr().err
    assert [g["index"] for g in games] == [0, 2, 3] and "damaged results line skipped" in err
    assert all(len(line) < 400 for line in err.splitlines())  # one short line each, no traceback
    st = head_to_head("random", "heuristic", games=4, seed=2, unit="deal", results_path=str(path),
                      resume=True)
    assert (st.games, st.a_wins, st.deals) == (ref.games, ref.a_wins, ref.deals)
    assert main(["replay", str(path), "--game", "2", "--brief"]) == 0
    assert main(["replay", str(path), "--game", "77"]) == 2


def test_leaderboard_skips_results_of_any_shape(tmp_path, capsys):
    rungs = [{"rung": "random", "rung_elo": 0.0, "games": 4, "a_wins": 2, "b_wins": 2, "draws": 0,
              "win_rate": 0.5}]
    good = {"bot": "x", **rating_of(rungs), "rungs": rungs}
    files = []
    bad_rungs = {**good, "rungs": [{**rungs[0], "win_rate": "x"}]}
    for k, content in enumerate([json.dumps(good).encode(), b"[" * 100_000, b"5", b'{"bot": 1}',
                                 json.dumps({**good, "elo": None}).encode(), json.dumps(bad_rungs).encode()]):
        f = tmp_path / f"{k}.json"
        f.write_bytes(content)
        files.append(str(f))
    assert main(["leaderboard", *files]) == 0
    out, err = capsys.readouterr()
    assert "`x`" in out and err.count("skipped, not a bench result") == 5
    assert main(["leaderboard", files[1]]) == 2
    assert main(["leaderboard", files[0], "--markdown", files[0]]) == 2  # never over an input


@pytest.mark.parametrize("unit", ["deal"])
def test_the_vandal_in_worker_processes_too(tmp_path, unit):
    st = head_to_head(f"{BOTS}:Vandal", "random", games=4, seed=1, unit=unit, workers=2)
    assert st.games == 4
