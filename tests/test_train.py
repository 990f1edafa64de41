"""train.py: config loading and errors, per-seat reward attribution, and a tiny run that resumes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import train
from agents.heuristic import obvious_action
from agents.neural import load_checkpoint, load_ppo_agent
from agents.solver import action_values
from sixtysix_env.actions import CLOSE, DECLARE
from sixtysix_env.engine import FINAL, FOLLOW, LEAD
from sixtysix_env.knowledge import view
from sixtysix_env.vector import VectorEnv

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "smoke.yaml"


# ------------------------------------------------------------------ configs
def test_shipped_configs_load() -> None:
    for name in ("default", "long", "smoke"):
        cfg = train.load_config(ROOT / "configs" / f"{name}.yaml")
        assert cfg.name == name


BAD_CONFIGS = [  # (file text, what the error must say)
    ("total_stepz: 10\n", "unknown config key 'total_stepz'"),
    ("total_steps: lots\n", "'total_steps' must be int, got 'lots'"),
    ("anneal_lr: 1\n", "'anneal_lr' must be bool"),
    ("hidden: [64, true]\n", "'hidden'"),
    ("episode: game\n", "'episode'"),
    ("num_envs: 0\n", "'num_envs' must be >= 1"),
    ("teacher: pimc-valuez\n", "'teacher'.*unknown bot 'pimc-valuez'"),
    ("teacher_workers: -1\n", "'teacher_workers' must be >= 0"),
    ("teacher_temp: 0\n", "teacher_temp > 0"),
    ("assist: some\n", "'assist' must be one of"),
    ("[1, 2]\n", "mapping"),
    ("a: [\n", "not valid YAML"),
]


@pytest.mark.parametrize(("text", "message"), BAD_CONFIGS)
def test_unknown_or_mistyped_keys_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(train.ConfigError, match=message):
        train.load_config(bad)


def test_old_assist_booleans_and_missing_files(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text("assist: false\n")  # configs from before the modes
    assert train.load_config(old).assist == "none"
    with pytest.raises(train.ConfigError, match="cannot read config file"):
        train.load_config(tmp_path / "nope.yaml")


def test_overrides() -> None:
    got = train.parse_overrides(["--total-steps", "1000", "learning_rate=1e-3", "--anneal-lr=false",
                                 "hidden=[64,64]", "name=123"])
    assert got == {"total_steps": 1000, "learning_rate": 0.001, "anneal_lr": False, "hidden": [64, 64],
                   "name": "123"}
    assert isinstance(got["learning_rate"], float)
    cfg = train.config_from_dict({"vf_coef": 1}, base=train.Config())
    assert cfg.vf_coef == 1.0 and isinstance(cfg.vf_coef, float)
    with pytest.raises(train.ConfigError, match="unknown config key 'bogus'"):
        train.parse_overrides(["--bogus", "1"])
    with pytest.raises(train.ConfigError, match="'num_envs' must be int"):
        train.parse_overrides(["num_envs=3.5"])
    with pytest.raises(train.ConfigError, match="needs a value"):
        train.parse_overrides(["--seed"])
    with pytest.raises(train.ConfigError, match="cannot read argument 'seed'"):
        train.parse_overrides(["seed"])


def test_main_reports_config_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert train.main(["--config", str(SMOKE), "--num-envs", "many"]) == 2
    assert "'num_envs' must be int" in capsys.readouterr().err


# -------------------------------------------------------- reward attribution
def test_reward_goes_to_the_player_who_acted() -> None:
    # One table, self-play: seats act 0, 1, 1, 0; the deal ends after t=3 with +3 for seat 1.
    T, N = 4, 1
    rewards = np.zeros((T, N), np.float32)
    dones = np.zeros((T, N), bool)
    last_t = np.full((N, 2), -1)
    learn = np.ones(N, bool)
    seats = [0, 1, 1, 0]
    for t, s in enumerate(seats):
        ended = np.array([t == 3])
        step_rewards = np.array([[-3.0, 3.0]]) if t == 3 else np.zeros((1, 2))
        train.record_rewards(t, np.array([s]), learn, ended, step_rewards, last_t, rewards, dones)
    # seat 0 made the last move (t=3) and lost; seat 1's last decision was t=2: it gets +3 there
    assert rewards[:, 0].tolist() == [0, 0, 3, -3]
    assert dones[:, 0].tolist() == [False, False, True, True]
    assert (last_t == -1).all()


def test_opponent_moves_get_no_reward() -> None:
    rewards = np.zeros((2, 1), np.float32)
    dones = np.zeros((2, 1), bool)
    last_t = np.full((1, 2), -1)
    # learner (seat 0) moves at t=0, the opponent (seat 1, not learning) at t=1 and ends the deal
    train.record_rewards(0, np.array([0]), np.array([True]), np.array([False]), np.zeros((1, 2)),
                         last_t, rewards, dones)
    train.record_rewards(1, np.array([1]), np.array([False]), np.array([True]), np.array([[2.0, -2.0]]),
                         last_t, rewards, dones)
    assert rewards[:, 0].tolist() == [2, 0] and dones[:, 0].tolist() == [True, False]


def test_collect_attributes_every_deal_to_both_seats() -> None:
    """Replay a real rollout: each ended deal's outcome sits on each seat's last decision."""
    cfg = train.Config(num_envs=4, rollout_steps=120, opp_self=1.0, opp_snapshot=0.0, opp_heuristic=0.0,
                       hidden=[16], critic_hidden=[16])
    rng = np.random.default_rng(0)
    venv = VectorEnv(4, seed=0, full_obs=True)
    policy = train.PolicyNet(train.OBS_SIZE, cfg.hidden)
    critic = train.ValueNet(train.FULL_OBS_SIZE, cfg.critic_hidden)
    buf = train.Rollout(120, 4, train.FULL_OBS_SIZE)
    # Independent replay: re-run the same tables with the recorded actions and book results by hand.
    replay = VectorEnv(4, seed=0)
    torch.manual_seed(0)
    opponents = train.Opponents(cfg, 4, rng)
    next_values, deal_rewards = train.collect(venv, opponents, policy, critic, policy, buf, rng)
    assert next_values.shape == (4, 2)
    expected = np.zeros((120, 4), np.float32)
    expected_done = np.zeros((120, 4), bool)
    history: list[list[tuple[int, int]]] = [[] for _ in range(4)]
    deals = 0
    for t in range(120):
        assert (replay.to_act == buf.seats[t]).all()
        replay.step(buf.actions[t])
        for n in range(4):
            history[n].append((t, int(buf.seats[t, n])))
            if replay.deal_done[n]:
                deals += 1
                for p in (0, 1):
                    mine = [tt for tt, s in history[n] if s == p]
                    if mine:
                        expected[mine[-1], n] = replay.rewards[n, p]
                        expected_done[mine[-1], n] = True
                history[n] = []
    assert expected_done.sum() > 10
    np.testing.assert_array_equal(buf.rewards, expected)
    np.testing.assert_array_equal(buf.dones, expected_done)
    assert buf.learn.all() and len(deal_rewards[train.SELF]) == deals


@pytest.mark.parametrize("mode", ["full", "rules"])
def test_assist_and_value_teacher_in_collect(mode: str) -> None:
    """Obvious moves and (``full``), with the talon spent, the solver play the policy's seats (not
    learner steps); deals still pay the seats' last learner rows; the teacher labels learner rows only."""
    cfg = train.Config(num_envs=4, rollout_steps=150, opp_self=1.0, opp_snapshot=0.0, opp_heuristic=0.0,
                       hidden=[16], critic_hidden=[16])
    rng = np.random.default_rng(1)
    venv = VectorEnv(4, seed=3, full_obs=True)
    policy = train.PolicyNet(train.OBS_SIZE, cfg.hidden)
    critic = train.ValueNet(train.FULL_OBS_SIZE, cfg.critic_hidden)
    with torch.no_grad():  # never close or declare, so talons run out
        policy.net[-1].bias[[CLOSE, DECLARE]] = -50.0
    buf = train.Rollout(150, 4, train.FULL_OBS_SIZE)
    teacher = train.Teacher("pimc-values", seed=0, frac=1.0)
    torch.manual_seed(1)
    train.collect(venv, train.Opponents(cfg, 4, rng), policy, critic, policy, buf, rng, teacher, mode)
    replay = VectorEnv(4, seed=3)
    solved = paid = obvious_seen = 0
    last_learn: dict[tuple[int, int], int] = {}
    for t in range(150):
        for n in range(4):
            s = replay.states[n]
            spent = mode == "full" and s.stock == 0 and s.window in (LEAD, FOLLOW, FINAL)
            obvious = obvious_action(view(s, s.to_act))
            scripted = spent or obvious is not None
            assert buf.learn[t, n] == (not scripted)
            assert buf.labelled[t, n] == (not scripted and s.legal_mask().bit_count() > 1)
            if obvious is not None:
                assert buf.actions[t, n] == obvious
                obvious_seen += 1
            elif spent:
                values = action_values(s)
                assert values[int(buf.actions[t, n])] == max(values.values())
                solved += 1
            else:
                last_learn[n, s.to_act] = t
            if buf.labelled[t, n]:
                legal = buf.masks[t, n]
                assert not buf.teacher_values[t, n][~legal].any()
        replay.step(buf.actions[t])
        for n in np.flatnonzero(replay.deal_done).tolist():
            for p in (0, 1):
                k = last_learn.pop((n, p), None)
                if k is not None:
                    assert buf.dones[k, n] and buf.rewards[k, n] == replay.rewards[n, p]
                    paid += 1
    assert (solved > 30 if mode == "full" else solved == 0) and paid > 10 and obvious_seen > 10


