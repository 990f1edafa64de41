"""Review of issue 41, item 3: one client's connections cannot shut the others out.

uvicorn answers 503 to every request once ``limit_concurrency`` (400) connections are open,
and it counts connections whose request head never arrives, with no timer on them. Before,
one client (127.0.0.1) holding 400 connections with half a head on each had every other
client's requests answered 503 for as long as it kept them (tables.connections).
"""

from __future__ import annotations

import socket
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tables.connections import HEAD_S  # noqa: E402
from tables.loadtest import local_server_process  # noqa: E402
from tables.web import MAX_CONNECTIONS  # noqa: E402

REQUEST = b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def honest_reply(port: int) -> bytes:
    with socket.socket() as s:
        s.settimeout(5)
        s.bind(("127.0.0.2", 0))
        s.connect(("127.0.0.1", port))
        s.sendall(REQUEST)
        return s.recv(64)


def test_one_client_holding_the_servers_connections_shuts_no_one_out() -> None:
    with local_server_process() as (base, _proc):
        port = int(base.rsplit(":", 1)[1])
        held = []
        try:
            for _ in range(MAX_CONNECTIONS):
                try:
                    s = socket.create_connection(("127.0.0.1", port), timeout=5)
                    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # a head never finished
                except OSError:  # closed at once past the per-client cap
                    continue
                held.append(s)
            time.sleep(0.5)
            assert honest_reply(port).startswith(b"HTTP/1.1 200 "), "another client was shut out"
        finally:
            for s in held:
                s.close()


def test_a_head_trickling_in_is_cut_off() -> None:
    with local_server_process() as (base, _proc):
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            start = time.monotonic()
            closed = False
            while time.monotonic() - start < HEAD_S + 5:
                try:
                    s.sendall(b"X")
                    s.settimeout(0.5)
                    if s.recv(1) == b"":
                        closed = True
                        break
                except TimeoutError:
                    continue
                except OSError:
                    closed = True
                    break
            assert closed and time.monotonic() - start < HEAD_S + 3
        assert honest_reply(port).startswith(b"HTTP/1.1 200 ")


def test_the_body_of_an_answered_request_cannot_hold_the_connection() -> None:
    """A request whose body the app never reads (a GET with a length) is answered at once;
    before, the client could then trickle that body forever (each byte stopped uvicorn's
    keep-alive timer)."""
    with local_server_process() as (base, _proc):
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n")
            assert s.recv(16).startswith(b"HTTP/1.1 200")
            start = time.monotonic()
            closed = False
            while time.monotonic() - start < HEAD_S + 5:
                try:
                    s.sendall(b"x")
                    s.settimeout(0.5)
                    if s.recv(4096) == b"":
                        closed = True
                        break
                except TimeoutError:
                    continue
                except OSError:
                    closed = True
                    break
            assert closed and time.monotonic() - start < HEAD_S + 3
