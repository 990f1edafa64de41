"""recipes/expert_from_scratch.py: its dry run prints commands the tools accept, each input made by
an earlier step; all four phases run end to end on tiny configs, and a second run goes on where the
first stopped (phase 1 done is not redone, a started run is resumed)."""

from __future__ import annotations

import runpy
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from agents.core import checkpoint
from sixtysix_cli import build_parser
from training import distill
from training.config import Config, parse_command_line
from training.expert.config import ExpertConfig, requested

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "recipes" / "expert_from_scratch.py"
DEFAULT = ROOT / "configs" / "default.yaml"
SHIPPED = ROOT / "agents" / "checkpoints" / "ppo_default.pt"


def recipe(*args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, str(RECIPE), *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def commands(stdout: str) -> list[list[str]]:
    return [shlex.split(line) for line in stdout.splitlines() if not line.startswith("# step")]


def test_the_dry_run_prints_commands_the_tools_accept(monkeypatch):
    monkeypatch.chdir(ROOT)
    dry_run = recipe("--dry-run", "--runs", "R").stdout
    selfplay, freeze, warm, rollout, curve, *phase4, arena = commands(dry_run)
    assert selfplay[:2] == ["python", "train.py"] and not requested(selfplay[2:], DEFAULT)
    ppo: Config = parse_command_line(selfplay[2:], DEFAULT).config
    assert (ppo.name, ppo.run_dir, ppo.engine, ppo.teacher, ppo.assist) == ("selfplay", "R", "batched", "",
                                                                            "none")
    assert ppo.stop_steps == 27_000_000 and ppo.time_limit == 0
    assert freeze[:2] == ["mkdir", "-p"] and freeze[-2:] == ["R/selfplay/last.pt", "R/selfplay/final.pt"]
    assert warm[:2] == ["python", "train.py"] and requested(warm[2:], DEFAULT)
    cfg = parse_command_line(warm[2:], DEFAULT, ExpertConfig).config
    assert (cfg.name, cfg.run_dir, cfg.init) == ("expert_warm", "R", "R/selfplay/final.pt")
    assert (cfg.hidden, cfg.critic_hidden) == (ppo.hidden, ppo.critic_hidden)  # init needs the same layers
    assert rollout[:2] == ["python", "train.py"] and requested(rollout[2:], DEFAULT)
    third = parse_command_line(rollout[2:], DEFAULT, ExpertConfig).config
    assert (third.name, third.init, third.leaf) == ("expert_rollout", "R/expert_warm/last.pt", "rollout")
    assert (third.hidden, third.critic_hidden) == (cfg.hidden, cfg.critic_hidden)
    assert curve == ["python", "-m", "training.curve", "R/expert_rollout"]
    assert [c[:3] for c in phase4] == [["python", "-m", "training.distill"]] * 6
    eg1, eg2, eg_fit, cl1, cl2, cl_fit = (distill.parse(c[3:]) for c in phase4)
    assert {a.checkpoint for a in (eg1, eg2, eg_fit, cl1, cl2)} == {"R/expert_rollout/last.pt"}
    assert {(a.phase, a.labels) for a in (eg1, eg2, eg_fit)} == {("spent", "uniform")}
    assert {(a.phase, a.labels) for a in (cl1, cl2, cl_fit)} == {("closed", "guided")}
    assert [a.seed for a in (eg1, eg2, cl1, cl2)] == [1, 2, 3, 4] and eg1.deals == cl1.deals == 100_000
    assert eg_fit.data == eg1.data + eg2.data and cl_fit.data == cl1.data + cl2.data  # their own rows
    assert len({str(f) for a in (eg1, eg2, cl1, cl2) for f in a.data}) == 4
    assert cl_fit.checkpoint == str(eg_fit.out) and str(cl_fit.out) == "R/expert/expert.pt"  # both kept
    assert arena[:4] == ["python", "-m", "sixtysix_cli", "arena"]
    args = build_parser().parse_args(arena[3:])
    assert args.games == 400 and args.bots == ["ppo:R/expert/expert.pt,assist=rules", "pimc"]
    assert not args.resume


def test_each_step_uses_only_what_an_earlier_step_made(monkeypatch):
    monkeypatch.syspath_prepend(str(RECIPE.parent))
    chain = runpy.run_path(str(RECIPE), run_name="recipe")["steps"]("R", "R/out.pt")
    made: set[str] = set()
    for step in chain:
        assert set(step.inputs) <= made, step.shell()
        made |= set(step.outputs)
    assert "R/out.pt" in made


def tiny(tmp_path: Path, name: str, **keys) -> str:
    """configs/<name>.yaml with its sizes shrunk to seconds of work."""
    data = yaml.safe_load((ROOT / "configs" / f"{name}.yaml").read_text())
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({**data, "hidden": [16], "critic_hidden": [16], "progress": False,
                                    "tensorboard": False, **keys}))
    return str(path)


