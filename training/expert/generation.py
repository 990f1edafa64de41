"""Where self-play runs: in this process (here), or as Ray tasks (:mod:`training.expert.ray_workers`).

An iteration's deals are split into chunks of ``chunk`` deals (:func:`chunks`);
each chunk is one call of :func:`~training.expert.selfplay.generate_chunk`, and
the chunks' samples are joined in deal order, so both backends give the same
samples for the same seed and weights. Each chunk also reports the CPU seconds
it took, for the run's cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from .selfplay import GUIDED, Player, Samples, Settings, Weights, generate_chunk

Done = Callable[[int], None]  # called with the deals of each finished chunk (a progress bar)


def chunks(deals: int, size: int) -> list[tuple[int, int]]:
    """(first deal, deals) of each chunk of ``deals`` deals, in order."""
    return [(first, min(size, deals - first)) for first in range(0, deals, size)]


def timed_chunk(weights: Weights, settings: Settings, first: int, count: int,
                player: Player = GUIDED) -> tuple[Samples, float]:
    """:func:`generate_chunk` and the CPU seconds it took in the process that ran it."""
    t = time.process_time()
    samples = generate_chunk(weights, settings, first, count, player)
    return samples, time.process_time() - t


class Generator(Protocol):
    """Plays an iteration's deals: its samples in deal order, and the CPU seconds spent
    outside this process (0 when it all ran here)."""

    def generate(self, weights: Weights, settings: Settings, deals: int, chunk: int,
                 done: Done) -> tuple[Samples, float]: ...


class LocalGenerator:
    """The chunks one after the other in this process."""

    def __init__(self, player: Player = GUIDED) -> None:
        self.player = player

    def generate(self, weights: Weights, settings: Settings, deals: int, chunk: int,
                 done: Done) -> tuple[Samples, float]:
        parts = []
        for first, count in chunks(deals, chunk):
            parts.append(timed_chunk(weights, settings, first, count, self.player)[0])
            done(count)
        return Samples.concat(parts), 0.0
