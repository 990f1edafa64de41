"""The arena's entry points: run a schedule, then summarize it as one pairing or a round robin.

:func:`run` plays (or finishes) the games and returns their lines;
:func:`head_to_head` and :func:`round_robin` add the statistics. All three
take an :class:`~agents.arena.options.ArenaOptions` or its fields as
keywords, and all checks of a run happen before any game or worker starts.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.external import ExternalAgent, parse_exec
from agents.four import make_four_agent
from agents.play import agent_name, make_env
from agents.protocol.cgroups import metering
from agents.protocol.sandbox import check_binds, check_sandbox, protect, seal
from agents.registry import KNOWN_AGENTS, check_plays
from sixtysix_env.variants import rules_from_spec

from ..core.stats import bradley_terry
from .corrected import PLAIN, corrected_figure
from .fairness import LOW_CPU_SHARE, ReferenceGuard, cpu_share, share_text
from .lines import table_of
from .options import ArenaOptions, OptionError
from .pairing import PairingStats, pairing_stats
from .ray_backend import RayBackend
from .records import (
    BOT_KINDS,
    BUILT_IN,
    EXTERNAL,
    METERING,
    PLUGIN,
    PUBLIC,
    REPLAYS,
    SANDBOX,
    SECRET,
    SEED_KIND,
    Warn,
    open_results,
    recorded_seed,
    recorded_seed_kind,
)
from .report import RoundRobinResult
from .runner import AgentLike, GameLine, Setup, backend_for, play_missing
from .schedule import Task, pairings, schedule, secret_seed
from .sprt import SequentialStop
from .verify import outcome_problem

RunResult = tuple[list[str], dict[str, Any], list[GameLine]]
PROJECT_PACKAGES = ("agents", "sixtysix_env")  # an Agent object of a class from here is built-in


@dataclass
class Played:
    """How a run was played, beyond its identity: the conditions its results header records
    (:mod:`.records`) and the indices of the games played again."""

    conditions: dict[str, Any]
    replayed: list[int] = field(default_factory=list)

    def replays(self, total: int, pairs: int = 1, p: int | None = None) -> int:
        """Games played again among the run's ``total`` game indices; of pairing number ``p`` (of
        ``pairs``) only, if given (indices run pairing fastest, :func:`~.schedule.schedule`)."""
        return sum(i < total and (p is None or i % pairs == p) for i in self.replayed)


def run(players: Sequence[AgentLike], *, options: ArenaOptions | None = None, **fields: Any) -> RunResult:
    """Play (or finish) a round robin; return names, config and game lines ordered by index.

    ``fields`` are :class:`ArenaOptions` fields (``games`` is required),
    replacing those of ``options``. With ``sprt`` (two players only) the
    lines are those up to the deciding game.
    """
    names, config, lines, _, _ = _run(players, ArenaOptions.of(options, **fields))
    return names, config, lines


def head_to_head(agent_a: AgentLike, agent_b: AgentLike, *, options: ArenaOptions | None = None,
                 **fields: Any) -> PairingStats:
    """Play ``games`` games of A against B and return A's statistics.

    Spec strings or Agent objects (objects only with ``workers=1``; an object
    plays every game itself, while a spec gets a fresh bot per game);
    ``fields`` as in :func:`run`. ``sprt=(elo0, elo1)`` stops early once the
    SPRT of H0 "A is elo0 Elo stronger" against H1 "A is elo1 stronger"
    decides; ``games`` is then the maximum, and the returned statistics
    count the games up to the deciding one and hold the verdict
    (``sprt_verdict``: ``"H1"``, ``"H0"`` or ``"undecided"``, ``sprt_llr``,
    ``sprt_bounds``).
    """
    opts = ArenaOptions.of(options, **fields)
    names, config, lines, seq, played = _run([agent_a, agent_b], opts)
    st = stats_of(lines, 0, 1, names, config)
    st.replays = played.replays(opts.games)
    return seq.record(st) if seq is not None else st


def round_robin(specs: Sequence[AgentLike], *, options: ArenaOptions | None = None, prior_draws: float = 1.0,
                **fields: Any) -> RoundRobinResult:
    """Every bot against every other, ``games`` games per pairing, plus ratings.

    Ratings are a Bradley-Terry fit over all games (``prior_draws`` virtual
    draws per pairing keep a perfect score finite; see
    :func:`~agents.core.stats.bradley_terry`). ``sprt`` (exactly two bots)
    stops early as in :func:`head_to_head`; the pairing then holds the verdict.
    """
    opts = ArenaOptions.of(options, **fields)
    names, config, lines, seq, played = _run(specs, opts)
    result = summarize(names, config, lines, prior_draws=prior_draws, played=played)
    if seq is not None:
        seq.record(result.pairings[0])
    return result


def team_match(teams: Sequence[str], *, options: ArenaOptions | None = None, **fields: Any) -> PairingStats:
    """Bot A (``teams[0]``) as one team against bot B over ``games`` duplicate deals: a
    :func:`head_to_head` at a four-player table of single deals, each deal played twice (the teams
    swapped), so ``2 * games`` games; ``fields`` as there."""
    if len(teams) != 2:
        raise OptionError("{players_per_game} 4 plays two teams: give two bot specs, got {n}", n=len(teams))
    opts = ArenaOptions.of(options, **fields)
    opts = dataclasses.replace(opts, players_per_game=4, unit="deal", duplicate=True, games=2 * opts.games)
    return head_to_head(teams[0], teams[1], options=opts)


def summarize(names: list[str], config: dict[str, Any], lines: Sequence[GameLine],
              prior_draws: float = 1.0, played: Played | None = None) -> RoundRobinResult:
    """Statistics of recorded games (as returned by :func:`run` or read from a results file); with
    ``played`` also how they were played: conditions and replays."""
    n = len(names)
    pairs = pairings(n)
    pair_stats = [stats_of(lines, a, b, names, config) for a, b in pairs]
    total = int(config.get("games", 0)) * len(pairs)
    if played is not None:
        for p, st in enumerate(pair_stats):
            st.replays = played.replays(total, len(pairs), p)
    score = np.zeros((n, n))
    counts = np.zeros((n, n))
    for line in lines:
        s0, s1 = line["seats"][:2]  # at a four-player table: the two teams' players
        w = line["winner"]
        v = line.get("match_value", 1)  # a double game counts twice (docs/rules-variants.md V1.3)
        counts[s0, s1] += v
        counts[s1, s0] += v
        score[s0, s1] += 0.5 * v if w is None else float(v * (w == 0))
        score[s1, s0] += 0.5 * v if w is None else float(v * (w == 1))
    ratings = bradley_terry(names, score, counts, prior_draws=prior_draws)
    how = {} if played is None else {**played.conditions, REPLAYS: played.replays(total)}
    return RoundRobinResult(
        list(names), dict(config), pair_stats, ratings,
        score=[float(x) for x in score.sum(axis=1)], games=[int(x) for x in counts.sum(axis=1)], how=how,
    )


def stats_of(lines: Sequence[GameLine], a: int, b: int, names: Sequence[str], config: dict[str, Any]
             ) -> PairingStats:
    """The statistics of pairing ``a``, ``b`` under the run's unit, duplicate mode and rules, with
    the corrected figure when the run asks for it."""
    rules = rules_from_spec(config.get("rules", "german"))
    st = pairing_stats(lines, a, b, names, config["unit"], config["duplicate"], rules)
    return with_corrected(st, lines, a, b, config)


def with_corrected(st: PairingStats, lines: Sequence[GameLine], a: int, b: int,
                   config: dict[str, Any]) -> PairingStats:
    """``st`` with the corrected figure beside the plain one when the run's config asks for aivat."""
    est = config.get("estimator")
    if isinstance(est, dict) and est.get("name") != PLAIN and isinstance(est.get("value"), str):
        st.aivat = corrected_figure(lines, a, b, est["value"], str(est.get("name")))
    return st


