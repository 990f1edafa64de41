"""Torch's CPU threads wait without spinning: ``OMP_WAIT_POLICY=PASSIVE`` before torch loads.

OpenMP's default is to spin a while at the end of every parallel region. On a
machine whose cores are busy with other work, a thread that spins takes the
core from the thread it waits for: with 2 torch threads on a loaded 2-core
machine the batched engine ran several times slower than with 1 (docs/training.md,
"Threads"). OpenMP reads the policy once, when torch is imported, so the
entry points (``train.py``, the batched benches) import this module before
torch; a policy already set in the environment is kept.
"""

from __future__ import annotations

import os

WAIT_POLICY = "PASSIVE"


def passive_waits() -> None:
    """Ask OpenMP for passive waits unless the environment already chose a policy."""
    os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)


passive_waits()
