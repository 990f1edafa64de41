"""Smoke test of every command a user runs: each answers --help with exit code 0."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SIXTYSIX = [sys.executable, "-m", "sixtysix_cli"]


@pytest.mark.parametrize("argv", [
    [*SIXTYSIX, "--help"],
    *([*SIXTYSIX, c, "--help"] for c in ("arena", "replay", "bots", "bench", "leaderboard", "play", "serve")),
    [sys.executable, "-m", "agents.arena", "--help"],
    [sys.executable, "train.py", "--help"],
    [sys.executable, "-m", "training.distill", "--help"],
    [sys.executable, "-m", "training.average", "--help"],
    [sys.executable, "-m", "training.curve", "--help"],
    [sys.executable, "-m", "tables.terminal", "--help"],
    [sys.executable, "-m", "tables.web", "--help"],
])
def test_every_command_answers_help(argv):
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout.lower() or "python train.py" in r.stdout


def test_sixtysix_bots_lists_the_ladder():
    r = subprocess.run([*SIXTYSIX, "bots"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert all(b in r.stdout for b in ("random", "heuristic", "pimc", "ismcts", "ppo", "exec"))


def _fails_cleanly(argv: list[str], needle: str) -> None:
    """``argv`` exits 2 with one named error line on stderr and no traceback."""
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if "error:" in line]  # after argparse's usage lines
    assert len(errors) == 1 and needle in errors[0], r.stderr


@pytest.mark.parametrize("args, needle", [
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--port", "-1"], "--port"),
    (["serve", "--threads", "9" * 12], "--threads"),
    (["play", "--delay", "nan"], "--delay"),
    (["play", "--delay", "inf"], "--delay"),
    (["play", "--delay", "-1"], "--delay"),
    (["arena", "random", "random", "--games", "9" * 30], "--games"),
])
def test_out_of_range_numbers_are_named_errors(args, needle):
    _fails_cleanly([*SIXTYSIX, *args], needle)


def test_play_refuses_a_records_path_it_could_not_save_to_before_the_game(tmp_path):
    """Found at the end, the game would be lost: a folder or a fifo is refused up front."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (tmp_path, fifo):
        _fails_cleanly([*SIXTYSIX, "play", "--records", str(path)], str(path))


def test_bench_leaves_no_folder_behind_after_a_bad_option(tmp_path):
    for i, args in enumerate((["--workers", "0"], ["--max-games", "-1"], ["pimc:worlds=abc"])):
        out = tmp_path / f"b{i}"
        spec = [] if args[0].startswith("pimc") else ["random"]
        _fails_cleanly([*SIXTYSIX, "bench", *spec, *args, "--out", str(out)], args[0].split("=")[0])
        assert not out.exists(), args


