"""What the sandbox binds, checked without running it: nothing that is, or lies above, the working folder,
the home folder, the log folder or a registered results folder (after ``realpath``, so links do not get
around it); the folder above a ``bin`` only where it is a real installation; a one-line refusal for what
cannot be bound safely. Also the keyring filter, run on a small BPF interpreter."""

from __future__ import annotations

import os
import struct

import pytest

from agents.protocol import sandbox
from agents.protocol.sandbox import SandboxError, bind_plan, named_paths, protect, sandbox_argv
from agents.protocol.sandbox import seccomp_filter as keyring_filter


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    """protect() is process-wide: each test starts and ends with an empty registry."""
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.delenv(sandbox.PROTECT_ENV, raising=False)
    monkeypatch.delenv(sandbox.LOG_DIR_ENV, raising=False)


def _program(folder, name="bot"):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def _refused(argv, cwd) -> str:
    with pytest.raises(SandboxError) as e:
        bind_plan(argv, str(cwd))
    assert "\n" not in str(e.value) and isinstance(e.value, ValueError)
    return str(e.value)


def test_a_bot_in_the_working_folders_bin_is_bound_alone(tmp_path):
    run = tmp_path / "run"
    bot = _program(run / "bin")
    (run / "results.jsonl").write_text('{"master_seed": 1}\n')
    for program in ("bin/bot", str(bot)):
        assert named_paths([program], str(run)) == [str(bot)]
        argv = sandbox_argv([program], str(run))
        assert [b for a, b in zip(argv, argv[1:], strict=False) if a == "--ro-bind" and b == str(run)] == []


def test_a_bot_in_the_home_folders_bin_is_bound_alone(tmp_path, monkeypatch):
    home = tmp_path / "home"
    bot = _program(home / "bin")
    monkeypatch.setenv("HOME", str(home))
    assert named_paths([str(bot)], str(tmp_path / "elsewhere")) == [str(bot)]


