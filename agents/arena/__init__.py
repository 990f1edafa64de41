"""The arena: head-to-head and round-robin comparisons of bots, with statistics.

Bots are spec strings for :func:`agents.make_agent` (``"random"``,
``"pimc:worlds=30"``, ``"ppo:path"``) or, with ``workers=1``, Agent objects.
Every game runs through the PettingZoo env (:func:`agents.play.play_game`).
How a run is played is one :class:`ArenaOptions` (or its fields as keywords).

Schedule (:mod:`.schedule`): every card and bot seed follows from one
master seed by a keyed hash, the master seed being secret (drawn per run
and kept in the results file) unless ``seed`` makes it public: a bot
learns nothing about the cards from its own seed. The games of every
pairing use the same card seeds. In duplicate mode (default) consecutive
games ``2k`` and ``2k+1`` share a card seed with the seats swapped, so both
bots get the same cards in the same seat and most of the luck of the deal
cancels; every game is played by fresh bots (built from their specs; a new
process for an external bot), so no bot remembers the mirror game. A unit
is a match to 7 (default) or one deal.

Time (:mod:`agents.play`, :mod:`.fairness`): ``move_time`` limits wall
time or, with ``clock="cpu"``, each bot's own CPU time; every game records
its CPU share, reported with a warning when low; the games a ``reference``
player loses on time are played again, and too many stop the run with
:class:`~agents.arena.fairness.MachineTooBusy`.

Nothing is lost: with ``results_path`` every finished game is appended to a
JSON Lines file (:mod:`.records`) the moment it ends; ``resume=True`` plays
only the missing games and the final numbers equal those of an
uninterrupted run. Results are ordered by game index, so they are identical
for any number of ``workers`` (:mod:`.runner`).

Statistics (:mod:`.stats`, for one pairing :mod:`.pairing`): win rate with
a Wilson 95% interval (draws, possible only for single deals, count half;
games are treated as independent, which is conservative for duplicate
pairs); deal win rate the same over deals; game points per deal (A's net:
points A won minus points B won, over completed deals) with a cluster t
interval over duplicate pairs (or games); Elo from the win rate; likelihood
of superiority; and for round robins a Bradley-Terry fit over all games.
Forfeited games count as losses for the offender, by kind (time, crash,
illegal, protocol: :mod:`agents.core.forfeits`); the deal interrupted by a
forfeit is not a completed deal, and a report says its ratings are
unreliable when forfeits decided games.

Sequential stop (:mod:`.sprt`, head-to-head only): with ``sprt=(elo0, elo1)``
the run stops at the first game where an SPRT accepts H0 "A is elo0 stronger
than B" or H1 "A is elo1 stronger"; ``games`` is then the maximum. The
results and the verdict are those of the games up to that deciding index,
identical for any ``workers`` and for a resumed run; workers start no game
after the decision (nor far past the first game not yet counted), and the
games still running are stopped.

Rules (``rules``, a preset spec of docs/rules-variants.md): every game of
a run follows it; the results file's header records it and a resume with
other rules is a :class:`RulesMismatchError`; under ``double_game`` a match
won 7-0 counts as two won games (the line's ``match_value``).

Four players (``players_per_game=4``): each pairing is two teams, bot A in
seats 0 and 2 against bot B in 1 and 3, every seat its own bot built from
its team's spec; a duplicate pair is one deal played again with the teams
swapped. Everything above holds as for two players: the same referee
(:func:`agents.play.play_table`: time control, forfeits, which cost the
forfeiting seat's team), workers, sandbox, results lines that replay on
resume, ``sixtysix replay``; ``sprt`` is then in team game points per deal.
:func:`team_match` is the head-to-head of ``games`` duplicate single deals.

Variance reduction (:mod:`.corrected`, ``estimator="aivat"``): each worker
corrects the games it played with :mod:`agents.evaluation` (value function
``value``) and stores the corrected game points in the line; summaries show
the corrected points per deal beside the plain ones, and ``sprt`` then tests
them (in points per deal); a resume with another estimator is an
:class:`EstimatorMismatchError` (docs/variance.md).

Reports (:mod:`.report`): text, Markdown, JSON and PNG of a round robin.
Run ``python -m agents.arena --help`` or ``sixtysix arena --help``.
"""

from .api import head_to_head, round_robin, run, summarize, team_match
from .options import ArenaOptions, OptionError
from .pairing import PairingStats, pairing_stats
from .playback import replay
from .records import EstimatorMismatchError, ResultsFileError, RulesMismatchError, read_results
from .report import RoundRobinResult
from .runner import AgentLike
from .schedule import Task, pairings, schedule
from .sprt import SPRT_H0, SPRT_H1, SPRT_UNDECIDED, SequentialStop, SprtSettings, sprt_settings

TeamStats = PairingStats  # a team match's statistics are its pairing's (team A's side)

__all__ = [
    "SPRT_H0",
    "SPRT_H1",
    "SPRT_UNDECIDED",
    "AgentLike",
    "EstimatorMismatchError",
    "ArenaOptions",
    "OptionError",
    "PairingStats",
    "ResultsFileError",
    "RoundRobinResult",
    "RulesMismatchError",
    "SequentialStop",
    "SprtSettings",
    "Task",
    "TeamStats",
    "head_to_head",
    "pairing_stats",
    "pairings",
    "read_results",
    "replay",
    "round_robin",
    "run",
    "schedule",
    "sprt_settings",
    "summarize",
    "team_match",
]
