"""The four-player table (you and a partner bot against two bots, docs/rules-four.md): the
session, ``sixtysix play --players 4`` driven through stdin, and the web API, whose replies
never name a card the player has not seen."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
from tables_api import NAMES, named_cards, pick, refused

from sixtysix_env.four import FOUR
from sixtysix_env.four_deals import deal_four, next_four
from sixtysix_env.seeding import derive_seed
from tables.four_frame import FourFrame
from tables.four_session import FourSession
from tables.frame import GameSummary
from tables.moves import IllegalMove


def seen_cards(state: Any) -> int:
    """Cards seat 0 has seen in ``state``: its hand, every card played, the known ones (the
    dealer's trump card, shown marriages)."""
    return state.hands[0] | sum(state.played) | sum(state.known)


class FourMirror:
    """The true four-player game, replayed from the seed and the public moves the replies
    report: for every (version, deal) the cards the player has seen."""

    def __init__(self, seed: int, episode: str) -> None:
        self.seed, self.episode = seed, episode
        self.state = deal_four(derive_seed(seed, "four-deal", 0), rules=FOUR)
        self.version, self.deal = 0, 1
        self.applied: set[int] = set()
        self.seen = {(0, 1): seen_cards(self.state)}

    def events(self, events: list[dict[str, Any]]) -> None:
        for e in sorted(events, key=lambda e: e["seq"]):
            if e["seq"] in self.applied:
                continue
            self.applied.add(e["seq"])
            if e["action"] is None:
                if e["version"] > self.version:  # a resignation or a forfeit: nothing moves
                    self.seen[(e["version"], self.deal)] = self.seen[(self.version, self.deal)]
                    self.version = e["version"]
                continue
            self.state.apply(e["action"])
            self.version += 1
            assert self.version == e["version"], (self.version, e)
            self.seen[(self.version, self.deal)] = seen_cards(self.state)
            s = self.state
            if s.result is not None and self.episode == "match" and not s.match_over:
                self.state = next_four(s, derive_seed(self.seed, "four-deal", self.deal))
                self.deal += 1
                self.seen[(self.version, self.deal)] = seen_cards(self.state)

    def check_frame(self, f: dict[str, Any], sent: set[int]) -> None:
        self.events(f.get("events", []))
        seen = self.seen[(f["version"], f["deal"])]
        leaked = {c for c in named_cards(f) - sent if not seen >> c & 1}
        assert not leaked, f"frame {f['version']}/{f['deal']} names unseen cards {[NAMES[c] for c in leaked]}"

    def check(self, reply: dict[str, Any], sent: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        """Assert that no part of a reply names a card the player has not seen."""
        for f in reply.get("frames", []):
            self.check_frame(f, sent)
        if "state" in reply:
            self.check_frame(reply["state"], sent)
        rest = {k: v for k, v in reply.items() if k not in ("frames", "state")}
        seen = self.seen[(self.version, self.deal)]
        leaked = {c for c in named_cards(rest) - sent if not seen >> c & 1}
        assert not leaked, f"reply names unseen cards {[NAMES[c] for c in leaked]}: {rest}"


def play_four(client: Any, seed: int, episode: str, opponents: str, rng: random.Random) -> dict[str, Any]:
    """One four-player game through the API, random legal moves, every reply checked for
    leaks; now and then an illegal, stale or out-of-turn move, each refused with the game
    unchanged. Returns the last reply."""
    mirror = FourMirror(seed, episode)
    body = {"players": 4, "partner": "heuristic", "opponents": opponents, "seed": seed, "episode": episode}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data = r.json()
    mirror.check(data)
    while not data["game"]["over"]:
        st = data["state"]
        if st["to_act"] != "you":
            if rng.random() < 0.1:
                refused(client, mirror, st, {"action": 0, "version": st["version"]}, (409, 422))
            data = client.get("/api/game", params={"since": st["version"], "wait": 20}).json()
            mirror.check(data)
            continue
        roll = rng.random()
        if roll < 0.15:
            legal = {m["action"] for m in st["legal"]}
            a = rng.choice([a for a in range(32) if a not in legal])
            refused(client, mirror, st, {"action": a, "version": st["version"]}, 422)
        elif roll < 0.2:
            refused(client, mirror, st, {"action": rng.choice(["exchange", "close", "continue"])}, 422)
        r = client.post("/api/game/move", json={"action": pick(st, rng), "version": st["version"]})
        if r.status_code == 409 and "moved on" in r.text:  # the table moved on: reload, as the page does
            data = client.get("/api/game").json()
            mirror.check(data)
            continue
        assert r.status_code == 200, r.text
        data = r.json()
        mirror.check(data)
    return data


def test_no_reply_names_a_card_the_player_has_not_seen_in_10_four_player_games(start_server):
    httpx = pytest.importorskip("httpx")
    base, _ = start_server("--hint", "none")
    rng = random.Random(44)
    with httpx.Client(base_url=base, timeout=60) as c:
        for i in range(10):
            last = play_four(c, 400 + i, "deal" if i % 3 else "match", ("heuristic", "random")[i % 2], rng)
            g = last["game"]
            assert g["players"] == 4 and g["over"] and g["record"] is None and g["seed"] == 400 + i
            assert g["winner"] in ("you", "opponent", None) and g["deals"]
        r = c.post("/api/game/hint", json={})
        assert r.status_code == 409 and r.json() == {"error": "this game has no hint bot"}


HOSTILE = [
    {"players": 3}, {"players": "4"}, {"players": True}, {"players": 4.0}, {"players": None},
    {"players": [4]},
    {"players": 4, "vs": "random"}, {"players": 4, "hint": "pimc"}, {"players": 4, "seat": 0},
    {"players": 4, "rules": "four"}, {"players": 4, "partner": "pimc"}, {"players": 4, "partner": 7},
    {"players": 4, "opponents": "search:0"}, {"players": 4, "opponents": "search:100"},
    {"players": 4, "opponents": "exec:./bot"}, {"players": 4, "partner": "heuristic\n"},
    {"players": 4, "opponents": "x" * 1000}, {"partner": "heuristic"},
    {"players": 2, "opponents": "random"},
    {"players": 4, "episode": "forever"}, {"players": 4, "seed": -1}, {"players": 4, "colour": "red"},
]


def test_a_hostile_four_player_game_request_is_a_one_line_400(start_server):
    httpx = pytest.importorskip("httpx")
    base, _ = start_server("--hint", "none")
    with httpx.Client(base_url=base, timeout=30) as c:
        for body in HOSTILE:
            r = c.post("/api/games", json=body)
            assert r.status_code == 400, (body, r.text)
            err = r.json()
            assert set(err) == {"error"} and err["error"] and "\n" not in err["error"], err
            assert len(err["error"]) < 300, err
        assert c.get("/api/game").status_code == 404  # no game was started
        assert c.post("/api/games", json={"players": 4, "opponents": "search:2"}).status_code == 201


def test_a_four_player_game_in_the_session_refuses_by_the_rules():
    """Whole games through :class:`FourSession`: frames and summaries are JSON, every illegal
    card is refused with a reason that names no unseen card, and the two-player-only moves are
    named as missing."""
    from test_tables_frame_contract import check

    rng = random.Random(3)
    for seed in range(6):
        s = FourSession("random", "heuristic", seed=seed, episode="deal" if seed % 2 else "match")
        frames = list(s.frames)
        while not s.over:
            if s.bot_to_act:
                frames += s.bot_move()
                continue
            v = s.view
            seen = v.hand | sum(v.played) | sum(v.known)
            for a in range(24):
                if not (v.legal_mask >> a) & 1:
                    with pytest.raises(IllegalMove) as e:
                        s.check_legal(a)
                    assert not {c for c in named_cards(str(e.value)) - {a} if not seen >> c & 1}, e.value
            for word in ("exchange", "close", "continue", "draw"):
                with pytest.raises(IllegalMove, match="no talon"):
                    s.parse_move(word)
            with pytest.raises(ValueError):
                s.parse_move("xyzzy")
            frames += s.play(rng.choice(s.legal_moves())["action"])
        json.dumps([s.summary(), *frames])
        check(s.summary(), GameSummary, "summary")
        for i, f in enumerate(frames):
            check(f, FourFrame, f"frame {i}")
        assert s.summary()["title"] and s.summary()["players"] == 4
    with pytest.raises(IllegalMove, match="game is over"):
        s.resign()
    with pytest.raises(ValueError, match="partner must be a four-player bot"):
        FourSession("pimc")


def run_play(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONIOENCODING="utf-8", LANG="C.UTF-8", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "tables.terminal", *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=60)


def test_play_players_4_through_stdin():
    """``sixtysix play --players 4``: the table (your hand, the three other seats, the trick with
    who played what, both teams' scores), help naming only the four-player moves, refusals,
    then the deal played to its end by move numbers."""
    script = "help\n?\nexchange\nclose\nTH\n" + "1\n" * 40
    p = run_play("--players", "4", "--partner", "random", "--seed", "5", "--episode", "deal", "--delay", "0",
                 "--color", "never", stdin=script)
    out = p.stdout
    assert p.returncode == 0, p.stderr + out[-2000:]
    assert "Sixty-Six for four: you and random against two heuristic (seed 5)" in out
    for line in (" partner (random)", " left (heuristic)", " right (heuristic)", " your team ", " opponents ",
                 " your hand ", " trick ", " Your moves:"):
        assert line in out, line
    assert " → " in out  # who took a trick
    help_start = out.index("moves:   a number")
    help_text = out[help_start:out.index("help\n", help_start)]
    assert "66 (declare)" in help_text and "marry H" in help_text
    assert not any(w in help_text for w in ("exchange", "close", "continue", "draw"))
    assert "No hints at the four-player table" in out
    assert out.count("Not allowed: the four-player game has no talon") == 2
    assert "Game over: " in out and "the deal" in out
    assert "Your move (number, card" in out and "Saved as" not in out



def test_play_players_4_refuses_bad_options_in_one_line(capsys):
    from tables.terminal import main

    assert main(["--players", "4", "--opponents", "pimc"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "opponents must be a four-player bot" in err
    assert main(["--players", "4", "--seat", "1"]) == 2
    assert "--rules and --seat are for two players" in capsys.readouterr().err
