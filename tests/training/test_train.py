"""train.py and the training package: config loading and errors, opponents, per-seat reward
attribution, collection with assist and teacher, and tiny runs that resume and repeat."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch

from agents.core.checkpoint import load
from agents.core.nets import PolicyNet, ValueNet
from agents.core.rules import obvious_action
from agents.neural import load_ppo_agent
from agents.search.solver import action_values
from sixtysix_env.actions import CLOSE, DECLARE
from sixtysix_env.engine import FINAL, FOLLOW, LEAD
from sixtysix_env.knowledge import view
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from sixtysix_env.vector import VectorEnv
from training.config import Config, ConfigError, config_from_dict, help_text, load_config, parse_overrides
from training.envs import ScalarEnvs
from training.opponents import KINDS, Opponents
from training.ppo import value_distill_loss
from training.rollout import CARRY, Players, Rollout, collect, record_rewards
from training.teacher import Teacher

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"


# ------------------------------------------------------------------ configs
def test_shipped_configs_load() -> None:
    for name in ("default", "long", "smoke", "selfplay"):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        assert cfg.name == name
    selfplay = load_config(ROOT / "configs" / "selfplay.yaml")  # from scratch: nothing imitated or scripted
    assert selfplay.engine == "batched" and selfplay.teacher == "" and selfplay.assist == "none"


BAD_CONFIGS = [  # (file text, what the error must say)
    ("total_stepz: 10\n", "unknown config key 'total_stepz'"),
    ("total_steps: lots\n", "'total_steps' must be int, got 'lots'"),
    ("anneal_lr: 1\n", "'anneal_lr' must be bool"),
    ("hidden: [64, true]\n", "'hidden'"),
    ("episode: game\n", "'episode'"),
    ("num_envs: 0\n", "'num_envs' must be >= 1"),
    ("teacher: pimc-valuez\n", "'teacher'.*unknown bot 'pimc-valuez'"),
    ("teacher_workers: -1\n", "'teacher_workers' must be >= 0"),
    ("teacher_temp: 0\n", "'teacher_temp' must be > 0"),
    ("assist: some\n", "'assist' must be one of"),
    ("[1, 2]\n", "mapping"),
    ("a: [\n", "not valid YAML"),
]


@pytest.mark.parametrize(("text", "message"), BAD_CONFIGS)
def test_unknown_or_mistyped_keys_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(bad)


def test_old_assist_booleans_and_missing_files(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text("assist: false\n")  # configs from before the modes
    assert load_config(old).assist == "none"
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path / "nope.yaml")


def test_overrides() -> None:
    got = parse_overrides(["--total-steps", "1000", "learning_rate=1e-3", "--anneal-lr=false",
                                 "hidden=[64,64]", "name=123"])
    assert got == {"total_steps": 1000, "learning_rate": 0.001, "anneal_lr": False, "hidden": [64, 64],
                   "name": "123"}
    assert isinstance(got["learning_rate"], float)
    cfg = config_from_dict({"vf_coef": 1}, base=Config())
    assert cfg.vf_coef == 1.0 and isinstance(cfg.vf_coef, float)
    with pytest.raises(ConfigError, match="unknown config key 'bogus'"):
        parse_overrides(["--bogus", "1"])
    with pytest.raises(ConfigError, match="'num_envs' must be int"):
        parse_overrides(["num_envs=3.5"])
    with pytest.raises(ConfigError, match="needs a value"):
        parse_overrides(["--seed"])
    with pytest.raises(ConfigError, match="cannot read argument 'seed'"):
        parse_overrides(["seed"])


def test_main_reports_config_errors(train: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
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
        record_rewards(t, np.array([s]), learn, ended, step_rewards, last_t, rewards, dones)
    # seat 0 made the last move (t=3) and lost; seat 1's last decision was t=2: it gets +3 there
    assert rewards[:, 0].tolist() == [0, 0, 3, -3]
    assert dones[:, 0].tolist() == [False, False, True, True]
    assert (last_t == -1).all()


def test_opponent_moves_get_no_reward() -> None:
    rewards = np.zeros((2, 1), np.float32)
    dones = np.zeros((2, 1), bool)
    last_t = np.full((1, 2), -1)
    # learner (seat 0) moves at t=0, the opponent (seat 1, not learning) at t=1 and ends the deal
    record_rewards(0, np.array([0]), np.array([True]), np.array([False]), np.zeros((1, 2)),
                         last_t, rewards, dones)
    record_rewards(1, np.array([1]), np.array([False]), np.array([True]), np.array([[2.0, -2.0]]),
                         last_t, rewards, dones)
    assert rewards[:, 0].tolist() == [2, 0] and dones[:, 0].tolist() == [True, False]


def self_play(steps: int, seed: int) -> tuple[Opponents, PolicyNet, ValueNet, Rollout, np.random.Generator]:
    """Four self-play tables' opponents (all the policy), tiny networks, a rollout of ``steps`` steps."""
    cfg = Config(num_envs=4, rollout_steps=steps, opp_self=1.0, opp_snapshot=0.0, opp_heuristic=0.0)
    rng = np.random.default_rng(seed)
    policy, critic = PolicyNet(OBS_SIZE, [16]), ValueNet(FULL_OBS_SIZE, [16])
    return Opponents(cfg, 4, rng), policy, critic, Rollout(steps, 4, FULL_OBS_SIZE), rng


