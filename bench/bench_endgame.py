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

from agents import make_agent
from agents.arena.argtypes import positive_int
from agents.base import Agent
from agents.play import play_deal
from agents.search.solver import Solver
from sixtysix_env.deals import deal
from sixtysix_env.engine import FINAL, FOLLOW, LEAD, WINDOW_NAMES, State
from sixtysix_env.knowledge import PlayerView
from training.distill import is_phase_row


class EndgameRegret:
    """The play hook: the bot's move at every endgame decision it really makes,
    scored against the solver's values (decisions, moves not best, points lost per window)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.solver = Solver()
        self.stats = {w: [0, 0, 0] for w in (LEAD, FOLLOW, FINAL)}

    def __call__(self, s: State, v: PlayerView) -> int | None:
        if not is_phase_row(v, "spent"):
            return None  # the bot plays as usual
        a = self.agent.act(v)
        values = self.solver.action_values(s)
        lost = max(values.values()) - values[a]
        st = self.stats[s.window]
        st[0] += 1
        st[1] += lost > 0
        st[2] += lost
        return a


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", nargs="?", default=None, help="default: the shipped checkpoint")
    ap.add_argument("--deals", type=positive_int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    spec = f"ppo:{args.checkpoint},assist=rules" if args.checkpoint else "ppo:assist=rules"
    agent = make_agent(spec, seed=args.seed)
    score = EndgameRegret(agent)
    rng = random.Random(args.seed)
    for _ in range(args.deals):
        play_deal(deal(rng.randrange(1 << 30)), (agent, agent), score)
        score.solver.clear()
    print(f"{agent.name}, {args.deals} self-play deals (seed {args.seed})")
    for w, (n, bad, lost) in score.stats.items():
        print(f"  {WINDOW_NAMES[w]:6s} {n:5d} decisions, not best {bad / max(n, 1):6.1%}, "
              f"lost {lost / args.deals:.3f} game points per deal")
    total = sum(st[2] for st in score.stats.values())
    print(f"  total  lost {total / args.deals:.3f} game points per deal")


if __name__ == "__main__":
    main()
