"""Masked PPO self-play for Sixty-Six, readable top to bottom (after CleanRL's ``ppo.py``).

Usage::

    python train.py                                      # configs/default.yaml
    python train.py --config configs/long.yaml           # the full recipe
    python train.py --total-steps 100000 name=try seed=3 # override any config key
    python train.py --resume                             # continue runs/<name>/last.pt

One iteration:

1. **Collect** (:func:`training.rollout.collect`, one collector for both
   engines of :mod:`training.envs`). ``num_envs`` tables play
   matches; the learner's policy plays both seats of self-play tables and one
   seat against an opponent from the pool (:mod:`training.opponents`). With
   ``assist`` the policy's seats play obvious moves by rule (and, ``full``,
   the exact solver once the talon is spent), so the network learns the
   decisions where judgement matters. A teacher (:mod:`training.teacher`)
   labels the learner's rows in worker processes meanwhile.
2. **GAE** over per-seat trajectories (:func:`training.gae.compute_gae`): a
   deal's reward belongs to each player's own last decision; a seat's transition
   still open at the rollout's end waits for that seat's next decision, in the next
   rollout (:class:`training.rollout.Rollout`). The critic may
   see the full state (``full_critic``); the policy never does.
3. **PPO update** (:func:`ppo_update`, below): clipped surrogate, value loss,
   entropy bonus, on the stored masks; plus the teacher term (kickstarting):
   with ``pimc-values`` the centred logits are regressed on PIMC's action
   values in one sampled world, a distillation of PIMC that is most of the
   learning in runs this short.
4. **Evaluate** against random, heuristic and pimc through the arena
   (:mod:`training.evaluation`), log (``charts/``, ``losses/``, ``eval/`` in
   TensorBoard and ``metrics.csv``), checkpoint atomically (``last.pt``:
   everything to resume but the table positions, so a resumed run goes on
   with fresh deals; ``best.pt``: the best policy so far against heuristic).

At the end it prints what the run achieved, where the checkpoint is and how
to play it.

Nothing lost, nothing leaked: the config (every value and folder name) is
checked before any work, and every bot it names built and asked one move
(:mod:`training.preflight`) before the run folder is claimed; a checkpoint
to resume is validated whole (:mod:`agents.core.checkpoint`) and its bot specs
are data, run only if the command line names them again
(:func:`training.config.trusted_config`); a new run never writes over
another run's folder (:mod:`training.run_folder`); checkpoints are written whole or not at
all, never with non-finite weights, and the final ``last.pt`` before the
final evaluation. It says where it writes before it starts (the run folder,
``last.pt``, ``metrics.csv``). Ctrl-C or SIGTERM stops a run at once and
loses no finished update: a rollout under way is abandoned, an update under
way finishes (the signals wait for it), ``last.pt`` is saved with the last
update, the teacher's workers are killed and the message says how to go on
(``--resume``); no worker process outlives ``train.py``, even after
SIGKILL. Expected failures (a bad config, a full disk) are one line and exit
code 2; an interrupt exits with 128 + the signal number.
"""

from __future__ import annotations

# isort: off
import training.threads  # noqa: F401 - first: torch's threads must not spin (training/threads.py)
# isort: on
import dataclasses
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.arena import PairingStats
from agents.core import checkpoint
from agents.core.lifetime import signals_held
from agents.core.nets import PolicyNet, ValueNet, masked_distribution
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from sixtysix_env.seeding import derive_seed
from training import evaluation, expert, lifecycle, preflight, run_folder, schedules, team
from training.config import VALUE_TEACHER, Config, check_resume_rules
from training.envs import check_config, make_envs
from training.gae import compute_gae
from training.logger import Logger
from training.opponents import Opponents
from training.ppo import action_teacher_loss, clipped_surrogate, explained_variance, value_distill_loss
from training.rollout import Batch, Players, Rollout, collect, reward_metrics
from training.teacher import Teacher

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "default.yaml"


