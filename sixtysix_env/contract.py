"""The game contract: what every game of this package is, written down once.

Every game here (the two-player German game, each rule preset of
docs/rules-variants.md, and the four-player partnership game of
docs/rules-four.md) is played through the same few objects, typed below as
:class:`typing.Protocol` classes so that code written against them (bots,
environments, tools) works for all of them:

- :class:`GameRules`: the preset as data. A frozen record of numbers and
  switches (:class:`~sixtysix_env.variants.Rules`,
  :class:`~sixtysix_env.four.FourRules`); the engine and the scoring read
  it, nothing branches on a preset's name.
- :class:`GameState`: one deal in progress. ``legal_mask()`` (the legal
  actions of the seat ``to_act`` as a mask over the 32-action table of
  :mod:`~sixtysix_env.actions`), ``apply(action)`` (checked; an illegal
  action raises ``IllegalActionError``), ``is_over`` and then ``result``.
- :class:`DealOutcome`: how a deal ended (:class:`~sixtysix_env.scoring.DealResult`):
  the winning side (a player, or a team in the four-player game; ``None``
  for a drawn deal), its game points, the reason and both sides' scores.
- :class:`GameView`: what one seat knows (:class:`~sixtysix_env.knowledge.PlayerView`,
  :class:`~sixtysix_env.four_knowledge.FourView`): never a hidden card.

A two-player preset also declares where its play departs from the German
engine, as a :class:`RuleHooks` record: six named hook functions that the
engine calls (``legal_mask``, ``take_trick``, ``draw``, ``show_marriage``,
``score``, ``end_deal``). German's hooks are the engine's own methods, so a German deal
runs exactly the German code with no extra call; a preset's deal class has
its hooks bound as its methods once, when the class is made
(:mod:`sixtysix_env.variant_rules`), and ``Rules.hooks`` is its record
(``Rules.play`` names it: ``"german"``, ``"switches"`` or ``"variant"``). Editing
one preset's hook cannot change another preset silently: each preset's hooks
are listed in its record, and tests check every class against its record.

The four-player game implements the same :class:`GameState`,
:class:`GameView`, :class:`GameRules` and :class:`DealOutcome`; it has no
talon, so it needs no hooks (its rules are :class:`~sixtysix_env.four.FourRules`
fields). mypy checks each implementation against these protocols (the
assignments at the end of this module), and ``tests/env/test_contract.py``
checks every preset and the four-player game at run time.

:class:`RuleHooks` is defined with the preset data in
:mod:`sixtysix_env.variants` (the engine imports it from there) and
re-exported here. Standard library only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .variants import HOOK_NAMES, RuleHooks


@runtime_checkable
class DealOutcome(Protocol):
    """How a deal ended (:class:`~sixtysix_env.scoring.DealResult`)."""

    @property
    def winner(self) -> int | None:
        """The winning player (two players) or team (four players); None: drawn."""

    @property
    def game_points(self) -> int:
        """Game points the winner scores (0 for a drawn deal)."""

    @property
    def reason(self) -> str:
        """One of :data:`sixtysix_env.scoring.REASONS`."""

    @property
    def scores(self) -> tuple[int, int]:
        """Both sides' deal scores at the end."""


@runtime_checkable
class GameRules(Protocol):
    """The preset as data: the fields the shared engine code and the scoring
    (:mod:`sixtysix_env.scoring`) read. Frozen records; equal records play
    the same game."""

    @property
    def name(self) -> str:
        """The preset's name (``"german"``, ``"kawu"``, ..., ``"four"``)."""

    @property
    def match_target(self) -> int:
        """Game points that win the match (7; 1 for a one-deal game)."""

    @property
    def last_trick_bonus(self) -> int:
        """Card points for the last trick when the deal runs out."""

    @property
    def last_trick_wins(self) -> int:
        """>0: the last trick's winner wins the deal for that many game points."""

    @property
    def false_claim_three(self) -> bool:
        """A false declaration costs 3 against an opponent without a trick."""

    @property
    def closer_beaten_like_failed(self) -> bool:
        """Beating the closer scores as a failed close."""

    @property
    def failed_close_all_tricks(self) -> bool:
        """A failed close's 3 counts the opponent's tricks over the whole deal."""


@runtime_checkable
class GameState(Protocol):
    """One deal in progress, with the match score around it.

    Treat its attributes as read-only; change it only through :meth:`apply`.
    Sides (``score``, ``match_scores``, ``result.winner``) are players in
    the two-player game and teams (``seat % 2``) in the four-player game;
    ``to_act``, ``dealer`` and ``leader`` are seats.
    """

    window: int
    to_act: int
    dealer: int
    trump: int
    match_scores: list[int]
    result: Any  # a DealOutcome once over, else None

    @property
    def rules(self) -> GameRules:
        """The preset this deal follows (public: every player knows the game)."""

    @property
    def is_over(self) -> bool:
        """True once the deal has ended (``result`` is set)."""

    @property
    def leader(self) -> int:
        """The seat that leads (or led) the current trick."""

    @property
    def match_over(self) -> bool: ...

    @property
    def match_winner(self) -> int | None: ...

    def legal_mask(self) -> int:
        """The legal actions of ``to_act`` as a 32-bit mask (0 once over)."""

    def legal_actions(self) -> list[int]:
        """:meth:`legal_mask` as a sorted list of action ids."""

    def is_legal(self, action: int) -> bool: ...

    def check_action(self, action: Any) -> int:
        """``action`` as an int if legal, else ``IllegalActionError`` (a ``ValueError``)."""

    def apply(self, action: int) -> None:
        """Play ``action`` for ``to_act``; illegal actions raise ``IllegalActionError``."""

    def score(self, side: int) -> int:
        """A side's deal score (card points, plus marriages once they count)."""

    def clone(self) -> GameState:
        """An independent copy (search bots clone constantly)."""


@runtime_checkable
class GameView(Protocol):
    """What one seat knows of a :class:`GameState`: its own hand and
    everything public, never a hidden card. ``legal_mask`` is the seat's
    legal actions when it is to act, else 0."""

    player: int
    hand: int
    window: int
    to_act: int
    legal_mask: int
    trump: int
    trump_card: int
    marriage_suit: int
    can_declare: bool
    dealer: int
    unseen: int
    result: Any

    @property
    def rules(self) -> GameRules: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def points(self) -> tuple[int, ...]: ...

    @property
    def tricks(self) -> tuple[int, ...]: ...

    @property
    def played(self) -> tuple[int, ...]: ...

    @property
    def shown(self) -> tuple[int, ...]: ...

    @property
    def scores(self) -> tuple[int, int]: ...

    @property
    def match_scores(self) -> tuple[int, ...]: ...


if TYPE_CHECKING:  # mypy checks every implementation against the protocols (nothing runs)
    from .engine import State
    from .four import FourRules, FourState
    from .four_knowledge import FourView
    from .knowledge import PlayerView
    from .scoring import DealResult
    from .variant_rules import RulesState, VariantState
    from .variants import Rules

    def _implements(
        s: State,
        rs: RulesState,
        vs: VariantState,
        fs: FourState,
        pv: PlayerView,
        fv: FourView,
        r: Rules,
        fr: FourRules,
        dr: DealResult,
    ) -> None:
        states: list[GameState] = [s, rs, vs, fs]
        views: list[GameView] = [pv, fv]
        rules: list[GameRules] = [r, fr]
        outcome: DealOutcome = dr
        hooks: RuleHooks = r.hooks
        del states, views, rules, outcome, hooks


__all__ = ["DealOutcome", "GameRules", "GameState", "GameView", "HOOK_NAMES", "RuleHooks"]
