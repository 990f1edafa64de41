"""A recorded game played again through the env: the lines ``sixtysix replay`` prints.

:func:`replay` re-runs game ``index`` of a results file (read by
:func:`~agents.arena.records.read_results`) from its seed and recorded
actions, and checks that every deal ends as the file says; a four-player
line (a run with ``players_per_game`` 4) through the partnership game's env,
seat by seat, with its teams.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agents.play import deal_entry, make_env
from sixtysix_env.actions import action_name
from sixtysix_env.cards import names_of
from sixtysix_env.engine import PLAYER_IDS, WINDOW_NAMES
from sixtysix_env.variants import rules_from_spec

from .lines import table_of
from .records import read_results, rules_of


def find_game(path: str, index: int) -> dict[str, Any]:
    """The record of game ``index`` in a results file (ValueError if absent)."""
    return find_game_of(path, index)[1]


def find_game_of(path: str, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The results file's header and the record of its game ``index`` (ValueError if absent)."""
    header, games = read_results(path)
    for g in games:
        if g["index"] == index:
            return header, g
    have = f"{games[0]['index']}..{games[-1]['index']}" if games else "none"
    raise ValueError(f"{path} has no game {index} (recorded game indices: {have}, {len(games)} games)")


def replay(path: str, index: int, board: bool = True) -> Iterator[str]:
    """Re-run game ``index`` of a results file through the env; yield printable lines.

    With ``board`` each decision shows the env's ``ansi`` picture of the table
    (the hand of the player to act); otherwise one line per action. Raises
    ``ValueError`` if the replayed deals differ from the recorded ones (a
    different engine version, or an edited file).
    """
    header, g = find_game_of(path, index)
    if table_of(header["config"]) == 4:
        yield from replay_four(g, index, board)
        return
    unit = g["unit"]
    players = g["players"]
    rules = rules_from_spec(rules_of(header["config"]))  # a file's bad spec: a named rules error
    env = make_env(unit, render_mode="ansi", render_view="all", info_mode="rich",  # a replay is a spectator
                   rules=rules)
    env.reset(seed=g["seed"])
    raw = env.unwrapped
    what = f"a match to {rules.match_target}" if unit == "match" else "a single deal"
    under = "" if rules.spec == "german" else f", rules {rules.spec}"
    yield (f"game {index}: {players[0]} (player_0) vs {players[1]} (player_1), {what}{under}, "
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


def replay_four(g: dict[str, Any], index: int, board: bool = True) -> Iterator[str]:
    """:func:`replay` of a four-player game line (seats 0 and 2 are team 0, seats 1 and 3 team 1)."""
    players, unit = g["players"], g["unit"]
    env = make_env(unit, 4, render_mode="ansi", render_view="all")
    env.reset(seed=g["seed"])
    raw = env.unwrapped
    what = "a match to 7" if unit == "match" else "a single deal"
    yield (f"game {index}: team 0 {players[0]} (player_0, player_2) vs team 1 {players[1]} (player_1, "
           f"player_3), four players, {what}, seed {g['seed']}")
    deals, new_deal = 0, True
    for n, action in enumerate(g["actions"], start=1):
        state = raw.game_state
        if new_deal:
            new_deal = False
            trump = names_of(1 << state.trump_card)[0]
            yield f"--- deal {deals + 1}: dealer player_{state.dealer}, trump card {trump}"
        p = state.to_act
        if raw.terminations[raw.agent_selection]:
            raise ValueError(f"game {index}: the recorded actions go on after the game ended")
        if board:
            yield env.render()
            yield f">>> player_{p} ({players[p]}, team {p % 2}): {action_name(action)}"
            yield ""
        else:
            yield f"{n:4d}. player_{p} ({players[p]}, team {p % 2}): {action_name(action)}"
        env.step(action)
        if (entry := deal_entry(raw, state)) is not None:
            deals, new_deal = deals + 1, True
            recorded = g["deals"][deals - 1] if deals <= len(g["deals"]) else None
            if recorded != entry:
                raise ValueError(f"game {index}: replay of deal {deals} differs from the record "
                                 f"(replayed {entry}, recorded {recorded})")
            who = "drawn, nobody scores" if entry["winner"] is None else \
                f"team {entry['winner']} wins {entry['game_points']}"
            ms = raw.game_state.match_scores
            yield (f"=== deal {deals} over: {who} ({entry['reason']}), deal scores {entry['scores'][0]}:"
                   f"{entry['scores'][1]}, match {ms[0]}:{ms[1]}")
    if g["forfeit"]:
        f = g["forfeit"]
        yield (f"forfeit: player_{f['seat']} ({players[f['seat']]}) loses for team {f['seat'] % 2} by "
               f"{f['reason']}: {f['detail']}")
    if g["winner"] is None:
        yield "result: drawn deal"
    else:
        w = g["winner"]
        yield f"result: team {w} ({players[w]}) wins, {g['match_score'][0]}:{g['match_score'][1]}"