@dataclass
class Run:
    """A run's networks and state from update to update: what ``last.pt`` saves to resume it."""

    cfg: Config
    policy: PolicyNet
    critic: ValueNet
    optimizer: torch.optim.Optimizer
    snapshot_net: PolicyNet  # plays the snapshot tables, with weights from the pool
    rng: np.random.Generator
    snapshots: list[dict[str, torch.Tensor]] = field(default_factory=list)
    global_step: int = 0
    update: int = 0
    best: float = -1.0
    resumed: bool = False
    final: dict[str, PairingStats] = field(default_factory=dict)  # the last evaluation
    dir: Path = Path()  # <run_dir>/<name> of the command line (a resumed checkpoint may name another)
    saved_step: int = 0  # the step last.pt holds
    unsaved: str = ""  # why the save at a stop failed ("" if it did not)


ARCHITECTURE = ("hidden", "critic_hidden", "full_critic")  # config keys a resumed run cannot change
PROGRAM = ("python", "train.py")  # how the resume command starts


# ============================================================ config -> networks
def start(cfg: Config, folder: Path, ckpt: dict[str, Any] | None) -> Run:
    """The networks and optimizer of a new run, or of the checkpoint ``ckpt`` of a run to
    resume (:func:`resume_from`). Writes nothing."""
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    policy = PolicyNet(OBS_SIZE, cfg.hidden)
    critic = ValueNet(critic_size(cfg), cfg.critic_hidden)
    params = [*policy.parameters(), *critic.parameters()]
    optimizer = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
    snapshot_net = PolicyNet(OBS_SIZE, cfg.hidden)
    run = Run(cfg, policy, critic, optimizer, snapshot_net, np.random.default_rng(cfg.seed), dir=folder)
    if ckpt is not None:
        with lifecycle.restoring(folder / "last.pt"):
            policy.load_state_dict(ckpt["policy"])
            critic.load_state_dict(ckpt["critic"])
            optimizer.load_state_dict(ckpt["optimizer"])
            checkpoint.check_optimizer(optimizer)
            torch.set_rng_state(ckpt["rng"]["torch"])
            run.rng.bit_generator.state = ckpt["rng"]["numpy"]
        run.snapshots = list(ckpt["snapshots"])
        run.global_step, run.update = ckpt["global_step"], ckpt["update"]
        run.saved_step, run.best = run.global_step, max(ckpt["best"], best_score(folder))
        run.resumed = True
    return run


def resume_from(path: Path, overrides: dict[str, Any]) -> tuple[dict[str, Any], Config]:
    """The checkpoint ``path`` of a run to resume and its config with ``overrides``; a
    ConfigError if it cannot be resumed, or if the overrides change its networks, or if it names
    a bot that is not built in and the overrides do not name it again (a file from elsewhere
    never picks what a run starts: :func:`training.config.trusted_config`); a
    RulesMismatchError if the overrides change its rules."""
    ckpt, saved, cfg = lifecycle.resume_checkpoint(path, overrides, PROGRAM, ARCHITECTURE)
    check_resume_rules(saved, cfg, str(path))
    return ckpt, cfg


def best_score(folder: Path) -> float:
    """The score ``best.pt`` in ``folder`` was saved with (-1 if none): a resumed run replaces
    it only with a better policy, even if ``last.pt`` was written before it."""
    try:
        return float(checkpoint.load(folder / "best.pt").get("best", -1.0))
    except ValueError:
        return -1.0


def critic_size(cfg: Config) -> int:
    """The critic's input: the full state (``encode_full``) or the player's observation."""
    return FULL_OBS_SIZE if cfg.full_critic else OBS_SIZE


def save(run: Run, path: Path, full: bool) -> None:
    """``best.pt`` (the policy, critic and counters) or, ``full``, ``last.pt`` (all to resume)."""
    entries: dict[str, Any] = {"critic": run.critic.state_dict(), "global_step": run.global_step,
                               "update": run.update, "best": run.best}
    if full:
        entries.update(optimizer=run.optimizer.state_dict(), snapshots=run.snapshots,
                       rng={"torch": torch.get_rng_state(), "numpy": run.rng.bit_generator.state})
    checkpoint.save_atomic(checkpoint.build(dataclasses.asdict(run.cfg), run.policy, **entries), path)
    if full:
        run.saved_step = run.global_step


