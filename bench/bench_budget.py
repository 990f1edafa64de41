"""Per-move CPU time of the anytime search bots against their own budget.

Plays random deals (declaring rarely, so many reach the closed or spent
talon, where the exact solver runs), keeps every decision no rule answers,
and times ``act`` of ``pimc``, ``ismcts`` and ``guided`` on each with a CPU-time budget
(the bots budget by ``time.process_time``, as under the arena's
``--clock cpu``). Prints, per bot and budget, the worst, 99th percentile and
median CPU time per move, the moves over budget, and the worst positions.

``--arena GAMES`` instead plays GAMES matches (duplicate pairs, fixed seeds)
of each bot against ``heuristic`` in the arena's own play loop
(``agents.play.play_game``, ``--clock cpu``, the budget as the move time,
with the arena's alarms), times every move of the bot as the arena does
(``time.process_time`` around ``act``) and counts forfeits: what a bench
sees, not only the search.

``--code DIR ...`` runs the same positions under several copies of the
project (e.g. an older checkout exported with ``git archive``), one
subprocess each, interleaved per bot and budget so they share the load;
``--burn N`` starts N CPU-burning processes for the run.

    PYTHONPATH=$PWD python bench/bench_budget.py --deals 40 --budgets 0.05 0.1
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time


def positions(deals: int, seed: int) -> list:
    from agents.core.rules import obvious_action
    from sixtysix_env.actions import CLOSE, DECLARE
    from sixtysix_env.deals import deal
    from sixtysix_env.knowledge import view

    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        s = deal(rng)
        while not s.is_over:
            v = view(s, s.to_act)
            if v.legal_mask and obvious_action(v) is None:
                out.append(v)
            legal = s.legal_actions()
            rare = [a for a in legal if a in (DECLARE, CLOSE)]
            if len(legal) > len(rare) and rare and rng.random() < 0.9:  # rarely declare or close
                legal = [a for a in legal if a not in rare]
            s.apply(rng.choice(legal))
    return out


def measure(spec: str, budget: float, deals: int, seed: int) -> dict:
    """Times every move (run in the project copy on ``sys.path``)."""
    from agents import make_agent

    views = positions(deals, seed)
    bot = make_agent(spec, seed=1)
    bot.game_start(0, "deal", budget)
    for part in (bot, getattr(bot, "_phase2", None)):
        if part is not None:
            part.clock = time.process_time
    rows = []
    for i, v in enumerate(views):
        gc.disable()  # as the play loop does: no collection inside a timed move
        t0 = time.process_time()
        bot.act(v)
        t1 = time.process_time()
        gc.enable()
        rows.append((t1 - t0, i, v.stock, v.talon_open))
    rows.sort(reverse=True)
    times = sorted(r[0] for r in rows)
    n = len(times)
    return {"n": n, "max": times[-1], "p99": times[min(n - 1, int(0.99 * n))], "median": times[n // 2],
            "over": sum(t > budget for t in times), "worst": rows[:3]}


class Timed:
    """A bot that times its own moves in CPU time (the play loop finds the bot inside for its hooks
    and its CPU clock)."""

    def __init__(self, bot: object) -> None:
        self.bot = bot
        self.name = getattr(bot, "name", "bot")
        self.times: list[float] = []

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def __getattr__(self, hook: str) -> object:  # game_start, deal_end, game_end: the bot's own
        return getattr(self.bot, hook)

    def act(self, view: object) -> int:
        t0 = time.process_time()
        a = self.bot.act(view)
        self.times.append(time.process_time() - t0)
        return a


def measure_arena(spec: str, budget: float, games: int, seed: int) -> dict:
    """Times every move of ``spec`` in ``games`` arena matches against heuristic."""
    from agents import make_agent
    from agents.play import play_game

    times: list[float] = []
    forfeits = []
    for g in range(games):
        seats = (0, 1) if g % 2 == 0 else (1, 0)
        bot = Timed(make_agent(spec, seed=g))
        players = [bot, make_agent("heuristic", seed=g)]
        rec = play_game(players[seats[0]], players[seats[1]], seed=seed + g // 2, unit="match",
                        move_time=budget, clock="cpu")
        times += bot.times
        if rec.forfeit is not None:
            forfeits.append(rec.forfeit["detail"])
    times.sort()
    n = len(times)
    return {"n": n, "max": times[-1], "p99": times[min(n - 1, int(0.99 * n))], "median": times[n // 2],
            "over": sum(t > budget for t in times), "worst": [], "forfeits": forfeits}


def burn() -> None:
    while True:
        pass


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", nargs="+", default=["pimc", "ismcts", "guided"])
    ap.add_argument("--budgets", nargs="+", type=float, default=[0.05, 0.1])
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--code", nargs="*", default=[os.getcwd()], help="project copies to compare")
    ap.add_argument("--burn", type=int, default=0, help="CPU-burning processes during the run")
    ap.add_argument("--arena", type=int, default=0, metavar="GAMES",
                    help="time the moves of GAMES arena matches against heuristic instead")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    # Checked here, not with agents' argparse types: --code runs this file under older project copies.
    for flag, n, least in (("--deals", a.deals, 1), ("--burn", a.burn, 0), ("--arena", a.arena, 0)):
        if n < least:
            ap.error(f"{flag} must be at least {least}, got {n}")
    if not all(0 < b < float("inf") for b in a.budgets):
        ap.error(f"--budgets must be positive, finite seconds, got {a.budgets}")
    if a.child:
        spec, budget = a.child.rsplit("@", 1)
        if a.arena:
            print(json.dumps(measure_arena(spec, float(budget), a.arena, a.seed)))
        else:
            print(json.dumps(measure(spec, float(budget), a.deals, a.seed)))
        return
    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(a.burn)]
    for p in burners:
        p.start()
    try:
        what = f"arena matches {a.arena} against heuristic" if a.arena else f"deals {a.deals}"
        print(f"load {os.getloadavg()[0]:.1f}, burners {a.burn}, {what}")
        print(f"{'bot':8} {'budget':>6} {'code':24} {'moves':>5} {'max':>7} {'p99':>7} {'median':>7} "
              f"{'over':>4}  worst (cpu s, position, stock, talon open)")
        for spec in a.bots:
            for budget in a.budgets:
                for code in a.code:
                    env = dict(os.environ, PYTHONPATH=code)
                    out = subprocess.run(
                        [sys.executable, os.path.abspath(__file__), "--child", f"{spec}@{budget}",
                         "--deals", str(a.deals), "--seed", str(a.seed), "--arena", str(a.arena)],
                        env=env, cwd=code, capture_output=True, text=True, check=True).stdout
                    r = json.loads(out)
                    worst = " ".join(f"({t:.3f},{i},{s},{int(o)})" for t, i, s, o in r["worst"])
                    if a.arena:
                        worst = f"forfeits {len(r['forfeits'])}: {'; '.join(r['forfeits'][:3])}"
                    print(f"{spec:8} {budget:6.3f} {code[-24:]:24} {r['n']:5} {r['max']:7.3f} "
                          f"{r['p99']:7.3f} {r['median']:7.3f} {r['over']:4}  {worst}", flush=True)
        print(f"load {os.getloadavg()[0]:.1f}")
    finally:
        for p in burners:
            p.terminate()


if __name__ == "__main__":
    main()
