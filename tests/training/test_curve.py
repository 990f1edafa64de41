"""``python -m training.curve``: a run's evaluations as a picture and a table."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from training import curve

ROWS = """step,wall_s,key,value
100,6.0,charts/sps,1000
100,60.0,eval/win_rate_heuristic,0.25
100,60.0,eval/win_rate_lo_heuristic,0.2
100,60.0,eval/win_rate_hi_heuristic,0.3
100,60.0,eval/points_per_deal_heuristic,-0.5
200,120.0,eval/win_rate_heuristic,0.55
200,120.0,eval/win_rate_lo_heuristic,0.5
200,120.0,eval/win_rate_hi_heuristic,0.6
200,120.0,eval/points_per_deal_heuristic,0.1
200,120.0,eval/win_rate_random,1.0
200,120.0,eval/win_rate_lo_random,0.9
200,120.0,eval/win_rate_hi_random,1.0
200,120.0,eval/points_per_deal_random,2.0
"""


def test_curve_draws_every_evaluation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "metrics.csv").write_text(ROWS)
    assert curve.main([str(tmp_path)]) == 0
    with Image.open(tmp_path / "learning_curve.png") as img:
        assert img.size[0] > 500
    out = capsys.readouterr().out
    assert "vs heuristic  step         100     1.0 min  won  25.0% [20.0, 30.0]  -0.500 points/deal" in out
    assert "won  55.0%" in out and "vs random" in out
    evals = curve.read_evaluations(tmp_path / "metrics.csv")
    assert [r["step"] for r in evals["heuristic"]] == [100, 200] and len(evals["random"]) == 1


@pytest.mark.parametrize("text", [None, "step,wall_s,key,value\n5,1.0,charts/sps,3\n"])
def test_curve_without_evaluations_is_a_one_line_error(tmp_path: Path, text: str | None,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    if text is not None:
        (tmp_path / "metrics.csv").write_text(text)
    assert curve.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_a_run_that_logs_its_cpu_time_is_drawn_against_it(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "metrics.csv").write_text(ROWS + "100,60.0,charts/cpu_minutes,7.5\n")
    assert curve.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "step         100     7.5 CPU min  won  25.0%" in out  # on the CPU clock
    assert "step         200     2.0 CPU min  won  55.0%" in out  # no CPU time logged there: wall time