def _run(players: Sequence[AgentLike], opts: ArenaOptions
         ) -> tuple[list[str], dict[str, Any], list[GameLine], SequentialStop | None, Played]:
    check_players(players, opts)
    warn_unsandboxed(players, opts.sandbox)
    kind = seed_kind(opts)
    opts = with_seed(opts)
    names = display_names(players)
    config = opts.run_config(names)
    assert opts.seed is not None  # with_seed chose one
    table = opts.players_per_game
    tasks = schedule(len(players), opts.games, opts.seed, opts.duplicate, table)
    seq = None if opts.sprt_test is None else \
        SequentialStop(opts.sprt_test, opts.duplicate, opts.games, team_points=table == 4)
    guard = ReferenceGuard(names, opts.reference, len(tasks)) if opts.reference else None
    done: dict[int, GameLine] = {}
    writer = None
    played = Played(conditions(players, opts, kind))
    if opts.results_path is not None:
        lines, writer = open_results(opts.results_path, config, opts.resume, played.conditions)
        played.replayed += writer.replayed
        done = validate_resumed(opts.results_path, lines, tasks, config)
    recorded = set(done)
    try:
        ray = opts.backend == "ray"
        backend = RayBackend(opts.workers, opts.address) if ray else backend_for(opts.workers)
        times = tuple(opts.player_move_time(p) for p in range(len(players)))
        setup = Setup(tuple(players), opts.unit, times, opts.clock, opts.sandbox, opts.rules,
                      opts.estimator, opts.value, table)
        counted = play_missing(setup, names, tasks, done, backend, writer=writer, progress=opts.progress,
                               stop=seq, guard=guard, report_every=opts.report_every,
                               lookahead=2 * opts.workers, replayed=played.replayed)
    finally:
        if writer is not None:
            writer.close()
    warn_low_share([line for i, line in done.items() if i not in recorded])
    return names, config, [done[t.index] for t in tasks[:counted]], seq, played


