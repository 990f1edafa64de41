"""Which value function narrows the duplicate interval most: several estimators on the same games.

Plays ``--pairs`` duplicate pairs (the arena's schedule, unit ``--unit``) of
each pairing once, keeps the game lines, then corrects the same lines with
every configuration of ``--configs`` (``VALUE[:draws=M][:sample=K][:move=NAME]``:
a value function of :mod:`agents.evaluation.values`; ``draws=M`` takes each
draw's expectation from M sampled draws instead of all of them, for costly
values; ``sample=K`` asks pimc bots K times again per decision; ``move=NAME``
values the decision terms, ``rollout-true`` reading the true talon order,
``own=P`` P playouts of copies of the measured bots from the true state);
VALUE ``own=P``: P playouts of copies of the measured bots, the face-down
cards shuffled (a fair value for the chance terms). For each
pairing and configuration it prints the points-per-deal mean of the first
bot (the arena's cluster ratio), plain and corrected (AIVAT weight 1, and
cross-fitted weights on the luck terms, per pairing), the ratio of plain to
corrected SD of the clusters' linearized ratio residuals (the width ratio of
the intervals) with a bootstrap 95% interval over clusters (the plain SD is
per duplicate pair, with the pair's mean deal count: times sqrt(count / 2)
it compares with the unit "deal" figure at equal deals), the z-score of
corrected minus plain, and the milliseconds of correction per deal.

    PYTHONPATH=. python bench/bench_variance_values.py --pairs 100 --configs solver,rollout:draws=4
    PYTHONPATH=. python bench/bench_variance_values.py --lines /tmp/lines.json ...  # reuse played games
    PYTHONPATH=. python bench/bench_variance_values.py --pairs 40 --reseed 4   # the bots' own share

``--reseed R`` plays each pair's cards R times with the bots reseeded and
prints the variance of the pair's result, total and given the cards (the
bots' own randomness, which no chance term can see directly).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time

import numpy as np

from agents.arena.argtypes import count_or_zero, positive_int
from agents.arena.inputs import MAX_RESULTS_BYTES, read_regular
from agents.arena.outputs import path_problem
from agents.arena.schedule import schedule
from agents.evaluation.aivat import expected_after_draw, sampled_expectation
from agents.evaluation.games import check_correctable, game_points, policy_of, sampler_of
from agents.evaluation.regression import cross_fitted
from agents.evaluation.values import RolloutValue, hand_basis, make_value
from agents.play import play_game
from agents.registry import make_agent

PAIRINGS = ("heuristic/pimc:worlds=4", "heuristic/random", "pimc:worlds=4/ismcts:iterations=30",
            "pimc:worlds=4/pimc:worlds=4", "heuristic/ppo")
BOOT = 2000


def play(a: str, b: str, pairs: int, seed: int, unit: str) -> tuple[list[dict], float]:
    """The game lines of ``pairs`` duplicate pairs of ``a`` v ``b`` (player 0 is ``a``), and play seconds."""
    bots = [make_agent(a), make_agent(b)]
    check_correctable(bots)
    lines = []
    t = time.perf_counter()
    for task in schedule(2, 2 * pairs, seed, duplicate=True):
        rec = play_game(bots[task.seats[0]], bots[task.seats[1]], task.seed, unit,
                        agent_seeds=task.agent_seeds)
        lines.append(rec.to_dict() | {"index": task.index, "seats": list(task.seats)})
    return lines, time.perf_counter() - t


def reseeded(a: str, b: str, pairs: int, seed: int, reps: int) -> str:
    """How much of the duplicate pair's variance is the bots' own randomness: each pair's cards are
    played ``reps`` times with the bots reseeded; returns the total and the within-cards variance."""
    bots = [make_agent(a), make_agent(b)]
    tasks = schedule(2, 2 * pairs, seed, duplicate=True)
    rows = []
    for k in range(pairs):
        vals = []
        for r in range(reps):
            total = 0.0
            for task in tasks[2 * k:2 * k + 2]:
                s0, s1 = task.agent_seeds
                rec = play_game(bots[task.seats[0]], bots[task.seats[1]], task.seed, "deal",
                                agent_seeds=(s0 + 1000 * r, s1 + 1000 * r)).to_dict()
                d = rec["deals"][0]
                sign = 1 if d["winner"] == task.seats.index(0) else -1
                total += 0 if d["winner"] is None else sign * d["game_points"]
            vals.append(total / 2)
        rows.append(vals)
    x = np.asarray(rows)
    return (f"{a} v {b}: variance of the pair's result {x.reshape(-1).var(ddof=1):.3f}, given the cards "
            f"(bots reseeded {reps}x over {pairs} pairs) {x.var(axis=1, ddof=1).mean():.3f}")


def parse_config(config: str) -> tuple[str, dict[str, str]]:
    """``VALUE[:draws=M][:sample=K][:move=NAME]`` -> (value name, options)."""
    name, *opts = config.split(":")
    return name, dict(o.split("=", 1) for o in opts)


def correct(lines: list[dict], a: str, b: str, config: str, seed: int) -> dict:
    """Per duplicate pair: plain and corrected points, deals and summed luck; correction seconds.

    ``sample=K``: pimc bots (stateless between decisions) are asked K times
    again per decision; ``move=NAME``: the value of the decision terms
    (``rollout-true`` reads the true talon order, allowed there).
    """
    name, opts = parse_config(config)
    value = None if name.startswith("own") else make_value(name)
    rng = random.Random(seed)
    expect = sampled_expectation(rng, int(opts["draws"])) if "draws" in opts else expected_after_draw
    move = opts.get("move")
    own = move is not None and move.startswith("own")  # own=M: M playouts of the measured bots themselves
    move_value = make_value(move, moves_only=True) if move and not own else None
    k = int(opts.get("sample", 0))
    policies = {i: policy_of(make_agent(spec)) for i, spec in enumerate((a, b))}
    samplers = {i: sampler_of(make_agent(spec), rng, k) for i, spec in enumerate((a, b))
                if k and spec.startswith("pimc") and "infer=1" not in spec}
    out: dict[str, list] = {"plain": [], "corr": [], "deals": [], "luck": []}
    copies: dict[tuple[str, ...], tuple] = {}
    t = time.perf_counter()
    for k in range(0, len(lines), 2):
        y = z = 0.0
        d = 0
        luck = None
        for line in lines[k:k + 2]:
            specs = tuple((a, b)[p] for p in line["seats"])
            if own or name.startswith("own"):
                if specs not in copies:  # copies of the measured bots, seat by seat (loaded once)
                    copies[specs] = (make_agent(specs[0]), make_agent(specs[1]))
            if own:
                move_value = RolloutValue(int(move.split("=")[1]), seed, True, copies[specs])
            if name.startswith("own"):  # own=P: P playouts of the measured bots, face-down cards shuffled
                value = RolloutValue(int(name.split("=")[1]), seed, False, copies[specs])
            gp = game_points(line, 0, value, policies, hand_basis, samplers, expect, move_value)
            y, z, d = y + gp.plain, z + gp.corrected, d + gp.deals
            luck = np.asarray(gp.luck) if luck is None else luck + np.asarray(gp.luck)
        for key, v in (("plain", y), ("corr", z), ("deals", d), ("luck", list(luck))):
            out[key].append(v)
    out["seconds"] = time.perf_counter() - t
    return out


def residuals(y: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Linearized residuals of the cluster ratio sum(y)/sum(d): their SD sets the interval's width."""
    return (y - y.sum() / d.sum() * d) / d.mean()


