"""The model both tables share: a person's game against a bot, its texts, hints and records."""

from __future__ import annotations

import json
import random

import pytest

from agents.arena.playback import replay
from agents.arena.records import open_results, read_results
from sixtysix_env import fixed_deal, resample, view
from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE
from tables.hints import Hinter
from tables.moves import IllegalMove, parse_card_word, why_illegal
from tables.session import Session
from tables.store import RecordStore


def play_out(s: Session, rng: random.Random, on_turn=None) -> None:
    """Random legal moves for the person until the game ends (a close now and then, never a
    false declaration: the deals last longer)."""
    while not s.over:
        if s.bot_to_act:
            s.bot_move()
        elif s.forced_action() is not None:
            s.play(s.forced_action())
        else:
            if on_turn is not None:
                on_turn(s)
            moves = [m for m in s.legal_moves() if not m.get("false")
                     and (m["kind"] != "close" or rng.random() < 0.1)] or s.legal_moves()
            s.play(rng.choice(moves)["action"])


@pytest.mark.parametrize("vs,episode,seat", [("heuristic", "match", 0), ("heuristic", "match", 1),
                                              ("random", "deal", 0), ("pimc:worlds=4", "deal", 1)])
def test_a_whole_game_is_an_arena_record_that_replays(tmp_path, vs, episode, seat):
    s = Session(vs, seed=31, episode=episode, seat=seat)
    assert s.record.players[seat] == "human" and s.record.players[1 - seat] == s.bot_name
    play_out(s, random.Random(1))
    line = s.game_line()
    json.dumps(line)
    assert line["winner"] in (0, 1, None) and len(line["deals"]) >= 1
    assert line["moves"] == len(line["actions"])
    if episode == "match":
        assert max(line["match_score"]) >= 7
    store = RecordStore(str(tmp_path / "games.jsonl"))
    assert store.append(line) == 0
    lines = list(replay(store.path, 0, board=True))
    assert lines[-1].startswith("result: ")
    assert sum(x.startswith("=== deal") for x in lines) == len(line["deals"])


def test_refused_moves_say_why_and_change_nothing():
    rng = random.Random(5)
    refusals = set()

    def try_illegal(s: Session) -> None:
        before = (s.version, s.frame(), s.view)
        for a in range(32):
            if s.view.legal_mask >> a & 1:
                continue
            with pytest.raises(IllegalMove) as e:
                s.play(a)
            refusals.add(str(e.value))
        assert (s.version, s.frame(), s.view) == before

    for seed in range(4):
        play_out(Session("heuristic", seed=seed, seat=seed % 2), rng, try_illegal)
    assert "you do not hold the nine of trumps" in refusals
    assert any(r.startswith("you do not hold ") for r in refusals)
    assert any("must follow suit" in r for r in refusals) or any("must beat" in r for r in refusals)
    assert not any(r.endswith("is not possible now") for r in refusals), refusals


def test_why_illegal_names_the_rule():
    # player_1 leads (player_0 deals); hands and talon fixed card by card
    hands = [["9C", "JC", "QC", "KH", "KC", "AD"], ["TC", "AC", "QH", "9H", "JS", "TD"]]
    talon = ["9S", "QS", "KS", "TS", "AS", "9D", "JD", "QD", "KD", "JH", "TH", "AH"]
    s = fixed_deal(hands, talon, dealer=0)
    v = view(s, 1)
    assert why_illegal(v, MARRIAGE + 2) == "you do not hold the king and queen of hearts"
    assert why_illegal(v, EXCHANGE) == "you may exchange only after taking a trick"  # 9H, trumps hearts
    assert why_illegal(view(s, 0), EXCHANGE) == "it is not your turn"
    assert why_illegal(v, DECLARE) == "you need a trick before you can declare"
    assert why_illegal(v, 0) == "you do not hold 9C"
    assert why_illegal(v, CONTINUE) == "you are on lead: play a card"
    s.play("close", "continue")  # player_1 closes: phase 2 from now on
    s.play("TC")  # player_0 must follow clubs and beat the ten if able: no higher club in hand
    v0 = view(s, 0)
    assert why_illegal(v0, 23).endswith("you must follow suit (clubs)")
    assert why_illegal(view(s, 1), 10) == "it is not your turn"
    s.play("QC", "TD")  # player_1 takes the trick and leads the ten of diamonds; player_0 holds the ace
    assert why_illegal(view(s, 0), 0).endswith("you must follow suit (diamonds)")
    s = fixed_deal(hands, talon, dealer=0).play("close", "continue", "JS")  # player_0: no spade, trumps
    assert why_illegal(view(s, 0), 0).endswith("with no spades you must play a trump")


