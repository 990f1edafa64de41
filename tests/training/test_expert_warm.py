"""Warm starts and the value subset of expert iteration (training.expert.warm, .learner): ``init``
starts the networks from a checkpoint's exactly, every bad checkpoint or mismatch is a named error
before any self-play, a resumed run ignores ``init``, and ``value_positions`` picks a fixed subset."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import UniformPlayer

from agents.core import checkpoint
from agents.core.nets import PolicyNet, ValueNet
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from sixtysix_env.seeding import derive_seed
from training.config import ConfigError, config_from_dict
from training.expert import loop
from training.expert.config import ExpertConfig
from training.expert.learner import Learner, Replay, value_subset
from training.expert.selfplay import Samples, Settings, generate_chunk
from training.expert.warm import load_init

TINY = {"deals": 2, "chunk": 1, "worlds": 1, "hidden": [16], "critic_hidden": [16], "batch_size": 8,
        "eval_every": 0, "eval_heuristic_games": 0, "eval_pimc_games": 0, "progress": False,
        "tensorboard": False}


def config(run_dir: Path, **keys) -> ExpertConfig:
    return config_from_dict({**TINY, "run_dir": str(run_dir), **keys}, schema=ExpertConfig)


def ppo_checkpoint(path: Path, hidden=(16,), critic_hidden=(16,), seed: int = 7, **config) -> Path:
    """A PPO run's checkpoint (policy and full-state critic, random weights of ``seed``)."""
    torch.manual_seed(seed)
    policy, critic = PolicyNet(OBS_SIZE, hidden), ValueNet(FULL_OBS_SIZE, critic_hidden)
    cfg = {"name": "selfplay", "hidden": list(hidden), "critic_hidden": list(critic_hidden),
           "full_critic": True, "rules": "german", **config}
    checkpoint.save_atomic(checkpoint.build(cfg, policy, critic=critic.state_dict(), global_step=4096,
                                            update=3), path)
    return path


class RecordingPlayer(UniformPlayer):
    """Records the weights every generation task got (the first is the preflight's)."""

    def __init__(self) -> None:
        super().__init__()
        self.weights: list[dict] = []

    def net(self, weights):
        self.weights.append(weights)
        return super().net(weights)


class NoSelfPlay(UniformPlayer):
    def net(self, weights):
        raise AssertionError("self-play must not start")


def test_init_starts_from_the_checkpoints_networks_exactly(tmp_path):
    src = ppo_checkpoint(tmp_path / "ppo.pt")
    player = RecordingPlayer()
    loop.train(config(tmp_path, iterations=1, init=str(src)), player=player)
    ckpt = checkpoint.load(src)
    first = player.weights[-1]  # what the first iteration's self-play played with
    for key in ("policy", "critic"):
        assert first[key].keys() == ckpt[key].keys()
        assert all(torch.equal(first[key][k], ckpt[key][k]) for k in ckpt[key])
    policy, critic = PolicyNet(OBS_SIZE, [16]), ValueNet(FULL_OBS_SIZE, [16])
    policy.load_state_dict(first["policy"])
    critic.load_state_dict(first["critic"])
    x, full = torch.rand(5, OBS_SIZE), torch.rand(5, FULL_OBS_SIZE)
    assert torch.equal(policy(x), checkpoint.policy_from(ckpt)(x))
    assert torch.equal(critic(full), checkpoint.full_critic_from(ckpt)(full))
    saved = checkpoint.load(tmp_path / "expert" / "last.pt", resumable=True)
    assert saved["config"]["init"] == str(src)
    assert saved["started_from"] == {"path": str(src), "sha256": hashlib.sha256(src.read_bytes()).hexdigest(),
                                     "algorithm": "ppo", "global_step": 4096, "update": 3}


def test_the_optimizer_starts_fresh_and_an_expert_checkpoint_is_an_init_too(tmp_path):
    loop.train(config(tmp_path / "a", iterations=1), player=UniformPlayer())
    src = tmp_path / "a" / "expert" / "last.pt"
    assert checkpoint.load(src, resumable=True)["optimizer"]["state"]  # it has Adam moments
    cfg = config(tmp_path / "b", init=str(src))
    run = loop.start(cfg, tmp_path / "b", None, load_init(cfg))
    assert not run.learner.optimizer.state and run.started_from["algorithm"] == "expert"
    want = checkpoint.load(src)["critic"]
    assert all(torch.equal(v, want[k]) for k, v in run.learner.critic.state_dict().items())


