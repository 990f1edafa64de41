"""sixtysix_env: Sixty-Six (Sechsundsechzig) rules engine and environments."""

from .actions import (
    ACTION_NAMES,
    CLOSE,
    CONTINUE,
    DECLARE,
    EXCHANGE,
    MARRIAGE,
    N_ACTIONS,
    action_name,
    parse_action,
)
from .aec import env, raw_env
from .cards import CARD_NAMES, card_id, card_name, parse_cards
from .engine import DealResult, State, deal, fixed_deal, next_deal
from .gym_env import SixtySixGymEnv
from .knowledge import PlayerView, resample, sample_state, view
from .observation import FULL_OBS_SIZE, OBS_SIZE, encode, encode_full, encode_into


def _register() -> None:
    """Make ``pettingzoo.make("aec", "sixtysix_v0")`` and ``gymnasium.make("SixtySix-v0")`` work."""
    import gymnasium
    from pettingzoo.env_registry.registration import aec_registry, register

    if "sixtysix-v0" not in aec_registry:  # PettingZoo stores "_vN" ids as "-vN"
        register("aec", "sixtysix_v0", entry_point="sixtysix_env.aec:env")
    if "SixtySix-v0" not in gymnasium.registry:
        gymnasium.register("SixtySix-v0", entry_point="sixtysix_env.gym_env:SixtySixGymEnv")


_register()

__all__ = [
    "ACTION_NAMES",
    "CARD_NAMES",
    "CLOSE",
    "CONTINUE",
    "DECLARE",
    "DealResult",
    "EXCHANGE",
    "FULL_OBS_SIZE",
    "MARRIAGE",
    "N_ACTIONS",
    "OBS_SIZE",
    "PlayerView",
    "SixtySixGymEnv",
    "State",
    "action_name",
    "card_id",
    "card_name",
    "deal",
    "encode",
    "encode_full",
    "encode_into",
    "env",
    "fixed_deal",
    "next_deal",
    "parse_action",
    "parse_cards",
    "raw_env",
    "resample",
    "sample_state",
    "view",
]
