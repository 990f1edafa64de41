"""The rules of Sixty-Six for N tables at once, as a structure of torch tensors.

:class:`BatchedEngine` is the scalar :class:`~sixtysix_env.engine.State` with
one column per table: every field is a tensor on one device (CPU, or CUDA
where there is one), card sets are int64 bitmasks (bit ``c`` for card ``c``,
as in ``cards.py``), per-player fields are ``(2, N)`` tensors (row = player)
and the talon is ``(12, N)``. A step applies one action per table with a
fixed sequence of vectorised tensor operations: no Python loop over tables,
no branch on a table's values; the case analysis of the rules is
``torch.where`` and small lookup tables indexed by (window, action) and by
(led card, answer, trump suit).

Typical use::

    eng = BatchedEngine(4096, seed=0)              # 4,096 new matches
    while training:
        obs = observe(eng)                         # (N, 312), see observe.py
        eng.step(policy(obs, action_masks(eng.legal)))
        eng.rewards, eng.deal_done, eng.match_done # (N, 2), (N,), (N,)

    # from scalar states: tests, fixed deals (docs/rules.md section 7), puzzles
    eng = BatchedEngine.from_states([fixed_deal(hands, talon, dealer=1)])
    eng.state(0)                                   # table 0 as a scalar State

The rules are those of ``engine.py`` (docs/rules.md), transition for transition:
``tests/batched`` replays the scalar rules tests through it and compares it
with the scalar engine at every step of random play
(``sixtysix_env.batched.check``). Fields keep the scalar engine's names and
meanings (:class:`~sixtysix_env.engine.State`), with -1 for "none" where the
scalar engine has -1 or None.

After :meth:`BatchedEngine.step`:

=================  ====================  ======================================
attribute          shape, dtype          meaning
=================  ====================  ======================================
``legal``          (N,) int64            legal actions of the player to act, a
                                         32-bit mask (0 once a deal is over)
``rewards``        (N, 2) float32        game points of a deal that ended in
                                         this step, per player (+g winner, -g
                                         loser; 0 drawn deal / no deal ended)
``deal_done``      (N,) bool             a deal ended in this step
``deal_winner``    (N,) int64            its winner, -1 for a drawn deal
``deal_points``    (N,) int64            its game points (0 for a drawn deal)
``deal_reason``    (N,) int64            index into ``engine.REASONS``, or -1
``deal_scores``    (N, 2) int64          both deal scores at its end
``match_done``     (N,) bool             a match ended (``episode="match"``)
``match_winner``   (N,) int64            its winner, or -1
``match_value``    (N,) int64            what it counts for: 2 for a 7-0
                                         win with ``double_game``, else 1;
                                         0 if no match ended
=================  ====================  ======================================

Episodes: with ``autoreset`` (the default) a table whose deal ended is dealt
its next deal in the same step, so the fields always describe a live
decision: the match's next deal (the winner deals, the same dealer after a
drawn deal, match scores carried) or, once the match is over or with
``episode="deal"``, a new match at 0:0 with a random first dealer. The deal
results above still describe the deal that ended.

Dealing: decks (and first dealers) come from a pool that a vectorised
Fisher-Yates fills in large batches from the engine's ``torch.Generator``;
each finished table takes the next one. Counting the finished tables is the
step's one host sync (free on CPU). Everything is deterministic given the
seed and the actions on one device type (CPU and CUDA generators differ).

Rules: ``rules=`` any preset of docs/rules-variants.md with its switches
(German by default), one per engine: :mod:`.rules`. A preset's deck, hand and
talon sizes, exchange card and close window are lookup tables; its other
differences (marriages held back, 66 checked after every trick, no draw
window, its scoring, the draw bonus and the double game) are tensor branches
picked once per engine, so the German step runs exactly the German operations.
``match_value`` ((N,) int64) is what a match that ended in the step counts for
(2 for a 7-0 win with ``double_game``, else 1; 0 where none ended), as in
``sixtysix_env.vector.VectorEnv``.

Actions must be legal: ``validate=True`` (the default) checks them, one more
host sync. ``active`` lets a caller move some tables only (the opponent's
turns in the Gymnasium wrapper). Fields are updated in place or replaced by
each step: treat them as read-only and clone what you keep.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from ..engine import OVER, State
from ..episodes import check_episode
from ..scoring import DealResult
from ..seeding import reset_seed
from .deal import DeckPool, deal
from .legal import action_tensor, active_tensor, check_actions, final_over_masks, legal_mask
from .lookup import NOOP, as_device, normal_tensors
from .rules import UnsupportedRulesError, batched_rules
from .score import end_deals
from .state import STATE_NAMES, BatchedState, no_results
from .step import apply


class BatchedEngine:
    """N tables of Sixty-Six stepped together (see the module docstring).

    The tables are :attr:`now`, a :class:`~.state.BatchedState` (the one
    declaration of every tensor: the fields of the scalar
    :class:`~sixtysix_env.engine.State`, column n = table n, and what the
    last step ended), replaced by each step; the engine reads them out as
    its own attributes (``eng.hands``, ``eng.rewards``, ...: read-only,
    clone what you keep). ``legal`` is the legal masks of the players to
    act. Scalar views (:meth:`state`, :meth:`states`, :meth:`result`) and
    :meth:`scores` are the state's.
    """

    now: BatchedState

    @normal_tensors
    def __init__(
        self,
        num_envs: int,
        seed: int | None = 0,
        *,
        device: str | torch.device = "cpu",
        episode: str = "match",
        validate: bool = True,
        rules: Any = None,
    ) -> None:
        self.rules = batched_rules(rules)  # UnsupportedRulesError for a hand-made Rules
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        check_episode(episode)
        self.num_envs, self.device, self.episode = num_envs, as_device(device), episode
        self.validate = validate
        self.now = BatchedState.finished(num_envs, self.device, episode, self.rules)
        self.final_over = final_over_masks(self.now)  # legal masks of FINAL and OVER
        self.no_results = no_results(num_envs, self.device)  # deal results of a step where no deal ended
        self.generator = torch.Generator(device=self.device)
        self.decks = DeckPool(self.now.t, self.generator, self.device, max(4 * num_envs, 256))
        self.legal = torch.zeros(num_envs, dtype=torch.int64, device=self.device)
        self.reset(seed)

    def __getattr__(self, name: str) -> Any:
        """The tensors of :attr:`now` as the engine's attributes (``eng.to_act``, ``eng.rewards``)."""
        now = self.__dict__.get("now")
        if now is not None and name in STATE_NAMES:
            return getattr(now, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------- creation
    @normal_tensors
    def reset(self, seed: int | None = None) -> None:
        """New matches on every table (0:0, random first dealers); ``seed``
        fixes every deal that follows (None: a fresh random seed)."""
        if seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(reset_seed(seed) % 2**64)  # any int, as in the scalar envs
        self.decks.clear()
        self.now = BatchedState.finished(self.num_envs, self.device, self.episode, self.rules)
        self.autoreset()  # every table: a finished match, so a new one

    @classmethod
    def from_states(
        cls,
        states: Sequence[State],
        seed: int | None = 0,
        *,
        device: str | torch.device = "cpu",
        episode: str = "match",
        validate: bool = True,
    ) -> BatchedEngine:
        """Tables that start at the given scalar states (any window but OVER; all of one
        preset, the engine's); later deals come from ``seed``."""
        if not states:
            raise ValueError("from_states needs at least one state")
        eng = cls(len(states), seed, device=device, episode=episode, validate=validate, rules=states[0].rules)
        eng.load_states(states)
        return eng

    @normal_tensors
    def load_states(self, states: Sequence[State], tables_: Sequence[int] | None = None) -> None:
        """Overwrite tables (``tables_``, default the first ``len(states)``) with scalar states."""
        cols = list(range(len(states))) if tables_ is None else list(tables_)
        if len(cols) != len(states):
            raise ValueError(f"{len(states)} states for {len(cols)} tables")
        if any(s.window == OVER for s in states):
            raise ValueError("cannot load a finished deal (window OVER)")
        for s in states:
            if batched_rules(s.rules) != self.rules:
                raise UnsupportedRulesError(
                    f"this batched engine plays {self.rules.spec!r}: it cannot load a deal of "
                    f"{s.rules.spec!r}"
                )
            if s.bonus and not self.rules.draw_bonus:
                raise UnsupportedRulesError(
                    f"a deal with a draw bonus under {self.rules.spec!r} (no draw_bonus switch)"
                )
        self.now = self.now.with_states(states, cols)
        self.legal = self.legal_mask()

    @normal_tensors
    def autoreset(self) -> None:
        """Deal the next deal at every table whose deal is over (module docstring)."""
        self.now = deal(self.now, (self.now.window == OVER).nonzero().squeeze(1), self.decks, inplace=False)
        self.legal = self.legal_mask()

    # ------------------------------------------------------- scalar views
    def state(self, i: int) -> State:
        """Table ``i`` as a scalar engine :class:`State` (tests, debugging; slow)."""
        return self.now.state(i)

    def states(self, cols: Sequence[int]) -> list[State]:
        """Tables ``cols`` as scalar :class:`State` objects (:meth:`BatchedState.states`)."""
        return self.now.states(cols)

    def result(self, i: int) -> DealResult | None:
        """How the deal that ended at table ``i`` in the last step ended, or None."""
        return self.now.result(i)

    def scores(self) -> torch.Tensor:
        """(2, N) deal scores: trick points plus marriages once a trick is taken."""
        return self.now.scores()

    # ------------------------------------------------------- moves and steps
    def legal_mask(self) -> torch.Tensor:
        """Legal actions of each table's player to act as int64 32-bit masks
        (``State.legal_mask`` for every column; 0 once a deal is over)."""
        return legal_mask(self.now, self.final_over)

    def step(
        self,
        actions: torch.Tensor,
        active: torch.Tensor | None = None,
        *,
        autoreset: bool = True,
        before_reset: Callable[[BatchedEngine], None] | None = None,
    ) -> None:
        """Apply one action per table for its player to act (``active``: only
        those tables move; the others keep their state and report nothing).

        Actions that are not ``num_envs`` integer ids, or an ``active`` that is
        not ``num_envs`` bools, raise ``ValueError`` before any table moves; so
        does, with ``validate``, an illegal action (an ``IllegalActionError``
        naming the tables). With ``autoreset`` finished deals are
        followed by the next deal at once (see the module docstring), after
        ``before_reset(self)`` if given: it sees the finished deals in the OVER
        window, e.g. to observe them (``legal`` is not updated yet). Without
        ``autoreset`` they stay there until :meth:`autoreset`.
        """
        a = action_tensor(actions, self.num_envs, self.device)
        if active is not None:
            active = active_tensor(active, self.num_envs, self.device)
            a = torch.where(active, a, NOOP)
        if self.validate:
            check_actions(self.now, self.legal, a, active)
        moved = apply(self.now, a)
        ended = moved.window == OVER
        idx = ended.nonzero().squeeze(1)  # the step's one host sync
        self.now = end_deals(moved, ended, idx, a, self.no_results)
        if autoreset:
            if before_reset is not None:
                before_reset(self)
            self.now = deal(self.now, idx, self.decks, inplace=True)
        self.legal = self.legal_mask()


__all__ = ["NOOP", "BatchedEngine"]
