"""Nothing shows a player what it may not know (docs/rules.md section 6).

The test for a leak: resample the cards a player has not seen, consistently
with what the player knows; everything the environments show that player
must not change: its observation and action mask, and every render mode of
both environments drawn from its side (the AEC env's ``render_view``, the
Gymnasium wrapper's learner seat).
"""

from __future__ import annotations

import contextlib
import io
import random

import numpy as np
from helpers import random_play, resampled_deal

from sixtysix_env.actions import DECLARE
from sixtysix_env.aec import env
from sixtysix_env.cards import card_id, cards_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import PLAYER_IDS, State
from sixtysix_env.gym_env import SixtySixGymEnv
from sixtysix_env.knowledge import resample

P0, P1 = PLAYER_IDS


def mask_of(e) -> set[int]:
    return {int(a) for a in np.nonzero(e.observe(e.agent_selection)["action_mask"])[0]}


class Shown:
    """Everything the envs show player ``p`` in a state: the AEC observation and mask,
    and the ``ansi`` and ``human`` renders of the AEC env (default side for
    player_0, ``render_view="player_1"`` for player_1) and of the Gymnasium
    wrapper (the learner's seat)."""

    def __init__(self) -> None:
        def aec(p: int, mode: str):
            return env(render_mode=mode) if p == 0 else env(render_mode=mode, render_view=PLAYER_IDS[p])

        self.aec = {(p, mode): aec(p, mode) for p in (0, 1) for mode in ("ansi", "human")}
        self.gym = {mode: SixtySixGymEnv(render_mode=mode) for mode in ("ansi", "human")}
        with contextlib.redirect_stdout(io.StringIO()):
            for e in (*self.aec.values(), *self.gym.values()):
                e.reset(seed=0)

    def __call__(self, state: State, p: int) -> tuple:
        shown = []
        for mode in ("ansi", "human"):
            a = self.aec[p, mode]
            a.unwrapped.game_state = state
            g = self.gym[mode]
            g.aec_env.game_state = state
            g.learner = PLAYER_IDS[p]
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                shown += [a.render(), g.render()]
            shown.append(out.getvalue())
        obs = self.aec[p, "ansi"].unwrapped.observe(PLAYER_IDS[p])
        shown += [obs["observation"].tobytes(), obs["action_mask"].tobytes()]
        return tuple(shown)


def test_nothing_shown_changes_in_resampled_worlds_on_thousands_of_positions():
    shown = Shown()
    rng = random.Random(12)
    positions = differs = 0
    for s in random_play(70, seed=12, declare=0.3):
        for p in (0, 1):
            world = resample(s, p, rng)
            differs += world.hands[1 - p] != s.hands[1 - p]
            assert shown(world, p) == shown(s, p)
        positions += 1
    assert positions >= 1000 and differs >= positions // 2  # the worlds really differ
    aec_text, gym_text, _, _, _, human = shown(s, 1)[:6]
    assert aec_text.startswith("player_1's side") and gym_text == aec_text
    assert human == 2 * (aec_text + "\n")  # human mode prints the ansi text (AEC env, then wrapper)


# ------------------------------------------------------------------ replayed deals
def replay_world(opts: dict, state, p: int, rng: random.Random) -> dict:
    """A first deal that differs from ``opts`` only in the cards ``p`` has not seen
    by now (``state``), resampled consistently with what ``p`` knows."""
    hands, talon = resampled_deal([list(map(card_id, h)) for h in opts["hands"]],
                                  [card_id(c) for c in opts["talon"]], state, p, rng)
    return {"dealer": opts["dealer"], "hands": hands, "talon": talon}


def test_no_leak_replaying_resampled_deals():
    """Replay the same actions on a deal resampled from a player's point of view:
    that player's observations and masks must be identical all along."""
    rng = random.Random(3)
    checked = differs = 0
    for i in range(25):
        s0 = deal(rng)
        opts = {"dealer": s0.dealer, "hands": [cards_of(h) for h in s0.hands], "talon": list(s0.talon)}
        e = env(episode="deal")
        e.reset(seed=i, options=opts)
        actions, obs_hist = [], []
        stop = rng.randrange(4, 30)
        while not any(e.terminations.values()) and len(actions) < stop:
            obs_hist.append({a: e.observe(a) for a in (P0, P1)})
            a = rng.choice(sorted(mask_of(e) - {DECLARE}) or [DECLARE])
            e.step(a)
            actions.append(a)
        if any(e.terminations.values()):
            continue
        state = e.unwrapped.game_state
        for p, agent in ((0, P0), (1, P1)):
            alt = replay_world(opts, state, p, rng)
            differs += alt["hands"] != opts["hands"] or alt["talon"] != opts["talon"]
            f = env(episode="deal")
            f.reset(seed=i, options=alt)
            for t, a in enumerate(actions):
                got = f.observe(agent)
                np.testing.assert_array_equal(got["observation"], obs_hist[t][agent]["observation"])
                np.testing.assert_array_equal(got["action_mask"], obs_hist[t][agent]["action_mask"])
                f.step(a)
            np.testing.assert_array_equal(f.observe(agent)["observation"], e.observe(agent)["observation"])
            checked += 1
    assert checked >= 20 and differs >= checked // 2  # the worlds really differ
