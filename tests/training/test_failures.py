"""Nothing lost: what train.py does when things go wrong (issue 15).

A second run never writes over the first; every config value, bot spec and
folder name is checked before any work; a resume that would change the
networks is refused before anything is written; checkpoints are written
whole or not at all, never with non-finite weights, and the final one before
the final evaluation; a full disk is one line of error. The process tests
(no worker outlives train.py) are in ``test_processes.py``.
"""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch

from agents.core import checkpoint
from agents.core.checkpoint import CheckpointWriteError, NonFiniteWeightsError, load, save_atomic
from training import evaluation
from training.config import ConfigError, config_from_dict
from training.logger import Logger
from training.run_folder import claim

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"
TINY = ["--config", str(SMOKE), "total_steps=512", "teacher_workers=0", "eval_every=0", "eval_random_games=0",
        "eval_heuristic_games=0"]  # two updates, no evaluation, no worker processes


def files(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` and its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# ------------------------------------------------------ runs never destroy runs
def test_a_second_run_never_writes_over_the_first(train: ModuleType, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    args = [*TINY, f"run_dir={tmp_path}", "name=a"]
    assert train.main(args) == 0
    first = files(tmp_path / "a")
    assert {"last.pt", "metrics.csv", "config.yaml"} <= set(first)
    capsys.readouterr()
    assert train.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds a run" in err
    assert f"python train.py --resume name=a run_dir={tmp_path}" in err and "name=a-2" in err
    assert files(tmp_path / "a") == first  # not a byte changed
    assert train.main([*TINY, f"run_dir={tmp_path}", "name=a-2"]) == 0  # the name it suggests is free


def test_a_folder_a_run_is_using_is_refused(train: ModuleType, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert train.main([*TINY, f"run_dir={tmp_path}", "name=a"]) == 0
    before = files(tmp_path / "a")
    with claim(tmp_path / "a", resume=True):  # as a running train.py holds it
        assert train.main([*TINY, f"run_dir={tmp_path}", "name=a", "--resume"]) == 2
    assert "is in use: another train.py is running there" in capsys.readouterr().err
    assert files(tmp_path / "a") == before


# ------------------------------------------------- config errors found at once
BAD_VALUES = [  # (key, value, what the error says): each one used to pass, and fail later or never
    ("eval_pimc_spec", "pimc:wrlds=4", "unknown parameter 'wrlds'"),
    ("pimc_spec", "pimcc", "unknown bot 'pimcc'"),
    ("learning_rate", -1e-3, "must be > 0"),
    ("learning_rate", float("nan"), "must be a finite number"),
    ("learning_rate", float("inf"), "must be a finite number"),
    ("gamma", 1.5, r"must be in \[0, 1\]"),
    ("gae_lambda", -0.1, r"must be in \[0, 1\]"),
    ("clip_coef", 0.0, "must be > 0"),
    ("max_grad_norm", -1.0, "must be > 0"),
    ("ent_coef", -0.01, "must be >= 0"),
    ("target_kl", float("nan"), "must be a finite number"),
    ("opp_random", float("inf"), "must be a finite number"),
    ("seed", -1, r"must be in \[0, "),
    ("eval_every", -5, "must be >= 0"),
    ("eval_heuristic_games", -2, "must be >= 0"),
    ("eval_heuristic_games", 10**7, "must be at most 1,000,000"),  # the arena's most, found at the end
    ("total_steps", 10**13, "must be at most 1,000,000,000,000"),
    ("stop_steps", 10**30, "must be at most 1,000,000,000,000"),
    ("num_envs", 10**6, "must be at most 65,536"),
    ("teacher_workers", 10**5, "must be at most 1,024"),
    ("torch_threads", 10**5, "must be at most 1,024"),
    ("hidden", [1.5], r"must be a list of ints, got \[1.5\]"),
    ("name", "..", "plain folder name"),  # <run_dir>/.. : the parent folder
    ("name", ".", "plain folder name"),  # <run_dir> itself
    ("name", "a\\b", "plain folder name"),  # a separator elsewhere
    ("run_dir", "", "must be a folder path"),
]


@pytest.mark.parametrize(("key", "value", "message"), BAD_VALUES)
def test_every_value_is_checked_when_the_config_is_read(key: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=f"'{key}' .*{message}"):
        config_from_dict({key: value})


def test_an_int_too_long_to_print_is_still_a_named_error() -> None:
    """A resumed checkpoint's config may hold one; Python refuses to convert it to text."""
    with pytest.raises(ConfigError, match="'total_steps' must be at most .*, got an int of 16610 bits"):
        config_from_dict({"total_steps": 10**5000})


def test_a_bad_eval_spec_stops_the_run_before_any_work(train: ModuleType, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert train.main([*TINY, f"run_dir={tmp_path}", "eval_pimc_spec=pimc:wrlds=4", "eval_pimc_games=2"]) == 2
    assert "'eval_pimc_spec' must be an agent spec" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # no folder, no checkpoint: nothing was done


@pytest.mark.parametrize("change", ["hidden=[64]", "critic_hidden=[16,16]", "full_critic=false"])
def test_a_resume_that_would_change_the_networks_writes_nothing(
        train: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str) -> None:
    assert train.main([*TINY, f"run_dir={tmp_path}"]) == 0
    before = files(tmp_path / "smoke")
    assert train.main([*TINY, f"run_dir={tmp_path}", "--resume", "total_steps=1024", change]) == 2
    err = capsys.readouterr().err
    assert "a resumed run keeps its networks" in err and change.partition("=")[0] in err
    assert files(tmp_path / "smoke") == before  # config.yaml included


# ---------------------------------------------------------------- checkpoints
def test_non_finite_weights_stop_the_run_with_the_last_good_checkpoint(
        train: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    update = train.ppo_update

    def diverging_update(run, batch, teacher_w):  # the second update blows up
        losses = update(run, batch, teacher_w)
        if run.update == 1:
            with torch.no_grad():
                next(run.policy.parameters())[0, 0] = float("nan")
        return losses

    monkeypatch.setattr(train, "ppo_update", diverging_update)
    assert train.main([*TINY, f"run_dir={tmp_path}", "total_steps=1024"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "update 2 left NaN or infinite values in policy" in err
    last = load(tmp_path / "smoke" / "last.pt")
    assert last["update"] == 1 and checkpoint.nonfinite(last) is None


def test_save_atomic_never_writes_non_finite_weights(tmp_path: Path) -> None:
    path = tmp_path / "x.pt"
    path.write_bytes(b"previous")
    with pytest.raises(NonFiniteWeightsError, match=r"x.pt not written: policy\['w'\] holds NaN"):
        save_atomic({"policy": {"w": torch.tensor([1.0, float("nan")])}, "n": 1}, path)
    with pytest.raises(NonFiniteWeightsError, match=r"snapshots\[1\]\['w'\] holds NaN or infinite"):
        save_atomic({"snapshots": [{"w": torch.zeros(2)}, {"w": torch.tensor([float("-inf")])}]}, path)
    assert path.read_bytes() == b"previous" and [p.name for p in tmp_path.iterdir()] == ["x.pt"]


def full_disk(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["torch.save", "os.fsync"])  # serializing, or writing the temp file
def test_a_failed_checkpoint_write_is_a_named_error_that_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    path = tmp_path / "last.pt"
    path.write_bytes(b"previous")
    monkeypatch.setattr(torch if where == "torch.save" else os, where.split(".")[1], full_disk)
    message = f"cannot write checkpoint {path}: No space left on device"
    with pytest.raises(CheckpointWriteError, match=message) as e:
        save_atomic({"policy": {"w": torch.zeros(2)}}, path)
    assert e.value.errno == errno.ENOSPC and isinstance(e.value, OSError)
    assert path.read_bytes() == b"previous" and [p.name for p in tmp_path.iterdir()] == ["last.pt"]


def test_train_reports_a_full_disk_in_one_line(train: ModuleType, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    save, calls = torch.save, []

    def save_then_fill(*args: object, **kwargs: object) -> None:  # the disk fills up after two checkpoints
        calls.append(1)
        if len(calls) > 2:
            full_disk()
        save(*args, **kwargs)

    monkeypatch.setattr(torch, "save", save_then_fill)
    assert train.main([*TINY, f"run_dir={tmp_path}"]) == 2
    last = tmp_path / "smoke" / "last.pt"
    assert capsys.readouterr().err == f"error: cannot write checkpoint {last}: No space left on device\n"
    assert not list(last.parent.glob("*.tmp")) and load(last)["update"] == 1  # the one before: intact


@pytest.mark.slow
def test_a_real_full_disk_is_one_line_of_error(tmp_path: Path) -> None:
    """A file-size limit (RLIMIT_FSIZE) makes writes past 200 kB fail with EFBIG, as a full disk
    fails with ENOSPC: the first checkpoint after an update (with Adam's state) no longer fits."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, resource.RLIM_INFINITY))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    out = subprocess.run([sys.executable, str(ROOT / "train.py"), *TINY, f"run_dir={tmp_path}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert out.returncode == 2, out.stderr
    assert out.stderr == f"error: cannot write checkpoint {tmp_path / 'smoke' / 'last.pt'}: File too large\n"
    assert load(tmp_path / "smoke" / "last.pt")["global_step"] == 0  # the one written before: intact
    assert not list((tmp_path / "smoke").glob("*.tmp"))


def test_the_final_checkpoint_is_written_before_the_final_evaluation(
        train: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("the evaluation failed")

    monkeypatch.setattr(evaluation, "evaluate", broken)
    with pytest.raises(RuntimeError, match="the evaluation failed"):
        train.main([*TINY, f"run_dir={tmp_path}", "checkpoint_every=100", "eval_random_games=2"])
    assert load(tmp_path / "smoke" / "last.pt")["global_step"] == 512  # the training is not lost


def test_a_resumed_run_keeps_the_best_checkpoint_it_cannot_beat(train: ModuleType, tmp_path: Path) -> None:
    """``last.pt`` is written before an evaluation that may find a new best: a resumed run
    takes the score of ``best.pt`` itself, so it replaces ``best.pt`` only with a better policy."""
    assert train.main([*TINY, f"run_dir={tmp_path}"]) == 0
    folder = tmp_path / "smoke"
    best = load(folder / "last.pt")
    save_atomic({**best, "best": 0.75}, folder / "best.pt")
    ckpt, cfg = train.resume_from(folder / "last.pt", {})
    run = train.start(cfg, folder, ckpt)
    assert run.best == 0.75 and run.saved_step == 512


def test_metrics_keep_one_history_when_a_run_is_resumed(tmp_path: Path) -> None:
    """Rows an interrupted run logged after its last checkpoint (and a line cut short) are
    dropped when the run resumes from that checkpoint."""
    path = tmp_path / "metrics.csv"
    path.write_text("step,wall_s,key,value\n256,1.0,a,1\n512,2.0,a,2\n768,3.0,a,3\n1024,4.0,a,")
    Logger(tmp_path, tensorboard=False, progress=False, total=2048, initial=512, desc="x").close()
    assert path.read_text() == "step,wall_s,key,value\n256,1.0,a,1\n512,2.0,a,2\n"
