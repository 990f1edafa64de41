"""Expert iteration from scratch: generate with search -> train -> checkpoint -> evaluate, repeated.

Usage::

    python train.py --config configs/expert.yaml            # or: python -m training.expert --config ...
    python train.py --config configs/expert.yaml iterations=40 name=e2 backend=ray workers=4
    python train.py --config configs/expert.yaml --resume   # continue runs/<name>/last.pt
    python train.py --config configs/expert_warm.yaml init=runs/selfplay/last.pt   # start from a network

A new run starts from random weights, or with ``init`` from a checkpoint's
networks (:mod:`training.expert.warm`; a resumed run ignores ``init``: its
own ``last.pt`` wins).

One iteration ``i``:

1. **Generate** (:mod:`training.expert.selfplay`): ``deals`` deals of the
   guided search against itself on the current networks, locally or as Ray
   tasks (:mod:`training.expert.generation`); the samples are written to
   ``samples/<i>.npz`` in the run folder.
2. **Train** (:mod:`training.expert.learner`) on the replay window, the last
   ``replay`` iterations' samples.
3. **Checkpoint** ``last.pt`` atomically: a normal sixtysix checkpoint
   (``ppo:<path>`` plays it; its value network predicts the deal's game
   points, ``value_target: deal``) plus the optimizer and counters to resume.
   Every random choice of iteration ``i`` is derived from the seed and ``i``,
   so ``--resume`` after an interruption goes on exactly as the uninterrupted
   run would have; an interrupted iteration is played again.
4. **Evaluate** every ``eval_every`` iterations and at the end: the network
   alone (``assist`` rules: no search) against ``heuristic`` and pimc on
   duplicate deals through the arena (:mod:`training.evaluation`), logged
   under ``eval/`` so ``python -m training.curve runs/<name>`` draws the
   learning curve.
"""

from __future__ import annotations

# isort: off
import training.threads  # noqa: F401 - first: torch's threads must not spin (training/threads.py)
# isort: on
import dataclasses
import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.arena import PairingStats
from agents.core import checkpoint
from agents.core.lifetime import signals_held
from sixtysix_env.seeding import derive_seed
from training import evaluation, lifecycle, run_folder
from training.config import Config, ConfigError
from training.logger import Logger

from .config import ARCHITECTURE, OPERATOR_ONLY, ExpertConfig, from_checkpoint_config
from .generation import Generator, LocalGenerator
from .learner import Learner, Replay
from .selfplay import GUIDED, Player, SampleError, Samples, Settings
from .warm import RECORD, Init, load_init, saved_record

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "expert.yaml"
SAMPLES = "samples"  # the run folder's folder of per-iteration sample files
PROGRAM = ("python", "-m", "training.expert")  # how the resume command starts


@dataclass
class ExpertRun:
    """A run's state between iterations: what ``last.pt`` (and the sample files) hold."""

    cfg: ExpertConfig
    dir: Path
    learner: Learner
    replay: Replay
    iteration: int = 0
    deals: int = 0  # deals played in all: the log's step
    cpu_s: float = 0.0  # CPU seconds of all invocations so far (this process and Ray's tasks)
    resumed: bool = False
    started_from: dict[str, Any] | None = None  # the init checkpoint's record (warm.RECORD); None: random
    final: dict[str, PairingStats] = field(default_factory=dict)  # the last evaluation


def sample_path(folder: Path, iteration: int) -> Path:
    return folder / SAMPLES / f"{iteration:06d}.npz"


# ============================================================ start, resume, save
def resume_from(path: Path, overrides: dict[str, Any]) -> tuple[dict[str, Any], ExpertConfig]:
    """The checkpoint of a run to resume and its config with ``overrides``; a ConfigError if it
    cannot be resumed or the overrides change its networks, or if it names a bot that is not
    built in or a Ray cluster and the overrides do not name them again
    (:func:`training.lifecycle.resume_checkpoint`)."""
    ckpt, saved, cfg = lifecycle.resume_checkpoint(path, overrides, PROGRAM, ARCHITECTURE, ExpertConfig,
                                                   OPERATOR_ONLY, stored=from_checkpoint_config)
    return ckpt, dataclasses.replace(cfg, init=saved.init)  # where it started is the run's, not the command's


def start(cfg: ExpertConfig, folder: Path, ckpt: dict[str, Any] | None,
          init: Init | None = None) -> ExpertRun:
    """A new run's networks (random, or ``init``'s), or those of ``ckpt`` with its counters and
    replay window."""
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    run = ExpertRun(cfg, folder, Learner(cfg), Replay(cfg.replay))
    if ckpt is None:
        if init is not None:
            run.learner.adopt(init.policy, init.critic)
            run.started_from = init.record
        return run
    run.started_from = saved_record(ckpt)
    with lifecycle.restoring(folder / "last.pt"):
        run.learner.load(ckpt)
        checkpoint.check_optimizer(run.learner.optimizer)
    torch.set_rng_state(ckpt["rng"]["torch"])
    run.iteration, run.deals, run.resumed = ckpt["update"], ckpt["global_step"], True
    run.cpu_s = float(ckpt.get("cpu_seconds", 0.0)) if isinstance(ckpt.get("cpu_seconds"), float) else 0.0
    for i in range(max(1, run.iteration - cfg.replay + 1), run.iteration + 1):
        path = sample_path(folder, i)
        try:
            run.replay.add(i, Samples.load(path))
        except SampleError as e:
            raise ConfigError(f"--resume: {e} (the replay window of iteration {run.iteration})") from None
    return run


