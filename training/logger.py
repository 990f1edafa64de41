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
import time
from pathlib import Path

from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents import checkpoint

from .curve import FIELDS


class Logger:
    """TensorBoard + ``metrics.csv`` in the run folder, and an optional tqdm bar."""

    def __init__(self, run_dir: Path, tensorboard: bool, progress: bool, total: int, initial: int,
                 desc: str) -> None:
        self.start = time.time()
        path = run_dir / "metrics.csv"
        new = not path.exists()
        if not new:
            drop_rows_after(path, initial)
        self.file = path.open("a", newline="")
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
    a last line cut short by a killed run); untouched if there are none."""
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines.pop()
    keep = lines[:1] + [line for line in lines[1:] if int(line.split(",", 1)[0]) <= step]
    if len(keep) < len(text.splitlines()):
        checkpoint.write_atomic(path, "".join(keep).encode())
