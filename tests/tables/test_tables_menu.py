"""Browsers choose bots from a fixed menu: nothing a browser sends runs code on the server.

The RCE tests start a real server on loopback and send, as ``vs`` and as
``hint``, specs that would run code if the server so much as parsed them:
an ``exec:`` command, a bot file whose import writes a marker, a module on
the server's ``PYTHONPATH`` that does the same, and an installed entry-point
plug-in. Every one must be a 4xx, and no marker may exist afterwards.
"""

from __future__ import annotations

import pytest

from tables.menu import MAX_SPEC_CHARS, MenuError, menu_spec

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")

EVIL = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\nclass Bot:\n    pass\n"


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """Code that writes a marker file when imported: a bot file, a module on the server's
    PYTHONPATH, and an entry-point plug-in ``evilbot``; returns (specs, markers)."""
    mods = tmp_path / "mods"
    mods.mkdir()
    markers = {k: tmp_path / f"marker_{k}" for k in ("exec", "file", "module", "entry")}
    (tmp_path / "evil_file.py").write_text(EVIL.format(marker=str(markers["file"])))
    (mods / "evil_module.py").write_text(EVIL.format(marker=str(markers["module"])))
    (mods / "evil_entry.py").write_text(EVIL.format(marker=str(markers["entry"])))
    dist = mods / "evilbot-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evilbot\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[sixtysix.bots]\nevilbot = evil_entry:Bot\n")
    monkeypatch.setenv("PYTHONPATH", str(mods))
    specs = {
        "exec": f"exec:touch {markers['exec']}",
        "file": f"{tmp_path / 'evil_file.py'}:Bot",
        "module": "evil_module:Bot",
        "entry": "evilbot",
    }
    return specs, markers


def test_plug_in_and_program_specs_from_a_browser_run_nothing(start_server, hostile):
    specs, markers = hostile
    base, _ = start_server()
    with httpx.Client(base_url=base, timeout=30) as c:
        for spec in specs.values():
            for field in ("vs", "hint"):
                for text in (spec, spec + ":x=1", " " + spec, spec.upper()):
                    r = c.post("/api/games", json={field: text, "seed": 1})
                    assert 400 <= r.status_code < 500, (field, text, r.status_code, r.text)
                    assert set(r.json()) == {"error"}
    made = [k for k, m in markers.items() if m.exists()]
    assert made == [], f"a browser's spec ran code on the server: {made}"


def test_the_entry_point_plug_in_is_installed_for_the_server(hostile, tmp_path):
    """The fixture's plug-in is real (so the test above can fail): the registry lists it."""
    import os
    import subprocess
    import sys

    specs, markers = hostile
    code = "from agents import plugins; print(plugins.installed().get('evilbot'))"
    env = dict(os.environ, PYTHONPATH=os.environ["PYTHONPATH"] + os.pathsep + os.getcwd())
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "evil_entry:Bot", out.stderr


SMUGGLED = [
    "pimc:worlds=1e9", "pimc:worlds=129", "pimc:worlds=100000", "pimc:move_time=1000000",
    "pimc:move_time=2.5", "pimc:move_time=inf", "pimc:move_time=nan", "pimc:worlds=-1",
    "pimc:worlds=8,worlds=9", "pimc:depth=3", "pimc:worlds=０８", "pimc:worlds=8 ", "pimc:", "pimc:worlds",
    "ismcts:iterations=5001", "ismcts:iterations=5000,move_time=3", "ismcts:c=1e3",
    "ppo:/etc/passwd", "ppo:path=/etc/passwd", "ppo:runs/x/model.pt", "ppo:assist=full,path=x.pt",
    "ppo:../../agents/checkpoints/ppo_default.pt", "PIMC", "pimc:WORLDS=8", "pimc\x00:worlds=8",
    "heuristic:x=1", "random:seed=1", "exec", "plugin", "x" * 10_000, "pimc:worlds=" + "9" * 5000,
    "ébot", "pimc:worlds=٣", "", " ", "none:x=1",
    "guided:worlds=129", "guided:move_time=2.5", "guided:depth=3", "guided:path=x.pt", "guided:x.pt",
    "guided:/etc/passwd", "guided:beta=1", "guided:worlds=8,worlds=8",
]


@pytest.mark.parametrize("spec", SMUGGLED)
def test_smuggled_parameters_are_refused_as_text(spec):
    with pytest.raises(MenuError):
        menu_spec(spec, frozenset(), "vs")


@pytest.mark.parametrize("spec", ["heuristic", "random", "pimc", "pimc:worlds=128,depth=2",
                                  "pimc:move_time=0.5", "ismcts:iterations=5000,c=0.7,infer=0",
                                  "ppo", "ppo:assist=none", "oracle", "guided",
                                  "guided:worlds=128,depth=2,infer=0,move_time=2"])
def test_the_menu_takes_the_built_in_bots_within_their_caps(spec):
    assert menu_spec(spec, frozenset(), "vs") == spec


def test_operator_specs_are_matched_whole_never_extended():
    operator = frozenset({"ismcts:iterations=20000", "exec:./mybot"})
    assert menu_spec("ismcts:iterations=20000", operator, "vs") == "ismcts:iterations=20000"
    assert menu_spec("exec:./mybot", operator, "vs") == "exec:./mybot"
    for text in ("ismcts:iterations=20000,c=1", "exec:./mybot --evil", "exec:./mybo", " exec:./mybot"):
        with pytest.raises(MenuError):
            menu_spec(text, operator, "vs")
    assert len("x" * MAX_SPEC_CHARS) == MAX_SPEC_CHARS


def test_smuggling_through_the_api_is_a_4xx_and_an_operator_bot_is_offered_whole(start_server):
    base, _ = start_server("--bots", "pimc:worlds=200")
    with httpx.Client(base_url=base, timeout=30) as c:
        for spec in SMUGGLED[:12] + ["pimc:worlds=200,depth=2", {"a": 1}, ["pimc"], 7, None]:
            for field in ("vs", "hint"):
                if spec is None and field == "hint":
                    continue  # no hint: allowed
                r = c.post("/api/games", json={field: spec})
                assert 400 <= r.status_code < 500, (field, spec, r.text)
        bots = c.get("/api/bots").json()
        assert "pimc:worlds=200" in bots["extra"]
        assert all(b["spec"] not in ("exec", "plugin") for b in bots["bots"])
        r = c.post("/api/games", json={"vs": "pimc:worlds=200", "hint": "none", "seed": 3})
        assert r.status_code == 201, r.text