@pytest.mark.parametrize(("keys", "named"), [
    ({"hidden": [8]}, r"config key 'init': .*ppo.pt holds networks with hidden=\[16\], this config has "
                      r"hidden=\[8\]"),
    ({"critic_hidden": [16, 16]}, r"critic_hidden=\[16\], this config has critic_hidden=\[16, 16\]"),
])
def test_a_config_whose_layers_differ_from_the_init_is_a_named_error_before_any_work(tmp_path, keys, named):
    src = ppo_checkpoint(tmp_path / "ppo.pt")
    with pytest.raises(ConfigError, match=named):
        loop.train(config(tmp_path / "runs", iterations=1, init=str(src), **keys), player=NoSelfPlay())
    assert not (tmp_path / "runs").exists()  # the run folder was never claimed


def hostile(tmp_path: Path, kind: str) -> Path:
    """A checkpoint file that must not be used as an init, of the given ``kind``."""
    path = ppo_checkpoint(tmp_path / "ppo.pt")
    ckpt = torch.load(path, weights_only=True)
    if kind == "no critic":
        del ckpt["critic"]
    elif kind == "observation critic":
        ckpt["config"]["full_critic"] = False
        ckpt["critic"] = ValueNet(OBS_SIZE, [16]).state_dict()
    elif kind == "nan":
        ckpt["critic"]["net.0.weight"][0, 0] = float("nan")
    elif kind == "shapes":
        ckpt["policy"]["net.0.weight"] = torch.zeros(16, OBS_SIZE + 1)
    elif kind == "rules":
        ckpt["config"]["rules"] = "schnapsen"
    elif kind == "value target":
        ckpt["config"]["value_target"] = "match"
    elif kind == "not torch":
        path.write_bytes(b"PK\x03\x04 not a checkpoint")
        return path
    elif kind == "missing":
        path.unlink()
        return path
    torch.save(ckpt, path)  # not save_atomic: it refuses NaN
    return path


@pytest.mark.parametrize(("kind", "named"), [
    ("no critic", "has no critic"),
    ("observation critic", "sees only the observation"),
    ("nan", r"critic\['net.0.weight'\] holds NaN"),
    ("shapes", "policy weight 'net.0.weight'"),
    ("rules", "rules 'schnapsen'"),
    ("value target", "predicts 'match'"),
    ("not torch", "corrupt or not a sixtysix PPO checkpoint"),
    ("missing", "does not exist"),
])
def test_a_bad_init_checkpoint_is_a_named_error_before_any_work(tmp_path, kind, named):
    path = hostile(tmp_path, kind)
    with pytest.raises(checkpoint.CheckpointError, match=f"config key 'init': checkpoint {path}.*{named}"):
        loop.train(config(tmp_path / "runs", iterations=1, init=str(path)), player=NoSelfPlay())
    assert not (tmp_path / "runs").exists()


