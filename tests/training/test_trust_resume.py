"""A resume never runs what a checkpoint's config names (issue 41, item 1).

A checkpoint from elsewhere is data: its bot specs (``exec:`` programs,
``x.py:X`` files, modules, plug-ins, networks by path) are never imported,
started or preflighted; built-in bots with plain parameters are kept; any
other is refused in one line that says what to pass to resume with it, and
the operator naming it again on the command line is what lets it run. The
same holds for ``python -m training.expert --resume`` (and its Ray cluster).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch
from helpers import UniformPlayer

from training.config import Config, UntrustedSettingError, config_from_dict, trusted_config
from training.config_checks import builtin_bot
from training.expert import loop
from training.expert.config import OPERATOR_ONLY, ExpertConfig

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--config", str(ROOT / "configs" / "smoke.yaml"), "total_steps=256", "teacher_workers=0",
        "eval_random_games=0", "eval_heuristic_games=0"]  # one update, no evaluation, no worker processes
EXPERT = {"deals": 2, "chunk": 1, "worlds": 1, "hidden": [16], "critic_hidden": [16], "batch_size": 8,
          "eval_every": 0, "eval_heuristic_games": 0, "eval_pimc_games": 0, "progress": False,
          "tensorboard": False}


@pytest.mark.parametrize("spec", ["", "pimc-values", "random", "heuristic", "pimc", "pimc:worlds=8,infer=1",
                                  "ismcts:iterations=10", "oracle", "ppo", "ppo:assist=none",
                                  "guided:worlds=4", "PIMC:worlds=2", "pimc:worlds=-1"])
def test_built_in_bots_with_plain_parameters_are_safe_from_a_file(spec: str) -> None:
    assert builtin_bot(spec)


@pytest.mark.parametrize("spec", ["exec:/bin/sh -c 'id > PWNED; exec cat'", "bot.py:Bot", "x.py:X:a=1",
                                  "pkg.mod:Cls", "some-plugin", "ppo:/tmp/x.pt", "ppo:path=/tmp/x.pt",
                                  "guided:/tmp/x.pt,worlds=2", "ppo:x.pt,assist=rules"])
def test_programs_files_modules_plugins_and_paths_are_not(spec: str) -> None:
    assert not builtin_bot(spec)


def test_the_operators_override_replaces_or_confirms_a_refused_spec() -> None:
    data = {"pimc_spec": "exec:evil", "teacher": "x.py:X", "eval_pimc_spec": "pimc"}
    with pytest.raises(UntrustedSettingError) as info:
        trusted_config(data, {}, "last.pt", "python train.py --resume name=a")
    message = str(info.value)
    assert "\n" not in message and "pimc_spec='exec:evil'" in message and "teacher='x.py:X'" in message
    assert "python train.py --resume name=a teacher=x.py:X pimc_spec=exec:evil (or another" in message
    assert "eval_pimc_spec" not in message  # a built-in bot is kept as it is
    out = trusted_config(data, {"pimc_spec": "exec:evil", "teacher": "heuristic"}, "last.pt", "again")
    assert out == {"pimc_spec": "exec:evil", "teacher": "heuristic", "eval_pimc_spec": "pimc"}


def test_a_spec_that_cannot_be_one_line_is_not_printed_as_the_argument() -> None:
    with pytest.raises(UntrustedSettingError) as info:
        trusted_config({"pimc_spec": "exec:a\nb"}, {}, "last.pt", "again")
    assert "\n" not in str(info.value).replace("\\n", "") and "again pimc_spec=..." in str(info.value)


def test_a_ray_cluster_of_an_expert_checkpoint_is_the_operators_too() -> None:
    with pytest.raises(UntrustedSettingError, match="ray_address='evil:6379'"):
        trusted_config({"ray_address": "evil:6379"}, {}, "last.pt", "again", ExpertConfig, OPERATOR_ONLY)
    kept = {"ray_address": ""}
    assert trusted_config(kept, {}, "last.pt", "again", ExpertConfig, OPERATOR_ONLY) == kept


def hostile_specs(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An ``exec:`` spec and an ``x.py:X`` spec that each leave a marker file if ever run or imported."""
    marker = tmp_path / "PWNED"
    bot = tmp_path / "x.py"
    bot.write_text(f"open({str(marker)!r}, 'a').write('imported')\nclass X:\n    pass\n")
    command = f"exec:/bin/sh -c {shlex.quote(f'id > {marker}; exec cat')}"
    return {"command": command, "file": f"{bot}:X"}, marker


