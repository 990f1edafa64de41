"""Smoke tests of the RL-library examples: a few hundred steps and a tiny evaluation, same code path.

Each library lives in its own virtual environment when it conflicts with the
main one (RLlib pins an older gymnasium): ``SIXTYSIX_<LIB>_PYTHON`` names that
environment's interpreter (``.ci/run`` sets them); without it the test runs
the example with this interpreter. A test is skipped, saying why, only when
its library cannot be imported by that interpreter.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.examples.checks import assert_compared

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
    assert_compared(out)


@pytest.mark.slow
def test_torchrl_selfplay_smoke():
    python = python_for("torchrl", "torchrl")
    out = run_example(python, "torchrl_selfplay.py", "--total-steps", "400", "--batch", "200",
                      "--eval-games", "2")
    assert_trained_and_evaluated(out)


TORCHRL_SPECS_CHECK = """
import logging
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs
import sixtysix_env
logging.getLogger("torchrl").setLevel(logging.WARNING)
for seed in range(20):
    for groups in ({"players": ["player_0", "player_1"]}, None):
        for episode in ("deal", "match"):
            env = PettingZooWrapper(env=sixtysix_env.env(episode=episode), use_mask=True,
                                    categorical_actions=True, group_map=groups, seed=seed)
            check_env_specs(env, seed=seed)
            # a deal can end in three moves (a false declaration): a random rollout past the end
            env.rollout(12, break_when_any_done=False)
print("ok")
"""


def test_torchrl_check_env_specs_passes_on_every_seed():
    """The AEC env's final masks are never all zeros, so TorchRL can sample on a finished episode."""
    python = python_for("torchrl", "torchrl")
    done = subprocess.run([python, "-c", TORCHRL_SPECS_CHECK], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


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
    returns = [(float(a), float(b)) for a, b in re.findall(r"return player_0 (\S+) player_1 (\S+)", out)]
    finite = [(a, b) for a, b in returns if math.isfinite(a)]
    assert finite and any(a != 0 for a, _ in finite), out[-2000:]  # each seat's, not the zero-sum total
    assert all(abs(a + b) < 1e-6 for a, b in finite), returns  # one table: the two seats of the same deals


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


TABLES_ENV_CHECK = """
import numpy as np
from sixtysix_env.rllib import SixtySixMultiAgentEnv, SixtySixTablesEnv, table_agent
n = 8
def table(agent): return int(agent[1:].split('_')[0])
env = SixtySixTablesEnv({'episode': 'deal', 'tables': n})
rng = np.random.default_rng(0)
for seed in range(3):
    obs, _ = env.reset(seed=seed)
    seeds = np.random.default_rng(seed).integers(2**31, size=n).tolist()
    total = {a: 0.0 for a in env.possible_agents}
    moves = {t: [] for t in range(n)}
    done, steps = set(), 0
    while True:
        assert sorted(table(a) for a in obs) == sorted(set(range(n)) - {table(a) for a in done})
        for a, o in obs.items():
            assert env.observation_spaces[a].contains(o), a
        acts = {a: int(rng.choice(np.flatnonzero(o['action_mask']))) for a, o in obs.items()}
        for a, act in acts.items():
            moves[table(a)].append(act)
        obs, rew, term, trunc, _ = env.step(acts)
        steps += 1
        for a, r in rew.items(): total[a] += r
        ended = {a for a, t in term.items() if t and a != '__all__'}
        assert not ended & done and all(table_agent(table(a), p) in ended
                                        for a in ended for p in ('player_0', 'player_1'))
        assert set(obs) >= ended
        done |= ended
        obs = {a: o for a, o in obs.items() if a not in ended}
        if term['__all__']: break
    assert done == set(env.possible_agents) and not obs and not trunc['__all__']
    for t in range(n):  # each table is exactly the one-table env, rewards to both players
        one = SixtySixMultiAgentEnv({'episode': 'deal'})
        o1, _ = one.reset(seed=seeds[t])
        got = {p: 0.0 for p in one.possible_agents}
        for act in moves[t]:
            [(p, _o)] = o1.items()
            o1, r1, term1, _, _ = one.step({p: act})
            for q, r in r1.items(): got[q] += r
        assert term1['__all__']
        assert got == {p: total[table_agent(t, p)] for p in got}, (t, got)
        assert got['player_0'] + got['player_1'] == 0.0
    assert any(v != 0 for v in total.values())
obs, _ = env.reset(seed=1)
a0 = table_agent(0, next(a for a in obs if a.startswith('t0_'))[3:])
acts = {a: int(np.flatnonzero(o['action_mask'])[0]) for a, o in obs.items()}
acts[a0] = int(np.flatnonzero(obs[a0]['action_mask'] == 0)[0])
_, rew, term, _, _ = env.step(acts)
assert rew[a0] < 0 and term[a0] and not term['__all__'] and not term.get('t1_player_0')
print('ok')
"""


def test_rllib_tables_env_plays_whole_episodes():
    python = python_for("rllib", "ray.rllib")
    done = subprocess.run([python, "-c", TABLES_ENV_CHECK], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


@pytest.mark.slow
def test_rllib_ppo_tables_env_smoke():
    python = python_for("rllib", "ray.rllib")
    out = run_example(python, "rllib_ppo.py", "--total-steps", "600", "--batch", "16", "--env-runners", "1",
                      "--envs-per-runner", "1", "--tables", "8", "--eval-games", "2")
    assert_trained_and_evaluated(out)
