"""Every bot plays the recorded action on ~300 fixed positions (all windows, all talon phases).

The record was made before the layout redesign; a refactor must not change it.
"""

import json

import pytest
from golden_positions import GOLDEN, SPECS, actions

DATA = json.loads(GOLDEN.read_text())


def test_record_covers_every_window_and_phase():
    assert len(DATA["cases"]) >= 250
    assert {"lead/open", "lead/closed", "lead/spent", "follow/spent", "draw/open", "close_response/closed",
            "final/closed"} <= set(DATA["classes"])
    assert set(DATA["actions"]) == set(SPECS)


@pytest.mark.parametrize("spec", SPECS)
def test_bot_plays_the_recorded_actions(spec):
    cases = [tuple(c) for c in DATA["cases"]]
    got = actions(spec, cases)
    diff = [i for i, (a, b) in enumerate(zip(got, DATA["actions"][spec], strict=True)) if a != b]
    assert not diff, f"{spec}: {len(diff)} of {len(cases)} positions changed, first {cases[diff[0]]}"
