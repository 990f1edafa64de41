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

    # all 50 games come from one address
    base, data = start_server("--games-per-client", "50", "--requests-per-client", "100")
    result = asyncio.run(run(base, games=50, vs="heuristic", episode="match", seed=100))
    figures = result.figures()
    print("load test:", figures)
    assert result.errors == [] and result.finished == 50
    assert figures["move_ms_median"] < 50, figures


@pytest.mark.slow
def test_the_per_client_caps_hold_while_another_client_plays(start_server):
    """A hostile client (12 sessions from one address, slow bots, hints without pause) keeps at
    most its cap of games and gets 429s, never a 5xx; a client from another address plays a deal
    to the end meanwhile and every bot reply reaches it in well under the hostile bot's think time."""
    from tables.loadtest import attack

    base, _ = start_server("--games-per-client", "4", "--searches-per-client", "1", "--threads", "2")
    out = asyncio.run(attack(base, sessions=12, slow="pimc:worlds=128,depth=2", seconds=20))
    figures = out.figures()
    print("under attack:", figures)
    assert out.normal.errors == [] and out.normal.finished == 1, figures
    assert out.kept <= 4 and out.hostile.get(429, 0) > 0, figures
    assert all(status < 500 for status in out.hostile), figures
    assert max(out.normal.reply_ms) < 8000, figures  # behind the hostile queue it would be far longer
