"""A bot's processes end with its game even when they leave its process group (``setsid``, a
double-forked daemon): such a process could go on burning the machine's CPU, uncounted, under other
bots' moves, or keep a bot's memory from one game of a duplicate pair to the other."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from external_helpers import spec, wait_gone

from agents.arena import head_to_head

# Plays the first legal action; at the handshake it starts a daemon (fork, setsid, fork) that sleeps
# long, and logs its pid before the bot answers. With "stubborn" it ignores "quit" and the end of its input.
BOT = """
import json, os, signal, sys, time
stubborn = "stubborn" in sys.argv
if stubborn:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        ready, told = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                print(f"daemon {os.getpid()} group {os.getpgid(0)}", file=sys.stderr, flush=True)
                os.write(told, b"x")
                os.close(0), os.close(1), os.close(2)
                time.sleep(60)
            os._exit(0)
        os.read(ready, 1)  # the daemon has logged its pid before the game can end
        print(json.dumps({"type": "hello", "name": "daemon", "version": "1", "protocol": "1.1"}), flush=True)
    elif m["type"] == "request":
        print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]["id"]}), flush=True)
    elif m["type"] == "quit" and not stubborn:
        break
while stubborn:
    time.sleep(1)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor is Linux only")
@pytest.mark.parametrize("stubborn", [False, True])
def test_a_bots_daemon_does_not_outlive_its_game(tmp_path: Path, stubborn: bool) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    argv = [sys.executable, "-S", str(bot), *(["stubborn"] if stubborn else [])]
    st = head_to_head(spec(argv, tmp_path / "logs"), "random", games=2, unit="deal")
    assert st.forfeits == 0
    text = "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))
    daemons = {int(pid) for pid in re.findall(r"^daemon (\d+)", text, re.M)}
    assert len(daemons) == 2  # a fresh process per game, each with its daemon
    left = wait_gone(daemons, timeout=10)
    for pid in left:  # leave nothing behind, also when the test fails
        os.kill(pid, 9)
    assert not left, "a bot's daemon outlived its game"
