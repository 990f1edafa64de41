"""Hostile actions and seeds at the batched envs: the scalar envs' contract.

Actions are integer ids (any integer dtype, a list or a numpy array); a bool,
float or non-numeric value is a named ``ValueError``, never rounded into an
action. A seed is any int (numpy's too); a bool, string or list is the scalar
envs' ``ValueError``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sixtysix_env.batched import SelfPlayEnv, SixtySixVectorEnv

N = 4


def _legal(masks: torch.Tensor) -> torch.Tensor:
    return masks.to(torch.int64).argmax(dim=1)  # the lowest legal action of each table


def _vector() -> tuple[SixtySixVectorEnv, torch.Tensor]:
    v = SixtySixVectorEnv(N, opponent="random")
    _, info = v.reset(seed=0)
    return v, _legal(info["action_mask"])


def _self_play() -> tuple[SelfPlayEnv, torch.Tensor]:
    e = SelfPlayEnv(N, seed=0, device="cpu")
    e.reset(0)
    return e, _legal(e.masks)


MAKERS = [pytest.param(_vector, id="vector"), pytest.param(_self_play, id="self-play")]
BAD = [
    pytest.param(lambda a: a.float(), id="float"),
    pytest.param(lambda a: a.double() + 0.5, id="float-half"),
    pytest.param(lambda a: a.bool(), id="bool"),
    pytest.param(lambda a: a.numpy().astype(np.float32), id="numpy-float"),
    pytest.param(lambda a: [float(x) for x in a], id="list-float"),
    pytest.param(lambda a: None, id="None"),
    pytest.param(lambda a: "0 1 2 3", id="str"),
    pytest.param(lambda a: [object()] * N, id="objects"),
]


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("bad", BAD)
def test_non_integer_actions_are_named_value_errors(make, bad):
    env, legal = make()
    with pytest.raises(ValueError, match="actions"):
        env.step(bad(legal))


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize(
    "good", [lambda a: a, lambda a: a.numpy(), lambda a: a.tolist(), lambda a: a.to(torch.int32)]
)
def test_integer_actions_of_any_kind_are_taken(make, good):
    env, legal = make()
    env.step(good(legal))


@pytest.mark.parametrize("seed", [True, "a", [1, 2], 1.5])
def test_bad_seeds_are_value_errors(seed):
    with pytest.raises(ValueError, match="seed"):
        SixtySixVectorEnv(2).reset(seed=seed)
    with pytest.raises(ValueError, match="seed"):
        SelfPlayEnv(2, seed=0, device="cpu").reset(seed)


@pytest.mark.parametrize("seed", [-1, 2**64 - 1, 2**70])
def test_any_int_is_a_seed(seed):
    SixtySixVectorEnv(2).reset(seed=seed)
    SelfPlayEnv(2, seed=0, device="cpu").reset(seed)


def test_numpy_int_seed_is_the_int_seed():
    a, b = SixtySixVectorEnv(2), SixtySixVectorEnv(2)
    assert torch.equal(a.reset(seed=np.int64(3))[0], b.reset(seed=3)[0])
