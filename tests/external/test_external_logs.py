"""A bot's stderr log keeps the opening and the end of every process's stderr, as PROTOCOL.md says.

The processes of one bot in one arena process (a fresh one per game) share
one log file: each is capped on its own, the second as the first.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from external_helpers import spec

from agents.arena import head_to_head
from agents.protocol.process import LOG_FILE_CAP, LOG_HEAD, LOG_TAIL, SHORT_TAIL, StderrLog

# At the handshake: a line that opens its stderr, 1 MiB of filler, a closing line; then it plays.
BOT = """
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        pid = os.getpid()
        sys.stderr.write(f"opening of {pid}\\n" + ("x" * 1023 + "\\n") * 1024 + f"closing of {pid}\\n")
        sys.stderr.flush()
        print(json.dumps({"type": "hello", "name": "chatty", "version": "1", "protocol": "1.1"}), flush=True)
    elif m["type"] == "request":
        print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]["id"]}), flush=True)
    elif m["type"] == "quit":
        break
"""


def test_every_process_keeps_its_own_opening_and_end(tmp_path: Path) -> None:
    script = tmp_path / "chatty.py"
    script.write_text(BOT)
    st = head_to_head(spec([sys.executable, "-S", str(script)], tmp_path / "logs"), "random", games=3,
                      unit="deal", seed=1, workers=1)
    assert st.forfeits == 0
    (log,) = (tmp_path / "logs").glob("*.log")  # one bot, one arena process: one file
    text = log.read_text()
    openings = re.findall(r"^opening of (\d+)$", text, re.M)
    assert len(openings) == 3 and re.findall(r"^closing of (\d+)$", text, re.M) == openings
    assert len(re.findall(r"bytes of stderr dropped here", text)) == 3
    assert log.stat().st_size < 3 * (LOG_HEAD + LOG_TAIL + 4096)


def test_past_the_file_cap_a_process_keeps_only_a_short_tail(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    path.write_bytes(b"." * LOG_FILE_CAP)
    log = StderrLog(str(path))
    log.write(b"opening\n" + b"y" * (2 * SHORT_TAIL) + b"\nthe end\n")
    log.close()
    tail = path.read_bytes()[LOG_FILE_CAP:]
    assert b"opening" not in tail and tail.endswith(b"the end\n") and len(tail) < SHORT_TAIL + 200
