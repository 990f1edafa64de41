"""Shared test set-up: ``helpers`` importable from every test folder, shared fixtures.

Tests are grouped by part: ``env/`` (rules, observation, PettingZoo and
Gymnasium adapters), ``agents/`` (bots, search, networks, the play loop),
``arena/`` (schedule, statistics, results files, CLI), ``training/``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# External bots' stderr logs (and those of the commands tests start) go to a folder of the run's
# own, not to bot_logs/ in the checkout; a test that checks the default sets the variable itself.
if "SIXTYSIX_BOT_LOGS" not in os.environ:
    _LOGS = tempfile.mkdtemp(prefix="sixtysix-bot-logs-")
    os.environ["SIXTYSIX_BOT_LOGS"] = _LOGS
    atexit.register(shutil.rmtree, _LOGS, True)


@pytest.fixture
def shipped_checkpoint() -> Path:
    """The checkpoint that ships with the package."""
    from agents.core.checkpoint import DEFAULT_CHECKPOINT

    return DEFAULT_CHECKPOINT
