"""The ``schnapsen-pkg`` preset against the ``schnapsen`` package, deal by deal
(same cards, same moves: same legal moves at every decision, same result).

Needs the optional package (``pip install -e ".[schnapsen]"``, installed by
CI). bench/bench_schnapsen_pkg.py runs the 10,000 + 1,000 deal version.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("schnapsen")

from agents.schnapsen_pkg import Mismatch, compare_deal  # noqa: E402


def test_random_deals_agree():
    rng = random.Random(20261201)
    reasons = {compare_deal(rng).result.reason for _ in range(500)}
    assert reasons == {"declared", "last_trick"}


def test_strong_play_deals_agree():
    rng = random.Random(7)
    for _ in range(20):
        compare_deal(rng, strong=True)


def test_a_differing_preset_is_caught():
    """The check can fail: the Austrian preset (closing, exchange after a trick) disagrees."""
    rng = random.Random(3)
    with pytest.raises(Mismatch, match="legal moves differ"):
        for _ in range(50):
            compare_deal(rng, rules="schnapsen")
