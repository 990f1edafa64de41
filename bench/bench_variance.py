"""How much narrower the variance-reduced estimates are than the plain duplicate mean.

Plays ``--pairs`` duplicate pairs of single deals (unit "deal", the arena's
schedule: same cards with the seats swapped, each bot keeping its own seed)
for every pairing of ``--bots``, mirror matches included, and corrects every
deal with :mod:`agents.evaluation`. Per pairing, in game points per deal for
the first bot (one value per duplicate pair):

- plain: the duplicate mean the arena reports today;
- aivat: result minus the luck terms (deal, draws, known-policy moves), weight 1;
- 1:sd/a: the same ratio for single games (no duplicate partner): what the
  corrections do where duplicate deals are not available;
- regr: result minus the luck terms and the hand-feature luck, weighted by
  least squares fitted on the other fold of pairs (pooled over pairings;
  unbiased by cross-fitting, see agents/evaluation/regression.py); sd/p and
  z_p: the same with weights fitted per pairing.

It prints each estimate's mean, SD and 95% interval, the SD ratios, and the
z-score of the corrected minus plain mean (zero in expectation). Seconds for
play and for the corrections are shown; say the machine load with the figures.

    PYTHONPATH=. python bench/bench_variance.py --pairs 120 --out /tmp/variance.json
    PYTHONPATH=. python bench/bench_variance.py --load /tmp/variance.json   # analyse again
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import time

import numpy as np

from agents.arena.argtypes import count_or_zero, positive_int
from agents.arena.inputs import MAX_RESULTS_BYTES, read_regular
from agents.arena.outputs import check_outputs
from agents.arena.schedule import schedule
from agents.evaluation.games import Estimate, check_correctable, estimate, game_points, policy_of, sampler_of
from agents.evaluation.regression import cross_fitted
from agents.evaluation.values import VALUE_NAMES, hand_basis, make_value
from agents.play import play_game
from agents.registry import make_agent

BOTS = ("random", "heuristic", "pimc:worlds=2", "pimc:worlds=4", "ismcts:iterations=30", "ppo")


def run_pairing(a: str, b: str, pairs: int, seed: int, value_name: str, sample: int = 0) -> dict:
    """Play one pairing and return per-pair plain/aivat values and luck rows, with timings.

    ``sample`` > 0: pimc bots (stateless between decisions without ``infer``)
    are asked that many times again at each decision (sampled move terms).
    """
    bots = [make_agent(a), make_agent(b)]
    check_correctable(bots)
    policies = {i: policy_of(bot) for i, bot in enumerate(bots)}
    rng = random.Random(seed)
    samplers = {i: sampler_of(make_agent(spec), rng, sample) for i, spec in enumerate((a, b))
                if sample and spec.startswith("pimc") and "infer=1" not in spec}
    value = make_value(value_name)
    y, z, rows, single = [], [], [], []
    t_play = t_corr = 0.0
    tasks = schedule(2, 2 * pairs, seed, duplicate=True)
    for k in range(pairs):
        plain = corr = 0.0
        luck = None
        for task in tasks[2 * k:2 * k + 2]:
            t = time.perf_counter()
            rec = play_game(bots[task.seats[0]], bots[task.seats[1]], task.seed, "deal",
                            agent_seeds=task.agent_seeds)
            line = rec.to_dict() | {"index": task.index, "seats": list(task.seats)}
            t_play += time.perf_counter() - t
            t = time.perf_counter()
            gp = game_points(line, 0, value, policies, hand_basis, samplers)
            t_corr += time.perf_counter() - t
            plain += gp.plain / 2
            corr += gp.corrected / 2
            single.append((gp.plain, gp.corrected))
            v = np.asarray(gp.luck) / 2
            luck = v if luck is None else luck + v
        y.append(plain)
        z.append(corr)
        rows.append(luck)
    return {"plain": y, "aivat": z, "luck": rows, "single": single, "t_play": t_play, "t_corr": t_corr}


def fmt(e: Estimate) -> str:
    return f"{e.mean:+.3f} sd {e.sd:.3f} [{e.lo:+.3f},{e.hi:+.3f}]"


def analyse(results: list[tuple[str, str, dict]]) -> None:
    """Print the per-pairing table and the summary lines."""
    # Regression weights pooled over pairings, cross-fitted by pair parity.
    y_all = [v for _, _, r in results for v in r["plain"]]
    x_all = [row for _, _, r in results for row in r["luck"]]
    regr_all = cross_fitted(y_all, x_all)
    start = 0
    cols: dict[str, list[float]] = {k: [] for k in ("sd/a", "sd/r", "sd/p", "z_a", "z_r", "z_p", "1:sd/a")}
    print(f"{'pairing':40} {'plain':31} {'aivat':31} {'regr':31} "
          + " ".join(f"{k:>6}" for k in cols))
    for a, b, r in results:
        n = len(r["plain"])
        regr = regr_all[start:start + n]
        start += n
        per_pairing = cross_fitted(r["plain"], r["luck"])
        y = np.asarray(r["plain"])
        ep, ea, er, epp = (estimate(v) for v in (r["plain"], r["aivat"], regr, per_pairing))
        row = {}
        for key, e, v in (("a", ea, r["aivat"]), ("r", er, regr), ("p", epp, per_pairing)):
            d = np.asarray(v) - y
            row["sd/" + key] = ep.sd / e.sd if e.sd > 0 else float("nan")
            row["z_" + key] = d.mean() / (d.std(ddof=1) / math.sqrt(n)) if d.std() > 0 else 0.0
        sp, sa = np.asarray(r["single"]).std(axis=0, ddof=1)
        row["1:sd/a"] = sp / sa if sa > 0 else float("nan")
        for k in cols:
            cols[k].append(row[k])
        print(f"{a + ' v ' + b:40} {fmt(ep):31} {fmt(ea):31} {fmt(er):31} "
              + " ".join(f"{row[k]:6.2f}" for k in cols))
    for k, label in (("sd/a", "aivat"), ("sd/r", "regr"), ("sd/p", "regr per pairing"),
                     ("1:sd/a", "aivat, single games")):
        ok = [x for x in cols[k] if math.isfinite(x)]
        print(f"SD ratio plain/{label} over {len(ok)} pairings with variance: median {np.median(ok):.2f}, "
              f"geometric mean {math.exp(np.mean(np.log(ok))):.2f}, min {min(ok):.2f}, max {max(ok):.2f}")
    for k in ("z_a", "z_r", "z_p"):
        z = np.asarray(cols[k])
        print(f"z of corrected - plain ({k[2:]}): mean {z.mean():+.2f}, SD {z.std():.2f}, "
              f"|z| > 1.96 in {int((abs(z) > 1.96).sum())} of {len(z)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", default=",".join(BOTS), help="comma-separated bot specs")
    ap.add_argument("--pairs", type=positive_int, default=100, help="duplicate pairs per pairing")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--value", default="solver", choices=VALUE_NAMES)
    ap.add_argument("--sample", type=count_or_zero, default=0,
                    help="ask pimc bots this many times again per decision")
    ap.add_argument("--out", help="also write the per-pair values (JSON) to this file")
    ap.add_argument("--load", help="analyse the per-pair values an earlier --out wrote, play nothing")
    args = ap.parse_args()
    try:  # --out before the games it would hold
        check_outputs({"--out": args.out}, {"--load": args.load}, force=True)
    except ValueError as e:
        ap.error(str(e))
    if args.load:
        try:  # never waits on a fifo
            loaded = json.loads(read_regular(args.load, MAX_RESULTS_BYTES))
        except (ValueError, OSError) as e:
            ap.error(f"--load {args.load}: {getattr(e, 'strerror', None) or e}")
        analyse([(d["a"], d["b"], d) for d in loaded])
        return
    bots = [s.strip() for s in args.bots.split(",") if s.strip()]
    pairings = list(itertools.combinations_with_replacement(bots, 2))
    print(f"{len(pairings)} pairings x {args.pairs} duplicate pairs, value={args.value}, "
          f"load {os.getloadavg()[0]:.2f}")
    results = []
    t_play = t_corr = 0.0
    for i, (a, b) in enumerate(pairings):
        r = run_pairing(a, b, args.pairs, args.seed + i, args.value, args.sample)
        t_play += r["t_play"]
        t_corr += r["t_corr"]
        results.append((a, b, r))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump([{"a": a, "b": b, "plain": r["plain"], "aivat": r["aivat"], "single": r["single"],
                        "luck": [list(map(float, row)) for row in r["luck"]]} for a, b, r in results], f)
    analyse(results)
    deals = 2 * args.pairs * len(pairings)
    print(f"{deals} deals: play {t_play:.1f}s, corrections {t_corr:.1f}s "
          f"({1000 * t_corr / deals:.1f} ms/deal); load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
