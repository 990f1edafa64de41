"""A quick duplicate team match of two four-player bots, through the referee.

    duplicate(["search", "heuristic"], deals=100, seed=0)

Each deal is played twice from the same cards (the env's ``reset(seed)``),
the second time with the teams swapped (team A in seats 0 and 2, then in 1
and 3), every seat with its own bot, by :func:`agents.play.play_table`. For
measured runs (workers, time limits, forfeits, results files, resume,
SPRT) use the arena: ``sixtysix arena --players 4 A B`` or
``head_to_head(a, b, players_per_game=4, ...)`` (docs/arena.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from sixtysix_env.seeding import derive_seed

from ..play import make_env, play_table
from . import make_four_agent


def duplicate(teams: Sequence[str], deals: int, seed: int = 0) -> tuple[int, int]:
    """Game points won by team A (``teams[0]``) and team B (``teams[1]``) over
    ``deals`` deals, each played with A in seats 0/2 and again in seats 1/3."""
    if len(teams) != 2:
        raise ValueError(f"a team match needs two bot specs, got {list(teams)!r}")
    a, b = teams
    env = make_env("deal", 4)
    totals = [0, 0]
    for k in range(deals):
        card_seed = derive_seed(seed, "four-deal", k)
        for swap in (0, 1):
            specs = [b, a, b, a] if swap else [a, b, a, b]
            bots = [make_four_agent(spec) for spec in specs]
            seeds = [derive_seed(seed, "four-agent", k, swap, s) for s in range(4)]
            rec = play_table(bots, card_seed, "deal", agent_seeds=seeds, env=env)
            if rec.forfeit is not None:
                raise RuntimeError(f"deal {k}: {rec.forfeit['detail']}")
            for d in rec.deals:
                if d["winner"] is not None:
                    totals[d["winner"] ^ swap] += d["game_points"]
    return totals[0], totals[1]


__all__ = ["duplicate"]
