"""Does a recorded game follow from its moves? Replaying a results line before it is counted.

A results line names its card seed and every action, so the engine can play
it again: the deals it records (winner, game points, reason, scores), its
winner, match score and match value must be what the replay gives, and
every action must be legal where it was played. :func:`outcome_problem` says
why a line is not (a forged or hand-edited result, or another engine
version), so a resumed run plays that game again instead of counting a
result its own moves contradict. A forfeit's reason cannot be replayed; its
loser must be the winner's opponent and the deals before it must be right.

A four-player line (a run with ``players_per_game`` 4) is checked the same
way through the partnership game's env (:mod:`sixtysix_env.aec_four`): its
deals' winners are teams, and a forfeit loses for the forfeiting seat's team.
"""

from __future__ import annotations

from typing import Any

from agents.play import deal_entry, make_env
from agents.record import GameRecord
from sixtysix_env.variants import Rules


def outcome_problem(line: dict[str, Any], rules: Rules, env: Any = None) -> str | None:
    """Why the well-formed game ``line`` (:func:`~agents.arena.lines.game_problem` is None) does not
    follow from its seed and actions under ``rules`` (a four-player line: under docs/rules-four.md),
    or None. ``env``: a reusable :func:`make_env` of the line's unit, table and rules."""
    if not line["actions"] and line.get("moves", 0):
        return "its moves were not recorded, so its result cannot be checked"
    table = len(line["seats"])
    if env is None:
        env = make_env(line["unit"], 4) if table == 4 else make_env(line["unit"], rules=rules)
    env.reset(seed=line["seed"])
    raw = env.unwrapped
    blank = ("",) * table, (0,) * table
    rec = GameRecord(line["seed"], line["unit"], *blank)
    for n, a in enumerate(line["actions"], start=1):
        name = raw.agent_selection
        if raw.terminations[name] or raw.truncations[name]:
            return f"action {n} comes after the game ended"
        if not raw.view(name).legal_mask >> a & 1:
            return f"action {n} ({a}) is illegal there"
        before = raw.game_state
        env.step(a)
        if (entry := deal_entry(raw, before)) is not None:
            rec.deals.append(entry)
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
        value = int(getattr(raw.game_state, "match_value", 1)) if line["unit"] == "match" else 1
        expected = [(rec.winner, list(rec.match_score), value)]
    else:
        finished = GameRecord(line["seed"], line["unit"], *blank, deals=rec.deals)
        if over:  # a forfeit after the last move (a bot's game_end hook) keeps the finished score
            finished.finish(scores)
        rec.lose_by_forfeit(f["seat"], f["reason"], "", scores)
        expected = [(rec.winner, list(rec.match_score), 1), (rec.winner, list(finished.match_score), 1)]
    if (line["winner"], line["match_score"], line.get("match_value", 1)) not in expected:
        return "its winner or score is not what its moves give"
    return None
