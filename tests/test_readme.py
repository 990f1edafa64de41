"""The README's claims hold: its commands, snippets, links and numbers match the code."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agents.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
FLAT = " ".join(TEXT.split())  # the prose with its line breaks as spaces, for the claims quoted below
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def install_commands() -> dict[str, str]:
    """The README's two indented one-line commands, by what they end with."""
    lines = [line.strip() for line in TEXT.splitlines() if line.startswith("    python3 -m venv")]
    return {"train": next(c for c in lines if c.endswith("train.py")),
            "tests": next(c for c in lines if "pytest" in c)}


def code_lines() -> list[str]:
    """Every line of the README's fenced code blocks."""
    return [line for block in re.findall(r"```[a-z]*\n(.*?)```", TEXT, re.S) for line in block.splitlines()]


def test_readme_is_short():
    assert len(TEXT.splitlines()) <= 250


def test_readme_api_example_runs():
    match = re.search(r"## The API in 20 lines\n\n```python\n(.*?)```", TEXT, re.S)
    assert match, "README lost its API example"
    assert len(match.group(1).splitlines()) <= 20
    namespace: dict = {}
    exec(compile(match.group(1), str(README), "exec"), namespace)
    assert namespace["env"].unwrapped.game_state.match_over
    assert namespace["world"].hands[0] == namespace["state"].hands[0]


@pytest.mark.parametrize("job", ["train", "tests"])
def test_readme_commands_install_cpu_torch_then_the_project(job):
    steps = [shlex.split(s) for s in install_commands()[job].split("&&")]
    assert steps[0] == ["python3", "-m", "venv", ".venv"]
    assert steps[1] == [".venv/bin/pip", "install", "torch", "--index-url", CPU_INDEX]
    assert steps[2][:3] == [".venv/bin/pip", "install", "-e"]
    extras = re.fullmatch(r"\.\[(.*)\]", steps[2][3]).group(1).split(",")
    pyproject = (ROOT / "pyproject.toml").read_text()
    section = pyproject.split("[project.optional-dependencies]")[1].split("\n[")[0]
    declared = re.findall(r"^([\w-]+) = \[", section, re.M)
    assert all(e in declared for e in extras), extras
    assert len(steps) == 4


def test_readme_test_command_is_what_ci_runs():
    run = install_commands()["tests"].split("&&")[-1].strip()
    assert run == ".venv/bin/python -m pytest -q"
    assert ".venv/bin/python -m pytest -q" in (ROOT / ".ci" / "run").read_text()


def test_readme_train_command_prints_the_promised_summary(tmp_path):
    """`python train.py` on the default config, made tiny by overrides: the summary the README describes."""
    assert install_commands()["train"].split("&&")[-1].strip() == ".venv/bin/python train.py"
    tiny = ["total_steps=256", "num_envs=8", "rollout_steps=32", "eval_random_games=2",
            "eval_heuristic_games=2", "teacher_workers=1", "progress=false", "tensorboard=false",
            f"run_dir={tmp_path}"]
    r = subprocess.run([sys.executable, "train.py", *tiny], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    default = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    assert default["eval_pimc_games"] == 0 and "against `random` (20 matches)" in FLAT
    assert default["eval_random_games"] == 20 and "`heuristic` (200 matches)" in FLAT
    assert default["eval_heuristic_games"] == 200
    assert "vs random" in out and "vs heuristic" in out
    pimc = [line for line in out.splitlines() if line.startswith("vs pimc")]
    assert pimc and all("sixtysix arena" in line and "%" not in line for line in pimc)  # a command, no result
    assert "printed `vs pimc` command" in FLAT
    assert "checkpoint:" in out


def test_readme_sixtysix_commands_parse():
    """Every `sixtysix ...` line of the README is accepted by the CLI's parser."""
    commands = [line.split("#")[0].strip() for line in code_lines() if line.startswith("sixtysix ")]
    assert len(commands) >= 10
    parser = build_parser()
    for command in commands:
        parser.parse_args(shlex.split(command)[1:])


def test_readme_links_exist():
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", TEXT)
    assert "docs/rules.md" in links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing


def test_readme_long_config_is_what_it_says():
    """`configs/long.yaml`: "the same recipe as the default config for 6M steps with a wider network"."""
    default = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    long = yaml.safe_load((ROOT / "configs" / "long.yaml").read_text())
    assert "`configs/long.yaml` is the first stage of the shipped checkpoint" in FLAT
    assert long["total_steps"] == 6_000_000 and "for 6M steps with a wider network" in FLAT
    assert long["hidden"][0] > default["hidden"][0]
    for key in ("teacher", "assist", "episode", "learning_rate", "ent_coef", "opp_heuristic"):
        assert long[key] == default[key], key
