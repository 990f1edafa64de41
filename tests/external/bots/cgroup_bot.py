#!/usr/bin/env python3
"""A hostile bot for the cgroup tests: it plays the first legal action, and cheats the way its first
argument says. At the handshake it logs ``oom_score_adj N`` on stderr.

- ``reaper K S``: every move, ``K`` children one after the other, each burning ``S`` s of CPU,
  reaped without a wait (``SIGCHLD`` ignored): their time never reaches the bot's own counters;
- ``hopper TOKEN``: at the handshake, a daemon (fork, setsid, fork) that starts its next
  generation and exits every 10 ms, so its pid changes while a scan of ``/proc`` lists and kills
  it (``TOKEN``, in its command line, lets a test find it);
- ``hog MIB``: at the first request, allocates and touches ``MIB`` MiB, 16 MiB at a time;
- ``forker N``: at the first request, starts up to ``N`` sleeping threads and logs ``threads T``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time


def burn(seconds: float) -> None:
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass


def reaper(k: int, s: float) -> None:
    for _ in range(k):
        r, w = os.pipe()
        if os.fork() == 0:
            os.close(r)
            burn(s)
            os._exit(0)
        os.close(w)
        os.read(r, 1)  # end of file: the child has ended (and the kernel reaps it)
        os.close(r)


def hopper() -> None:
    ready, told = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(told, b"x")
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            while True:  # each generation lives 10 ms, starts the next and exits
                time.sleep(0.01)
                if os.fork() != 0:
                    os._exit(0)
        os._exit(0)
    os.read(ready, 1)


def hog(mib: int) -> None:
    chunks = []
    for _ in range(mib // 16):
        chunks.append(bytearray(16 << 20))  # zeroed, so every page is touched
    print(f"allocated {mib} MiB", file=sys.stderr, flush=True)


def forker(n: int) -> None:
    started = 0
    try:
        for _ in range(n):
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            started += 1
    except RuntimeError:
        pass
    print(f"threads {started}", file=sys.stderr, flush=True)


def main() -> None:
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "reaper":
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    moves = 0
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            with open("/proc/self/oom_score_adj") as f:
                print(f"oom_score_adj {f.read().strip()}", file=sys.stderr, flush=True)
            if mode == "hopper":
                hopper()
            print(json.dumps({"type": "hello", "name": mode, "version": "1", "protocol": "1.1"}), flush=True)
        elif m["type"] == "request":
            moves += 1
            if mode == "reaper":
                reaper(int(args[0]), float(args[1]))
            elif mode == "hog" and moves == 1:
                hog(int(args[0]))
            elif mode == "forker" and moves == 1:
                forker(int(args[0]))
            print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]["id"]}), flush=True)
        elif m["type"] == "quit":
            break


if __name__ == "__main__":
    main()
