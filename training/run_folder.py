"""A run's folder, ``<run_dir>/<name>/``: one run per folder, and no run writes over another.

A new run needs a missing or empty folder: a folder that holds anything (an
earlier run's checkpoints and ``metrics.csv``, or any other file) is refused
with a :class:`~training.config.ConfigError` that says how to continue that
run (``--resume``) or start a new one (``name=...``). Refusing, rather than
numbering the folder, keeps ``runs/<name>`` where the command line says, and
an accidental second ``python train.py`` costs a message, not a duplicate run.

While a run runs it holds an exclusive lock (``flock``) on its folder, so a
second ``train.py`` (a new run or a resume) cannot write there at the same
time; the lock ends with the process, however it ends.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from agents.core import checkpoint

from .config import Config, ConfigError

try:
    import fcntl
except ImportError:  # Windows: no lock, the emptiness check still holds
    fcntl = None  # type: ignore[assignment]

DEFAULT_RUN_DIR = Config().run_dir


@contextlib.contextmanager
def claim(folder: Path, resume: bool, further: str = "total_steps=N") -> Iterator[None]:
    """Hold ``folder`` for one run: a new run's folder must be missing or empty, a resumed
    run's must hold ``last.pt``; a folder another ``train.py`` holds is refused. ``further``: the
    override the refusal suggests to train further (``iterations=N`` for expert iteration)."""
    if resume and not (folder / "last.pt").is_file():
        raise ConfigError(f"--resume: no checkpoint {folder / 'last.pt'} to resume from")
    folder.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        _check_empty(folder, resume, further)
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(f"{folder} is in use: another train.py is running there") from None
        except OSError:  # a file system without locks: only the emptiness check
            pass
        _check_empty(folder, resume, further)
        yield
    finally:
        os.close(fd)


def _check_empty(folder: Path, resume: bool, further: str) -> None:
    """A new run refuses a folder that holds anything."""
    held = sorted(p.name for p in folder.iterdir())
    if resume or not held:
        return
    where = f"name={folder.name}"
    if str(folder.parent) != DEFAULT_RUN_DIR:
        where += f" run_dir={folder.parent}"
    names = (f"{folder.name}-{i}" for i in itertools.count(2))
    fresh = next(n for n in names if not (folder.parent / n).exists())
    raise ConfigError(
        f"{folder} already holds a run ({', '.join(held[:6])}{', ...' if len(held) > 6 else ''}); a new run "
        f"never writes over another. Continue it: python train.py --resume {where} (add {further} to go "
        f"further); or start a new run in a fresh folder: add name={fresh} (or delete {folder})")


def write_config(folder: Path, config: dict[str, Any]) -> None:
    """``config.yaml``: the run's config (a resumed run's, overrides included), written atomically."""
    checkpoint.write_atomic(folder / "config.yaml", yaml.safe_dump(config, sort_keys=False).encode())
