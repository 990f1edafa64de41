#!/usr/bin/env python3
"""A Sixty-Six bot in plain Python (standard library only): a uniformly random legal action.

It speaks the sixtysix external-bot protocol 1.2 (agents/protocol/PROTOCOL.md):
one JSON object per line on standard input, one per line on standard output,
anything for humans on standard error. It plays every game the arena offers
(two players or four, any rules preset): ``new_match`` names the game, and
each request's ``legal`` list is all it needs. Run it in the arena with

    sixtysix arena random "exec:python3 examples/bots/random_bot.py"

Start a new bot from this file: replace ``choose``.
"""

from __future__ import annotations

import json
import random
import sys

NAME, VERSION, PROTOCOL = "random-py", "1.1", "1.2"


def choose(request: dict, rng: random.Random) -> int:
    """The action id to play; ``request["view"]`` is what this player knows (a four-player view
    has ``team`` and ``partner``; the game's rules came in ``new_match``)."""
    return rng.choice(request["legal"])["id"]


def main() -> int:
    rng = random.Random()
    out = sys.stdout
    for line in sys.stdin:  # the loop ends at end of input: the arena is gone, so exit
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            if str(msg.get("protocol", "")).split(".")[0] != PROTOCOL.split(".")[0]:
                print(f"{NAME}: cannot speak protocol {msg.get('protocol')!r}", file=sys.stderr)
                return 2
            reply = {"type": "hello", "name": NAME, "version": VERSION, "protocol": PROTOCOL}
        elif kind == "new_match":
            rng.seed(msg.get("seed"))
            rules = msg.get("rules") or {"name": "german"}  # absent before protocol 1.2
            print(f"{NAME}: seat {msg.get('seat')} of {msg.get('players', 2)}, rules {rules.get('name')}",
                  file=sys.stderr, flush=True)
            continue
        elif kind == "request":
            reply = {"type": "action", "id": msg["id"], "action": choose(msg, rng)}
        elif kind == "quit":
            return 0
        else:  # deal_end, match_end, and any message a later 1.x version adds: no reply
            continue
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
