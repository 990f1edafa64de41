"""No process outlives train.py, however it ends, and Ctrl-C ends it at once (issue 15).

``train.py`` runs a tiny config with two teacher workers in a session of its
own. Once it has trained an update, every process below it is found from
/proc; then it is killed (SIGKILL, as the OOM killer does), terminated
(SIGTERM, as a scheduler does) or interrupted (SIGINT to its whole process
group, as a terminal's Ctrl-C does), and every one of those processes must be
gone (a zombie waiting to be reaped counts as gone).
"""

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

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, from the kernel's list of each thread's children."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for task in (Path("/proc") / str(todo.pop()) / "task").glob("*"):
            try:
                kids = {int(c) for c in (task / "children").read_text().split()}
            except OSError:  # the thread or process is gone
                continue
            new = {k for k in kids - found if running(k)}
            found |= new
            todo += new
    return found


def wait_until(condition, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def start_training(tmp_path: Path) -> subprocess.Popen:
    """A long tiny run with two teacher workers; Ctrl-C's default restored (a shell running
    tests in the background may ignore SIGINT, and a child would inherit that)."""
    return subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), f"run_dir={tmp_path}",
         "teacher_workers=2", "total_steps=100000000", "eval_random_games=0", "eval_heuristic_games=0"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=(tmp_path / "stderr").open("w"), start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_no_process_outlives_train_py(train: ModuleType, tmp_path: Path, sig: signal.Signals) -> None:
    proc = start_training(tmp_path)
    below: set[int] = set()
    try:
        metrics = tmp_path / "smoke" / "metrics.csv"
        assert wait_until(lambda: metrics.exists() and "\n256," in metrics.read_text(), timeout=120)
        below = descendants(proc.pid)
        assert len(below) >= 2  # the teacher's workers (and whatever else train.py started)
        t = time.monotonic()
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        code = proc.wait(timeout=30)
        took = time.monotonic() - t
        assert wait_until(lambda: not any(running(p) for p in below), timeout=2), [
            p for p in below if running(p)]
    finally:
        for pid in [proc.pid, *below]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
    if sig == signal.SIGKILL:
        assert code == -signal.SIGKILL
        return
    err = (tmp_path / "stderr").read_text()
    assert code == 128 + sig and took < 2.0, (code, took, err)
    assert f"stopped by {sig.name} at step" in err and "--resume" in err and "Traceback" not in err
    saved = load(tmp_path / "smoke" / "last.pt")["global_step"]  # checkpoints are whole
    resumed = train.main(["--resume", f"run_dir={tmp_path}", "name=smoke", f"total_steps={saved + 256}",
                          "teacher_workers=0"])  # and the run goes on from where it stopped
    assert resumed == 0 and load(tmp_path / "smoke" / "last.pt")["global_step"] == saved + 256


POOL = """
import os, sys
from training import workers
pool = workers.start(2, fork=sys.argv[1] == "fork")
seen = set()
while len(seen) < 2:  # both workers have run a job, so both are armed
    seen |= {job.result() for job in [pool.submit(os.getpid) for _ in range(50)]}
print(*seen, flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("start", ["fork", "spawn"])  # the teacher's workers, distillation's
def test_pool_workers_die_with_their_parent(start: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", POOL, start], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    below: set[int] = set()
    try:
        assert proc.stdout is not None
        pids = {int(p) for p in proc.stdout.readline().split()}
        below = descendants(proc.pid)
        assert len(pids) == 2 and pids <= below
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert wait_until(lambda: not any(running(p) for p in below), timeout=2), [
            p for p in below if running(p)]  # the workers, and a spawn pool's resource tracker
    finally:
        for pid in [proc.pid, *below]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
