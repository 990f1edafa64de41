"""sixtysix_env: Sixty-Six (Sechsundsechzig) rules engine and environments.

The rules (``cards``, ``actions``, ``engine``, ``scoring``, ``deals``,
``knowledge``, ``seeding``, the game contract ``contract``, the presets'
``variants`` and ``variant_rules``; the four-player ``four``, ``four_deals``
and ``four_knowledge``) use the standard library only; importing this package
loads the two-player ones and nothing else of the package. The numpy observation and the
PettingZoo / Gymnasium adapters load on first use (``sixtysix_env.env``,
``sixtysix_env.SixtySixGymEnv``, ``sixtysix_env.encode``...), so the engine
works in an environment without numpy, gymnasium or pettingzoo.

Where gymnasium and pettingzoo are installed, importing the package registers
``gymnasium.make("SixtySix-v0")``, ``pettingzoo.make("aec", "sixtysix_v0")``
and the four-player ``pettingzoo.make("aec", "sixtysix_four_v0")``. Rule
presets: :mod:`sixtysix_env.variants` (``deal(rng, rules="kawu")``).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from .actions import (
    ACTION_NAMES,
    CLOSE,
    CONTINUE,
    DECLARE,
    EXCHANGE,
    MARRIAGE,
    N_ACTIONS,
    IllegalActionError,
    action_name,
    parse_action,
)
from .cards import CARD_NAMES, card_id, card_name, parse_cards
from .contract import DealOutcome, GameRules, GameState, GameView, RuleHooks
from .deals import deal, fixed_deal, next_deal
from .engine import PLAYER_IDS, State
from .knowledge import PlayerView, resample, sample_state, view
from .scoring import DealResult
from .variants import PRESETS, Rules, RulesConflictError, UnknownRulesError, rules_from_spec

# Names that need numpy, gymnasium or pettingzoo: loaded from their module on first use.
_LAZY = {
    "env": "aec",
    "raw_env": "aec",
    "EpisodeOverError": "aec_order",
    "NotResetError": "aec_order",
    "SixtySixGymEnv": "gym_env",
    "OpponentActionError": "gym_env",
    "OpponentError": "gym_env",
    "ProtocolError": "gym_env",
    "ResetNeededError": "gym_env",
    "UnknownOpponentError": "gym_env",
    "VectorEnv": "vector",
    "FULL_OBS_SIZE": "observation",
    "OBS_SIZE": "observation",
    "encode": "observation",
    "encode_full": "observation",
    "encode_into": "observation",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def _register() -> None:
    """Register the environments with gymnasium and pettingzoo, where installed.

    Entry points are strings, so this loads neither adapter.
    """
    if importlib.util.find_spec("gymnasium") is not None:
        import gymnasium

        if "SixtySix-v0" not in gymnasium.registry:
            gymnasium.register("SixtySix-v0", entry_point="sixtysix_env.gym_env:SixtySixGymEnv")
    if importlib.util.find_spec("pettingzoo") is not None:
        from pettingzoo.env_registry.registration import aec_registry, register

        if "sixtysix-v0" not in aec_registry:  # PettingZoo stores "_vN" ids as "-vN"
            register("aec", "sixtysix_v0", entry_point="sixtysix_env.aec:env")
        if "sixtysix_four-v0" not in aec_registry:
            register("aec", "sixtysix_four_v0", entry_point="sixtysix_env.aec_four:env")


_register()

__all__ = [
    "ACTION_NAMES",
    "CARD_NAMES",
    "CLOSE",
    "CONTINUE",
    "DECLARE",
    "DealOutcome",
    "DealResult",
    "EXCHANGE",
    "EpisodeOverError",
    "FULL_OBS_SIZE",
    "GameRules",
    "GameState",
    "GameView",
    "IllegalActionError",
    "MARRIAGE",
    "N_ACTIONS",
    "NotResetError",
    "OBS_SIZE",
    "OpponentActionError",
    "OpponentError",
    "PLAYER_IDS",
    "PRESETS",
    "PlayerView",
    "ProtocolError",
    "ResetNeededError",
    "RuleHooks",
    "Rules",
    "RulesConflictError",
    "SixtySixGymEnv",
    "State",
    "UnknownOpponentError",
    "UnknownRulesError",
    "VectorEnv",
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
    "rules_from_spec",
    "sample_state",
    "view",
]
