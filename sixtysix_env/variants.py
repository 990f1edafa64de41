"""Rule presets: which game of the Sixty-Six family a deal follows (docs/rules-variants.md).

A :class:`Rules` is a small frozen record of switches and numbers; the
engine, the scoring and the dealing read it as data, so a preset is one
entry here, not branches through the code. It is the
:class:`~sixtysix_env.contract.GameRules` of the game contract, and
``Rules.hooks`` is the :class:`RuleHooks` record its deals run: the named
functions where a preset's play departs from the German engine
(:mod:`sixtysix_env.variant_rules` writes them). The German game of docs/rules.md is
:data:`GERMAN`, the default everywhere; the other presets change only the
fields their rule books change.

Presets are named by a spec string, a preset name plus ``+switch`` parts::

    rules_from_spec("german")                 # the default
    rules_from_spec("german+draw_bonus+double_game")
    rules_from_spec("kawu")
    rules_from_spec("schnapsen")              # Austrian, 20 cards, 5 each
    rules_from_spec("schnapsen-pkg")          # plays like the `schnapsen` package

Unknown names raise :class:`UnknownRulesError`, switches that make no sense
for a preset :class:`RulesConflictError` (both ``ValueError``), each message
naming the spec and the section of docs/rules-variants.md that decides.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .cards import FULL_DECK, JACK, N_CARDS, N_SUITS, NINE

# How a shown marriage comes to count (docs/rules-variants.md V1.4, V2.2, V4.3).
CREDIT_ANY_TRICK = "any_trick"  # once its owner has taken a trick, before or after showing it
CREDIT_TRICK_BEFORE = "trick_before"  # only if shown with a trick already taken; else lost
CREDIT_NEXT_TRICK = "next_trick"  # at its owner's next trick won after showing it

# How a deal is won by reaching 66.
DECLARE_BY_PLAYER = "player"  # the declare action (docs/rules.md 3.7)
DECLARE_AUTO = "auto"  # the engine checks the trick's winner after every trick; no declare action

_NO_NINES = FULL_DECK & ~sum(1 << (6 * s + NINE) for s in range(N_SUITS))


# The rule hooks (docs/architecture.md, sixtysix_env.contract), in the order the engine documents them.
HOOK_NAMES = ("legal_mask", "take_trick", "draw", "show_marriage", "score", "end_deal")


@dataclass(frozen=True, slots=True)
class RuleHooks:
    """Where a two-player preset's play departs from the German engine.

    Each field is a function the engine calls with the deal (a
    :class:`~sixtysix_env.engine.State`) first; a preset's deal class has
    them as its methods of the same names. German's are the engine's own
    methods (``State.legal_mask``, ...): German deals pay for no hook. The
    records are registered in :data:`RULE_HOOKS` by the modules that write
    them (``"german"``: :mod:`~sixtysix_env.engine`; ``"switches"`` and
    ``"variant"``: :mod:`~sixtysix_env.variant_rules`).
    """

    legal_mask: Callable[[Any], int]
    """``(state) -> mask``: the legal actions of the player to act."""
    take_trick: Callable[[Any, int, int], None]
    """``(state, p, card)``: ``p`` follows with ``card``: the trick is
    taken, then what follows it (draw window, both draw, next lead, final
    window, or the deal's end)."""
    draw: Callable[[Any, int], None]
    """``(state, p)``: both players draw after a phase-1 trick, ``p`` first
    (the face-up card comes last); the talon's size is the deck's."""
    show_marriage: Callable[[Any, int, int], None]
    """``(state, p, suit)``: ``p`` shows the marriage of ``suit`` (marks it
    shown and known, and records when it counts)."""
    score: Callable[[Any, int], int]
    """``(state, p) -> int``: ``p``'s deal score (trick points plus the
    marriages that count)."""
    end_deal: Callable[[Any, int | None, int, str], None]
    """``(state, winner, game_points, reason)``: the deal ends; sets
    ``result`` and adds the game points (and any draw bonus) to the match."""

    def __post_init__(self) -> None:
        for f in fields(self):
            if not callable(getattr(self, f.name)):
                raise TypeError(f"RuleHooks.{f.name} must be callable, got {getattr(self, f.name)!r}")



# The hook records by ``Rules.play``, registered by the modules that write them.
RULE_HOOKS: dict[str, RuleHooks] = {}

# The fields the engine's German code paths do not read (variant_rules.VARIANT_HOOKS apply them).
_PLAY_FIELDS = (
    "exchange_rank", "exchange_needs_trick", "closing", "close_before_draw", "late_marriages",
    "marriage_king_only", "declaring",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Rules:
    """One preset: every number and switch in which the games differ.

    The defaults are the German game (docs/rules.md); docs/rules-variants.md
    numbers each field's rule. Build presets with :func:`rules_from_spec`.
    """

    name: str = "german"
    # Switches of the full German rule book (V1.2, V1.3).
    draw_bonus: bool = False  # after drawn deals the next deal's winner scores 1 more (not cumulative)
    double_game: bool = False  # a match won 7-0 counts twice (State.match_value)
    # The cards (V3.1): the deck as a card mask over the pinned ids, and the hand size.
    deck: int = FULL_DECK
    hand_size: int = 6
    exchange_rank: int = NINE  # the trump card that may be exchanged for the face-up one
    exchange_needs_trick: bool = True
    # Closing.
    closing: bool = True
    close_before_draw: bool = True  # a draw window after each phase-1 trick (docs/rules.md 5.2)
    exchange_on_close: bool = True  # the close-response window (docs/rules.md 5.3)
    # Marriages.
    late_marriages: bool = False  # may also be shown once the talon is closed or spent
    marriage_king_only: bool = False  # the card led after a marriage is its king (not K or Q)
    marriage_credit: str = CREDIT_ANY_TRICK
    # Ending and scoring a deal.
    declaring: str = DECLARE_BY_PLAYER
    last_trick_bonus: int = 10  # card points for the last trick when the talon ran out
    last_trick_wins: int = 0  # >0: the last trick's winner wins that many game points (no draw)
    false_claim_three: bool = False  # a false declaration gives 3 if the opponent has no trick
    closer_beaten_like_failed: bool = False  # beating the closer scores as a failed close (2 or 3)
    failed_close_all_tricks: bool = False  # a failed close's 3: no trick in the whole deal, not at the close
    match_target: int = 7
    # Derived in __post_init__ (not part of a preset's identity).
    free_exchange: bool = field(init=False, repr=False, compare=False)
    varies_play: bool = field(init=False, repr=False, compare=False)
    play: str = field(init=False, repr=False, compare=False)  # the RULE_HOOKS entry its deals run
    cards: tuple[int, ...] = field(init=False, repr=False, compare=False)  # the deck's card ids, in order
    held_start: Any = field(init=False, repr=False, compare=False)  # State.held of a fresh deal

    def __post_init__(self) -> None:
        object.__setattr__(self, "free_exchange", not self.exchange_needs_trick)
        object.__setattr__(self, "cards", tuple(c for c in range(N_CARDS) if self.deck >> c & 1))
        held = None if self.marriage_credit == CREDIT_ANY_TRICK else ((0, 0), (0, 0))
        object.__setattr__(self, "held_start", held)
        # Whether the legal moves or the trick differ from the German game's (variant_rules.VariantState).
        defaults = {f.name: f.default for f in fields(Rules)}
        object.__setattr__(self, "varies_play", any(getattr(self, k) != defaults[k] for k in _PLAY_FIELDS))
        # Which RULE_HOOKS its deals run: German (equal to the defaults), German play, or its own.
        german = all(getattr(self, f.name) == f.default for f in fields(Rules) if f.compare)
        play = "variant" if self.varies_play else "german" if german else "switches"
        object.__setattr__(self, "play", play)

    @property
    def hooks(self) -> RuleHooks:
        """The :class:`RuleHooks` deals under these rules run (``RULE_HOOKS[play]``):
        the engine's own methods for German, else those
        :mod:`sixtysix_env.variant_rules` declares for the preset's switches
        (a German deal carrying a draw bonus runs ``"switches"``)."""
        return RULE_HOOKS[self.play]

    @property
    def talon_size(self) -> int:
        """Cards left for the talon after both hands are dealt."""
        return self.deck.bit_count() - 2 * self.hand_size

    @property
    def draw_window(self) -> bool:
        """Whether a phase-1 trick's winner gets a draw window (only to close before drawing)."""
        return self.close_before_draw and self.closing

    @property
    def can_draw(self) -> bool:
        """Whether a deal can end level (so the draw bonus can ever apply)."""
        return self.last_trick_wins == 0

    @property
    def spec(self) -> str:
        """The spec string that rebuilds these rules (for results files and replays)."""
        parts = [self.name]
        parts += [s for s in SWITCHES if getattr(self, s)]
        return "+".join(parts)

    def __str__(self) -> str:
        return self.spec


GERMAN = Rules()

PRESETS: dict[str, Rules] = {
    "german": GERMAN,
    "kawu": Rules(
        name="kawu",
        close_before_draw=False,
        exchange_on_close=False,
        marriage_credit=CREDIT_TRICK_BEFORE,
        last_trick_bonus=0,
        last_trick_wins=1,
        false_claim_three=True,
        closer_beaten_like_failed=True,
        failed_close_all_tricks=True,
    ),
    "schnapsen": Rules(
        name="schnapsen",
        deck=_NO_NINES,
        hand_size=5,
        exchange_rank=JACK,
        close_before_draw=False,
        late_marriages=True,
        last_trick_bonus=0,
        last_trick_wins=1,
    ),
    "schnapsen-pkg": Rules(
        name="schnapsen-pkg",
        deck=_NO_NINES,
        hand_size=5,
        exchange_rank=JACK,
        exchange_needs_trick=False,
        closing=False,
        close_before_draw=False,
        exchange_on_close=False,
        late_marriages=True,
        marriage_king_only=True,
        marriage_credit=CREDIT_NEXT_TRICK,
        declaring=DECLARE_AUTO,
        last_trick_bonus=0,
        last_trick_wins=1,
        match_target=1,
    ),
}

SWITCHES = ("draw_bonus", "double_game")


class UnknownRulesError(ValueError):
    """A rules spec names a preset or switch that does not exist."""


class RulesConflictError(ValueError):
    """A rules spec combines a preset with a switch its game cannot have."""


class RulesMismatchError(ValueError):
    """A run continued under other rules than it was played or trained under (an arena results
    file, a training checkpoint with ``--resume``); the message names both rules specs."""


def rules_from_spec(spec: Any) -> Rules:
    """The :class:`Rules` of a spec string (``"german+draw_bonus"``), or a
    :class:`Rules` passed through; ``None`` is the German default."""
    if spec is None:
        return GERMAN
    if isinstance(spec, Rules):
        return spec
    if not isinstance(spec, str):
        raise UnknownRulesError(f"rules must be a spec string like 'german+draw_bonus', got {spec!r}")
    name, *switches = [part.strip().lower().replace("_", "-") for part in spec.split("+")]
    base = PRESETS.get(name)
    if base is None:
        raise UnknownRulesError(
            f"unknown rules preset {name!r} in {spec!r}: choose one of {', '.join(PRESETS)}"
        )
    changes: dict[str, Any] = {}  # Rules fields by name (replace() takes any of them)
    for raw in switches:
        switch = raw.replace("-", "_")
        if switch not in SWITCHES:
            raise UnknownRulesError(
                f"unknown rules switch {raw!r} in {spec!r}: choose from {', '.join(SWITCHES)}"
            )
        if switch in changes:
            raise RulesConflictError(f"rules switch {switch!r} given twice in {spec!r}")
        changes[switch] = True
    rules = replace(base, **changes) if changes else base
    check_rules(rules, spec)
    return rules


def check_rules(rules: Rules, spec: str = "") -> None:
    """Raise :class:`RulesConflictError` for a combination no rule book allows
    (or a hand-made :class:`Rules` the engine cannot deal)."""
    where = f" in {spec!r}" if spec else ""
    size = rules.talon_size
    if rules.hand_size < 1 or size < 2 or size % 2:
        raise RulesConflictError(f"{rules.name}{where}: {rules.hand_size} cards each leave a talon of {size}")
    if any(not rules.deck >> (6 * s + rules.exchange_rank) & 1 for s in range(N_SUITS)):
        raise RulesConflictError(f"{rules.name}{where}: the exchange card is not in the deck")
    if rules.draw_bonus and not rules.can_draw:
        raise RulesConflictError(
            f"draw_bonus{where}: {rules.name} has no drawn deals, so no bonus to carry "
            "(docs/rules-variants.md V1.2)"
        )
    if rules.double_game and rules.match_target == 1:
        raise RulesConflictError(
            f"double_game{where}: {rules.name} is a one-deal game, not a match to 7 "
            "(docs/rules-variants.md V1.3)"
        )


__all__ = [
    "HOOK_NAMES", "RULE_HOOKS", "RuleHooks",
    "CREDIT_ANY_TRICK", "CREDIT_NEXT_TRICK", "CREDIT_TRICK_BEFORE", "DECLARE_AUTO", "DECLARE_BY_PLAYER",
    "GERMAN", "PRESETS", "Rules", "RulesConflictError", "RulesMismatchError", "SWITCHES", "UnknownRulesError",
    "check_rules", "rules_from_spec",
]  # fmt: skip
