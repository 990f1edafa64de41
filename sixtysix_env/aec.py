"""
# Sixty-Six (sixtysix_v0)

| Creation           | `sixtysix_env.env()` or `pettingzoo.make("aec", "sixtysix_v0")` |
|--------------------|--------------------------------------------------------------|
| Actions            | Discrete                                                     |
| Parallel API       | No                                                           |
| Agents             | `agents = ['player_0', 'player_1']`                          |
| Action Values      | Discrete(32)                                                 |
| Observation Shape  | (312,) float32, plus a (32,) int8 action mask                |
| Observation Values | [0, 1] bits and a few scaled counts (see `observation.py`)   |

Sixty-Six (Sechsundsechzig) is a two-player trick-taking card game with 24
cards: the first player to collect 66 card points and declare it wins the
deal, scoring 1, 2 or 3 game points; the first to 7 game points wins the
match. ``docs/rules.md`` is the full contract.

### Rules

``rules`` picks the game (docs/rules-variants.md, "Using a preset"): a spec
string such as ``"german"`` (default), ``"german+draw_bonus+double_game"``,
``"kawu"``, ``"schnapsen"`` or ``"schnapsen-pkg"``, or a
:class:`~sixtysix_env.variants.Rules`; a bad spec raises
``UnknownRulesError``/``RulesConflictError`` (``ValueError``) when the env is
made. Every deal of the match follows it (its deck, hand size and match
target); under ``reward="match"`` a double game (7-0 with ``double_game``)
pays ``+2``/``-2``, and a draw bonus is part of a deal's game points. The
spaces are the same under every preset, and the observation has no rules
feature: its card planes are indexed by card id, so a 20-card deal leaves the
nines' entries 0 (and :func:`~sixtysix_env.observation.unseen_cards` 1 for the
nines, a constant), the talon count is scaled by 12 whatever the deck, and the
match count by 7 (``schnapsen-pkg`` is one deal). A policy is trained for one
preset; the checkpoint records it (docs/rules-variants.md), which is why the
observation does not repeat it.

### Observation Space

A dict: ``'observation'`` is the observing player's information set as a
float32 vector of ``OBS_SIZE`` = 312, relative to that player ("me"/"opp"),
laid out in the index table of :mod:`sixtysix_env.observation`;
``'action_mask'`` is an int8 vector of 32 with 1 for legal actions, all zeros
for the player not to act. Once the episode is over every agent's mask holds
one placeholder action, ``CONTINUE`` (31), never all zeros: samplers that
draw from the mask of the agent in ``agent_selection`` (TorchRL's
``PettingZooWrapper`` and ``rand_action``, a ``MaskedCategorical``) can act
on the final observation. The placeholder is never stepped: as in every
PettingZoo env, a terminated agent's only action is ``None``. With ``perfect_information=True``
a third key ``'full_observation'`` (``FULL_OBS_SIZE`` = 384) adds the
opponent's hand and the talon order: for training critics only.

### Action Space

``Discrete(32)``: 0-23 play that card (id ``6 * suit + rank``), 24-27 show the
marriage of suit 0-3, 28 exchange the trump nine, 29 close, 30 declare,
31 continue (draw, or decline after a close). See ``actions.py``.

### Rewards

- ``episode="deal"``: one deal; ``+g`` to its winner and ``-g`` to the loser
  (``g`` the game points, 1-3), ``0`` for a drawn deal.
- ``episode="match"`` (default, to 7 game points): ``+1`` / ``-1`` at the end
  of the match (``reward="match"``), or ``+g`` / ``-g`` after every deal
  (``reward="game_points"``).
- Always zero-sum. An illegal action raises
  :class:`~sixtysix_env.actions.IllegalActionError` (a ``ValueError``) naming
  the action and the legal ones (``illegal_action="raise"``), or ends the episode with
  ``-illegal_penalty`` for the offender and ``+illegal_penalty`` for the other
  (``illegal_action="lose"``, like PettingZoo's TerminateIllegalWrapper).

### Starting State and Seeding

``reset(seed)`` starts a match; the first dealer comes from the seed and deal
``k`` is shuffled by :func:`~sixtysix_env.seeding.deal_rng` of ``(seed, k)`` only, so a seed gives
the same card sequence whatever happens in play (duplicate matches).
``reset(seed, options={"dealer", "hands", "talon", "scores"})`` fixes the
first deal exactly (docs/rules.md section 7); every key is optional, but ``hands``
and ``talon`` go together. Bad values raise ``ValueError``; an unknown key
is ignored with a ``UserWarning`` (so PettingZoo's ``api_test`` passes as is).
A refused ``reset`` changes nothing: the match in play and the seed stream
stay as they were.
``reset()`` without a seed continues the stream of the last seed given
(:class:`~sixtysix_env.seeding.SeedStream`, Gymnasium's rule). Once every
agent is done, ``last()`` and ``step()`` raise
:class:`~sixtysix_env.aec_order.EpisodeOverError`.

### Infos

Every step, ``infos[agent]`` has the same keys with plain ``int`` values
(:data:`~sixtysix_env.infos.INFO_KEYS`, documented in
:mod:`sixtysix_env.infos`): ``deal_over``, ``deal_winner`` (seat, -1 none or
drawn), ``deal_points``, ``reason_code``, ``deal_score_0/1``, ``deals_done``,
``match_score_0/1`` and ``illegal`` (1 in the offender's info after an
illegal action under ``illegal_action="lose"``). The rich result of the last
finished deal is ``last_deal_result`` (``{"winner": agent or None,
"game_points": g, "reason": ..., "scores": {agent: deal score}}``, None before; under a preset other than
plain German also ``"rules"``, ``"bonus"`` and ``"match_value"``).
``info_mode="rich"`` adds the nested keys ``"deal_result"`` (that dict),
``"match_score"`` (``{agent: game points}``) and ``"deal"`` (the deal's
index) after every deal, kept until the next deal ends, and
``"illegal_action"`` (a description) to the offender's info.

### Rendering

``render_mode="ansi"`` (``render()`` returns the text) or ``"human"`` (printed
after ``reset`` and every ``step``) draws the table from ONE FIXED SIDE,
``render_view="player_0"`` by default (or ``"player_1"``): that player's hand,
the other hand face down, from the player's
:class:`~sixtysix_env.knowledge.PlayerView` only (:mod:`sixtysix_env.render`),
so it never shows a player's hidden cards to the other, whoever is to act.
``render_view="all"`` is the explicit spectator opt-in (both hands; replays).

### Copying

The env is a value: ``copy.deepcopy`` and ``pickle`` (of ``raw_env`` and of
``env()``) give an independent env in the same position (the deal, the match,
the seed, rewards, infos and the agent to act), which plays on exactly as
the original would.

### Other API

``view(agent)`` returns the agent's :class:`~sixtysix_env.knowledge.PlayerView`
(what bots act on); ``game_state`` is the engine
:class:`~sixtysix_env.engine.State` (for tests and the cheating oracle only);
``deal_index`` is the index of the current deal in the match;
``last_deal_result`` the rich result of the last finished deal.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .actions import CONTINUE, N_ACTIONS, IllegalActionError, describe_action, to_int
from .aec_order import EndCheckedAEC, NotResetError, OrderEnforcing, check_in_play
from .cards import cards_of
from .deals import check_dealer, check_match_scores, deal, fixed_deal, next_deal
from .engine import PLAYER_IDS, State
from .episodes import REWARDS, check_episode
from .infos import check_info_mode, flat_info, rich_info, rich_result
from .knowledge import PlayerView, view
from .observation import FULL_OBS_HIGH, FULL_OBS_LOW, OBS_HIGH, OBS_LOW, encode_full, encode_with_mask
from .render import RENDER_MODES, SPECTATOR, Table, check_render_args, player_table, show, spectator_table
from .scoring import DealResult
from .seeding import SeedStream, deal_rng
from .variants import GERMAN, Rules, rules_from_spec

ILLEGAL = ("raise", "lose")
OPTION_KEYS = frozenset({"dealer", "hands", "talon", "scores"})


def check_options(options: Any, rules: Rules = GERMAN, stacklevel: int = 2) -> dict[str, Any]:
    """``reset`` options (docs/rules.md section 7) validated and read once: a new dict
    of the known keys (``dealer`` 0/1 or None, ``scores`` two ints, ``hands`` and
    ``talon`` card ids), so iterators and numpy arrays are read exactly once. Bad
    values raise ``ValueError``; unknown keys are dropped with a ``UserWarning``."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict, got {options!r}")
    unknown = set(options) - OPTION_KEYS
    if unknown:
        # A warning, not an error: PettingZoo's api_test resets with a foreign
        # option and must pass on env() as shipped; a typo still gets flagged.
        warnings.warn(
            f"ignoring unknown reset option(s) {sorted(unknown, key=repr)}; known: {sorted(OPTION_KEYS)}",
            UserWarning,
            stacklevel=stacklevel + 1,
        )
    if ("hands" in options) != ("talon" in options):
        raise ValueError("reset options 'hands' and 'talon' must be given together")
    dealer = options.get("dealer")
    out: dict[str, Any] = {
        "dealer": None if dealer is None else check_dealer(dealer),
        "scores": check_match_scores(options.get("scores", (0, 0)), rules.match_target),
    }
    if "hands" in options:
        s = fixed_deal(options["hands"], options["talon"], 0, out["scores"], rules)
        out["hands"], out["talon"] = [cards_of(s.hands[0]), cards_of(s.hands[1])], list(s.talon)
    return out


