"""Envs are values: ``copy.deepcopy`` and ``pickle`` of every environment give an
independent env in the same position, which plays on exactly as the original
(RL libraries copy envs: vectorizers send them to subprocesses, search clones them)."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sixtysix_env.aec import env, raw_env
from sixtysix_env.gym_env import SixtySixGymEnv
from sixtysix_env.vector import VectorEnv


def pickled(x: Any) -> Any:
    return pickle.loads(pickle.dumps(x))


COPIES = {"deepcopy": copy.deepcopy, "pickle": pickled}


def plain(x: Any) -> Any:
    """``x`` with numpy arrays as bytes, so whole results compare with ``==``."""
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return type(x)(plain(v) for v in x)
    return x


def pick(mask: np.ndarray, rng: random.Random) -> int:
    return rng.choice(np.flatnonzero(mask).tolist())


class AEC:
    """Drives a PettingZoo env (raw or wrapped) with random legal actions."""

    def __init__(self, make: Callable[..., Any]) -> None:
        self.make = make

    def new(self) -> Any:
        e = self.make(reward="game_points", illegal_action="lose")
        e.reset(seed=7)
        return e

    def step(self, e: Any, rng: random.Random) -> Any:
        if any(e.terminations.values()):
            e.reset(seed=rng.randrange(100))
            return "reset"
        e.step(pick(e.observe(e.agent_selection)["action_mask"], rng))
        return plain(e.last())

    def snapshot(self, e: Any) -> Any:
        u = e.unwrapped
        obs = {a: plain(e.observe(a)) for a in u.possible_agents}
        return (u.game_state, u.agent_selection, u.deal_index, list(u.agents), obs, dict(u.rewards),
                dict(u._cumulative_rewards), dict(u.terminations), dict(u.truncations), plain(u.infos))


class Gym:
    """Drives the Gymnasium wrapper; a finished episode is followed by ``reset()``
    without a seed, so the copied ``np_random`` decides the next seat and match."""

    def __init__(self, opponent: Any) -> None:
        self.opponent = opponent

    def new(self) -> SixtySixGymEnv:
        e = SixtySixGymEnv(opponent=self.opponent, episode="deal")
        e.reset(seed=3)
        return e

    def step(self, e: SixtySixGymEnv, rng: random.Random) -> Any:
        if e.aec_env.terminations[e.learner]:
            return plain(e.reset())
        return plain(e.step(pick(e.action_masks(), rng)))

    def snapshot(self, e: SixtySixGymEnv) -> Any:
        return (e.learner, AEC(raw_env).snapshot(e.aec_env), e.np_random.bit_generator.state,
                plain(e.action_masks()), pickle.dumps(e.opponent))


class Vector:
    """Drives :class:`VectorEnv` (deals and matches restart by themselves)."""

    def new(self) -> VectorEnv:
        return VectorEnv(3, seed=5)

    def step(self, e: VectorEnv, rng: random.Random) -> Any:
        e.step([pick(m, rng) for m in e.masks])
        return plain([e.obs, e.masks, e.to_act, e.rewards, e.deal_done, e.match_done, e.match_winner])

    def snapshot(self, e: VectorEnv) -> Any:
        return (list(e.states), e.rng.getstate(), plain([e.obs, e.masks, e.to_act, e.rewards]))


def first_legal(obs: dict) -> int:
    """A callable opponent (module level, so that it pickles by reference)."""
    return int(np.flatnonzero(obs["action_mask"])[0])


DRIVERS = {
    "raw_env": AEC(raw_env),
    "env": AEC(env),
    "gym-random-default": Gym(None),
    "gym-spec-string": Gym("random"),
    "gym-callable": Gym(first_legal),
    "gym-pimc": Gym("pimc:worlds=2"),  # a search bot: its solver's tables are a cache a copy starts without
    "vector": Vector(),
}


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("kind", DRIVERS)
def test_a_copy_is_an_independent_env_in_the_same_position(kind: str, how: str) -> None:
    d = DRIVERS[kind]
    e = d.new()
    rng = random.Random(1)
    for _ in range(25):
        d.step(e, rng)
    c = COPIES[how](e)
    before = d.snapshot(e)
    assert d.snapshot(c) == before and c is not e
    for _ in range(20):  # playing the copy leaves the original as it was
        d.step(c, rng)
    assert d.snapshot(e) == before
    twin = COPIES[how](e)
    seed = rng.random()
    ra, rb = random.Random(seed), random.Random(seed)
    for _ in range(120):  # the same actions: the same steps, across deal, match and episode ends
        assert d.step(e, ra) == d.step(twin, rb)
        assert d.snapshot(e) == d.snapshot(twin)


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("spec", ["guided:worlds=2", "ismcts:iterations=20"])
def test_envs_with_search_opponents_copy_and_play_on_alike(spec: str, how: str) -> None:
    d = Gym(spec)  # their snapshots' pickled bytes differ by pickle's memo (shared arrays), so steps only
    e = d.new()
    rng = random.Random(1)
    for _ in range(25):
        d.step(e, rng)
    twin = COPIES[how](e)
    ra, rb = random.Random(2), random.Random(2)
    for _ in range(40):
        assert d.step(e, ra) == d.step(twin, rb)


def test_copies_of_the_default_opponent_draw_from_their_own_env() -> None:
    e = SixtySixGymEnv(episode="deal")
    e.reset(seed=0)
    for how in COPIES.values():
        c = how(e)
        assert c.opponent.rng is c.np_random and c.np_random is not e.np_random
