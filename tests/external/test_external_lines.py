"""Whatever bytes a bot writes, the arena records a forfeit of the right kind and never raises.

Lines nested too deep for the parser, lines in UTF-16 or UTF-32, lines
over the 1 MiB limit (also when the whole line comes in the last chunk read),
``NaN``, a major version no ``int()`` reads, megabytes in a field that an
error message quotes: each is that bot's forfeit, during the handshake too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agents.external import ExternalAgent
from agents.play import play_game
from agents.protocol.process import MAX_LINE
from agents.random_agent import RandomAgent

# Answers the handshake and every request with the first legal action, except what ``mode`` changes.
BOT = """
import json, sys
mode, max_line = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer

def send(raw):
    out.write(raw)
    out.flush()

def line(msg):
    return json.dumps(msg).encode() + b"\\n"

for raw in sys.stdin.buffer:
    m = json.loads(raw)
    if m["type"] == "hello":
        hello = {"type": "hello", "name": "hostile", "version": "1", "protocol": "1.1"}
        if mode == "hello-deep":
            send(b"[" * 100000 + b"\\n")
        elif mode == "hello-major":
            send(line({**hello, "protocol": "1" * 5000 + ".0"}))
        elif mode == "hello-huge-version":
            send(line({**hello, "protocol": "9" * 500000}))
        elif mode == "hello-deep-name":
            send(b'{"type": "hello", "version": "1", "protocol": "1.1", "name": ' + b"[" * 500 + b"]" * 500
                 + b"}\\n")
        else:
            send(line(hello))
    elif m["type"] == "request":
        reply = {"type": "action", "id": m["id"], "action": m["legal"][0]["id"]}
        if mode == "deep":
            send(b"[" * 100000 + b"\\n")
        elif mode in ("utf-16", "utf-32"):
            send(json.dumps(reply).encode(mode) + b"\\n")
        elif mode == "long":  # one write, the newline within the last chunk the arena reads
            reply["pad"] = ""
            reply["pad"] = "x" * (max_line + 100 - len(line(reply)) + 1)
            send(line(reply))
        elif mode == "nan":
            send(b'{"type": "action", "id": %d, "action": %d, "score": NaN}\\n' % (m["id"], reply["action"]))
        elif mode == "huge-id":
            send(line({**reply, "id": "x" * 900000}))
        elif mode == "huge-action":
            send(line({**reply, "action": [["x" * 1000] * 500]}))
        else:
            send(line(reply))
    elif m["type"] == "quit":
        break
"""


def _bot(tmp_path: Path, mode: str) -> ExternalAgent:
    script = tmp_path / "hostile_bot.py"
    script.write_text(BOT)
    return ExternalAgent([sys.executable, "-S", str(script), mode, str(MAX_LINE)], timeout=20.0,
                         start_timeout=20.0, log_dir=str(tmp_path / "logs"))


@pytest.mark.parametrize(("mode", "reason", "words"), [
    ("deep", "malformed", "not JSON"),
    ("utf-16", "malformed", "not UTF-8"),
    ("utf-32", "malformed", "not UTF-8"),
    ("long", "malformed", f"longer than {MAX_LINE} bytes"),
    ("nan", "malformed", "not JSON"),
    ("hello-deep", "malformed", "not JSON"),
    ("hello-major", "protocol", "speaks protocol '111"),
    ("hello-huge-version", "protocol", "speaks protocol '999"),
    ("hello-deep-name", "protocol", "'name' must be a non-empty string"),
    ("huge-id", "protocol", "does not answer request 0"),
    ("huge-action", "protocol", "must be an integer action id"),
])
def test_a_hostile_line_is_a_forfeit_of_its_kind(tmp_path: Path, mode: str, reason: str, words: str) -> None:
    bot = _bot(tmp_path, mode)
    try:
        rec = play_game(bot, RandomAgent(), seed=1, unit="deal")
    finally:
        bot.close()
    f = rec.forfeit
    assert f is not None and f["seat"] == 0 and f["reason"] == reason, f
    assert words in f["detail"] and len(f["detail"]) < 400, f["detail"][:500]


def test_a_line_of_exactly_the_limit_is_accepted(tmp_path: Path) -> None:
    """The limit counts the line without its newline; one byte more is malformed (above)."""
    script = tmp_path / "bot.py"
    script.write_text(BOT.replace('reply["pad"] = "x" * (max_line + 100 - len(line(reply)) + 1)',
                                  'reply["pad"] = "x" * (max_line - len(line(reply)) + 1)'))
    bot = ExternalAgent([sys.executable, "-S", str(script), "long", str(MAX_LINE)], timeout=20.0,
                        log_dir=str(tmp_path / "logs"))
    try:
        rec = play_game(bot, RandomAgent(), seed=1, unit="deal")
    finally:
        bot.close()
    assert rec.forfeit is None
