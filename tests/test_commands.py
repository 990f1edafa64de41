"""Smoke test of every command a user runs: each answers --help with exit code 0."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SIXTYSIX = [sys.executable, "-m", "agents.cli"]


@pytest.mark.parametrize("argv", [
    [*SIXTYSIX, "--help"],
    *([*SIXTYSIX, c, "--help"] for c in ("arena", "replay", "bots", "bench", "leaderboard", "play", "serve")),
    [sys.executable, "-m", "agents.arena", "--help"],
    [sys.executable, "train.py", "--help"],
    [sys.executable, "-m", "training.distill", "--help"],
    [sys.executable, "-m", "training.average", "--help"],
    [sys.executable, "-m", "training.curve", "--help"],
    [sys.executable, "-m", "tables.terminal", "--help"],
    [sys.executable, "-m", "tables.web", "--help"],
])
def test_every_command_answers_help(argv):
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout.lower() or "python train.py" in r.stdout


def test_sixtysix_bots_lists_the_ladder():
    r = subprocess.run([*SIXTYSIX, "bots"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert all(b in r.stdout for b in ("random", "heuristic", "pimc", "ismcts", "ppo", "exec"))