# ===================================================================== loop
def train(cfg: Config, resume: bool = False, overrides: dict[str, Any] | None = None) -> Run:
    """Run (or, with ``resume``, continue) training in ``<run_dir>/<name>``; returns the finished
    run. Ctrl-C (and SIGTERM, see :func:`main`) raises :class:`training.lifecycle.Interrupted` at
    once (an update under way first finishes): ``last.pt`` is saved with the last finished update
    and the teacher's workers are killed."""
    folder = Path(cfg.run_dir) / cfg.name
    ckpt, cfg = resume_from(folder / "last.pt", overrides or {}) if resume else (None, cfg)
    check_config(cfg)
    preflight.check_bots(cfg)  # before the folder is claimed: a failing bot spec writes nothing
    with run_folder.claim(folder, resume):
        run = start(cfg, folder, ckpt)
        if not run.resumed:
            save(run, folder / "last.pt", full=True)  # a run can be resumed from its first moment
        run_folder.write_config(folder, dataclasses.asdict(cfg))
        print(where(run), flush=True)
        seed = derive_seed(cfg.seed, "resume", run.update) if run.resumed else cfg.seed  # fresh deals
        teacher = Teacher(cfg.teacher, seed, cfg.teacher_frac, cfg.teacher_workers) if cfg.teacher else None
        logger = Logger(folder, cfg.tensorboard, cfg.progress, cfg.end_steps(), run.global_step, cfg.name)
        done = False
        try:
            loop(run, seed, teacher, logger)
            done = True
        except KeyboardInterrupt:
            save_on_stop(run)  # before the teacher's workers are killed: it takes a moment
            raise lifecycle.Interrupted(run) from None
        finally:
            if teacher is not None:
                teacher.close(now=not done)
            logger.close()
    return run


def loop(run: Run, seed: int, teacher: Teacher | None, logger: Logger) -> None:
    """Iterations from ``run.global_step`` to the config's end: collect, GAE, update, checkpoint,
    evaluate, log."""
    cfg = run.cfg
    N, T = cfg.num_envs, cfg.rollout_steps
    opponents = Opponents(cfg, N, run.rng)
    buf = Rollout(T, N, critic_size(cfg))
    tables = make_envs(cfg, seed)
    players = Players(run.policy, run.critic, run.snapshot_net)
    last_eval, began = run.global_step, time.monotonic()
    while run.global_step < cfg.end_steps():
        if cfg.anneal_lr:
            run.optimizer.param_groups[0]["lr"] = schedules.learning_rate(cfg, run.global_step)
        pick = schedules.snapshot_pick(run.rng, len(run.snapshots))
        run.snapshot_net.load_state_dict(run.policy.state_dict() if pick is None else run.snapshots[pick])
        teacher_w = schedules.teacher_weight(cfg, run.global_step, teacher is not None)

        # 1-2. collect T steps at N tables, per-seat GAE
        t0 = time.perf_counter()
        deal_rewards = collect(tables, opponents, players, buf, run.rng, teacher if teacher_w > 0 else None,
                               cfg.assist, cfg.drop_forced)
        collect_s = time.perf_counter() - t0
        closed, next_values = buf.open_ends()  # each seat's open transition waits for the next rollout
        adv, ret = compute_gae(buf.rewards, buf.values, buf.dones, buf.seats, closed, next_values,
                               cfg.gamma, cfg.gae_lambda)

        # 3. PPO update on the learner's rows; a stop (Ctrl-C, SIGTERM) waits for its end, so that
        # the weights, optimizer and counters a stop saves are those of one finished update
        with signals_held():
            t1 = time.perf_counter()
            batch = buf.learner_batch(adv, ret)
            losses = ppo_update(run, batch, teacher_w)
            update_s = time.perf_counter() - t1
            run.global_step += N * T
            run.update += 1
            check_finite(run)
            if run.update % cfg.snapshot_every == 0:
                run.snapshots.append({k: v.detach().clone() for k, v in run.policy.state_dict().items()})
                del run.snapshots[:-cfg.snapshot_pool]

        # 4. checkpoint, evaluate, log
        metrics = {
            "charts/sps": N * T / (collect_s + update_s), "charts/collect_sps": N * T / collect_s,
            "charts/learning_rate": run.optimizer.param_groups[0]["lr"],
            "charts/learner_rows": len(batch.actions),
            "charts/deals": sum(len(v) for v in deal_rewards.values()), "charts/teacher_coef": teacher_w,
            **losses,
            "losses/explained_variance": explained_variance(batch.returns.numpy(), batch.values.numpy()),
        }
        metrics.update(reward_metrics(deal_rewards))
        finished = run.global_step >= cfg.end_steps() or lifecycle.out_of_time(cfg.time_limit, began)
        if run.update % cfg.checkpoint_every == 0 or finished:
            save(run, run.dir / "last.pt", full=True)  # before evaluating: a failed evaluation loses nothing
        if (cfg.eval_every > 0 and run.global_step - last_eval >= cfg.eval_every) or finished:
            last_eval = run.global_step
            metrics.update(evaluate(run))
        logger.log(run.global_step, metrics)
        logger.progress(run.global_step, f"sps={metrics['charts/sps']:.0f} {evaluation.note(run.final)}")
        if finished:
            break


