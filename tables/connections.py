"""Connections, bounded per client and in time before any request of theirs reaches the app.

uvicorn answers 503 to every request once ``limit_concurrency`` connections
are open, counting connections whose request head has not arrived; it sets
no timer on a connection until its first response, and any byte received
stops the keep-alive timer. So one client that opened that many connections
and sent a few bytes of a head on each (or nothing) had every other client's
requests answered 503 for as long as it liked. :func:`protocol` is uvicorn's
h11 protocol with two bounds:

- at most ``per_client`` connections open at once per client
  (:func:`tables.endpoint.client_key`: its address, an IPv6 one by its /64);
  a connection past that is closed as soon as it is made;
- a request head must arrive whole within ``head_s`` seconds of the
  connection (or of the previous response): a connection still waiting for
  its head then is closed, however slowly bytes trickle in, as is one still
  sending the body of a request already answered (a body nobody reads).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .endpoint import client_key

PER_CLIENT = 48  # connections open at once per client (requests in progress are capped at 32)
HEAD_S = 10.0  # seconds a request head may take to arrive, whole


def protocol(per_client: int = PER_CLIENT, head_s: float = HEAD_S) -> type[H11Protocol]:
    """uvicorn's h11 protocol (``uvicorn.run(http=...)``) with the bounds of this module; one
    count of open connections per client, shared by the connections of one server."""
    open_now: Counter[str] = Counter()

    class Bounded(H11Protocol):
        client_name = ""
        head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.client_name = client_key(self.client[0] if self.client else None)
            open_now[self.client_name] += 1
            if open_now[self.client_name] > per_client:
                transport.close()
                return
            self.wait_for_head()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.client_name:
                open_now[self.client_name] -= 1
                if open_now[self.client_name] <= 0:
                    del open_now[self.client_name]
                self.client_name = ""
            self.stop_waiting()
            super().connection_lost(exc)

        def in_request(self) -> bool:
            """Whether a request's head is in and its reply not yet sent (the app's timeouts hold)."""
            return (self.conn.their_state is not h11.IDLE and self.cycle is not None
                    and not self.cycle.response_complete)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.in_request():
                self.stop_waiting()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and not self.in_request():
                self.wait_for_head()  # also the body of an answered request that nobody reads

        def wait_for_head(self) -> None:
            self.stop_waiting()
            self.head_timer = self.loop.call_later(head_s, self.head_expired)

        def stop_waiting(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

        def head_expired(self) -> None:
            self.head_timer = None
            if not self.in_request() and not self.transport.is_closing():
                self.transport.close()

    return Bounded


__all__ = ["HEAD_S", "PER_CLIENT", "protocol"]
