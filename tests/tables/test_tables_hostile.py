"""`sixtysix serve` against a hostile client: binding, malformed requests, slow bodies,
shutdown during a search, per-client caps, bots that misbehave, the bounded records file."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")


def client(base: str) -> httpx.Client:
    return httpx.Client(base_url=base, timeout=30)


def other_address(base: str) -> httpx.Client:
    """A client from another loopback address (127.0.0.2): another client for the caps."""
    return httpx.Client(base_url=base, timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.2"))


def serve_cmd(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "tables.web", *args], capture_output=True, text=True,
                          env=env, timeout=60)


# ----------------------------------------------------------------------------- binding
def test_a_bind_outside_loopback_needs_allow_remote(tmp_path):
    for host in ("0.0.0.0", "::", "192.168.1.20"):
        p = serve_cmd("--host", host, "--port", "1", "--data", str(tmp_path))
        assert p.returncode == 2 and "--allow-remote" in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = serve_cmd("--allowed-host", "*", "--port", "1", "--data", str(tmp_path))
    assert p.returncode == 2 and "'*'" in p.stderr


def test_allowed_hosts_are_named_never_all():
    from tables.web import BindError, allowed_hosts, host_of

    assert "*" not in allowed_hosts("0.0.0.0", True, [])
    assert "::1" in allowed_hosts("127.0.0.1", False, []) and "lan.example" in allowed_hosts(
        "10.0.0.5", True, ["lan.example"])
    with pytest.raises(BindError):
        allowed_hosts("10.0.0.5", False, [])
    assert host_of("[::1]:8066") == "::1" and host_of("localhost:80") == "localhost"
    assert host_of("127.0.0.1") == "127.0.0.1" and host_of("[::1]") == "::1"


def test_serving_on_ipv6_loopback_answers(tmp_path):
    from tables.loadtest import local_server

    with socket.socket(socket.AF_INET6) as s:
        try:
            s.bind(("::1", 0))
        except OSError:
            pytest.skip("no IPv6 loopback on this machine")
    with local_server("--host", "::1", data=str(tmp_path / "d")) as base:
        with client(base) as c:
            r = c.get("/api/bots")
            assert r.status_code == 200, r.text
            assert c.post("/api/games", json={"vs": "random", "hint": "none"}).status_code == 201
            assert c.get("/api/bots", headers={"host": "evil.example"}).status_code == 400


# ------------------------------------------------------------------- malformed requests
def test_every_malformed_request_is_a_4xx(start_server):
    base, _ = start_server()
    deep = "[" * 100_000 + "]" * 100_000
    with client(base) as c:
        def refused(r):
            assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])

        for path in ("/api/records/%C2%B2/0", "/api/records/mine/%C2%B2", "/api/records/%D9%A3/0",
                     "/api/records/0/1_0", "/api/records/mine/-1", "/api/records/mine/99999999999999999999",
                     "/api/records/" + "9" * 5000 + "/0"):
            refused(c.get(path))
        as_json = {"content-type": "application/json"}
        refused(c.post("/api/games", content=deep.encode()[:16000], headers=as_json))
        refused(c.post("/api/games", content=b'{"vs":' + b"[" * 5000 + b"]" * 5000 + b"}",
                       headers={"content-type": "application/json"}))
        line = json.dumps({"type": "game"})[:-1] + ', "x": ' + "[" * 50_000 + "]" * 50_000 + "}"
        refused(c.post("/api/replay", json={"jsonl": line + "\n"}))
        header = '{"type": "header", "config": {}}\n'
        refused(c.post("/api/replay", json={"jsonl": header + line + "\n", "game": 0}))
        c.post("/api/games", json={"vs": "ismcts:iterations=5000", "seat": 1, "hint": "none", "seed": 4})
        for wait in ("nan", "inf", "-1", "1e3", "NaN", "٣", "1_0", "0x10"):
            refused(c.get("/api/game", params={"since": 0, "wait": wait}))
        for since in ("nan", "²", "1_0", " 1", "1e3"):
            refused(c.get("/api/game", params={"since": since}))


def raw_request(base: str, head: bytes, timeout: float = 10) -> bytes:
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head)
        return s.recv(200)


def test_a_malformed_content_length_is_a_4xx(start_server):
    base, _ = start_server()
    for length in (b"\xc2\xb2", b"-1", b"1e3", b"99999999999999999999999"):
        reply = raw_request(base, b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            b"Content-Type: application/json\r\nContent-Length: " + length + b"\r\n\r\n{}")
        assert reply[9:10] == b"4", (length, reply)


def test_a_slow_request_body_is_cut_off(start_server):
    from tables.endpoint import BODY_TIMEOUT

    base, _ = start_server()
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=BODY_TIMEOUT + 10) as s:
        s.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1000\r\n\r\n{")
        t0 = time.monotonic()
        reply = s.recv(200)
        took = time.monotonic() - t0
    assert reply.startswith(b"HTTP/1.1 408"), reply
    assert took < BODY_TIMEOUT + 5


def test_a_dropped_client_leaves_no_traceback_in_the_log(start_server):
    """The start_server fixture fails the test on any traceback in the server's log."""
    base, _ = start_server()
    port = int(base.rsplit(":", 1)[1])
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 5000\r\n\r\n{\"jsonl\": \"")
            time.sleep(0.1)
    time.sleep(0.5)
    assert httpx.get(base + "/api/bots").status_code == 200


