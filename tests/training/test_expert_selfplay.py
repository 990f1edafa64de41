"""Expert iteration's self-play (training.expert.selfplay): samples whose targets are the search's
distributions over the legal moves and the engine's deal results, deterministic for fixed seeds."""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import UniformPlayer

from agents.core.nets import PolicyNet, ValueNet
from sixtysix_env.deals import deal
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from training.expert import selfplay
from training.expert.generation import LocalGenerator, chunks
from training.expert.selfplay import SampleError, Samples, Settings, generate_chunk, play_deal, search_target

WEIGHTS = {"hidden": [16], "critic_hidden": [16], "policy": PolicyNet(OBS_SIZE, [16]).state_dict(),
           "critic": ValueNet(FULL_OBS_SIZE, [16]).state_dict()}


def test_value_targets_are_the_engines_deal_results_for_each_player(monkeypatch):
    finals = []

    def dealt(*args, **kwargs):
        finals.append(deal(*args, **kwargs))  # the state play_deal plays to its end
        return finals[-1]

    monkeypatch.setattr(selfplay, "deal", dealt)
    results = set()
    for index in range(6):
        player = UniformPlayer()
        samples = play_deal(None, Settings(5, 1, 2, 0.2), index, player)
        res = finals[-1].result
        assert res is not None and len(samples) == len(player.players) > 0
        for p, value in zip(player.players, samples.value, strict=True):
            want = 0 if res.winner is None else res.game_points * (1 if res.winner == p else -1)
            assert value == want
        results.add(res.game_points)
    assert results & {1, 2, 3}


def test_targets_are_distributions_over_the_legal_moves_and_rows_are_whole():
    samples = generate_chunk(WEIGHTS, Settings(3, 1, 2, 0.2), 0, 3, UniformPlayer())
    samples.check("chunk")
    n = len(samples)
    assert samples.obs.shape == (n, OBS_SIZE) and samples.full.shape == (n, FULL_OBS_SIZE)
    assert np.allclose(samples.policy.sum(axis=1), 1) and (samples.policy[~samples.masks] == 0).all()
    assert (samples.masks.sum(axis=1) > 1).all()  # forced moves teach nothing and are not rows


def test_generation_is_deterministic_and_chunking_changes_nothing():
    settings = Settings(11, 1, 3, 0.2)
    whole = generate_chunk(WEIGHTS, settings, 0, 5, UniformPlayer())
    parts = LocalGenerator(UniformPlayer()).generate(WEIGHTS, settings, 5, 2, lambda n: None)[0]
    for name in ("obs", "masks", "policy", "full", "value", "deal"):
        assert np.array_equal(getattr(whole, name), getattr(parts, name))
    assert sorted(set(whole.deal.tolist())) == [0, 1, 2, 3, 4]  # each row names its deal
    assert (np.diff(whole.deal) >= 0).all()
    other = generate_chunk(WEIGHTS, Settings(12, 1, 3, 0.2), 0, 5, UniformPlayer())
    assert len(other) != len(whole) or not np.array_equal(other.obs, whole.obs)
    assert chunks(5, 2) == [(0, 2), (2, 2), (4, 1)]


@pytest.mark.parametrize("policy", [np.full(32, 1 / 32, np.float32), np.zeros(32, np.float32),
                                    np.array([np.nan] * 32, np.float32), np.ones(5)])
def test_a_search_policy_that_is_no_distribution_over_the_legal_moves_is_refused(policy):
    mask = np.zeros(32, bool)
    mask[:3] = True
    with pytest.raises(SampleError, match="not a distribution|sums to"):
        search_target(policy, mask, "here")


def test_sample_files_round_trip_and_damaged_ones_are_named(tmp_path):
    samples = generate_chunk(WEIGHTS, Settings(3, 1, 0, 0.2), 0, 2, UniformPlayer())
    path = tmp_path / "s.npz"
    samples.save(path)
    back = Samples.load(path)
    assert np.array_equal(back.policy, samples.policy) and np.array_equal(back.value, samples.value)
    bad = Samples(**{**samples.__dict__, "value": samples.value * 10})
    bad.save(path)
    with pytest.raises(SampleError, match="s.npz.*outside"):
        Samples.load(path)
    Samples(**{**samples.__dict__, "deal": samples.deal - 1}).save(path)
    with pytest.raises(SampleError, match="s.npz.*deal index is negative"):
        Samples.load(path)
    Samples(**{**samples.__dict__, "deal": samples.deal.astype(np.int64)}).save(path)
    with pytest.raises(SampleError, match="s.npz.*'deal' is of dtype int64, not int32"):
        Samples.load(path)
    path.write_bytes(b"not a zip")
    with pytest.raises(SampleError, match="s.npz cannot be read"):
        Samples.load(path)


