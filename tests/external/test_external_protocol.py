"""The external-bot protocol: its schemas, its messages, and that a request never leaks."""

from __future__ import annotations

import inspect
import json
import random
import re
from dataclasses import fields

import pytest
from external_helpers import ROOT, SCHEMAS, SUPPORTED, check, errors, load_schema
from helpers import resampled_deal

from agents import external
from agents.play import GameRecord, play_game
from agents.protocol.messages import (
    PROTOCOL_MINOR,
    PROTOCOL_VERSION,
    BotIllegalAction,
    BotMalformed,
    BotProtocolError,
    deal_end_message,
    decode,
    encode,
    hello_message,
    match_end_message,
    new_match_message,
    parse_action,
    parse_hello,
    quit_message,
    request_message,
    view_message,
)
from agents.protocol.views import four_view_message, rules_message
from agents.random_agent import RandomAgent
from sixtysix_env.actions import ACTION_NAMES, DECLARE
from sixtysix_env.cards import CARD_NAMES, cards_of
from sixtysix_env.deals import deal, fixed_deal
from sixtysix_env.engine import OVER, WINDOW_NAMES
from sixtysix_env.four import FOUR, FourRules
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import FourView, resample_four, view_four
from sixtysix_env.knowledge import _FIELDS, PlayerView, resample, view
from sixtysix_env.scoring import REASONS
from sixtysix_env.variants import PRESETS, Rules, rules_from_spec

SCHEMA_NAMES = sorted(p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json"))


def random_states(n_deals: int, seed: int) -> list:
    """Every state of ``n_deals`` random deals (a clone per decision)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_deals):
        s = deal(rng)
        while not s.is_over:
            out.append(s.clone())
            s.apply(rng.choice(s.legal_actions()))
    return out


def random_four_states(n_deals: int, seed: int) -> list:
    """Every state of ``n_deals`` random four-player deals (a clone per decision)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_deals):
        s = deal_four(rng)
        while not s.is_over:
            out.append(s.clone())
            s.apply(rng.choice(s.legal_actions()))
    return out


STATES = random_states(40, 1)
FOUR_STATES = random_four_states(12, 2)
ALL_RULES = [*PRESETS.values(), rules_from_spec("german+draw_bonus+double_game"), FOUR]


# ------------------------------------------------------------------ schemas
def test_one_schema_per_message_type():
    assert SCHEMA_NAMES == ["action", "arena_hello", "bot_hello", "deal_end", "match_end", "new_match",
                            "quit", "request"]


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_is_draft_2020_12_in_the_checked_subset(name):
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    used = set()

    def walk(s):
        if isinstance(s, dict):
            used.update(k for k in s if k not in ("properties", "$defs"))
            for k, v in s.items():
                if k in ("properties", "$defs"):
                    for sub in v.values():
                        walk(sub)
                elif isinstance(v, dict | list):
                    walk(v)
        elif isinstance(s, list):
            for v in s:
                walk(v)

    walk(schema)
    assert used <= SUPPORTED, used - SUPPORTED
    try:
        import jsonschema
    except ImportError:
        return
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_enums_are_the_codes_constants():
    """The schemas spell out names the code owns; this keeps the two from drifting apart."""
    req = load_schema("request")
    assert req["$defs"]["card"]["enum"] == list(CARD_NAMES)
    assert req["$defs"]["action"]["properties"]["name"]["enum"] == list(ACTION_NAMES)
    windows = req["$defs"]["view"]["properties"]["window"]["enum"]
    assert windows == [w for w in WINDOW_NAMES if w != "over"]
    assert req["$defs"]["four_view"]["properties"]["window"]["enum"] == ["lead", "follow"]
    rules = load_schema("new_match")["$defs"]
    two = [f.name for f in fields(Rules) if f.compare] + ["spec"]
    assert list(rules["two_player_rules"]["properties"]) == two
    assert list(rules["four_player_rules"]["properties"]) == [f.name for f in fields(FourRules)]
    assert rules["card"] == req["$defs"]["card"] and rules["cards"] == req["$defs"]["cards"]
    assert load_schema("deal_end")["properties"]["reason"]["enum"] == list(REASONS)
    assert load_schema("arena_hello")["properties"]["protocol"]["pattern"] == r"^1\.[0-9]+$"
    assert re.fullmatch(r"1\.[0-9]+", PROTOCOL_VERSION) and PROTOCOL_VERSION == f"1.{PROTOCOL_MINOR}"


