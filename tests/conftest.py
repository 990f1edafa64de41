"""Shared test set-up: ``helpers`` importable from every test folder, shared fixtures.

Tests are grouped by part: ``env/`` (rules, observation, PettingZoo and
Gymnasium adapters), ``agents/`` (bots, search, networks, the play loop),
``arena/`` (schedule, statistics, results files, CLI), ``training/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def shipped_checkpoint() -> Path:
    """The checkpoint that ships with the package."""
    from agents.checkpoint import DEFAULT_CHECKPOINT

    return DEFAULT_CHECKPOINT
