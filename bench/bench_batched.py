"""Decisions per second of the batched engine, observations and masks included.

Steps :class:`sixtysix_env.batched.vector.SelfPlayEnv` (the self-play
interface: engine step, automatic reset of finished deals, the 312-feature
observation and the action mask of the player to act, every step) with a
uniformly random legal action per table, and reports decisions per second
(one decision = one table's action). Prints the best and the median of
``--repeat`` timed blocks, so a briefly busy machine shows in the spread, and
on CPU also the rate per CPU-second of this process, which a shared machine
disturbs much less than the wall-clock rate.

    python bench/bench_batched.py                      # 4,096 tables, CPU, 1 thread
    python bench/bench_batched.py --threads 2
    python bench/bench_batched.py --device cuda --envs 65536
    python bench/bench_batched.py --full-obs           # plus the critic's 384 features
    python bench/bench_batched.py --rules kawu         # a rule preset (docs/rules-variants.md)
    python bench/bench_batched.py --gym                # the Gymnasium env: learner steps against a
                                                       # random opponent (its moves are not counted)
"""

from __future__ import annotations

# isort: off
from agents.arena.argtypes import positive_int
import training.threads  # noqa: F401 - first: torch's threads must not spin (training/threads.py)
# isort: on
import argparse
import statistics
import time

import torch

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.batched.sampling import random_actions
from sixtysix_env.batched.vector import SelfPlayEnv, SixtySixVectorEnv


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", type=positive_int, default=4096, help="tables stepped together (batch size)")
    ap.add_argument("--steps", type=positive_int, default=100, help="steps per timed block")
    ap.add_argument("--repeat", type=positive_int, default=5, help="timed blocks")
    ap.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--episode", choices=("match", "deal"), default="match")
    ap.add_argument("--full-obs", action="store_true", help="also the 384-feature critic input")
    ap.add_argument("--no-validate", action="store_true", help="skip the legality check of actions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gym", action="store_true", help="time SixtySixVectorEnv (learner vs random) instead")
    ap.add_argument("--rules", default=None, help="rule preset spec (default german), e.g. kawu, schnapsen")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    gen = torch.Generator(device=device).manual_seed(args.seed + 1)
    if args.gym:
        env = SixtySixVectorEnv(args.envs, device=device, seed=args.seed, episode=args.episode,
                                validate=not args.no_validate, rules=args.rules)
        _, infos = env.reset()

        def step() -> torch.Tensor:
            nonlocal infos
            legal = (infos["action_mask"].long() << torch.arange(N_ACTIONS, device=device)).sum(1)
            _, _, terminated, _, infos = env.step(random_actions(legal, gen))
            return terminated.sum()
    else:
        env = SelfPlayEnv(args.envs, args.seed, device=device, episode=args.episode, full_obs=args.full_obs,
                          validate=not args.no_validate, rules=args.rules)

        def step() -> torch.Tensor:
            env.step(random_actions(env.engine.legal, gen))
            return env.deal_done.sum()

    rates, cpu_rates = [], []
    ends = 0
    with torch.inference_mode():
        for block in range(args.repeat + 1):  # block 0 warms up
            sync(device)
            t0, c0 = time.perf_counter(), time.process_time()
            done = torch.zeros((), dtype=torch.int64, device=device)
            for _ in range(args.steps):
                done += step()
            sync(device)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            if block:
                rates.append(args.envs * args.steps / dt)
                cpu_rates.append(args.envs * args.steps / dc)
                ends += int(done)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {args.threads} thread(s)"
    if args.rules:
        name += f"; rules {args.rules}"
    what = "Gymnasium env: learner steps" if args.gym else "batched engine: decisions"
    extra = "observations, masks, final observations and the opponent's moves included; " \
        f"{ends} episodes ended" if args.gym else \
        f"observations{' + full' if args.full_obs else ''} and masks included; {ends} deals ended"
    print(
        f"{what}: {max(rates):,.0f}/s best, {statistics.median(rates):,.0f}/s median "
        f"({args.repeat} blocks of {args.steps} steps x {args.envs} tables; {name}; {extra})"
    )
    if device.type == "cpu":  # on a busy machine wall-clock time also counts the other processes' turns
        print(f"  per CPU-second of this process: {max(cpu_rates):,.0f}/s best, "
              f"{statistics.median(cpu_rates):,.0f}/s median (the wall-clock rate of an idle machine "
              f"with 1 thread; with more threads, CPU time adds up over them)")


if __name__ == "__main__":
    main()
