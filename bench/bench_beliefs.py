"""How much the guided bot's weighted worlds believe the opponent's true cards.

Plays ``--deals`` deals, ``--actor`` (default ``guided:worlds=16``) against
``--opponent`` (default ``pimc:worlds=8``), the actor's seat alternating.
Three observers read every view of the actor's seat as the guided bot's
search does (:class:`agents.search.guided.GuidedSearch`, the shipped guide,
``infer`` on), and at each of its decisions that the bot would search with
cards still face down in the talon they sample the same ``--worlds``
worlds (one seed per decision) and weight them:

- ``uniform``: ``beta=0``, the worlds unweighted (void and rule-based reads only);
- ``leads``: the opponent's leads (``Beliefs(extended=False)``);
- ``all``: leads, follows of the bot's leads and closes (the bot's default).

Each observer is then told the move the actor played (its follow evidence
needs the lead). At each of those decisions the weighted
frequency ``m_c`` of each unseen card in the opponent's hand is scored
against the truth: ``p_true``, the mean of ``m_c`` over the opponent's true
unknown cards, and ``logloss``, the binary cross-entropy per candidate card
(unseen and not known void; ``m_c`` smoothed as ``(W m_c + 0.5) / (W + 1)``).
Differences from ``uniform`` are paired by decision; their intervals are
95% over deals. Reported apart for the talon open and closed (where a
close by the opponent is evidence). No search values are computed: only
the beliefs.

    .venv/bin/python bench/bench_beliefs.py --deals 100 --opponent guided:worlds=16
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from agents import make_agent
from agents.arena.argtypes import positive_int
from agents.core.guide_net import load_guide
from agents.core.rules import obvious_action
from agents.play import decide, play_deal
from agents.search.beliefs import BETA, card_rows
from agents.search.guided import GuidedSearch
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.knowledge import PlayerView

CONFIGS = ("uniform", "leads", "all")


def observers() -> dict[str, GuidedSearch]:
    net = load_guide()
    return {
        "uniform": GuidedSearch(net, beta=0.0, extended=False),
        "leads": GuidedSearch(net, beta=BETA, extended=False),
        "all": GuidedSearch(net, beta=BETA, extended=True),
    }


def score(state: State, v: PlayerView, worlds: list[State], weights: np.ndarray) -> tuple[float, float]:
    """``p_true`` and ``logloss`` of the weighted worlds (module docstring)."""
    opp = 1 - v.player
    unknown = card_rows([w.hands[opp] & ~v.opp_known for w in worlds])
    m = (weights / weights.sum()) @ unknown
    m = (len(worlds) * m + 0.5) / (len(worlds) + 1)
    truth = card_rows([state.hands[opp] & ~v.opp_known])[0]
    cand = card_rows([v.unseen & ~v.opp_void])[0] > 0
    p_true = float(m[truth > 0].mean())
    t, q = truth[cand], m[cand]
    logloss = float(-(t * np.log(q) + (1 - t) * np.log(1 - q)).mean())
    return p_true, logloss


class Measure:
    """The hook of one deal: the observers read the actor's views and score their worlds."""

    def __init__(self, args: argparse.Namespace, obs: dict[str, GuidedSearch], deal_no: int,
                 out: dict[str, list[list[tuple[bool, float, float]]]], counts: dict[str, int]) -> None:
        self.args, self.obs, self.deal_no, self.out, self.counts = args, obs, deal_no, out, counts
        self.seat = deal_no % 2
        self.actor = make_agent(args.actor, seed=args.seed * 1000 + 2 * deal_no)
        self.step = 0
        for o in obs.values():
            o.reset()
        for c in CONFIGS:
            out[c].append([])

    def __call__(self, state: State, v: PlayerView) -> int | None:
        if v.player != self.seat:
            return None
        self.step += 1
        searched = obvious_action(v) is None and v.stock > 0
        scored = searched and state.hands[1 - v.player] & ~v.opp_known != 0  # cards to guess
        wseed = random.Random(f"{self.args.seed}/{self.deal_no}/{self.step}").getrandbits(64)
        kept = {}
        for c, o in self.obs.items():
            before = len(o.beliefs.entries)
            lead = o.observe(v)
            if c == "all":
                self.counts["follows"] += len(o.beliefs.entries) - before
                self.counts["closes"] += o.beliefs.close_window >= 0
            if not searched:
                continue
            wrng = random.Random(wseed)  # the same worlds for every observer
            worlds = [o.sample(v, wrng) for _ in range(self.args.worlds)]
            weights, lik = o.weights(v, worlds, lead)
            kept[c] = (worlds, [] if lik is None else [lik])
            if c == "all":
                self.counts["leads"] += lik is not None
            if scored:
                self.out[c][-1].append((v.talon_open, *score(state, v, worlds, weights)))
        self.counts["decisions"] += scored
        a = decide(self.actor, v, state)
        for c, (worlds, liks) in kept.items():
            self.obs[c].remember(v, worlds, liks, a)
        return a


