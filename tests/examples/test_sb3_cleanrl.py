"""The RL-library examples run end to end (a few hundred steps, the same code path)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.examples.checks import assert_compared

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
    assert_compared(out.stdout)


def test_evaluate_plays_trained_and_untrained_on_the_same_deals(capsys):
    """One policy passed as both: the same deals give the same points, printed per deal."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from policy_bot import evaluate
    finally:
        sys.path.remove(str(ROOT / "examples"))
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(312, 32)).astype(np.float32)
    results = evaluate(lambda obs, mask: obs @ weights, lambda obs, mask: obs @ weights, 6, name="probe")
    for opponent in ("random", "heuristic"):
        a, b = results[opponent]["trained"], results[opponent]["untrained"]
        assert a.unit == "deal" and a.games == b.games == 6
        assert a.points_per_deal == b.points_per_deal and a.deal_win_rate == b.deal_win_rate
    assert_compared(capsys.readouterr().out)
