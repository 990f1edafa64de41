"""Where a run's numbers go: ``metrics.csv`` and TensorBoard in the run folder, a progress bar.

Log keys have fixed prefixes (as in CleanRL): ``charts/`` (speed, schedule,
rewards), ``losses/`` (the update), ``eval/`` (the arena's evaluation).
``metrics.csv`` (step, wall seconds, key, value) is appended to, so a
resumed run continues the same file.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm


class Logger:
    """TensorBoard + ``metrics.csv`` in the run folder, and an optional tqdm bar."""

    def __init__(self, run_dir: Path, tensorboard: bool, progress: bool, total: int, initial: int,
                 desc: str) -> None:
        self.start = time.time()
        path = run_dir / "metrics.csv"
        new = not path.exists()
        self.file = path.open("a", newline="")
        self.csv = csv.writer(self.file)
        if new:
            self.csv.writerow(["step", "wall_s", "key", "value"])
        self.tb = SummaryWriter(str(run_dir)) if tensorboard else None
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
