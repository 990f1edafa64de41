"""Both AEC envs at the edges of an episode, as RL libraries drive them.

- ``reset()`` without a seed after a seeded one continues a stream fixed by
  that seed (Gymnasium's rule, which PettingZoo follows): seeding once makes a
  whole run of episodes replayable.
- Once every agent is done, ``last()`` and ``step()`` raise the named
  :class:`~sixtysix_env.aec_order.EpisodeOverError` (a Gymnasium
  ``ResetNeeded``), not a ``KeyError`` or a silently ignored step; before the
  first ``reset()``, observing or rendering raises ``NotResetError`` (also a
  ``ResetNeeded``).
"""

from __future__ import annotations

import pytest
from gymnasium.error import ResetNeeded

from sixtysix_env import aec, aec_four
from sixtysix_env.aec_order import EpisodeOverError, NotResetError
from sixtysix_env.gym_env import SixtySixGymEnv

MAKERS = [
    pytest.param(lambda: aec.env(episode="deal"), id="aec"),
    pytest.param(lambda: aec.raw_env(episode="deal"), id="aec-raw"),
    pytest.param(lambda: aec_four.env(episode="deal"), id="four"),
]


def _play_out(e) -> list[tuple[str, int | None]]:
    moves = []
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        action = None if term or trunc else int(obs["action_mask"].nonzero()[0][0])
        moves.append((agent, action))
        e.step(action)
    return moves


def _run(e, seed: int) -> list[list[tuple[str, int | None]]]:
    e.reset(seed=seed)
    games = [_play_out(e)]
    for _ in range(3):
        e.reset()
        games.append(_play_out(e))
    return games


@pytest.mark.parametrize("make", MAKERS)
def test_unseeded_resets_continue_the_seeded_stream(make):
    a, b = _run(make(), 7), _run(make(), 7)
    assert a == b
    assert a[1:] != [a[0]] * 3  # the stream moves on: not the seeded match again


@pytest.mark.parametrize("make", MAKERS)
def test_last_and_step_after_the_end_are_named_errors(make):
    e = make()
    e.reset(seed=1)
    _play_out(e)
    for call in (e.last, lambda: e.step(None), lambda: e.step(0)):
        with pytest.raises(EpisodeOverError, match="call reset"):
            call()
    assert issubclass(EpisodeOverError, ResetNeeded)
    e.reset(seed=2)  # and reset resumes
    assert e.agents


@pytest.mark.parametrize("make", [
    pytest.param(lambda: aec.raw_env(render_mode="ansi").observe("player_0"), id="aec-observe"),
    pytest.param(lambda: aec.raw_env(render_mode="ansi").render(), id="aec-render"),
    pytest.param(lambda: aec_four.raw_env(render_mode="ansi").observe("player_0"), id="four-observe"),
    pytest.param(lambda: SixtySixGymEnv(render_mode="ansi").render(), id="gym-render"),
])
def test_use_before_the_first_reset_is_a_named_reset_needed(make) -> None:
    with pytest.raises(NotResetError, match="call reset") as err:
        make()
    assert isinstance(err.value, ResetNeeded) and isinstance(err.value, RuntimeError)
