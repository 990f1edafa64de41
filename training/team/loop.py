"""Team self-play for four-player partnership Sixty-Six: one network in all four seats, masked PPO.

Usage::

    python train.py --config configs/team.yaml               # players: 4 picks this loop
    python train.py --config configs/team.yaml updates=400   # override any key
    python train.py --config configs/team.yaml --resume      # continue runs/<name>/last.pt

A new run first imitates a teacher team when ``warm_deals`` > 0
(:mod:`training.team.warm`). Then one update:

1. **Collect** (:mod:`training.team.rollout`): ``deals_per_update`` whole
   deals side by side; the network plays both teams of a share of them
   (``opp_self``) and one team against a past snapshot (``opp_snapshot``)
   or the bot team ``opp_bot_spec`` (``opp_bot``) at the others. Every seat
   is rewarded with its team's game points.
2. **GAE** (:func:`training.gae.compute_gae`), each seat's decisions in a deal
   one trajectory.
3. **PPO update** (:func:`ppo_update`): the clipped surrogate, value loss and
   entropy bonus (:mod:`training.ppo`), plus the imitation term on the
   warm-start positions, decaying to 0.
4. **Checkpoint** ``last.pt`` (a team checkpoint, :mod:`agents.four.net`:
   ``net:<path>`` plays it), **evaluate** every ``eval_every`` updates and at
   the end: duplicate team matches against ``eval_spec``
   (:func:`agents.arena.team_match`), ``best.pt`` on a new best, and log
   ``metrics.csv`` in the run folder.

Deal seeds follow from ``seed`` and the update, so ``--resume`` deals as the
uninterrupted run would have. Ctrl-C or SIGTERM saves ``last.pt`` with the
last finished update. Expected failures are one line and exit code 2.
"""

from __future__ import annotations

# isort: off
import training.threads  # noqa: F401 - first: torch's threads must not spin (training/threads.py)
# isort: on
import dataclasses
import math
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents import checkpoint
from agents.four.net import CRITIC4_SIZE, build_team, load_team
from agents.lifetime import signals_held, sigterm_interrupts
from agents.nets import PolicyNet, ValueNet, masked_distribution
from sixtysix_env.aec_four import OBS4_SIZE
from sixtysix_env.seeding import derive_seed
from training import run_folder
from training.config import ConfigError, config_from_dict, help_text, parse_command_line
from training.logger import Logger
from training.ppo import clipped_surrogate, explained_variance

from .config import ARCHITECTURE, TeamConfig
from .evaluate import TeamResult, duplicate_eval
from .rollout import TeamBatch, collect
from .warm import WARM_FILE, WarmData, generate, imitation_loss, pretrain

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "team.yaml"


@dataclass
class TeamRun:
    """A run's networks and state between updates: what ``last.pt`` holds (and ``warm.npz``)."""

    cfg: TeamConfig
    dir: Path
    policy: PolicyNet
    critic: ValueNet
    optimizer: torch.optim.Optimizer
    snapshot_net: PolicyNet
    rng: np.random.Generator
    snapshots: list[dict[str, torch.Tensor]] = field(default_factory=list)
    update: int = 0
    deals: int = 0  # deals played in PPO: the log's step
    best: float = -math.inf
    cpu_s: float = 0.0  # CPU seconds of all invocations (the warm start included)
    clock: float = field(default_factory=time.process_time)  # this process's CPU time when cpu_s was counted
    warm_done: bool = False
    warm: WarmData | None = None
    resumed: bool = False
    final: TeamResult | None = None


