"""Every scripted rules scenario of ``test_engine_rules.py``, replayed through the batched engine.

The scalar tests are collected again here, unchanged, with every engine
action shadowed: the first action on a scalar ``State`` starts a one-table
``BatchedEngine`` from a copy of it (``from_states``, so the fixed deals of
those tests are the batched engine's deals too), and after each action both
are compared field by field, with the legal and action masks, the
observations of both seats (``encode`` and ``encode_full``) and the deal
result (``check.compare``). A scenario passes here only if the scalar test
still passes and the batched engine agreed at every step.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from sixtysix_env.batched.check import compare
from sixtysix_env.batched.engine import BatchedEngine
from sixtysix_env.engine import State


def _load(name: str):
    """The scalar test module ``name``, wherever it lives under tests/ (a
    folder per part or not), imported under a private name."""
    tests = Path(__file__).resolve().parents[1]
    found = sorted(p for p in tests.rglob(f"{name}.py") if "batched" not in p.parts)
    if not found:
        raise FileNotFoundError(f"no {name}.py under {tests}: the scenarios to replay are missing")
    spec = importlib.util.spec_from_file_location(f"_scalar_{name}", found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_rules = _load("test_engine_rules")
SCENARIOS = sorted(name for name in vars(_rules) if name.startswith("test_"))
globals().update({name: getattr(_rules, name) for name in SCENARIOS})


class Shadows:
    """One batched table per scalar state that has been played on."""

    def __init__(self) -> None:
        self.tables: dict[int, tuple[State, BatchedEngine]] = {}  # id -> (state kept alive, engine)
        self.steps = 0

    def before(self, s: State) -> BatchedEngine:
        entry = self.tables.get(id(s))
        if entry is None or entry[0] is not s:
            eng = BatchedEngine.from_states([s.clone()], seed=0)
            compare(eng, [s])
            self.tables[id(s)] = (s, eng)
            return eng
        return entry[1]

    def after(self, s: State, eng: BatchedEngine, action: int) -> None:
        eng.step(torch.tensor([action]), autoreset=False)
        compare(eng, [s])
        self.steps += 1


@pytest.fixture(autouse=True)
def shadowed(monkeypatch: pytest.MonkeyPatch):
    shadows = Shadows()
    original = State.apply_unchecked

    def apply_unchecked(self: State, action: int) -> None:
        eng = shadows.before(self)
        original(self, action)
        shadows.after(self, eng, action)

    monkeypatch.setattr(State, "apply_unchecked", apply_unchecked)
    yield shadows


def test_the_scenarios_are_collected_here() -> None:
    assert len(SCENARIOS) >= 30 and "test_scoring" in SCENARIOS and "test_drawn_deal_65_65" in SCENARIOS


def test_shadowing_compares_every_action(shadowed: Shadows) -> None:
    _rules.deal_c().play(*_rules.DRAWN_SCRIPT.split())
    assert shadowed.steps == len(_rules.DRAWN_SCRIPT.split())
