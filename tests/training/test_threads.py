"""Torch threads that do not spin: train.py asks OpenMP for passive waits before torch loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_train_py_sets_passive_waits_before_torch_is_imported() -> None:
    probe = ("import runpy, sys\n"
             "runpy.run_path('train.py', run_name='probe')\n"  # imports everything, runs nothing
             "import os, torch\n"
             "print(os.environ['OMP_WAIT_POLICY'], 'torch' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.split() == ["PASSIVE", "True"]
    env["OMP_WAIT_POLICY"] = "ACTIVE"  # a policy the operator chose is kept
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.split()[0] == "ACTIVE"


def test_every_shipped_config_trains_on_one_thread() -> None:
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        assert yaml.safe_load(path.read_text()).get("torch_threads", 1) == 1, path.name
