"""Expert iteration's generation on Ray (training.expert.ray_workers): the same samples as the
local run for the same seed and weights (the tests' stand-in search and the real guided one), on
a real one-CPU local Ray instance."""

from __future__ import annotations

import os

import helpers
import numpy as np
import pytest
from helpers import UniformPlayer

from agents.core.nets import PolicyNet, ValueNet
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from training.config import ConfigError, config_from_dict
from training.expert import loop
from training.expert.config import ExpertConfig
from training.expert.generation import LocalGenerator
from training.expert.selfplay import GUIDED, Settings

ray = pytest.importorskip("ray", reason="generation on Ray needs ray: pip install -e '.[ray]'")


def test_ray_generation_gives_the_local_samples():
    from training.expert.ray_workers import RayGenerator

    ray.cloudpickle.register_pickle_by_value(helpers)  # the stand-in search travels with the task
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    weights = {"hidden": [16], "critic_hidden": [16], "policy": PolicyNet(OBS_SIZE, [16]).state_dict(),
               "critic": ValueNet(FULL_OBS_SIZE, [16]).state_dict()}
    settings = Settings(21, 1, 2, 0.2)
    local, cpu = LocalGenerator(UniformPlayer()).generate(weights, settings, 5, 2, lambda n: None)
    assert cpu == 0.0
    done: list[int] = []
    joined = ray.is_initialized()  # a Ray this process already joined is used, and left running
    gen = RayGenerator(1, None, UniformPlayer())
    try:
        assert gen.started is not joined and ray.is_initialized()
        remote, remote_cpu = gen.generate(weights, settings, 5, 2, done.append)
        guided = RayGenerator(1, None, GUIDED)  # the real search, on the instance joined above
        assert not guided.started
        guided_remote = guided.generate(weights, settings, 2, 1, lambda n: None)[0]
        guided.close()
        assert ray.is_initialized()
    finally:
        gen.close()
    assert ray.is_initialized() is joined  # an instance it started ends with it
    assert done == [2, 2, 1] and remote_cpu > 0
    guided_local = LocalGenerator(GUIDED).generate(weights, settings, 2, 2, lambda n: None)[0]
    for name in ("obs", "masks", "policy", "full", "value"):
        assert np.array_equal(getattr(local, name), getattr(remote, name)), name
        assert np.array_equal(getattr(guided_local, name), getattr(guided_remote, name)), name


def test_a_run_on_ray_without_ray_says_how_to_install_it(tmp_path, monkeypatch):
    import agents.arena.ray_backend as backend

    def missing():
        raise ImportError('the Ray arena backend needs Ray: pip install -e ".[ray]"')

    monkeypatch.setattr(backend, "import_ray", missing)
    cfg = config_from_dict({"run_dir": str(tmp_path), "backend": "ray"}, schema=ExpertConfig)
    with pytest.raises(ConfigError, match=r"'backend' is 'ray'.*pip install"):
        loop.train(cfg, player=UniformPlayer())
    assert not (tmp_path / "expert").exists()  # nothing claimed


def test_a_ray_that_cannot_be_joined_is_a_named_error_before_the_run_folder_is_claimed(tmp_path, monkeypatch):
    from training.expert import ray_workers

    def refused(*args):
        raise ConnectionError("Could not find any running Ray instance.\nmore")

    monkeypatch.setattr(ray_workers, "connect", refused)
    cfg = config_from_dict({"run_dir": str(tmp_path), "backend": "ray", "ray_address": "10.9.9.9:6379"},
                           schema=ExpertConfig)
    with pytest.raises(ConfigError, match=r"cannot start or join the Ray cluster at 10.9.9.9:6379: Could not "
                                          r"find any running Ray instance.$"):
        loop.train(cfg, player=UniformPlayer())
    assert not (tmp_path / "expert").exists()


@pytest.mark.slow  # a real local Ray instance started and stopped (about 15 s)
def test_sigterm_stops_a_run_on_ray_cleanly(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[2]
    config = tmp_path / "tiny.yaml"
    keys = {"algorithm": "expert", "name": "r", "run_dir": str(tmp_path), "deals": 2, "chunk": 1, "worlds": 1,
            "iterations": 10_000, "batch_size": 8, "hidden": [16], "critic_hidden": [16], "backend": "ray",
            "workers": 1, "eval_every": 10_000, "eval_heuristic_games": 0, "eval_pimc_games": 0,
            "progress": False, "tensorboard": False}
    config.write_text(yaml.safe_dump(keys))
    run = subprocess.Popen([sys.executable, "-m", "training.expert", "--config", str(config)], cwd=root,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           start_new_session=True, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "r" / "last.pt").exists():  # an iteration done: Ray is up
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read() if run.poll() else ""
            time.sleep(0.1)
        run.send_signal(signal.SIGTERM)
        assert run.wait(timeout=60) == 128 + signal.SIGTERM
        err = run.stderr.read()
        assert "stopped by SIGTERM at iteration" in err, err
        assert "go on: python -m training.expert --resume" in err, err
        assert "SIGTERM received" not in err, err  # not Ray's crash report
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
