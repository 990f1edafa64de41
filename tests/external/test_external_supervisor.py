"""The supervisor's cleanup reads ``/proc/PID/stat`` right whatever a process is named.

The name (``comm``) sits in parentheses and may hold spaces, ``)`` and even a
newline; a bot's child so named must still be found as a member of the bot's
process group when the bot exits (and be killed), and its CPU time counted.
"""

from __future__ import annotations

import ctypes
import sys
import time
from pathlib import Path

import pytest
from external_helpers import wait_gone

from agents.protocol.cputime import tree_cpu_seconds
from agents.protocol.process import BotProcess

# A bot that starts a child, names it (prctl PR_SET_NAME), lets it burn CPU and then sleep for
# good; the bot prints the child's pid, and exits as soon as its standard input closes.
CHILD = """
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(sys.argv[1].encode()), 0, 0, 0)
t = time.process_time()
while time.process_time() - t < 0.3:
    pass
print("burnt", flush=True)
time.sleep(1000)
"""
BOT = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-S", "-c", sys.argv[1], sys.argv[2]], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE)
child.stdout.readline()
print(child.pid, flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor is Linux only")
@pytest.mark.parametrize("name", ["my bot child", "a) 1 2 3 4 5", "new\nline ) x", "(("])
def test_a_bots_child_named_with_spaces_is_counted_and_cleaned_up(tmp_path: Path, name: str) -> None:
    assert hasattr(ctypes.CDLL(None), "prctl")
    bot = BotProcess((sys.executable, "-S", "-c", BOT, CHILD, name), str(tmp_path / "bot.log"))
    try:
        child = int(bot.recv(time.monotonic() + 20, "the child's pid"))
        comm = Path(f"/proc/{child}/comm").read_bytes()
        assert comm.rstrip(b"\n") == name.encode()[:15]  # the kernel keeps 15 bytes of a name
        assert bot.cpu_seconds() >= 0.25 and tree_cpu_seconds(child) >= 0.25  # the child's time counts
        bot.popen.stdin.close()  # the bot exits on end of file: its supervisor cleans up, then exits
        bot.popen.wait(timeout=10)
        assert not wait_gone({child}, timeout=3), "the bot's child outlived the supervisor"
    finally:
        bot.stop(0, "test over")