def report(a: str, b: str, r: dict, rng: np.random.Generator) -> str:
    y, z, d = (np.asarray(r[k], dtype=float) for k in ("plain", "corr", "deals"))
    regr = np.asarray(cross_fitted(list(y), r["luck"]))
    n = y.size
    cols = []
    for c in (z, regr):
        ry, rc = residuals(y, d), residuals(c, d)
        ratio = ry.std(ddof=1) / rc.std(ddof=1) if rc.std() > 0 else math.nan
        idx = rng.integers(0, n, size=(BOOT, n))
        boot = [residuals(y[i], d[i]).std(ddof=1) / max(residuals(c[i], d[i]).std(ddof=1), 1e-12)
                for i in idx]
        lo, hi = np.percentile(boot, [2.5, 97.5])
        diff = (c - y) / d.mean()
        zz = diff.mean() / (diff.std(ddof=1) / math.sqrt(n)) if diff.std() > 0 else 0.0
        cols.append(f"{c.sum() / d.sum():+.3f} x{ratio:.2f} [{lo:.2f},{hi:.2f}] z{zz:+.1f}")
    sd = residuals(y, d).std(ddof=1)
    ms = 1000 * r["seconds"] / d.sum()
    return (f"{a + ' v ' + b:38} {r['config']:18} plain {y.sum() / d.sum():+.3f} sd {sd:.2f} "
            f"({d.mean():.1f} deals/pair) | aivat "
            f"{cols[0]} | regr {cols[1]} | {ms:.0f} ms/deal")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairings", default=",".join(PAIRINGS), help="comma-separated A/B bot specs")
    ap.add_argument("--pairs", type=positive_int, default=100, help="duplicate pairs per pairing")
    ap.add_argument("--unit", default="deal", choices=("deal", "match"))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--configs", default="solver,rollout:draws=4,solver:sample=2:move=rollout-true",
                    help="comma-separated VALUE[:draws=M][:sample=K][:move=NAME]")
    ap.add_argument("--lines", help="JSON file of played lines: read if it exists, else written")
    ap.add_argument("--reseed", type=count_or_zero, default=0,
                    help="instead: replay each pair's cards this many times with the bots reseeded")
    args = ap.parse_args()
    pairings = [tuple(p.split("/")) for p in args.pairings.split(",") if p]
    if args.reseed:
        for i, (a, b) in enumerate(pairings):
            print(reseeded(a, b, args.pairs, args.seed + i, args.reseed), flush=True)
        return
    stored = {}
    problem = None if args.lines is None else path_problem(args.lines)  # written after each pairing
    if problem is not None:
        ap.error(f"--lines {args.lines or repr(args.lines)} {problem}")
    if args.lines and os.path.exists(args.lines):
        try:  # never waits on a fifo
            stored = json.loads(read_regular(args.lines, MAX_RESULTS_BYTES))
        except (ValueError, OSError) as e:
            ap.error(f"--lines {args.lines}: {getattr(e, 'strerror', None) or e}")
    print(f"unit {args.unit}, {args.pairs} duplicate pairs, load {os.getloadavg()[0]:.2f}", flush=True)
    rng = np.random.default_rng(args.seed)
    for i, (a, b) in enumerate(pairings):
        key = f"{a}/{b}/{args.unit}/{args.pairs}/{args.seed + i}"
        if key not in stored:
            lines, secs = play(a, b, args.pairs, args.seed + i, args.unit)
            stored[key] = lines
            print(f"{a} v {b}: played in {secs:.0f}s (load {os.getloadavg()[0]:.2f})", flush=True)
            if args.lines:
                with open(args.lines, "w", encoding="utf-8") as f:
                    json.dump(stored, f)
        for config in args.configs.split(","):
            r = correct(stored[key], a, b, config, args.seed)
            r["config"] = config
            print(report(a, b, r, rng) + f" (load {os.getloadavg()[0]:.2f})", flush=True)


if __name__ == "__main__":
    main()
