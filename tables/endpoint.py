"""Around every API handler: the session cookie, the origin check, JSON in and out, JSON errors.

Each browser gets an unguessable session token (:mod:`tables.tokens`: only
tokens this server issued are accepted) in an ``HttpOnly``, ``SameSite=Strict``
cookie; a handler gets the token and never a game id from the request, so one
browser cannot read or move in another's game. A request that changes
something must come from the server's own page: its Origin (scheme, host and
port) is this server's, and its body is JSON (a
type no page of another site may send without asking the server first, which
this server never allows); any API request the browser marks as sent for
another site (``Sec-Fetch-Site``) is refused. What a handler refuses it raises as :class:`ApiError`:
a 4xx status and ``{"error": message}``, and nothing changed. The checked
readers here (:func:`read_json`, :func:`checked_int`, :func:`query_int`)
raise it for malformed input.

Needs Starlette (the ``web`` extra); :mod:`tables.web` imports the API
modules only once it has checked that it is there.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import itertools
import json
import math
import re
import sys
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Any

from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response

if TYPE_CHECKING:
    from starlette.requests import Request

    from .games import GameStore

COOKIE = "sixtysix_session"
COOKIE_AGE = 30 * 24 * 3600
BODY_LIMIT = 16 * 1024
RESERVED = "sixtysix.body"  # the request scope's key for its body reservation (client, bytes)
BODY_TIMEOUT = 10.0  # seconds a request body may take to arrive, whole (a slow sender is cut off)
MAX_DEPTH = 32  # JSON nesting a request body may have (the API's own bodies are 1 or 2 deep)
INTEGER = re.compile(r"-?[0-9]{1,20}")  # ASCII digits only: int() would take '²'-like digits and '1_0'
# A JSON string, or an unterminated one up to the end of the text: the match never fails once
# it starts, so no text makes the scan start again from every quote (quadratic time).
# Possessive (Python 3.11+): the regex engine keeps no backtracking state per character or escape;
# the plain form kept about 100 bytes per character of a long string (0.9 GiB for one 8 MiB upload).
STRINGS = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)' if sys.version_info >= (3, 11)
                     else r'"(?:[^"\\]|\\.)*(?:"|\\?\Z)', re.DOTALL)
# A string (as STRINGS) or a run of text outside strings that holds no bracket: removing every
# match leaves exactly the brackets outside strings, in one pass.
STRINGS_OR_NOT_BRACKETS = re.compile(STRINGS.pattern + r'|[^"\[\]{}]+', re.DOTALL)
STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
FOREIGN_SITES = ("cross-site", "same-site")  # Sec-Fetch-Site of a request another site's page made
DECIMAL = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?")
SURROGATE = re.compile("[\ud800-\udfff]")
ORIGIN = re.compile(r"(https?)://(?:\[([0-9a-f:.]{2,45})\]|([a-z0-9._-]{1,253}))(?::([0-9]{1,5}))?")
DEFAULT_PORTS = {"http": 80, "https": 443}
Handler = Callable[["Request", "GameStore", str], Awaitable[Any]]


class ApiError(Exception):
    """A request the API refuses: a 4xx status and a message for the JSON body."""

    def __init__(self, status: int, message: str, close: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.close = close  # the body was left unread: the reply closes the connection


def owner_of(token: str) -> str:
    """What a record keeps of a session token: a hash that cannot be turned back into it."""
    return hashlib.sha256(("sixtysix-owner:" + token).encode()).hexdigest()[:32]


def client_of(request: Request) -> str:
    """Who a request counts against for the per-client caps (:func:`client_key`)."""
    return client_key(request.client.host if request.client is not None else None)


def client_key(host: str | None) -> str:
    """A client for the per-client caps: its remote address, an IPv6 one by its /64 network
    (one host commonly holds a whole /64). The server reads no proxy headers, so a client
    cannot name another address."""
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return host or "unknown"
    if address.version == 6 and not address.is_loopback:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def endpoint(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Session cookie, origin check, JSON replies and errors around one API handler
    ``fn(request, tables, token)``, which returns a JSON-ready result (or ``(result, status)``)."""

    async def handle(request: Request) -> Response:
        tables: GameStore = request.app.state.tables
        token = request.cookies.get(COOKIE, "")
        fresh = not tables.tokens.valid(token)
        if fresh:
            token = tables.tokens.issue()
        try:
            check_site(request)
            if request.method != "GET":
                check_origin(request, tables.config.allowed_origins)
                check_json_type(request)
            result = await fn(request, tables, token)
            status = 200
            if isinstance(result, tuple):
                result, status = result
            response: Response = JSONResponse(result, status_code=status)
        except ApiError as e:
            response = JSONResponse({"error": e.message}, status_code=e.status)
            if e.close:
                response.headers["Connection"] = "close"
        except ClientDisconnect:  # the browser went away mid-request: nobody to answer, nothing to log
            return Response(status_code=499)
        except asyncio.CancelledError:  # the server is stopping (uvicorn cancels what outlives its grace)
            return JSONResponse({"error": "the server is shutting down"}, status_code=503)
        finally:
            release_body(request)
        response.headers["Cache-Control"] = "no-store"
        if fresh:
            response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, httponly=True, samesite="strict", path="/")
        return response

    return handle


