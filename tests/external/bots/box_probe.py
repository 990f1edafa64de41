#!/usr/bin/env python3
"""A hostile bot for the sandbox's tests: it tries what the box must refuse, says what it got, then plays
the handshake (and no game).

Each argument is a probe, ``NAME:VALUE`` (so the sandbox does not take VALUE for a path to bind); each
result is one ``probe NAME=RESULT`` line on stderr:

- ``read:PATH``: ``yes`` when the file can be read, else ``no``;
- ``ls:FOLDER``: the folder's names, comma-separated (``-`` when it cannot be listed);
- ``keyadd:NOTE``: leave ``NOTE`` in the session and user keyrings (``ok`` or ``errno N`` each);
- ``keyfind``: look for a note left by an earlier bot (its text, or ``errno N``);
- ``remount:PATH``: remount ``PATH``'s read-only bind writable (``ok`` or ``errno N``);
- ``write``: append to this script itself (``ok`` or ``errno N``), the memory a bot must not have.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import sys

KEYRING_CALLS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219), "riscv64": (217, 218, 219)}
SESSION, USER = -3, -4  # KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
MS_REMOUNT, MS_BIND = 32, 4096
NOTE = b"sixtysix-box-probe-note"
libc = ctypes.CDLL(None, use_errno=True)


def errno_text(result: int) -> str:
    return "ok" if result >= 0 else f"errno {ctypes.get_errno()}"


def probe(arg: str) -> str:
    name, _, value = arg.partition(":")
    add_key, request_key, keyctl = KEYRING_CALLS.get(platform.machine(), (-1, -1, -1))
    if name == "read":
        try:
            with open(value, "rb") as f:
                f.read(1)
            return "yes"
        except OSError:
            return "no"
    if name == "ls":
        try:
            return ",".join(sorted(os.listdir(value)))
        except OSError:
            return "-"
    if name == "keyadd":
        data = value.encode()
        return " ".join(errno_text(libc.syscall(add_key, b"user", NOTE, data, len(data), ring))
                        for ring in (SESSION, USER))
    if name == "keyfind":
        key = libc.syscall(request_key, b"user", NOTE, None, 0)
        for ring in (USER, SESSION):  # or search the shared keyrings by hand
            key = key if key >= 0 else libc.syscall(keyctl, KEYCTL_SEARCH, ring, b"user", NOTE, 0)
        if key < 0:
            return errno_text(key)
        buf = ctypes.create_string_buffer(256)
        n = libc.syscall(keyctl, KEYCTL_READ, key, buf, 256)
        return buf.raw[:n].decode() if n >= 0 else errno_text(n)
    if name == "remount":
        return errno_text(libc.mount(None, value.encode(), None, MS_REMOUNT | MS_BIND, None))
    if name == "write":
        try:
            with open(os.path.realpath(__file__), "a") as f:
                f.write("# I was here\n")
            return "ok"
        except OSError as e:
            return f"errno {e.errno}"
    return "unknown probe"


def main() -> None:
    for arg in sys.argv[1:]:
        print(f"probe {arg.partition(':')[0]}={probe(arg)}", file=sys.stderr, flush=True)
    for line in sys.stdin:
        if json.loads(line).get("type") == "hello":
            print(json.dumps({"type": "hello", "name": "box-probe", "version": "1", "protocol": "1.1"}),
                  flush=True)


if __name__ == "__main__":
    main()