def start(cfg: TeamConfig, folder: Path, ckpt: dict[str, Any] | None) -> TeamRun:
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    policy, critic = PolicyNet(OBS4_SIZE, cfg.hidden), ValueNet(CRITIC4_SIZE, cfg.critic_hidden)
    params = [*policy.parameters(), *critic.parameters()]
    optimizer = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
    run = TeamRun(cfg, folder, policy, critic, optimizer, PolicyNet(OBS4_SIZE, cfg.hidden),
                  np.random.default_rng(cfg.seed))
    if ckpt is None:
        return run
    try:  # shapes and types are checked (load_team); these may still refuse
        policy.load_state_dict(ckpt["policy"])
        critic.load_state_dict(ckpt["critic"])
        optimizer.load_state_dict(ckpt["optimizer"])
        checkpoint.check_optimizer(optimizer)
        torch.set_rng_state(ckpt["rng"]["torch"])
        run.rng.bit_generator.state = ckpt["rng"]["numpy"]
    except (RuntimeError, KeyError, ValueError, TypeError, IndexError) as e:
        reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise ConfigError(f"--resume: checkpoint {folder / 'last.pt'} cannot be resumed: {reason}") from None
    run.snapshots = list(ckpt["snapshots"])
    run.update, run.deals, run.best = ckpt["update"], ckpt["global_step"], float(ckpt["best"])
    run.cpu_s = float(ckpt.get("cpu_s", 0.0)) if isinstance(ckpt.get("cpu_s"), (int, float)) else 0.0
    run.warm_done, run.resumed = ckpt.get("warm_done") is True, True
    return run


def resume_from(path: Path, overrides: dict[str, Any]) -> tuple[dict[str, Any], TeamConfig]:
    """The checkpoint of a team run to resume and its config with ``overrides``; a ConfigError
    if it cannot be resumed or the overrides change its networks."""
    if not path.is_file():
        raise ConfigError(f"--resume: no checkpoint {path} to resume from")
    try:
        ckpt = load_team(path, resumable=True)
    except ValueError as e:
        raise ConfigError(f"--resume: {e}") from None
    saved = config_from_dict(ckpt["config"], where=str(path), schema=TeamConfig)
    cfg = config_from_dict({**ckpt["config"], **overrides}, where=str(path), schema=TeamConfig)
    for key in ARCHITECTURE:
        if getattr(cfg, key) != getattr(saved, key):
            raise ConfigError(f"--resume: {path} holds networks with {key}={getattr(saved, key)}; "
                              f"{key}={getattr(cfg, key)} needs a new run (name=...)")
    return ckpt, cfg


def save(run: TeamRun, path: Path, full: bool) -> None:
    """``best.pt`` (the networks and counters) or, ``full``, ``last.pt`` (all to resume)."""
    entries: dict[str, Any] = {"critic": run.critic.state_dict(), "global_step": run.deals,
                               "update": run.update, "best": run.best if math.isfinite(run.best) else -1e9,
                               "cpu_s": run.cpu_s, "warm_done": run.warm_done}
    if full:
        entries.update(optimizer=run.optimizer.state_dict(), snapshots=run.snapshots,
                       rng={"torch": torch.get_rng_state(), "numpy": run.rng.bit_generator.state})
    checkpoint.save_atomic(build_team(dataclasses.asdict(run.cfg), run.policy, **entries), path)


def warm_start(run: TeamRun, given: WarmData | None) -> dict[str, float]:
    """Imitate the teacher team (new runs with ``warm_deals``, or on the positions ``given``
    from ``warm_data``), or read a resumed run's positions back."""
    cfg, path = run.cfg, run.dir / WARM_FILE
    if cfg.warm_deals == 0 and not cfg.warm_data:
        run.warm_done = True
        return {}
    if run.warm_done:
        run.warm = WarmData.load(path) if path.is_file() else None
        return {}
    if given is not None:
        print(f"warm start: the {len(given):,} positions of {cfg.warm_data}", flush=True)
        run.warm = given
    else:
        print(f"warm start: {cfg.warm_teacher} plays {cfg.warm_deals:,} deals ...", flush=True)
        run.warm = generate(cfg)
    run.warm.save(path)
    metrics = pretrain(cfg, run.warm, run.policy, run.critic, run.optimizer)
    run.warm_done = True
    return metrics


