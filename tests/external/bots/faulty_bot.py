"""A test bot (standard library only) that plays randomly and misbehaves on request.

Arguments are ``key=value`` words:

- ``fault=KIND`` at request number ``at=N`` (1-based, counted per process):
  ``timeout`` (never answers), ``crash`` (exits with status 3),
  ``malformed`` (a line that is not JSON), ``illegal`` (an action that is not
  legal), ``wrongid`` (answers another request id), ``chatty`` (an extra
  line after its reply), ``badhello`` (speaks protocol 2.0), ``nohello``
  (never answers the handshake);
- ``slow=SECONDS`` before every reply; ``grandchild=1`` starts a ``sleep``
  in its process group (it never reads stdin, so only a group kill ends it);
  ``stubborn=1`` ignores ``quit`` and end of input; ``record=PATH`` appends
  every line received to PATH.

It writes ``pid N`` (and ``grandchild N``) to stderr, so tests can check
that every process is gone.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time


def main() -> int:
    opts = dict(a.split("=", 1) for a in sys.argv[1:])
    fault, at = opts.get("fault", ""), int(opts.get("at", "1"))
    slow = float(opts.get("slow", "0"))
    print(f"pid {os.getpid()}", file=sys.stderr, flush=True)
    if opts.get("grandchild") == "1":
        child = subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        print(f"grandchild {child.pid}", file=sys.stderr, flush=True)
    record = open(opts["record"], "a") if "record" in opts else None  # noqa: SIM115
    rng = random.Random(0)
    n = 0

    def send(msg: dict) -> None:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        if record is not None:
            record.write(line)
            record.flush()
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            if fault == "nohello":
                time.sleep(60)
            send({"type": "hello", "name": "faulty", "version": "0",
                  "protocol": "2.0" if fault == "badhello" else "1.0"})
        elif kind == "new_match":
            rng.seed(msg["seed"])
        elif kind == "request":
            n += 1
            legal = [a["id"] for a in msg["legal"]]
            if slow:
                time.sleep(slow)
            if n == at and fault == "timeout":
                time.sleep(60)
            if n == at and fault == "crash":
                print("faulty_bot: crashing on purpose", file=sys.stderr, flush=True)
                return 3
            if n == at and fault == "malformed":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            action = rng.choice(legal)
            if n == at and fault == "illegal":
                action = min(set(range(32)) - set(legal))
            rid = msg["id"] + 1 if n == at and fault == "wrongid" else msg["id"]
            if n == at and fault == "chatty":  # one write: the extra line arrives with the reply
                sys.stdout.write(json.dumps({"type": "action", "id": rid, "action": action}) + "\n"
                                 + json.dumps({"type": "note", "text": "hello there"}) + "\n")
                sys.stdout.flush()
                continue
            send({"type": "action", "id": rid, "action": action})
        elif kind == "quit" and opts.get("stubborn") != "1":
            return 0
    if opts.get("stubborn") == "1":
        time.sleep(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
