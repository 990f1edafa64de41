"""Arena results as JSON Lines: written game by game, resumable, replayable.

A results file is one header line and one line per finished game::

    {"type": "header", "format": "sixtysix-arena/1", "config": {...}}
    {"type": "game", "index": 0, "seed": ..., "seats": [...], "actions": [...], ...}

Each game line is appended and flushed the moment the game ends, so an
interrupted run loses at most the games in flight; :func:`open_results` with
``resume=True`` reads the file back (checking that it belongs to the same run
configuration) and the arena plays only the missing game indices. Game lines
may come in any order (parallel workers); readers order them by index.

A final line cut off mid-write (no newline: the run was killed while
writing) is dropped and trimmed away on resume; any other unreadable line is
a :class:`ResultsFileError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import IO, Any, TextIO

from agents.play import make_env
from sixtysix_env.actions import action_name
from sixtysix_env.cards import names_of
from sixtysix_env.engine import PLAYER_IDS, WINDOW_NAMES

FORMAT = "sixtysix-arena/1"
# Config keys that may differ between a run and its resumption.
MUTABLE_KEYS = frozenset({"games", "workers", "progress"})


class ResultsFileError(ValueError):
    """A results file that is corrupt, foreign to this run, or would be overwritten."""


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=False)


def header_line(config: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "header", "format": FORMAT, "config": dict(config)}


def _parse_lines(path: str) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """(header, game lines, byte length of the well-formed prefix)."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.strip():
        raise ResultsFileError(f"{path}: empty results file (no header line)")
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    good_end = 0
    header: dict[str, Any] | None = None
    games: list[dict[str, Any]] = []
    for lineno, raw in enumerate(lines, start=1):
        is_tail = lineno == len(lines)
        if is_tail and (complete or not raw.strip()):
            break  # the empty string after the final newline
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            if is_tail and header is not None:
                break  # cut off mid-write by a killed run: drop it
            raise ResultsFileError(f"{path}:{lineno}: corrupt results line ({e})") from None
        if header is None:
            if obj.get("type") != "header" or obj.get("format") != FORMAT:
                raise ResultsFileError(
                    f"{path}:1: not a sixtysix arena results file (expected a header line "
                    f"with format {FORMAT!r})"
                )
            header = obj
        else:
            if obj.get("type") != "game" or not isinstance(obj.get("index"), int):
                raise ResultsFileError(f"{path}:{lineno}: corrupt results line (not a game record)")
            games.append(obj)
        good_end += len(raw) + 1
    if header is None:
        raise ResultsFileError(f"{path}: no header line")
    return header, games, min(good_end, len(data))