def test_the_checker_catches_bad_messages():
    req = request_message(view(STATES[0], STATES[0].to_act), 0, 1000)
    schema = load_schema("request")
    assert errors(req, schema) == []
    assert errors({**req, "extra": 1}, schema)
    assert errors({**req, "view": {**req["view"], "hand": ["XX"]}}, schema)
    assert errors({**req, "legal": []}, schema)
    assert errors({**req, "id": True}, schema)


def test_protocol_md_documents_every_field_and_schema():
    doc = (ROOT / "agents" / "protocol" / "PROTOCOL.md").read_text()
    for name in SCHEMA_NAMES:
        assert f"{name}.schema.json" in doc
        schema = load_schema(name)
        names = set(schema["properties"])
        for part in schema.get("$defs", {}).values():
            names |= set(part.get("properties", ()))
        missing = [f for f in names if f"`{f}`" not in doc]
        assert not missing, (name, missing)


# ----------------------------------------------------------------- messages
def test_every_message_the_arena_sends_matches_its_schema():
    check(hello_message(), "arena_hello")
    check(new_match_message(2**63 - 1, 1, "match", 1000), "new_match")
    check(new_match_message(None, 0, None, 0), "new_match")
    for r in ALL_RULES:
        for seat in range(4 if r is FOUR else 2):
            check(new_match_message(3, seat, "deal", 10, "cpu", r), "new_match")
    for s in FOUR_STATES[::6]:
        check(request_message(view_four(s, s.to_act), 1, 100), "request")
    check(quit_message(), "quit")
    for i, s in enumerate(STATES):
        check(request_message(view(s, s.to_act), i, 250), "request")
    a, b = RandomAgent(), RandomAgent()
    for seed in range(6):
        rec = play_game(a, b, seed=seed)
        for k, d in enumerate(rec.deals):
            check(deal_end_message(k, d), "deal_end")
        check(match_end_message(rec, 0), "match_end")
    forfeit = GameRecord(seed=0, unit="deal", players=("a", "b"), agent_seeds=(0, 0), winner=0,
                         forfeit={"seat": 1, "reason": "timeout", "detail": "no reply"})
    assert match_end_message(forfeit, 1)["forfeit"]["detail"] == "no reply"
    assert match_end_message(forfeit, 0)["forfeit"]["detail"] is None  # not the opponent's business
    check(match_end_message(forfeit, 0), "match_end")
    four = GameRecord(seed=0, unit="match", players=("a", "b", "c", "d"), agent_seeds=(0, 0, 0, 0), winner=0,
                      forfeit={"seat": 3, "reason": "illegal", "detail": "no"})
    check(match_end_message(four, 2), "match_end")
    check(deal_end_message(0, {"winner": 1, "game_points": 4, "reason": "declared", "scores": [70, 20]}),
          "deal_end")  # 3 and a draw bonus


def test_the_game_is_told_by_version():
    """A 1.1 bot gets the 1.1 messages; from 1.2 the game (players, team, rules) and the view's bonus."""
    old = new_match_message(3, 1, "match", 10)
    assert "rules" not in old and "players" not in old and old["target"] == 7
    v = view(STATES[0], 0)
    assert "bonus" not in view_message(v, 1) and view_message(v)["bonus"] == 0
    four = new_match_message(3, 3, "match", 10, "wall", FOUR)
    assert (four["players"], four["team"], four["target"]) == (4, 1, 7)
    one = new_match_message(3, 0, "deal", 10, "wall", PRESETS["schnapsen-pkg"])
    assert (one["players"], one["team"], one["target"]) == (2, None, 1)
    r = one["rules"]
    assert r["name"] == r["spec"] == "schnapsen-pkg" and r["exchange_rank"] == "J" and len(r["deck"]) == 20
    assert "9C" not in r["deck"] and r["declaring"] == "auto" and r["marriage_credit"] == "next_trick"
    assert rules_message(rules_from_spec("german+draw_bonus"))["spec"] == "german+draw_bonus"
    assert json.loads(json.dumps(rules_message(FOUR))) == rules_message(FOUR)
    with pytest.raises(TypeError, match="Rules or FourRules"):
        rules_message("kawu")


