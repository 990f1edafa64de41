"""The life of a training run, one for every trainer (PPO in ``train.py``, expert iteration in
:mod:`training.expert.loop`).

- **Resume** from a run folder's ``last.pt`` (:func:`resume_checkpoint`): the
  checkpoint is validated whole, its bot specs (and anything else a run would
  start) are data, used only if the command line names them again
  (:func:`training.config.trusted_config`), and overrides that would change the
  networks are refused; the networks' and optimizer's state is loaded under
  :func:`restoring`, which turns what the format's checks cannot see into one
  named error.
- **Run**: :func:`check_finite` after each update, :func:`out_of_time` for
  ``time_limit``.
- **Stop**: Ctrl-C or SIGTERM ends a run as :class:`Interrupted` (where it
  stood); :func:`main` says what ``last.pt`` holds and the command that goes on
  (:func:`resume_command`), and exits with 128 + the signal number.
- **Command line** (:func:`main`, with a trainer's :class:`Trainer`): ``--help``, the
  config and its overrides, expected failures as one line and exit code 2, and
  the trainer's report at the end.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from agents.core import checkpoint
from agents.core.lifetime import sigterm_interrupts
from sixtysix_env.batched.sampling import NonFiniteLogitsError
from sixtysix_env.variants import RulesMismatchError

from .config import (
    Config,
    ConfigError,
    Trusted,
    config_from_dict,
    help_text,
    parse_command_line,
    trusted_config,
)

# Failures every trainer tells in one line (exit code 2): a bad config or checkpoint, other rules on
# --resume, a full disk, NaN weights or logits.
ONE_LINE_ERRORS: tuple[type[BaseException], ...] = (
    ConfigError, RulesMismatchError, checkpoint.CheckpointError, checkpoint.NonFiniteWeightsError,
    NonFiniteLogitsError, OSError,
)


def resume_command(program: Sequence[str], folder: Path) -> str:
    """The command that continues the run in ``folder``; ``program`` starts the trainer
    (``python train.py``, ``python -m training.expert``)."""
    return shlex.join([*program, "--resume", f"name={folder.name}", f"run_dir={folder.parent}"])


def resume_checkpoint(path: Path, overrides: dict[str, Any], program: Sequence[str],
                      architecture: Sequence[str], schema: type = Config,
                      extra: dict[str, Trusted] | None = None,
                      stored: Callable[[Any, str], Any] | None = None) -> tuple[dict[str, Any], Any, Any]:
    """The checkpoint ``path`` of a run to resume, the config it was saved with, and that config
    with ``overrides``. A ConfigError if there is none or it cannot be read whole; an
    :class:`~training.config.UntrustedSettingError` if its config names a bot that is not built
    in (or another key of ``extra``) and the overrides do not name it again; a ConfigError if the
    overrides change a key of ``architecture`` (the networks a resumed run keeps). ``stored``
    reads the checkpoint's config into ``schema``'s keys (default: as it is)."""
    if not path.is_file():
        raise ConfigError(f"--resume: no checkpoint {path} to resume from")
    try:
        ckpt = checkpoint.load(path, resumable=True)
    except ValueError as e:
        raise ConfigError(f"--resume: {e}") from None
    data = ckpt["config"] if stored is None else stored(ckpt["config"], str(path))
    data = trusted_config(data, overrides, str(path), resume_command(program, path.parent), schema, extra)
    saved = config_from_dict(data, where=str(path), schema=schema)
    cfg = config_from_dict({**data, **overrides}, where=str(path), schema=schema)
    for key in architecture:
        if getattr(cfg, key) != getattr(saved, key):
            raise ConfigError(f"--resume: {path} holds networks with {key}={getattr(saved, key)}; a "
                              f"resumed run keeps its networks, so {key}={getattr(cfg, key)} needs a new "
                              "run (name=...)")
    return ckpt, saved, cfg


@contextmanager
def restoring(path: Path) -> Iterator[None]:
    """Load a checkpoint's state (networks, optimizer, random generators) into a run: the
    format's checks (:func:`agents.core.checkpoint.load`) passed, but a shape or a key may still not
    fit; that is a ConfigError naming ``path``."""
    try:
        yield
    except (RuntimeError, KeyError, ValueError, TypeError, IndexError) as e:
        reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise ConfigError(f"--resume: checkpoint {path} cannot be resumed: {reason}") from None


def check_finite(policy: torch.nn.Module, critic: torch.nn.Module, what: str, kept: str) -> None:
    """A named error at the first update (``what``) that leaves a NaN or an infinity in the
    networks, before it spreads to the games or a checkpoint; ``kept``: what ``last.pt`` holds."""
    bad = checkpoint.nonfinite({"policy": policy.state_dict(), "critic": critic.state_dict()})
    if bad is not None:
        raise checkpoint.NonFiniteWeightsError(
            f"{what} left NaN or infinite values in {bad} (learning_rate too high?); {kept}")


def out_of_time(time_limit: float, began: float) -> bool:
    """``time_limit`` minutes (0: none) have passed since ``began`` (``time.monotonic()``)."""
    return time_limit > 0 and time.monotonic() - began >= 60 * time_limit


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM stopped the run; ``run`` is where it stood (``last.pt`` saved
    as far as it could be)."""

    def __init__(self, run: Any) -> None:
        super().__init__()
        self.run = run


@dataclass(frozen=True)
class Trainer:
    """What :func:`main` runs: a trainer's command line, training and words."""

    doc: str  # the usage (--help)
    keys: str  # the --help heading over the config keys
    default_config: Path
    schema: type
    train: Callable[..., Any]  # train(config, resume=, overrides=) -> the finished run
    report: Callable[[Any], str]  # what a finished run achieved and how to use it
    where: Callable[[Any], str]  # where an interrupted run stood ("at step 1,024")
    held: Callable[[Any], str]  # what an interrupted run's last.pt holds
    program: Sequence[str]  # the command that starts the trainer (for "go on: ... --resume")
    errors: tuple[type[BaseException], ...] = ()  # the trainer's own one-line failures


def stopped(trainer: Trainer, e: KeyboardInterrupt, name: str) -> str:
    """What an interrupt (by the signal ``name``) left: where the run stood, what ``last.pt``
    holds, how to go on."""
    if not isinstance(e, Interrupted):
        return f"stopped by {name} before training began"
    run = e.run
    return (f"stopped by {name} {trainer.where(run)}: {trainer.held(run)}\n"
            f"go on: {resume_command(trainer.program, run.dir)}")


def main(trainer: Trainer, args: list[str]) -> int:
    """The trainer's command line: exit code 0 with the report, 2 after a one-line error, 128 +
    the signal number after Ctrl-C or SIGTERM (the run saved and how to go on said)."""
    if "-h" in args or "--help" in args:
        print(trainer.doc)
        print(trainer.keys)
        print(help_text(trainer.schema))
        return 0
    try:
        with sigterm_interrupts() as stop:
            command = parse_command_line(args, trainer.default_config, trainer.schema)
            run = trainer.train(command.config, resume=command.resume, overrides=command.overrides)
    except ONE_LINE_ERRORS + trainer.errors as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM (``stop`` says which, as Ray may raise a fresh one)
        print(stopped(trainer, e, stop.name), file=sys.stderr)
        return stop.exit_code
    print(trainer.report(run))
    return 0
