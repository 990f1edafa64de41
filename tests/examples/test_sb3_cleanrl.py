"""The RL-library examples run end to end (a few hundred steps, the same code path)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize("script, steps", [("sb3_maskable_ppo.py", 256), ("cleanrl_ppo.py", 256)])
def test_example_trains_and_reports_win_rates(script, steps):
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "--total-steps", str(steps), "--eval-games", "4"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "trained" in out.stdout
    for opponent in ("random", "heuristic"):
        assert f"vs {opponent}" in out.stdout and "95% CI" in out.stdout
