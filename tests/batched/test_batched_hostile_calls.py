"""Hostile calls to the batched engine and its envs: named errors with one-line
messages, raised before any table moves, and an env that stays usable."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sixtysix_env import IllegalActionError  # noqa: E402
from sixtysix_env.batched import (  # noqa: E402
    BatchedEngine,
    SelfPlayEnv,
    SixtySixVectorEnv,
    random_actions,
    sample_masked,
)
from sixtysix_env.gym_env import OpponentError, ResetNeededError  # noqa: E402

N = 4


def _legal(eng: BatchedEngine) -> torch.Tensor:
    return random_actions(eng.legal, torch.Generator().manual_seed(0))


def _same(a: BatchedEngine, b: BatchedEngine) -> bool:
    fields = ("hands", "talon", "to_act", "window")
    return all(torch.equal(getattr(a.now, f), getattr(b.now, f)) for f in fields)


@pytest.mark.parametrize(
    "active",
    [torch.ones(N), torch.ones(N, dtype=torch.int64), torch.ones(2, dtype=torch.bool), "all", None.__class__],
    ids=["float", "int", "short", "str", "type"],
)
def test_bad_active_masks_are_value_errors_before_any_move(active):
    eng = BatchedEngine(N, 0)
    ref = copy.deepcopy(eng)
    with pytest.raises(ValueError, match="active"):
        eng.step(_legal(eng), active)
    assert _same(eng, ref)


def test_active_as_list_or_numpy_bools_is_taken():
    for active in ([True, False] * (N // 2), np.array([True, False] * (N // 2))):
        eng = BatchedEngine(N, 0)
        eng.step(_legal(eng), active)


def test_illegal_actions_are_illegal_action_errors():
    eng = BatchedEngine(N, 0)
    ref = copy.deepcopy(eng)
    with pytest.raises(IllegalActionError, match="illegal action at") as err:
        eng.step(torch.full((N,), 99))
    assert err.value.action == 99 and err.value.legal_mask == int(eng.legal[0])
    assert _same(eng, ref)
    eng.step(_legal(eng))
    ref.step(_legal(ref))
    assert _same(eng, ref)


@pytest.mark.parametrize("device", [None, 5, "tpu", "nope"])
def test_bad_devices_are_value_errors(device):
    with pytest.raises(ValueError, match="device"):
        BatchedEngine(2, 0, device=device)
    with pytest.raises(ValueError, match="device"):
        SixtySixVectorEnv(2, device=device)


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is there")
def test_cuda_without_cuda_is_a_value_error():
    with pytest.raises(ValueError, match="CUDA"):
        SelfPlayEnv(2, 0, device="cuda")


@pytest.mark.parametrize("n", [0, -3, 1.5, True, np.int64(2), "2"])
def test_vector_env_num_envs_is_checked_first(n):
    with pytest.raises(ValueError, match="num_envs"):
        SixtySixVectorEnv(n)


@pytest.mark.parametrize("seat", [1.0, True, np.float64(0), "0", None])
def test_vector_env_learner_seat_is_exact(seat):
    with pytest.raises(ValueError, match="learner_seat"):
        SixtySixVectorEnv(2, learner_seat=seat)


def test_vector_env_step_before_reset_is_reset_needed():
    v = SixtySixVectorEnv(N, seed=0)
    with pytest.raises(ResetNeededError, match="reset"):
        v.step(torch.zeros(N, dtype=torch.int64))


def _bad_opponent(kind):
    calls = {"n": 0}

    def act(obs, masks):
        calls["n"] += 1
        if calls["n"] < 3:  # plays well at first
            return sample_masked(torch.zeros(masks.shape), masks, greedy=True)[0]
        if kind == "raise":
            raise KeyError("boom")
        if kind == "float":
            return torch.zeros(obs.shape[0])
        return torch.full((obs.shape[0],), 99)

    return act


@pytest.mark.parametrize("kind", ["raise", "float", "illegal"])
def test_a_failing_opponent_stops_the_env_until_reset(kind):
    v = SixtySixVectorEnv(N, seed=0, opponent=_bad_opponent(kind), learner_seat=1)
    with pytest.raises(OpponentError, match="opponent") as err:
        obs, info = v.reset(seed=0)
        for _ in range(20):
            a = sample_masked(torch.zeros(N, 32), info["action_mask"], greedy=True)[0]
            obs, r, term, trunc, info = v.step(a)
    assert err.value.__cause__ is not None
    with pytest.raises(ResetNeededError, match="opponent"):  # never a learner move at an opponent's turn
        v.step(torch.zeros(N, dtype=torch.int64))
    v.opponent = None  # the random opponent: a reset resumes
    obs, info = v.reset(seed=1)
    v.step(sample_masked(torch.zeros(N, 32), info["action_mask"], greedy=True)[0])


def test_refused_reset_leaves_the_vector_env_in_play():
    def run(v, k):
        out = []
        info = v._last_info
        for _ in range(k):
            a = sample_masked(torch.zeros(N, 32), info["action_mask"], greedy=True)[0]
            obs, r, t, tr, info = v.step(a)
            out.append((obs.clone(), r.clone(), t.clone()))
        v._last_info = info
        return out

    ref, hit = SixtySixVectorEnv(N), SixtySixVectorEnv(N)
    for v in (ref, hit):
        v._last_info = v.reset(seed=3)[1]
        run(v, 3)
    for bad in ({"seed": 1.5}, {"seed": "x"}, {"seed": 2, "options": {"dealer": 1}}):
        with pytest.raises(ValueError):
            hit.reset(**bad)
    for (o1, r1, t1), (o2, r2, t2) in zip(run(hit, 20), run(ref, 20), strict=True):
        assert torch.equal(o1, o2) and torch.equal(r1, r2) and torch.equal(t1, t2)


@pytest.mark.parametrize(
    "logits, masks",
    [
        (torch.zeros(N, 31), torch.ones(N, 32, dtype=torch.bool)),
        (torch.zeros(N, 32), torch.ones(N, 32, dtype=torch.int64)),
        (torch.zeros(N, 32, dtype=torch.int64), torch.ones(N, 32, dtype=torch.bool)),
        (torch.zeros(32), torch.ones(32, dtype=torch.bool)),
    ],
    ids=["shape", "int mask", "int logits", "1-d"],
)
def test_sample_masked_refuses_bad_inputs_by_name(logits, masks):
    with pytest.raises(ValueError, match="sample_masked"):
        sample_masked(logits, masks)


def test_random_actions_refuses_float_masks_by_name():
    with pytest.raises(ValueError, match="int64"):
        random_actions(torch.zeros(N))
