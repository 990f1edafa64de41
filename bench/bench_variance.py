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
  unbiased by cross-fitting, see agents/evaluation/regression.py).

It prints each estimate's mean, SD and 95% interval, the SD ratios, and the
z-score of the corrected minus plain mean (zero in expectation). Seconds for
play and for the corrections are shown; say the machine load with the figures.

    PYTHONPATH=. python bench/bench_variance.py --pairs 200
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import time

import numpy as np

from agents.arena.schedule import schedule
from agents.evaluation.games import check_correctable, estimate, game_points, policy_of
from agents.evaluation.regression import cross_fitted
from agents.evaluation.values import VALUE_NAMES, hand_basis, make_value
from agents.play import play_game
from agents.registry import make_agent

BOTS = ("random", "heuristic", "pimc:worlds=2", "pimc:worlds=4", "ismcts:iterations=30", "ppo")


def run_pairing(a: str, b: str, pairs: int, seed: int, value_name: str) -> dict:
    """Play one pairing and return per-pair plain/aivat values and luck rows, with timings."""
    bots = [make_agent(a), make_agent(b)]
    check_correctable(bots)
    policies = {i: policy_of(bot) for i, bot in enumerate(bots)}
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
            gp = game_points(line, 0, value, policies, hand_basis)
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


def fmt(e) -> str:  # noqa: ANN001 - an Estimate
    return f"{e.mean:+.3f} sd {e.sd:.3f} [{e.lo:+.3f},{e.hi:+.3f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", default=",".join(BOTS), help="comma-separated bot specs")
    ap.add_argument("--pairs", type=int, default=100, help="duplicate pairs per pairing")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--value", default="solver", choices=VALUE_NAMES)
    ap.add_argument("--out", help="also write the per-pair values (JSON) to this file")
    args = ap.parse_args()
    bots = [s.strip() for s in args.bots.split(",") if s.strip()]
    pairings = list(itertools.combinations_with_replacement(bots, 2))
    print(f"{len(pairings)} pairings x {args.pairs} duplicate pairs, value={args.value}, "
          f"load {os.getloadavg()[0]:.2f}")
    results = []
    for i, (a, b) in enumerate(pairings):
        results.append((a, b, run_pairing(a, b, args.pairs, args.seed + i, args.value)))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump([{"a": a, "b": b, "plain": r["plain"], "aivat": r["aivat"], "single": r["single"],
                        "luck": [list(map(float, row)) for row in r["luck"]]} for a, b, r in results], f)
    # Regression weights pooled over pairings, cross-fitted by pair parity.
    y_all = [v for _, _, r in results for v in r["plain"]]
    x_all = [row for _, _, r in results for row in r["luck"]]
    regr_all = cross_fitted(y_all, x_all)
    start = 0
    ratios_a, ratios_r, diffs_a, diffs_r, ratios_s = [], [], [], [], []
    t_play = t_corr = 0.0
    print(f"{'pairing':42} {'plain':32} {'aivat':32} {'regr':32} "
          f"{'sd/a':>5} {'sd/r':>5} {'z_a':>5} {'z_r':>5} {'1:sd/a':>6}")
    for a, b, r in results:
        n = len(r["plain"])
        regr = regr_all[start:start + n]
        start += n
        ep, ea, er = estimate(r["plain"]), estimate(r["aivat"]), estimate(regr)
        da = np.asarray(r["aivat"]) - np.asarray(r["plain"])
        dr = np.asarray(regr) - np.asarray(r["plain"])
        za = da.mean() / (da.std(ddof=1) / math.sqrt(n)) if da.std() > 0 else 0.0
        zr = dr.mean() / (dr.std(ddof=1) / math.sqrt(n)) if dr.std() > 0 else 0.0
        ra = ep.sd / ea.sd if ea.sd > 0 else float("nan")
        rr = ep.sd / er.sd if er.sd > 0 else float("nan")
        sp, sa = np.asarray(r["single"]).std(axis=0, ddof=1)
        rs = sp / sa if sa > 0 else float("nan")
        ratios_s.append(rs)
        ratios_a.append(ra)
        ratios_r.append(rr)
        diffs_a.append(za)
        diffs_r.append(zr)
        t_play += r["t_play"]
        t_corr += r["t_corr"]
        print(f"{a + ' v ' + b:42} {fmt(ep):32} {fmt(ea):32} {fmt(er):32} "
              f"{ra:5.2f} {rr:5.2f} {za:+5.2f} {zr:+5.2f} {rs:6.2f}")
    ok = [x for x in ratios_r if math.isfinite(x)]
    ok_a = [x for x in ratios_a if math.isfinite(x)]
    gm_a, gm_r = math.exp(np.mean(np.log(ok_a))), math.exp(np.mean(np.log(ok)))
    print(f"median SD ratio: aivat {np.median(ok_a):.2f}, regr {np.median(ok):.2f}; "
          f"geometric mean: aivat {gm_a:.2f}, regr {gm_r:.2f}")
    ok_s = [x for x in ratios_s if math.isfinite(x)]
    print(f"single games (no duplicate), SD ratio plain/aivat: median {np.median(ok_s):.2f}")
    print(f"z of (corrected - plain) over pairings: "
          f"aivat mean {np.mean(diffs_a):+.2f} (sd {np.std(diffs_a):.2f}), "
          f"regr mean {np.mean(diffs_r):+.2f} (sd {np.std(diffs_r):.2f}); |z|>1.96: "
          f"{sum(abs(x) > 1.96 for x in diffs_a)} aivat, {sum(abs(x) > 1.96 for x in diffs_r)} regr")
    deals = 2 * args.pairs * len(pairings)
    print(f"{deals} deals: play {t_play:.1f}s, corrections {t_corr:.1f}s "
          f"({1000 * t_corr / deals:.1f} ms/deal); "
          f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