@pytest.mark.slow  # three runs of the recipe: PPO, two expert iterations, the curve, the endgame (about 40 s)
def test_all_phases_run_and_a_second_run_goes_on_where_the_first_stopped(tmp_path):
    runs = tmp_path / "runs"
    flags = ["--runs", str(runs), "--selfplay-steps", "512",
             "--selfplay-config", tiny(tmp_path, "selfplay", num_envs=16, rollout_steps=16, total_steps=4096,
                                       eval_random_games=0, eval_heuristic_games=0),
             "--expert-config", tiny(tmp_path, "expert_warm", deals=2, chunk=1, worlds=1, iterations=1,
                                     batch_size=8, backend="local", value_positions=3, eval_heuristic_games=2,
                                     eval_pimc_games=0),
             "--rollout-config", tiny(tmp_path, "expert_rollout", deals=2, chunk=1, worlds=1, iterations=1,
                                      batch_size=8, backend="local", eval_heuristic_games=2,
                                      eval_pimc_games=0),
             "--distill-deals", "20"]
    recipe(*flags, "--to", "1")  # phase 1 only: as if the recipe had stopped after it
    phase1 = checkpoint.load(runs / "selfplay" / "last.pt", resumable=True)
    assert phase1["global_step"] >= 512 and not (runs / "selfplay" / "final.pt").exists()
    out = recipe(*flags, "--to", "5").stdout
    assert "--resume" in commands(out)[0]  # phase 1 resumed, at its end already: nothing trained
    again = checkpoint.load(runs / "selfplay" / "last.pt", resumable=True)
    assert again["global_step"] == phase1["global_step"]
    final = runs / "selfplay" / "final.pt"
    warm = checkpoint.load(runs / "expert_warm" / "last.pt", resumable=True)
    assert warm["update"] == 1 and warm["config"]["init"] == str(final)
    assert warm["started_from"]["path"] == str(final) and warm["started_from"]["algorithm"] == "ppo"
    assert warm["started_from"]["global_step"] == phase1["global_step"]
    third = checkpoint.load(runs / "expert_rollout" / "last.pt", resumable=True)
    assert third["update"] == 1 and third["config"]["leaf"] == "rollout"
    assert third["started_from"]["path"] == str(runs / "expert_warm" / "last.pt")
    assert (runs / "expert_rollout" / "learning_curve.png").is_file()
    assert not (runs / "endgame").exists()
    # Phase 4 on a policy that reaches endgames (the tiny one closes the talon in every deal):
    shutil.copyfile(SHIPPED, runs / "expert_rollout" / "last.pt")
    recipe(*flags, "--from", "6", "--to", "11")
    made, shipped = checkpoint.load(runs / "expert" / "expert.pt"), checkpoint.load(SHIPPED)
    assert made["policy"].keys() == shipped["policy"].keys()
    assert all(torch.equal(made["policy"][k], shipped["policy"][k]) for k in shipped["policy"])
    for key in ("endgame", "closed"):  # its own networks, fitted on phase 4's rows
        first = next(iter(shipped[key]["state"]))
        assert not torch.equal(made[key]["state"][first].float(), shipped[key]["state"][first].float())
    assert made["distill_closed"]["labels"] == "guided"
    out = recipe(*flags, "--dry-run").stdout
    assert "# step 1/12: done" in out and "# step 2/12: done" in out and "# step 11/12: done" in out
    assert commands(out)[0][-1] == "--resume"  # phase 2 goes on from its last.pt
