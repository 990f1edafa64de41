"""The expert-iteration config (training.expert.config): its files load, bad keys and values are
named errors, and train.py recognises its configs and runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.config import ConfigError, config_from_dict, load_config, parse_command_line, parse_overrides
from training.expert.config import ExpertConfig, from_checkpoint_config, requested

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "configs" / "default.yaml"


@pytest.mark.parametrize("name", ["expert", "expert_long", "expert_warm"])
def test_the_shipped_configs_load(name):
    cfg = load_config(ROOT / "configs" / f"{name}.yaml", ExpertConfig)
    assert cfg.algorithm == "expert" and cfg.name == name


@pytest.mark.parametrize(("data", "named"), [
    ({"wolds": 3}, "unknown config key 'wolds'"),
    ({"deals": 0}, "'deals' must be >= 1"),
    ({"deals": True}, "'deals' must be int"),
    ({"worlds": 10**9}, "'worlds' must be in"),
    ({"learning_rate": float("nan")}, "'learning_rate' must be a finite number"),
    ({"backend": "dask"}, "'backend' must be one of"),
    ({"target": "prior"}, "'target' must be one of"),
    ({"leaf": "playout"}, "'leaf' must be one of"),
    ({"depth": 3}, "'depth' must be in"),
    ({"ray_address": "10.0.0.1:6379"}, "'ray_address'.*needs backend: ray"),
    ({"backend": "ray", "ray_address": "x"}, "'ray_address' must be HOST:PORT"),
    ({"backend": "ray", "ray_address": "h:1; rm -rf /"}, "'ray_address' must be HOST:PORT"),
    ({"algorithm": "ppo"}, "'algorithm' must be one of"),
    ({"name": "../x"}, "'name' must be a plain folder name"),
    ({"hidden": [10**6]}, "'hidden' must be 1 to"),
    ({"eval_pimc_spec": "nosuchbot"}, "'eval_pimc_spec' must be an agent spec"),
    ({"eval_assist": "full"}, "'eval_assist' must be one of"),
    ({7: 1}, "unknown config key '7'"),
    ({"init": "a\0b"}, "'init' must be '' or a file path"),
    ({"init": 3}, "'init' must be str"),
    ({"value_positions": -1}, "'value_positions' must be >= 0"),
])
def test_bad_keys_and_values_are_named(data, named):
    with pytest.raises(ConfigError, match=named):
        config_from_dict(data, schema=ExpertConfig)


def test_overrides_are_checked_against_the_expert_keys():
    assert parse_overrides(["--deals", "5", "worlds=3"], ExpertConfig) == {"deals": 5, "worlds": 3}
    with pytest.raises(ConfigError, match="unknown config key 'num_envs'"):
        parse_overrides(["num_envs=3"], ExpertConfig)
    cmd = parse_command_line(["--config", str(ROOT / "configs" / "expert.yaml"), "iterations=3", "--resume"],
                             DEFAULT, ExpertConfig)
    assert cmd.config.iterations == 3 and cmd.resume


def test_checkpoint_configs_must_be_an_expert_runs():
    saved = ExpertConfig().checkpoint_config()
    assert from_checkpoint_config(saved, "x") == config_from_dict({}, schema=ExpertConfig).__dict__
    with pytest.raises(ConfigError, match="not an expert-iteration run"):
        from_checkpoint_config({"name": "ppo"}, "x.pt")
    with pytest.raises(ConfigError, match="'value_target' must be 'deal'"):
        from_checkpoint_config({**saved, "value_target": "match"}, "x.pt")


def test_train_py_recognises_expert_configs_and_runs(tmp_path):
    expert = str(ROOT / "configs" / "expert.yaml")
    assert requested(["--config", expert], DEFAULT)
    assert requested([f"--config={expert}", "deals=3"], DEFAULT)
    assert not requested([], DEFAULT)
    assert not requested(["--config", str(ROOT / "configs" / "long.yaml")], DEFAULT)
    assert not requested(["--config", str(tmp_path / "missing.yaml")], DEFAULT)  # PPO's path names it
    assert requested(["algorithm=expert"], DEFAULT)
    run = tmp_path / "e"
    run.mkdir()
    (run / "config.yaml").write_text("algorithm: expert\n")
    assert requested(["--resume", "name=e", f"run_dir={tmp_path}"], DEFAULT)
    assert requested(["--resume", "--name", "e", "--run-dir", str(tmp_path)], DEFAULT)
    assert not requested(["--resume", "name=other", f"run_dir={tmp_path}"], DEFAULT)