def first_deal(seed: int | str, options: Any, rules: Rules = GERMAN) -> State:
    """Deal 0 of a match under ``rules``: from the seed, or fixed by ``reset``
    options (docs/rules.md section 7; the preset's deck and hand size; see
    :func:`check_options`)."""
    opts = check_options(options, rules, stacklevel=3)
    rng = deal_rng(seed, 0)
    dealer = opts["dealer"]
    if dealer is None:
        dealer = 1 if rng.random() < 0.5 else 0
    if "hands" in opts:
        return fixed_deal(opts["hands"], opts["talon"], dealer, opts["scores"], rules)
    s = deal(rng, 0, rules=rules)  # the dealer does not change the cards; fixed_deal checks it, the scores
    return fixed_deal([cards_of(s.hands[0]), cards_of(s.hands[1])], s.talon, dealer, opts["scores"], rules)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (PettingZoo convention).

    Only PettingZoo's ``OrderEnforcingWrapper`` (as :class:`~sixtysix_env.aec_order.OrderEnforcing`,
    which raises ``EpisodeOverError`` for a step after the end): the raw env checks actions
    itself (a clear ``ValueError``, or the ``illegal_action="lose"`` rule), so
    PettingZoo's AssertOutOfBounds and TerminateIllegal wrappers would only cost time.
    """
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(EndCheckedAEC):
    """Sixty-Six as a PettingZoo AEC environment; see the module docstring.

    Not an ``EzPickle``: that rebuilds an env from its constructor arguments and
    drops the game in progress; the instance dict (state, seed, rewards, infos,
    agent to act) is the env's value, copied and pickled as it is.
    """

    metadata = {
        "name": "sixtysix_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        episode: str = "match",
        reward: str | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
        perfect_information: bool = False,
        render_mode: str | None = None,
        render_view: str = PLAYER_IDS[0],
        info_mode: str = "flat",
        rules: Rules | str | None = None,
    ) -> None:
        super().__init__()
        self.rules = rules_from_spec(rules)
        check_episode(episode)
        if reward is None:
            reward = "match" if episode == "match" else "game_points"
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS} or None, got {reward!r}")
        if episode == "deal" and reward == "match":
            raise ValueError('reward="match" needs episode="match"; a deal episode pays game points')
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {ILLEGAL}, got {illegal_action!r}")
        check_render_args(render_mode, render_view, (*PLAYER_IDS, SPECTATOR))
        check_info_mode(info_mode)
        self.info_mode = info_mode
        self.episode = episode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.perfect_information = bool(perfect_information)
        self.render_mode = render_mode
        self.render_view = render_view
        self._seeds = SeedStream()

        self.agents = list(PLAYER_IDS)
        self.possible_agents = list(PLAYER_IDS)
        self._index = {a: i for i, a in enumerate(PLAYER_IDS)}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in PLAYER_IDS}
        obs_space: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(OBS_LOW, OBS_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
        }
        if self.perfect_information:
            obs_space["full_observation"] = spaces.Box(FULL_OBS_LOW, FULL_OBS_HIGH, dtype=np.float32)
        self.observation_spaces = {a: spaces.Dict(obs_space) for a in PLAYER_IDS}
        self.game_state: State | None = None
        self._seed: int | str = 0
        self._deal_index = 0
        self.last_deal_result: dict[str, Any] | None = None
        self._rich: dict[str, Any] = {}  # the nested keys of info_mode="rich" (since the last deal)
        self._deal_just_ended = False  # the infos say deal_over=1 (rebuilt on the next step)

    @property
    def deal_index(self) -> int:
        """Index ``k`` of the current deal in the match (0 for the first)."""
        return self._deal_index

    # ------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[PLAYER_IDS[self._player(agent)]]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[PLAYER_IDS[self._player(agent)]]

    # ------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a match (or one deal) from ``seed``; ``options`` fix the first deal."""
        # Nothing changes until the seed and options are known good: a refused reset
        # leaves the env (its seed stream too) exactly as it was.
        seeds = copy.deepcopy(self._seeds)
        match_seed = seeds.next(seed)
        state = first_deal(match_seed, options, self.rules)
        self._seeds, self._seed, self.game_state = seeds, match_seed, state
        self._deal_index = 0
        self.agents = list(PLAYER_IDS)
        self.rewards = {a: 0.0 for a in PLAYER_IDS}
        self._cumulative_rewards = {a: 0.0 for a in PLAYER_IDS}
        self.terminations = {a: False for a in PLAYER_IDS}
        self.truncations = {a: False for a in PLAYER_IDS}
        self.last_deal_result = None
        self._rich = {}
        self._set_infos(None)
        self.agent_selection = PLAYER_IDS[self.game_state.to_act]
        self._skip_agent_selection = None  # _was_dead_step bookkeeping of an unfinished episode
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------- observing
    def view(self, agent: str | int) -> PlayerView:
        """The information set of ``agent`` (``"player_0"``/``"player_1"`` or 0/1)."""
        return view(self._state(), self._player(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._state()
        p = self._player(agent)
        obs, mask = encode_with_mask(view(state, p))
        if self.terminations.get(PLAYER_IDS[p], True):  # a finished episode: the placeholder
            mask[CONTINUE] = 1
        out = {"observation": obs, "action_mask": mask}
        if self.perfect_information:
            out["full_observation"] = encode_full(state, p)
        return out

    # ------------------------------------------------------------- stepping
    def step(self, action: int | None) -> None:
        state = self._state()  # NotResetError before the first reset()
        check_in_play(self)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            a = state.check_action(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._illegal(agent, action)
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        rewards[PLAYER_IDS[0]] = rewards[PLAYER_IDS[1]] = 0.0
        state.apply_unchecked(a)
        if state.result is not None:
            self._end_of_deal(state)
        elif self._deal_just_ended:
            self._set_infos(None)
        if not self.terminations[agent]:
            self.agent_selection = PLAYER_IDS[self.game_state.to_act]  # type: ignore[union-attr]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_of_deal(self, state: State) -> None:
        res = state.result
        assert res is not None
        winner = res.winner
        self.last_deal_result = rich_result(res, state)
        if self.info_mode == "rich":
            self._rich = rich_info(state, res, self._deal_index)
        self._set_infos(state, res)
        over = self.episode == "deal" or state.match_over
        if winner is not None and self.reward_mode == "game_points":
            self.rewards[PLAYER_IDS[winner]] = float(res.game_points)
            self.rewards[PLAYER_IDS[1 - winner]] = -float(res.game_points)
        if over:
            if self.reward_mode == "match":
                w = state.match_winner
                assert w is not None
                value = float(state.match_value)  # 2 for a double game (docs/rules-variants.md V1.3)
                self.rewards[PLAYER_IDS[w]] = value
                self.rewards[PLAYER_IDS[1 - w]] = -value
            self.terminations = {a: True for a in PLAYER_IDS}
            return
        self._deal_index += 1
        self.game_state = next_deal(state, deal_rng(self._seed, self._deal_index))

    def _illegal(self, agent: str, action: object) -> None:
        """``illegal_action="lose"``: the episode ends, the offender pays the penalty."""
        self._cumulative_rewards[agent] = 0.0
        other = PLAYER_IDS[1 - self._index[agent]]
        self.rewards = {agent: -self.illegal_penalty, other: self.illegal_penalty}
        self.terminations = {a: True for a in PLAYER_IDS}
        self._set_infos(None)
        self.infos[agent]["illegal"] = 1
        if self.info_mode == "rich":
            self.infos[agent]["illegal_action"] = describe_action(action)
        self._accumulate_rewards()

    def _set_infos(self, state: State | None, ended: DealResult | None = None) -> None:
        """Fresh infos for both agents (see "Infos"); ``ended`` is the result of the deal
        that ``state`` just finished, if any."""
        state = self._state() if state is None else state
        done = self._deal_index + (ended is not None)
        self.infos: dict[str, dict[str, Any]] = {a: flat_info(state, ended, done) for a in PLAYER_IDS}
        if self._rich:
            for a in PLAYER_IDS:
                self.infos[a].update(copy.deepcopy(self._rich))
        self._deal_just_ended = ended is not None

    # ------------------------------------------------------------- helpers
    def _state(self) -> State:
        if self.game_state is None:
            raise NotResetError(f"{self.metadata['name']}: call reset() first")
        return self.game_state

    def _player(self, agent: str | int) -> int:
        if isinstance(agent, str):
            try:
                return self._index[agent]
            except KeyError:
                raise ValueError(f"unknown agent {agent!r}; agents are {list(PLAYER_IDS)}") from None
        if to_int(agent) in (0, 1):  # ints and numpy ints; never a bool or float
            return to_int(agent)
        raise ValueError(f"unknown agent {agent!r}; agents are {list(PLAYER_IDS)}")

    def render(self) -> str | None:
        """The table from the ``render_view`` side (see "Rendering" in the module docstring)."""
        return show(self.render_mode, self._render_table)

    def _render_table(self) -> Table:
        state = self._state()
        if self.render_view == SPECTATOR:
            return spectator_table(state)
        return player_table(view(state, self._index[self.render_view]))

    def close(self) -> None:
        pass


__all__ = ["check_options", "env", "first_deal", "raw_env"]
