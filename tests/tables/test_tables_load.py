"""`sixtysix serve` under load on loopback: 50 games at once against heuristic."""

from __future__ import annotations

import asyncio

import pytest


@pytest.mark.slow
def test_50_concurrent_games_finish_without_error_and_moves_answer_fast(start_server):
    """50 games played at once through the API (one client loop, one request per game at a
    time, no pause between moves): every game finished and saved, no error, and the median
    response to the player's own moves under 50 ms."""
    from tables.loadtest import run

    base, data = start_server()
    result = asyncio.run(run(base, games=50, vs="heuristic", episode="match", seed=100))
    figures = result.figures()
    print("load test:", figures)
    assert result.errors == [] and result.finished == 50
    assert figures["move_ms_median"] < 50, figures