# ----------------------------------------------------------------------------- shutdown
def test_sigterm_stops_a_server_in_the_middle_of_a_long_search(tmp_path):
    from tables.loadtest import free_port

    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    log = open(tmp_path / "log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "tables.web", "--port", str(port), "--data",
                             str(tmp_path / "d"), "--bots", "pimc:worlds=100000,depth=2"],
                            env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(base + "/api/bots", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        with client(base) as c:
            r = c.post("/api/games", json={"vs": "pimc:worlds=100000,depth=2", "seat": 1, "hint": "none",
                                           "seed": 7})
            assert r.status_code == 201
            for _ in range(20):  # play on until the bot has a real decision (not an obvious move)
                time.sleep(1.0)
                g = c.get("/api/game").json()
                if g["game"]["thinking"]:
                    break
                c.post("/api/game/move", json={"action": g["state"]["legal"][0]["action"]})
            assert g["game"]["thinking"]
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
        assert time.monotonic() - t0 < 8
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


# ---------------------------------------------------------------------- per-client caps
def test_one_client_cannot_evict_anothers_unfinished_game(start_server):
    base, _ = start_server("--max-games", "10", "--games-per-client", "4")
    with client(base) as victim:
        victim.post("/api/games", json={"vs": "random", "hint": "none", "seat": 0, "seed": 1})
        mine = victim.get("/api/game").json()
        codes = []
        for _ in range(45):  # a client that drops its cookie every time: a new session each request
            with other_address(base) as hostile:
                codes.append(hostile.post("/api/games", json={"vs": "random", "hint": "none"}).status_code)
        assert set(codes) == {201}  # its own oldest games make room for its new ones
        again = victim.get("/api/game")
        assert again.status_code == 200 and again.json()["state"]["version"] >= mine["state"]["version"]


def test_a_full_server_refuses_new_games_instead_of_evicting_unfinished_ones(tmp_path):
    from tables.games import Busy, Config, Game, GameStore

    async def go():
        tables = GameStore(Config(data=str(tmp_path), max_games=2, games_per_client=2))
        from tables.session import Session

        for i, who in enumerate(["a", "b"]):
            tables.put(f"t{i}", Game(Session("random", seed=i), None, "o", who))
        with pytest.raises(Busy):
            tables.put("t9", Game(Session("random", seed=9), None, "o", "c"))
        tables.games["t0"].session.resign()
        tables.games["t0"].record = 0  # finished and saved: may be forgotten
        tables.put("t9", Game(Session("random", seed=9), None, "o", "c"))
        assert set(tables.games) == {"t1", "t9"}
        tables.close()

    asyncio.run(go())


def test_hints_past_the_clients_search_cap_are_refused_and_another_client_plays_on(start_server):
    base, _ = start_server("--searches-per-client", "1", "--threads", "2",
                           "--bots", "ismcts:iterations=20000")
    hog = "ismcts:iterations=20000"

    async def go():
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=base, timeout=60) as c, \
                httpx.AsyncClient(base_url=base, timeout=60, transport=transport) as other:
            await c.post("/api/games", json={"vs": "random", "hint": hog, "seat": 0, "seed": 3})
            g = (await c.get("/api/game", params={"since": 0, "wait": 10})).json()
            while g["state"]["to_act"] != "you":
                g = (await c.get("/api/game", params={"since": g["state"]["version"], "wait": 10})).json()
            first = asyncio.ensure_future(c.post("/api/game/hint", json={}))
            await asyncio.sleep(0.3)
            second = await c.post("/api/game/hint", json={})
            assert second.status_code == 429, second.text
            r = await other.post("/api/games", json={"vs": "heuristic", "hint": "none", "seat": 1, "seed": 5})
            assert r.status_code == 201
            t0 = time.monotonic()
            o = await other.get("/api/game", params={"since": 0, "wait": 10})
            assert o.json()["state"]["version"] > 0 and time.monotonic() - t0 < 2.0
            first.cancel()

    asyncio.run(go())