def test_four_player_request_fields_mean_what_the_view_says():
    s = FOUR_STATES[3]
    v = view_four(s, s.to_act)
    m = request_message(v, 2, 50)["view"]
    p = s.to_act
    assert (m["seat"], m["team"], m["partner"], m["leader"]) == (p, p % 2, (p + 2) % 4, s.leader)
    assert m["hand"] == [CARD_NAMES[c] for c in cards_of(s.hands[p])]
    assert m["trick"] == [CARD_NAMES[c] for c in s.trick]
    assert m["hand_sizes"] == [h.bit_count() for h in s.hands]
    assert m["scores"] == [s.score(0), s.score(1)] and m["trump_card"] == CARD_NAMES[s.trump_card]
    assert set(m["unseen"]).isdisjoint(m["hand"]) and len(m["played"]) == len(m["known"]) == 4


def test_the_example_replies_match_their_schemas():
    check({"type": "hello", "name": "random-py", "version": "1.0", "protocol": "1.0"}, "bot_hello")
    check({"type": "action", "id": 3, "action": 31, "note": "extra fields are allowed"}, "action")


def test_request_fields_mean_what_the_view_says():
    s = fixed_deal([["AC", "TC", "KC", "QC", "9H", "JH"], ["9C", "JC", "AS", "TS", "KS", "QS"]],
                   ["9S", "JS", "QH", "KH", "TH", "AH", "9D", "JD", "QD", "KD", "TD", "AD"], dealer=1)
    req = request_message(view(s, 0), 7, 500)
    v = req["view"]
    assert (req["id"], req["time_ms"]) == (7, 500)
    assert v["seat"] == 0 and v["window"] == "lead" and v["dealer"] == 1
    assert v["hand"] == ["QC", "KC", "TC", "AC", "9H", "JH"]
    assert (v["trump"], v["trump_card"], v["talon"]) == ("D", "AD", 12)
    assert v["closed_by"] is None and v["lead_card"] is None and v["exchanged_by"] is None
    assert {a["name"] for a in req["legal"]} >= {"play AC", "marriage C", "close"}
    assert all(ACTION_NAMES[a["id"]] == a["name"] for a in req["legal"])
    assert v["opp_hand_size"] == 6 and len(v["unseen"]) == 24 - 6 - 1
    s.play("marriage C", "QC")
    w = request_message(view(s, 1), 8, 500)["view"]
    assert w["window"] == "follow" and w["lead_card"] == "QC" and w["marriages"] == [["C"], []]
    assert w["opp_known"] == ["KC"] and w["played"] == [["QC"], []]


def test_encode_is_one_compact_line_and_decode_checks_it():
    line = encode(request_message(view(STATES[5], STATES[5].to_act), 1, 10))
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and b", " not in line
    assert decode(line.rstrip())["type"] == "request"
    for bad in (b"not json", b"[1, 2]", b'"text"', b"\xff\xfe{", b""):
        with pytest.raises(BotMalformed):
            decode(bad)


def test_parse_hello_and_parse_action_name_each_violation():
    assert parse_hello({"type": "hello", "name": "x", "version": "1", "protocol": "1.7"})["protocol"] == "1.7"
    for bad in ({"type": "hi"}, {"type": "hello", "name": "", "version": "1", "protocol": "1.0"},
                {"type": "hello", "name": "x", "version": "1", "protocol": "2.0"},
                {"type": "hello", "name": "x", "version": "1", "protocol": "1"}):
        with pytest.raises(BotProtocolError):
            parse_hello(bad)
    mask = 1 << 5 | 1 << 31
    assert parse_action({"type": "action", "id": 4, "action": 31}, 4, mask) == 31
    for bad in ({"type": "act", "id": 4, "action": 5}, {"type": "action", "id": 3, "action": 5},
                {"type": "action", "id": 4.0, "action": 5}, {"type": "action", "id": 4, "action": "5"},
                {"type": "action", "id": 4, "action": True}, {"type": "action", "id": 4}):
        with pytest.raises(BotProtocolError):
            parse_action(bad, 4, mask)
    for bad in (6, 32, -1):
        with pytest.raises(BotIllegalAction, match="legal: 5, 31"):
            parse_action({"type": "action", "id": 4, "action": bad}, 4, mask)


