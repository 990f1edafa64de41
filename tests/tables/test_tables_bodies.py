"""No request body stalls `sixtysix serve`: the nesting check that runs before a body is
known to be JSON takes time linear in the body, whatever its quotes and backslashes."""

from __future__ import annotations

import threading
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")

# Shapes that made the old string-skipping pattern start again from every quote (quadratic time).
HOSTILE = {
    "escaped quotes": lambda n: '"' + '\\"' * (n // 2),
    "backslashes": lambda n: '"' + "\\" * n,
    "escaped newlines": lambda n: '"\\\n' * (n // 3),
    "quote and backslash": lambda n: '"\\' * (n // 2),
}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_the_nesting_check_is_linear_and_still_counts_right(shape):
    from tables.endpoint import json_depth

    text = HOSTILE[shape](40_000)
    t0 = time.perf_counter()
    assert json_depth(text) == 0
    assert time.perf_counter() - t0 < 0.5  # linear: about a millisecond; the old pattern: seconds
    assert json_depth('{"a": "[[[", "b": [1, {"c": "\\"]]"}]}') == 3
    assert json_depth('"\\\\"[[') == 2 and json_depth('"\\\\\\"[["') == 0 and json_depth("") == 0


def test_an_upload_of_escaped_quotes_is_refused_while_others_play_on(start_server):
    """8 MiB of escaped quotes (an upload the server accepts) held the interpreter for hours, so
    every client of the server waited; now it is a 400 in seconds and nobody waits for it."""
    from tables.records_api import UPLOAD_LIMIT

    base, _ = start_server()
    body = ('{"jsonl": "' + '\\"' * ((UPLOAD_LIMIT - 64) // 2)).encode()
    assert len(body) <= UPLOAD_LIMIT
    answer: dict[str, object] = {}

    def upload() -> None:
        with httpx.Client(base_url=base, timeout=60) as c:
            answer["status"] = c.post("/api/replay", content=body,
                                      headers={"content-type": "application/json"}).status_code

    sender = threading.Thread(target=upload, daemon=True)
    sender.start()
    with httpx.Client(base_url=base, timeout=10) as other:
        deadline = time.monotonic() + 60
        while sender.is_alive() and time.monotonic() < deadline:
            assert other.get("/api/bots").status_code == 200  # times out if the server is stalled
            time.sleep(0.2)
    sender.join(5)
    assert answer.get("status") == 400, answer
    for shape in HOSTILE.values():  # each small body on the API itself is a 400 too
        with httpx.Client(base_url=base, timeout=10) as c:
            r = c.post("/api/games", content=('{"vs": ' + shape(16_000)).encode(),
                       headers={"content-type": "application/json"})
            assert r.status_code == 400, r.text
