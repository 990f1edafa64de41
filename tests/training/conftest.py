"""Fixtures of the training tests: ``train.py`` as a module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def train() -> ModuleType:
    """``train.py`` imported from its file (it is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train"] = module  # as an import would (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module