# ------------------------------------------------------------------ no leaks
def test_request_reads_nothing_but_the_player_view():
    """The builders touch only PlayerView fields (so nothing else can leak in), and a
    copy holding those fields alone gives the same message."""
    for fn in (view_message, request_message):
        used = set(re.findall(r"\bv\.(\w+)", inspect.getsource(fn)))
        assert used and used <= set(_FIELDS), used - set(_FIELDS)
    used = set(re.findall(r"\bv\.(\w+)", inspect.getsource(four_view_message)))
    assert used and used <= set(FourView.__slots__), used - set(FourView.__slots__)
    for s in STATES[::7]:
        v = view(s, s.to_act)
        bare = PlayerView.__new__(PlayerView)
        for k in _FIELDS:
            setattr(bare, k, getattr(v, k))
        assert request_message(bare, 1, 5) == request_message(v, 1, 5)


def test_no_leak_under_resampling():
    """docs/rules.md section 6: worlds the player cannot tell apart give the same request, byte for byte."""
    rng = random.Random(5)
    for s in STATES[::2]:
        for p in (0, 1):
            msg = encode(request_message(view(s, p), 3, 100) if s.to_act == p else view_message(view(s, p)))
            for _ in range(3):
                r = resample(s, p, rng)
                got = request_message(view(r, p), 3, 100) if s.to_act == p else view_message(view(r, p))
                assert encode(got) == msg


def test_no_four_player_leak_under_resampling():
    """docs/rules-four.md: deals a seat cannot tell apart give it the same request, byte for byte."""
    rng = random.Random(7)
    changed = 0
    for s in FOUR_STATES[::3]:
        for p in range(4):
            msg = encode(request_message(view_four(s, p), 3, 100))
            for _ in range(2):
                r = resample_four(s, p, rng)
                changed += r.hands != s.hands
                assert encode(request_message(view_four(r, p), 3, 100)) == msg
    assert changed > 20


def test_resampling_really_changes_the_hidden_cards():
    """The test above can fail: the resampled worlds differ in what the player cannot see."""
    rng = random.Random(6)
    changed = sum(resample(s, 0, rng).hands[1] != s.hands[1] for s in STATES[:80] if s.stock > 2)
    assert changed > 20


def replay_world(s0, state, p: int, rng: random.Random):
    """The first deal ``s0`` with the cards ``p`` has not seen by ``state`` dealt anew."""
    hands, talon = resampled_deal([cards_of(h) for h in s0.hands], list(s0.talon), state, p, rng)
    return fixed_deal(hands, talon, dealer=s0.dealer)


def test_no_leak_replaying_resampled_deals():
    """Replay the same actions on deals resampled from a player's point of view: every
    request that player would get, all along the deal, is the same."""
    rng = random.Random(3)
    checked = differs = 0
    for _ in range(30):
        s0 = deal(rng)
        s, actions, sent = s0.clone(), [], []
        stop = rng.randrange(4, 30)
        while s.window != OVER and len(actions) < stop:
            sent.append({p: json.dumps(view_message(view(s, p))) for p in (0, 1)})
            a = rng.choice([x for x in s.legal_actions() if x != DECLARE] or [DECLARE])
            s.apply(a)
            actions.append(a)
        if s.window == OVER:
            continue
        for p in (0, 1):
            w = replay_world(s0, s, p, rng)
            differs += w.hands != s0.hands or w.talon != s0.talon
            for t, a in enumerate(actions):
                assert json.dumps(view_message(view(w, p))) == sent[t][p]
                w.apply(a)
            checked += 1
    assert checked >= 20 and differs >= checked // 2


def test_module_docstring_names_the_protocol_file():
    assert "PROTOCOL.md" in external.__doc__