@pytest.mark.parametrize("spec", ["pimc-values", "heuristic"])
def test_teacher_workers_give_the_same_labels(spec: str) -> None:
    bufs = []
    for workers in (0, 1):
        venv = VectorEnv(6, seed=2)
        buf = train.Rollout(12, 6, train.FULL_OBS_SIZE)
        teacher = train.Teacher(spec, seed=5, frac=0.7, workers=workers)
        try:
            for t in range(12):
                teacher.label(t, list(range(6)), venv)
                venv.step([int(np.flatnonzero(m)[0]) for m in venv.masks])
            teacher.finish(buf)
        finally:
            teacher.close()
        bufs.append(buf)
    a, b = bufs
    assert 20 < a.labelled.sum() < 72  # frac and one-move rows leave some out
    np.testing.assert_array_equal(a.labelled, b.labelled)
    np.testing.assert_array_equal(a.teacher_values, b.teacher_values)
    np.testing.assert_array_equal(a.teacher, b.teacher)
    if spec == "pimc-values":
        assert np.abs(a.teacher_values).sum() > 0


def test_value_distill_loss_is_zero_at_centred_values_only() -> None:
    legal = torch.tensor([[True, True, False, True], [False, True, True, False]])
    values = torch.tensor([[1.0, -1.0, 9.0, 3.0], [0.0, 2.0, 2.0, -5.0]])
    temp = 0.5
    # logits = values / temp plus any constant per row, anything on illegal slots: zero loss
    logits = values / temp + torch.tensor([[7.0], [-3.0]])
    logits[0, 2], logits[1, 3] = 100.0, -100.0
    assert train.value_distill_loss(logits, values, legal, temp).item() == pytest.approx(0.0, abs=1e-6)
    # one legal logit off by d (in value units) on a row of 3 legal actions: centred error
    # (2d/3, -d/3, -d/3), squared mean over the 5 legal slots of the batch = (6/9) d^2 / 5
    d = 1.5
    off = logits.clone()
    off[0, 0] += d / temp
    expected = (4 / 9 + 1 / 9 + 1 / 9) * d * d / 5
    assert train.value_distill_loss(off, values, legal, temp).item() == pytest.approx(expected, rel=1e-5)


