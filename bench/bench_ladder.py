"""Strength of the bot ladder: whole matches to 7, duplicate seats, Wilson intervals.

Each pairing plays ``--matches`` match seeds twice, once with each bot in
seat 0 (duplicate: the same first deal with the seats swapped; later deals
follow from the same RNG seed). Prints match win rates with 95% Wilson
intervals and the mean game points per deal (A minus B) with a normal 95%
interval.

    .venv/bin/python bench/bench_ladder.py heuristic random --matches 100
    .venv/bin/python bench/bench_ladder.py --ladder --matches 50
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import make_agent  # noqa: E402
from agents.base import Agent  # noqa: E402
from sixtysix_env.engine import deal, next_deal  # noqa: E402
from sixtysix_env.knowledge import view  # noqa: E402


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (draws counted as half)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (centre - half, centre + half)


def play_match(agents: tuple[Agent, Agent], seed: int, max_deals: int = 200) -> tuple[int, list[int]]:
    """Play a match to 7; return the winner's seat and each deal's points for seat 0 (signed)."""
    rng = random.Random(seed)
    for i, a in enumerate(agents):
        a.reset(seed * 2 + i)
    state = deal(rng)
    per_deal: list[int] = []
    for _ in range(max_deals):
        while not state.is_over:
            p = state.to_act
            agent = agents[p]
            if getattr(agent, "requires_state", False):
                action = agent.act(view(state, p), state=state)  # type: ignore[call-arg]
            else:
                action = agent.act(view(state, p))
            state.apply(action)
        res = state.result
        assert res is not None
        signed = res.game_points if res.winner == 0 else -res.game_points
        per_deal.append(0 if res.winner is None else signed)
        if state.match_over:
            return (0 if state.match_scores[0] >= 7 else 1), per_deal
        state = next_deal(state, rng)
    raise RuntimeError("match did not end")


def duel(spec_a: str, spec_b: str, matches: int, seed: int = 0) -> dict:
    """``matches`` seeds x 2 seatings of A against B."""
    a, b = make_agent(spec_a, seed=1), make_agent(spec_b, seed=2)
    wins = 0
    points: list[int] = []
    start = time.perf_counter()
    for m in range(matches):
        s = seed * 100_000 + m
        w, pd = play_match((a, b), s)
        wins += w == 0
        points += pd
        w, pd = play_match((b, a), s)
        wins += w == 1
        points += [-x for x in pd]
    n = 2 * matches
    mean = sum(points) / len(points)
    sd = math.sqrt(sum((x - mean) ** 2 for x in points) / max(1, len(points) - 1))
    return {
        "a": spec_a,
        "b": spec_b,
        "matches": n,
        "wins": wins,
        "rate": wins / n,
        "ci": wilson(wins, n),
        "deals": len(points),
        "gp_per_deal": mean,
        "gp_ci": 1.96 * sd / math.sqrt(len(points)),
        "seconds": time.perf_counter() - start,
    }


def report(r: dict) -> str:
    lo, hi = r["ci"]
    return (
        f"{r['a']:>22} vs {r['b']:<22} matches {r['matches']:4d}  A wins {r['rate']:.3f} "
        f"[{lo:.3f}, {hi:.3f}]  gp/deal {r['gp_per_deal']:+.3f} +- {r['gp_ci']:.3f} "
        f"({r['deals']} deals, {r['seconds']:.0f} s)"
    )


LADDER = (("heuristic", "random"), ("pimc", "heuristic"), ("ismcts", "pimc"), ("ismcts", "heuristic"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", nargs="?", help="agent spec A, e.g. pimc:worlds=30")
    ap.add_argument("b", nargs="?", help="agent spec B")
    ap.add_argument("--matches", type=int, default=50, help="match seeds (each played in both seatings)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ladder", action="store_true", help="run the standard ladder pairings")
    args = ap.parse_args(argv)
    pairs = list(LADDER) if args.ladder else [(args.a, args.b)]
    if not args.ladder and (args.a is None or args.b is None):
        ap.error("give two agent specs or --ladder")
    for a, b in pairs:
        print(report(duel(a, b, args.matches, args.seed)), flush=True)


if __name__ == "__main__":
    main()
