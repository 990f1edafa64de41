"""One bot, one box, run for real: a hostile bot (``bots/box_probe.py``) tries the reviewer's cheats inside
bubblewrap: reading the results beside a ``bin`` folder, passing a note through the kernel keyring to the
next game's bot, remounting its binds writable to rewrite itself (as root), reading ``/etc``. An honest
bot still plays through the arena. Skipped where bubblewrap cannot run."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agents.external import make_external
from agents.protocol import sandbox
from agents.protocol.sandbox import ETC_FILES, SandboxError, sandbox_argv, sandbox_problem

NO_SANDBOX = sandbox_problem()
pytestmark = pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")
ROOT = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).resolve().parent / "bots" / "box_probe.py"
EPERM = f"errno {1}"


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    """The arena's protect() is process-wide: each test starts and ends with an empty registry."""
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.delenv(sandbox.PROTECT_ENV, raising=False)


def _probes(text: str) -> dict[str, str]:
    return dict(re.findall(r"^probe (\w+)=(.*)$", text, re.M))


def boxed(argv: list[str], cwd: Path) -> dict[str, str]:
    """Run a command in the box (no protocol: end of input at once) and return its probe results."""
    r = subprocess.run(sandbox_argv(argv, str(cwd)), input=b"", capture_output=True, timeout=30, check=False)
    return _probes(r.stderr.decode(errors="replace"))


def _probe_copy(folder: Path, name: str = "probe") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    bot = folder / name
    shutil.copy(PROBE, bot)
    bot.chmod(0o755)
    return bot


def _play_handshake(spec: str, logs: Path) -> dict[str, str]:
    agent = make_external(f"sandbox=1,logs={logs} {spec}")
    try:
        agent.reset(1)
        assert agent.bot_info is not None and agent.bot_info["name"] == "box-probe"
    finally:
        agent.close()
    return _probes("".join(p.read_text() for p in logs.glob("*.log")))


def test_a_bot_in_the_working_folders_bin_cannot_read_the_results(tmp_path, monkeypatch):
    run = tmp_path / "run"
    _probe_copy(run / "bin")
    (run / "results.jsonl").write_text('{"master_seed": 1}\n')
    monkeypatch.chdir(run)
    got = _play_handshake(f"bin/probe read:{run / 'results.jsonl'} read:results.jsonl", tmp_path / "logs")
    assert got == {"read": "no"}  # both reads: the same answer, once per probe name


def test_a_bot_in_the_home_folders_bin_cannot_read_the_home(tmp_path, monkeypatch):
    home, run = tmp_path / "home", tmp_path / "run"
    bot = _probe_copy(home / "bin")
    (home / "results.jsonl").write_text('{"master_seed": 1}\n')
    run.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(run)
    assert _play_handshake(f"{bot} read:{home / 'results.jsonl'}", tmp_path / "logs") == {"read": "no"}


def test_a_folder_that_holds_the_results_is_refused_before_the_bot_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results.jsonl").write_text('{"master_seed": 1}\n')
    agent = make_external(f"sandbox=1,logs={tmp_path / 'logs'} python3 {PROBE} .")
    with pytest.raises(SandboxError, match="cannot bind '.*': .* is or holds the protected"):
        agent.reset(1)
    agent.close()


# Runs each command in turn from one fresh session keyring (as an arena started from a login shell would):
# without the box's filter, the first bot's note is the second one's (checked by hand: "keyfind=AS-KD-10H").
SHARED_SESSION = """
import ctypes, json, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
assert libc.syscall(int(sys.argv[1]), 1, None) > 0  # KEYCTL_JOIN_SESSION_KEYRING: a new anonymous one
for argv in json.loads(sys.argv[2]):
    sys.stderr.write(subprocess.run(argv, input=b"", capture_output=True, timeout=30).stderr.decode())
"""
KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219}