def save(run: ExpertRun, path: Path) -> None:
    """``last.pt``: a playable checkpoint plus everything ``--resume`` reads. Its ``rng`` holds the
    torch generator (it drew the first weights) and the numpy state the format asks for; the
    randomness of an iteration is derived from the seed and the iteration, not carried over."""
    rng = {"torch": torch.get_rng_state(), "numpy": np.random.default_rng(run.cfg.seed).bit_generator.state}
    entries = {"critic": run.learner.critic.state_dict(), "optimizer": run.learner.optimizer.state_dict(),
               "snapshots": [], "rng": rng, "global_step": run.deals, "update": run.iteration, "best": -1.0,
               "cpu_seconds": float(run.cpu_s)}
    if run.started_from is not None:
        entries[RECORD] = run.started_from
    checkpoint.save_atomic(checkpoint.build(run.cfg.checkpoint_config(), run.learner.policy, **entries), path)


def prune_samples(run: ExpertRun) -> None:
    """Delete the sample files older than the replay window (the checkpoint no longer needs them)."""
    oldest = run.iteration - run.cfg.replay + 1
    for path in sorted((run.dir / SAMPLES).glob("*.npz")):
        if path.stem.isdigit() and int(path.stem) < oldest:
            path.unlink(missing_ok=True)


# ===================================================================== loop
def train(cfg: ExpertConfig, resume: bool = False, overrides: dict[str, Any] | None = None,
          player: Player | None = None) -> ExpertRun:
    """Run (or, with ``resume``, continue) expert iteration in ``<run_dir>/<name>``; ``player``:
    who plays self-play (the guided search, :data:`~training.expert.selfplay.GUIDED`)."""
    player = GUIDED if player is None else player
    folder = Path(cfg.run_dir) / cfg.name
    ckpt, cfg = resume_from(folder / "last.pt", overrides or {}) if resume else (None, cfg)
    init = load_init(cfg) if ckpt is None and cfg.init else None
    preflight(cfg, player)
    # Ray joined before the folder is claimed: a cluster that cannot be joined leaves nothing behind
    with generator(cfg, player) as gen, run_folder.claim(folder, resume, "iterations=N"):
        run = start(cfg, folder, ckpt, init)
        if not run.resumed:
            save(run, folder / "last.pt")  # resumable from its first moment
        run_folder.write_config(folder, dataclasses.asdict(run.cfg))  # a --config file for the next run
        total = run.deals + max(0, cfg.iterations - run.iteration) * cfg.deals
        logger = Logger(folder, cfg.tensorboard, cfg.progress, total, run.deals, cfg.name)
        try:
            iterate(run, gen, logger)
        except KeyboardInterrupt:  # last.pt holds the last finished iteration
            raise lifecycle.Interrupted(run) from None
        finally:
            logger.close()
    return run


@contextmanager
def generator(cfg: ExpertConfig, player: Player) -> Iterator[Generator]:
    """The generation backend ``cfg`` asks for, connected for the run and closed after it."""
    if cfg.backend == "local":
        yield LocalGenerator(player)
        return
    from .ray_workers import RayGenerator

    ray_gen = RayGenerator(cfg.workers, cfg.ray_address or None, player)
    try:
        yield ray_gen
    finally:
        ray_gen.close()


def preflight(cfg: ExpertConfig, player: Player) -> None:
    """Fail before the run folder is claimed: Ray missing for backend ray, the search bot not
    importable."""
    if cfg.backend == "ray":
        from agents.arena.ray_backend import import_ray

        try:
            import_ray()
        except ImportError as e:
            raise ConfigError(f"config key 'backend' is 'ray': {e}") from None
    player.net(Learner(cfg).weights())


