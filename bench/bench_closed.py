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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.neural import load_ppo_agent  # noqa: E402
from agents.pimc import PimcAgent  # noqa: E402
from agents.solver import Solver  # noqa: E402
from distill_endgame import is_closed_row  # noqa: E402
from sixtysix_env.engine import MATCH_TARGET, OVER, deal  # noqa: E402
from sixtysix_env.knowledge import view  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", nargs="?", default=None, help="default: the shipped checkpoint")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--worlds", type=int, default=64, help="pimc's worlds (default 64, its default)")
    args = ap.parse_args(argv)
    ppo = load_ppo_agent(args.checkpoint, seed=args.seed, assist="rules")
    pimc = PimcAgent(seed=args.seed, worlds=args.worlds)
    solver = Solver()
    rng = random.Random(args.seed)
    names = ("ppo", "pimc")
    # per bot to act: decisions, its regret, the other bot's regret on the same positions, disagreements
    stats = {who: [0, 0.0, 0.0, 0] for who in names}
    for d in range(args.deals):
        seed = rng.randrange(1 << 62)
        s = deal(seed, match_scores=(rng.randrange(MATCH_TARGET), rng.randrange(MATCH_TARGET)))
        seats = names if d % 2 == 0 else names[::-1]
        ppo.reset(rng.randrange(1 << 30))
        pimc.reset(rng.randrange(1 << 30))
        while s.window != OVER:
            v = view(s, s.to_act)
            who = seats[s.to_act]
            if is_closed_row(v):
                moves = {"ppo": ppo.act(v), "pimc": pimc.act(v)}
                values = solver.action_values(s)
                solver.clear()
                best = max(values.values())
                other = names[1 - names.index(who)]
                st = stats[who]
                st[0] += 1
                st[1] += best - values[moves[who]]
                st[2] += best - values[moves[other]]
                st[3] += moves[who] != moves[other]
                a = moves[who]
            else:
                a = ppo.act(v) if who == "ppo" else pimc.act(v)
            s.apply(a)
    print(f"{ppo.name} vs pimc ({args.worlds} worlds), {args.deals} deals (seed {args.seed}); "
          "game points given away per closed-talon decision, against the true deal's solver values")
    for who, (n, own, other, differ) in stats.items():
        o = names[1 - names.index(who)]
        print(f"  {who:4s} to act: {n:5d} decisions, {who} {own / max(n, 1):.4f}, "
              f"{o} would give away {other / max(n, 1):.4f}, moves differ {differ / max(n, 1):.1%}")
    n = sum(st[0] for st in stats.values())
    ppo_lost = stats["ppo"][1] + stats["pimc"][2]
    pimc_lost = stats["pimc"][1] + stats["ppo"][2]
    print(f"  all    {n:5d} decisions: ppo {ppo_lost / max(n, 1):.4f}, pimc {pimc_lost / max(n, 1):.4f}")


if __name__ == "__main__":
    main()
