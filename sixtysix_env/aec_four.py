"""
# Four-player partnership Sixty-Six (sixtysix_four_v0)

| Creation           | `sixtysix_env.aec_four.env()`                                |
|--------------------|--------------------------------------------------------------|
| Agents             | `['player_0', 'player_1', 'player_2', 'player_3']`           |
| Teams              | `player_0` + `player_2` against `player_1` + `player_3`      |
| Action Values      | Discrete(32), the two-player action table                    |
| Observation Shape  | (OBS4_SIZE,) float32, plus a (32,) int8 action mask          |

The game of :mod:`sixtysix_env.four` (docs/rules-four.md). The conventions
are the two-player env's: a dict observation with ``'observation'`` (the
seat's :class:`~sixtysix_env.four_knowledge.FourView` only, seats relative to the
observer: me, left, partner, right) and ``'action_mask'`` (all zeros for a
seat not to act); ``Discrete(32)``; an illegal action raises
:class:`~sixtysix_env.actions.IllegalActionError`.

Rewards are team rewards, the same for both partners and zero-sum between
the teams: ``episode="deal"`` pays ``+g``/``-g`` (the deal's game points,
0 for a drawn deal); ``episode="match"`` (to 7) pays ``+1``/``-1`` at its end.
``reset(seed)`` deals from the seed (deal ``k`` from ``deal_rng(seed, k)``;
``reset()`` continues the seed's stream, as in the two-player env);
``options={"dealer": d, "hands": [4 x 6 cards], "scores": [a, b]}`` fixes
the first deal (bad values: ``ValueError``; a refused ``reset`` changes
nothing, the seed stream included). ``render_mode="ansi"``/``"human"`` draw the table from
``render_view`` (a seat's view, ``player_0`` by default) or ``"all"``.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .actions import N_ACTIONS, to_int
from .aec_order import EndCheckedAEC, NotResetError, check_in_play
from .cards import N_CARDS
from .engine import N_WINDOWS
from .episodes import check_episode
from .four import FOUR_IDS, N_SEATS, FourState
from .four_deals import deal_four, fixed_four, next_four
from .four_knowledge import FourView, describe, view_four
from .scoring import WIN_SCORE
from .seeding import SeedStream, deal_rng

RENDER_MODES = ("ansi", "human")
SPECTATOR = "all"
OPTION_KEYS = frozenset({"dealer", "hands", "scores"})

# Observation layout (all relative to the observer; rel k = seat player + k).
_BLOCKS = (
    ("hand", N_CARDS),
    ("played", 4 * N_CARDS),
    ("known", 4 * N_CARDS),
    ("void", 4 * N_CARDS),
    ("trick", 4 * N_CARDS),  # by trick position 0-3
    ("trick_leader", 4),
    ("won", 2 * N_CARDS),  # my team, the other team
    ("trump", 4),
    ("trump_card", N_CARDS),
    ("shown", 4 * 4),
    ("scores", 2),
    ("tricks", 2),
    ("hand_sizes", 4),
    ("window", N_WINDOWS),
    ("marriage_suit", 4),
    ("flags", 2),  # partner_shown, can_declare
    ("dealer", 4),
    ("match", 2),
)
OFFSETS: dict[str, int] = {}
_o = 0
for _name, _n in _BLOCKS:
    OFFSETS[_name] = _o
    _o += _n
OBS4_SIZE = _o
del _o, _name, _n


def _bits(out: np.ndarray, at: int, mask: int) -> None:
    while mask:
        low = mask & -mask
        out[at + low.bit_length() - 1] = 1.0
        mask ^= low


def encode_four(v: FourView) -> tuple[np.ndarray, np.ndarray]:
    """The observation vector and the action mask of one seat's view."""
    o = np.zeros(OBS4_SIZE, dtype=np.float32)
    me = v.player
    team = me & 1
    _bits(o, OFFSETS["hand"], v.hand)
    for k in range(N_SEATS):
        s = (me + k) & 3
        _bits(o, OFFSETS["played"] + k * N_CARDS, v.played[s])
        _bits(o, OFFSETS["known"] + k * N_CARDS, v.known[s])
        _bits(o, OFFSETS["void"] + k * N_CARDS, v.void[s])
        _bits(o, OFFSETS["shown"] + 4 * k, v.shown[s])
        o[OFFSETS["hand_sizes"] + k] = v.hand_sizes[s] / 6
    for i, c in enumerate(v.trick):
        o[OFFSETS["trick"] + i * N_CARDS + c] = 1.0
    o[OFFSETS["trick_leader"] + ((v.leader - me) & 3)] = 1.0
    _bits(o, OFFSETS["won"], v.won[team])
    _bits(o, OFFSETS["won"] + N_CARDS, v.won[1 - team])
    o[OFFSETS["trump"] + v.trump] = 1.0
    o[OFFSETS["trump_card"] + v.trump_card] = 1.0
    o[OFFSETS["scores"]] = min(v.scores[team], 2 * WIN_SCORE) / WIN_SCORE
    o[OFFSETS["scores"] + 1] = min(v.scores[1 - team], 2 * WIN_SCORE) / WIN_SCORE
    o[OFFSETS["tricks"]] = v.tricks[team] / 6
    o[OFFSETS["tricks"] + 1] = v.tricks[1 - team] / 6
    o[OFFSETS["window"] + v.window] = 1.0
    if v.marriage_suit >= 0:
        o[OFFSETS["marriage_suit"] + v.marriage_suit] = 1.0
    o[OFFSETS["flags"]] = float(v.partner_shown)
    o[OFFSETS["flags"] + 1] = float(v.can_declare)
    o[OFFSETS["dealer"] + ((v.dealer - me) & 3)] = 1.0
    target = v.rules.match_target
    o[OFFSETS["match"]] = v.match_scores[team] / target
    o[OFFSETS["match"] + 1] = v.match_scores[1 - team] / target
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    m = v.legal_mask
    while m:
        low = m & -m
        mask[low.bit_length() - 1] = 1
        m ^= low
    return o, mask