def iterate(run: ExpertRun, gen: Generator, logger: Logger) -> None:
    """Iterations from ``run.iteration`` to ``iterations``: generate, train, checkpoint, evaluate, log."""
    cfg = run.cfg
    began, cpu0 = time.monotonic(), time.process_time()
    cpu_before, remote = run.cpu_s, 0.0
    while run.iteration < cfg.iterations:
        i = run.iteration + 1
        t0 = time.perf_counter()
        samples, cpu_remote = generate(run, gen, logger, i)
        generate_s = time.perf_counter() - t0
        run.replay.add(i, samples)
        t1 = time.perf_counter()
        losses = run.learner.train(run.replay.data(), derive_seed(cfg.seed, "learn", i),
                                   run.replay.value_rows(cfg.value_positions, cfg.seed))
        learn_s = time.perf_counter() - t1
        lifecycle.check_finite(run.learner.policy, run.learner.critic, f"iteration {i}",
                               "last.pt keeps the one before")
        remote += cpu_remote
        with signals_held():  # a stop waits for the save: last.pt holds run.iteration
            run.iteration, run.deals = i, run.deals + cfg.deals
            run.cpu_s = cpu_before + time.process_time() - cpu0 + remote
            save(run, run.dir / "last.pt")
            prune_samples(run)
        finished = run.iteration >= cfg.iterations or lifecycle.out_of_time(cfg.time_limit, began)
        metrics = {"charts/samples": len(samples), "charts/replay_samples": sum(
            len(s) for _, s in run.replay.parts), "charts/deals_per_s": cfg.deals / generate_s,
            "charts/generate_s": generate_s, "charts/learn_s": learn_s, "charts/cpu_minutes": run.cpu_s / 60,
            "charts/value_target_abs": float(np.abs(samples.value).mean()) if len(samples) else 0.0, **losses}
        if finished or (cfg.eval_every > 0 and run.iteration % cfg.eval_every == 0):
            metrics.update(evaluate(run))
            run.cpu_s = cpu_before + time.process_time() - cpu0 + remote
            metrics["charts/cpu_minutes"] = run.cpu_s / 60
        logger.log(run.deals, metrics)
        logger.progress(run.deals, f"iteration {i}/{cfg.iterations} {evaluation.note(run.final)}")
        if finished:
            break


def generate(run: ExpertRun, gen: Generator, logger: Logger, i: int) -> tuple[Samples, float]:
    """Iteration ``i``'s self-play on the current networks, checked and written to its sample
    file; and the CPU seconds it took outside this process."""
    cfg = run.cfg
    settings = Settings(derive_seed(cfg.seed, "selfplay", i), cfg.worlds, cfg.sample_moves, cfg.target_temp,
                        cfg.target, cfg.depth, cfg.leaf)
    played = 0

    def done(count: int) -> None:
        nonlocal played
        played += count
        logger.progress(run.deals + played, f"iteration {i}/{cfg.iterations} {evaluation.note(run.final)}")

    samples, cpu_remote = gen.generate(run.learner.weights(), settings, cfg.deals, cfg.chunk, done)
    samples.check(f"iteration {i}")
    samples.save(sample_path(run.dir, i))
    return samples, cpu_remote


def eval_config(cfg: ExpertConfig) -> Config:
    """The evaluation's settings in the PPO evaluation's terms (:mod:`training.evaluation`)."""
    return Config(assist=cfg.eval_assist, eval_random_games=0, eval_heuristic_games=cfg.eval_heuristic_games,
                  eval_pimc_games=cfg.eval_pimc_games, eval_pimc_spec=cfg.eval_pimc_spec)


def evaluate(run: ExpertRun) -> dict[str, float]:
    """The network alone against heuristic and pimc (kept for the report); its ``eval/`` entries."""
    ppo_cfg = eval_config(run.cfg)
    if not evaluation.opponents(ppo_cfg):
        return {}
    run.final = evaluation.evaluate(run.learner.policy, ppo_cfg, run.iteration)
    return evaluation.metrics(run.final)


# ==================================================================== report
def report(run: ExpertRun) -> str:
    """What the run achieved, where its checkpoint is, and how to use it."""
    cfg, d = run.cfg, run.dir
    lines = [f"done: {d} ({run.iteration} iterations, {run.deals:,} deals, {run.cpu_s / 60:.1f} CPU minutes)"]
    if run.final:
        lines.append(f"the network alone (assist={cfg.eval_assist}), matches to 7 on duplicate deals, "
                     "95% intervals:")
        lines += evaluation.describe(run.final)
    bot = shlex.quote(f"ppo:{d / 'last.pt'},assist={cfg.eval_assist}")
    lines += [
        f"checkpoint: {d / 'last.pt'}",
        f"curve:      python -m training.curve {shlex.quote(str(d))}",
        f"play it:    sixtysix play --vs {bot}",
        f"vs pimc:    sixtysix arena {bot} pimc --games 400 --workers 2",
        f"go on:      {resume_command(run)} iterations={2 * cfg.iterations}",
    ]
    return "\n".join(lines)


def resume_command(run: ExpertRun) -> str:
    return lifecycle.resume_command(PROGRAM, run.dir)


TRAINER = lifecycle.Trainer(
    doc=__doc__ or "", keys="Config keys (defaults of training.expert.config.ExpertConfig):",
    default_config=DEFAULT_CONFIG, schema=ExpertConfig, train=train, report=report,
    where=lambda run: f"at iteration {run.iteration}",
    held=lambda run: f"{run.dir / 'last.pt'} holds iteration {run.iteration} (one under way is played again)",
    program=PROGRAM, errors=(SampleError,),
)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.expert``: the command line of :mod:`training.lifecycle`."""
    return lifecycle.main(TRAINER, list(sys.argv[1:] if argv is None else argv))
