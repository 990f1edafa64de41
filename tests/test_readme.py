"""The README's API example runs as written (docs that match the code)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_api_example_runs():
    text = README.read_text()
    match = re.search(r"## The API in 20 lines\n\n```python\n(.*?)```", text, re.S)
    assert match, "README lost its API example"
    namespace: dict = {}
    exec(compile(match.group(1), str(README), "exec"), namespace)
    assert namespace["env"].unwrapped.game_state.match_over
    assert namespace["world"].hands[0] == namespace["state"].hands[0]


def test_readme_commands_match_ci():
    text = README.read_text()
    ci = (README.parent / ".ci" / "run").read_text()
    assert "python -m pytest -q" in text and "-m pytest -q" in ci
    assert 'pip install torch==2.13.0 -e ".[dev]"' in text
    assert 'torch==2.13.0 -e ".[dev]"' in ci
