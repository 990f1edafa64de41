"""The state of N tables as one typed container of tensors, and its scalar views.

:class:`BatchedState` declares every tensor of the batched engine once: the
fields of :class:`~sixtysix_env.engine.State` with one column per table, and
what the last step ended (deal results, rewards, match ends). The rules that
move it (:mod:`.deal`, :mod:`.step`, :mod:`.score`) take a state and return
the state they make (:meth:`BatchedState.replaced`), except dealing inside a step,
which writes into the tensors that step made; :class:`~.engine.BatchedEngine`
holds the current one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from ..deals import new_state
from ..engine import OVER, State
from ..scoring import REASONS, DealResult
from ..variants import GERMAN, Rules
from .lookup import NEVER, Lookup, lookup

PAIR, ROW = "pair", "row"  # a field's layout: (2, N), one row per player; or (N,)


# The metadata of a field of the scalar State: a (2, N) int64 field (row p: player p), or an
# (N,) one. Spelled ``field(metadata=...)`` in the class so type checkers see no default.
PAIR_FIELD = {"layout": PAIR}
ROW_FIELD = {"layout": ROW}


@dataclass(eq=False)
class BatchedState:
    """N tables on one device, column n = table n; fields named and meant as in the scalar
    :class:`~sixtysix_env.engine.State` (-1 for "none")."""

    # the layout: table count, device, episodes, the device's lookup tables, column indices
    num_envs: int
    device: torch.device
    episode: str  # "match" or "deal"
    t: Lookup
    cols: torch.Tensor  # (N,) flat index of player 0 in a flattened (2, N) field
    cols_n: torch.Tensor  # (N,) flat index of player 1
    # the fields of the scalar State
    hands: torch.Tensor = field(metadata=PAIR_FIELD)  # card bitmasks
    points: torch.Tensor = field(metadata=PAIR_FIELD)
    tricks: torch.Tensor = field(metadata=PAIR_FIELD)
    won: torch.Tensor = field(metadata=PAIR_FIELD)  # cards won in tricks
    played: torch.Tensor = field(metadata=PAIR_FIELD)
    shown: torch.Tensor = field(metadata=PAIR_FIELD)  # marriages shown, a bit per suit
    known: torch.Tensor = field(metadata=PAIR_FIELD)  # cards the other player knows
    void: torch.Tensor = field(metadata=PAIR_FIELD)
    match_scores: torch.Tensor = field(metadata=PAIR_FIELD)
    stock: torch.Tensor = field(metadata=ROW_FIELD)
    trump: torch.Tensor = field(metadata=ROW_FIELD)
    trump_card: torch.Tensor = field(metadata=ROW_FIELD)
    closed_by: torch.Tensor = field(metadata=ROW_FIELD)
    closer_opp_tricks: torch.Tensor = field(metadata=ROW_FIELD)
    exchanged_by: torch.Tensor = field(metadata=ROW_FIELD)
    window: torch.Tensor = field(metadata=ROW_FIELD)
    to_act: torch.Tensor = field(metadata=ROW_FIELD)
    lead_card: torch.Tensor = field(metadata=ROW_FIELD)
    marriage_suit: torch.Tensor = field(metadata=ROW_FIELD)
    dealer: torch.Tensor = field(metadata=ROW_FIELD)
    talon: torch.Tensor  # (T, N) card ids as dealt (T: the preset's talon size, German 12)
    can_declare: torch.Tensor  # (N,) bool
    # the preset's own (RulesState's ``held`` and ``bonus``; zeros where the preset has none):
    held_suits: torch.Tensor  # (2, N) suits of shown marriages that do not count yet, or never
    held_at: torch.Tensor  # (2, N) ... until the owner's tricks exceed this (NEVER: lost)
    bonus: torch.Tensor  # (N,) draw-bonus game points the deal's winner adds
    # what the last step ended (see the table of the engine's docstring)
    rewards: torch.Tensor  # (N, 2) float32
    deal_done: torch.Tensor  # (N,) bool
    deal_winner: torch.Tensor  # (N,) -1: drawn / none
    deal_points: torch.Tensor  # (N,)
    deal_reason: torch.Tensor  # (N,) into REASONS, -1
    deal_scores: torch.Tensor  # (N, 2)
    match_winner: torch.Tensor  # (N,) -1: none
    match_done: torch.Tensor  # (N,) bool
    match_value: torch.Tensor  # (N,) what the match that ended counts for (2: 7-0 with double_game), or 0

    @classmethod
    def finished(
        cls, num_envs: int, device: torch.device, episode: str, rules: Rules = GERMAN
    ) -> BatchedState:
        """Every table a finished match: zero fields, window OVER, match scores at the target,
        and no deal ended in a step."""
        z = torch.zeros(num_envs, dtype=torch.int64, device=device)
        z2 = torch.zeros((2, num_envs), dtype=torch.int64, device=device)
        cols = torch.arange(num_envs, dtype=torch.int64, device=device)
        layout = {f.name: f.metadata.get("layout") for f in dataclasses.fields(cls)}
        zeros = {name: z2 if kind == PAIR else z for name, kind in layout.items() if kind}
        zeros.update(window=torch.full((num_envs,), OVER, dtype=torch.int64, device=device),
                     match_scores=torch.full((2, num_envs), rules.match_target, dtype=torch.int64,
                                             device=device))
        results = no_results(num_envs, device)
        return cls(num_envs, device, episode, lookup(device, rules), cols, cols + num_envs, **zeros,
                   talon=torch.zeros((rules.talon_size, num_envs), dtype=torch.int64, device=device),
                   can_declare=torch.zeros(num_envs, dtype=torch.bool, device=device),
                   held_suits=z2.clone(), held_at=z2.clone(), bonus=z.clone(),
                   rewards=torch.zeros((num_envs, 2), dtype=torch.float32, device=device),
                   deal_done=torch.zeros(num_envs, dtype=torch.bool, device=device),
                   **result_fields(results))

    def replaced(self, **changes: torch.Tensor) -> BatchedState:
        """A copy of this state with the declared fields ``changes``: ``dataclasses.replace``
        without re-running ``__init__``, a few microseconds less per step phase."""
        if not changes.keys() <= STATE_NAMES:
            raise TypeError(f"BatchedState has no fields {sorted(changes.keys() - STATE_NAMES)}")
        new = object.__new__(BatchedState)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def with_states(self, states: Sequence[State], cols: list[int]) -> BatchedState:
        """This state with tables ``cols`` overwritten by scalar states."""
        idx = torch.tensor(cols, dtype=torch.int64, device=self.device)

        def put(name: str, values: list[Any]) -> torch.Tensor:
            column = getattr(self, name).clone()
            v = torch.tensor(values, dtype=column.dtype, device=self.device)
            column[..., idx] = v.T if v.dim() == 2 else v
            return column

        new = {name: put(name, [list(getattr(s, name)) for s in states]) for name in PAIR_FIELDS}
        new.update({name: put(name, [int(getattr(s, name)) for s in states]) for name in ROW_FIELDS})
        new["can_declare"] = put("can_declare", [bool(s.can_declare) for s in states])
        new["talon"] = put("talon", [[max(c, 0) for c in s.talon] for s in states])  # sampled worlds: -1
        new["bonus"] = put("bonus", [int(s.bonus) for s in states])
        held = [s.held or ((0, 0), (0, 0)) for s in states]
        new["held_suits"] = put("held_suits", [[h[0][0], h[1][0]] for h in held])
        new["held_at"] = put("held_at", [[min(h[0][1], NEVER), min(h[1][1], NEVER)] for h in held])
        return self.replaced(**new)

    def state(self, i: int) -> State:
        """Table ``i`` as a scalar engine :class:`State` (tests, debugging; slow)."""
        return self.states([i])[0]

    def states(self, cols: Sequence[int]) -> list[State]:
        """Tables ``cols`` as scalar engine :class:`State` objects: one gather per field for all of
        them (bot opponents at training tables ask for a few dozen per step)."""
        idx = torch.tensor(list(cols), dtype=torch.int64, device=self.device)
        rules = self.t.rules
        names = FIELDS + (("held_suits", "held_at") if self.t.held else ())
        names += ("bonus",) if self.t.draw_bonus else ()
        g = {k: getattr(self, k).index_select(-1, idx).movedim(-1, 0).tolist() for k in names}
        out = []
        for j, i in enumerate(cols):
            bonus = g["bonus"][j] if self.t.draw_bonus else 0
            s = new_state(([], []), g["talon"][j], g["dealer"][j], g["match_scores"][j], rules, bonus)
            for k in FIELDS:
                if k != "talon":
                    setattr(s, k, g[k][j])  # the scalar State's own fields
            if self.t.held:
                hs, ha = g["held_suits"][j], g["held_at"][j]
                s.held = ((hs[0], ha[0]), (hs[1], ha[1]))  # type: ignore[misc]
            s.can_declare = bool(g["can_declare"][j])
            s.result = self.result(i) if s.window == OVER else None
            out.append(s)
        return out

    def result(self, i: int) -> DealResult | None:
        """How the deal that ended at table ``i`` in the last step ended, or None."""
        if not bool(self.deal_done[i]):
            return None
        w = int(self.deal_winner[i])
        sc = self.deal_scores[i].tolist()
        return DealResult(None if w < 0 else w, int(self.deal_points[i]), REASONS[int(self.deal_reason[i])],
                          (sc[0], sc[1]))

    def scores(self) -> torch.Tensor:
        """(2, N) deal scores: trick points plus marriages once a trick is taken (less the
        marriages the preset holds back: ``RulesState.score``)."""
        shown = self.shown
        if self.t.held:
            shown = shown & ~(self.held_suits * (self.tricks <= self.held_at))
        key = torch.add(self.trump, shown, alpha=4).view(-1)
        return self.points + self.t.marriage_points.index_select(0, key).view(2, -1) * (self.tricks > 0)


STATE_NAMES = frozenset(f.name for f in dataclasses.fields(BatchedState))  # every declared field
PAIR_FIELDS = tuple(f.name for f in dataclasses.fields(BatchedState) if f.metadata.get("layout") == PAIR)
ROW_FIELDS = tuple(f.name for f in dataclasses.fields(BatchedState) if f.metadata.get("layout") == ROW)
FIELDS = PAIR_FIELDS + ROW_FIELDS + ("talon", "can_declare")  # the scalar State's fields


def no_results(num_envs: int, device: torch.device) -> torch.Tensor:
    """``(7, N)``: the result rows (winner, points, reason, score 0, score 1, match winner,
    match value) of tables where no deal ended."""
    rows = torch.tensor([-1, 0, -1, 0, 0, -1, 0], dtype=torch.int64, device=device)
    return rows.unsqueeze(1).repeat(1, num_envs)


def result_fields(results: torch.Tensor) -> dict[str, torch.Tensor]:
    """The deal-result fields of :class:`BatchedState` from ``(7, N)`` result rows."""
    return {"deal_winner": results[0], "deal_points": results[1], "deal_reason": results[2],
            "deal_scores": results[3:5].T, "match_winner": results[5], "match_done": results[5] >= 0,
            "match_value": results[6]}
