"""The ``rules`` config key: checked when the config is read, played by the tables,
played by the batched engine too, stored in the checkpoint, and kept on
``--resume`` (RulesMismatchError for other rules)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import ModuleType

import pytest
import torch

from agents import arena
from agents.arena import ArenaOptions
from agents.core import checkpoint
from sixtysix_env import variants
from training.config import Config, ConfigError, RulesMismatchError, config_from_dict, load_config
from training.envs import check_config, make_envs
from training.evaluation import arena_fields

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"


def test_rules_default_to_german_and_bad_specs_name_the_key() -> None:
    assert Config().rules == "german"
    assert config_from_dict({"rules": "kawu"}).rules == "kawu"
    assert config_from_dict({"rules": "German+Double-Game"}).rules == "german+double_game"  # one spelling
    for bad, message in (("nope", "unknown rules preset"), ("schnapsen-pkg+double_game", "V1.3"),
                         ("german+german", "unknown rules switch")):
        with pytest.raises(ConfigError, match=rf"config key 'rules': .*{message}"):
            config_from_dict({"rules": bad})
    with pytest.raises(ConfigError, match="'rules' must be str"):
        config_from_dict({"rules": 7})


def test_both_engines_play_the_rules() -> None:
    cfg = config_from_dict({"rules": "schnapsen", "num_envs": 4, "rollout_steps": 8, "num_minibatches": 1})
    tables = make_envs(cfg, 0)
    assert all(s.rules.name == "schnapsen" and s.hands[0].bit_count() == 5 for s in tables.env.states)
    for rules in ("schnapsen", "kawu", "german+draw_bonus+double_game", "german"):
        batched = dataclasses.replace(cfg, engine="batched", assist="none", teacher="", rules=rules)
        check_config(batched)  # every preset runs batched
        states = make_envs(batched, 0).views(list(range(4)))
        assert all(v.rules.name == rules.split("+")[0] for v in states)
    with pytest.raises(ConfigError, match="needs assist 'none'"):
        check_config(dataclasses.replace(cfg, engine="batched", assist="rules", teacher=""))


def test_the_evaluation_plays_the_run_rules() -> None:
    assert arena_fields(Config()) == {}
    cfg = config_from_dict({"rules": "kawu"})
    assert arena_fields(dataclasses.replace(cfg, eval_random_games=0, eval_heuristic_games=0)) == {}
    if "rules" in {f.name for f in dataclasses.fields(ArenaOptions)}:
        assert arena_fields(cfg) == {"rules": "kawu"}
    else:  # an arena without the option: refused before the run, never evaluated by other rules
        with pytest.raises(ConfigError, match="config key 'rules': the arena cannot play 'kawu'"):
            arena_fields(cfg)


def test_a_checkpoint_with_a_bad_rules_spec_is_refused(tmp_path: Path) -> None:
    net = torch.nn.Linear(1, 1)
    ckpt = checkpoint.build({"rules": "kawu"}, net)
    assert checkpoint.rules_of(ckpt).name == "kawu"
    assert checkpoint.rules_of(checkpoint.build({}, net)).name == "german"  # from before presets
    for bad in ("bogus", 3, "x" * 500):
        with pytest.raises(ValueError, match="rules"):
            checkpoint.rules_of(checkpoint.build({"rules": bad}, net))


def test_a_run_stores_its_rules_and_a_resume_keeps_them(train: ModuleType, tmp_path: Path) -> None:
    cfg = dataclasses.replace(load_config(SMOKE), run_dir=str(tmp_path), rules="kawu", total_steps=256,
                              eval_every=0, eval_random_games=0, eval_heuristic_games=0,
                              teacher_workers=0, opp_heuristic=0.0)
    train.train(cfg)
    last = tmp_path / "smoke" / "last.pt"
    saved = checkpoint.load(last)
    assert saved["config"]["rules"] == "kawu" and checkpoint.rules_of(saved).name == "kawu"
    _, resumed = train.resume_from(last, {})
    assert resumed.rules == "kawu"
    with pytest.raises(RulesMismatchError, match="trained on rules 'kawu'.*rules='german' needs a new run"):
        train.resume_from(last, {"rules": "german"})
    with pytest.raises(RulesMismatchError):
        train.train(cfg, resume=True, overrides={"rules": "kawu+double_game"})


def test_the_arena_and_training_refuse_other_rules_with_one_error() -> None:
    assert RulesMismatchError is variants.RulesMismatchError is arena.RulesMismatchError
    assert not issubclass(RulesMismatchError, ConfigError) and issubclass(RulesMismatchError, ValueError)