def train(cfg: TeamConfig, resume: bool = False, overrides: dict[str, Any] | None = None) -> TeamRun:
    """Run (or, with ``resume``, continue) a team run in ``<run_dir>/<name>``; the finished run."""
    folder = Path(cfg.run_dir) / cfg.name
    ckpt, cfg = resume_from(folder / "last.pt", overrides or {}) if resume else (None, cfg)
    given = WarmData.load(Path(cfg.warm_data)) if cfg.warm_data and ckpt is None else None  # before any write
    with run_folder.claim(folder, resume, "updates=N"):
        run = start(cfg, folder, ckpt)
        run_folder.write_config(folder, dataclasses.asdict(cfg))
        state = f"resumed at update {run.update}" if run.resumed else "new run"
        print(f"run folder: {folder} ({state}, to update {cfg.updates}); checkpoint: {folder / 'last.pt'}; "
              f"metrics: {folder / 'metrics.csv'}", flush=True)
        logger = Logger(folder, False, False, cfg.updates, run.deals, cfg.name)
        run.clock = time.process_time()
        try:
            warm = warm_start(run, given)
            count_cpu(run)
            save(run, folder / "last.pt", full=True)
            if warm:
                logger.log(run.deals, warm)
            loop(run, logger)
        except KeyboardInterrupt:
            with signals_held(redeliver=False):
                count_cpu(run)
                save(run, folder / "last.pt", full=True)
            raise
        finally:
            logger.close()
    return run


def count_cpu(run: TeamRun) -> None:
    """Add this process's CPU time since the last count to ``run.cpu_s``."""
    now = time.process_time()
    run.cpu_s += now - run.clock
    run.clock = now


def loop(run: TeamRun, logger: Logger) -> None:
    """Updates from ``run.update`` to ``updates``: collect, GAE, update, checkpoint, evaluate, log."""
    cfg = run.cfg
    began = time.monotonic()
    while run.update < cfg.updates:
        run.snapshot_net.load_state_dict(run.snapshots[int(run.rng.integers(len(run.snapshots)))]
                                         if run.snapshots else run.policy.state_dict())
        t0 = time.perf_counter()
        batch, results = collect(cfg, run.update, run.rng, run.policy, run.critic, run.snapshot_net)
        collect_s = time.perf_counter() - t0
        with signals_held():
            coef = cfg.imitation_coef * (1 - run.update / max(1, cfg.updates))
            losses = ppo_update(run, batch, coef if run.warm is not None and len(run.warm) else 0.0)
            run.update += 1
            run.deals += cfg.deals_per_update
            count_cpu(run)
            if checkpoint.nonfinite({"policy": run.policy.state_dict(), "critic": run.critic.state_dict()}):
                raise checkpoint.NonFiniteWeightsError(
                    f"update {run.update} left NaN or infinite weights (learning_rate too high?); "
                    "last.pt keeps the one before")
            if run.update % cfg.snapshot_every == 0:
                run.snapshots.append({k: v.detach().clone() for k, v in run.policy.state_dict().items()})
                del run.snapshots[:-cfg.snapshot_pool]
            save(run, run.dir / "last.pt", full=True)
        finished = run.update >= cfg.updates or (
            cfg.time_limit > 0 and time.monotonic() - began >= 60 * cfg.time_limit)
        metrics = {"charts/collect_s": collect_s, "charts/rows": float(len(batch.actions)),
                   "charts/cpu_minutes": run.cpu_s / 60, "charts/imitation_coef": coef, **losses,
                   "losses/explained_variance": explained_variance(batch.returns.numpy(),
                                                                   batch.values.numpy())}
        metrics.update({f"charts/points_{k}": float(np.mean(v))
                        for k, v in results.items() if v and k != "self"})
        if finished or (cfg.eval_every > 0 and run.update % cfg.eval_every == 0):
            metrics.update(evaluate(run))
            count_cpu(run)
        logger.log(run.deals, metrics)
        if finished:
            save(run, run.dir / "last.pt", full=True)  # with the evaluation's CPU time
            break


