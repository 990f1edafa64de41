"""What an episode of every environment is, and what it pays: the one home of these names.

``episode="match"``: whole matches to 7 game points; ``episode="deal"``: one
deal from 0:0. ``reward="game_points"``: +g/-g after every deal;
``reward="match"`` (matches only): +1/-1 when the match ends. The AEC, Gymnasium,
vector and batched environments, the training config and the tables all take
these values (standard library only, so the rules layer may import it too).
"""

from __future__ import annotations

EPISODES = ("match", "deal")
REWARDS = ("match", "game_points")


def check_episode(episode: object) -> str:
    """``episode`` if it is one of :data:`EPISODES`, else a ``ValueError`` naming the choices."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    return episode


__all__ = ["EPISODES", "REWARDS", "check_episode"]