def test_an_oversized_init_is_refused_unread_and_the_command_line_says_so_in_one_line(tmp_path, monkeypatch,
                                                                                      capsys):
    src = ppo_checkpoint(tmp_path / "ppo.pt")
    monkeypatch.setattr(checkpoint, "MAX_BYTES", 1024)
    monkeypatch.setattr(torch, "load", lambda *a, **k: pytest.fail("an oversized file must not be read"))
    yaml = tmp_path / "c.yaml"
    yaml.write_text("algorithm: expert\n" + "".join(f"{k}: {v}\n".replace("False", "false").replace(
        "True", "true") for k, v in TINY.items()))
    code = loop.main(["--config", str(yaml), f"run_dir={tmp_path / 'runs'}", f"init={src}"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"checkpoint {src} is larger than" in err, err
    assert not (tmp_path / "runs").exists()


def test_a_resumed_run_ignores_init_and_goes_on_as_an_uninterrupted_one(tmp_path):
    src = ppo_checkpoint(tmp_path / "ppo.pt")
    record = checkpoint.load(src)
    loop.train(config(tmp_path / "a", iterations=2, init=str(src)), player=UniformPlayer())
    loop.train(config(tmp_path / "b", iterations=1, init=str(src)), player=UniformPlayer())
    src.write_bytes(b"gone")  # the init is unreadable now: a resumed run must not read it
    other = ppo_checkpoint(tmp_path / "other.pt", seed=9)  # nor take the networks of another one
    loop.train(config(tmp_path / "b", iterations=1), resume=True,
               overrides={"iterations": 2, "init": str(other)}, player=UniformPlayer())
    a = checkpoint.load(tmp_path / "a" / "expert" / "last.pt", resumable=True)
    b = checkpoint.load(tmp_path / "b" / "expert" / "last.pt", resumable=True)
    assert b["update"] == 2 and all(torch.equal(a[n][k], b[n][k]) for n in ("policy", "critic") for k in a[n])
    assert b["config"]["init"] == str(src) and b["started_from"] == a["started_from"]
    assert record["global_step"] == b["started_from"]["global_step"]


def samples_of(deals: int, seed: int = 3) -> Samples:
    weights = {"hidden": [16], "critic_hidden": [16], "policy": PolicyNet(OBS_SIZE, [16]).state_dict(),
               "critic": ValueNet(FULL_OBS_SIZE, [16]).state_dict()}
    return generate_chunk(weights, Settings(seed, 1, 2, 0.2), 0, deals, UniformPlayer())


def test_the_value_subset_is_fixed_by_the_seed_and_bounded_per_deal():
    samples = samples_of(4)
    assert sorted(set(samples.deal.tolist())) == [0, 1, 2, 3]
    for k in (1, 3, 100):
        keep = value_subset(samples, k, 5)
        assert np.array_equal(keep, value_subset(samples, k, 5))  # the same on every call
        for d in range(4):
            rows = samples.deal == d
            assert keep[rows].sum() == min(k, rows.sum())
    assert not np.array_equal(value_subset(samples, 1, 5), value_subset(samples, 1, 6))
    assert value_subset(Samples.empty(), 2, 5).shape == (0,)
    replay = Replay(2)
    replay.add(1, samples)
    replay.add(2, samples_of(3, seed=4))
    assert replay.value_rows(0, 5) is None  # 0: every row
    rows = replay.value_rows(2, 5)
    assert rows is not None and len(rows) == len(replay.data()) and rows.sum() == 2 * 7
    assert np.array_equal(rows[:len(samples)], value_subset(samples, 2, derive_seed(5, "value_positions", 1)))


def test_rows_outside_the_value_subset_do_not_train_the_value():
    samples = samples_of(3)
    keep = value_subset(samples, 2, 1)
    changed = Samples(**{**samples.__dict__, "value": np.where(keep, samples.value, -samples.value - 1)})
    cfg = config_from_dict({**TINY, "batch_size": 16}, schema=ExpertConfig)

    def trained(data: Samples, rows) -> dict[str, torch.Tensor]:
        torch.manual_seed(0)
        learner = Learner(cfg)
        learner.train(data, 1, rows)
        return learner.critic.state_dict()

    a, b = trained(samples, keep), trained(changed, keep)
    assert all(torch.equal(a[k], b[k]) for k in a)
    a, b = trained(samples, None), trained(changed, None)
    assert not all(torch.equal(a[k], b[k]) for k in a)


def test_value_positions_runs_resume_exactly(tmp_path):
    loop.train(config(tmp_path / "a", iterations=3, replay=2, value_positions=2), player=UniformPlayer())
    loop.train(config(tmp_path / "b", iterations=2, replay=2, value_positions=2), player=UniformPlayer())
    loop.train(config(tmp_path / "b", iterations=2), resume=True, overrides={"iterations": 3},
               player=UniformPlayer())
    a = checkpoint.load(tmp_path / "a" / "expert" / "last.pt", resumable=True)
    b = checkpoint.load(tmp_path / "b" / "expert" / "last.pt", resumable=True)
    assert all(torch.equal(a[n][k], b[n][k]) for n in ("policy", "critic") for k in a[n])
    c = checkpoint.load(tmp_path / "b" / "expert" / "last.pt")
    assert c["config"]["value_positions"] == 2
