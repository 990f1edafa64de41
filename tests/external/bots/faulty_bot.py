"""A test bot (standard library only) that plays randomly and misbehaves on request.

Arguments are ``key=value`` words:

- ``fault=KIND`` at request number ``at=N`` (1-based, counted per process):
  ``timeout`` (never answers), ``crash`` (exits with status 3),
  ``malformed`` (a line that is not JSON), ``illegal`` (an action that is not
  legal), ``wrongid`` (answers another request id), ``chatty`` (an extra
  line after its reply), ``badhello`` (speaks protocol 2.0), ``nohello``
  (never answers the handshake);
- ``protocol=X.Y``: the protocol version it announces (default 1.0);
- ``slow=SECONDS`` before every reply; ``grandchild=1`` starts a ``sleep``
  in its process group (it never reads stdin, so only a group kill ends it);
  ``stubborn=1`` ignores ``quit`` and end of input; ``record=PATH`` appends
  every line received to PATH;
- ``burn=SECONDS`` of busy CPU before every reply (``burnchild=SECONDS``: in
  a child process it waits for); ``spew=BYTES`` written to stderr at the
  first request; ``memory=PATH``: at each ``new_match`` appends ``PID N``,
  N the games this process saw before;
- ``probe=PATH``: at the handshake, tries the network, reading PATH and the
  file named by ``$PROBE_SECRET``, and writing a note to ``$TMPDIR`` (or
  ``/tmp``), and writes what worked to stderr (``probe net=... secret=...
  tmp=... note=...``, ``note``: whether an earlier process left its note).

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
    n = games = 0
    burn, burnchild = float(opts.get("burn", "0")), float(opts.get("burnchild", "0"))

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
            if "probe" in opts:
                probe(opts["probe"])
            if fault == "nohello":
                time.sleep(60)
            send({"type": "hello", "name": "faulty", "version": "0",
                  "protocol": "2.0" if fault == "badhello" else opts.get("protocol", "1.0")})
        elif kind == "new_match":
            rng.seed(msg["seed"])
            if "memory" in opts:
                with open(opts["memory"], "a") as f:
                    f.write(f"{os.getpid()} {games}\n")
            games += 1
        elif kind == "request":
            n += 1
            legal = [a["id"] for a in msg["legal"]]
            if slow:
                time.sleep(slow)
            if burn:
                spin(burn)
            if burnchild:
                subprocess.run([sys.executable, "-S", "-c", f"import time\nt=time.process_time()\n"
                                f"while time.process_time() - t < {burnchild}: pass"], check=False)
            if n == 1 and "spew" in opts:
                chunk = b"x" * 65535 + b"\n"
                for _ in range(int(opts["spew"]) // len(chunk)):
                    sys.stderr.buffer.write(chunk)
                sys.stderr.buffer.write(b"the last words\n")
                sys.stderr.flush()
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


def spin(seconds: float) -> None:
    """Busy CPU for ``seconds`` of this process's CPU time."""
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass


def probe(path: str) -> None:
    """What the bot can reach: the network, ``path``, the file in $PROBE_SECRET, a write to /tmp."""
    import socket

    def tried(fn) -> str:
        try:
            fn()
        except OSError as e:
            return f"no({type(e).__name__})"
        return "yes"

    def net() -> None:
        socket.create_connection(("127.0.0.1", int(os.environ.get("PROBE_PORT", "9"))), timeout=1).close()

    note = os.path.join(os.environ.get("TMPDIR", "/tmp"), "probe-note")
    had_note = "yes" if os.path.exists(note) else "no"  # left by an earlier game's process?

    def tmp() -> None:
        with open(note, "w") as f:
            f.write("note")

    secret = os.environ.get("PROBE_SECRET", "/nonexistent")
    print(f"probe net={tried(net)} path={tried(lambda: open(path).read())} "
          f"secret={tried(lambda: open(secret).read())} tmp={tried(tmp)} note={had_note} "
          f"cwd={tried(lambda: os.listdir('.'))}:{len(os.listdir('.')) if os.path.isdir('.') else -1}",
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