def read_results(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Header and game records of a results file, games ordered by index.

    Raises :class:`ResultsFileError` for a corrupt file or a game recorded twice.
    """
    header, games, _ = _parse_lines(path)
    return header, _ordered(path, games)


def _ordered(path: str, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_index: dict[int, dict[str, Any]] = {}
    for g in games:
        i = g["index"]
        if i in by_index:
            raise ResultsFileError(f"{path}: game {i} is recorded twice")
        by_index[i] = g
    return [by_index[i] for i in sorted(by_index)]


def config_mismatch(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Keys whose values differ between two run configs (ignoring MUTABLE_KEYS)."""
    keys = (set(old) | set(new)) - MUTABLE_KEYS
    return sorted(k for k in keys if old.get(k) != new.get(k))


class ResultsWriter:
    """Appends game records to a results file, one flushed line each."""

    def __init__(self, f: TextIO | IO[str]) -> None:
        self._f = f

    def write(self, record: Mapping[str, Any]) -> None:
        self._f.write(dumps(record) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_results(
    path: str, config: Mapping[str, Any], resume: bool = False
) -> tuple[list[dict[str, Any]], ResultsWriter]:
    """Start or continue a results file for a run with ``config``.

    Returns the games already recorded (ordered by index; empty for a new
    file) and a writer for new ones. Without ``resume`` an existing non-empty
    file is an error, so finished results are never overwritten by accident.
    With ``resume`` the file's config must match ``config`` (up to
    :data:`MUTABLE_KEYS`); a cut-off last line is trimmed.
    """
    config = json.loads(dumps(config))  # normalise (tuples -> lists) for comparison
    exists = os.path.exists(path) and os.path.getsize(path) > 0
    if exists and not resume:
        raise ResultsFileError(
            f"{path} already holds results; pass resume=True (--resume) to continue that run, "
            "or choose another path"
        )
    if not exists:
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        f = open(path, "w", encoding="utf-8")
        writer = ResultsWriter(f)
        writer.write(header_line(config))
        return [], writer
    header, games, good_end = _parse_lines(path)
    diff = config_mismatch(header.get("config", {}), config)
    if diff:
        details = "; ".join(
            f"{k}: file has {header.get('config', {}).get(k)!r}, this run {config.get(k)!r}" for k in diff
        )
        raise ResultsFileError(f"{path} belongs to a different run configuration ({details})")
    ordered = _ordered(path, games)
    with open(path, "r+b") as fb:
        fb.truncate(good_end)
    return ordered, ResultsWriter(open(path, "a", encoding="utf-8"))


def iter_games(path: str) -> Iterator[dict[str, Any]]:
    """Game records of a results file, ordered by index."""
    yield from read_results(path)[1]


def find_game(path: str, index: int) -> dict[str, Any]:
    """The record of game ``index`` in a results file (ValueError if absent)."""
    _, games = read_results(path)
    for g in games:
        if g["index"] == index:
            return g
    have = f"{games[0]['index']}..{games[-1]['index']}" if games else "none"
    raise ValueError(f"{path} has no game {index} (recorded game indices: {have}, {len(games)} games)")


def replay(path: str, index: int, board: bool = True) -> Iterator[str]:
    """Re-run game ``index`` of a results file through the env; yield printable lines.

    With ``board`` each decision shows the env's ``ansi`` picture of the table
    (the hand of the player to act); otherwise one line per action. Raises
    ``ValueError`` if the replayed deals differ from the recorded ones (a
    different engine version, or an edited file).
    """
    g = find_game(path, index)
    unit = g["unit"]
    players = g["players"]
    env = make_env(unit, render_mode="ansi")
    env.reset(seed=g["seed"])
    raw = env.unwrapped
    what = "a match to 7" if unit == "match" else "a single deal"
    yield (f"game {index}: {players[0]} (player_0) vs {players[1]} (player_1), {what}, "
           f"seed {g['seed']}")
    deal_no, new_deal, last_k = 0, True, None
    for n, action in enumerate(g["actions"], start=1):
        state = raw.game_state
        if new_deal:
            deal_no += 1
            new_deal = False
            trump = names_of(1 << state.trump_card)[0]
            yield f"--- deal {deal_no}: dealer player_{state.dealer}, face-up trump {trump}"
        p = state.to_act
        if env.terminations[PLAYER_IDS[p]]:
            raise ValueError(f"game {index}: the recorded actions go on after the game ended")
        if board:
            yield env.render()
            yield f">>> player_{p} ({players[p]}): {action_name(action)}"
            yield ""
        else:
            hand = " ".join(names_of(state.hands[p]))
            yield (f"{n:4d}. player_{p} ({players[p]}) [{WINDOW_NAMES[state.window]}] hand {hand}: "
                   f"{action_name(action)}")
        env.step(action)
        info = raw.infos["player_0"]
        k = info.get("deal") if info else None
        if k is not None and k != last_k:
            last_k, new_deal = k, True
            yield _deal_line(deal_no, info)
            recorded = g["deals"][deal_no - 1] if deal_no <= len(g["deals"]) else None
            replayed = info["deal_result"]
            if recorded is None or (recorded["reason"], recorded["game_points"]) != (
                replayed["reason"], replayed["game_points"]
            ):
                raise ValueError(
                    f"game {index}: replay of deal {deal_no} differs from the record "
                    f"(replayed {replayed}, recorded {recorded})"
                )
    if g["forfeit"]:
        f = g["forfeit"]
        yield (f"forfeit: player_{f['seat']} ({players[f['seat']]}) loses by {f['reason']}: "
               f"{f['detail']}")
    if g["winner"] is None:
        yield "result: drawn deal"
    else:
        w = g["winner"]
        yield (f"result: player_{w} ({players[w]}) wins, "
               f"{g['match_score'][0]}:{g['match_score'][1]}")


def _deal_line(deal_no: int, info: dict[str, Any]) -> str:
    r = info["deal_result"]
    who = "drawn, nobody scores" if r["winner"] is None else f"{r['winner']} wins {r['game_points']}"
    sc = r["scores"]
    ms = info["match_score"]
    return (f"=== deal {deal_no} over: {who} ({r['reason']}), deal scores "
            f"{sc['player_0']}:{sc['player_1']}, match {ms['player_0']}:{ms['player_1']}")
