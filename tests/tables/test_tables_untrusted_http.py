"""What a client controls at the HTTP level is held to what docs/serve.md says: the request line
and headers are capped however they arrive, an Origin must match the scheme as well as the host
and port, and a session token counts only if this server issued it."""

from __future__ import annotations

import os
import socket

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")


def first_bytes(base: str, request: bytes) -> bytes:
    """The start of the server's answer to a raw request, sent in one piece."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        return s.recv(64)


# ------------------------------------------------------------------------- header cap
def test_a_head_over_the_cap_is_a_431_even_when_it_arrives_whole(start_server):
    """h11 caps only a head still arriving: 60 KB of headers read in one piece were served."""
    from tables.web import MAX_HEADER_BYTES

    base, _ = start_server()
    get = b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for size in (MAX_HEADER_BYTES, 60_000):
        assert first_bytes(base, get + b"X-Pad: " + b"a" * size + b"\r\n\r\n").startswith(b"HTTP/1.1 431")
        many = b"".join(b"X-%d: a\r\n" % i for i in range(size // 8))
        assert first_bytes(base, get + many + b"\r\n").startswith(b"HTTP/1.1 431")
        long_target = b"GET /api/bots?" + b"a" * size + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        assert first_bytes(base, long_target).startswith(b"HTTP/1.1 431")
    assert first_bytes(base, get + b"X-Pad: " + b"a" * (MAX_HEADER_BYTES - 200) + b"\r\n\r\n").startswith(
        b"HTTP/1.1 200")


def test_the_head_size_counts_the_request_line_and_every_header():
    from tables.web import head_bytes

    scope = {"method": "GET", "raw_path": b"/api/bots", "query_string": b"a=1",
             "headers": [(b"host", b"127.0.0.1"), (b"x", b"yy")]}
    sent = b"GET /api/bots?a=1 HTTP/1.1\r\nhost: 127.0.0.1\r\nx: yy\r\n"
    assert head_bytes(scope) == len(sent)
    assert head_bytes({**scope, "query_string": b""}) == len(sent) - len(b"?a=1")


# ----------------------------------------------------------------------------- origin
def test_an_origin_must_match_scheme_host_and_port(start_server):
    """The Origin check compared only host and port: ``https://localhost`` (another server, on
    port 443) passed for a server reached as ``http://localhost``."""
    base, _ = start_server()
    port = base.rsplit(":", 1)[1]
    new = {"vs": "random", "hint": "none"}
    with httpx.Client(base_url=base, timeout=30) as c:
        for host, origin in (("localhost", "https://localhost"), (f"127.0.0.1:{port}", f"https://127.0.0.1:{port}"),
                             ("localhost", "http://localhost:8080"), (f"127.0.0.1:{port}", "http://127.0.0.1"),
                             (f"127.0.0.1:{port}", "null"), (f"127.0.0.1:{port}", f"ftp://127.0.0.1:{port}"),
                             (f"127.0.0.1:{port}", f"http://127.0.0.1:{port}/")):
            r = c.post("/api/games", json=new, headers={"host": host, "origin": origin})
            assert r.status_code == 403, (host, origin, r.status_code)
        for host, origin in (("localhost", "http://localhost"), ("localhost", "http://LOCALHOST:80"),
                             (f"127.0.0.1:{port}", f"http://127.0.0.1:{port}")):
            r = c.post("/api/games", json=new, headers={"host": host, "origin": origin})
            assert r.status_code == 201, (host, origin, r.status_code)


def test_the_origin_of_a_tls_proxy_is_allowed_when_named(start_server, tmp_path):
    from tables.endpoint import origin_of
    from tables.web import main

    assert origin_of("HTTPS://Table.LAN") == "https://table.lan:443" == origin_of("https://table.lan:443")
    assert origin_of("http://[::1]:8066") == "http://[::1]:8066"
    assert origin_of("https://table.lan/x") == origin_of("javascript:x") == origin_of("null") == ""
    assert main(["--allowed-origin", "table.lan", "--data", str(tmp_path)]) == 2
    base, _ = start_server("--allowed-host", "table.lan", "--allowed-origin", "https://table.lan")
    with httpx.Client(base_url=base, timeout=30) as c:
        h = {"host": "table.lan", "origin": "https://table.lan"}
        assert c.post("/api/games", json={"vs": "random", "hint": "none"}, headers=h).status_code == 201
        h = {"host": "table.lan", "origin": "https://evil.lan"}
        assert c.post("/api/games", json={"vs": "random", "hint": "none"}, headers=h).status_code == 403


# ----------------------------------------------------------------------------- tokens
def test_a_token_the_server_did_not_issue_is_replaced(start_server):
    """Any well-formed cookie was taken as a session: a client (or a page of another port of
    this host, which shares the cookie jar) could choose the name a browser's games live under."""
    base, data = start_server()
    with httpx.Client(base_url=base, timeout=30) as c:
        for made_up in ("A" * 43, "A" * 65, "a" * 43 + "b" * 22):
            c.cookies.clear()
            c.cookies.set("sixtysix_session", made_up)
            r = c.get("/api/bots")
            assert "sixtysix_session=" in r.headers.get("set-cookie", ""), made_up
            issued = r.cookies["sixtysix_session"]
            assert issued != made_up
        c.cookies.clear()
        c.cookies.set("sixtysix_session", issued)
        assert "set-cookie" not in c.get("/api/bots").headers  # its own token: kept
        assert c.post("/api/games", json={"vs": "random", "hint": "none"}).status_code == 201
        forged = issued[:-1] + ("A" if issued[-1] != "A" else "B")
        c.cookies.clear()
        c.cookies.set("sixtysix_session", forged)
        assert c.get("/api/game").status_code == 404
    assert os.stat(os.path.join(data, "session.key")).st_mode & 0o077 == 0
    base2, _ = start_server(data=data)  # the same data folder: the same key, the token still counts
    with httpx.Client(base_url=base2, timeout=30) as c:
        c.cookies.set("sixtysix_session", issued)
        assert "set-cookie" not in c.get("/api/bots").headers


def test_tokens_are_checked_against_the_key_and_a_damaged_key_is_refused(tmp_path):
    from tables.tokens import SessionTokens

    key = tmp_path / "session.key"
    a = SessionTokens(str(key))
    assert a.valid(a.issue()) and not a.valid("A" * 65) and not a.valid("")
    assert SessionTokens(str(key)).valid(a.issue())  # read back: the same key
    assert not SessionTokens(str(tmp_path / "other.key")).valid(a.issue())
    key.write_bytes(b"short")
    with pytest.raises(ValueError, match="session key"):
        SessionTokens(str(key))
