"""agents.host: a plug-in played over the JSON-lines protocol, on the view the protocol sends."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from agents.host import REFUSED, view_from_message
from agents.play import make_env
from agents.protocol.messages import request_message
from sixtysix_env.actions import actions_of

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "plugins"


def test_the_view_decodes_into_the_player_view_it_was_built_from():
    decisions = 0
    for seed in range(8):
        env = make_env("match")
        env.reset(seed=seed)
        raw, rng = env.unwrapped, random.Random(seed)
        while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            v = raw.view(raw.agent_selection)
            msg = json.loads(json.dumps(request_message(v, 0, 100)))  # as the bot reads it
            assert view_from_message(msg["view"], msg["legal"]) == v
            decisions += 1
            env.step(rng.choice(actions_of(v.legal_mask)))
    assert decisions > 200


def _host(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "agents.host", "--path", str(PLUGINS / "cheat_bots.py"), *args]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_check_refuses_a_state_reader_with_one_line_and_accepts_an_honest_bot():
    r = _host("--check", "cheat_bots:StateReader")
    assert r.returncode == REFUSED and r.stderr.count("\n") == 1
    assert "requires the true game state" in r.stderr
    assert _host("--check", "cheat_bots:Honest").returncode == 0


def test_the_host_answers_hello_and_requests_and_keeps_the_bots_prints_off_the_protocol():
    env = make_env("match")
    env.reset(seed=1)
    v = env.unwrapped.view(env.unwrapped.agent_selection)
    lines = [{"type": "hello", "protocol": "1.1", "arena": "sixtysix", "arena_version": "x"},
             {"type": "new_match", "seed": 5, "seat": v.player, "unit": "match", "target": 7, "time_ms": 1000,
              "clock": "cpu"},
             request_message(v, 0, 1000), {"type": "quit"}]
    for bot in ("FramePeeker", "Chatty"):
        r = _host(f"cheat_bots:{bot}", stdin="".join(json.dumps(m) + "\n" for m in lines))
        out = [json.loads(line) for line in r.stdout.splitlines()]
        assert r.returncode == 0 and [m["type"] for m in out] == ["hello", "action"]
        assert out[1]["id"] == 0 and out[1]["action"] in actions_of(v.legal_mask)
        assert "cheated" not in r.stderr  # no state in its callers' frames
    assert "thinking..." in r.stderr and '"action": 99' in r.stderr  # Chatty's prints: its log
