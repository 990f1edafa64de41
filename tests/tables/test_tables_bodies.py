"""No request body stalls `sixtysix serve`: the nesting check that runs before a body is
known to be JSON takes time linear in the body, whatever its quotes and backslashes."""

from __future__ import annotations

import socket
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


def test_damaged_lines_a_browser_sends_or_views_write_nothing_to_the_servers_log(start_server, tmp_path):
    """Every read of a damaged results file used to print up to 11 warning lines on the server's
    stderr: any client could fill the operator's log (or disk) with uploads. The browser now
    gets the count of skipped lines instead."""
    from agents.arena import round_robin

    arena = tmp_path / "arena.jsonl"
    round_robin(["heuristic", "random"], games=2, results_path=str(arena), progress=False, seed=0)
    good = arena.read_text(encoding="utf-8")
    damaged = good + "".join(f'{{"type": "game", "index": {i}}}\n' for i in range(30))
    arena.write_text(damaged, encoding="utf-8")
    base, _ = start_server("--records", str(arena))
    log = tmp_path / "server0.log"
    with httpx.Client(base_url=base, timeout=30) as c:
        for _ in range(3):
            r = c.post("/api/replay", json={"jsonl": damaged})
            assert r.status_code == 200 and r.json()["total"] == 2 and r.json()["skipped"] == 30, r.text
            assert c.post("/api/replay", json={"jsonl": damaged, "game": 1}).status_code == 200
            listed = c.get("/api/records").json()["sources"][1]
            assert listed["total"] == 2 and listed["skipped"] == 30
            assert c.get("/api/records/0/1").status_code == 200
    time.sleep(0.3)
    text = log.read_text(errors="replace")
    assert "warning" not in text and "damaged" not in text, text[-2000:]


def send_raw(base: str, request: bytes, chunk: int = 1 << 16) -> bytes:
    """The first bytes of the server's answer to a raw request ('' if it closed the connection)."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            for i in range(0, len(request), chunk):
                s.sendall(request[i:i + chunk])
            return s.recv(64)
        except OSError:  # reset mid-send: refused too
            return b""


def test_request_headers_are_capped_whatever_http_parser_is_installed(start_server):
    """uvicorn[standard] parses HTTP with httptools, which ignores the h11 header cap: a
    request with megabytes of headers was read whole (and 400 such connections at once)."""
    from tables.web import MAX_HEADER_BYTES

    base, _ = start_server()
    for size in (4 * MAX_HEADER_BYTES, 2_000_000):
        pad = b"a" * size
        reply = send_raw(base, b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + pad + b"\r\n\r\n")
        assert not reply.startswith(b"HTTP/1.1 200"), (size, reply)
        many = b"".join(b"X-%d: a\r\n" % i for i in range(size // 8))
        reply = send_raw(base, b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n")
        assert not reply.startswith(b"HTTP/1.1 200"), (size, reply)
    assert send_raw(base, b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 1000
                    + b"\r\n\r\n").startswith(b"HTTP/1.1 200")


def test_malformed_requests_and_upgrades_write_nothing_to_the_servers_log(start_server, tmp_path):
    """One log line per bad request let any client grow the operator's log at will."""
    base, _ = start_server()
    for request in (b"GARBAGE\r\n\r\n", b"GET /\x00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n",
                    b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 100_000 + b"\r\n\r\n"):
        for _ in range(3):
            reply = send_raw(base, request)
            assert not reply.startswith(b"HTTP/1.1 101"), reply  # no websocket: the app has no such route
    time.sleep(0.3)
    assert httpx.get(base + "/api/bots").status_code == 200
    text = (tmp_path / "server0.log").read_text(errors="replace")
    assert text.strip() == "", text[-2000:]
