"""Request-body memory, bounded per client and server-wide before any body is read.

Every request body the API reads is reserved here first, at its declared
``Content-Length`` (or at the endpoint's whole limit for a chunked body,
which names no length), and released when the request's handler has
finished with it (parsed it, or worked on it in a thread). A reservation
past the client's share or the server's total is refused: the API answers
429 without reading the body and closes the connection, so 32 uploads at
once from one client cost the server two uploads' memory, not 32.
"""

from __future__ import annotations

from collections import Counter

MIB = 2**20


class BodyBudget:
    """Bytes of request bodies held at once: at most ``per_client`` for one client and ``total``
    for the server (event loop only: no lock)."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self.held: Counter[str] = Counter()
        self.in_use = 0

    def reserve(self, client: str, size: int) -> bool:
        """Hold ``size`` bytes for ``client``; False (nothing held) when either cap would pass."""
        if self.held[client] + size > self.per_client or self.in_use + size > self.total:
            if not self.held[client]:
                del self.held[client]
            return False
        self.held[client] += size
        self.in_use += size
        return True

    def release(self, client: str, size: int) -> None:
        """Give back what :meth:`reserve` held."""
        self.in_use -= size
        self.held[client] -= size
        if self.held[client] <= 0:
            del self.held[client]


__all__ = ["MIB", "BodyBudget"]