def where(run: Run) -> str:
    """Where the run writes, said before it starts."""
    d, cfg = run.dir, run.cfg
    state = f"resumed at step {run.global_step:,}" if run.resumed else "new run"
    tb = f" (tensorboard --logdir {d})" if cfg.tensorboard else ""
    return (f"run folder: {d} ({state}, to step {cfg.end_steps():,})\n"
            f"checkpoint: {d / 'last.pt'} (every {cfg.checkpoint_every} updates and on Ctrl-C or SIGTERM)"
            f"; metrics: {d / 'metrics.csv'}{tb}")


def save_on_stop(run: Run) -> None:
    """Save ``last.pt`` with the last finished update when a stop interrupts the loop (a rollout
    under way is abandoned: the next run deals afresh). Further signals wait for the save; a save
    that fails leaves the previous ``last.pt`` and says why (:attr:`Run.unsaved`)."""
    if run.global_step == run.saved_step:
        return
    with signals_held(redeliver=False):
        try:
            save(run, run.dir / "last.pt", full=True)
        except (OSError, ValueError) as e:  # a full disk; non-finite weights (check_finite said so)
            run.unsaved = str(e)


def check_finite(run: Run) -> None:
    """A named error at the first update that leaves a NaN or an infinity in the networks."""
    lifecycle.check_finite(run.policy, run.critic, f"update {run.update}",
                           f"{run.dir / 'last.pt'} keeps step {run.saved_step:,}, from before it")


def evaluate(run: Run) -> dict[str, float]:
    """Evaluate the policy (kept for the final report) and save ``best.pt`` on a new best."""
    run.final = evaluation.evaluate(run.policy, run.cfg, run.update)
    if evaluation.score(run.final) >= run.best:
        run.best = evaluation.score(run.final)
        save(run, run.dir / "best.pt", full=False)
    return evaluation.metrics(run.final)


