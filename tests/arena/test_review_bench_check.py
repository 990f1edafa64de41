"""A reviewer's cheat: a hosted plug-in's code run by the bench's build check, before any game.

``sixtysix bench`` builds an untrusted plug-in once (``agents.host --check``) to refuse one
that cannot be hosted. That run is the plug-in's own code (its module is imported), and it ran in the
sandbox but outside any control group and with the bench's ``oom_score_adj``: its memory and processes
were unbounded for up to a minute. It now runs in a bot's control group like every game's bot (memory,
processes, the group killed at its end), with ``oom_score_adj`` 1000. The plug-in here reports its
``oom_score_adj`` in the error that refuses it."""

from __future__ import annotations

import pytest

from agents.bench.entry import BenchTrustError, plan
from agents.protocol import sandbox
from agents.protocol.cgroups import metering_problem
from agents.protocol.sandbox import sandbox_problem

NO_SANDBOX = sandbox_problem()
NO_METERING = metering_problem()
pytestmark = pytest.mark.skipif(NO_SANDBOX is not None or NO_METERING is not None,
                                reason=f"no sandbox or metering here: {NO_SANDBOX or NO_METERING}")


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    monkeypatch.setattr(sandbox, "_PROTECTED", set())
    monkeypatch.setattr(sandbox, "_SEALED", set())
    monkeypatch.setenv(sandbox.SEAL_ENV, "")
    monkeypatch.setenv(sandbox.PROTECT_ENV, "")


def test_the_build_check_of_a_hosted_plug_in_runs_in_a_bots_group(tmp_path, monkeypatch):
    bot = tmp_path / "probe_bot.py"
    bot.write_text(
        "import os\n"
        "with open('/proc/self/oom_score_adj') as f:\n"
        "    adj = f.read().strip()\n"
        "raise ValueError(f'probe oom_score_adj={adj}')\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BenchTrustError, match="probe oom_score_adj=(\\S+)") as e:
        plan(f"{bot}:Bot")
    assert "probe oom_score_adj=1000" in str(e.value)