def run(args: argparse.Namespace) -> dict[str, list[list[tuple[bool, float, float]]]]:
    obs = observers()
    out: dict[str, list[list[tuple[bool, float, float]]]] = {c: [] for c in CONFIGS}
    counts = {"decisions": 0, "leads": 0, "follows": 0, "closes": 0}
    rng = random.Random(args.seed)
    for i in range(args.deals):
        hook = Measure(args, obs, i, out, counts)
        opponent = make_agent(args.opponent, seed=args.seed * 1000 + 2 * i + 1)
        seats = (hook.actor, opponent) if hook.seat == 0 else (opponent, hook.actor)
        play_deal(deal(rng), seats, hook)
    print(" ".join(f"{k}={n}" for k, n in counts.items()))
    return out


def interval(per_deal: list[float]) -> str:
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / len(per_deal) ** 0.5 if len(per_deal) > 1 else float("nan")
    return f"{mean:+.4f} [{mean - half:+.4f}, {mean + half:+.4f}]"


def report(out: dict[str, list[list[tuple[bool, float, float]]]], talon_open: bool) -> None:
    sub = {c: [[x[1:] for x in d if x[0] == talon_open] for d in out[c]] for c in CONFIGS}
    base = sub["uniform"]
    rows = [j for j, d in enumerate(base) if d]
    phase = "open" if talon_open else "closed"
    print(f"talon {phase}: {sum(len(d) for d in base)} decisions of {len(rows)} deals")
    if len(rows) < 2:
        return
    print(f"{'config':8s} {'p_true':>8s} {'logloss':>8s}   p_true - uniform (95%, deals)"
          "        logloss - uniform")

    def paired(a: str, b: str, k: int) -> str:
        return interval([statistics.fmean(x[k] - y[k] for x, y in zip(sub[a][j], sub[b][j], strict=True))
                         for j in rows])

    for c in CONFIGS:
        flat = [x for d in sub[c] for x in d]
        p = statistics.fmean(x[0] for x in flat)
        ll = statistics.fmean(x[1] for x in flat)
        print(f"{c:8s} {p:8.4f} {ll:8.4f}   {paired(c, 'uniform', 0):32s} {paired(c, 'uniform', 1)}")
    print(f"all - leads: p_true {paired('all', 'leads', 0)}, logloss {paired('all', 'leads', 1)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=60)
    ap.add_argument("--worlds", type=positive_int, default=32,
                    help="worlds each observer samples per decision")
    ap.add_argument("--actor", default="guided:worlds=16", help="the observed bot's seat")
    ap.add_argument("--opponent", default="pimc:worlds=8")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.deals < 2 or args.worlds < 2:
        ap.error("--deals and --worlds must be at least 2")
    t = time.process_time()
    out = run(args)
    report(out, True)
    report(out, False)
    print(f"{args.deals} deals, {time.process_time() - t:.0f} s CPU")


if __name__ == "__main__":
    main()
