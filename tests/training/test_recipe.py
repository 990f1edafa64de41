"""recipes/shipped_checkpoint.py: its dry run prints commands that the tools accept, in an order
where every input was made by an earlier step."""

from __future__ import annotations

import runpy
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from training import average, distill
from training.config import parse_command_line

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "recipes" / "shipped_checkpoint.py"


def dry_run(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, str(RECIPE), "--dry-run", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [line for line in out.stdout.splitlines() if not line.startswith("# step")]


def test_every_command_of_the_dry_run_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the commands name configs/long.yaml from the repository root
    lines = dry_run()
    assert len(lines) == 21
    kinds = {"train": 0, "distill": 0, "average": 0, "copy": 0}
    for line in lines:
        argv = shlex.split(line)
        if argv[:2] == ["python", "train.py"]:
            command = parse_command_line(argv[2:], ROOT / "configs" / "default.yaml")
            assert command.config.run_dir == "runs"
            kinds["train"] += 1
        elif argv[:3] == ["python", "-m", "training.distill"]:
            distill.parse(argv[3:])
            kinds["distill"] += 1
        elif argv[:3] == ["python", "-m", "training.average"]:
            assert len(average.parse(argv[3:]).inputs) == 4
            kinds["average"] += 1
        else:
            assert argv[:2] == ["mkdir", "-p"] and argv[3:4] == ["&&"] and argv[4] == "cp", line
            kinds["copy"] += 1
    assert kinds == {"train": 7, "distill": 7, "average": 1, "copy": 6}
    assert lines[-1].endswith("runs/shipped/ppo_default.pt --phase closed --endgame-from "
                              "runs/closed/cS.pt --half")


def test_each_step_uses_only_what_an_earlier_step_made() -> None:
    recipe = runpy.run_path(str(RECIPE), run_name="recipe")
    made: set[str] = set()
    chain = recipe["steps"]("R", "R/final.pt")
    for step in chain:
        assert set(step.inputs) <= made, (step.shell(), set(step.inputs) - made)
        made |= set(step.outputs)
    assert "R/final.pt" in chain[-1].outputs
    assert "R/avg/average.pt" in made  # the average is made, not taken from an old commit
    assert any("--resume" in s.argv and "stop_steps=18350080" in s.argv for s in chain)  # rp, stopped early


def test_from_and_other_folders() -> None:
    lines = dry_run("--from", "17", "--runs", "elsewhere", "--out", "x.pt")
    assert lines[0].startswith("python -m training.average elsewhere/avg/average.pt")
    assert len(lines) == 5 and lines[-1].startswith("python -m training.distill elsewhere/closed/cS.pt x.pt")
    out = subprocess.run([sys.executable, str(RECIPE), "--dry-run", "--from", "22"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "--from must be a step from 1 to 21" in out.stderr
    assert dry_run("--from", "17", "--to", "18", "--runs", "elsewhere", "--out", "x.pt") == lines[:2]
    out = subprocess.run([sys.executable, str(RECIPE), "--dry-run", "--from", "5", "--to", "4"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--to must be a step from --from (5) to 21, got 4" in out.stderr
