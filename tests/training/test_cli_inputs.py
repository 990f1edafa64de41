"""The training commands on inputs that are mistyped or not what they claim: a config nested too
deeply for PyYAML or holding a number too long to convert, a chart ``--out`` of a format matplotlib
would refuse only at the end, a metrics or row file that is a fifo (read in a subprocess with a
timeout: a regression fails instead of hanging), and a distill ``OUT`` that cannot be written or
would overwrite an input. Each is one named line and exit code 2, before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agents.core.checkpoint import DEFAULT_CHECKPOINT
from training import average, curve, distill
from training.config import ConfigError, load_config, parse_overrides

ROOT = Path(__file__).resolve().parents[2]


def one_error(argv: list[str], needle: str) -> None:
    r = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    errors = [line for line in r.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and needle in errors[0], r.stderr


# ------------------------------------------------------------------ train.py --config
@pytest.mark.parametrize("text, needle", [
    ("hidden: " + "[" * 5000 + "]" * 5000 + "\n", "nests lists or mappings too deeply"),
    ("total_steps: " + "9" * 5000 + "\n", "holds a value that cannot be read"),
])
def test_a_config_python_cannot_build_is_a_named_error(tmp_path: Path, text: str, needle: str,
                                                      train: ModuleType,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=needle):
        load_config(path)
    assert train.main(["--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: config file {path} ") and err.count("\n") == 1, err


@pytest.mark.parametrize("value", ["[" * 5000 + "]" * 5000, "9" * 5000])
def test_an_override_python_cannot_build_is_a_named_error(value: str) -> None:
    with pytest.raises(ConfigError, match="cannot read the value '"):
        parse_overrides([f"--hidden={value}" if value.startswith("[") else f"total_steps={value}"])


# ------------------------------------------------------------------ training.curve
@pytest.mark.parametrize("out, needle", [
    ("x.txt", "--out x.txt must end in .png, .svg or .pdf"),
    ("", "--out '' is empty: name a file"),
    (".", "--out . is a folder"),
    ("missing/x.png", "--out missing/x.png is in "),
])
def test_curve_refuses_an_out_it_cannot_draw_before_reading(tmp_path: Path, out: str, needle: str,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert curve.main([str(tmp_path / "no-such-run"), "--out", out]) == 2  # --out first, then the run
    err = capsys.readouterr().err
    assert err.startswith(f"error: {needle}") and err.count("\n") == 1, err


def test_curve_takes_the_vector_formats() -> None:
    for name in ("a.svg", "b.PDF", "c.png"):
        curve.check_out(name)


def test_curve_refuses_a_fifo_for_metrics_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "metrics.csv")
    one_error(["-m", "training.curve", str(tmp_path)], "not a regular file")


# ------------------------------------------------------------------ training.distill
def test_distill_refuses_a_fifo_for_rows_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "rows.npz"
    os.mkfifo(fifo)
    one_error(["-m", "training.distill", str(DEFAULT_CHECKPOINT), str(tmp_path / "o.pt"), "--data", str(fifo),
               "--no-progress"], f"--data {fifo}: not a regular file")


@pytest.mark.parametrize("case", ["empty", "folder", "below a file", "the checkpoint", "a --data input",
                                  "the --data to write"])
def test_distill_checks_out_before_collecting(tmp_path: Path, case: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "rows.npz"
    rows.write_bytes(b"not read: OUT is refused first")
    data = ["--data", str(rows)]
    out = {"empty": "", "folder": str(tmp_path), "below a file": str(rows / "x.pt"),
           "the checkpoint": str(DEFAULT_CHECKPOINT), "a --data input": str(rows),
           "the --data to write": str(tmp_path / "new.npz")}[case]
    if case == "the --data to write":
        data = ["--data", out]
    needle = {"empty": "OUT '' is empty", "folder": "is a folder", "below a file": "cannot be made",
              "the checkpoint": "is the CHECKPOINT file", "a --data input": f"is the --data {rows} file",
              "the --data to write": "OUT and --data name the same file"}[case]
    assert distill.main([str(DEFAULT_CHECKPOINT), out, *data, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and needle in err and err.count("\n") == 1, err
    assert not (tmp_path / "new.npz").exists()


# ------------------------------------------------------------------ training.average
@pytest.mark.parametrize("case, needle", [("folder", "is a folder"), ("fifo", "is not a regular file"),
                                          ("below a file", "cannot be made"),
                                          ("the --endgame-from", "is the --endgame-from file")])
def test_average_checks_out_before_reading_the_inputs(tmp_path: Path, case: str, needle: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "eg.pt"
    source.write_bytes(b"not read")
    out = {"folder": tmp_path, "fifo": tmp_path / "fifo.pt", "below a file": source / "x.pt",
           "the --endgame-from": source}[case]
    if case == "fifo":
        os.mkfifo(out)
    with pytest.raises(SystemExit):
        average.parse([str(out), *[str(DEFAULT_CHECKPOINT)] * 2, "--endgame-from", str(source)])
    err = capsys.readouterr().err
    assert needle in err and "error:" in err