def check_site(request: Request) -> None:
    """No API request the browser made for another site's page (``Sec-Fetch-Site``, which
    pages cannot set): such a page could otherwise spend this client's slots, or act
    through an old browser that sends no Origin. Another port of this host is another site."""
    if request.headers.get("sec-fetch-site", "").strip().lower() in FOREIGN_SITES:
        raise ApiError(403, "request from another site refused")


def check_json_type(request: Request) -> None:
    """A request that changes something says its body is JSON, a type that another site's
    page cannot send without asking first (text/plain, form and multipart posts can)."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise ApiError(415, "send JSON (Content-Type: application/json)")


def check_origin(request: Request, allowed: Collection[str] = ()) -> None:
    """Requests that change something come from this server's own page (no CSRF): an
    ``Origin``, when sent, has this server's scheme, host and port (default ports filled in,
    so ``https://localhost`` is not ``http://localhost``), or is one of ``allowed``
    (canonical, :func:`origin_of`: the origin of a TLS proxy in front)."""
    origin = request.headers.get("origin")
    if origin is not None:
        own = origin_of(f"{request.scope.get('scheme', 'http')}://{request.headers.get('host', '')}")
        got = origin_of(origin)
        if not got or (got != own and got not in allowed):
            raise ApiError(403, "cross-origin request refused")


def origin_of(text: str) -> str:
    """An origin as ``scheme://host:port`` (lower case, the port always written); ``""`` for
    anything but an http(s) origin with a host name or address and at most a port."""
    m = ORIGIN.fullmatch(text.strip().lower())
    if m is None:
        return ""
    scheme, v6, name, port = m.groups()
    return f"{scheme}://{f'[{v6}]' if v6 else name}:{int(port) if port else DEFAULT_PORTS[scheme]}"


async def read_json(request: Request, limit: int = BODY_LIMIT) -> dict[str, Any]:
    """The JSON object of a request body (415, 413, 429, 408 or 400 otherwise)."""
    return json_object(await read_body(request, limit))


async def read_body(request: Request, limit: int = BODY_LIMIT) -> bytearray:
    """The raw body of a JSON request (415, 413, 429 or 408 otherwise), read into one buffer of
    its declared size (:func:`reserve_body` first, unless the handler did); :func:`json_object`
    reads it (in a worker thread for a big one: parsing megabytes would stall every other request)."""
    size = reserve_body(request, limit)
    try:
        return await asyncio.wait_for(_read_body(request, size, limit), BODY_TIMEOUT)
    except asyncio.TimeoutError:
        raise ApiError(408, f"the request body took over {BODY_TIMEOUT:g} s") from None


def reserve_body(request: Request, limit: int) -> int:
    """Reserve the memory of a request's body before reading any of it (:class:`tables.bodies.BodyBudget`):
    its declared length, or ``limit`` for a chunked body. Past the client's or the server's share,
    a 429 that leaves the body unread and closes the connection; held until the request ends
    (:func:`endpoint` releases it). Returns the bytes reserved; a second call reserves nothing more."""
    held = request.scope.get(RESERVED)
    if held is not None:
        return int(held[1])
    check_json_type(request)
    declared = request.headers.get("content-length")
    if declared is not None and (INTEGER.fullmatch(declared) is None or int(declared) > limit):
        raise ApiError(413, f"request body over {limit} bytes", close=True)
    chunked = "chunked" in request.headers.get("transfer-encoding", "").lower()
    size = int(declared) if declared is not None else (limit if chunked else 0)
    tables: GameStore = request.app.state.tables
    client = client_of(request)
    if not tables.bodies.reserve(client, size):
        raise ApiError(429, "too many request bodies in progress (per client or on the server): "
                            "try again shortly", close=True)
    request.scope[RESERVED] = (client, size)
    return size


def release_body(request: Request) -> None:
    """Give back the reservation of :func:`reserve_body`, if any."""
    held = request.scope.pop(RESERVED, None)
    if held is not None:
        request.app.state.tables.bodies.release(*held)


def json_object(body: bytes | bytearray | str) -> dict[str, Any]:
    """A request body as a JSON object (400 otherwise)."""
    data = parse_json(body, "the request body")
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


async def _read_body(request: Request, size: int, limit: int) -> bytearray:
    """The body in one buffer: ``size`` bytes allocated once when its length is declared (no
    growing, no final copy), else grown up to ``limit`` (a chunked body)."""
    if request.headers.get("content-length") is None:
        grown = bytearray()
        async for chunk in request.stream():
            if len(grown) + len(chunk) > limit:
                raise ApiError(413, f"request body over {limit} bytes", close=True)
            grown += chunk
        return grown
    body = bytearray(size)
    got = 0
    with memoryview(body) as view:
        async for chunk in request.stream():
            end = got + len(chunk)
            if end > size:  # h11 holds a body to its Content-Length: never, but never past the buffer
                raise ApiError(400, "request body longer than its Content-Length", close=True)
            view[got:end] = chunk
            got = end
    return body


def parse_json(text: bytes | bytearray | str, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """Strict JSON text as Python values, nested at most ``max_depth`` deep, with no ``NaN`` or
    infinity and no lone surrogate; a 400 naming ``what`` otherwise (the depth is counted
    before parsing, so no input can exhaust the stack). A ``bytearray`` is emptied once decoded,
    so that no more than two copies of a body (the text and what is parsed from it) are alive."""
    raw = text.decode("utf-8", "replace") if isinstance(text, (bytes, bytearray)) else text
    if isinstance(text, bytearray):
        text.clear()
    if json_depth(raw) > max_depth:
        raise ApiError(400, f"{what} is nested over {max_depth} levels deep")
    try:
        data = json.loads(raw or "{}", parse_constant=_not_json, parse_float=_finite)
    except (ValueError, RecursionError):
        raise ApiError(400, f"{what} is not valid JSON") from None
    if "\\u" in raw and not utf8_strings(data):
        raise ApiError(400, f"{what} holds a lone surrogate (\\ud800-\\udfff), which is no text")
    return data


def _not_json(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity``, which Python's reader takes and JSON has not."""
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent, which must be finite (``1e400`` is not)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is out of range")
    return value


