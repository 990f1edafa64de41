"""The record of one game, and the bookkeeping that ends it: a finish or a forfeit.

One record serves both tables: a two-player game (seats 0 and 1, each its
own side) and a four-player partnership game (seats 0..3, side = team =
``seat % 2``, :mod:`sixtysix_env.four`). Winners, match scores and deal
winners are sides; a forfeit names the seat that lost it, and costs its side.

The arena's play loop (:func:`agents.play.play_game`), the arena's crash
line for a bot that killed its worker (:mod:`agents.arena.runner`) and the
tables (:class:`tables.session.Session`) all write their games as a
:class:`GameRecord`, and all end them through :meth:`GameRecord.finish` and
:meth:`GameRecord.lose_by_forfeit`, so that a results line means the same
wherever the game was played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sixtysix_env.engine import PLAYER_IDS

from .core.forfeits import RESIGNED, kind_of

DETAIL_CAP = 500  # characters of a forfeit's detail kept (a bot's error text is untrusted and unbounded)


def side_of(seat: int, seats: int) -> int:
    """The side a seat plays for: itself at a two-player table, its team (``seat % 2``) at four."""
    return seat % 2 if seats == 4 else seat


def outcome_dict(result: Any) -> dict[str, Any]:
    """A :class:`~sixtysix_env.contract.DealOutcome` (a four-player deal's result) as a record's deal
    entry: winner as a team (0/1) or None, game points, reason, both teams' scores."""
    return {"winner": None if result.winner is None else int(result.winner),
            "game_points": int(result.game_points), "reason": str(result.reason),
            "scores": [int(result.scores[0]), int(result.scores[1])]}


def deal_dict(result: dict[str, Any]) -> dict[str, Any]:
    """The env's ``last_deal_result`` with seats as 0/1 (compact in JSON)."""
    winner = result["winner"]
    scores = result.get("scores") or {}
    return {
        "winner": None if winner is None else PLAYER_IDS.index(winner),
        "game_points": int(result["game_points"]),
        "reason": result["reason"],
        "scores": [int(scores.get(a, 0)) for a in PLAYER_IDS],
    }


@dataclass
class GameRecord:
    """One finished game (a match to 7, or a single deal), seat by seat.

    ``players`` and ``agent_seeds`` have one entry per seat (2 or 4);
    ``winner`` is the winning side (0/1: a seat, or a team at four players) or None for a drawn single deal;
    ``deals`` lists every completed deal as ``{"winner", "game_points",
    "reason", "scores"}``; ``forfeit`` is None or ``{"seat", "reason",
    "detail", "kind"}`` with reason "timeout", "exception" or "illegal", or an
    external bot's "crash", "malformed" or "protocol", and its
    :class:`~agents.core.forfeits.ForfeitKind` (a person's resignation at a table,
    reason "resigned", is no fault and has no kind; the deal in progress at a
    forfeit is not in ``deals``). ``actions`` is every action applied in order
    (empty with ``record=False``), enough to replay the game from ``seed``.
    ``cpu`` is ``{"wall", "cpu"}``: seconds the game took and CPU seconds this
    process and the bots' processes spent in it.
    """

    seed: int
    unit: str
    players: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    winner: int | None = None
    match_score: tuple[int, int] = (0, 0)
    deals: list[dict[str, Any]] = field(default_factory=list)
    forfeit: dict[str, Any] | None = None
    actions: list[int] = field(default_factory=list)
    moves: int = 0
    cpu: dict[str, float] | None = field(default=None, compare=False)  # measured, so not part of equality

    def add_move(self, action: int, keep: bool = True) -> None:
        """Count a move applied to the game; ``keep`` it in ``actions`` (for a replay)."""
        self.moves += 1
        if keep:
            self.actions.append(action)

    def add_deal(self, result: dict[str, Any]) -> dict[str, Any]:
        """Append the deal the env just ended (its ``deal_result``); return its entry."""
        entry = deal_dict(result)
        self.deals.append(entry)
        return entry

    def finish(self, match_scores: Sequence[int]) -> None:
        """The game ended by play: a single deal is won by its deal's winner (None: drawn) with
        that deal's game points; a match by the seat ahead in ``match_scores`` (the engine's)."""
        if self.unit == "deal":
            last = self.deals[-1] if self.deals else None
            self.winner = last["winner"] if last else None
            score = [0, 0]
            if last and last["winner"] is not None:
                score[last["winner"]] = last["game_points"]
            self.match_score = (score[0], score[1])
        else:
            self.match_score = (int(match_scores[0]), int(match_scores[1]))
            self.winner = 0 if self.match_score[0] > self.match_score[1] else 1

    def lose_by_forfeit(self, seat: int, reason: str, detail: str,
                        match_scores: Sequence[int] | None = None) -> None:
        """``seat`` (its side: its team at four players) loses at once for ``reason`` (see
        :mod:`agents.core.forfeits`); a match keeps the score reached (``match_scores``, when known), a
        single deal scores nothing."""
        self.forfeit = {"seat": seat, "reason": reason, "detail": detail[:DETAIL_CAP]}
        if reason != RESIGNED:
            self.forfeit["kind"] = kind_of(reason)
        self.winner = 1 - side_of(seat, len(self.players))
        if self.unit == "match" and match_scores is not None:
            self.match_score = (int(match_scores[0]), int(match_scores[1]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (shares the ``deals`` dicts and ``actions`` list; by hand, as
        ``dataclasses.asdict`` deep-copies, a measurable share of an arena run)."""
        return {
            "seed": self.seed,
            "unit": self.unit,
            "players": list(self.players),
            "agent_seeds": list(self.agent_seeds),
            "winner": self.winner,
            "match_score": list(self.match_score),
            "deals": self.deals,
            "forfeit": self.forfeit,
            "actions": self.actions,
            "moves": self.moves,
            "cpu": self.cpu,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        """A record back from :meth:`to_dict` (or a results line, which holds its keys)."""
        players, seeds, score = d["players"], d["agent_seeds"], d["match_score"]
        return cls(
            seed=d["seed"],
            unit=d["unit"],
            players=tuple(players),
            agent_seeds=tuple(seeds),
            winner=d["winner"],
            match_score=(score[0], score[1]),
            deals=list(d["deals"]),
            forfeit=d["forfeit"],
            actions=list(d.get("actions", [])),
            moves=d.get("moves", 0),
            cpu=d.get("cpu"),
        )