def test_a_note_in_the_keyring_never_reaches_the_next_bot(tmp_path):
    if platform.machine() not in KEYCTL:
        pytest.skip("the probe knows the keyring's system calls of x86_64, aarch64 and riscv64 only")
    pair = [sandbox_argv(["python3", str(PROBE), p], str(tmp_path)) for p in ("keyadd:AS-KD-10H", "keyfind")]
    keyctl = str(KEYCTL[platform.machine()])
    r = subprocess.run([sys.executable, "-c", SHARED_SESSION, keyctl, json.dumps(pair)], capture_output=True,
                       timeout=60, check=False)
    got = re.findall(r"^probe (\w+)=(.*)$", r.stderr.decode(), re.M)
    assert got == [("keyadd", f"{EPERM} {EPERM}"), ("keyfind", EPERM)], r.stderr.decode()[-500:]  # @s and @u


def test_a_bot_cannot_remount_its_binds_or_rewrite_itself(tmp_path):
    bot = _probe_copy(tmp_path / "bots")
    before = bot.read_bytes()
    got = boxed([str(bot), f"remount:{bot}", f"remount:{bot.parent}", "remount:/usr", "write"], tmp_path)
    assert got["remount"] == EPERM and got["write"] in (EPERM, "errno 30")  # EPERM, or EROFS
    assert bot.read_bytes() == before
    if os.getuid() == 0:  # the reviewer's case: as root, only the dropped capabilities stop it
        assert "CapEff:\t0000000000000000" in _status(tmp_path)


def _status(cwd: Path) -> str:
    r = subprocess.run(sandbox_argv(["/bin/cat", "/proc/self/status"], str(cwd)), capture_output=True,
                       timeout=30, check=False)
    return r.stdout.decode()


def test_etc_holds_only_what_programs_need(tmp_path):
    got = boxed(["python3", str(PROBE), "ls:/etc", "read:/etc/shadow"], tmp_path)
    allowed = {os.path.basename(p) for p in ETC_FILES} | {"passwd", "group"}
    assert set(got["ls"].split(",")) <= allowed and got["read"] == "no"
    assert not {"shadow", "hostname", "hosts", "ssh", "machine-id"} & set(got["ls"].split(","))


@pytest.mark.parametrize("argv, expected", [
    (["/bin/sh", "-c", "echo sh ok"], "sh ok"),
    (["python3", "-c", "import getpass, ssl; print('python ok', getpass.getuser() != '')"], "python ok True"),
    ([sys.executable, "-S", "-c", "print('venv ok')"], "venv ok"),
    (["node", "-e", "console.log('node ok', require('os').userInfo().username !== '')"], "node ok true"),
])
def test_programs_still_run_in_the_box(tmp_path, argv, expected):
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    r = subprocess.run(sandbox_argv(argv, str(tmp_path)), capture_output=True, timeout=30, check=False)
    assert r.stdout.decode().strip() == expected, r.stderr.decode()[-500:]


def test_an_honest_bot_plays_through_the_arena(tmp_path, monkeypatch):
    from agents.arena import api

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SIXTYSIX_BOT_LOGS", str(tmp_path / "logs"))
    bot = f"exec:sandbox=1,name=boxed python3 {ROOT / 'examples/bots/random_bot.py'}"
    _, _, lines = api.run([bot, "random"], games=2, unit="deal", results_path=str(tmp_path / "r.jsonl"))
    assert len(lines) == 2
    assert (tmp_path / "r.jsonl").read_text().count('"forfeit":null') == 2


def test_the_arena_refuses_a_command_that_names_its_results_folder(tmp_path, monkeypatch):
    from agents.arena import api

    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(api, "play_missing", lambda *a, **k: pytest.fail("a game was played"))
    bot = f"exec:python3 {ROOT / 'examples/bots/random_bot.py'} {out}"
    with pytest.raises(SandboxError, match="protected"):
        api.run([bot, "random"], games=2, unit="deal", sandbox=True, results_path=str(out / "r.jsonl"))
