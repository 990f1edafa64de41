"""Four-player bots: legal moves from a seat's view only, named errors, duplicate team matches."""

from __future__ import annotations

import random

import pytest

from agents.four import FOUR_AGENTS, make_four_agent
from agents.four.match import duplicate
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import resample_four, view_four


@pytest.mark.parametrize("spec", ["random", "heuristic", "search:2"])
def test_bots_play_legal_moves_and_ignore_hidden_cards(spec):
    rng = random.Random(5)
    bot = make_four_agent(spec, seed=1)
    twin = make_four_agent(spec, seed=1)
    for _ in range(8):
        s = deal_four(rng)
        while not s.is_over:
            p = s.to_act
            a = bot.act(view_four(s, p))
            # Same seed, a world the seat cannot tell apart: the same choice.
            assert twin.act(view_four(resample_four(s, p, rng), p)) == a
            assert a in s.legal_actions()
            s.apply(a)


def test_make_four_agent_errors_name_the_choices():
    assert FOUR_AGENTS == ("random", "heuristic", "search", "net")
    with pytest.raises(ValueError, match="unknown four-player bot 'pimc'"):
        make_four_agent("pimc")
    with pytest.raises(ValueError, match="search:N needs an int"):
        make_four_agent("search:x")
    with pytest.raises(ValueError, match="worlds must be >= 1"):
        make_four_agent("search:0")
    with pytest.raises(ValueError, match="needs two bot specs"):
        duplicate(["random"], 1)


def test_duplicate_swaps_the_teams():
    # The same bot on both sides of the same deals: the swap makes it exactly even.
    a, b = duplicate(["heuristic", "heuristic"], deals=20, seed=3)
    assert a == b > 0
    assert duplicate(["heuristic", "random"], deals=20, seed=3) == duplicate(["heuristic", "random"], 20, 3)
