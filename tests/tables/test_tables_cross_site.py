"""`sixtysix serve` against other sites and other local processes: the Host header (DNS
rebinding), the origin of every request that changes something (CSRF, including the simple
requests a page may send without asking: text/plain and form posts) and the browser's own
``Sec-Fetch-Site`` on every API request. Real requests to a server on loopback."""

from __future__ import annotations

import socket

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")

SIMPLE_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None)


def raw_status(base: str, request: bytes) -> bytes:
    """The status line's code of a raw HTTP/1.1 request (headers as sent, duplicates included)."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        return s.recv(100)[9:12]


def test_a_host_header_must_be_one_allowed_name_with_at_most_a_port(start_server):
    base, _ = start_server()
    port = base.rsplit(":", 1)[1]
    with httpx.Client(base_url=base, timeout=10) as c:
        for host in ("127.0.0.1:80@evil.example", "localhost:x@evil.example", "127.0.0.1:8066:1",
                     "localhost evil.example", "127.0.0.1/evil.example", "[::1]evil.example", "[::1]:80@x",
                     "::1:80"):
            r = c.get("/api/bots", headers={"host": host})
            assert r.status_code == 400, (host, r.status_code)
        for host in (f"127.0.0.1:{port}", f"LOCALHOST:{port}", "localhost", f"[::1]:{port}"):
            assert c.get("/api/bots", headers={"host": host}).status_code == 200, host
    # two Host headers: the check and the origin test must not read different ones
    for first, second in ((b"evil.example", b"127.0.0.1"), (b"127.0.0.1", b"evil.example")):
        code = raw_status(base, b"POST /api/games HTTP/1.1\r\nHost: " + first + b"\r\nHost: " + second
                          + b"\r\nOrigin: http://" + first + b"\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 17\r\nConnection: close\r\n\r\n{\"hint\": \"none\"}\n")
        assert code == b"400", (first, code)


@pytest.mark.parametrize("path", ["/api/games", "/api/game/move", "/api/game/hint", "/api/game/resign",
                                  "/api/replay"])
def test_every_post_a_page_may_send_without_asking_is_refused(start_server, path):
    """A cross-site page may send text/plain, form and multipart posts (no preflight), with or
    without an Origin header (old browsers, some redirects): no endpoint that changes something
    acts on one, so the cookie's SameSite and the Origin header are not the only guard."""
    base, _ = start_server()
    with httpx.Client(base_url=base, timeout=10) as c:
        r = c.post("/api/games", json={"vs": "random", "hint": "random", "seat": 0, "seed": 5})
        assert r.status_code == 201, r.text
        version = r.json()["state"]["version"]
        for ctype in SIMPLE_TYPES:
            headers = {} if ctype is None else {"content-type": ctype}
            r = c.post(path, content=b'{"action": 0, "version": 0}', headers=headers)
            assert r.status_code == 415, (path, ctype, r.status_code, r.text)
            assert set(r.json()) == {"error"}
        after = c.get("/api/game").json()
        assert not after["game"]["over"] and after["state"]["version"] == version


def test_requests_the_browser_marks_as_from_another_site_are_refused(start_server):
    """``Sec-Fetch-Site`` is set by the browser, never by a page: a request that another site
    (or another port of this host) made the browser send is refused, GET included (a page could
    otherwise fill the client's search slots with record replays), even without an Origin."""
    base, _ = start_server()
    with httpx.Client(base_url=base, timeout=10) as c:
        assert c.post("/api/games", json={"vs": "random", "hint": "none", "seat": 0}).status_code == 201
        for site in ("cross-site", "same-site"):
            h = {"sec-fetch-site": site}
            for method, path in (("POST", "/api/game/resign"), ("POST", "/api/games"), ("GET", "/api/game"),
                                 ("GET", "/api/records"), ("GET", "/api/bots")):
                r = c.request(method, path, json={} if method == "POST" else None, headers=h)
                assert r.status_code == 403, (site, method, path, r.status_code)
        assert not c.get("/api/game").json()["game"]["over"]
        for site in ("same-origin", "none"):  # the page itself, and an address typed in
            assert c.get("/api/bots", headers={"sec-fetch-site": site}).status_code == 200
        assert c.get("/", headers={"sec-fetch-site": "cross-site"}).status_code == 200  # a link to the page


def test_every_kind_of_reply_keeps_the_page_to_itself_and_offers_no_cors(start_server):
    """The page, a script, an API reply, an API error, a refused host and a refused method all
    carry the CSP (no framing, own scripts only) and nosniff; none grants another origin access."""
    base, _ = start_server()
    evil = {"origin": "http://evil.example"}
    with httpx.Client(base_url=base, timeout=10) as c:
        replies = [c.get("/", headers=evil), c.get("/static/table.js", headers=evil),
                   c.get("/api/bots", headers=evil), c.get("/api/game", headers=evil),
                   c.get("/static/../web.py"), c.get("/api/bots", headers={"host": "evil.example"}),
                   c.options("/api/games", headers={**evil, "access-control-request-method": "POST",
                                                    "access-control-request-headers": "content-type"}),
                   c.post("/api/games", json={}, headers=evil)]
    for r in replies:
        csp = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, (r.request.url, r.headers)
        assert r.headers.get("x-content-type-options") == "nosniff"
        assert r.headers.get("x-frame-options") == "DENY"
        assert not any(k.lower().startswith("access-control-") for k in r.headers), r.headers
    assert [r.status_code for r in replies[4:]] == [404, 400, 405, 403]
