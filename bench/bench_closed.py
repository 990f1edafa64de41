"""Closed-talon play of a PPO checkpoint (``assist=rules``) against ``pimc``.

Plays deals between the checkpoint and ``pimc`` (seats alternate). At every
decision either of them makes after a close, while cards are still face
down in the talon (non-obvious lead, follow, final), both bots are asked for
their move, and both moves are scored against the exact solver's values in
the true deal: the game points each move gives away against best play with
every card known. Nobody can score 0 there (the cards are hidden), but both
are scored on the same positions, so the difference is what the network
gives away against PIMC's search over sampled worlds.

    .venv/bin/python bench/bench_closed.py                        # the shipped checkpoint
    .venv/bin/python bench/bench_closed.py runs/x/last.pt --deals 600
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
from sixtysix_env.engine import MATCH_TARGET, State
from sixtysix_env.knowledge import PlayerView
from training.distill import is_phase_row

NAMES = ("ppo", "pimc")


class ClosedRegret:
    """The play hook: at every closed-talon decision either bot really makes, both
    bots' moves scored against the solver's values in the true deal; the bot to act
    plays its own move. Per bot to act: decisions, its regret, the other bot's regret
    on the same positions, moves that differ."""

    def __init__(self, bots: dict[str, Agent]) -> None:
        self.bots = bots
        self.seats = NAMES
        self.solver = Solver()
        self.stats = {who: [0, 0.0, 0.0, 0] for who in NAMES}

    def __call__(self, s: State, v: PlayerView) -> int | None:
        if not is_phase_row(v, "closed"):
            return None  # the bot to act plays as usual
        who = self.seats[s.to_act]
        other = NAMES[1 - NAMES.index(who)]
        moves = {name: bot.act(v) for name, bot in self.bots.items()}
        values = self.solver.action_values(s)
        self.solver.clear()
        best = max(values.values())
        st = self.stats[who]
        st[0] += 1
        st[1] += best - values[moves[who]]
        st[2] += best - values[moves[other]]
        st[3] += moves[who] != moves[other]
        return moves[who]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", nargs="?", default=None, help="default: the shipped checkpoint")
    ap.add_argument("--deals", type=positive_int, default=300)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--worlds", type=positive_int, default=64, help="pimc's worlds (default 64, its default)")
    args = ap.parse_args(argv)
    ppo = f"ppo:{args.checkpoint},assist=rules" if args.checkpoint else "ppo:assist=rules"
    bots = {"ppo": make_agent(ppo, seed=args.seed),
            "pimc": make_agent(f"pimc:worlds={args.worlds}", seed=args.seed)}
    score = ClosedRegret(bots)
    rng = random.Random(args.seed)
    for d in range(args.deals):
        seed = rng.randrange(1 << 62)
        s = deal(seed, match_scores=(rng.randrange(MATCH_TARGET), rng.randrange(MATCH_TARGET)))
        score.seats = NAMES if d % 2 == 0 else NAMES[::-1]
        for bot in bots.values():
            bot.reset(rng.randrange(1 << 30))
        play_deal(s, [bots[name] for name in score.seats], score)
    report(score.stats, bots["ppo"].name, args)


def report(stats: dict[str, list], ppo_name: str, args: argparse.Namespace) -> None:
    print(f"{ppo_name} vs pimc ({args.worlds} worlds), {args.deals} deals (seed {args.seed}); "
          "game points given away per closed-talon decision, against the true deal's solver values")
    for who, (n, own, other, differ) in stats.items():
        o = NAMES[1 - NAMES.index(who)]
        print(f"  {who:4s} to act: {n:5d} decisions, {who} {own / max(n, 1):.4f}, "
              f"{o} would give away {other / max(n, 1):.4f}, moves differ {differ / max(n, 1):.1%}")
    n = sum(st[0] for st in stats.values())
    ppo_lost = stats["ppo"][1] + stats["pimc"][2]
    pimc_lost = stats["pimc"][1] + stats["ppo"][2]
    print(f"  all    {n:5d} decisions: ppo {ppo_lost / max(n, 1):.4f}, pimc {pimc_lost / max(n, 1):.4f}")


if __name__ == "__main__":
    main()
