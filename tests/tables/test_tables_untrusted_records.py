"""Records and hints a client can steer never break a reply: every game line the viewer reads is
checked field by field where it enters (NaN, deep nesting, unknown keys, huge names), and hint
values are finite even when a search was cut short by a tiny ``move_time``."""

from __future__ import annotations

import json
import math
import random

import pytest

from tables.record_line import MAX_NAME, RecordError, checked_line
from tables.session import Session

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")

HEADER = json.dumps({"type": "header", "format": "sixtysix-arena/1", "config": {}})


def finished_line(seed: int = 3, resign: bool = False) -> dict:
    """A real game line: one deal played with random moves (or resigned at once)."""
    s = Session("random", seed=seed, episode="deal")
    rng = random.Random(seed)
    if resign:
        s.resign()
    while not s.over:
        if s.bot_to_act:
            s.bot_move()
        else:
            s.play(rng.choice(s.legal_moves())["action"])
    return s.game_line(index=0, cluster=0)


def upload(c: httpx.Client, *lines: str, game: int | None = None) -> httpx.Response:
    body: dict = {"jsonl": HEADER + "\n" + "".join(line + "\n" for line in lines)}
    if game is not None:
        body["game"] = game
    return c.post("/api/replay", json=body)


def test_a_checked_line_keeps_only_typed_finite_fields():
    line = finished_line(resign=True)
    out = checked_line({**line, "cpu": {"wall": 1.0}, "x": [[1]],
                        "forfeit": {**line["forfeit"], "extra": float("inf")},
                        "players": ["p" * 10_000, "bot"]})
    assert "cpu" not in out and "x" not in out and set(out["forfeit"]) == {"seat", "reason", "detail"}
    assert len(out["players"][0]) == MAX_NAME and out["moves"] == line["moves"]
    json.dumps(out, allow_nan=False)
    deep: object = []
    for _ in range(970):
        deep = [deep]
    for key, bad in [("moves", float("nan")), ("moves", deep), ("moves", True), ("moves", -1),
                     ("seed", 1.5), ("winner", 2), ("players", ["a"]), ("match_score", [0, math.inf]),
                     ("actions", [99]), ("actions", "0,1"), ("deals", [{"reason": 1, "game_points": 1}]),
                     ("forfeit", {"seat": 0}), ("rules", ["german"]), ("index", -1), ("unit", "set"),
                     ("players", ["\ud800", "bot"]),
                     ("forfeit", {"seat": 0, "reason": "r", "detail": "\udfff"})]:
        with pytest.raises(RecordError):
            checked_line({**line, key: bad})
    with pytest.raises(RecordError):
        checked_line([line])


def test_uploaded_lines_with_nan_deep_or_unknown_fields_are_skipped_or_cleaned(start_server):
    """NaN in ``moves`` or in a forfeit's extra key, and ``moves`` nested 970 deep, were each a
    500 (strict JSON could not encode the reply); a long player name was repeated in the text
    of every replayed move."""
    base, _ = start_server()
    line = finished_line()
    deep = json.dumps(line)[:-1] + ', "moves": ' + "[" * 970 + "]" * 970 + "}"
    with httpx.Client(base_url=base, timeout=60) as c:
        for text in (json.dumps({**line, "moves": float("nan")}), deep,
                     json.dumps({**line, "moves": float("inf")}),
                     json.dumps({**line, "players": ["\ud800", "random"]})):  # a lone surrogate: no UTF-8
            r = upload(c, text)
            assert r.status_code == 200 and r.json()["skipped"] == 1 and r.json()["total"] == 0, r.text
            assert upload(c, text, game=0).status_code == 404
        r = upload(c, json.dumps({**finished_line(resign=True), "x": float("nan"), "forfeit": {
            "seat": 0, "reason": "resigned", "detail": "", "y": float("inf"), "z": [[1]]}}), game=0)
        assert r.status_code == 200 and r.json()["game"]["forfeit"] == {
            "seat": 0, "reason": "resigned", "detail": ""}, r.text
        long_name = {**line, "players": ["x" * 200_000, "random"]}
        r = upload(c, json.dumps(long_name), game=0)
        assert r.status_code == 200 and len(r.content) < 200_000, len(r.content)
        assert all(len(f["move"]["text"]) < 400 for f in r.json()["frames"] if f["move"])