# =================================================================== update
def ppo_update(run: Run, b: Batch, teacher_w: float) -> dict[str, float]:
    """``update_epochs`` passes of minibatch Adam on the PPO loss (+ the teacher term on
    the labelled rows); returns the last minibatch's ``losses/`` entries."""
    cfg, policy = run.cfg, run.policy
    size = len(b.actions)
    mb_size = max(2, size // cfg.num_minibatches)  # advantages are normalised over >= 2 rows
    clipfracs: list[float] = []
    pg_loss = v_loss = entropy = approx_kl = t_loss = torch.zeros(())
    for _epoch in range(cfg.update_epochs):
        order = torch.randperm(size)
        for start in range(0, size - mb_size + 1, mb_size):
            mb = order[start:start + mb_size]
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
            lab = mb[b.labelled[mb]]
            if teacher_w > 0 and len(lab):  # kickstarting on the labelled rows
                if cfg.teacher == VALUE_TEACHER:  # regress centred logits on PIMC's values
                    t_loss = value_distill_loss(policy(b.obs[lab]), b.teacher_values[lab], b.masks[lab],
                                                cfg.teacher_temp)
                else:  # cross-entropy towards the teacher bot's action
                    t_loss = action_teacher_loss(policy(b.obs[lab]), b.masks[lab], b.teacher[lab])
                loss = loss + teacher_w * t_loss
            run.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(run.optimizer.param_groups[0]["params"], cfg.max_grad_norm)
            run.optimizer.step()
        if cfg.target_kl > 0 and approx_kl.item() > cfg.target_kl:
            break
    return {"losses/policy": pg_loss.item(), "losses/value": v_loss.item(), "losses/entropy": entropy.item(),
            "losses/teacher": t_loss.item(), "losses/approx_kl": approx_kl.item(),
            "losses/clipfrac": float(np.mean(clipfracs or [0.0]))}


# ==================================================================== report
def report(run: Run) -> str:
    """What the run achieved, where its checkpoints are, and how to play and measure it."""
    cfg, d = run.cfg, run.dir
    lines = [f"done: {d} ({run.global_step:,} environment steps)"]
    if run.final:
        lines.append(f"final evaluation of the greedy policy (assist={cfg.assist}), matches to 7 on "
                     "duplicate deals, 95% intervals:")
        lines += evaluation.describe(run.final)
    elif not evaluation.opponents(cfg):
        lines.append("no evaluation (eval_random_games, eval_heuristic_games and eval_pimc_games are 0)")
    else:
        lines.append(f"nothing trained: the run was already at step {run.global_step:,} "
                     f"(total_steps {cfg.total_steps:,}, stop_steps {cfg.stop_steps:,})")
    best = f" (the best evaluated so far: {d / 'best.pt'})" if (d / "best.pt").exists() else ""
    bot = shlex.quote(f"ppo:{d / 'last.pt'}" + (f",assist={cfg.assist}" if cfg.assist != "full" else ""))
    lines += [
        f"checkpoint: {d / 'last.pt'}{best}",
        f"metrics:    {d / 'metrics.csv'}" + (f" (tensorboard --logdir {d})" if cfg.tensorboard else ""),
        f"curve:      python -m training.curve {shlex.quote(str(d))}   # evaluations, training tables",
        f"play it:    sixtysix play --vs {bot}",
        f"measure it: sixtysix arena {bot} heuristic --games 200",
        f"vs pimc:    sixtysix arena {bot} pimc --games 400 --workers 2",
        f"go on:      {resume_command(run)} total_steps={2 * cfg.total_steps}",
    ]
    return "\n".join(lines)


def resume_command(run: Run) -> str:
    return lifecycle.resume_command(PROGRAM, run.dir)


def held(run: Run) -> str:
    """What an interrupted run's ``last.pt`` holds (its save at the stop, or the last before)."""
    if run.saved_step == run.global_step and not run.unsaved:
        return f"saved {run.dir / 'last.pt'} at update {run.update:,} (a rollout under way is dealt afresh)"
    why = f"saving failed ({run.unsaved}); " if run.unsaved else ""
    return (f"{why}{run.dir / 'last.pt'} holds step {run.saved_step:,} (written every "
            f"checkpoint_every={run.cfg.checkpoint_every} updates)")


TRAINER = lifecycle.Trainer(
    doc=__doc__ or "", default_config=DEFAULT_CONFIG, schema=Config, train=train, report=report,
    keys="Config keys (defaults of training.config.Config; configs/default.yaml sets the same values):",
    where=lambda run: f"at step {run.global_step:,}", held=held, program=PROGRAM,
)


def main(argv: list[str] | None = None) -> int:
    """``python train.py``: PPO, or the trainer the config's ``algorithm`` or ``players`` asks for;
    a bad config or checkpoint is one line (exit 2), Ctrl-C or SIGTERM saves and says how to go on
    (:mod:`training.lifecycle`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if expert.requested(args, DEFAULT_CONFIG):  # algorithm: expert (training/expert, docs/training.md)
        return expert.main(args)
    if team.requested(args, DEFAULT_CONFIG):  # players: 4, team self-play (training/team, docs/training.md)
        return team.main(args)
    return lifecycle.main(TRAINER, args)


if __name__ == "__main__":
    code = main()
    if code > 128:  # interrupted, all closed and saved: skip the second or so it takes to unload torch
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