def test_collect_attributes_every_deal_to_both_seats() -> None:
    """Replay a real rollout: each ended deal's outcome sits on each seat's last decision."""
    opponents, policy, critic, buf, rng = self_play(120, seed=0)
    tables = ScalarEnvs(4, 0, "match")
    # Independent replay: re-run the same tables with the recorded actions and book results by hand.
    replay = VectorEnv(4, seed=0)
    torch.manual_seed(0)
    deal_rewards = collect(tables, opponents, Players(policy, critic, policy), buf, rng)
    assert not buf.learn[:CARRY].any()  # a first rollout carries nothing over
    expected = np.zeros((120, 4), np.float32)
    expected_done = np.zeros((120, 4), bool)
    history: list[list[tuple[int, int]]] = [[] for _ in range(4)]
    deals = 0
    for t in range(120):
        assert (replay.to_act == buf.seats[CARRY + t]).all()
        replay.step(buf.actions[CARRY + t])
        for n in range(4):
            history[n].append((t, int(buf.seats[CARRY + t, n])))
            if replay.deal_done[n]:
                deals += 1
                for p in (0, 1):
                    mine = [tt for tt, s in history[n] if s == p]
                    if mine:
                        expected[mine[-1], n] = replay.rewards[n, p]
                        expected_done[mine[-1], n] = True
                history[n] = []
    assert expected_done.sum() > 10
    np.testing.assert_array_equal(buf.rewards[CARRY:], expected)
    np.testing.assert_array_equal(buf.dones[CARRY:], expected_done)
    assert buf.learn[CARRY:].all() and len(deal_rewards["self"]) == deals


@pytest.mark.parametrize("mode", ["full", "rules"])
def test_assist_and_value_teacher_in_collect(mode: str) -> None:
    """Obvious moves and (``full``), with the talon spent, the solver play the policy's seats (not
    learner steps); deals still pay the seats' last learner rows; the teacher labels learner rows only."""
    opponents, policy, critic, buf, rng = self_play(150, seed=1)
    tables = ScalarEnvs(4, 3, "match")
    with torch.no_grad():  # never close or declare, so talons run out
        policy.net[-1].bias[[CLOSE, DECLARE]] = -50.0
    teacher = Teacher("pimc-values", seed=0, frac=1.0)
    torch.manual_seed(1)
    collect(tables, opponents, Players(policy, critic, policy), buf, rng, teacher, mode)
    replay = VectorEnv(4, seed=3)
    solved = paid = obvious_seen = 0
    last_learn: dict[tuple[int, int], int] = {}
    for step in range(150):
        t = CARRY + step
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
        tables = ScalarEnvs(6, 2, "match")
        buf = Rollout(12, 6, FULL_OBS_SIZE)
        teacher = Teacher(spec, seed=5, frac=0.7, workers=workers)
        try:
            for t in range(12):
                teacher.label(t, list(range(6)), tables)
                tables.env.step([int(np.flatnonzero(m)[0]) for m in tables.env.masks])
            teacher.finish(buf.labelled, buf.teacher, buf.teacher_values)
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
    assert value_distill_loss(logits, values, legal, temp).item() == pytest.approx(0.0, abs=1e-6)
    # one legal logit off by d (in value units) on a row of 3 legal actions: centred error
    # (2d/3, -d/3, -d/3), squared mean over the 5 legal slots of the batch = (6/9) d^2 / 5
    d = 1.5
    off = logits.clone()
    off[0, 0] += d / temp
    expected = (4 / 9 + 1 / 9 + 1 / 9) * d * d / 5
    assert value_distill_loss(off, values, legal, temp).item() == pytest.approx(expected, rel=1e-5)


