"""Where a run's numbers go: ``metrics.csv`` and TensorBoard in the run folder, a progress bar.

Log keys have fixed prefixes (as in CleanRL): ``charts/`` (speed, schedule,
rewards), ``losses/`` (the update), ``eval/`` (the arena's evaluation).
``metrics.csv`` (step, wall seconds, key, value) is appended to, so a
resumed run continues the same file. It keeps one history: a run resumed
from a checkpoint at step S first drops the rows after S (logged by the
interrupted run after its last checkpoint, for training the checkpoint does
not hold), and TensorBoard hides its events after S (``purge_step``).
"""

from __future__ import annotations

import csv
import os
import stat
import time
from pathlib import Path
from typing import Any

from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents.arena.inputs import MAX_RESULTS_BYTES, read_regular
from agents.core import checkpoint

from .config_file import ConfigError
from .curve import FIELDS


class Logger:
    """TensorBoard + ``metrics.csv`` in the run folder, and an optional tqdm bar."""

    def __init__(self, run_dir: Path, tensorboard: bool, progress: bool, total: int, initial: int,
                 desc: str) -> None:
        self.start = time.time()
        path = run_dir / "metrics.csv"
        new = not os.path.lexists(path)
        if not new:
            drop_rows_after(path, initial)
        self.file = open_append(path)
        self.csv = csv.writer(self.file)
        if new:
            self.csv.writerow(FIELDS)
        self.tb = None
        if tensorboard:
            self.tb = SummaryWriter(str(run_dir), purge_step=None if new else initial + 1)
        self.bar = None
        if progress:
            self.bar = tqdm(total=total, initial=min(initial, total), unit="step", dynamic_ncols=True,
                            desc=desc)

    def log(self, step: int, metrics: dict[str, float]) -> None:
        """Write ``metrics`` at environment step ``step``."""
        wall = round(time.time() - self.start, 2)
        for key, value in metrics.items():
            self.csv.writerow([step, wall, key, f"{float(value):.6g}"])
            if self.tb is not None:
                self.tb.add_scalar(key, float(value), step)
        self.file.flush()

    def progress(self, step: int, note: str) -> None:
        """Move the bar to ``step`` with ``note`` after it."""
        if self.bar is not None:
            self.bar.update(min(step, self.bar.total) - self.bar.n)
            self.bar.set_postfix_str(note)

    def close(self) -> None:
        self.file.close()
        if self.tb is not None:
            self.tb.close()
        if self.bar is not None:
            self.bar.close()


def drop_rows_after(path: Path, step: int) -> None:
    """Rewrite ``metrics.csv`` without its rows after environment step ``step`` (and without
    a last line cut short by a killed run); untouched if there are none. A run folder may come
    from elsewhere: a ``metrics.csv`` that is no regular file (a link, a fifo), is too large or
    holds a line without a whole step is a :class:`ConfigError` naming it, never followed."""
    regular(path)
    try:
        text = read_regular(str(path), MAX_RESULTS_BYTES).decode()
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)[:100]
        raise ConfigError(f"cannot read {path}: {reason}") from None
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines.pop()
    keep = lines[:1]
    for n, line in enumerate(lines[1:], start=2):
        cell = line.split(",", 1)[0]
        if not (cell.isascii() and cell.isdigit() and len(cell) <= 20):
            raise ConfigError(f"{path} line {n} is not a metrics row (step,wall_s,key,value)")
        if int(cell) <= step:
            keep.append(line)
    if len(keep) < len(text.splitlines()):
        checkpoint.write_atomic(path, "".join(keep).encode())


def regular(path: Path) -> None:
    """A :class:`ConfigError` naming ``path`` if it is there but no regular file (a symbolic link
    would have the run append to whatever it points at)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{path} is not a regular file (a link, a folder, a fifo or a device): "
                          "a run writes only its own files")


def open_append(path: Path) -> Any:
    """``path`` opened to append CSV rows, created if missing; never through a symbolic link and
    never blocking on a fifo (:func:`regular`)."""
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags, 0o666)
    except OSError:
        if os.path.islink(path):
            regular(path)
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        regular(path)
        raise ConfigError(f"{path} is not a regular file: a run writes only its own files")
    return os.fdopen(fd, "a", newline="")
