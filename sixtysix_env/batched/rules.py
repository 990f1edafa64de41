"""Which rule presets the batched engine plays: the plain German game only.

The tensors of :mod:`sixtysix_env.batched` hard-code the German game of
docs/rules.md (a 24-card deck, 6 cards each, a 12-card talon, the +10 for the
last trick, matches to 7 worth one). Any other preset of
docs/rules-variants.md, switches included, is refused when an engine is made
or loaded, with :class:`UnsupportedRulesError`, instead of being played by
the wrong rules; the scalar engine (``sixtysix_env.vector.VectorEnv``) plays
them all.
"""

from __future__ import annotations

from typing import Any

from ..variants import GERMAN, Rules, rules_from_spec

#: The presets the batched engine plays (spec strings).
BATCHED_RULES = (GERMAN.spec,)


class UnsupportedRulesError(ValueError):
    """The batched engine does not play these rules (use the scalar engine)."""


def batched_rules(rules: Any) -> Rules:
    """``rules`` (a spec, a :class:`~sixtysix_env.variants.Rules` or None) if the
    batched engine plays it, else :class:`UnsupportedRulesError` naming it."""
    parsed = rules_from_spec(rules)
    if parsed != GERMAN:
        raise UnsupportedRulesError(
            f"the batched engine plays only the rules {', '.join(BATCHED_RULES)}, not {parsed.spec!r}: "
            "use the scalar engine (sixtysix_env.vector.VectorEnv, training engine 'scalar')"
        )
    return parsed


__all__ = ["BATCHED_RULES", "UnsupportedRulesError", "batched_rules"]
