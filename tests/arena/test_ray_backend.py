"""The arena on Ray: the same results as the local run for the same seeds, and resume across backends."""

import os

import pytest

from agents.arena import read_results, round_robin
from agents.arena.records import as_played
from sixtysix_cli import main

ray = pytest.importorskip("ray", reason="the Ray arena backend needs ray: pip install -e '.[ray]'")

BOTS = ["random", "heuristic", "random"]


@pytest.fixture(scope="module")
def ray_cluster():
    """One local Ray instance for the module, bound to 127.0.0.1, shut down at the end."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", logging_level="WARNING",
             log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _games(path):
    return {g["index"]: as_played(g) for g in read_results(path)[1]}


def test_ray_round_robin_matches_local(ray_cluster, tmp_path):
    local = round_robin(BOTS, games=4, unit="deal", seed=3, workers=1, results_path=tmp_path / "local.jsonl")
    on_ray = round_robin(BOTS, games=4, unit="deal", seed=3, workers=2, backend="ray",
                         results_path=tmp_path / "ray.jsonl")
    measured = {"cpu_share": None, "pairings": None}
    assert {**on_ray.to_dict(), **measured} == {**local.to_dict(), **measured}
    assert on_ray.pairings == local.pairings
    assert _games(tmp_path / "ray.jsonl") == _games(tmp_path / "local.jsonl")
    assert ray.is_initialized()  # a cluster the run did not start is left running


def test_cli_ray_resumes_a_local_run(ray_cluster, tmp_path, capsys):
    path = tmp_path / "rr.jsonl"
    args = ["arena", *BOTS[:2], "--games", "4", "--unit", "deal", "--results", str(path), "--no-progress"]
    assert main(args) == 0
    full = _games(path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]))  # header + two games: a killed run
    assert main([*args, "--resume", "--backend", "ray", "--workers", "2"]) == 0
    assert _games(path) == full


def test_objects_and_address_need_the_right_backend():
    from agents.random_agent import RandomAgent

    with pytest.raises(ValueError, match="local backend"):
        round_robin([RandomAgent(), "random"], games=2, backend="ray")
    with pytest.raises(ValueError, match="address needs backend ray"):
        round_robin(["random", "random"], games=2, address="127.0.0.1:6379")
