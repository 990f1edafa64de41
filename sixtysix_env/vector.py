"""Many Sixty-Six tables stepped together, for training (numpy only).

:class:`VectorEnv` holds ``num_envs`` engine states and steps them all with
one action each. Every table always has exactly one player to act, so a step
is one decision per table; the observations of the players to act are written
straight into preallocated numpy batches, which the learner feeds to its
network as one batch.

Arrays (row ``i`` is table ``i``, refreshed by :meth:`VectorEnv.reset` and
:meth:`VectorEnv.step`):

================  ======================  ======================================
attribute         shape, dtype            meaning
================  ======================  ======================================
``obs``           (N, OBS_SIZE) float32   observation of the player to act
``full_obs``      (N, FULL_OBS_SIZE)      perfect-information input (critic
                  float32                 only; ``full_obs=True`` only)
``masks``         (N, 32) bool            legal actions of the player to act
``to_act``        (N,) int64              the player to act (0 or 1)
``rewards``       (N, 2) float32          game points of the deal that ended in
                                          this step, per player (+g winner, -g
                                          loser, 0 drawn deal / no deal ended)
``deal_done``     (N,) bool               a deal ended in this step
``match_done``    (N,) bool               a match ended in this step
``match_winner``  (N,) int64              winner of the match that ended, or -1
``match_value``   (N,) int64              what the match that ended counts for (2
                                          for a double game), or 0
================  ======================  ======================================

Rules: ``rules="kawu"`` (a spec of docs/rules-variants.md, German by
default) deals every table under that preset; the arrays keep their shapes.

Episodes: each table plays whole matches to 7 (``episode="match"``, the
default: a new deal follows each deal, so the policy also sees every match
score) or single deals from 0:0 (``episode="deal"``). Either way a deal's
reward is delivered at its end; a new deal or match is dealt automatically
and the arrays then describe its first decision. :meth:`VectorEnv.view_of`
gives the :class:`~sixtysix_env.knowledge.PlayerView` of a table's player to
act, for bots that play some of the seats.

With ``full_obs=True`` each row is encoded once with ``encode_full_into`` and
``obs`` is its first ``OBS_SIZE`` columns, which are by definition exactly
``encode(view(state, to_act))``: the policy input is the environment's
observation, and the critic's extra input adds only the encoding of the hidden cards.

Seeding: ``VectorEnv(n, seed)`` deals every table from one ``random.Random(seed)``
(:func:`~sixtysix_env.seeding.make_rng`), table by table in order, so a seed
fixes the whole run for a given sequence of actions.

Copying: a ``VectorEnv`` is a value; ``copy.deepcopy`` and ``pickle`` give an
independent copy (states, random generator, arrays) that plays on exactly as
the original.
"""

from __future__ import annotations

import numpy as np

from .actions import N_ACTIONS, IllegalActionError
from .deals import deal, next_deal
from .engine import OVER, State
from .episodes import EPISODES, check_episode
from .knowledge import PlayerView, view
from .observation import FULL_OBS_SIZE, OBS_SIZE, encode_full_into, encode_into, mask_to_array
from .seeding import make_rng
from .variants import Rules, rules_from_spec


class VectorEnv:
    """``num_envs`` tables of Sixty-Six stepped in lockstep (see the module docstring)."""

    def __init__(self, num_envs: int, seed: int | None = 0, *, episode: str = "match",
                 full_obs: bool = False, rules: Rules | str | None = None) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        check_episode(episode)
        self.rules = rules_from_spec(rules)
        self.num_envs = num_envs
        self.episode = episode
        n = num_envs
        self.obs = np.zeros((n, OBS_SIZE), np.float32)
        self.full_obs = np.zeros((n, FULL_OBS_SIZE), np.float32) if full_obs else None
        self.masks = np.zeros((n, N_ACTIONS), bool)
        self.to_act = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, 2), np.float32)
        self.deal_done = np.zeros(n, bool)
        self.match_done = np.zeros(n, bool)
        self.match_winner = np.full(n, -1, np.int64)
        self.match_value = np.zeros(n, np.int64)
        self._legal = np.zeros(n, np.int64)
        self.states: list[State] = []
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """New matches on every table; ``seed`` fixes all deals that follow."""
        self.rng = make_rng(seed)
        self.states = [deal(self.rng, rules=self.rules) for _ in range(self.num_envs)]
        self.rewards[:] = 0
        self.deal_done[:] = False
        self.match_done[:] = False
        self.match_winner[:] = -1
        self.match_value[:] = 0
        for i in range(self.num_envs):
            self._observe(i)
        self._finish()

    def view_of(self, i: int) -> PlayerView:
        """The view of table ``i``'s player to act."""
        s = self.states[i]
        return view(s, s.to_act)

    def _observe(self, i: int) -> None:
        s = self.states[i]
        p = s.to_act
        if self.full_obs is not None:
            encode_full_into(s, p, self.full_obs[i])
        else:
            encode_into(view(s, p), self.obs[i])
        self.to_act[i] = p
        self._legal[i] = s.legal_mask()

    def _finish(self) -> None:
        if self.full_obs is not None:
            self.obs[:] = self.full_obs[:, :OBS_SIZE]
        mask_to_array(self._legal, out=self.masks)

    def step(self, actions: np.ndarray | list[int]) -> None:
        """One action per table for its player to act; refreshes all arrays.

        Raises :class:`~sixtysix_env.actions.IllegalActionError` (a
        ``ValueError``) naming the table if an action is illegal, and
        ``ValueError`` for anything but ``num_envs`` actions; both before any
        table moves, so a refused step changes nothing.
        """
        try:
            if isinstance(actions, (str, bytes)):
                raise TypeError
            acts = list(actions.tolist() if isinstance(actions, np.ndarray) else actions)
        except TypeError:
            raise ValueError(f"actions must be a list or array of {self.num_envs} action ids, "
                             f"got {actions!r:.80}") from None
        if len(acts) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(acts)}")
        states = self.states
        checked = []
        for i, a in enumerate(acts):  # every action is checked before any table moves
            try:
                checked.append(states[i].check_action(a))
            except IllegalActionError as e:
                raise IllegalActionError(f"table {i}: {e}", e.action, e.legal_mask) from None
        rewards = self.rewards
        rewards[:] = 0
        self.deal_done[:] = False
        self.match_done[:] = False
        self.match_winner[:] = -1
        self.match_value[:] = 0
        rules = self.rules
        for i, a in enumerate(checked):
            s = states[i]
            s.apply_unchecked(a)
            if s.window == OVER:
                self.deal_done[i] = True
                res = s.result
                assert res is not None  # a deal in the OVER window has its result
                if res.winner is not None:
                    rewards[i, res.winner] = res.game_points
                    rewards[i, 1 - res.winner] = -res.game_points
                if self.episode == "deal":
                    states[i] = deal(self.rng, rules=rules)
                elif s.match_over:
                    self.match_done[i] = True
                    winner = s.match_winner
                    assert winner is not None  # the match is over
                    self.match_winner[i] = winner
                    self.match_value[i] = s.match_value
                    states[i] = deal(self.rng, rules=rules)
                else:
                    states[i] = next_deal(s, self.rng)
            self._observe(i)
        self._finish()


__all__ = ["EPISODES", "VectorEnv"]
