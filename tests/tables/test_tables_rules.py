"""Rules presets at the tables: the browser's ``rules`` field (a fixed list, checked as text),
the operator's restriction, records that keep the rules, and a Schnapsen game in a terminal."""

from __future__ import annotations

import json
import os
import random
import sys

import pytest

from tables.menu import RULES_MENU, MenuError, menu_rules
from tables.record_line import checked_line
from tables.session import Session
from tables.viewer import replay_frames

httpx = pytest.importorskip("httpx")
pexpect = pytest.importorskip("pexpect")
pytest.importorskip("starlette")

PROMPT = r"Your move \(.*?\): "


def test_the_menu_holds_every_allowed_combination_and_nothing_else():
    assert {"german", "kawu", "schnapsen", "schnapsen-pkg", "german+draw_bonus+double_game",
            "kawu+double_game"} <= set(RULES_MENU)
    assert "kawu+draw_bonus" not in RULES_MENU  # no drawn deals in kawu (a conflict, docs V1.2)
    for text in ["exec:x", "../", "bridge", "KAWU", " kawu", "kawu+double-game", "german+", "", None, 5,
                 ["kawu"], "kawu" * 40]:
        with pytest.raises(MenuError):
            menu_rules(text, RULES_MENU)
    assert menu_rules("kawu", RULES_MENU) == "kawu"


def test_the_browser_api_accepts_a_listed_preset_and_refuses_anything_else(start_server):
    base, data = start_server("--hint", "none")
    with httpx.Client(base_url=base, timeout=60) as c:
        bots = c.get("/api/bots").json()
        assert bots["rules_default"] == "german" and "kawu" in bots["rules"]
        for bad in ["exec:x", "../", "../../etc/passwd", "unknown", "kawu+draw_bonus", "Kawu", 7, None, {}]:
            r = c.post("/api/games", json={"vs": "random", "rules": bad})
            assert r.status_code == 400, (bad, r.text)
            assert "rules must be one of" in r.json()["error"]
        r = c.post("/api/games", json={"vs": "random", "rules": "kawu", "seed": 3})
        assert r.status_code == 201, r.text
        assert r.json()["game"]["rules"] == "kawu"
        r = c.post("/api/games", json={"vs": "random", "rules": "schnapsen", "seed": 3, "seat": 0})
        assert r.status_code == 201, r.text
        st = r.json()["state"]
        assert len(st["hand"]) == 5 and st["match"]["target"] == 7
        r = c.post("/api/game/resign", json={})
        assert r.status_code == 200, r.text
        frames = c.get(f"/api/records/mine/{r.json()['game']['record']}").json()
    line = json.loads(open(os.path.join(data, "games.jsonl")).read().splitlines()[-1])
    assert line["rules"] == "schnapsen" and frames["game"]["rules"] == "schnapsen"


def test_the_operator_restricts_the_rules(start_server):
    base, _ = start_server("--hint", "none", "--rules", "kawu", "--rules-choices", "kawu", "schnapsen")
    with httpx.Client(base_url=base, timeout=60) as c:
        bots = c.get("/api/bots").json()
        assert bots["rules"] == ["kawu", "schnapsen"] and bots["rules_default"] == "kawu"
        assert c.post("/api/games", json={"vs": "random", "rules": "german"}).status_code == 400
        r = c.post("/api/games", json={"vs": "random"})
        assert r.status_code == 201 and r.json()["game"]["rules"] == "kawu"


def test_the_viewer_replays_with_the_recorded_rules_and_refuses_others():
    s = Session("random", seed=11, episode="deal", rules="schnapsen")
    rng = random.Random(1)
    while not s.over:
        if s.bot_to_act:
            s.bot_move()
        else:
            s.play(rng.choice([m["action"] for m in s.legal_moves()]))
    line = s.game_line(index=0, cluster=0)
    assert line["rules"] == "schnapsen"
    assert replay_frames(checked_line(line))["game"]["rules"] == "schnapsen"
    for bad in ["german", "../x", "bridge", 5, "x" * 500]:
        with pytest.raises(ValueError):
            replay_frames(checked_line({**line, "rules": bad}))  # the deals differ, or it is no preset at all


def test_a_bot_of_another_preset_is_refused():
    pytest.importorskip("schnapsen")
    with pytest.raises(ValueError, match="plays only the rules schnapsen-pkg"):
        Session("schnapsen-pkg:rand", rules="german")


def test_a_schnapsen_deal_in_a_terminal(tmp_path):
    records = tmp_path / "games.jsonl"
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TERM="dumb", PYTHONIOENCODING="utf-8", LANG="C.UTF-8")
    args = ["-m", "tables.terminal", "--rules", "schnapsen", "--vs", "random", "--hint", "none",
            "--seed", "6", "--episode", "deal", "--delay", "0", "--records", str(records)]
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60, dimensions=(60, 140))
    first = True
    try:
        child.expect("Sixty-Six against random \\(seed 6\\), rules schnapsen\\.")
        for _ in range(80):
            i = child.expect([PROMPT, r"Saved as game (\d+)", "Press Enter", pexpect.EOF])
            if i == 0:
                moves = [line for line in child.before.splitlines() if line.strip().startswith("1)")]
                if first:
                    hand = next(line for line in child.before.splitlines() if line.strip().startswith("hand"))
                    assert len(hand.split()[1:]) == 5, hand
                    first = False
                assert moves
                child.sendline("1")
            elif i == 2:
                child.sendline("")
            else:
                break
        else:
            pytest.fail("the deal did not end")
    finally:
        child.close()
    line = json.loads(records.read_text().splitlines()[-1])
    assert line["rules"] == "schnapsen" and line["deals"]
    assert replay_frames(checked_line(line))["frames"]
