"""Which rule presets the batched engine plays: every preset of docs/rules-variants.md.

``german`` (docs/rules.md), ``kawu``, ``schnapsen`` and ``schnapsen-pkg``,
with the switches each allows (``german+draw_bonus``, ``german+double_game``,
``kawu+double_game``, ...): one preset per engine, played as data (the deck,
hand and talon sizes, the exchange card and the close window are lookup
tables of :mod:`.lookup`; the other switches pick tensor branches once per
step, never per table). A hand-made :class:`~sixtysix_env.variants.Rules`
that is no preset is refused with :class:`UnsupportedRulesError`, and so is
loading a scalar state of another preset than the engine's; the scalar engine
(``sixtysix_env.vector.VectorEnv``) plays them.
"""

from __future__ import annotations

from typing import Any

from ..variants import PRESETS, SWITCHES, Rules, rules_from_spec

#: The presets the batched engine plays (spec strings; each with the switches it allows).
BATCHED_RULES = tuple(PRESETS)


class UnsupportedRulesError(ValueError):
    """The batched engine does not play these rules (use the scalar engine)."""


def batched_rules(rules: Any) -> Rules:
    """``rules`` (a spec, a :class:`~sixtysix_env.variants.Rules` or None) if the
    batched engine plays it, else :class:`UnsupportedRulesError` naming it."""
    parsed = rules_from_spec(rules)
    if parsed.name not in PRESETS or rules_from_spec(parsed.spec) != parsed:
        switches = ", ".join(SWITCHES)
        raise UnsupportedRulesError(
            f"the batched engine plays the presets {', '.join(BATCHED_RULES)} (switches {switches}), "
            f"not a hand-made {parsed!r:.200}: use the scalar engine (sixtysix_env.vector.VectorEnv, "
            "training engine 'scalar')"
        )
    return parsed


__all__ = ["BATCHED_RULES", "UnsupportedRulesError", "batched_rules"]
