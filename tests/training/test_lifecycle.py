"""training.lifecycle: one resume, stop and command line for PPO (train.py) and expert iteration.

No training here: what each trainer says on a stop, the resume command, and the
one-line refusals of a bad --resume (the runs themselves are in test_train_signals.py,
test_expert_loop.py and test_trust_resume.py)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from training import lifecycle
from training.config import ConfigError
from training.expert import loop

ROOT = Path(__file__).resolve().parents[2]


def test_the_resume_command_quotes_the_folder() -> None:
    folder = Path("/tmp/my runs/a b")
    assert lifecycle.resume_command(("python", "train.py"), folder) == \
        "python train.py --resume 'name=a b' 'run_dir=/tmp/my runs'"


def test_a_stop_says_where_the_run_stood_and_how_to_go_on(train: ModuleType, tmp_path: Path) -> None:
    expert_run = SimpleNamespace(dir=tmp_path / "e", iteration=3)
    said = lifecycle.stopped(loop.TRAINER, lifecycle.Interrupted(expert_run), "SIGTERM")
    assert said == (f"stopped by SIGTERM at iteration 3: {tmp_path / 'e' / 'last.pt'} holds iteration 3 "
                    f"(one under way is played again)\n"
                    f"go on: python -m training.expert --resume name=e run_dir={tmp_path}")
    ppo_run = SimpleNamespace(dir=tmp_path / "p", global_step=2048, saved_step=1024, update=2,
                              unsaved="disk full", cfg=SimpleNamespace(checkpoint_every=5))
    said = lifecycle.stopped(train.TRAINER, lifecycle.Interrupted(ppo_run), "SIGINT")
    assert said.startswith("stopped by SIGINT at step 2,048: saving failed (disk full); ")
    assert said.endswith(f"go on: python train.py --resume name=p run_dir={tmp_path}")
    for trainer in (loop.TRAINER, train.TRAINER):
        said = lifecycle.stopped(trainer, KeyboardInterrupt(), "SIGINT")
        assert said == "stopped by SIGINT before training began"


@pytest.mark.parametrize("which", ["ppo", "expert"])
def test_a_bad_resume_is_one_line(which: str, train: ModuleType, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    config = ROOT / "configs" / ("smoke.yaml" if which == "ppo" else "expert.yaml")
    trainer = train.TRAINER if which == "ppo" else loop.TRAINER
    args = ["--config", str(config), f"run_dir={tmp_path}", "name=r", "--resume"]
    assert lifecycle.main(trainer, args) == 2
    missing = tmp_path / "r" / "last.pt"
    assert capsys.readouterr().err == f"error: --resume: no checkpoint {missing} to resume from\n"
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "last.pt").write_bytes(b"not a checkpoint")
    assert lifecycle.main(trainer, args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --resume: ") and err.count("\n") == 1 and "Traceback" not in err


def test_restoring_names_the_checkpoint_that_does_not_fit(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"checkpoint .*last.pt cannot be resumed: size mismatch"):
        with lifecycle.restoring(tmp_path / "last.pt"):
            raise RuntimeError("size mismatch for 0.weight\nmore detail")
