"""The ``schnapsen-pkg`` preset against the ``schnapsen`` package, deal by deal
(same cards, same moves: same legal moves at every decision, same result).

Needs the optional package (``pip install -e ".[schnapsen]"``, installed by
CI). bench/bench_schnapsen_pkg.py runs the 10,000 + 1,000 deal version.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("schnapsen")

from agents.random_agent import RandomAgent  # noqa: E402
from agents.schnapsen_pkg import Mismatch, PackageBot, compare_deal, our_tokens, package_state, token  # noqa: E402
from sixtysix_env.deals import deal  # noqa: E402
from sixtysix_env.engine import LEAD  # noqa: E402
from sixtysix_env.knowledge import view  # noqa: E402


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


def test_package_state_has_our_legal_moves():
    """The adapter's package state offers the package bot exactly our legal moves."""
    from schnapsen.game import FollowerPerspective, LeaderPerspective, SchnapsenGamePlayEngine

    engine = SchnapsenGamePlayEngine()
    rng = random.Random(11)
    checked = 0
    for _ in range(60):
        s = deal(rng, rules="schnapsen-pkg")
        while not s.is_over:
            if not (s.window == LEAD and s.marriage_suit >= 0):
                gs, lead = package_state(s, s.to_act)
                p = LeaderPerspective(gs, engine) if lead is None else FollowerPerspective(gs, engine, lead)
                assert {token(m) for m in p.valid_moves()} == our_tokens(s)
                checked += 1
            s.apply(rng.choice(s.legal_actions()))
    assert checked > 500


@pytest.mark.parametrize("kind", ["rand", "bully", "rdeep"])
def test_package_bots_play_ours(kind):
    ours = RandomAgent(1)
    theirs = PackageBot(kind, seed=2)
    for k in range(6):
        s = deal(k, rules="schnapsen-pkg")
        bots = [theirs, ours] if k % 2 else [ours, theirs]
        while not s.is_over:
            s.apply(bots[s.to_act].act(view(s, s.to_act)))  # an illegal move raises
    with pytest.raises(ValueError, match="schnapsen-pkg rules only"):
        theirs.act(view(deal(0, rules="schnapsen"), deal(0, rules="schnapsen").to_act))
    with pytest.raises(ValueError, match="unknown schnapsen package bot 'alphabeta'"):
        PackageBot("alphabeta")
