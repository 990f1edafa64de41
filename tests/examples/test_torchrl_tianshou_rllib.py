"""Smoke tests of the RL-library examples: a few hundred steps and a tiny evaluation, same code path.

Each library lives in its own virtual environment when it conflicts with the
main one (RLlib pins an older gymnasium): ``SIXTYSIX_<LIB>_PYTHON`` names that
environment's interpreter (``.ci/run`` sets them); without it the test runs
the example with this interpreter. A test is skipped, saying why, only when
its library cannot be imported by that interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def python_for(lib: str, module: str) -> str:
    python = os.environ.get(f"SIXTYSIX_{lib.upper()}_PYTHON", sys.executable)
    found = subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=120)
    if found.returncode != 0:
        pytest.skip(f"{module} is not importable by {python}: pip install -e '.[{lib}]' "
                    f"(or set SIXTYSIX_{lib.upper()}_PYTHON to a venv that has it)")
    return python


def run_example(python: str, script: str, *args: str) -> str:
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run([python, str(ROOT / "examples" / script), *args], capture_output=True, text=True,
                          timeout=600, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def assert_trained_and_evaluated(out: str) -> None:
    assert "train steps" in out
    for opponent in ("random", "heuristic"):
        assert f"vs {opponent}: win rate" in out


@pytest.mark.slow
def test_torchrl_selfplay_smoke():
    python = python_for("torchrl", "torchrl")
    out = run_example(python, "torchrl_selfplay.py", "--total-steps", "400", "--batch", "200",
                      "--eval-games", "2")
    assert_trained_and_evaluated(out)


@pytest.mark.slow
def test_tianshou_dqn_smoke():
    python = python_for("tianshou", "tianshou")
    out = run_example(python, "tianshou_dqn.py", "--total-steps", "400", "--collect", "80", "--batch", "64",
                      "--eval-games", "2")
    assert_trained_and_evaluated(out)


@pytest.mark.slow
def test_rllib_ppo_smoke():
    python = python_for("rllib", "ray.rllib")
    out = run_example(python, "rllib_ppo.py", "--total-steps", "300", "--batch", "256", "--env-runners", "1",
                      "--envs-per-runner", "4", "--eval-games", "2")
    assert_trained_and_evaluated(out)


def test_rllib_adapter_plays_whole_episodes():
    python = python_for("rllib", "ray.rllib")
    code = (
        "import numpy as np\n"
        "from sixtysix_env.rllib import SixtySixMultiAgentEnv\n"
        "env = SixtySixMultiAgentEnv({'episode': 'deal'})\n"
        "rng = np.random.default_rng(0)\n"
        "for seed in range(5):\n"
        "    obs, _ = env.reset(seed=seed)\n"
        "    total = {a: 0.0 for a in env.possible_agents}\n"
        "    while True:\n"
        "        [(agent, o)] = obs.items()\n"
        "        assert env.observation_spaces[agent].contains(o), agent\n"
        "        obs, rew, term, trunc, _ = env.step({agent: rng.choice(np.flatnonzero(o['action_mask']))})\n"
        "        for a, r in rew.items(): total[a] += r\n"
        "        if term['__all__']: break\n"
        "    assert set(obs) == set(env.possible_agents) and sum(total.values()) == 0.0\n"
        "    assert max(total.values()) > 0 or all(v == 0 for v in total.values())\n"
        "obs, _ = env.reset(seed=1)\n"
        "[(agent, o)] = obs.items()\n"
        "illegal = int(np.flatnonzero(o['action_mask'] == 0)[0])\n"
        "_, rew, term, _, _ = env.step({agent: illegal})\n"
        "assert term['__all__'] and rew[agent] < 0\n"
        "print('ok')\n"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
