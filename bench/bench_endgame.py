"""Endgame quality of a PPO checkpoint played with no search (``assist=rules``).

Plays greedy self-play deals with the checkpoint and, at every decision the
network makes with the talon spent (lead, follow, final; obvious moves are
played by rule), compares its move with the exact solver's values of all
moves. Prints, per window, how often the move was not a best one and the
game points lost (regret), also per deal (both players together). A perfect
endgame player scores 0.

    .venv/bin/python bench/bench_endgame.py                       # the shipped checkpoint
    .venv/bin/python bench/bench_endgame.py runs/x/last.pt --deals 1000
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.neural import load_ppo_agent  # noqa: E402
from agents.solver import Solver  # noqa: E402
from distill_endgame import is_endgame_row  # noqa: E402
from sixtysix_env.engine import FINAL, FOLLOW, LEAD, OVER, WINDOW_NAMES, deal  # noqa: E402
from sixtysix_env.knowledge import view  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", nargs="?", default=None, help="default: the shipped checkpoint")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    agent = load_ppo_agent(args.checkpoint, seed=args.seed, assist="rules")
    solver = Solver()
    rng = random.Random(args.seed)
    stats = {w: [0, 0, 0] for w in (LEAD, FOLLOW, FINAL)}  # decisions, not best, points lost
    for _ in range(args.deals):
        s = deal(rng.randrange(1 << 30))
        while s.window != OVER:
            v = view(s, s.to_act)
            a = agent.act(v)
            if is_endgame_row(v):
                values = solver.action_values(s)
                lost = max(values.values()) - values[a]
                st = stats[s.window]
                st[0] += 1
                st[1] += lost > 0
                st[2] += lost
            s.apply(a)
        solver.clear()
    print(f"{agent.name}, {args.deals} self-play deals (seed {args.seed})")
    for w, (n, bad, lost) in stats.items():
        print(f"  {WINDOW_NAMES[w]:6s} {n:5d} decisions, not best {bad / max(n, 1):6.1%}, "
              f"lost {lost / args.deals:.3f} game points per deal")
    total = sum(st[2] for st in stats.values())
    print(f"  total  lost {total / args.deals:.3f} game points per deal")


if __name__ == "__main__":
    main()