def seed_kind(opts: ArenaOptions) -> str:
    """``"public"`` for a given seed, else ``"secret"`` (drawn for the run), or what a resumed file's
    header records; a file from before seed kinds: secret only if its seed is too large to have
    been a small public one."""
    if opts.seed is not None:
        return PUBLIC
    if not (opts.resume and opts.results_path):
        return SECRET
    recorded, seed = recorded_seed_kind(opts.results_path), recorded_seed(opts.results_path)
    if recorded is not None or seed is None:
        return recorded or SECRET
    return SECRET if seed.bit_length() > 64 else PUBLIC


def bot_kind(player: AgentLike, table: int = 2) -> str:
    """``"external"`` (``exec:``, its own process), ``"built-in"`` (the project's bots) or
    ``"plug-in"`` (in-process code from elsewhere: a file, an import path, an entry point, an object)."""
    if isinstance(player, str):
        name = player.strip().partition(":")[0].strip().lower()
        if name == EXEC_PREFIX[:-1]:
            return EXTERNAL
        return BUILT_IN if name in KNOWN_AGENTS or table == 4 else PLUGIN  # four-player bots: agents.four
    if isinstance(player, ExternalAgent):
        return EXTERNAL
    root = type(player).__module__.partition(".")[0]
    return BUILT_IN if root in PROJECT_PACKAGES else PLUGIN


def conditions(players: Sequence[AgentLike], opts: ArenaOptions, kind: str) -> dict[str, Any]:
    """What the results header records of how the run is played (:mod:`.records`): the seed kind,
    the sandbox, each bot's kind and how external bots are metered ("in-process" without any)."""
    kinds = [bot_kind(p, opts.players_per_game) for p in players]
    meter = metering() if EXTERNAL in kinds else "in-process"
    return {SEED_KIND: kind, SANDBOX: opts.sandbox, BOT_KINDS: kinds, METERING: meter}


def with_seed(opts: ArenaOptions) -> ArenaOptions:
    """``opts`` with its master seed: the given one, a resumed file's, or a fresh secret one."""
    if opts.seed is not None:
        return opts
    seed = recorded_seed(opts.results_path) if opts.resume and opts.results_path else None
    return dataclasses.replace(opts, seed=secret_seed() if seed is None else seed)


EXEC_PREFIX = "exec:"
UNSANDBOXED = ("warning: exec: bots run outside the sandbox, as you: they can read your files, this "
               "run's results file (its master seed reveals every deal) and the arena's memory; give "
               "untrusted bots --sandbox")


def warn_unsandboxed(players: Sequence[AgentLike], sandbox: bool) -> None:
    """One warning on stderr when an external bot will run outside the sandbox (it is not trusted code, and
    outside bubblewrap it runs with the operator's rights: the secret deals are only as secret as the
    operator's files)."""
    if sandbox:
        return
    for p in players:
        if isinstance(p, str) and p.startswith(EXEC_PREFIX) and not parse_exec(p[len(EXEC_PREFIX):]).sandbox:
            print(UNSANDBOXED, file=sys.stderr)
            return


def log_folders(players: Sequence[AgentLike]) -> list[str]:
    """The ``logs=`` folders the run's ``exec:`` bots name (the default one is always sealed)."""
    tails = [p[len(EXEC_PREFIX):] for p in players if isinstance(p, str) and p.startswith(EXEC_PREFIX)]
    return [s.logs for s in map(parse_exec, tails) if s.logs]


def sandboxed_commands(players: Sequence[AgentLike], sandbox: bool
                       ) -> list[tuple[tuple[str, ...], str | None]]:
    """The command lines of the ``exec:`` bots run in the sandbox, each with its ``logs=`` folder (or None):
    their binds are checked before any game."""
    tails = [p[len(EXEC_PREFIX):] for p in players if isinstance(p, str) and p.startswith(EXEC_PREFIX)]
    specs = [parse_exec(t) for t in tails]
    return [(s.argv, s.logs) for s in specs if sandbox or s.sandbox]