# ---------------------------------------------------------- end to end run
def run_train(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_tiny_run_writes_checkpoints_and_resumes(tmp_path: Path) -> None:
    out = run_train(f"run_dir={tmp_path}")
    assert out.returncode == 0, out.stderr
    run = tmp_path / "smoke"
    last = load_checkpoint(run / "last.pt")
    assert last["global_step"] == 768 and "optimizer" in last and "rng" in last
    assert load_ppo_agent(run / "best.pt").name.startswith("ppo:")
    metrics = (run / "metrics.csv").read_text()
    for key in ("charts/sps", "losses/policy", "eval/win_rate_random", "eval/win_rate_heuristic"):
        assert key in metrics

    out = run_train(f"run_dir={tmp_path}", "--resume", "--total-steps", "1024")
    assert out.returncode == 0, out.stderr
    resumed = load_checkpoint(run / "last.pt")
    assert resumed["global_step"] == 1024 and resumed["update"] == last["update"] + 1
    assert resumed["config"]["total_steps"] == 1024
    assert "\n1024," in (run / "metrics.csv").read_text()

    (run / "last.pt").write_bytes(b"\x00" * 100)  # a corrupt checkpoint is a clear error
    out = run_train(f"run_dir={tmp_path}", "--resume")
    assert out.returncode == 2 and "last.pt is corrupt" in out.stderr
    out = run_train(f"run_dir={tmp_path}", "name=other", "--resume")
    assert out.returncode == 2 and "no checkpoint" in out.stderr


def test_defaults_are_the_default_config(capsys: pytest.CaptureFixture[str]) -> None:
    # one source of truth: `python train.py` with no file behaves like train.Config()
    assert train.load_config(ROOT / "configs" / "default.yaml") == train.Config()
    assert train.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--total-steps (2000000): environment steps" in out