@pytest.mark.parametrize("text, needle", [
    ("seed: 1\nseed: 2\n", "seed"),                        # a duplicate key: which one did you mean?
    ("!!python/object/apply:os.system ['true']\n", "YAML"),  # one line, not PyYAML's four
])
def test_train_config_errors_are_one_named_line(text, needle, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(text)
    r = subprocess.run([sys.executable, "train.py", "--config", str(config)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert needle in r.stderr and str(config) in r.stderr, r.stderr


def test_train_and_bench_refuse_a_fifo_without_blocking_on_it(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    _fails_cleanly([sys.executable, "train.py", "--config", str(fifo)], "not a regular file")
    out = tmp_path / "out"
    _fails_cleanly([*SIXTYSIX, "bench", "random", "--ladder", str(fifo), "--out", str(out)],
                   "not a regular file")
    assert not out.exists()


@pytest.mark.parametrize("text", ["[1]", "{}", '{"ratings": 5}', "{", '{"ratings": {}, "move_time": 1, '
                                  '"seed": 1, "anchor": ["random", 0]}'])
def test_bench_names_a_ladder_file_that_is_not_one(text, tmp_path):
    ladder = tmp_path / "ladder.json"
    ladder.write_text(text)
    _fails_cleanly([*SIXTYSIX, "bench", "random", "--ladder", str(ladder), "--out", str(tmp_path / "o")],
                   str(ladder))


def _count_options() -> list[tuple[str, str]]:
    """(script, option) for the first count option of every bench/ script that has one."""
    out = []
    for script in sorted((ROOT / "bench").glob("*.py")):
        m = re.search(r'add_argument\("(--[a-z-]+)", type=positive_int', script.read_text())
        if m:
            out.append((f"bench/{script.name}", m.group(1)))
    return out


def test_bench_scripts_check_their_counts_with_the_shared_type():
    """Every bench/ script's counts go through agents.arena.argtypes (a raw type=int lets 0 or -1 through to a
    ZeroDivisionError); bench_budget.py checks its own (it also runs under older project copies)."""
    raw_int = re.compile(r'add_argument\("--(games|deals|workers|runs|rounds|pairs|steps)", type=int')
    raw = [s.name for s in sorted((ROOT / "bench").glob("*.py"))
           if raw_int.search(s.read_text()) and s.name != "bench_budget.py"]
    assert raw == []
    assert len(_count_options()) >= 20


@pytest.mark.parametrize("script, option", [
    ("bench/bench_arena.py", "--games"), ("bench/bench_endgame.py", "--deals"),
    ("bench/bench_external.py", "--deals"), ("bench/bench_budget.py", "--deals"),
    ("-m tables.loadtest", "--games"), ("-m tables.loadtest", "--threads"),
])
def test_bench_scripts_refuse_a_zero_count(script, option):
    _fails_cleanly([sys.executable, *script.split(), option, "0"], option)



@pytest.mark.parametrize("script, option", [("bench/bench_rllib.py", "--runners"),
                                            ("bench/bench_sb3.py", "--steps")])
def test_bench_scripts_of_optional_libraries_read_their_arguments_first(script, option, tmp_path):
    """--help and a bad option need no ray[rllib] or sb3-contrib: here each import fails."""
    for name in ("ray", "sb3_contrib"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise ImportError('no {name} in this test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, script, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=60, env=env)

    r = run("--help")
    assert r.returncode == 0 and "usage" in r.stdout, r.stderr
    r = run(option, "0")
    assert r.returncode == 2 and option in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("args, needle", [
    (["--vs", "bogus"], "--vs: a browser may choose only the built-in bots"),  # not one error per game
    (["--vs", "exec:./bot"], "--vs: a browser may choose only"),
    (["--url", "localhost:8066"], "--url"),
    (["--url", "http://127.0.0.1:99999"], "--url"),
    (["--url", "https://example.org"], "--url"),
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**63)], "--seed"),
])
def test_loadtest_checks_its_arguments_before_starting_a_server(args, needle):
    _fails_cleanly([sys.executable, "-m", "tables.loadtest", "--games", "1", *args], needle)


def test_bench_scripts_take_no_unchecked_numbers():
    """A raw type=float lets nan and inf through, a raw type=int any count: both go through
    agents.arena.argtypes (seeds are any int; bench_budget.py checks its own, see above)."""
    raw = re.compile(r'add_argument\("(--[a-z-]+)", type=(?:int|float)\b(?!, choices)')
    scripts = [s for s in sorted((ROOT / "bench").glob("*.py")) if s.name != "bench_budget.py"]
    found = [(s.name, m.group(1)) for s in scripts for m in raw.finditer(s.read_text())
             if m.group(1) != "--seed"]
    assert found == []


@pytest.mark.parametrize("argv, needle", [
    (["bench/bench_expert_critic.py", "x.pt", "--learning-rate", "nan"], "--learning-rate"),
    (["bench/fit_variance_value.py", "--ridge", "inf"], "--ridge"),
    (["bench/bench_variance.py", "--sample", "-1"], "--sample"),
    (["bench/bench_variance.py", "--out", "."], "--out . is a folder"),  # before the games it would hold
])
def test_bench_scripts_refuse_numbers_and_paths_they_cannot_use(argv, needle):
    _fails_cleanly([sys.executable, *argv], needle)


@pytest.mark.parametrize("script, option", [("bench/bench_variance.py", "--load"),
                                            ("bench/bench_variance_values.py", "--lines")])
def test_bench_scripts_refuse_a_fifo_without_waiting(script, option, tmp_path):
    fifo = tmp_path / "lines.json"
    os.mkfifo(fifo)
    _fails_cleanly([sys.executable, script, option, str(fifo)], option)
