"""The package boundary: the rules import the standard library only, the adapters load
on first use, and the environments are registered with gymnasium and pettingzoo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = (
    "cards", "actions", "engine", "deals", "scoring", "seeding", "knowledge", "variants", "variant_rules",
    "four", "four_deals", "four_knowledge", "episodes", "contract",
)  # fmt: skip


def run_python(code: str, *flags: str) -> str:
    """Run ``code`` in a fresh interpreter with the repository first on ``sys.path``."""
    prelude = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    done = subprocess.run(
        [sys.executable, *flags, "-c", prelude + code], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_rules_import_the_standard_library_only():
    """``-I -S``: no site-packages, so numpy, gymnasium and pettingzoo are absent."""
    out = run_python(
        "import importlib, importlib.util\n"
        "for name in ('numpy', 'gymnasium', 'pettingzoo'):\n"
        "    assert importlib.util.find_spec(name) is None, name\n"
        f"for m in {RULES!r}:\n"
        "    importlib.import_module('sixtysix_env.' + m)\n"
        "import sixtysix_env\n"
        "s = sixtysix_env.deal(3)\n"
        "s.apply(s.legal_actions()[0]); sixtysix_env.view(s, 0).determinize(1)\n"
        "foreign = sorted({n.split('.')[0] for n in sys.modules}\n"
        "                 - set(sys.stdlib_module_names) - {'sixtysix_env', '__main__'})\n"
        "print(foreign)\n",
        "-I",
        "-S",
    )
    assert out.strip() == "[]"


def test_import_leaves_the_adapters_until_first_use():
    out = run_python(
        "import sixtysix_env\n"
        "adapters = ('aec', 'gym_env', 'vector', 'observation')\n"
        "print([a for a in adapters if 'sixtysix_env.' + a in sys.modules])\n"
        "from sixtysix_env.aec import raw_env\n"
        "print(sixtysix_env.env.__module__, sixtysix_env.SixtySixGymEnv.__module__, sixtysix_env.OBS_SIZE)\n"
    )
    assert out.splitlines() == ["[]", "sixtysix_env.aec sixtysix_env.gym_env 312"]


def test_lazy_names_and_errors():
    import sixtysix_env

    assert {"env", "SixtySixGymEnv", "VectorEnv", "encode"} <= set(dir(sixtysix_env))
    assert sixtysix_env.VectorEnv(1).num_envs == 1
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sixtysix_env.nope  # noqa: B018


def test_registered_after_import_in_a_fresh_process():
    out = run_python(
        "import sixtysix_env, gymnasium, pettingzoo.env_registry.registration as r\n"
        "e = gymnasium.make('SixtySix-v0', episode='deal')\n"
        "print(e.reset(seed=0)[0].shape, 'sixtysix-v0' in r.aec_registry)\n"
    )
    assert out.strip() == "(312,) True"