def utf8_strings(value: Any) -> bool:
    """Whether every string in a parsed JSON value, keys included, is text UTF-8 can carry: a
    ``\\ud800`` escape parses to a lone surrogate, which a reply quoting it could not encode."""
    if isinstance(value, str):
        return value.isascii() or not SURROGATE.search(value)
    if isinstance(value, dict):
        return all(utf8_strings(k) and utf8_strings(v) for k, v in value.items())
    if isinstance(value, list):
        return all(utf8_strings(v) for v in value)
    return True


def json_depth(text: str) -> int:
    """The deepest nesting of brackets in JSON ``text`` (brackets inside strings not counted),
    in time linear in the text whatever it holds (it runs before the text is known to be JSON);
    one pass keeps only the brackets, so no copy of the rest of the text is made."""
    brackets = STRINGS_OR_NOT_BRACKETS.sub("", text)
    return max(itertools.accumulate(map(STEP.__getitem__, brackets)), default=0)


def checked_int(value: Any, what: str, lo: int, hi: int) -> int:
    """``value`` if it is an integer (not a bool) in ``lo..hi``, else a 400."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(400, f"{what} must be an integer in {lo}..{hi}")
    return value


def parse_int(raw: str, what: str, lo: int, hi: int) -> int:
    """Text from a URL as an integer in ``lo..hi`` (ASCII digits only), else a 400."""
    if INTEGER.fullmatch(raw) is None:
        raise ApiError(400, f"{what} must be an integer in {lo}..{hi}")
    return checked_int(int(raw), what, lo, hi)


def query_int(request: Request, key: str, lo: int, hi: int) -> int | None:
    """The integer query parameter ``key`` in ``lo..hi`` (None if absent, a 400 if malformed)."""
    raw = request.query_params.get(key)
    return None if raw is None else parse_int(raw, key, lo, hi)


def query_seconds(request: Request, key: str, hi: float) -> float | None:
    """The query parameter ``key`` as seconds in ``0..hi`` (None if absent, a 400 if malformed:
    ``nan``, ``inf``, exponents and signs included)."""
    raw = request.query_params.get(key)
    if raw is None:
        return None
    if DECIMAL.fullmatch(raw) is None or not math.isfinite(value := float(raw)):
        raise ApiError(400, f"{key} must be a number of seconds, 0..{hi:g}")
    return min(value, hi)


__all__ = ["ApiError", "check_json_type", "check_origin", "check_site", "checked_int", "client_key",
           "client_of", "endpoint", "json_object", "origin_of", "owner_of", "parse_int", "parse_json",
           "query_int", "query_seconds", "read_body", "read_json"]
