"""The README's counts and times, measured rather than typed (docs/readme_numbers.json keeps them).

    python bench/readme_numbers.py              # count the tests and slow ones (pytest --collect-only)
    python bench/readme_numbers.py --write      # the same, into docs/readme_numbers.json and README.md
    python bench/readme_numbers.py --time suite --write   # time the suite (pytest -n 2), 12+ min
    python bench/readme_numbers.py --time train --write   # time the main job (python train.py), 13+ min

Counting takes about a minute and loads nothing; timing runs the job itself, so do it on a quiet machine:
the file keeps the machine, its load averages before and after, the date and the command with every
time. `tests/test_readme.py` counts the tests live and checks that the README quotes this file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = ROOT / "docs" / "readme_numbers.json"
README = ROOT / "README.md"
MACHINE_DEFAULT = "the 2-core development machine"

# What pytest counts, run in a child process: every collected test and those marked slow.
_COUNT = """
import json, sys, pytest
class Count:
    tests = slow = 0
    skipped = []
    def pytest_collection_modifyitems(self, items):
        Count.tests = len(items)
        Count.slow = sum(1 for i in items if i.get_closest_marker("slow"))
    def pytest_collectreport(self, report):
        if report.skipped:
            Count.skipped.append(report.nodeid)
rc = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tests"], plugins=[Count()])
print("COUNT " + json.dumps({"rc": int(rc), "tests": Count.tests, "slow": Count.slow,
                             "skipped_modules": sorted(Count.skipped)}))
"""


def count_tests(python: str = sys.executable) -> dict:
    """{"tests", "slow", "skipped_modules"}: what `pytest --collect-only` finds in this venv."""
    r = subprocess.run([python, "-c", _COUNT], cwd=ROOT, capture_output=True, text=True, timeout=900)
    line = next((x for x in r.stdout.splitlines() if x.startswith("COUNT ")), None)
    if line is None:
        raise RuntimeError(f"pytest --collect-only failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    found = json.loads(line[len("COUNT "):])
    if found.pop("rc") != 0:
        raise RuntimeError(f"pytest --collect-only reported errors:\n{r.stdout[-3000:]}")
    return found


def machine() -> str:
    """The machine in words: CPUs, their model, GPU or none, Python."""
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                      if line.startswith("model name")), "")
    except OSError:
        pass
    try:
        import torch
        gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
        torch_version = f", torch {torch.__version__}"
    except ImportError:
        gpu, torch_version = "GPU unknown", ""
    return (f"{os.cpu_count()} CPUs ({model or platform.machine()}), {gpu}, "
            f"CPython {platform.python_version()}{torch_version}")


def timed(job: str) -> dict:
    """Run the job once; its wall time with the machine and the load around it."""
    with tempfile.TemporaryDirectory() as tmp:
        if job == "suite":
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       "-n", "2", "--dist", "loadfile"]
            shown = "python -m pytest -q -n 2 --dist loadfile"
        else:
            command = [sys.executable, "train.py", f"run_dir={tmp}/run", "progress=false"]
            shown = "python train.py"
        counts = count_tests() if job == "suite" else {}
        before = os.getloadavg()
        start = time.monotonic()
        r = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        seconds = time.monotonic() - start
        after = os.getloadavg()
    if r.returncode != 0:
        raise RuntimeError(f"{shown} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    record = {"seconds": round(seconds), "command": shown, "machine": machine(),
              "load": f"{before[0]:.1f} before, {after[0]:.1f} after (1-minute load average)",
              "date": datetime.date.today().isoformat()}
    if counts:
        record.update(tests=counts["tests"], slow=counts["slow"])
    return record


def minutes(seconds: float) -> int:
    return max(1, round(seconds / 60))


def phrases(numbers: dict) -> dict[str, str]:
    """The README's sentences built from the numbers: a key per claim, the text the README must hold."""
    tests, suite, train = numbers["tests"], numbers["suite"], numbers["train"]
    return {
        "tests": f"about {round(tests['tests'], -1):,} tests",
        "slow": f"leaves out about {5 * round(tests['slow'] / 5)} slow ones",
        "suite": f"took {minutes(suite['seconds'])} minutes when last timed ({suite['tests']:,} tests",
        "train": f"Training took about {minutes(train['seconds'])} minutes",
    }


# Where each phrase sits in the README: the pattern its earlier values match.
PATTERNS = {
    "tests": r"about [\d,]+ tests",
    "slow": r"leaves out about \d+ slow ones",
    "suite": r"took \d+ minutes when last timed \([\d,]+ tests",
    "train": r"Training took about \d+ minutes",
}


def update_readme(numbers: dict) -> list[str]:
    """Rewrite the README's figures from the numbers; returns the phrases it could not place."""
    text = README.read_text(encoding="utf-8")
    flat_missing = []
    for key, phrase in phrases(numbers).items():
        # a phrase may break across lines in the README: match any whitespace between its words
        pattern = PATTERNS[key].replace(" ", r"\s+")
        text, n = re.subn(pattern, lambda m, p=phrase: _keep_breaks(m.group(0), p), text, count=1)
        if n == 0:
            flat_missing.append(phrase)
    README.write_text(text, encoding="utf-8")
    return flat_missing


def _keep_breaks(old: str, new: str) -> str:
    """The new phrase with the old one's line break kept after the same word count."""
    if "\n" not in old:
        return new
    words_before_break = len(old.split("\n")[0].split())
    words = new.split(" ")
    return " ".join(words[:words_before_break]) + "\n" + " ".join(words[words_before_break:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time", choices=["suite", "train"], action="append", default=[],
                    help="also time this job (runs it: minutes; on a quiet machine)")
    ap.add_argument("--write", action="store_true", help="write docs/readme_numbers.json and the README")
    args = ap.parse_args(argv)
    numbers = json.loads(NUMBERS.read_text())
    counts = count_tests()
    numbers["tests"] = {**counts, "date": datetime.date.today().isoformat(),
                        "command": "python -m pytest --collect-only -q", "python": platform.python_version()}
    for job in args.time:
        numbers[job] = timed(job)
    print(json.dumps({k: v for k, v in numbers.items() if not k.startswith("_")}, indent=2))
    if args.write:
        NUMBERS.write_text(json.dumps(numbers, indent=2) + "\n")
        missing = update_readme(numbers)
        if missing:
            print(f"README.md: no place for {missing}", file=sys.stderr)
            return 1
        print(f"wrote {NUMBERS.relative_to(ROOT)} and README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
