"""Scripted deals pinning rule points where the code once deviated from the rule sources.

Each row is a fixed deal, the moves played and what the rules require after
them. Four-player rows follow docs/rules-four.md; the two-player rule they
carry over is named in each row.
"""

from __future__ import annotations

import pytest

from sixtysix_env.actions import parse_action
from sixtysix_env.aec_four import env as four_env
from sixtysix_env.four_deals import fixed_four, next_four
from sixtysix_env.scoring import DRAWN, LAST_TRICK

# One four-player deal (hearts trumps: the dealer's last card is 9H), played two ways.
HANDS = ["JC AC 9S JS AS TD", "QC JH QH JD QD KD", "9C KS TS TH AD 9H", "KC TC QS KH AH 9D"]
DRAWN_LINE = "KC AC QC 9C JC JH TH TC KS QS AS QH JD AD 9D TD TS KH 9S QD AH JS KD 9H"
WON_LINE = "9D TD KD AD TH AH AS QH KH JS JH 9H QS 9S QD TS KS TC AC JD 9C KC JC QC"

# (name, dealer, moves, (winner team, game points, reason, team scores), next dealer)
FOUR_DEALER_ROWS = [
    # docs/rules.md 2.3 / rules-four.md F7.2: a drawn deal is dealt again by the same dealer.
    ("drawn deal: same dealer", 2, DRAWN_LINE, (None, 0, DRAWN, (65, 65)), 2),
    # F7.2: a deal someone won passes the deal to the left.
    ("won deal: passes left", 2, WON_LINE, (0, 1, LAST_TRICK, (68, 62)), 3),
]

FOUR_DEALER_CASES = pytest.mark.parametrize(
    ("name", "dealer", "moves", "result", "next_dealer"),
    FOUR_DEALER_ROWS,
    ids=[r[0] for r in FOUR_DEALER_ROWS],
)


@FOUR_DEALER_CASES
def test_four_player_next_dealer(name, dealer, moves, result, next_dealer):
    s = fixed_four([h.split() for h in HANDS], dealer=dealer)
    assert s.to_act == (dealer + 1) % 4  # F2.3: left of the dealer leads
    s.play(*moves.split())
    assert tuple(s.result) == result, name
    assert next_four(s, 0).dealer == next_dealer, name


@FOUR_DEALER_CASES
def test_four_player_env_next_dealer(name, dealer, moves, result, next_dealer):
    """The same through the AEC env's match episode (its next deal is :func:`next_four`'s)."""
    e = four_env(episode="match")
    e.reset(seed=3, options={"dealer": dealer, "hands": [h.split() for h in HANDS]})
    for m in moves.split():
        e.step(parse_action(m))
    info = e.infos["player_0"]
    assert (info["deal_points"], info["reason"]) == (result[1], result[2]), name
    assert e.game_state.dealer == next_dealer, name
    assert e.game_state.result is None and e.agent_selection == f"player_{(next_dealer + 1) % 4}", name