class ValuesSearch:
    """A search whose own policy (with the prior) is all on the lowest legal move while its values
    favour the highest: self-play must learn the values, not the prior-sharpened policy."""

    def __init__(self) -> None:
        self.last_result = None

    def act(self, v):
        from agents.search.guided import SearchResult
        from sixtysix_env.actions import actions_of

        legal = actions_of(v.legal_mask)
        policy = np.zeros(32, np.float32)
        policy[legal[0]] = 1.0
        values = np.zeros(32, np.float32)
        values[legal] = np.linspace(-1.0, 1.0, len(legal))
        self.last_result = SearchResult(legal[0], policy, 0.0, 4, values)
        return legal[0]


class ValuesPlayer:
    def net(self, weights):
        return None

    def make(self, net, seed, settings):
        return ValuesSearch()


def test_sample_files_that_are_no_files_of_rows_are_named_without_blocking(tmp_path):
    path = tmp_path / "cut.npz"
    path.write_bytes(b"PK\x03\x04 not a whole zip")
    with pytest.raises(SampleError, match="cut.npz cannot be read"):
        Samples.load(path)
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)  # opened for reading it would block until a writer came
    with pytest.raises(SampleError, match="fifo.npz cannot be read"):
        Samples.load(fifo)
    with pytest.raises(SampleError, match="cannot be read"):
        Samples.load(tmp_path)


def test_the_policy_target_is_the_softmax_of_the_searchs_values_not_its_prior_policy():
    samples = play_deal(None, Settings(5, 1, 0, 0.5), 0, ValuesPlayer())
    assert len(samples)
    for mask, target in zip(samples.masks, samples.policy, strict=True):
        legal = np.flatnonzero(mask)
        z = np.exp(np.linspace(-1.0, 1.0, len(legal)) / 0.5)
        np.testing.assert_allclose(target[legal], z / z.sum(), rtol=1e-5)
        assert target[legal[-1]] > target[legal[0]]


class PriorSearch(ValuesSearch):
    """ValuesSearch with the network's policy all but on the lowest legal move."""

    def act(self, v):
        from sixtysix_env.actions import actions_of

        a = super().act(v)
        r = self.last_result
        prior = np.zeros(32, np.float32)
        legal = actions_of(v.legal_mask)
        prior[legal] = 0.1 / max(len(legal) - 1, 1)
        prior[legal[0]] = 0.9 if len(legal) > 1 else 1.0
        self.last_result = type(r)(r.action, r.policy, r.value, r.worlds, r.action_values, prior)
        return a


class PriorPlayer(ValuesPlayer):
    def make(self, net, seed, settings):
        return PriorSearch()


def test_the_improved_target_is_the_prior_moved_by_the_values_and_the_default_is_the_values():
    improved = play_deal(None, Settings(5, 1, 0, 0.5, "improved"), 0, PriorPlayer())
    plain = play_deal(None, Settings(5, 1, 0, 0.5), 0, PriorPlayer())
    assert len(improved) == len(plain) > 0
    for mask, target, base in zip(improved.masks, improved.policy, plain.policy, strict=True):
        legal = np.flatnonzero(mask)
        prior = np.full(len(legal), 0.1 / max(len(legal) - 1, 1))
        prior[0] = 0.9 if len(legal) > 1 else 1.0
        z = prior * np.exp(np.linspace(-1.0, 1.0, len(legal)) / 0.5)
        np.testing.assert_allclose(target[legal], z / z.sum(), rtol=1e-5)
        w = np.exp(np.linspace(-1.0, 1.0, len(legal)) / 0.5)
        np.testing.assert_allclose(base[legal], w / w.sum(), rtol=1e-5)
