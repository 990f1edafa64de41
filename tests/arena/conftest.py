"""Fixtures of the bench tests: a two-rung ladder small enough to play in seconds."""

import pytest

from agents.bench.ladder import Ladder, save_ladder


@pytest.fixture
def tiny_ladder(tmp_path):
    """random at 0 and heuristic at 1000, the rungs at a generous 5 s of CPU time per move."""
    path = str(tmp_path / "ladder.json")
    save_ladder(Ladder({"random": 0.0, "heuristic": 1000.0}, {"random": (-50, 50), "heuristic": (950, 1050)},
                       move_time=5.0, games=4, command="test", anchor=("heuristic", 1000.0)), path)
    return path