def test_a_bad_line_in_the_tables_own_file_is_left_out_of_the_list(start_server):
    """The tables' own file may be shared with other programs: its lines pass the same check."""
    from tables.endpoint import owner_of

    base, data = start_server()
    with httpx.Client(base_url=base, timeout=60) as c:
        r = c.post("/api/games", json={"vs": "random", "hint": "none", "episode": "deal"})
        assert r.status_code == 201
        assert c.post("/api/game/resign", json={}).status_code == 200
        owner = owner_of(c.cookies["sixtysix_session"])
        bad = {**finished_line(resign=True), "index": 1, "owner": owner, "moves": float("nan")}
        with open(f"{data}/games.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(bad) + "\n")
        r = c.get("/api/records")
        assert r.status_code == 200, r.text
        assert [g["index"] for g in r.json()["sources"][0]["games"]] == [0]
        assert c.get("/api/records/mine/1").status_code == 422


# ------------------------------------------------------------------------------- hints
def open_talon_view():
    """A view of the person's with the talon open and several legal moves."""
    s = Session("random", seed=1, seat=0)
    while not (s.human_to_act and s.view.talon_open and bin(s.view.legal_mask).count("1") > 2):
        if s.bot_to_act:
            s.bot_move()
        else:
            s.play(s.legal_moves()[0]["action"])
    return s.view


def test_an_ismcts_hint_cut_short_gives_values_only_for_visited_moves(monkeypatch):
    """``ismcts:move_time=0.01`` left first moves unvisited: the hint divided by 0 visits."""
    from tables.hints import Hinter

    v = open_talon_view()
    hinter = Hinter("ismcts:move_time=0.01", seed=1)
    real = hinter.agent.search_tree

    def cut_short(view, *args):
        root = real(view, *args)
        first = min(root.children)
        for a, ch in root.children.items():
            if a != first:
                ch.visits, ch.reward = 0, 0.0
        return root

    monkeypatch.setattr(hinter.agent, "search_tree", cut_short)
    h = hinter.hint(v)
    assert set(h["values"]) == set(h["visits"]) == {min(h["values"])} and h["action"] in h["values"]

    def none_visited(view, *args):
        root = real(view, *args)
        for ch in root.children.values():
            ch.visits, ch.reward = 0, 0.0
        return root

    monkeypatch.setattr(hinter.agent, "search_tree", none_visited)
    h = hinter.hint(v)
    assert h["values"] == {} and v.legal_mask >> h["action"] & 1


def test_a_hint_leaves_out_values_that_are_not_finite(monkeypatch):
    from tables import hints

    v = open_talon_view()
    hinter = hints.Hinter("pimc:worlds=1", seed=1)
    legal = [a for a in range(32) if v.legal_mask >> a & 1]
    monkeypatch.setitem(hints.HINTS, "pimc", lambda agent, view: {
        "action": legal[0], "kind": "game points", "detail": "",
        "values": {legal[0]: 1.0, legal[1]: float("nan"), legal[2]: float("inf")}})
    h = hinter.hint(v)
    assert h["values"] == {legal[0]: 1.0}
    json.dumps(h, allow_nan=False)


def test_hints_with_the_smallest_budgets_answer(start_server):
    base, _ = start_server()
    with httpx.Client(base_url=base, timeout=60) as c:
        for hint in ("ismcts:move_time=0.01", "guided:move_time=0.01", "pimc:worlds=1,move_time=0.01"):
            r = c.post("/api/games", json={"vs": "random", "hint": hint, "seat": 0, "seed": 1})
            assert r.status_code == 201, r.text
            for _ in range(6):
                g = c.get("/api/game", params={"since": 0, "wait": 5}).json()
                if g["game"]["over"]:
                    break
                if g["state"]["to_act"] == "you":
                    r = c.post("/api/game/hint", json={})
                    assert r.status_code == 200, (hint, r.text)
                    c.post("/api/game/move", json={"action": g["state"]["legal"][0]["action"]})


def test_a_request_body_with_a_lone_surrogate_or_nan_is_a_400():
    """JSON's ``\\ud800`` escape parses to a string no reply can encode (an error message
    quoting it would be a 500), and Python's reader takes ``NaN``, which JSON has not: the
    body is refused where it is parsed."""
    from tables.endpoint import ApiError, parse_json

    for body in (b'{"action": "\\ud800"}', b'{"\\udfff": 1}', b'{"a": [["x\\ud800y"]]}', b'{"seed": NaN}',
                 b'{"a": [-Infinity]}', b'{"game": Infinity}', b'{"seed": 1e400}', b'{"a": -1E999}'):
        with pytest.raises(ApiError) as e:
            parse_json(body, "the request body")
        assert e.value.status == 400
    assert parse_json(b'{"a": "\\ud83d\\ude00 \\u00e9"}', "x") == {"a": "\U0001f600 \u00e9"}
    assert parse_json(b'{"a": [1.5, -2e3, 7]}', "x") == {"a": [1.5, -2000.0, 7]}
