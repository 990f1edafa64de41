"""The README's claims hold: its commands, snippets, links and numbers match the code."""

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sixtysix_cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
FLAT = " ".join(TEXT.split())  # the prose with its line breaks as spaces, for the claims quoted below
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# torch: the CPU build from PyTorch's index, failing fast where it cannot be reached, else the standard
# registry
TORCH_CPU = [".venv/bin/pip", "install", "torch", "--index-url", CPU_INDEX,
             "--retries", "1", "--timeout", "10"]
TORCH_FALLBACK = [".venv/bin/pip", "install", "torch"]
_spec = importlib.util.spec_from_file_location("readme_numbers", ROOT / "bench" / "readme_numbers.py")
readme_numbers = importlib.util.module_from_spec(_spec)  # bench/ holds scripts, not a package
_spec.loader.exec_module(readme_numbers)


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
    assert namespace["game"].match_winner in (0, 1)  # the snippet shows who won
    assert namespace["world"].hands[0] == namespace["state"].hands[0]


@pytest.mark.parametrize("job", ["train", "tests"])
def test_readme_commands_install_cpu_torch_then_the_project(job):
    steps = [s.strip() for s in install_commands()[job].split("&&")]
    assert shlex.split(steps[0]) == ["python3", "-m", "venv", ".venv"]
    group = re.fullmatch(r"\((.*)\)", steps[1])
    assert group, steps[1]
    assert [shlex.split(alt) for alt in group.group(1).split("||")] == [TORCH_CPU, TORCH_FALLBACK]
    steps = [shlex.split(s) for s in steps]
    assert steps[2][:3] == [".venv/bin/pip", "install", "-e"]
    extras = re.fullmatch(r"\.\[(.*)\]", steps[2][3]).group(1).split(",")
    pyproject = (ROOT / "pyproject.toml").read_text()
    section = pyproject.split("[project.optional-dependencies]")[1].split("\n[")[0]
    declared = re.findall(r"^([\w-]+) = \[", section, re.M)
    assert all(e in declared for e in extras), extras
    assert len(steps) == 4


def test_readme_test_command_is_what_ci_runs():
    run = install_commands()["tests"].split("&&")[-1].strip()
    assert run == ".venv/bin/python -m pytest -q -n 2 --dist loadfile"
    assert f"\n{run}\n" in (ROOT / ".ci" / "run").read_text()


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


@pytest.mark.parametrize("cpu_index_reachable", [True, False])
def test_readme_install_line_falls_back_when_the_cpu_index_fails(tmp_path, cpu_index_reachable):
    """The train line run by bash with stand-ins for python3 and pip: torch from the CPU index, or, where
    that fails, the plain `pip install torch`; then the project, then train.py, whichever way torch came."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    fail = "*--index-url*) exit 1;;" if not cpu_index_reachable else ""
    (bin_dir / "python3").write_text(f"""#!/bin/sh
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"
  printf '#!/bin/sh\\necho "pip $*" >> {log}\\ncase "$*" in {fail} esac\\n' > "$3/bin/pip"
  printf '#!/bin/sh\\necho "python $*" >> {log}\\n' > "$3/bin/python"
  chmod +x "$3/bin/pip" "$3/bin/python"; fi
""")
    (bin_dir / "python3").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    r = subprocess.run(["bash", "-c", install_commands()["train"]], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    ran = log.read_text().splitlines()
    torch = [" ".join(["pip", *TORCH_CPU[1:]])] + ([] if cpu_index_reachable else ["pip install torch"])
    assert ran == [*torch, 'pip install -e .[dev]', "python train.py"]


def test_readme_says_how_to_run_the_later_commands():
    """Activate the venv, or the venv's path: said before the first bare `sixtysix`/`python`/`pip` line."""
    first_bare = min(TEXT.index(f"\n{cmd} ") for cmd in ("sixtysix", "python", "pip"))
    assert ". .venv/bin/activate" in TEXT[:first_bare]
    assert "`.venv/bin/sixtysix`" in TEXT[:first_bare]


def test_release_check_installs_torch_as_the_readme_says():
    """`.ci/release-check` installs the wheel's torch with the README's two pip commands, then the wheel."""
    check = (ROOT / ".ci" / "release-check").read_text()
    pip = '"$WORK/venv/bin/pip"'
    cpu = " ".join([pip, *TORCH_CPU[1:]])
    fallback = " ".join([pip, *TORCH_FALLBACK[1:]])
    plain = check.replace(" -q", "")
    assert f"{cpu} || {fallback}" in plain
    assert plain.index(cpu) < plain.index(f'{pip} install "$WHEEL"')


NUMBERS = json.loads((ROOT / "docs" / "readme_numbers.json").read_text())


def test_readme_numbers_come_from_the_measurement_file():
    """The README's counts and times are bench/readme_numbers.py's sentences from docs/readme_numbers.json."""
    for phrase in readme_numbers.phrases(NUMBERS).values():
        assert phrase in FLAT, f"README lacks {phrase!r}: run python bench/readme_numbers.py --write"
    for job in ("suite", "train"):
        record = NUMBERS[job]
        assert {"seconds", "machine", "load", "date", "command"} <= set(record), job
        assert record["seconds"] > 0 and record["machine"] and record["load"]


@pytest.mark.slow
def test_readme_test_counts_are_live():
    """The tests and slow tests `pytest --collect-only` finds now are the README's, give or take a few."""
    live = readme_numbers.count_tests(sys.executable)
    quoted = NUMBERS["tests"]
    assert abs(live["tests"] - quoted["tests"]) <= 25 and abs(live["slow"] - quoted["slow"]) <= 4, \
        f"live {live['tests']} tests, {live['slow']} slow; README {quoted['tests']}, {quoted['slow']}: " \
        "run python bench/readme_numbers.py --write"
