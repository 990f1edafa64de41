"""recipes/expert_from_scratch.py: its dry run prints commands the tools accept, each input made by
an earlier step, the training command one that train.py hands to the expert loop."""

from __future__ import annotations

import runpy
import shlex
import subprocess
import sys
from pathlib import Path

from agents.cli import build_parser
from training.config import parse_command_line
from training.expert.config import ExpertConfig, requested

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "recipes" / "expert_from_scratch.py"


def test_the_dry_run_prints_commands_the_tools_accept(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = subprocess.run([sys.executable, str(RECIPE), "--dry-run"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [shlex.split(line) for line in out.stdout.splitlines() if not line.startswith("# step")]
    train, curve, copy, arena = lines
    assert train[:2] == ["python", "train.py"] and requested(train[2:], ROOT / "configs" / "default.yaml")
    cfg = parse_command_line(train[2:], ROOT / "configs" / "default.yaml", ExpertConfig).config
    assert cfg.name == "expert_long" and cfg.run_dir == "runs" and cfg.backend == "ray"
    assert curve == ["python", "-m", "training.curve", "runs/expert_long"]
    assert copy[:2] == ["mkdir", "-p"] and copy[-2:] == ["runs/expert_long/last.pt", "runs/expert/expert.pt"]
    assert arena[:4] == ["python", "-m", "agents.cli", "arena"]
    args = build_parser().parse_args(arena[3:])
    assert args.games == 400 and args.bots == ["ppo:runs/expert/expert.pt,assist=rules", "pimc"]


def test_each_step_uses_only_what_an_earlier_step_made(monkeypatch):
    monkeypatch.syspath_prepend(str(RECIPE.parent))
    chain = runpy.run_path(str(RECIPE), run_name="recipe")["steps"]("R", "R/out.pt")
    made: set[str] = set()
    for step in chain:
        assert set(step.inputs) <= made, step.shell()
        made |= set(step.outputs)
    assert "R/out.pt" in made
