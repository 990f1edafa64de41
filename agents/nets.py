"""Another name for :mod:`agents.core.nets` (the networks), for code written against it."""

from .core.nets import (
    MAX_LAYERS,
    MAX_WIDTH,
    PHASE_IN,
    PhaseNet,
    PolicyNet,
    ValueNet,
    check_hidden,
    masked_distribution,
    masked_log_softmax,
    masked_logits,
    mlp,
    mlp_shapes,
    numpy_forward,
    numpy_layers,
)

__all__ = [
    "check_hidden", "masked_distribution", "masked_log_softmax", "masked_logits", "MAX_LAYERS",
    "MAX_WIDTH", "mlp", "mlp_shapes", "numpy_forward", "numpy_layers", "PHASE_IN", "PhaseNet",
    "PolicyNet", "ValueNet",
]  # fmt: skip
