"""How to run the arena: one options dataclass, validated in one place for the API and the CLI.

:class:`ArenaOptions` holds everything about a run except the bots;
:func:`~agents.arena.run`, :func:`~agents.arena.head_to_head` and
:func:`~agents.arena.round_robin` take it (or its fields as keywords), and
the ``sixtysix arena`` command builds one from its flags. Its checks raise
:class:`OptionError`, whose message the CLI rewrites with flag names
(``--resume needs --results PATH``) while the API names keywords.
"""

from __future__ import annotations

import dataclasses
import operator
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from agents.play import TABLES, UNITS, check_clock, check_move_time
from sixtysix_env.variants import RulesConflictError, UnknownRulesError, rules_from_spec

from .corrected import DEFAULT_VALUE, PLAIN, EstimatorError, check_estimator
from .lines import TEAM_KEY
from .sprt import MAX_POINTS, SprtSettings, sprt_settings

# How the API spells a placeholder of an OptionError message that is not just a field name.
KEYWORDS = {"sprt_pair": "sprt=(elo0, elo1)"}


class OptionError(ValueError):
    """A bad option, with a message that names options by ``{field}`` placeholders."""

    def __init__(self, template: str, **values: object) -> None:
        self.template = template
        self.values = values
        super().__init__(self.spelled({}))

    def spelled(self, names: Mapping[str, str]) -> str:
        """The message with each option written as ``names`` says (default: as a keyword)."""
        values = {k: str(v) for k, v in self.values.items()}
        return self.template.format_map(_Spelling({**KEYWORDS, **names, **values}))


class UnknownRulesOption(OptionError, UnknownRulesError):
    """``rules`` names no preset or switch (both an OptionError and the rules' own error)."""


class RulesConflictOption(OptionError, RulesConflictError):
    """``rules`` combines a preset with a switch its game cannot have."""


RULES_ERRORS: dict[type, type[OptionError]] = {UnknownRulesError: UnknownRulesOption,
                                               RulesConflictError: RulesConflictOption}


class _Spelling(dict[str, Any]):
    """Placeholders nobody renamed stay the field's own name."""

    def __missing__(self, key: str) -> str:
        return key


MAX_COUNT = 10**6
"""The most games (per pairing) or workers a run may ask for: the schedule of every game is made
up front, so a typo of many digits would fill the memory instead of failing."""


