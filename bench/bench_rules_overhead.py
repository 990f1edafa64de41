"""German engine speed with rule presets vs. the engine of a git revision, side by side.

Loads the engine, scoring and dealing modules of ``--base`` (default
``main``) from git into a throw-away package next to the working tree's, then
times both in alternation in this one process (random legal play, like
``bench_engine.py``; CPU time), so machine load hits both alike. Also
checks that both give identical deals and results on the same seeds. Prints the other
presets' speed too.

    python bench/bench_rules_overhead.py --seconds 1 --rounds 6
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import sixtysix_env.deals as new_deals
from agents.arena.argtypes import positive_int, positive_seconds

# The rules modules a deal needs; those a revision lacks are skipped (older revisions have fewer).
MODULES = (
    "__init__", "actions", "cards", "deals", "engine", "scoring", "seeding", "variants", "variant_rules",
)  # fmt: skip


def load_base(rev: str) -> object:
    """The ``deals`` module of git revision ``rev`` as package ``base_sixtysix``."""
    root = tempfile.mkdtemp(prefix="bench_rules_")
    pkg = os.path.join(root, "base_sixtysix")
    os.makedirs(pkg)
    for m in MODULES:
        shown = subprocess.run(
            ["git", "show", f"{rev}:sixtysix_env/{m}.py"], capture_output=True, text=True
        )
        if m != "__init__" and shown.returncode:
            continue
        src = "" if m == "__init__" else shown.stdout
        with open(os.path.join(pkg, f"{m}.py"), "w") as f:
            f.write(src)
    sys.path.insert(0, root)
    return importlib.import_module("base_sixtysix.deals")


def _pick(mask: int, r: float) -> int:
    k = int(r * mask.bit_count())
    for _ in range(k):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def run(deal_fn, seconds: float, seed: int, clone: bool) -> float:
    """Decisions per CPU second over about ``seconds``."""
    rng = random.Random(seed)
    rand = rng.random
    decisions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(50):
            s = deal_fn(rng)
            while s.window != 5:
                if clone:
                    s = s.clone()
                s.apply_unchecked(_pick(s.legal_mask(), rand()))
                decisions += 1
    return decisions / (time.process_time() - start)


def same_results(base, n: int) -> bool:
    for seed in range(n):
        results = []
        for mod in (base, new_deals):
            rng = random.Random(seed)
            s = mod.deal(rng)
            while s.window != 5:
                s.apply(_pick(s.legal_mask(), rng.random()))
            results.append((s.result, s.hands, s.won))
        if results[0] != results[1]:
            return False
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--seconds", type=positive_seconds, default=1.0)
    parser.add_argument("--rounds", type=positive_int, default=6)
    args = parser.parse_args(argv)
    base = load_base(args.base)
    print(f"identical results on 2,000 seeded random deals: {same_results(base, 2000)}")
    for clone in (False, True):
        old, new = [], []
        for i in range(args.rounds):
            pair = [(old, base.deal), (new, new_deals.deal)]
            if i % 2:
                pair.reverse()
            for out, fn in pair:
                out.append(run(fn, args.seconds, i, clone))
        mo, mn = statistics.median(old), statistics.median(new)
        print(f"{'clone' if clone else 'unchecked':>9}: base {mo:,.0f}  rules {mn:,.0f} decisions/s "
              f"(ratio {mn / mo:.3f}, median of {args.rounds} alternated x {args.seconds:g}s CPU)")
    for spec in ("kawu", "schnapsen", "schnapsen-pkg"):
        def dealer(rng: random.Random, spec: str = spec) -> object:
            return new_deals.deal(rng, rules=spec)

        rate = statistics.median(run(dealer, args.seconds, i, False) for i in range(3))
        print(f"{spec:>13}: {rate:,.0f} decisions/s (unchecked, median of 3)")
    print("load:", os.getloadavg())


if __name__ == "__main__":
    main()