def env(**kwargs: Any) -> AECEnv:
    """The environment (the raw env checks order and actions itself)."""
    return raw_env(**kwargs)


class raw_env(EndCheckedAEC):
    """Four-player partnership Sixty-Six as a PettingZoo AEC env; see the module docstring."""

    metadata = {"name": "sixtysix_four_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(
        self, episode: str = "match", render_mode: str | None = None, render_view: str = FOUR_IDS[0]
    ) -> None:
        super().__init__()
        check_episode(episode)
        self._seeds = SeedStream()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        if render_view not in (*FOUR_IDS, SPECTATOR):
            raise ValueError(f"render_view must be one of {[*FOUR_IDS, SPECTATOR]}, got {render_view!r}")
        self.episode = episode
        self.render_mode = render_mode
        self.render_view = render_view
        self.possible_agents = list(FOUR_IDS)
        self.agents = list(FOUR_IDS)
        self._index = {a: i for i, a in enumerate(FOUR_IDS)}
        obs = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 2.0, (OBS4_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs for a in FOUR_IDS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in FOUR_IDS}
        self.game_state: FourState | None = None
        self._seed = 0
        self._deal_index = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[FOUR_IDS[self._seat(agent)]]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[FOUR_IDS[self._seat(agent)]]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Nothing changes until the seed and options are known good: a refused reset
        # leaves the env (its seed stream too) exactly as it was.
        seeds = copy.deepcopy(self._seeds)
        match_seed = seeds.next(seed)
        state = self._first_deal(match_seed, options)
        self._seeds, self._seed, self.game_state = seeds, match_seed, state
        self._deal_index = 0
        self.agents = list(FOUR_IDS)
        self.rewards = {a: 0.0 for a in FOUR_IDS}
        self._cumulative_rewards = {a: 0.0 for a in FOUR_IDS}
        self.terminations = {a: False for a in FOUR_IDS}
        self.truncations = {a: False for a in FOUR_IDS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in FOUR_IDS}
        self.agent_selection = FOUR_IDS[self.game_state.to_act]
        if self.render_mode == "human":
            self.render()

    def _first_deal(self, seed: int, options: Any) -> FourState:
        options = {} if options is None else options
        if not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict, got {options!r}")
        unknown = set(options) - OPTION_KEYS
        if unknown:
            warnings.warn(f"ignoring unknown reset option(s) {sorted(unknown, key=repr)}", UserWarning,
                          stacklevel=3)
        rng = deal_rng(seed, 0)
        dealer = options.get("dealer")
        if dealer is None:
            dealer = rng.randrange(N_SEATS)
        scores = options.get("scores", (0, 0))
        if "hands" in options:
            return fixed_four(options["hands"], dealer, scores)
        return deal_four(rng, dealer, scores)

    def view(self, agent: str | int) -> FourView:
        return view_four(self._state(), self._seat(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs, mask = encode_four(view_four(self._state(), self._seat(agent)))
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        state = self._state()  # NotResetError before the first reset()
        check_in_play(self)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state.check_action(action)  # IllegalActionError names the action and the legal ones
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in FOUR_IDS}
        state.apply(action)
        if state.result is not None:
            self._end_of_deal(state)
        if not self.terminations[agent]:
            self.agent_selection = FOUR_IDS[self.game_state.to_act]  # type: ignore[union-attr]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_of_deal(self, state: FourState) -> None:
        res = state.result
        assert res is not None
        info = {"deal_winner_team": -1 if res.winner is None else res.winner, "deal_points": res.game_points,
                "reason": res.reason, "match_score": tuple(state.match_scores)}  # fmt: skip
        self.infos = {a: dict(info) for a in FOUR_IDS}
        over = self.episode == "deal" or state.match_over
        if self.episode == "deal" and res.winner is not None:
            self._team_reward(res.winner, float(res.game_points))
        if over:
            if self.episode == "match":
                self._team_reward(state.match_winner, 1.0)  # type: ignore[arg-type]
            self.terminations = {a: True for a in FOUR_IDS}
            return
        self._deal_index += 1
        self.game_state = next_four(state, deal_rng(self._seed, self._deal_index))

    def _team_reward(self, team: int, value: float) -> None:
        for s, a in enumerate(FOUR_IDS):
            self.rewards[a] = value if s & 1 == team else -value

    def _state(self) -> FourState:
        if self.game_state is None:
            raise NotResetError(f"{self.metadata['name']}: call reset() first")
        return self.game_state

    def _seat(self, agent: str | int) -> int:
        if isinstance(agent, str) and agent in self._index:
            return self._index[agent]
        if to_int(agent) in (0, 1, 2, 3):  # ints and numpy ints; never a bool or float
            return to_int(agent)
        raise ValueError(f"unknown agent {agent!r}; agents are {list(FOUR_IDS)}")

    def render(self) -> str | None:
        state = self._state()
        if self.render_view == SPECTATOR:
            text = repr(state)
        else:
            text = describe(view_four(state, self._index[self.render_view]))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


__all__ = ["OBS4_SIZE", "encode_four", "env", "raw_env"]

