"""External bots under the fair rules of issue 24 and the caps of issue 23: CPU time, fresh processes,
capped logs, the sandbox."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from external_helpers import FAULTY, PY_BOT, spec

from agents.arena import head_to_head
from agents.external import make_external
from agents.play import play_game
from agents.protocol.process import LOG_HEAD, LOG_TAIL
from agents.protocol.sandbox import sandbox_problem

NO_SANDBOX = sandbox_problem()


def _faulty(tmp_path: Path, *words: str) -> str:
    return spec([*FAULTY, *words], tmp_path)


@pytest.mark.parametrize("words, clock, forfeit", [
    (("burn=0.6",), "cpu", True),  # thinking with its own CPU: over the limit
    (("burnchild=0.6",), "cpu", True),  # also in a child process
    (("slow=0.6",), "cpu", False),  # waiting costs no CPU time (the wall cap is 30x + 2 s)
    (("slow=0.6",), "wall", True),
])
def test_cpu_time_is_the_bots_own_process_tree(tmp_path, words, clock, forfeit):
    bot = make_external(spec([*FAULTY, *words], tmp_path)[len("exec:"):])
    try:
        rec = play_game(bot, make_external(spec(PY_BOT, tmp_path)[len("exec:"):]), seed=1, unit="deal",
                        move_time=(0.3, None), clock=clock)
    finally:
        bot.close()
    if forfeit:
        assert rec.forfeit is not None and rec.forfeit["kind"] == "time" and rec.forfeit["seat"] == 0
        assert ("CPU" in rec.forfeit["detail"]) == (clock == "cpu")
    else:
        assert rec.forfeit is None


@pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")
def test_cpu_time_is_counted_inside_the_sandbox_too(tmp_path):
    bot = make_external(spec([*FAULTY, "burnchild=0.6"], tmp_path, sandbox=1)[len("exec:"):])
    try:
        rec = play_game(bot, make_external(spec(PY_BOT, tmp_path)[len("exec:"):]), seed=1, unit="deal",
                        move_time=(0.3, None), clock="cpu")
    finally:
        bot.close()
    assert rec.forfeit["kind"] == "time" and "CPU" in rec.forfeit["detail"]


def test_every_game_is_a_fresh_process(tmp_path):
    memory = tmp_path / "memory.txt"
    for workers in (1, 2):
        memory.unlink(missing_ok=True)
        st = head_to_head(_faulty(tmp_path, f"memory={memory}"), "random", games=4, unit="deal", seed=1,
                          workers=workers)
        assert st.games == 4 and st.forfeits == 0
        seen = [line.split() for line in memory.read_text().splitlines()]
        assert len(seen) == 4 and len({pid for pid, _ in seen}) == 4 and all(n == "0" for _, n in seen)


def test_a_chatty_bots_stderr_log_is_capped(tmp_path):
    bot = make_external(_faulty(tmp_path, f"spew={50 << 20}")[len("exec:"):])
    try:
        rec = play_game(bot, make_external(spec(PY_BOT, tmp_path)[len("exec:"):]), seed=1, unit="deal")
    finally:
        bot.close()
    assert rec.forfeit is None
    log = Path(bot.log_path)
    assert log.stat().st_size < LOG_HEAD + LOG_TAIL + 4096
    text = log.read_text()
    dropped = int(re.search(r"--- (\d+) bytes of stderr dropped", text).group(1))
    assert dropped > 40 << 20 and "the last words" in text  # the tail is kept


@pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")
def test_the_sandbox_keeps_the_network_and_the_arenas_files_away(tmp_path, monkeypatch):
    secret = tmp_path / "results.jsonl"
    secret.write_text("the master seed")
    named = tmp_path / "named.txt"
    named.write_text("named on the command line")
    monkeypatch.setenv("PROBE_SECRET", str(secret))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setenv("PROBE_PORT", str(server.getsockname()[1]))
        probes = {}
        for sandbox in (False, True):
            logs = tmp_path / f"logs{sandbox}"
            st = head_to_head(spec([*FAULTY, f"probe={named}"], logs), "random", games=2, unit="deal",
                              seed=1, sandbox=sandbox)
            assert st.forfeits == 0
            text = "".join(p.read_text() for p in logs.glob("*.log"))
            probes[sandbox] = re.findall(r"probe (.*)", text)
            (tmp_path / "probe-note").unlink(missing_ok=True)
    assert len(probes[False]) == len(probes[True]) == 2  # a process per game
    assert probes[False][0].startswith("net=yes path=yes secret=yes tmp=yes note=no")
    assert "note=yes" in probes[False][1]  # outside the sandbox, games can pass notes in files
    for probe in probes[True]:
        assert probe.startswith("net=no(") and "path=yes secret=no(" in probe
        assert "tmp=yes note=no cwd=yes" in probe  # a private /tmp per process: no notes


def test_sandbox_refused_with_one_line_where_it_cannot_run(monkeypatch):
    from agents.protocol import sandbox

    monkeypatch.setattr(sandbox, "sandbox_problem", lambda: "bubblewrap is not installed (apt-get ...)")
    with pytest.raises(ValueError, match="--sandbox: bubblewrap is not installed"):
        head_to_head("random", "random", games=2, sandbox=True)
