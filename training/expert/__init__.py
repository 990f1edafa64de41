"""Expert iteration: self-play with the guided search in the loop, from scratch (docs/training.md).

:mod:`~training.expert.config` (the run's keys), :mod:`~training.expert.selfplay`
(deals -> samples), :mod:`~training.expert.generation` and
:mod:`~training.expert.ray_workers` (where the deals are played),
:mod:`~training.expert.learner` (the update), :mod:`~training.expert.loop`
(iterations, checkpoints, evaluation; ``python -m training.expert``).
"""

from __future__ import annotations

from .config import requested


def main(argv: list[str]) -> int:
    """The expert loop's command line (``train.py`` hands over the configs with ``algorithm``)."""
    from .loop import main as run

    return run(argv)


__all__ = ["main", "requested"]
