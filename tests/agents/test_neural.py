"""PPOAgent and checkpoints: legal play, numpy/torch agreement, save/load round trip, clear errors."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import random_views

from agents import make_agent
from agents.core import checkpoint
from agents.core.checkpoint import DEFAULT_CHECKPOINT, save_atomic
from agents.core.nets import PolicyNet
from agents.core.rules import obvious_action, rollout_action
from agents.neural import PPOAgent, load_ppo_agent
from agents.play import play_deal
from agents.search.solver import action_values
from sixtysix_env.deals import deal
from sixtysix_env.engine import FINAL, FOLLOW, LEAD
from sixtysix_env.knowledge import sample_state, view
from sixtysix_env.observation import OBS_SIZE, encode


def views_of_random_games(n_games: int, seed: int) -> list:
    return random_views(n_games, seed)


def make_policy(seed: int = 0) -> PolicyNet:
    torch.manual_seed(seed)
    net = PolicyNet(OBS_SIZE, [64, 32])
    with torch.no_grad():  # larger output weights than the near-uniform init, so actions differ
        net.net[-1].weight.mul_(300)
    return net


def write_checkpoint(net: PolicyNet, path: Path, **extra) -> None:
    obj = {"format": checkpoint.FORMAT, "version": checkpoint.VERSION, "obs_size": OBS_SIZE,
           "config": {"hidden": list(net.hidden)}, "policy": net.state_dict()}
    obj.update(extra)
    save_atomic(obj, path)


@pytest.mark.parametrize("greedy", [True, False])
def test_plays_only_legal_moves(greedy: bool) -> None:
    agents = [PPOAgent(make_policy(k), greedy=greedy, seed=k) for k in (1, 2)]
    rng = random.Random(0)
    for _ in range(30):
        play_deal(deal(rng), agents)  # apply raises on an illegal action


def test_numpy_forward_matches_torch() -> None:
    net = make_policy()
    agent = PPOAgent(net)
    vs = views_of_random_games(3, seed=1)
    with torch.no_grad():
        ref = net(torch.from_numpy(np.stack([encode(v) for v in vs]))).numpy()
    got = np.stack([agent.logits(v) for v in vs])
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_checkpoint_round_trip_gives_the_same_actions(tmp_path: Path) -> None:
    net = make_policy(5)
    path = tmp_path / "p.pt"
    write_checkpoint(net, path)
    assert not (tmp_path / "p.pt.tmp").exists()
    vs = views_of_random_games(5, seed=2)
    before = [PPOAgent(net).act(v) for v in vs]
    loaded = load_ppo_agent(path)
    assert [loaded.act(v) for v in vs] == before
    assert len(set(before)) > 3  # the test would notice a constant policy
    via_registry = make_agent(f"ppo:{path}", seed=1)
    assert [via_registry.act(v) for v in vs] == before


def test_assist_modes_full_rules_none(tmp_path: Path) -> None:
    net = make_policy(7)
    path = tmp_path / "p.pt"
    write_checkpoint(net, path)
    rng, vs = random.Random(4), []
    for _ in range(30):  # heuristic play, which usually runs the talon out
        s = deal(rng)
        while not s.is_over:
            vs.append(view(s, s.to_act))
            s.apply(rollout_action(s))
    spent = [v for v in vs if v.stock == 0 and v.window in (LEAD, FOLLOW, FINAL)]
    obvious = [v for v in vs if v not in spent and obvious_action(v) is not None]
    others = [v for v in vs if v not in spent and obvious_action(v) is None]
    assert len(spent) > 50 and len(obvious) > 20 and len(others) > 50
    with_eg, net_only = PPOAgent(net), make_agent(f"ppo:{path},assist=0")
    rules = make_agent(f"ppo:{path},assist=rules")
    assert net_only.name == f"ppo:{path},assist=none" and net_only.assist == "none"
    assert rules.name == f"ppo:{path},assist=rules" and with_eg.assist == "full"
    # Real choices before the endgame: all three are the network.
    assert [with_eg.act(v) for v in others] == [net_only.act(v) for v in others]
    assert [rules.act(v) for v in others] == [net_only.act(v) for v in others]
    # Obvious moves: by rule (the untrained net often plays something else).
    assert [with_eg.act(v) for v in obvious] == [obvious_action(v) for v in obvious]
    assert [rules.act(v) for v in obvious] == [obvious_action(v) for v in obvious]
    assert [net_only.act(v) for v in obvious] != [obvious_action(v) for v in obvious]
    # Talon spent: full plays a move of best exact value; rules (no search) is the network
    # there, except for obvious moves.
    worse = 0
    for v in spent:
        values = action_values(sample_state(v, 0))
        assert values[with_eg.act(v)] == max(values.values())
        worse += values[net_only.act(v)] < max(values.values())
        assert rules.act(v) == (obvious_action(v) if obvious_action(v) is not None else net_only.act(v))
    assert worse > 0
    with pytest.raises(ValueError, match="assist must be one of"):
        PPOAgent(net, assist="some")


def test_sampled_play_is_reproducible_after_reset(tmp_path: Path) -> None:
    agent = PPOAgent(make_policy(6), greedy=False)
    vs = views_of_random_games(3, seed=3)
    agent.reset(11)
    first = [agent.act(v) for v in vs]
    agent.reset(11)
    assert [agent.act(v) for v in vs] == first


def test_bad_checkpoints_are_clear_errors(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"this is not a checkpoint")
    with pytest.raises(ValueError, match="garbage.pt.*corrupt"):
        load_ppo_agent(garbage)
    good = tmp_path / "good.pt"
    write_checkpoint(make_policy(), good)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ValueError, match="truncated.pt"):
        load_ppo_agent(truncated)
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}}, foreign)
    with pytest.raises(ValueError, match="foreign.pt is not a sixtysix PPO checkpoint"):
        load_ppo_agent(foreign)
    other_obs = tmp_path / "old.pt"
    write_checkpoint(make_policy(), other_obs, obs_size=OBS_SIZE + 1)
    with pytest.raises(ValueError, match="old.pt was trained on observations"):
        load_ppo_agent(other_obs)
    wrong_shape = tmp_path / "shape.pt"
    write_checkpoint(make_policy(), wrong_shape, config={"hidden": [8]})
    with pytest.raises(ValueError, match="shape.pt"):
        load_ppo_agent(wrong_shape)
    with pytest.raises(ValueError, match="does not exist"):
        load_ppo_agent(tmp_path / "missing.pt")


def test_act_without_a_turn_is_an_error() -> None:
    s = deal(random.Random(0))
    with pytest.raises(ValueError, match="no legal action"):
        PPOAgent(make_policy()).act(view(s, 1 - s.to_act))


def test_shipped_checkpoint_loads_and_plays() -> None:
    assert DEFAULT_CHECKPOINT.is_file(), f"ship a trained checkpoint at {DEFAULT_CHECKPOINT}"
    assert DEFAULT_CHECKPOINT.stat().st_size < 5_000_000
    agent = load_ppo_agent(None, seed=0)
    assert agent.name == "ppo"
    assert make_agent("ppo").name == "ppo"
    rng = random.Random(1)
    for _ in range(5):
        play_deal(deal(rng), [agent, agent])
