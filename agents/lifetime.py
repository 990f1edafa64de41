"""Another name for :mod:`agents.core.lifetime` (process lifetime: the parent-death signal, SIGTERM)."""

from .core.lifetime import (
    PR_SET_PDEATHSIG,
    Stop,
    die_with,
    die_with_parent,
    prctl,
    signals_held,
    sigterm_interrupts,
)

__all__ = [
    "PR_SET_PDEATHSIG", "Stop", "die_with", "die_with_parent", "prctl", "signals_held", "sigterm_interrupts",
]  # fmt: skip
