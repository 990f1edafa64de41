"""Who sits at each training table: the table of opponent kinds and the per-table draw.

A table either plays self-play (the learner in both seats) or puts the
learner against one opponent. :data:`KINDS` is the one list of opponent
kinds: its order is the order of the ``opp_<kind>`` weights drawn from, and
what each kind's seat is played by (:data:`LEARNER`, :data:`SNAPSHOT`,
:data:`RANDOM` or an ``agents`` bot, :data:`BOT`). A new opponent kind is one
row here plus its ``opp_<kind>`` weight in :class:`training.config.Config`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agents import make_agent
from agents.base import Agent
from sixtysix_env.seeding import derive_seed

from .config import Config

LEARNER, SNAPSHOT, RANDOM, BOT = "learner", "snapshot", "random", "bot"


@dataclass(frozen=True)
class Kind:
    """One kind of table: ``name`` (its weight is ``Config.opp_<name>``), who plays the
    seat across from the learner, and for :data:`BOT` the agent spec it plays."""

    name: str
    plays: str
    spec: Callable[[Config], str] | None = None


KINDS: tuple[Kind, ...] = (
    Kind("self", LEARNER),  # the current policy in both seats; both seats learn
    Kind("snapshot", SNAPSHOT),  # a frozen past policy from the snapshot pool
    Kind("random", RANDOM),  # uniformly random legal moves
    Kind("heuristic", BOT, lambda cfg: "heuristic"),
    Kind("pimc", BOT, lambda cfg: cfg.pimc_spec),
)
KIND_NAMES = tuple(k.name for k in KINDS)


class Opponents:
    """An opponent kind per table (an index into :data:`KINDS`) and the learner's seat.

    Kinds are drawn by the config weights at every match start (and at every
    deal start with ``episode='deal'``). Bots come from ``agents.make_agent``,
    one per table and kind, created on first use and reseeded at every draw.
    """

    def __init__(self, cfg: Config, num_envs: int, rng: np.random.Generator) -> None:
        weights = cfg.opponent_weights()
        w = np.array([weights[k.name] for k in KINDS])  # a kind without its opp_ field fails here
        self.probs = w / w.sum()
        self.rng = rng
        self.specs = {i: k.spec(cfg) for i, k in enumerate(KINDS) if k.spec is not None}
        self.seed = cfg.seed
        self.kind = np.zeros(num_envs, np.int64)
        self.learner_seat = np.zeros(num_envs, np.int64)
        self.bots: dict[tuple[int, int], Agent] = {}
        self._plays = np.array([k.plays for k in KINDS])
        self.redraw(np.arange(num_envs))

    def redraw(self, tables: np.ndarray) -> None:
        """Draw a new opponent kind and learner seat for ``tables``."""
        if len(tables) == 0:
            return
        self.kind[tables] = self.rng.choice(len(self.probs), size=len(tables), p=self.probs)
        self.learner_seat[tables] = self.rng.integers(0, 2, size=len(tables))
        for n in tables[self.played_by(BOT)[tables]].tolist():
            self.bot(n).reset(int(self.rng.integers(2**31)))

    def played_by(self, plays: str) -> np.ndarray:
        """Tables whose opponent seat is played by ``plays`` (bool per table)."""
        return self._plays[self.kind] == plays

    def bot(self, table: int) -> Agent:
        """The bot of ``table``'s current (:data:`BOT`) kind."""
        key = (table, int(self.kind[table]))
        if key not in self.bots:
            spec = self.specs[key[1]]
            self.bots[key] = make_agent(spec, seed=derive_seed(self.seed, "opponent", spec, table))
        return self.bots[key]

    def learns(self, to_act: np.ndarray) -> np.ndarray:
        """Rows where the learner decides (and which therefore are trajectory steps)."""
        return self.played_by(LEARNER) | (to_act == self.learner_seat)

    def name(self, table: int) -> str:
        return KINDS[int(self.kind[table])].name
