"""Team self-play for four-player partnership Sixty-Six (``players: 4``; docs/training.md).

:mod:`~training.team.config` (the run's keys), :mod:`~training.team.warm`
(imitation of a teacher team), :mod:`~training.team.rollout` (deals ->
learner rows), :mod:`~training.team.loop` (updates, checkpoints, evaluation).
"""

from __future__ import annotations

from .config import requested


def main(argv: list[str]) -> int:
    """The team loop's command line (``train.py`` hands over the configs with ``players: 4``)."""
    from .loop import main as run

    return run(argv)


__all__ = ["main", "requested"]
