"""Two checkouts of the project, side by side: batched-engine decisions per second.

Runs ``bench/bench_batched.py`` of checkout A (``--base``, e.g. an unpacked
``git archive`` of the commit before a change) and of this checkout in
fresh processes, alternately round by round, so both see the same machine
load; prints each run's wall-clock and per-CPU-second rates and the medians.

    git archive HEAD~1 | tar -x -C /tmp/base
    python bench/bench_side_by_side.py --base /tmp/base --rounds 5 -- --envs 4096 --steps 50
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from agents.arena.argtypes import positive_int

ROOT = Path(__file__).resolve().parents[1]
RATE = re.compile(r"([\d,]+)/s median")


def run(root: Path, args: list[str]) -> tuple[float, float]:
    """The median wall-clock and per-CPU-second rates that ``root``'s bench_batched.py prints."""
    env = dict(os.environ, PYTHONPATH=str(root), OMP_WAIT_POLICY="PASSIVE")
    out = subprocess.run([sys.executable, str(root / "bench" / "bench_batched.py"), *args], env=env,
                         capture_output=True, text=True, check=True).stdout
    rates = [float(x.replace(",", "")) for x in RATE.findall(out)]
    if len(rates) < 2:
        raise SystemExit(f"cannot read the rates of {root}: {out!r}")
    return rates[0], rates[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="the other checkout (A)")
    ap.add_argument("--rounds", type=positive_int, default=5)
    ap.add_argument("bench_args", nargs="*", help="arguments of bench_batched.py (after --)")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    results: dict[str, list[tuple[float, float]]] = {"base": [], "this": []}
    for i in range(args.rounds):
        pair = (("base", args.base), ("this", ROOT))
        for name, root in pair if i % 2 == 0 else pair[::-1]:
            results[name].append(run(root, args.bench_args))
            print(f"round {i} {name}: {results[name][-1][0]:,.0f} decisions/s, "
                  f"{results[name][-1][1]:,.0f} per CPU-second")
    for name, rows in results.items():
        print(f"{name}: median {statistics.median(r[0] for r in rows):,.0f} decisions/s, "
              f"{statistics.median(r[1] for r in rows):,.0f} per CPU-second ({args.rounds} runs)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