def plugins_imported(before: set[str]) -> bool:
    """Whether a bot file was imported since ``before`` (agents.plugins names its modules so)."""
    return any(m.startswith("sixtysix_plugin_") for m in set(sys.modules) - before)


def rewrite_config(path: Path, **keys: object) -> None:
    ckpt = torch.load(path, weights_only=True)
    ckpt["config"].update(keys)
    torch.save(ckpt, path)


@pytest.mark.parametrize("kind", ["command", "file"])
@pytest.mark.parametrize("key", ["pimc_spec", "teacher", "eval_pimc_spec"])
def test_train_py_resume_runs_no_bot_of_the_checkpoint(train: ModuleType, tmp_path: Path, key: str, kind: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    assert train.main([*TINY, f"run_dir={runs}"]) == 0
    specs, marker = hostile_specs(tmp_path)
    last = runs / "smoke" / "last.pt"
    rewrite_config(last, **{key: specs[kind]})
    before = set(sys.modules)
    capsys.readouterr()
    assert train.main([*TINY, f"run_dir={runs}", "--resume", "total_steps=512"]) == 2
    err = capsys.readouterr().err
    assert not marker.exists() and not plugins_imported(before)
    assert err.startswith(f"error: --resume: {last} names {key}=") and err.count("\n") == 1
    again = shlex.join(["python", "train.py", "--resume", "name=smoke", f"run_dir={runs}"])
    assert f"{again} {shlex.quote(f'{key}={specs[kind]}')}" in err
    assert torch.load(last, weights_only=True)["update"] == 1  # nothing trained, nothing written


def test_train_py_resume_goes_on_with_the_operators_spec(train: ModuleType, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    assert train.main([*TINY, f"run_dir={runs}"]) == 0
    specs, marker = hostile_specs(tmp_path)
    rewrite_config(runs / "smoke" / "last.pt", pimc_spec=specs["file"], eval_pimc_spec="pimc:worlds=2")
    again = [*TINY, f"run_dir={runs}", "--resume", "total_steps=512", "pimc_spec=pimc:worlds=4"]
    assert train.main(again) == 0
    saved = torch.load(runs / "smoke" / "last.pt", weights_only=True)
    assert not marker.exists() and saved["update"] == 2
    assert saved["config"]["pimc_spec"] == "pimc:worlds=4"  # the operator's
    assert saved["config"]["eval_pimc_spec"] == "pimc:worlds=2"  # a built-in bot: kept


@pytest.mark.parametrize("kind", ["command", "file"])
def test_expert_resume_runs_no_bot_of_the_checkpoint(tmp_path: Path, kind: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config_from_dict({**EXPERT, "run_dir": str(tmp_path / "runs"), "iterations": 1},
                           schema=ExpertConfig)
    loop.train(cfg, player=UniformPlayer())
    specs, marker = hostile_specs(tmp_path)
    last = tmp_path / "runs" / "expert" / "last.pt"
    rewrite_config(last, eval_pimc_spec=specs[kind])
    before = set(sys.modules)
    args = ["--config", str(ROOT / "configs" / "expert.yaml"), "--resume", f"run_dir={tmp_path / 'runs'}",
            "iterations=2"]
    assert loop.main(args) == 2
    err = capsys.readouterr().err
    assert not marker.exists() and not plugins_imported(before)
    assert err.startswith(f"error: --resume: {last} names eval_pimc_spec=") and err.count("\n") == 1
    again = shlex.join(["python", "-m", "training.expert", "--resume", "name=expert",
                        f"run_dir={tmp_path / 'runs'}"])
    assert f"{again} {shlex.quote('eval_pimc_spec=' + specs[kind])}" in err


def test_config_defaults_name_built_in_bots() -> None:
    config = Config()
    assert all(builtin_bot(s) for s in (config.pimc_spec, config.eval_pimc_spec, config.teacher))
