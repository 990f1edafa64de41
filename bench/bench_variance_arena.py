"""The arena's corrected figure against plain duplicate, pairing by pairing, on the same games.

Plays each pairing with ``agents.arena.run`` (unit "deal", duplicate pairs,
``--estimator aivat``, one worker) and reads the figures the arena reports:
per pairing, the plain points per deal with its 95% interval, the SD ratio
plain/corrected of AIVAT's weight 1 and of the cross-fitted weights (above 1:
narrower; the ratio of the two intervals' half-widths), which figure the
summary shows (``aivat`` or ``plain`` where the correction would widen it),
the cross-fitted ratio without the decision terms (chance terms only: what
the declared move distributions add), and the z-score of the cross-fitted
minus the plain per-cluster values (zero in expectation). Timings: play and
corrections together, CPU seconds of this process. ``--reuse`` plays the
arena's schedule with one instance of each bot, reset before every game,
and corrects each game with the arena's own ``correction`` (the arena builds
a bot per game, which for the network bots means loading their checkpoint).

    PYTHONPATH=. python bench/bench_variance_arena.py --games 200 --value solver \\
        --pairing heuristic@random --pairing pimc:worlds=2,temp=0.3@pimc:worlds=2,temp=0.3
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from agents.arena import run, summarize
from agents.arena.argtypes import positive_int
from agents.arena.corrected import AIVAT_WEIGHT1, corrected_figure, correction, luck_of, plain_net
from agents.arena.lines import AIVAT
from agents.arena.runner import game_line
from agents.arena.schedule import schedule
from agents.evaluation.regression import cross_fitted
from agents.play import play_game
from agents.registry import make_agent

PAIRINGS = ("heuristic@random", "random@random", "heuristic@heuristic", "heuristic@ppo", "random@ppo",
            "ppo@ppo", "heuristic@pimc:worlds=2", "pimc:worlds=2@pimc:worlds=2")


def clusters(lines: list[dict], value: str, moves: bool = True) -> tuple[list[float], list[np.ndarray]]:
    """Per cluster: player 0's plain net points and luck (without the decision terms if not ``moves``)."""
    plain: dict[int, float] = {}
    luck: dict[int, np.ndarray] = {}
    for line in lines:
        c = line["cluster"]
        plain[c] = plain.get(c, 0.0) + plain_net(line, line["seats"].index(0))
        x = np.asarray(luck_of(line, 0, value))
        if not moves:
            x[2:] = 0.0
        luck[c] = luck.get(c, 0.0) + x
    keys = sorted(plain)
    return [plain[k] for k in keys], [luck[k] for k in keys]


def sd_ratio(lines: list[dict], value: str, moves: bool) -> float:
    """Plain SD over cross-fitted SD per cluster (single deals: equal deal counts)."""
    y, x = clusters(lines, value, moves)
    sd = np.std(cross_fitted(y, x), ddof=1)
    return float(np.std(y, ddof=1) / sd) if sd > 0 else math.nan


def z_score(lines: list[dict], value: str) -> float:
    """(cross-fitted - plain) mean over its standard error, per cluster (player 0's side)."""
    y, x = clusters(lines, value)
    d = np.asarray(cross_fitted(y, x)) - np.asarray(y)
    sd = d.std(ddof=1)
    return float(d.mean() / (sd / math.sqrt(len(d)))) if sd > 0 else 0.0


def reused(a: str, b: str, games: int, seed: int, value: str) -> tuple[list[str], dict, list[dict]]:
    """The arena's games and corrections (its schedule, ``game_line``, ``correction``), with one
    instance of each bot reset before every game instead of one built per game (network bots load
    their checkpoint once)."""
    bots = [make_agent(a), make_agent(b)]
    lines = []
    for task in schedule(2, games, seed, True):
        seated = [bots[p] for p in task.seats]
        rec = play_game(seated[0], seated[1], task.seed, "deal", agent_seeds=task.agent_seeds)
        line = game_line(task, rec)
        line[AIVAT] = correction(line, seated, value)
        lines.append(line)
    config = {"unit": "deal", "duplicate": True, "estimator": {"name": "aivat", "value": value}}
    return [a, b], config, lines


def measure(a: str, b: str, games: int, seed: int, value: str, reuse: bool = False) -> dict:
    t = time.process_time()
    if reuse:
        names, config, lines = reused(a, b, games, seed, value)
    else:
        names, config, lines = run([a, b], games=games, unit="deal", seed=seed, estimator="aivat",
                                   value=value)
    cpu = time.process_time() - t
    st = summarize(names, config, lines).pairings[0]
    one = corrected_figure(lines, 0, 1, value, AIVAT_WEIGHT1)
    assert st.aivat is not None
    return {"pairing": f"{a} v {b}", "plain": (st.points_per_deal, *st.points_per_deal_ci),
            "x1": one.sd_ratio, "xr": st.aivat.sd_ratio, "shown": st.aivat.used,
            "figure": (st.aivat.points_per_deal, *st.aivat.ci), "z": z_score(lines, value), "cpu": cpu,
            "xc": sd_ratio(lines, value, moves=False)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=positive_int, default=200, help="games (single deals) per pairing")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--value", default="solver")
    ap.add_argument("--pairing", action="append", help="A@B (default: a fixed list)")
    ap.add_argument("--reuse", action="store_true", help="one instance per bot, reset per game (network "
                    "bots: the checkpoint loaded once)")
    args = ap.parse_args()
    print("| pairing | plain [95%] | x weight 1 | x cross-fitted | x chance only | shown | figure [95%] | z "
          "| CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in args.pairing or PAIRINGS:
        a, _, b = p.partition("@")
        r = measure(a, b, args.games, args.seed, args.value, args.reuse)
        m, lo, hi = r["plain"]
        fm, flo, fhi = r["figure"]
        print(f"| {r['pairing']} | {m:+.3f} [{lo:+.3f}, {hi:+.3f}] | {r['x1']:.2f} | {r['xr']:.2f} | "
              f"{r['xc']:.2f} | {r['shown']} | {fm:+.3f} [{flo:+.3f}, {fhi:+.3f}] | {r['z']:+.2f} | "
              f"{r['cpu']:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
