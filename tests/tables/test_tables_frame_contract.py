"""The table frame's contract: the frames the server sends match the TypedDicts of
``tables/frame.py`` (and ``tables/viewer.py``), and every key the browser's scripts read
is declared there."""

from __future__ import annotations

import random
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from tables.four_frame import FourFrame
from tables.frame import DealFrame, Event, Frame, GameInfo, GameSummary, Move, Side
from tables.record_line import checked_line
from tables.session import Session
from tables.viewer import ViewerFrame, replay_frames

STATIC = Path(__file__).resolve().parents[2] / "tables" / "static"
# The names each script gives its typed values (the scripts' header comments say so).
READERS = {
    "table.js": {"f": Frame, "P.state": Frame, "res.state": Frame, "m": Move, "side": Side,
                 "result": DealFrame, "ev": Event, "g": GameInfo, "P.game": GameInfo},
    "viewer.js": {"f": ViewerFrame},
    "four.js": {"f": FourFrame, "side": Side, "g": GameInfo},
}


def keys(td: Any) -> tuple[set[str], set[str]]:
    """(all keys, required keys) of a TypedDict."""
    return set(get_type_hints(td)), set(td.__required_keys__)


def inner(tp: Any) -> Any:
    """The TypedDict behind ``tp`` (through Optional), else None (a list, a str: the script
    reads JavaScript's own properties of it, such as ``.length``)."""
    if is_typeddict(tp):
        return tp
    if get_origin(tp) in (typing.Union, types.UnionType):
        for arg in get_args(tp):
            found = inner(arg)
            if found is not None:
                return found
    return None


def check(value: Any, tp: Any, where: str) -> None:
    """``value`` has the type ``tp`` (a TypedDict checked key by key)."""
    origin = get_origin(tp)
    if is_typeddict(tp):
        assert isinstance(value, dict), where
        every, required = keys(tp)
        assert required <= set(value) <= every, f"{where}: keys {sorted(set(value) ^ every)} ({tp.__name__})"
        hints = get_type_hints(tp)
        for k, v in value.items():
            check(v, hints[k], f"{where}.{k}")
    elif origin in (typing.Union, types.UnionType):
        errors = []
        for arg in get_args(tp):
            try:
                return check(value, arg, where)
            except AssertionError as e:
                errors.append(str(e))
        raise AssertionError(f"{where}: {value!r} is none of {tp}: {errors}")
    elif origin is list:
        assert isinstance(value, list), where
        for i, v in enumerate(value):
            check(v, get_args(tp)[0], f"{where}[{i}]")
    elif origin is dict:
        assert isinstance(value, dict), where
        for k, v in value.items():
            check(k, get_args(tp)[0], where)
            check(v, get_args(tp)[1], f"{where}[{k!r}]")
    elif tp is type(None):
        assert value is None, where
    elif tp is Any:
        return None
    else:
        assert isinstance(value, tp), f"{where}: {value!r} not {tp}"
        assert not (tp is int and isinstance(value, bool)), f"{where}: {value!r} not {tp}"
    return None


def test_every_frame_of_a_game_matches_the_typed_frame():
    rng = random.Random(1)
    for seat in (0, 1):
        s = Session("random", seed=11 + seat, seat=seat)
        frames = list(s.frames)
        while not s.over:
            if s.bot_to_act:
                frames += s.bot_move()
            else:
                frames += s.play(rng.choice(s.legal_moves())["action"])
        check(s.summary(), GameSummary, "summary")
        assert any(f["deal_result"] for f in frames) and any(f["last_trick"] for f in frames)
        for i, f in enumerate(frames):
            check(f, Frame, f"frame {i}")
        check(s.summary(), GameSummary, "the summary at the end")
        line = s.game_line(index=0, cluster=0)
        for i, f in enumerate(replay_frames(checked_line(line))["frames"]):
            check(f, ViewerFrame, f"viewer frame {i}")


def test_a_resigned_game_and_the_api_replies_match_the_types(start_server):
    s = Session("random", seed=5, seat=None)
    s.resign()
    check(s.summary(), GameSummary, "summary after a resignation")
    assert s.summary()["forfeit"] is not None
    httpx = pytest.importorskip("httpx")
    from tables_api import play_match

    base, _ = start_server()
    with httpx.Client(base_url=base, timeout=60) as c:
        first = c.post("/api/games", json={"vs": "random", "seed": 2}).json()
        check(first["game"], GameInfo, "game")
        for i, f in enumerate([first["state"], *first["frames"]]):
            check(f, Frame, f"frame {i}")
        last = play_match(c, seed=3, episode="deal", pokes=False)
        check(last["game"], GameInfo, "game at the end")
        check(last["state"], Frame, "the last frame")


def reads(script: str, name: str) -> list[list[str]]:
    """Every chain of keys the script reads from the variable ``name``: ``f.trick.cards`` ->
    ``["trick", "cards"]``."""
    code = (STATIC / script).read_text()
    found = re.findall(rf"(?<![\w.$]){re.escape(name)}(?:\.\w+)+", code)
    return [chain[len(name) + 1:].split(".") for chain in found]


def test_every_key_the_scripts_read_is_declared():
    js_props = {"length", "map", "filter", "some", "find", "forEach", "slice", "replace", "join", "includes"}
    for script, names in READERS.items():
        for name, td in names.items():
            chains = reads(script, name)
            assert chains, f"{script} never reads {name}: the map in this test is stale"
            for chain in chains:
                tp: Any = td
                for k in chain:
                    if tp is None:
                        assert k in js_props, f"{script}: {name}.{'.'.join(chain)} reads into a non-dict"
                        break
                    every, _ = keys(tp)
                    path = f"{script}: {name}.{'.'.join(chain)}"
                    assert k in every, f"{path}: {k!r} is not a key of {tp.__name__}"
                    tp = inner(get_type_hints(tp)[k])


def test_the_reader_check_catches_an_undeclared_key(tmp_path, monkeypatch):
    """The check above can fail: a script that reads a key the frame lacks is caught."""
    (tmp_path / "table.js").write_text("const x = f.trick.cards.length + f.no_such_key;")
    monkeypatch.setattr(sys.modules[__name__], "STATIC", tmp_path)
    monkeypatch.setitem(READERS, "table.js", {"f": Frame})
    monkeypatch.delitem(READERS, "viewer.js")
    with pytest.raises(AssertionError, match="no_such_key"):
        test_every_key_the_scripts_read_is_declared()
