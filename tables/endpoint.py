"""Around every API handler: the session cookie, the origin check, JSON in and out, JSON errors.

Each browser gets an unguessable session token (``secrets.token_urlsafe``)
in an ``HttpOnly``, ``SameSite=Strict`` cookie; a handler gets the token and
never a game id from the request, so one browser cannot read or move in
another's game. A request that changes something must come from the
server's own page. What a handler refuses it raises as :class:`ApiError`:
a 4xx status and ``{"error": message}``, and nothing changed. The checked
readers here (:func:`read_json`, :func:`checked_int`, :func:`query_int`)
raise it for malformed input.

Needs Starlette (the ``web`` extra); :mod:`tables.web` imports the API
modules only once it has checked that it is there.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse, Response

if TYPE_CHECKING:
    from starlette.requests import Request

    from .games import Tables

COOKIE = "sixtysix_session"
TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
COOKIE_AGE = 30 * 24 * 3600
BODY_LIMIT = 16 * 1024
Handler = Callable[["Request", "Tables", str], Awaitable[Any]]


class ApiError(Exception):
    """A request the API refuses: a 4xx status and a message for the JSON body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def owner_of(token: str) -> str:
    """What a record keeps of a session token: a hash that cannot be turned back into it."""
    return hashlib.sha256(("sixtysix-owner:" + token).encode()).hexdigest()[:32]


def endpoint(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Session cookie, origin check, JSON replies and errors around one API handler
    ``fn(request, tables, token)``, which returns a JSON-ready result (or ``(result, status)``)."""

    async def handle(request: Request) -> Response:
        tables: Tables = request.app.state.tables
        token = request.cookies.get(COOKIE, "")
        fresh = TOKEN.fullmatch(token) is None
        if fresh:
            token = secrets.token_urlsafe(32)
        try:
            if request.method != "GET":
                check_origin(request)
            result = await fn(request, tables, token)
            status = 200
            if isinstance(result, tuple):
                result, status = result
            response: Response = JSONResponse(result, status_code=status)
        except ApiError as e:
            response = JSONResponse({"error": e.message}, status_code=e.status)
        response.headers["Cache-Control"] = "no-store"
        if fresh:
            response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, httponly=True, samesite="strict", path="/")
        return response

    return handle


def check_origin(request: Request) -> None:
    """Requests that change something come from this server's own page (no CSRF)."""
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "")
        if origin.split("://", 1)[-1] != host:
            raise ApiError(403, "cross-origin request refused")


async def read_json(request: Request, limit: int = BODY_LIMIT) -> dict[str, Any]:
    """The JSON object of a request body (415, 413 or 400 otherwise)."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise ApiError(415, "send JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise ApiError(413, f"request body over {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"request body over {limit} bytes")
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise ApiError(400, "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def checked_int(value: Any, what: str, lo: int, hi: int) -> int:
    """``value`` if it is an integer (not a bool) in ``lo..hi``, else a 400."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(400, f"{what} must be an integer in {lo}..{hi}")
    return value


def query_int(request: Request, key: str, lo: int, hi: int) -> int | None:
    """The integer query parameter ``key`` in ``lo..hi`` (None if absent, a 400 if malformed)."""
    raw = request.query_params.get(key)
    if raw is None:
        return None
    try:
        return checked_int(int(raw), key, lo, hi)
    except ValueError:
        raise ApiError(400, f"{key} must be an integer in {lo}..{hi}") from None


__all__ = ["ApiError", "checked_int", "endpoint", "owner_of", "query_int", "read_json"]
