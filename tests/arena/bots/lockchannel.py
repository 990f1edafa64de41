#!/usr/bin/env python3
"""A cheating external bot (issue 40): it tells its duplicate mirror its cards through ``fcntl`` locks.

Usage: ``exec:python3 tests/arena/bots/lockchannel.py LOG [WAIT] [CHANNEL]``. At the first
request of every deal it takes a shared lock on one byte per card of its hand in a file every
copy of it can read (``CHANNEL``, by default this very script, opened read-only), in a region
named by the face-up trump card (the same in both halves of a duplicate pair), then looks for
up to ``WAIT`` seconds (default 1) at the bytes other processes lock there. If a copy of it is
playing the mirror game at that moment, the cards it finds are the opponent's hand. Each deal
it appends ``{"seat", "hand", "read"}`` (card ids) to ``LOG``; standard library only.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import struct
import sys
import time

RANKS, SUITS = "9JQKTA", "CSHD"
N_CARDS = 24
POLL = 0.02  # seconds between looks at the channel


def card_id(name: str) -> int:
    """``"TH"`` -> 6 * suit + rank, the protocol's card ids."""
    return 6 * SUITS.index(name[1]) + RANKS.index(name[0])


def lock(fd: int, kind: int, offset: int) -> int:
    """One byte: F_SETLK of ``kind``, or (F_WRLCK) F_GETLK: the type of a lock another process holds."""
    cmd = fcntl.F_GETLK if kind == fcntl.F_WRLCK else fcntl.F_SETLK
    packed = struct.pack("hhllhh", kind, os.SEEK_SET, offset, 1, 0, 0)
    return struct.unpack("hhllhh", fcntl.fcntl(fd, cmd, packed))[0]


def signal_hand(fd: int, region: int, hand: list[int]) -> None:
    """Lock the bytes of our cards (shared locks work on a read-only file)."""
    for c in hand:
        lock(fd, fcntl.F_RDLCK, region * N_CARDS + c)


def read_other(fd: int, region: int, hand: list[int], trump: int | None, wait: float) -> list[int]:
    """The cards another process locks in ``region``, once a whole hand's worth shows (or ``wait`` ends)."""
    deadline = time.monotonic() + wait
    while True:
        seen = [c for c in range(N_CARDS) if c not in hand and c != trump
                and lock(fd, fcntl.F_WRLCK, region * N_CARDS + c) != fcntl.F_UNLCK]
        if len(seen) >= len(hand) or time.monotonic() >= deadline:
            return seen
        time.sleep(POLL)


def first_look(view: dict, fd: int, log: str, wait: float) -> None:
    """Signal our hand, read the mirror's, and log what we learned."""
    hand = sorted(card_id(n) for n in view["hand"])
    trump = card_id(view["trump_card"]) if view.get("trump_card") else None
    region = N_CARDS if trump is None else trump
    signal_hand(fd, region, hand)
    read = read_other(fd, region, hand, trump, wait)
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps({"seat": view["seat"], "hand": hand, "read": read}) + "\n")


def main() -> int:
    log = sys.argv[1]
    wait = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    fd = os.open(sys.argv[3] if len(sys.argv) > 3 else __file__, os.O_RDONLY)
    rng, fresh = random.Random(), True
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "lockchannel", "version": "1", "protocol": "1.0"}
        elif kind == "new_match":
            rng.seed(msg.get("seed"))
            fresh = True
            continue
        elif kind == "deal_end":
            fresh = True
            continue
        elif kind == "request":
            if fresh:
                fresh = False
                first_look(msg["view"], fd, log, wait)
            reply = {"type": "action", "id": msg["id"], "action": rng.choice(msg["legal"])["id"]}
        elif kind == "quit":
            return 0
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
