"""Torch threads and OpenMP's wait policy, side by side: decisions per second and CPU time.

Runs the same workload in fresh processes (OpenMP reads its wait policy when
torch is imported) for each setting, interleaved round by round so every
setting sees the same machine load:

- ``1``: 1 torch thread (the default of every config);
- ``2 spin``: 2 threads, OpenMP's own default wait (threads spin between
  parallel regions; ``OMP_WAIT_POLICY`` unset);
- ``2 passive``: 2 threads with ``OMP_WAIT_POLICY=PASSIVE`` (what
  ``training.threads`` sets before torch loads).

Workloads: ``engine`` steps ``SelfPlayEnv`` with random legal actions (the
batched engine, observations and masks); ``collect`` runs the training
collector (``training.rollout.collect`` on ``BatchedEnvs``) with a
256x256 policy and critic and the self-play opponent mix. Reports, per
setting, the median decisions per wall-clock second, decisions per
CPU-second of the process (user + system, all its threads) and the load
average before and after.

    python bench/bench_threads.py                    # both workloads, 3 rounds
    python bench/bench_threads.py --workload engine --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from agents.arena.argtypes import positive_int, positive_seconds

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"1": (1, None), "2 spin": (2, None), "2 passive": (2, "PASSIVE")}


def child(workload: str, threads: int, seconds: float) -> None:
    """Run ``workload`` for about ``seconds`` after a warm-up; print decisions, wall and CPU time."""
    import numpy as np
    import torch

    from agents.core.nets import PolicyNet, ValueNet
    from sixtysix_env.batched.sampling import random_actions
    from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
    from training.config import Config
    from training.envs import BatchedEnvs
    from training.opponents import Opponents
    from training.rollout import Players, Rollout, collect

    torch.set_num_threads(threads)
    if workload == "engine":
        tables = BatchedEnvs(4096, 0, "match")
        gen = torch.Generator().manual_seed(1)

        def work() -> int:
            with torch.inference_mode():
                for _ in range(20):
                    tables.env.step(random_actions(tables.env.engine.legal, gen))
            return 20 * 4096
    else:
        cfg = Config(num_envs=1024, rollout_steps=16, opp_self=0.5, opp_snapshot=0.2, opp_random=0.05,
                     opp_heuristic=0.0)
        rng = np.random.default_rng(0)
        tables, opponents = BatchedEnvs(1024, 0, "match"), Opponents(cfg, 1024, rng)
        policy = PolicyNet(OBS_SIZE, [256, 256])
        players = Players(policy, ValueNet(FULL_OBS_SIZE, [256, 256]), PolicyNet(OBS_SIZE, [256, 256]))
        buf = Rollout(16, 1024, FULL_OBS_SIZE)

        def work() -> int:
            collect(tables, opponents, players, buf, rng, drop_forced=True)
            return 16 * 1024

    work()  # warm-up
    decisions, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        decisions += work()
    print(json.dumps({"decisions": decisions, "wall": time.perf_counter() - t0,
                      "cpu": time.process_time() - c0}))


def run(workload: str, setting: str, seconds: float) -> dict[str, float]:
    threads, policy = SETTINGS[setting]
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = str(ROOT)
    env["OMP_WAIT_POLICY"] = policy or ""
    if policy is None:
        del env["OMP_WAIT_POLICY"]
    cmd = [sys.executable, __file__, "--child", workload, str(threads), str(seconds)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", choices=("engine", "collect", "both"), default="both")
    ap.add_argument("--rounds", type=positive_int, default=3)
    ap.add_argument("--seconds", type=positive_seconds, default=4.0, help="timed seconds per run")
    args = ap.parse_args()
    workloads = ("engine", "collect") if args.workload == "both" else (args.workload,)
    print(f"{os.cpu_count()} CPUs; load average before: {os.getloadavg()}")
    for workload in workloads:
        results: dict[str, list[dict[str, float]]] = {s: [] for s in SETTINGS}
        for _ in range(args.rounds):
            for setting in SETTINGS:
                results[setting].append(run(workload, setting, args.seconds))
        print(f"\n{workload}: median of {args.rounds} runs of {args.seconds:g} s, interleaved")
        print(f"{'threads':<11}{'decisions/s':>13}{'per CPU-s':>12}{'CPU/wall':>10}")
        for setting, rows in results.items():
            rate = statistics.median(r["decisions"] / r["wall"] for r in rows)
            per_cpu = statistics.median(r["decisions"] / r["cpu"] for r in rows)
            busy = statistics.median(r["cpu"] / r["wall"] for r in rows)
            print(f"{setting:<11}{rate:>13,.0f}{per_cpu:>12,.0f}{busy:>10.2f}")
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
