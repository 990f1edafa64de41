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
from .cards import CARD_NAMES, card_id, card_name, parse_cards
from .engine import DealResult, State, deal, fixed_deal, next_deal
from .knowledge import PlayerView, resample, sample_state, view

__all__ = [
    "ACTION_NAMES",
    "CARD_NAMES",
    "CLOSE",
    "CONTINUE",
    "DECLARE",
    "DealResult",
    "EXCHANGE",
    "MARRIAGE",
    "N_ACTIONS",
    "PlayerView",
    "State",
    "action_name",
    "card_id",
    "card_name",
    "deal",
    "fixed_deal",
    "next_deal",
    "parse_action",
    "parse_cards",
    "resample",
    "sample_state",
    "view",
]
