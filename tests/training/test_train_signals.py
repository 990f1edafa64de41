"""A stop loses nothing (issue 45): ``train.py`` says where it writes before it starts, and
SIGTERM or Ctrl-C saves ``last.pt`` with the update reached (not the last periodic checkpoint),
says how to go on, exits 128 + the signal number, and ``--resume`` continues from there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from agents.core.checkpoint import load
from agents.core.lifetime import signals_held, sigterm_interrupts

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"
STEPS = 8 * 32  # one update of configs/smoke.yaml: num_envs * rollout_steps

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")


def updates_logged(metrics: Path) -> int:
    """The last update ``metrics.csv`` has a row for (0 if none)."""
    try:
        lines = metrics.read_text().splitlines()[1:]
    except OSError:
        return 0
    steps = [int(line.split(",", 1)[0]) for line in lines if line.count(",") == 3]
    return max(steps, default=0) // STEPS


def test_signals_held_wait_for_the_end_of_the_section() -> None:
    reached: list[object] = []
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"), sigterm_interrupts() as stop:
        with signals_held() as pending:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # a handler would have run by now
            reached.append(pending[:])
        reached.append("after")  # never: the signal is delivered on leaving the section
    assert reached == [[signal.SIGTERM]] and stop.exit_code == 143
    with signals_held(redeliver=False):  # a section that drops them
        os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_stop_saves_the_update_reached_and_resume_goes_on(train: ModuleType, tmp_path: Path,
                                                           sig: signal.Signals) -> None:
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    proc = subprocess.Popen(  # periodic checkpoints only at step 0 (checkpoint_every is out of reach)
        [sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), f"run_dir={tmp_path}",
         "total_steps=100000000", "checkpoint_every=1000", "teacher_workers=0", "eval_random_games=0",
         "eval_heuristic_games=0"],
        cwd=ROOT, stdout=out.open("w"), stderr=err.open("w"), start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    run = tmp_path / "smoke"
    try:
        end = time.monotonic() + 120
        while updates_logged(run / "metrics.csv") < 2:
            assert proc.poll() is None and time.monotonic() < end, err.read_text()
            time.sleep(0.02)
        # it said where it writes before it started
        said = out.read_text()
        assert f"run folder: {run} (new run" in said
        assert str(run / "last.pt") in said and str(run / "metrics.csv") in said
        assert load(run / "last.pt")["update"] == 0  # the one checkpoint so far
        reached = updates_logged(run / "metrics.csv")
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)  # as a terminal's Ctrl-C does
        else:
            os.kill(proc.pid, sig)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = err.read_text()
    assert code == 128 + sig, said
    last = load(run / "last.pt")
    assert last["update"] >= reached >= 2 and last["global_step"] == last["update"] * STEPS
    assert "optimizer" in last and "rng" in last
    assert f"stopped by {sig.name} at step {last['global_step']:,}: saved {run / 'last.pt'}" in said
    assert f"go on: python train.py --resume name=smoke run_dir={tmp_path}" in said
    assert "Traceback" not in said

    if sig == signal.SIGINT:
        return  # one resume is enough
    total = last["global_step"] + STEPS
    assert train.main(["--resume", f"run_dir={tmp_path}", "name=smoke", f"total_steps={total}",
                       "teacher_workers=0", "eval_random_games=0", "eval_heuristic_games=0"]) == 0
    resumed = load(run / "last.pt")
    assert resumed["global_step"] == total and resumed["update"] == last["update"] + 1