# ---------------------------------------------------------------------------- bad bots
EDITOR = """
from agents.base import BaseAgent

class Editor(BaseAgent):
    def act(self, view):
        object.__setattr__(view, "legal_mask", 0) if hasattr(view, "legal_mask") else None
        return (view.legal_mask or 1).bit_length() - 1

class Exiter(BaseAgent):
    def act(self, view):
        raise SystemExit(3)

class Floater(BaseAgent):
    def act(self, view):
        return 1.5
"""


@pytest.mark.parametrize("cls", ["Editor", "Exiter", "Floater"])
def test_a_bot_that_edits_its_view_or_raises_ends_the_game_as_a_forfeit(start_server, tmp_path, cls):
    bot = tmp_path / "badbots.py"
    bot.write_text(EDITOR)
    spec = f"{bot}:{cls}"
    base, _ = start_server("--bots", spec)
    with client(base) as c:
        r = c.post("/api/games", json={"vs": spec, "hint": "none", "seat": 1, "seed": 2})
        assert r.status_code == 201, r.text
        g = c.get("/api/game", params={"since": 0, "wait": 10}).json()
        for _ in range(30):
            if g["game"]["over"]:
                break
            st = g["state"]
            if st["to_act"] == "you":
                g = c.post("/api/game/move", json={"action": st["legal"][0]["action"]}).json()
            else:
                g = c.get("/api/game", params={"since": st["version"], "wait": 2}).json()
        assert g["game"]["over"] and not g["game"]["thinking"], g["game"]
        if cls != "Editor":
            assert g["game"]["forfeit"]["seat"] != g["game"]["seat"]


# ------------------------------------------------------------------------ records file
def test_the_records_file_is_rotated_past_its_cap(tmp_path):
    from tables.session import Session
    from tables.store import RecordStore

    path = str(tmp_path / "games.jsonl")
    store = RecordStore(path, max_bytes=3000)
    for seed in range(12):
        s = Session("random", seed=seed, episode="deal")
        s.resign()
        store.append(s.game_line(owner="o"))
    assert os.path.getsize(path) < 3000 + 2000 and os.path.getsize(path + ".1") < 3000 + 2000
    assert 0 < len(store.games()) < 12
    assert RecordStore(path, max_bytes=3000).games() == store.games()


def test_a_client_is_its_address_and_an_ipv6_client_its_64_network():
    from types import SimpleNamespace

    from tables.endpoint import client_of

    def at(host):
        return client_of(SimpleNamespace(client=SimpleNamespace(host=host)))

    assert at("2001:db8::1") == at("2001:db8::ffff:1") == "2001:db8::/64"
    assert at("2001:db8:0:1::1") != at("2001:db8::1")
    assert at("::ffff:10.0.0.1") == "10.0.0.1" and at("10.0.0.1") != at("10.0.0.2") and at("::1") == "::1"


def test_allow_remote_warns_and_uvicorn_gets_the_limits(tmp_path, monkeypatch, capsys):
    """(uvicorn.run is replaced: nothing listens outside loopback in a test.)"""
    import uvicorn

    from tables import web

    got = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: got.update(kw, app=app))
    assert web.main(["--host", "0.0.0.0", "--allow-remote", "--data", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "outside loopback" in err
    assert got["proxy_headers"] is False and got["limit_concurrency"] and got["timeout_graceful_shutdown"]
    assert "*" not in got["app"].state.tables.config.allowed_hosts


def test_one_client_cannot_hold_every_connection(start_server):
    """20 requests held open by one address (bodies that never finish): past its cap of 8 the
    server answers 429 at once, and another address is served meanwhile."""
    base, _ = start_server("--requests-per-client", "8")
    port = int(base.rsplit(":", 1)[1])
    socks = []
    try:
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100\r\n\r\n{")
            socks.append(s)
        time.sleep(0.5)
        with other_address(base) as other:
            assert other.get("/api/bots").status_code == 200
        refused = 0
        for s in socks:
            try:
                refused += s.recv(200).startswith(b"HTTP/1.1 429")
            except TimeoutError:
                pass  # held: one of the 8 in progress
        assert refused == 12, refused
    finally:
        for s in socks:
            s.close()
