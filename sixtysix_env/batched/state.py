"""The state of N tables as a structure of tensors, and its scalar views.

:class:`BatchedState` holds the fields of :class:`~sixtysix_env.engine.State`
with one column per table (see :class:`~.engine.BatchedEngine`); the rules
that move them live in :mod:`.deal`, :mod:`.legal`, :mod:`.step` and
:mod:`.score`.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..deals import new_state
from ..engine import MATCH_TARGET, OVER, TALON_SIZE, State
from ..scoring import REASONS, DealResult
from .lookup import tables

PAIR_FIELDS = ("hands", "points", "tricks", "won", "played", "shown", "known", "void", "match_scores")
ROW_FIELDS = (
    "stock", "trump", "trump_card", "closed_by", "closer_opp_tricks", "exchanged_by",
    "window", "to_act", "lead_card", "marriage_suit", "dealer",
)
FIELDS = PAIR_FIELDS + ROW_FIELDS + ("talon", "can_declare")


class BatchedState:
    """The fields of N tables on one device (column n is table n; names and
    meanings as in the scalar :class:`~sixtysix_env.engine.State`), the
    device's lookup tables ``t`` and the column indices ``cols`` (player 0 of
    a flattened ``(2, N)`` field) and ``cols_n`` (player 1)."""

    def __init__(self, num_envs: int, device: str | torch.device, episode: str) -> None:
        self.num_envs = num_envs
        self.device = torch.device(device)
        self.episode = episode
        self.t = tables(self.device)
        self.cols = torch.arange(num_envs, dtype=torch.int64, device=self.device)
        self.cols_n = self.cols + num_envs  # flat index of player 1 in a (2, N) field

    def clear_fields(self) -> None:
        """Every table a finished match: zero fields, window OVER, match scores at the target."""
        n, dev = self.num_envs, self.device
        z = torch.zeros(n, dtype=torch.int64, device=dev)
        z2 = torch.zeros((2, n), dtype=torch.int64, device=dev)
        for k in PAIR_FIELDS:
            setattr(self, k, z2)
        for k in ROW_FIELDS:
            setattr(self, k, z)
        self.talon = torch.zeros((TALON_SIZE, n), dtype=torch.int64, device=dev)
        self.can_declare = torch.zeros(n, dtype=torch.bool, device=dev)
        self.window = torch.full((n,), OVER, dtype=torch.int64, device=dev)
        self.match_scores = torch.full((2, n), MATCH_TARGET, dtype=torch.int64, device=dev)

    def put_states(self, states: Sequence[State], cols: list[int]) -> None:
        """Overwrite the fields of tables ``cols`` with scalar states (not ``legal``)."""
        idx = torch.tensor(cols, dtype=torch.int64, device=self.device)

        def put(name: str, values: list) -> None:
            field = getattr(self, name).clone()
            v = torch.tensor(values, dtype=field.dtype, device=self.device)
            field[..., idx] = v.T if v.dim() == 2 else v
            setattr(self, name, field)

        for name in PAIR_FIELDS:
            put(name, [list(getattr(s, name)) for s in states])
        put("talon", [[max(c, 0) for c in s.talon] for s in states])  # sampled worlds hold -1 for drawn cards
        for name in ROW_FIELDS + ("can_declare",):
            put(name, [int(getattr(s, name)) for s in states])

    def state(self, i: int) -> State:
        """Table ``i`` as a scalar engine :class:`State` (tests, debugging; slow)."""
        return self.states([i])[0]

    def states(self, cols: Sequence[int]) -> list[State]:
        """Tables ``cols`` as scalar engine :class:`State` objects: one gather per field for all of
        them (bot opponents at training tables ask for a few dozen per step)."""
        idx = torch.tensor(list(cols), dtype=torch.int64, device=self.device)
        g = {k: getattr(self, k).index_select(-1, idx).movedim(-1, 0).tolist() for k in FIELDS}
        out = []
        for j, i in enumerate(cols):
            s = new_state(([], []), g["talon"][j], g["dealer"][j], g["match_scores"][j])
            for k in FIELDS:
                if k != "talon":
                    setattr(s, k, g[k][j])
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
        """(2, N) deal scores: trick points plus marriages once a trick is taken."""
        key = torch.add(self.trump, self.shown, alpha=4).view(-1)
        return self.points + self.t.marriage_points.index_select(0, key).view(2, -1) * (self.tricks > 0)
