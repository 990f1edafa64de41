"""Does a recorded game follow from its moves? Replaying a results line before it is counted.

A results line names its card seed and every action, so the engine can play
it again: the deals it records (winner, game points, reason, scores), its
winner, match score and match value must be what the replay gives, and
every action must be legal where it was played. :func:`outcome_problem` says
why a line is not (a forged or hand-edited result, or another engine
version), so a resumed run plays that game again instead of counting a
result its own moves contradict. A forfeit's reason cannot be replayed; its
loser must be the winner's opponent and the deals before it must be right.

A four-player team line (:mod:`.teams`) is checked the same way by
:func:`team_line_problem`: its card seed and dealer must be the run's
(derived from the master seed), and each of its two plays must replay,
action by action, through :mod:`sixtysix_env.four` to the recorded winner
and game points. Team matches have no forfeits (their bots run in-process,
without time limits), so every play ends by the rules.
"""

from __future__ import annotations

from typing import Any

from agents.four.match import deal_of, deal_seed, dealer_of, side_of_a
from agents.play import make_env
from agents.record import GameRecord, deal_dict
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.four import FourState
from sixtysix_env.variants import Rules

from .schedule import derive

MAX_DEAL_ACTIONS = 64  # one four-player deal: 24 cards, a marriage per seat and a declaration, with room
MAX_TEAM_SEED = 1 << 64  # card seeds are 63-bit derivations


def outcome_problem(line: dict[str, Any], rules: Rules, env: Any = None) -> str | None:
    """Why the well-formed game ``line`` (:func:`~agents.arena.lines.game_problem` is None) does not
    follow from its seed and actions under ``rules``, or None. ``env``: a reusable :func:`make_env`
    of the line's unit and rules."""
    if not line["actions"] and line.get("moves", 0):
        return "its moves were not recorded, so its result cannot be checked"
    env = env if env is not None else make_env(line["unit"], rules=rules)
    env.reset(seed=line["seed"])
    raw = env.unwrapped
    rec = GameRecord(line["seed"], line["unit"], ("", ""), (0, 0))
    for n, a in enumerate(line["actions"], start=1):
        name = raw.agent_selection
        if raw.terminations[name] or raw.truncations[name]:
            return f"action {n} comes after the game ended"
        if not raw.view(name).legal_mask >> a & 1:
            return f"action {n} ({a}) is illegal there"
        env.step(a)
        if raw.infos["player_0"]["deal_over"]:
            rec.deals.append(deal_dict(raw.last_deal_result))
    name = raw.agent_selection
    over = raw.terminations[name] or raw.truncations[name]
    if rec.deals != line["deals"]:
        return "its deals are not what its moves give"
    scores = raw.game_state.match_scores
    f = line["forfeit"]
    if f is None:
        if not over:
            return "the game is not over after its moves, and nobody forfeited"
        rec.finish(scores)
        value = int(raw.game_state.match_value) if line["unit"] == "match" else 1
        expected = [(rec.winner, list(rec.match_score), value)]
    else:
        finished = GameRecord(line["seed"], line["unit"], ("", ""), (0, 0), deals=rec.deals)
        if over:  # a forfeit after the last move (a bot's game_end hook) keeps the finished score
            finished.finish(scores)
        rec.lose_by_forfeit(f["seat"], f["reason"], "", scores)
        expected = [(rec.winner, list(rec.match_score), 1), (rec.winner, list(finished.match_score), 1)]
    if (line["winner"], line["match_score"], line.get("match_value", 1)) not in expected:
        return "its winner or score is not what its moves give"
    return None


def team_line_problem(line: dict[str, Any], master: int) -> str | None:
    """Why the well-formed team line ``line`` (:func:`~agents.arena.lines.team_problem` is None) is
    not a deal of the run with master seed ``master`` that follows from its moves, or None."""
    if "actions" not in line or "seed" not in line:
        return "has no recorded seed and moves, so its result cannot be checked"
    if (why := _team_shape_problem(line)) is not None:
        return f"is malformed ({why})"
    k = line["index"]
    if (line["seed"], line["dealer"]) != (deal_seed(master, k, derive), dealer_of(k)):
        return "does not match this run's schedule (its card seed or dealer differ)"
    if (why := team_outcome_problem(line)) is not None:
        return f"does not follow from its moves ({why})"
    return None


def _team_shape_problem(line: dict[str, Any]) -> str | None:
    """Why a team line's seed, dealer or actions are not of the types a replay needs, or None."""
    seed, dealer, plays = line.get("seed"), line.get("dealer"), line.get("actions")
    if type(seed) is not int or not 0 <= seed < MAX_TEAM_SEED:
        return "'seed' is not a card seed"
    if type(dealer) is not int or dealer not in range(4):
        return "'dealer' is not a seat"
    if not (isinstance(plays, list) and len(plays) == 2 and all(
            isinstance(p, list) and len(p) <= MAX_DEAL_ACTIONS
            and all(type(a) is int and 0 <= a < N_ACTIONS for a in p) for p in plays)):
        return "'actions' is not two lists of action ids"
    return None


def team_outcome_problem(line: dict[str, Any]) -> str | None:
    """Why a team line's two plays do not replay from its seed and dealer to its results, or None."""
    start = deal_of(line["seed"], line["dealer"])
    for swap, (actions, result) in enumerate(zip(line["actions"], line["results"], strict=True)):
        end = replay_deal(start, actions)
        if isinstance(end, str):
            return f"play {swap + 1}: {end}"
        assert end.result is not None
        if [side_of_a(end.result.winner, swap), end.result.game_points] != result:
            return f"play {swap + 1}: its winner or game points are not what its moves give"
    return None


def replay_deal(start: FourState, actions: list[int]) -> FourState | str:
    """``start`` (not changed) played on with ``actions`` to the deal's end, or why it cannot be."""
    s = start.clone()
    for n, a in enumerate(actions, start=1):
        if s.is_over:
            return f"action {n} comes after the deal ended"
        if not s.legal_mask() >> a & 1:
            return f"action {n} ({a}) is illegal there"
        s.apply(a)
    return s if s.is_over else "the deal is not over after its moves"
