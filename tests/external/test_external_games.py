"""External bots in every game: the four-player game and rules presets (protocol 1.2), real processes.

A bot that speaks 1.2 is told the game in ``new_match`` and gets the
four-player view at a four-player table; a bot that speaks 1.1 or older
plays two-player German exactly as before and is refused any other game
before it starts, with one line.
"""

from __future__ import annotations

import json
import random
import shlex

import pytest
from external_helpers import FAULTY, NO_NODE, NODE, NODE_BOT, PY_BOT, check

from agents import play
from agents.external import ExternalAgent, make_external
from agents.play import GameRecord, make_env
from agents.protocol.messages import BotVersionError
from agents.protocol.views import rules_message
from agents.random_agent import RandomAgent
from sixtysix_env.four import FOUR
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.variants import PRESETS

V11_VIEW = {"seat", "window", "dealer", "hand", "trump", "trump_card", "talon", "closed_by",
            "closer_opp_tricks", "lead_card", "marriage_suit", "can_declare", "scores", "points", "tricks",
            "played", "won", "marriages", "exchanged_by", "opp_hand_size", "opp_known", "opp_excluded",
            "my_known", "my_excluded", "unseen", "match_scores"}


def faulty(tmp_path, protocol: str = "1.2", **opts: str) -> ExternalAgent:
    """The recording test bot (its lines in ``tmp_path/seen.jsonl``), announcing ``protocol``."""
    words = " ".join(f"{k}={v}" for k, v in {"protocol": protocol, **opts}.items())
    return make_external(f"logs={tmp_path} {shlex.join(FAULTY)} record={tmp_path / 'seen.jsonl'} {words}",
                         seed=1)


def seen(tmp_path) -> list[dict]:
    path = tmp_path / "seen.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def checked(msgs: list[dict]) -> None:
    for m in msgs:
        check(m, "arena_hello" if m["type"] == "hello" else m["type"])


def play_four(bots, seed: int) -> GameRecord:
    """One four-player deal: the arena's referee (agents.play.play_table) where it has one, else a
    small loop over FourState and view_four calling the same hooks."""
    table = getattr(play, "play_table", None)
    if table is not None:
        return table(bots, seed=seed, unit="deal", move_time=5.0)
    rec = GameRecord(seed=seed, unit="deal", players=tuple(b.name for b in bots), agent_seeds=(0,) * 4)
    state = deal_four(random.Random(seed))

    def hook(bot, name, *args):
        fn = getattr(bot, name, None)
        return fn(*args) if fn is not None else None

    seat = 0
    try:
        for seat, bot in enumerate(bots):
            bot.reset(seat)
            hook(bot, "game_rules", state.rules)
            hook(bot, "game_start", seat, "deal", 5.0)
        while not state.is_over:
            seat = state.to_act
            state.apply(bots[seat].act(view_four(state, seat)))
    except Exception as e:  # noqa: BLE001 - the forfeit, as the referee records it
        rec.forfeit = {"seat": seat, "reason": getattr(e, "forfeit_reason", "exception"), "detail": str(e)}
        return rec
    r = state.result
    rec.winner, rec.match_score = r.winner, tuple(state.match_scores)
    rec.deals = [{"winner": r.winner, "game_points": r.game_points, "reason": r.reason,
                  "scores": list(r.scores)}]
    for bot in bots:
        hook(bot, "deal_end", rec.deals[0])
        hook(bot, "game_end", rec)
    return rec


def test_four_external_bots_play_a_four_player_deal(tmp_path):
    """Four processes at one table; the recording one is told players, seat, team and the four-player
    rules, and every line it gets is valid under its schema."""
    bots = [make_external(f"logs={tmp_path} {shlex.join(PY_BOT)}", seed=s) for s in (0, 2, 3)]
    bots.insert(1, faulty(tmp_path))
    try:
        rec = play_four(bots, seed=5)
    finally:
        for b in bots:
            b.close()
    assert rec.forfeit is None and rec.winner in (0, 1) and len(rec.deals) == 1
    msgs = seen(tmp_path)
    kinds = [m["type"] for m in msgs]
    assert kinds[:2] == ["hello", "new_match"] and kinds[-3:] == ["deal_end", "match_end", "quit"]
    new = msgs[1]
    assert (new["players"], new["seat"], new["team"], new["target"]) == (4, 1, 1, 7)
    assert new["rules"] == rules_message(FOUR) and new["rules"]["name"] == "four"
    views = [m["view"] for m in msgs if m["type"] == "request"]
    assert views and [m["type"] for m in msgs].count("request") == len(views)
    assert all(v["seat"] == 1 and v["team"] == 1 and v["partner"] == 3 for v in views)
    assert all(len(v["hand"]) + len(v["played"][1]) == 6 == v["hand_sizes"][1] + len(v["played"][1])
               for v in views)
    assert msgs[-2]["winner"] == rec.winner and msgs[-3]["scores"] == rec.deals[0]["scores"]
    checked(msgs)