def test_the_usual_spellings_of_a_move():
    words = ("TH", "th", "10H", "T♥", "10 ♥", "ad", "9♣")
    assert [parse_card_word(w) for w in words] == [16, 16, 16, 16, 16, 23, 0]
    assert parse_card_word("1H") is None and parse_card_word("close") is None
    s = Session("random", seed=3, seat=0)
    while not s.human_to_act:
        s.bot_move()
    v = s.view
    card = [c for c in range(24) if v.legal_mask >> c & 1][0]
    name = "9JQKTA"[card % 6] + "CSHD"[card // 6]
    drawn = ("10" if name[0] == "T" else name[0]) + "♣♠♥♦"[card // 6]
    for text in (name, name.lower(), f"play {name}", drawn):
        assert s.parse_move(text) == card
    for text, action in (("close", CLOSE), ("66", DECLARE), ("declare", DECLARE), ("exchange", EXCHANGE)):
        if v.legal_mask >> action & 1:
            assert s.parse_move(text) == action
        else:
            with pytest.raises(IllegalMove):
                s.parse_move(text)
    for junk in ("", "xyzzy", "marry Z", "x" * 100):
        with pytest.raises(ValueError):
            s.parse_move(junk)


def test_a_frame_is_a_function_of_the_players_view():
    """Every frame a table shows is the same in any world the player cannot tell from the true one."""
    rng = random.Random(11)
    checked = 0

    def check(s: Session) -> None:
        nonlocal checked
        for _ in range(3):
            world = resample(s.state, s.seat, rng)
            assert s.frame(view(world, s.seat)) == s.frame()
        checked += 1

    for seed in range(3):
        play_out(Session("heuristic", seed=seed, seat=seed % 2), rng, check)
    assert checked > 30


def test_a_crashing_or_cheating_bot_forfeits():
    s = Session("random", seed=2, seat=1)
    while not s.bot_to_act:
        s.play(s.legal_moves()[0]["action"])
    s.bot.act = lambda view: 1 / 0
    s.bot_move()
    assert s.over and s.record.forfeit["reason"] == "exception" and s.winner == 1
    assert s.record.forfeit["kind"] == "crash"  # the arena's record format: every fault has its kind
    s = Session("random", seed=2, seat=1)
    s.bot.act = lambda view: 99
    while not s.over:
        s.bot_move() if s.bot_to_act else s.play(s.legal_moves()[0]["action"])
    assert s.record.forfeit["reason"] == "illegal" and s.winner == 1 and s.record.forfeit["kind"] == "illegal"
    s = Session("random", seed=4)
    s.resign()
    assert s.over and s.record.forfeit == {"seat": 0, "reason": "resigned", "detail": "the person resigned"}
    with pytest.raises(IllegalMove):
        s.resign()


def test_hints_come_with_the_bots_values():
    rng = random.Random(3)
    seen = {}

    def ask(s: Session) -> None:
        v = s.view
        legal = {a for a in range(32) if v.legal_mask >> a & 1}
        for spec, h in ((spec, hinters[spec].hint(v)) for spec in hinters):
            assert h["action"] in legal and h["bot"]
            if h["values"]:
                assert set(h["values"]) == legal
                seen.setdefault((spec, h["kind"], v.stock == 0), h)
            if spec == "ppo:assist=none" and h["kind"] == "probability":
                assert abs(sum(h["values"].values()) - 1) < 1e-6
            if spec.startswith("ismcts") and v.talon_open and len(legal) > 1:
                assert sum(h["visits"].values()) >= 24

    hinters = {spec: Hinter(spec, seed=1) for spec in ("pimc:worlds=3", "ismcts:iterations=24", "heuristic",
                                                       "ppo:assist=none", "random", "guided:worlds=3")}
    for seed in range(8):  # until some deal reached a spent talon
        play_out(Session("heuristic", seed=seed, episode="deal"), rng, ask)
        if ("pimc:worlds=3", "game points", True) in seen:
            break
    assert ("pimc:worlds=3", "game points", False) in seen and ("pimc:worlds=3", "game points", True) in seen
    assert ("heuristic", "game points", True) in seen and ("heuristic", "game points", False) not in seen
    assert ("ppo:assist=none", "probability", False) in seen
    assert not any(spec == "random" for spec, _, _ in seen)
    assert {("guided:worlds=3", "game points", spent) for spent in (False, True)} <= set(seen)
    for spec in ("pimc:worlds=3", "guided:worlds=3"):
        exact = seen[(spec, "game points", True)]["values"]
        assert all(float(x).is_integer() for x in exact.values())  # one world, the true one
    with pytest.raises(ValueError, match="cheats"):
        Hinter("oracle")


def test_the_store_appends_and_survives_a_cut_line(tmp_path):
    path = str(tmp_path / "games.jsonl")
    store = RecordStore(path)
    for seed in (1, 2):
        s = Session("random", seed=seed)
        s.resign()
        assert store.append(s.game_line(owner="me" if seed == 1 else None)) == seed - 1
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"type": "game", "index": 2, "seed": 9')  # a crash in mid-write
    store = RecordStore(path)
    assert [g["index"] for g in store.games()] == [0, 1] and [g["index"] for g in store.games("me")] == [0]
    s = Session("random", seed=3)
    s.resign()
    assert RecordStore(path).append(s.game_line()) == 2
    assert store.append(s.game_line()) == 3  # another writer's line was seen
    assert [g["index"] for g in read_results(path)[1]] == [0, 1, 2, 3]
    arena = str(tmp_path / "arena.jsonl")
    open_results(arena, {"players": ["a", "b"]})[1].close()
    with pytest.raises(ValueError, match="different run configuration"):
        RecordStore(arena)


def test_ppo_bots_share_one_copy_of_their_weights_and_play_as_if_alone():
    """Games with a ppo bot share its loaded network (a few MB each otherwise), never its RNGs
    or solver, and a shared bot plays exactly as a bot of its own would."""
    from agents import make_agent
    from tables.session import make_bot

    a, b = make_bot("ppo:assist=none", 1), make_bot("ppo:assist=none", 2)
    assert a.layers is b.layers and a.rng is not b.rng and a.solver is not b.solver
    own = make_agent("ppo:assist=none", seed=1)
    own.reset(1)
    s = Session("random", seed=3, seat=0)
    v = view(s.state, s.state.to_act)
    assert a.act(v) == own.act(v) and a.name == own.name
