"""Fair results on a shared machine: the CPU share of a run, and no wins from a reference bot's lost time.

Every game line holds ``cpu``: the game's wall time and the CPU time spent
in it (the playing process and the bots' own processes). Their ratio over
a run, :func:`cpu_share`, says how much of a CPU each game had: close to 1
on a quiet machine, low on a busy one, where wall-clock limits (and, less
so, CPU-time limits with their wall cap) turn into lost games. The arena
and the bench report it and warn below :data:`LOW_CPU_SHARE`.

A game that a *reference* player (a ladder rung in the bench) lost on time
says nothing about the other bot: :class:`ReferenceGuard` voids it, the
arena plays it again (same cards, same seed values), and once more games were
voided than it allows, the run stops with :class:`MachineTooBusy`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from agents.core.forfeits import ForfeitKind

from .lines import seconds_ok

LOW_CPU_SHARE = 0.5  # below this share of a CPU per game the arena warns
MIN_WALL = 2.0  # seconds of games at least before a share is reported (CPU time may be counted in ticks)
REPLAYS_PER_GAME = 2  # a game voided more often than this stops the run
REPLAY_SHARE = 0.1  # and so do more voided games in all than this share of the run (at least MIN_REPLAYS)
MIN_REPLAYS = 4


class MachineTooBusy(RuntimeError):
    """A reference bot lost too many games on time: the machine is too busy for a fair result."""


def cpu_share(lines: Iterable[Mapping[str, Any]]) -> float | None:
    """CPU time over wall time of the games that recorded both (None if they took less than
    :data:`MIN_WALL` seconds in all: too short to measure)."""
    cpu = wall = 0.0
    for line in lines:
        c = line.get("cpu")
        if isinstance(c, dict) and seconds_ok(c.get("cpu")) and seconds_ok(c.get("wall")):
            cpu += c["cpu"]
            wall += c["wall"]
    return cpu / wall if wall >= MIN_WALL else None


def share_text(share: float | None) -> str:
    """``"CPU share 93%"`` with a warning when low (empty when unknown)."""
    if share is None:
        return ""
    text = f"CPU share {100 * share:.0f}% (CPU time / wall time per game)"
    return text + (" - LOW: the machine is busy, results may be skewed" if share < LOW_CPU_SHARE else "")


class ReferenceGuard:
    """Voids the games a reference player lost on time, within a bounded number of replays."""

    def __init__(self, names: list[str], reference: Iterable[int], games: int) -> None:
        self.names = names
        self.reference = frozenset(reference)
        self.limit = max(MIN_REPLAYS, math.ceil(REPLAY_SHARE * games))
        self.voided = 0
        self.per_game: dict[int, int] = {}

    def void(self, line: Mapping[str, Any]) -> bool:
        """Whether ``line`` is a reference bot's time forfeit (to play again); raises when over the bound."""
        f = line.get("forfeit")
        if not self.reference or not f or f.get("kind") != ForfeitKind.TIME.value:
            return False
        player = line["seats"][f["seat"]]
        if player not in self.reference:
            return False
        self.voided += 1
        n = self.per_game[line["index"]] = self.per_game.get(line["index"], 0) + 1
        if n > REPLAYS_PER_GAME or self.voided > self.limit:
            raise MachineTooBusy(
                f"machine too busy: the reference bot {self.names[player]} lost {self.voided} games on time "
                f"(game {line['index']} {n} times): {f.get('detail')}. No rating was made from them; run "
                "again on a quieter machine or with fewer --workers (finished games are kept)")
        return True