# ---------------------------------------------------------- end to end run
def run_train(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_tiny_run_writes_checkpoints_and_resumes(tmp_path: Path) -> None:
    out = run_train(f"run_dir={tmp_path}")
    assert out.returncode == 0, out.stderr
    run = tmp_path / "smoke"
    # it ends by saying what the run achieved, where the checkpoint is and how to play it
    assert f"done: {run} (768 environment steps)" in out.stdout
    assert "vs random" in out.stdout and "vs heuristic" in out.stdout and "of 2 matches" in out.stdout
    assert f"sixtysix arena ppo:{run / 'last.pt'} heuristic --games 200" in out.stdout
    last = load(run / "last.pt")
    assert last["global_step"] == 768 and "optimizer" in last and "rng" in last
    assert load_ppo_agent(run / "best.pt").assist == "full"  # best.pt plays
    metrics = (run / "metrics.csv").read_text()
    for key in ("charts/sps", "losses/policy", "eval/win_rate_random", "eval/win_rate_heuristic"):
        assert key in metrics

    out = run_train(f"run_dir={tmp_path}", "--resume", "--total-steps", "1024")
    assert out.returncode == 0, out.stderr
    resumed = load(run / "last.pt")
    assert resumed["global_step"] == 1024 and resumed["update"] == last["update"] + 1
    assert resumed["config"]["total_steps"] == 1024
    assert "\n1024," in (run / "metrics.csv").read_text()

    (run / "last.pt").write_bytes(b"\x00" * 100)  # a corrupt checkpoint is a clear error
    out = run_train(f"run_dir={tmp_path}", "--resume")
    assert out.returncode == 2 and "last.pt is corrupt" in out.stderr
    out = run_train(f"run_dir={tmp_path}", "name=other", "--resume")
    assert out.returncode == 2 and "no checkpoint" in out.stderr


def test_defaults_are_the_default_config(train: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    # one source of truth: `python train.py` with no file behaves like Config()
    assert load_config(ROOT / "configs" / "default.yaml") == Config()
    assert train.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--total-steps (2000000): environment steps" in out


def test_every_field_has_help_and_every_opponent_kind_a_weight() -> None:
    fields = dataclasses.fields(Config)
    assert all(len(f.metadata["help"]) > 5 for f in fields)
    assert help_text().count("\n") == len(fields) - 1
    assert set(Config().opponent_weights()) == {k.name for k in KINDS}


def test_a_new_run_repeats_itself_and_stop_steps_ends_it_early(train: ModuleType, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Same config and seed, same numbers (all but the timings); ``stop_steps`` stops a run
    whose schedules still run to ``total_steps``."""
    def numbers(name: str) -> list[tuple[str, ...]]:
        rows = (line.split(",") for line in (tmp_path / name / "metrics.csv").read_text().splitlines()[1:])
        return [(step, key, value) for step, _wall, key, value in rows if not key.endswith("sps")]

    small = [f"run_dir={tmp_path}", "total_steps=768", "stop_steps=512", "teacher_workers=0",
             "eval_random_games=0", "eval_heuristic_games=0"]
    for name in ("a", "b"):
        assert train.main(["--config", str(SMOKE), f"name={name}", *small]) == 0
    assert numbers("a") == numbers("b") and len(numbers("a")) > 20
    assert load(tmp_path / "a" / "last.pt")["global_step"] == 512
    lr = dict(((step, key), value) for step, key, value in numbers("a"))[("512", "charts/learning_rate")]
    assert float(lr) == pytest.approx(1e-3 * (1 - 256 / 768), rel=1e-5)  # the schedule ends at 768
    out = capsys.readouterr().out
    assert "no evaluation (eval_random_games" in out and "--resume name=b" in out