@pytest.mark.parametrize("where", ["cwd", "home"])
def test_a_protected_folder_that_looks_like_an_installation_is_refused(tmp_path, monkeypatch, where):
    run, home = tmp_path / "run", tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    top = run if where == "cwd" else home
    bot = _program(top / "bin", "python3")
    (top / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a venv marker: the folder would be bound whole
    run.mkdir(exist_ok=True)
    assert str(top) in _refused([str(bot), "x"], run)


def test_an_installation_elsewhere_is_bound(tmp_path):
    prefix = tmp_path / "opt" / "py"
    (prefix / "lib" / "python3.11").mkdir(parents=True)
    (prefix / "lib" / "python3.11" / "os.py").write_text("")
    python = _program(prefix / "bin", "python3.11")
    assert named_paths([str(python), "bot.py"], str(tmp_path / "run")) == [str(prefix)]


def test_a_folder_above_bin_without_a_marker_is_not_an_installation(tmp_path):
    top = tmp_path / "tools"
    _program(top / "bin", "python3")
    (top / "lib").mkdir()
    assert not sandbox.is_installation(str(top))
    assert named_paths([str(top / "bin" / "python3")], str(tmp_path)) == [str(top / "bin" / "python3")]


@pytest.mark.parametrize("word", [".", "..", "./", "sub/..", "/", "/tmp", "/etc/shadow", "/etc", "/root",
                                  "/sys/kernel", "to_environ", "to_root"])
def test_named_paths_that_expose_the_run_or_the_system_are_refused(tmp_path, word):
    (tmp_path / "sub").mkdir()
    (tmp_path / "to_environ").symlink_to("/proc/1/environ")  # the arena's pid 1, through a link
    (tmp_path / "to_root").symlink_to("/proc/self/root")
    if os.path.exists(word if word.startswith("/") else tmp_path / word):
        _refused(["python3", "bot.py", word], tmp_path)


@pytest.mark.parametrize("word", ["/proc/self/cwd", "/proc/1/environ", "/dev/null", "/etc/ld.so.cache",
                                  "/usr/bin", "/bin/sh"])
def test_what_the_box_has_of_its_own_is_not_bound(tmp_path, word):
    assert named_paths(["python3", "bot.py", word], str(tmp_path)) == []


def test_the_log_folder_and_registered_results_are_protected(tmp_path, monkeypatch):
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv(sandbox.LOG_DIR_ENV, str(run / "logs"))
    _refused(["python3", str(run / "logs")], tmp_path)
    assert named_paths(["python3", str(out)], str(run)) == [str(out)]
    protect(str(out / "results.jsonl"))
    assert str(out / "results.jsonl") in os.environ[sandbox.PROTECT_ENV]  # inherited by workers
    _refused(["python3", str(out)], run)
    _refused(["python3", str(tmp_path)], run)  # a folder above is refused too
    (tmp_path / "other").mkdir()
    with pytest.raises(SandboxError):  # and the paths sandbox_argv is given (the bot's log folder)
        bind_plan(["python3", str(tmp_path / "other")], str(run), protected=[str(tmp_path / "other" / "r")])


def test_a_link_to_a_folder_above_is_refused_at_its_real_path(tmp_path):
    run = tmp_path / "run"
    (run / "bots").mkdir(parents=True)
    (run / "bots" / "lib").symlink_to(run)  # looks like the bot's own folder
    (run / "bots" / "up").symlink_to(tmp_path)
    assert str(run) in _refused(["python3", "bots/lib"], run)
    assert str(tmp_path) in _refused(["python3", "bots/up"], run)


def test_a_linked_bot_is_bound_at_its_real_path_with_the_link_beside(tmp_path):
    run, store = tmp_path / "run", tmp_path / "store"
    bot = _program(store / "bin")
    (run / "bots").mkdir(parents=True)
    (run / "bots" / "mine").symlink_to(bot)
    binds, links = bind_plan(["bots/mine"], str(run))
    assert binds == [str(bot)] and links == [(str(bot), str(run / "bots" / "mine"))]


def test_the_box_drops_capabilities_keyrings_and_most_of_etc():
    argv = sandbox_argv(["/bin/true"], "/tmp")
    for flag in ("--cap-drop", "--new-session", "--die-with-parent", "--unshare-all", "--clearenv"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL" and argv[argv.index("--seccomp") + 1] == "9"
    assert argv[:3] == ["/bin/sh", "-c", sandbox.SECCOMP_EXEC] and argv[3].endswith("seccomp.bpf")
    binds = [b for a, b in zip(argv, argv[1:], strict=False) if a == "--ro-bind"]
    assert "/etc" not in binds and not any(b.startswith(("/etc/shadow", "/etc/ssh")) for b in binds)
    assert oct(os.stat(os.path.dirname(argv[3])).st_mode & 0o777) == "0o700"


# ----------------------------------------------------------- the BPF filter
def _run_bpf(prog: bytes, arch: int, nr: int) -> int:
    """The return value of a seccomp BPF program (the opcodes the filter uses) for one system call."""
    ops = [struct.unpack("=HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    data = struct.pack("=iI", nr, arch)
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = ops[pc]
        if code == 0x20:
            acc = struct.unpack_from("=I", data, k)[0]
        elif code in (0x15, 0x35):
            hit = acc == k if code == 0x15 else acc >= k
            pc += jt if hit else jf
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


@pytest.mark.parametrize("arch", sorted(sandbox.AUDIT_ARCH))
def test_the_filter_fails_the_keyring_calls_with_eperm_and_allows_the_rest(arch):
    prog = keyring_filter()
    for nr in sandbox.AUDIT_ARCH[arch]:
        assert _run_bpf(prog, arch, nr) == sandbox.RET_EPERM
    for nr in (0, 1, 59, 60, 231, 247, 251, 400):
        if nr not in sandbox.AUDIT_ARCH[arch]:
            assert _run_bpf(prog, arch, nr) == sandbox.RET_ALLOW
    assert _run_bpf(prog, 0x12345678, 0) == sandbox.RET_EPERM  # an unknown system-call table
    if arch == 0xC000003E:
        assert _run_bpf(prog, arch, sandbox.X32_BIT | 248) == sandbox.RET_EPERM
