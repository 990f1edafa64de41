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


def test_a_last_line_cut_short_by_a_killed_run_is_left_out(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "metrics.csv").write_text(ROWS + "300,180.0,eval/win_ra")
    assert curve.main([str(tmp_path)]) == 0
    assert "step         300" not in capsys.readouterr().out


def test_a_metric_that_is_not_drawn_may_be_nan(tmp_path: Path) -> None:
    (tmp_path / "metrics.csv").write_text(ROWS + "200,120.0,losses/approx_kl,nan\n")
    assert curve.main([str(tmp_path)]) == 0


@pytest.mark.parametrize(("text", "message"), [
    (ROWS.replace("200,120.0,eval/win_rate_heuristic,0.55", "two hundred,120.0,eval/win_rate_heuristic,0.55"),
     "line 7 is not step,wall_s,key,value"),
    (ROWS.replace("0.55", "nan"), "line 7: a negative step or a number to draw that is not finite"),
    (ROWS.replace("-0.5", "inf"), "not finite"),
    (ROWS.replace("100,60.0,eval/win_rate_heuristic,", "-100,60.0,eval/win_rate_heuristic,"),
     "negative step"),
    (ROWS.replace("200,120.0,eval/win_rate_random,1.0", "200,120.0,eval/win_rate_random,1.0,extra"),
     "line 11 is not step,wall_s,key,value"),
    (ROWS.replace("200,120.0,eval/points_per_deal_heuristic,0.1", "200,120.0"), "line 10 is not"),
    ("a,b,c\n1,2,3\n", "is not a metrics file"),
    ("step,wall_s,key,value\n" + "1," * 10, "line 2 is not step,wall_s,key,value"),
])
def test_a_broken_metrics_file_is_a_one_line_error(tmp_path: Path, text: str, message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "metrics.csv").write_text(text + "100,1.0,charts/sps,1\n")  # the spoiled line is not the last
    assert curve.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary",
                                     b"step,wall_s,key,value\n1,2," + b"x" * 200_000 + b",3\n"])
def test_a_file_that_is_no_csv_is_a_one_line_error(tmp_path: Path, content: bytes,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "metrics.csv").write_bytes(content)
    assert curve.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
