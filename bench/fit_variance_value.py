"""Fit the weights of :func:`agents.evaluation.values.heuristic_value` on self-play.

Plays deals between pairs of built-in bots, records the features of every
state where someone decides, and fits one least-squares weight vector per
talon stage to the deal's final result (game points for seat 0). Prints
the ``WEIGHTS`` dict to paste into agents/evaluation/values.py. The fit only
changes how much variance the corrections remove, never their mean: any
weights keep the estimator unbiased.

    PYTHONPATH=. python bench/fit_variance_value.py --deals 3000
"""

from __future__ import annotations

import argparse
import itertools
from collections import defaultdict

import numpy as np

from agents.arena.argtypes import non_negative_number, positive_int
from agents.evaluation.values import FEATURES, features, stage, terminal_value
from agents.play import play_deal
from agents.registry import make_agent
from sixtysix_env.deals import deal
from sixtysix_env.seeding import derive_seed

BOTS = ("random", "heuristic", "pimc:worlds=4", "ppo")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=3000,
                    help="deals in all, spread over the bot pairs")
    ap.add_argument("--ridge", type=non_negative_number, default=1.0,
                    help="ridge penalty (keeps rare stages sane)")
    args = ap.parse_args()
    pairs = list(itertools.product(BOTS, repeat=2))
    bots = {spec: make_agent(spec, seed=derive_seed("fit", spec)) for spec in BOTS}
    rows: dict[str, list[tuple[list[float], int]]] = defaultdict(list)
    for k in range(args.deals):
        a, b = pairs[k % len(pairs)]
        seen: list[tuple[str, list[float]]] = []

        def hook(state, v, seen=seen):  # noqa: ANN001, ANN202 - play_deal's hook
            seen.append((stage(state), features(state)))

        state = play_deal(deal(derive_seed("fit", k)), [bots[a], bots[b]], hook)
        r = terminal_value(state)
        for st, f in seen:
            rows[st].append((f, r))
    weights = {}
    for st in sorted(rows):
        x = np.array([f for f, _ in rows[st]])
        y = np.array([r for _, r in rows[st]])
        w = np.linalg.solve(x.T @ x + args.ridge * np.eye(len(FEATURES)), x.T @ y)
        resid = y - x @ w
        print(f"# {st}: {len(y)} states, SD of result {y.std():.3f}, residual SD {resid.std():.3f}")
        weights[st] = tuple(round(float(v), 4) for v in w)
    print("WEIGHTS: dict[str, tuple[float, ...]] = {")
    for st, w in weights.items():
        print(f"    {st!r}: {w},")
    print("}")


if __name__ == "__main__":
    main()