def evaluate(run: TeamRun) -> dict[str, float]:
    """Duplicate deals of the network against ``eval_spec`` (:mod:`training.team.evaluate`, the
    same deals each time); ``best.pt`` on a new best."""
    cfg = run.cfg
    if cfg.eval_deals == 0:
        return {}
    res = duplicate_eval(run.policy, cfg.eval_spec, cfg.eval_deals, derive_seed(cfg.seed, "team-eval"))
    run.final = res
    print(f"update {run.update}: {res.line()}; {run.cpu_s / 60:.1f} CPU minutes", flush=True)
    if res.per_deal > run.best:
        run.best = res.per_deal
        save(run, run.dir / "best.pt", full=False)
    return {"eval/points_per_deal": res.per_deal, "eval/ci_low": res.ci[0], "eval/ci_high": res.ci[1]}


def ppo_update(run: TeamRun, b: TeamBatch, imitation: float) -> dict[str, float]:
    """``update_epochs`` passes of minibatch Adam on the PPO loss, plus ``imitation`` x the
    cross-entropy towards the teacher on as many warm-start positions."""
    cfg, policy = run.cfg, run.policy
    size = len(b.actions)
    mb_size = max(2, size // cfg.num_minibatches)
    pg_loss = v_loss = entropy = approx_kl = i_loss = torch.zeros(())
    clipfracs: list[float] = []
    for _ in range(cfg.update_epochs):
        order = torch.randperm(size)
        for begin in range(0, size - mb_size + 1, mb_size):
            mb = order[begin:begin + mb_size]
            dist = masked_distribution(policy(b.obs[mb]), b.masks[mb])
            logratio = dist.log_prob(b.actions[mb]) - b.logprobs[mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
            pg_loss = clipped_surrogate(ratio, b.advantages[mb], cfg.clip_coef)
            v_loss = 0.5 * ((run.critic(b.critic_obs[mb]) - b.returns[mb]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            if imitation > 0 and run.warm is not None:
                i_loss = imitation_loss(policy, run.warm, run.rng.integers(len(run.warm), size=mb_size))
                loss = loss + imitation * i_loss
            run.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(run.optimizer.param_groups[0]["params"], cfg.max_grad_norm)
            run.optimizer.step()
    return {"losses/policy": pg_loss.item(), "losses/value": v_loss.item(), "losses/entropy": entropy.item(),
            "losses/approx_kl": approx_kl.item(), "losses/imitation": i_loss.item(),
            "losses/clipfrac": float(np.mean(clipfracs or [0.0]))}


def report(run: TeamRun) -> str:
    """What the run achieved, where its checkpoint is, and how to use it."""
    cfg, d = run.cfg, run.dir
    lines = [f"done: {d} ({run.update} updates, {run.deals:,} deals, {run.cpu_s / 60:.1f} CPU minutes)"]
    if run.final is not None:
        lines.append("the greedy network, duplicate deals, " + run.final.line())
    bot = shlex.quote(f"net:{d / 'last.pt'}")
    lines += [f"checkpoint: {d / 'last.pt'}",
              f"measure it: sixtysix arena --players 4 {bot} heuristic --unit deal --games 300",
              "go on:      " + shlex.join(["python", "train.py", "--resume", f"name={d.name}",
                                          f"run_dir={d.parent}", f"updates={2 * cfg.updates}"])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "-h" in args or "--help" in args:
        print(__doc__)
        print("Config keys (defaults of training.team.config.TeamConfig):")
        print(help_text(TeamConfig))
        return 0
    try:
        with sigterm_interrupts() as stop:
            command = parse_command_line(args, DEFAULT_CONFIG, TeamConfig)
            run = train(command.config, resume=command.resume, overrides=command.overrides)
    except (ConfigError, checkpoint.CheckpointError, checkpoint.NonFiniteWeightsError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"stopped by {stop.name}: last.pt keeps the last finished update; go on with --resume",
              file=sys.stderr)
        return stop.exit_code
    print(report(run))
    return 0