def warn_low_share(lines: Sequence[GameLine]) -> None:
    """A warning on stderr when the games just played had a low share of a CPU."""
    share = cpu_share(lines)
    if share is not None and share < LOW_CPU_SHARE:
        print(f"warning: {share_text(share)}", file=sys.stderr)


def check_players(players: Sequence[AgentLike], opts: ArenaOptions) -> None:
    """The bots must be valid specs or distinct Agent objects, and fit the options."""
    if len(players) < 2:
        raise ValueError("give at least two bots")
    if opts.sprt_test is not None and len(players) != 2:
        raise OptionError("{sprt} compares two bots (head-to-head), got {n} bots", n=len(players))
    for p in players:
        if isinstance(p, str):  # fail fast on a bad spec or preset, before any game or worker starts
            check_table_bot(p, opts.players_per_game, opts.rules)
    protect(*outputs_of(opts))  # a sandboxed bot never gets them (agents.protocol.sandbox)
    if opts.sandbox:
        check_sandbox()
    seal(*log_folders(players))  # no sandboxed bot binds any bot's log or a file in it (workers inherit this)
    for argv, logs in sandboxed_commands(players, opts.sandbox):
        check_binds([argv], [logs])
    if opts.move_times and len(opts.move_times) != len(players):
        raise OptionError("{move_times} needs one limit per player: {n} for {m} players",
                          n=len(opts.move_times), m=len(players))
    if any(not 0 <= r < len(players) for r in opts.reference):
        raise OptionError("{reference} names a player that is not in the run: {value}", value=opts.reference)
    objects = [p for p in players if not isinstance(p, str)]
    for p in objects:
        if not (hasattr(p, "act") and hasattr(p, "reset")):
            raise ValueError(f"not a bot: {p!r} (give a spec string or an object with act() and reset())")
    if objects and (opts.workers > 1 or opts.backend != "local"):
        raise ValueError("Agent objects can only be played with workers=1 and the local backend; "
                         "pass spec strings to use workers or Ray")
    if objects and opts.players_per_game == 4:
        raise ValueError("a four-player run takes bot specs, not Agent objects: each seat gets its own bot "
                         "built from its team's spec")
    if len({id(p) for p in objects}) != len(objects):
        raise ValueError("pass a distinct Agent object for each player (one object cannot sit in two seats)")


def check_table_bot(spec: str, table: int, rules: str) -> None:
    """A bot spec that plays the run's game: a two-player bot of ``rules``, or at a four-player
    ``table`` a four-player bot (:func:`~agents.four.make_four_agent`) or an ``exec:`` bot."""
    if table == 4 and not spec.strip().lower().startswith(EXEC_PREFIX):
        make_four_agent(spec, 0)
        return
    check_plays(spec, rules)


def outputs_of(opts: ArenaOptions) -> list[str]:
    """The run's outputs no bot may be given: the results file and its folder."""
    path = opts.results_path
    return [] if path is None else [path, os.path.dirname(os.path.abspath(path))]


def display_names(players: Sequence[AgentLike]) -> list[str]:
    """Display names: the spec string, or the object's ``name``; repeats get ``#2``, ``#3``."""
    names: list[str] = []
    for p in players:
        base = p if isinstance(p, str) else agent_name(p)
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def validate_resumed(path: str, lines: list[GameLine], tasks: list[Task], config: dict[str, Any]
                     ) -> dict[int, GameLine]:
    """The recorded games of this run's schedule by index (the last good line of each).

    A line whose seeds, seats, pairing or unit differ from the
    schedule, or whose result does not follow from its moves
    (:func:`~agents.arena.verify.outcome_problem`: a forged or hand-edited
    line), is damaged: it is skipped with a warning and its game played
    again. Lines past this run's games (a longer run's) are kept in the file
    but not counted.
    """
    by_index = {t.index: t for t in tasks}
    unit = config["unit"]
    rules = rules_from_spec(config.get("rules", "german"))
    env = make_env(unit, 4) if table_of(config) == 4 else make_env(unit, rules=rules)
    done = {}
    warn = Warn(path)
    for line in lines:
        t = by_index.get(line["index"])
        if t is None:
            continue
        planned = (t.seed, list(t.seats), [t.a, t.b], list(t.agent_seeds), t.cluster, unit)
        problem = None
        if (line["seed"], line["seats"], line["pairing"], line["agent_seeds"], line["cluster"],
                line["unit"]) != planned:
            problem = "does not match this run's schedule (seeds, seats, pairing or unit differ)"
        elif (why := outcome_problem(line, rules, env)) is not None:
            problem = f"does not follow from its moves ({why})"
        if problem is not None:
            warn(f" game {t.index} {problem}; it is played again")
            continue
        done[t.index] = line
    warn.done("games that do not match the schedule or their moves")
    return done