def check_positive_int(value: Any) -> int:
    """``value`` if it is an int from 1 to ``MAX_COUNT`` (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"must be at least 1, got {value!r}")
    if value > MAX_COUNT:
        raise ValueError(f"must be at most {MAX_COUNT}, got {value!r}")
    return value


def check_seconds(value: Any) -> float | None:
    """A per-move limit: finite positive seconds up to ``MAX_MOVE_TIME`` (1e6), or None for none.

    Infinite or huge limits are errors here, before any game starts (the
    move alarm cannot be set that far); no limit is None (no ``--move-time``).
    """
    if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
        raise ValueError(f"must be a number of seconds or None, got {value!r}")
    return check_move_time(value)


def check_unit(value: Any) -> str:
    """A game unit: ``"match"`` (to 7) or ``"deal"``."""
    if value not in UNITS:
        raise ValueError(f"must be one of {UNITS}, got {value!r}")
    return value


def check_seed(value: Any) -> int | None:
    """Any int-like seed, as an int (numpy ints included, so the results file stays JSON), or None."""
    if value is None:
        return None
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"must be an int, got {value!r}") from None


BACKENDS = ("local", "ray")


def check_backend(value: Any) -> str:
    """Where games are played: ``"local"`` (this machine's processes) or ``"ray"`` (a Ray cluster)."""
    if value not in BACKENDS:
        raise ValueError(f"must be one of {BACKENDS}, got {value!r}")
    return value


def check_rules(value: Any) -> str:
    """A rules spec (docs/rules-variants.md V0), as its one spelling (``Rules.spec``)."""
    return rules_from_spec(value).spec


def check_path(value: Any) -> str | None:
    """A results path (str or path-like) as a str, or None (``''`` names no file: not "none")."""
    if value is None:
        return None
    path = os.fspath(value)
    if not path:
        raise ValueError("must name a file, got ''")
    return path


@dataclass(frozen=True)
class ArenaOptions:
    """Everything about an arena run but the bots; every check happens here."""

    games: int
    """Games per pairing (with ``sprt``: the maximum)."""
    unit: str = "match"
    """A game is a ``"match"`` to 7 or a single ``"deal"``."""
    seed: int | None = None
    """Master seed: every card and bot seed of the run follows from it (:mod:`.schedule`). None: a
    secret one drawn for the run (or, resuming, the results file's); a small public seed lets
    anyone recompute every deal, so it is for trusted bots only."""
    duplicate: bool = True
    """Play every card seed twice, with the seats swapped."""
    workers: int = 1
    """Processes (with ``backend="ray"``: Ray actors) to play in (Agent objects need 1 and the local
    backend); results do not depend on it."""
    backend: str = "local"
    """``"local"`` (processes on this machine) or ``"ray"`` (see :mod:`agents.arena.ray_backend`)."""
    address: str | None = None
    """With ``backend="ray"``: the cluster to join (None: a local one started for the run)."""
    rules: str = "german"
    """The rules preset every game follows (a spec, docs/rules-variants.md V0), stored in its
    one spelling; recorded in the results file, so a resume with other rules is refused."""
    move_time: float | None = None
    """Per-move limit in seconds; a bot over it forfeits the game (None: no limit)."""
    move_times: tuple[float | None, ...] = ()
    """Per player (in the order of the players): each one's own per-move limit, replacing
    ``move_time`` (empty: every player has ``move_time``); how the bench plays a bot at another
    budget than the ladder's."""
    clock: str = "wall"
    """What ``move_time`` limits: ``"wall"``-clock time or the bot's own ``"cpu"`` time
    (:mod:`agents.play`)."""
    sandbox: bool = False
    """Run external (``exec:``) bots inside bubblewrap (:mod:`agents.protocol.sandbox`)."""
    reference: tuple[int, ...] = ()
    """Players whose time forfeits void the game, which is played again (bounded; see
    :mod:`.fairness`): reference bots whose lost time must not rate the others."""
    report_every: int = 0
    """Without ``progress``: a line on stderr every this many games (0: none)."""
    results_path: str | None = None
    """JSONL file to append every finished game to (see :mod:`agents.arena.records`)."""
    resume: bool = False
    """Continue the run recorded in ``results_path``, playing only the missing games."""
    progress: bool = False
    """Show a progress bar with the standings on stderr."""
    sprt: tuple[float, float] | None = None
    """``(elo0, elo1)``: stop a head-to-head once an SPRT of H0 elo0 against H1 elo1 decides."""
    sprt_alpha: float | None = None
    """SPRT false-positive rate (accepting H1 when H0 holds; None: 0.05)."""
    sprt_beta: float | None = None
    """SPRT false-negative rate (accepting H0 when H1 holds; None: 0.05)."""
    estimator: str = PLAIN
    """``"plain"`` or ``"aivat"``: also report the AIVAT-corrected points per deal (docs/variance.md),
    computed per game by the worker that played it and stored in its results line."""
    value: str = DEFAULT_VALUE
    """The value function of ``estimator="aivat"`` (:data:`agents.evaluation.values.VALUE_NAMES`)."""
    sprt_estimator: str | None = None
    """What ``sprt`` tests: ``"plain"`` (match results, Elo) or ``"aivat"`` (corrected points per
    deal, ``sprt`` then in game points per deal); None: the run's ``estimator``."""
    players_per_game: int = 2
    """Players at a table: 2, or 4 (two bots as teams: each bot plays both partners' seats, and a
    duplicate pair plays one deal with the teams swapped; docs/rules-four.md). Bot specs are then
    four-player bots (``sixtysix bots --players 4``) or ``exec:`` bots; ``sprt`` is in team game
    points per deal; ``rules`` and the aivat estimator are for two-player games."""
    sprt_test: SprtSettings | None = field(init=False, repr=False, compare=False)
    """The validated SPRT settings (None without ``sprt``)."""

    def __post_init__(self) -> None:
        checks: dict[str, Callable[[Any], Any]] = {
            "games": check_positive_int, "unit": check_unit, "seed": check_seed,
            "workers": check_positive_int, "move_time": check_seconds, "results_path": check_path,
            "backend": check_backend, "clock": check_clock, "rules": check_rules,
        }
        for name, check in checks.items():
            try:
                object.__setattr__(self, name, check(getattr(self, name)))
            except ValueError as e:
                error = RULES_ERRORS.get(type(e), OptionError)
                raise error(f"{{{name}}} {{problem}}", problem=e) from None
        every = self.report_every
        if isinstance(every, bool) or not isinstance(every, int) or every < 0:
            raise OptionError("{report_every} must be an int of at least 0, got {value}", value=every)
        try:
            object.__setattr__(self, "move_times", tuple(check_seconds(t) for t in self.move_times))
        except (TypeError, ValueError) as e:
            raise OptionError("{move_times} must be per-player limits: {problem}", problem=e) from None
        try:
            object.__setattr__(self, "reference", tuple(int(p) for p in self.reference))
        except (TypeError, ValueError):
            raise OptionError("reference must be player indices, got {value}", value=self.reference) from None
        if self.address is not None and self.backend != "ray":
            raise OptionError("{address} needs {backend} ray")
        self._check_table()
        if self.resume and self.results_path is None:
            raise OptionError("{resume} needs {results_path}")
        if self.sprt is None and (self.sprt_alpha is not None or self.sprt_beta is not None):
            raise OptionError("{sprt_alpha} and {sprt_beta} need {sprt_pair}")
        try:
            check_estimator(self.estimator, self.value, self.rules)
        except EstimatorError as e:
            raise OptionError(f"{{{e.option}}} {{problem}}", problem=e) from None
        on = self.estimator if self.sprt_estimator is None else self.sprt_estimator
        if on not in (PLAIN, self.estimator):
            raise OptionError("{sprt} on {on} needs {estimator} {on}", on=on)
        test = None if self.sprt is None else sprt_settings(self.sprt, self.sprt_alpha, self.sprt_beta, on,
                                                                self.value)
        object.__setattr__(self, "sprt_test", test)

    def _check_table(self) -> None:
        """Players at a table: 2, or 4 with no option of two-player games only."""
        table = self.players_per_game
        if type(table) is not int or table not in TABLES:
            raise OptionError("{players_per_game} must be 2 or 4, got {value}", value=table)
        if table == 2:
            return
        if self.rules != "german":
            raise OptionError("{rules} is for two-player games; four players play docs/rules-four.md")
        if self.estimator != PLAIN or self.sprt_estimator not in (None, PLAIN):
            raise OptionError("{estimator} aivat is for two-player games, not {players_per_game} 4")
        if self.sprt is not None and not (
                isinstance(self.sprt, tuple | list) and len(self.sprt) == 2
                and all(isinstance(x, Real) and not isinstance(x, bool) and abs(x) <= MAX_POINTS
                        for x in self.sprt)):
            raise OptionError("{sprt} at {players_per_game} 4 is in team game points per deal: two numbers "
                              "within -{bound}..{bound}, got {value}", bound=f"{MAX_POINTS:g}",
                              value=self.sprt)

    @classmethod
    def of(cls, options: ArenaOptions | None = None, **fields: Any) -> ArenaOptions:
        """``options`` with ``fields`` replaced, or new options from ``fields`` alone."""
        if options is None:
            return cls(**fields)
        if not isinstance(options, cls):
            raise TypeError(f"options must be ArenaOptions, got {type(options).__name__}")
        return dataclasses.replace(options, **fields) if fields else options

    def player_move_time(self, player: int) -> float | None:
        """The per-move limit of player ``player``: its own in ``move_times``, else ``move_time``."""
        return self.move_times[player] if self.move_times else self.move_time

    def run_config(self, names: list[str]) -> dict[str, Any]:
        """The run's identity, as stored in the results file header: a resumed run must match it."""
        config: dict[str, Any] = {"players": names, "games": self.games, "unit": self.unit, "seed": self.seed,
                                  "duplicate": self.duplicate, "move_time": self.move_time,
                                  "rules": self.rules}
        if self.move_times:  # only then, so files of runs without them resume as before
            config["move_times"] = list(self.move_times)
        if self.clock != "wall":  # only then, so files of wall-clock runs resume as before
            config["clock"] = self.clock
        if self.sprt_test is not None:  # only then, so files of runs without it resume as before
            config["sprt"] = self.sprt_test.to_dict()
        if self.estimator != PLAIN:  # likewise: a plain run's header is as before
            config["estimator"] = {"name": self.estimator, "value": self.value}
        if self.players_per_game != 2:  # likewise
            config[TEAM_KEY] = self.players_per_game
        return config