def test_a_kawu_game_tells_the_bot_its_rules(tmp_path):
    bot = faulty(tmp_path)
    try:
        rec = play.play_game(bot, RandomAgent(seed=2), seed=3, unit="deal", move_time=5.0,
                             env=make_env("deal", rules="kawu"))
    finally:
        bot.close()
    assert rec.forfeit is None
    msgs = seen(tmp_path)
    new = msgs[1]
    assert new["type"] == "new_match" and (new["players"], new["team"], new["seat"]) == (2, None, 0)
    assert new["rules"] == rules_message(PRESETS["kawu"])
    assert new["rules"]["spec"] == "kawu" and new["rules"]["last_trick_wins"] == 1
    assert new["rules"]["close_before_draw"] is False and len(new["rules"]["deck"]) == 24
    requests = [m for m in msgs if m["type"] == "request"]
    assert requests and all(m["view"]["bonus"] == 0 for m in requests)
    assert not any(m["view"]["window"] == "draw" for m in requests)  # kawu: no draw window
    checked(msgs)


def test_an_old_bot_plays_two_player_german_exactly_as_before(tmp_path):
    """A 1.1 bot gets the 1.1 messages: no players, team or rules, no view field it does not know."""
    bot = faulty(tmp_path, "1.1")
    try:
        rec = play.play_game(bot, RandomAgent(seed=2), seed=3, unit="deal", move_time=5.0)
    finally:
        bot.close()
    assert rec.forfeit is None
    msgs = seen(tmp_path)
    assert set(msgs[1]) == {"type", "seed", "seat", "unit", "target", "time_ms", "clock"}
    assert all(set(m["view"]) == V11_VIEW for m in msgs if m["type"] == "request")
    checked(msgs)


@pytest.mark.parametrize("game", ["four", "kawu"])
def test_an_old_bot_is_refused_other_games_before_they_start(tmp_path, game):
    bot = faulty(tmp_path, "1.1")
    try:
        if game == "four":
            bots = [RandomAgent(seed=0), RandomAgent(seed=1), bot, RandomAgent(seed=3)]
            rec = play_four(bots, seed=1)
            seat, what = 2, "the four-player game"
        else:
            rec = play.play_game(bot, RandomAgent(seed=2), seed=3, unit="deal",
                                 env=make_env("deal", rules="kawu"))
            seat, what = 0, "rules preset 'kawu'"
    finally:
        bot.close()
    f = rec.forfeit
    assert f is not None and (f["seat"], f["reason"]) == (seat, "protocol")
    assert "\n" not in f["detail"] and what in f["detail"] and "protocol '1.1'" in f["detail"]
    assert "needs protocol 1.2" in f["detail"] and rec.moves == 0
    assert {m["type"] for m in seen(tmp_path)} <= {"hello", "quit"}  # never sent new_match


def test_game_rules_refuses_at_once_and_takes_only_rules(tmp_path):
    bot = faulty(tmp_path, "1.0")
    try:
        bot.reset(1)
        with pytest.raises(TypeError, match="game_rules takes a Rules or FourRules, got str"):
            bot.game_rules("kawu")
        with pytest.raises(BotVersionError, match=r"^the bot speaks protocol '1\.0'; the four-player game"):
            bot.game_rules(FOUR)
        with pytest.raises(BotVersionError):  # the fault stays: the game's first act raises it too
            bot.act(view_four(deal_four(random.Random(0)), 0))
    finally:
        bot.close()


def test_act_without_the_hooks_plays_the_views_game(tmp_path):
    """A caller that only calls act (no game_rules, no game_start): new_match tells the view's game."""
    state = deal_four(random.Random(4))
    bot = faulty(tmp_path)
    try:
        seat = state.to_act
        a = bot.act(view_four(state, seat))
        assert state.is_legal(a)
    finally:
        bot.close()
    new = seen(tmp_path)[1]
    assert (new["players"], new["seat"], new["team"], new["rules"]["name"]) == (4, seat, seat & 1, "four")


@pytest.mark.skipif(NODE is None, reason=NO_NODE)
def test_both_example_bots_play_four_players_and_presets(tmp_path):
    py, js = (make_external(f"logs={tmp_path} {shlex.join(argv)}", seed=1) for argv in (PY_BOT, NODE_BOT))
    py2, js2 = (make_external(f"logs={tmp_path} {shlex.join(argv)}", seed=2) for argv in (PY_BOT, NODE_BOT))
    try:
        rec = play_four([py, js, py2, js2], seed=9)
        assert rec.forfeit is None and rec.deals
        for spec in ("schnapsen", "schnapsen-pkg", "german+draw_bonus"):
            rec = play.play_game(js, py, seed=4, unit="deal", move_time=5.0, env=make_env("deal", rules=spec))
            assert rec.forfeit is None and rec.deals, spec
    finally:
        for b in (py, js, py2, js2):
            b.close()
    logs = {b.name: open(b.log_path).read() for b in (py, js)}
    assert "random-js: seat 1 of 4, rules four" in logs[js.name]
    assert "random-py: seat 1 of 2, rules schnapsen-pkg" in logs[py.name]


@pytest.mark.parametrize(("fault", "reason"), [("illegal", "illegal"), ("malformed", "malformed"),
                                               ("wrongid", "protocol"), ("chatty", "protocol")])
def test_hostile_replies_at_a_four_player_table_are_forfeited(tmp_path, fault, reason):
    bot = faulty(tmp_path, fault=fault, at="1")
    bots = [RandomAgent(seed=0), RandomAgent(seed=1), RandomAgent(seed=2), bot]
    try:
        rec = play_four(bots, seed=7)
    finally:
        bot.close()
    f = rec.forfeit
    assert f is not None and (f["seat"], f["reason"]) == (3, reason) and "\n" not in f["detail"]
