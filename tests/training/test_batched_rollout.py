"""Training on the batched engine (``engine: batched``): the collector, its config checks, train.py."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch

from agents.core.checkpoint import load
from agents.core.nets import PolicyNet
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from training.config import Config, ConfigError, config_from_dict
from training.envs import BatchedEnvs
from training.opponents import Opponents
from training.rollout import CARRY, Players, Rollout, collect

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
BATCHED = ["engine=batched", "assist=none", "teacher="]


def rollouts(n: int, steps: int, drop_forced: bool = False, **weights: float) -> list[Rollout]:
    """``n`` rollouts at 16 batched tables (copies of the buffer after each)."""
    cfg = Config(num_envs=16, rollout_steps=steps, **{"opp_self": 1.0, "opp_snapshot": 0.0,
                                                      "opp_heuristic": 0.0, **weights})
    rng = np.random.default_rng(3)
    torch.manual_seed(3)
    policy, critic = PolicyNet(OBS_SIZE, [16]), PolicyNet(FULL_OBS_SIZE, [16])
    tables, opponents = BatchedEnvs(16, 3, "match"), Opponents(cfg, 16, rng)
    buf = Rollout(steps, 16, FULL_OBS_SIZE)
    out = []
    for _ in range(n):
        collect(tables, opponents, Players(policy, lambda x: critic(x)[:, 0], policy), buf, rng,
                drop_forced=drop_forced)
        copy = Rollout(steps, 16, FULL_OBS_SIZE)
        copy.__dict__.update({k: v.copy() for k, v in vars(buf).items()})
        out.append(copy)
    return out


def test_self_play_rows_are_legal_decisions_and_deals_are_zero_sum() -> None:
    for buf in rollouts(3, 40):
        rows = buf.learn[CARRY:]
        assert rows.all()  # self-play: every step is a decision of the learner
        taken = np.take_along_axis(buf.masks[CARRY:], buf.actions[CARRY:, :, None], 2)[..., 0]
        assert taken.all()  # every action was legal
        assert (buf.critic_obs[CARRY:, :, :OBS_SIZE] == buf.obs[CARRY:]).all()
        ended = buf.dones.sum()
        assert ended > 10 and ended % 2 == 0  # each deal's outcome on both seats' last decisions
        assert buf.rewards.sum() == 0 and (np.abs(buf.rewards[buf.dones]) >= 1).all()


def test_drop_forced_keeps_forced_moves_out_of_the_batch() -> None:
    kept, dropped = rollouts(1, 60)[0], rollouts(1, 60, drop_forced=True)[0]
    legal = dropped.masks[CARRY:].sum(2)
    assert (legal[dropped.learn[CARRY:]] > 1).all()
    assert (kept.learn[CARRY:] & (kept.masks[CARRY:].sum(2) == 1)).any()  # there were forced moves
    np.testing.assert_array_equal(kept.actions, dropped.actions)  # the same play either way


def test_random_snapshot_and_bot_tables_learn_one_seat_only() -> None:
    buf = rollouts(1, 80, opp_self=0.0, opp_random=1.0, opp_snapshot=1.0, opp_heuristic=1.0)[0]
    taken = np.take_along_axis(buf.masks[CARRY:], buf.actions[CARRY:, :, None], 2)[..., 0]
    assert taken.all()
    learn = buf.learn[CARRY:]
    assert 0.3 < learn.mean() < 0.7  # the learner's seat only
    assert (buf.masks[CARRY:][~learn].sum(1) > 0).all()


@pytest.mark.parametrize(("override", "key"), [
    ({}, "assist"),
    ({"assist": "none"}, "teacher"),
])
def test_batched_engine_config_errors_name_the_key(train: ModuleType, tmp_path: Path, override: dict,
                                                    key: str) -> None:
    cfg = config_from_dict({"engine": "batched", "run_dir": str(tmp_path), "name": "x", **override})
    with pytest.raises(ConfigError, match=key):
        train.train(cfg)
    assert not (tmp_path / "x").exists()  # refused before the run folder is claimed


def test_unknown_engine_and_bad_lr_floor_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="'engine'"):
        config_from_dict({"engine": "gpu"})
    with pytest.raises(ConfigError, match="'lr_floor'"):
        config_from_dict({"lr_floor": 1.5})
    with pytest.raises(ConfigError, match="'time_limit'"):
        config_from_dict({"time_limit": -1})


def test_train_on_the_batched_engine_resumes_and_keeps_an_lr_floor(train: ModuleType, tmp_path: Path) -> None:
    args = ["--config", str(SMOKE), f"run_dir={tmp_path}", *BATCHED, "lr_floor=0.25", "drop_forced=true",
            "eval_heuristic_games=0", "teacher_workers=0", "total_steps=512"]
    assert train.main(args) == 0
    last = load(tmp_path / "smoke" / "last.pt")
    assert last["global_step"] == 512 and last["config"]["engine"] == "batched"
    assert train.main([*args, "--resume", "total_steps=1024"]) == 0
    rows = (tmp_path / "smoke" / "metrics.csv").read_text().splitlines()[1:]
    lrs = [float(r.split(",")[3]) for r in rows if ",charts/learning_rate," in r]
    assert lrs[-1] == pytest.approx(1e-3 * (0.25 + 0.75 * 256 / 1024))
    assert load(tmp_path / "smoke" / "last.pt")["global_step"] == 1024


def test_time_limit_stops_a_run_with_its_checkpoint_and_evaluation(
        train: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--config", str(SMOKE), f"run_dir={tmp_path}", *BATCHED, "teacher_workers=0",
            "total_steps=1000000", "time_limit=0.0001", "eval_heuristic_games=0"]
    assert train.main(args) == 0
    last = load(tmp_path / "smoke" / "last.pt")
    assert last["global_step"] == 256  # one update, then the time was up
    out = capsys.readouterr().out
    assert "vs random" in out and "ppo:" in out and "assist=none" in out



def test_the_selfplay_config_trains_as_shipped_on_a_small_scale(train: ModuleType, tmp_path: Path) -> None:
    """configs/selfplay.yaml with only its sizes shrunk: every opponent kind it names plays."""
    config = Path(__file__).resolve().parents[2] / "configs" / "selfplay.yaml"
    small = ["num_envs=32", "rollout_steps=16", "total_steps=1024", "hidden=[16]", "critic_hidden=[16]",
             "eval_random_games=2", "eval_heuristic_games=2", "progress=false", "tensorboard=false",
             "opp_heuristic=0.3", f"run_dir={tmp_path}"]
    assert train.main(["--config", str(config), *small]) == 0
    rows = (tmp_path / "selfplay" / "metrics.csv").read_text()
    for key in ("charts/reward_vs_heuristic", "charts/reward_vs_snapshot", "eval/win_rate_heuristic"):
        assert key in rows
