"""Configs and checkpoints checked whole before use (issue 23, item 6).

Every bot a config names is built, asked one move and closed before the run
claims its folder; a config that cannot form a minibatch is a config error;
non-finite logits are a named error; a checkpoint is validated on load (keys
and types, layer sizes within the bound, shapes, finite weights) with one
line naming the file, before any network is built from it.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch

from agents.core import checkpoint
from agents.core.checkpoint import CheckpointError, load, save_atomic
from agents.core.nets import MAX_WIDTH, PolicyNet
from agents.external import LOG_DIR_ENV
from agents.neural import load_ppo_agent
from sixtysix_env.batched.sampling import NonFiniteLogitsError, sample_masked
from sixtysix_env.observation import OBS_SIZE
from training.config import ConfigError, config_from_dict

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"
TINY = ["--config", str(SMOKE), "total_steps=256", "teacher_workers=0", "eval_random_games=0",
        "eval_heuristic_games=0"]  # one update, no evaluation, no worker processes

FAILING_BOT = '''
class Bot:
    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, view):
        raise RuntimeError("this bot cannot play")
'''


# ------------------------------------------------------------------ bot specs
@pytest.mark.parametrize("key", ["eval_pimc_spec", "pimc_spec", "teacher"])
def test_a_failing_exec_bot_stops_the_run_before_its_folder(train: ModuleType, tmp_path: Path, key: str,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LOG_DIR_ENV, str(tmp_path / "bot_logs"))
    marker = tmp_path / "ran"
    script = tmp_path / "bot.py"
    script.write_text(f"open({str(marker)!r}, 'a').write('x')\nraise SystemExit(3)\n")
    spec = "exec:" + shlex.join([sys.executable, str(script)])
    runs = tmp_path / "runs"
    assert train.main([*TINY, f"run_dir={runs}", f"{key}={spec}", "eval_pimc_games=2", "opp_pimc=0.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: config key {key!r}: the bot") and err.count("\n") == 1
    assert not runs.exists()  # nothing claimed, nothing written
    assert marker.read_text() == "x"  # the command ran once, for the check, and never again


def test_a_plugin_bot_that_cannot_play_is_a_config_error(train: ModuleType, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "failing_bot.py").write_text(FAILING_BOT)
    runs = tmp_path / "runs"
    spec = f"{tmp_path / 'failing_bot.py'}:Bot"
    assert train.main([*TINY, f"run_dir={runs}", f"eval_pimc_spec={spec}", "eval_pimc_games=2"]) == 2
    assert "this bot cannot play" in capsys.readouterr().err
    assert not runs.exists()


# ------------------------------------------------------------ tiny configs, NaN
@pytest.mark.parametrize("values", [{"num_envs": 1, "rollout_steps": 2},
                                    {"num_envs": 2, "rollout_steps": 16, "num_minibatches": 4}])
def test_a_config_that_cannot_form_a_minibatch_is_a_config_error(values: dict[str, int]) -> None:
    with pytest.raises(ConfigError, match="decisions per minibatch"):
        config_from_dict(values)


def test_the_tiny_config_of_the_report_stops_in_one_line(train: ModuleType, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert train.main([*TINY, f"run_dir={tmp_path}", "num_envs=1", "rollout_steps=2"]) == 2
    err = capsys.readouterr().err
    assert "minibatch" in err and err.count("\n") == 1 and not any(tmp_path.iterdir())


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_logits_of_legal_actions_are_a_named_error(bad: float) -> None:
    logits, masks = torch.zeros((3, 32)), torch.zeros((3, 32), dtype=torch.bool)
    masks[:, :4] = True
    logits[1, 2] = bad
    with pytest.raises(NonFiniteLogitsError, match="1 of 3 tables"):
        sample_masked(logits, masks)
    logits[1, 2], logits[1, 20] = 0.0, bad  # an illegal action's logit does not matter
    assert (sample_masked(logits, masks)[0] < 4).all()


# ---------------------------------------------------------------- checkpoints
def policy_checkpoint(hidden: list[int], **entries: object) -> dict:
    torch.manual_seed(0)
    return checkpoint.build({"hidden": hidden}, PolicyNet(OBS_SIZE, hidden), **entries)


def hand_written(path: Path, obj: dict) -> Path:
    torch.save(obj, path)  # not save_atomic: a hostile file need not respect its checks
    return path


def load_error(path: Path) -> str:
    with pytest.raises(CheckpointError) as info:
        load_ppo_agent(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    return message


@pytest.mark.parametrize("hidden", [[2**31], [MAX_WIDTH + 1], [8] * 9, [], [0], [True], ["64"], "64"])
def test_declared_sizes_beyond_the_bound_are_refused_before_allocating(tmp_path: Path,
                                                                       hidden: object) -> None:
    ckpt = policy_checkpoint([8])
    ckpt["config"]["hidden"] = hidden
    path = hand_written(tmp_path / "big.pt", ckpt)
    assert path.stat().st_size < 50_000
    assert "'hidden' must be 1 to 8 layer sizes" in load_error(path)


@pytest.mark.parametrize("damage", ["shape", "missing", "extra", "not a tensor", "int weights"])
def test_weights_must_have_the_declared_shapes(tmp_path: Path, damage: str) -> None:
    ckpt = policy_checkpoint([8])
    weights = ckpt["policy"]
    if damage == "shape":
        ckpt["config"]["hidden"] = [9]
    elif damage == "missing":
        del weights["net.2.bias"]
    elif damage == "extra":
        weights["net.4.weight"] = torch.zeros(1)
    elif damage == "not a tensor":
        weights["net.0.bias"] = [0.0] * 8
    else:
        weights["net.0.bias"] = torch.zeros(8, dtype=torch.int64)
    assert "policy" in load_error(hand_written(tmp_path / "bad.pt", ckpt))


@pytest.mark.parametrize("entry", ["policy", "critic", "endgame"])
def test_a_checkpoint_with_nan_weights_never_loads(tmp_path: Path, entry: str) -> None:
    ckpt = policy_checkpoint([8])
    if entry == "critic":
        ckpt["config"].update(critic_hidden=[4], full_critic=False)
        ckpt["critic"] = {"net.0.weight": torch.zeros(4, OBS_SIZE), "net.0.bias": torch.zeros(4),
                          "net.2.weight": torch.zeros(1, 4), "net.2.bias": torch.full((1,), float("nan"))}
    elif entry == "endgame":
        from agents.core.nets import PhaseNet
        net = PhaseNet([4])
        ckpt["endgame"] = checkpoint.phase_entry(net)
        ckpt["endgame"]["state"]["net.0.weight"][0, 0] = float("inf")
    else:
        ckpt["policy"]["net.0.weight"][0, 0] = float("nan")
    assert "NaN or infinite" in load_error(hand_written(tmp_path / "nan.pt", ckpt))


def test_deeply_nested_entries_are_a_named_error(tmp_path: Path) -> None:
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    ckpt = policy_checkpoint([8], extra=deep)  # as torch.load would return it (no file: too deep to save)
    with pytest.raises(CheckpointError, match="deep.pt: entries nested too deeply"):
        checkpoint.validate(ckpt, tmp_path / "deep.pt")


def test_a_valid_checkpoint_still_loads_and_the_shipped_one_too(tmp_path: Path) -> None:
    path = tmp_path / "ok.pt"
    save_atomic(policy_checkpoint([8, 4]), path)
    assert load_ppo_agent(path) is not None
    assert load_ppo_agent(None) is not None  # the shipped checkpoint, with its phase networks


# ------------------------------------------------------------------ --resume
def damaged(ckpt: dict, damage: str) -> None:
    if damage == "no global_step":
        del ckpt["global_step"]
    elif damage == "no rng":
        del ckpt["rng"]
    elif damage == "str update":
        ckpt["update"] = "3"
    elif damage == "bad torch rng":
        ckpt["rng"]["torch"] = torch.zeros(3, dtype=torch.uint8)
    elif damage == "bad numpy rng":
        ckpt["rng"]["numpy"] = {"bit_generator": "nonsense"}
    elif damage == "bad snapshot":
        ckpt["snapshots"] = [{"net.0.weight": torch.zeros(2)}]
    elif damage == "nan snapshot":
        ckpt["snapshots"][0]["net.0.weight"][0, 0] = float("nan")
    elif damage == "optimizer shapes":
        for state in ckpt["optimizer"]["state"].values():
            state["exp_avg"] = torch.zeros(3)
    elif damage == "huge hidden":
        ckpt["config"]["hidden"] = [2**31]
    elif damage == "sparse weight":
        ckpt["policy"]["net.0.weight"] = ckpt["policy"]["net.0.weight"].to_sparse()
    elif damage == "meta snapshot":
        snapshot = ckpt["snapshots"][0]
        snapshot["net.0.bias"] = torch.empty(snapshot["net.0.bias"].shape, device="meta")
    elif damage == "str betas":  # Adam would fail only at its first step
        ckpt["optimizer"]["param_groups"][0]["betas"] = "x"


DAMAGES = ["no global_step", "no rng", "str update", "bad torch rng", "bad numpy rng", "bad snapshot",
           "nan snapshot", "optimizer shapes", "huge hidden", "sparse weight", "meta snapshot", "str betas"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_hand_damaged_last_pt_is_a_named_error_on_resume(train: ModuleType, tmp_path: Path, damage: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert train.main([*TINY, f"run_dir={tmp_path}", "snapshot_every=1"]) == 0
    path = tmp_path / "smoke" / "last.pt"
    ckpt = torch.load(path, weights_only=True)
    damaged(ckpt, damage)
    hand_written(path, ckpt)
    capsys.readouterr()
    assert train.main([*TINY, f"run_dir={tmp_path}", "--resume", "total_steps=512"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --resume:") and str(path) in err and err.count("\n") == 1


def test_load_checks_resume_entries_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "p.pt"
    save_atomic(policy_checkpoint([8]), path)
    assert load(path)["policy"]
    with pytest.raises(CheckpointError, match="not a resumable run"):
        load(path, resumable=True)
