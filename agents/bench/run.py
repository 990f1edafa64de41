"""``sixtysix bench SPEC``: play a bot against every rung of the ladder and rate it.

Each rung is a head-to-head in the arena (:func:`agents.arena.head_to_head`)
at the ladder's time control (CPU time by default: a busy machine slows the
bots down without making them lose on time), with duplicate deals, that
stops once the arena's SPRT decides whether the bot is :data:`SPRT_ELO` Elo
weaker or stronger than the rung, after at most ``max_games`` games. A rung
that is the benched bot itself is skipped, unless the bot plays at its own
``move_time`` (a budget other than the ladder's): then the rungs still play
at the ladder's time control, and the bot at its own.

What a bot cannot learn: every rung draws its own secret master seed (kept
in its results file, so results files reveal the deals and must not be
given to bots), so no two rungs share deals and no bot can recompute a deal;
``seed`` makes a bench reproducible (each rung's seed derived from it) and
is therefore only for trusted bots (the reports then say "public seed").
Every game is played by fresh bots (a new process for an external bot).

Untrusted code runs only out of process, in the sandbox (:mod:`agents.bench.entry`):
``exec:`` bots, and plug-ins through :mod:`agents.host`; where
bubblewrap cannot run, or the bot's CPU, memory and processes cannot be
metered, the bench refuses them unless told ``--no-sandbox`` or ``--unmetered``.
A plug-in runs in-process only with ``trusted`` (every report says so); a bot
that ``requires_state`` is refused. A game whose worker process died is
counted against the benched bot, never against the rung (the rungs are the
project's own bots; only the benched bot's code can kill a worker).

Fairness: a game a rung loses on time is played again, and too many such
games stop the bench with a "machine too busy" error
(:mod:`agents.arena.fairness`); forfeits and the CPU share are reported, and
a rating decided partly by forfeits is marked unreliable.

Every game goes to ``OUT/<rung>.jsonl`` at once, so a killed bench continues
where it stopped when run again with the same ``OUT``. The rating is
:func:`agents.bench.ladder.fit_rating` over all rungs, on the ladder's fixed scale.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from agents.arena import ArenaOptions, head_to_head
from agents.arena.api import check_players
from agents.arena.corrected import EstimatorError, check_estimator
from agents.arena.inputs import read_regular
from agents.arena.lines import MAX_INDEX, MAX_POINTS, finite_number, jsonable, parse_line
from agents.arena.pairing import PairingStats, pairing_stats
from agents.arena.records import read_results
from agents.arena.schedule import SECRET_BITS, derive
from agents.core.forfeits import CRASH, KINDS
from agents.movetime import check_move_time
from agents.protocol.sandbox import seal
from sixtysix_env.variants import GERMAN, rules_from_spec

from .entry import AUTO, BUILT_IN, EXTERNAL, IN_PROCESS, PLUGIN, SANDBOXED, UNSANDBOXED, Entry, plan
from .ladder import Ladder, fit_rating, load_ladder
from .report import write_reports

SPRT_ELO = (-100.0, 100.0)  # per rung: is the bot 100 Elo weaker (H0) or 100 Elo stronger (H1)?
MAX_GAMES = 100  # per rung at most (50 card seeds, each with both seatings)
MAX_RESULT_BYTES = 1 << 24  # a bench.json is a few KiB; more is not one
REPORT_EVERY = 10  # without a progress bar: a line every this many games
WORKER_DIED = "the bot's worker process died"  # the arena's detail of a game whose worker died (crash_line)
SECRET, PUBLIC = "secret", "public"


@dataclass(frozen=True)
class BenchOptions:
    """How to bench: output folder, workers, the ladder, the per-rung limit, seed and sandbox."""

    out: str
    workers: int = 1
    max_games: int = MAX_GAMES
    ladder_path: str | None = None
    progress: bool = False
    seed: int | None = None  # None: a secret seed per rung; an int: reproducible, for trusted bots only
    sandbox: bool | str = AUTO  # True, False, or "auto": when bubblewrap works here
    rules: str = "german"  # only German: the ladder is calibrated on it (check_bench_rules)
    move_time: float | None = None  # the bot's own per-move limit (None: the ladder's); the rungs keep theirs
    estimator: str = "plain"  # "aivat": each rung also reports the corrected points per deal
    value: str = "solver"  # the value function of the aivat estimator
    trusted: bool = False  # the operator trusts a plug-in's code: run it in-process (reports say so)
    unmetered: bool = False  # rate an untrusted bot even where its CPU, memory and processes are not bounded


class BenchMoveTimeError(ValueError):
    """The bot's own per-move limit is not a valid move time."""


class BenchRulesError(ValueError):
    """A bench asked for rules other than plain German, which the ladder is not calibrated on."""


def check_bench_rules(spec: str) -> None:
    """Refuse any preset but plain German (a bad spec is the preset's own named error)."""
    rules = rules_from_spec(spec)
    if rules != GERMAN:
        raise BenchRulesError(
            f"--rules {rules.spec}: the bench ladder is calibrated on plain German rules only; "
            f"compare bots under {rules.spec} with 'sixtysix arena --rules {rules.spec} A B'"
        )


def rung_file(out: str, rung: str) -> str:
    """The results file of one rung in ``out``."""
    return os.path.join(out, re.sub(r"[^A-Za-z0-9_.=-]+", "_", rung) + ".jsonl")


def rung_seed(seed: int | None, rung: str) -> int | None:
    """The master seed of one rung: derived from the bench's public ``seed``, or None (secret)."""
    return None if seed is None else derive(seed, "rung", rung, bits=SECRET_BITS)


def bench(spec: str, options: BenchOptions) -> dict[str, Any]:
    """Play (or finish) the bench of ``spec``; write ``bench.md/.json/.png`` in ``out``; return the JSON."""
    check_bench_rules(options.rules)
    try:  # before any rung starts
        check_estimator(options.estimator, options.value, options.rules)
    except EstimatorError as e:
        raise EstimatorError(e.option, f"--{e.option} {e}") from None
    ladder = load_ladder(options.ladder_path)
    own = bot_move_time(options.move_time, ladder)
    seal(options.out)  # its rungs' results hold their seeds: nothing in it is bound for a bot
    entry = plan(spec, options.trusted, options.sandbox, options.unmetered)  # refusals: before any game
    arena = ArenaOptions(games=options.max_games, workers=options.workers, rules=options.rules,
                         sandbox=entry.sandbox)
    check_players([entry.played, *ladder.rungs], arena)  # before --out is made (the binds too)
    os.makedirs(options.out, exist_ok=True)
    rungs = [r for r in ladder.rungs if r != spec.strip() or own is not None]
    at = f"{ladder.move_time:g} s" if own is None else f"the bot {own:g} s, the rungs {ladder.move_time:g} s"
    print(f"bench {spec}: {len(rungs)} rungs ({', '.join(rungs)}), at most {options.max_games} matches each, "
          f"{at} of {ladder.clock} time per move, {options.workers} worker(s), {entry.label()}"
          f"; results in {options.out}", file=sys.stderr, flush=True)
    if len(rungs) < len(ladder.rungs):
        print(f"bench {spec}: rung {spec.strip()} skipped (it is the bot being benched)", file=sys.stderr)
    times: dict[str, Any] = {} if own is None else {"move_times": (own, ladder.move_time)}
    rows = []
    for rung in rungs:
        path = rung_file(options.out, rung)
        print(f"bench {spec} vs {rung} (Elo {ladder.ratings[rung]:.0f}):", file=sys.stderr, flush=True)
        st = head_to_head(entry.played, rung, games=options.max_games, seed=rung_seed(options.seed, rung),
                          move_time=ladder.move_time, **times, clock=ladder.clock, workers=options.workers,
                          results_path=path, resume=os.path.exists(path), sprt=SPRT_ELO,
                          progress=options.progress, reference=(1,), sandbox=entry.sandbox,
                          report_every=0 if options.progress else REPORT_EVERY,
                          estimator=options.estimator, value=options.value, sprt_estimator="plain")
        replays = replays_of(st, path)
        st, deaths = blame_worker_deaths(st, path)
        rows.append({**rung_row(rung, ladder, st), "worker_deaths": deaths, "replays": replays})
        print(f"bench: {st.summary()}", file=sys.stderr)
    result = summarize(spec, ladder, rows, own, conditions(entry, options.seed))
    write_reports(result, options.out)
    return result


def bot_move_time(move_time: float | None, ladder: Ladder) -> float | None:
    """The bot's own per-move limit when it differs from the ladder's (a checked number), else None."""
    if move_time is None:
        return None
    try:
        seconds = check_move_time(move_time)
    except ValueError as e:
        raise BenchMoveTimeError(f"--move-time {move_time!r}: {e}") from None
    return None if seconds == ladder.move_time else seconds


def conditions(entry: Entry, seed: int | None) -> dict[str, Any]:
    """What a report must say of how the bot was benched: the seed kind and the bot's conditions."""
    return {"seed_kind": SECRET if seed is None else PUBLIC, "seed": seed, "bot_label": entry.label(),
            **entry.to_dict()}


def blame_worker_deaths(st: PairingStats, path: str) -> tuple[PairingStats, int]:
    """``st`` with every game whose worker process died counted against the benched bot (player 0),
    and how many such games there were. The arena blames the bot being called when the worker died,
    which a bot that kills its worker while the rung thinks turns against the rung; the rungs are the
    project's own bots, so the bench blames the benched bot."""
    _, lines = read_results(path)
    counted = [line for line in lines if line["index"] < st.games]
    died = [i for i, line in enumerate(counted) if _worker_died(line)]
    if not any(counted[i]["forfeit"]["seat"] != counted[i]["seats"].index(0) for i in died):
        return st, len(died)
    for i in died:
        seat = counted[i]["seats"].index(0)
        counted[i] = {**counted[i], "winner": 1 - seat, "forfeit": {**counted[i]["forfeit"], "seat": seat}}
    fixed = pairing_stats(counted, 0, 1, [st.a, st.b], st.unit, st.duplicate)
    keep = {k: v for k, v in st.__dict__.items() if k.startswith("sprt") or k in ("aivat", "replays")}
    return dataclasses.replace(fixed, **keep), len(died)


def _worker_died(line: dict[str, Any]) -> bool:
    f = line.get("forfeit") or {}
    return f.get("reason") == CRASH and str(f.get("detail", "")).startswith(WORKER_DIED)


def replays_of(st: PairingStats, path: str) -> int | None:
    """Games of this rung played again (a rung's time forfeit, a dead worker) as the arena counts them
    (its statistics or its results header), or None where it does not record them."""
    n = getattr(st, "replays", None)
    if type(n) is int and n >= 0:
        return n
    header, _ = read_results(path)
    n = header.get("replays") if isinstance(header, dict) else None
    return n if type(n) is int and n >= 0 else None


def rung_row(rung: str, ladder: Ladder, st: PairingStats) -> dict[str, Any]:
    """One rung's line of the bench: its rating and the bot's results against it."""
    d = st.to_dict()
    keep = ("games", "a_wins", "b_wins", "draws", "a_forfeits", "b_forfeits", "a_forfeit_kinds",
            "b_forfeit_kinds", "win_rate", "win_rate_ci", "deals", "deal_win_rate", "deal_win_rate_ci",
            "points_per_deal", "points_per_deal_ci", "sprt_verdict", "cpu_share")
    row = {"rung": rung, "rung_elo": ladder.ratings[rung], **{k: d[k] for k in keep}}
    if "aivat" in d:  # --estimator aivat: the corrected figure beside the plain one (not in the rating)
        row["aivat"] = d["aivat"]
    return row


def rating_of(rows: list[dict[str, Any]], prior_games: int | None = None) -> dict[str, Any]:
    """What a bench's rung rows decide: the rating and its interval (rounded as stored), the
    matches, and whether forfeits decided any (the one computation: benches write it, the
    leaderboard checks a file's figures against it). ``prior_games``: the ladder's games per
    pairing (:func:`~agents.bench.ladder.fit_rating`; None in older results)."""
    elo, (lo, hi) = fit_rating([(r["rung_elo"], r["a_wins"] + r["draws"] / 2, r["games"]) for r in rows],
                               prior_games=prior_games)
    return {"elo": round(elo, 1), "elo_ci": [round(lo, 1), round(hi, 1)],
            "games": sum(r["games"] for r in rows),
            "unreliable": any(r.get("a_forfeits") or r.get("b_forfeits") for r in rows)}


def summarize(spec: str, ladder: Ladder, rows: list[dict[str, Any]], own: float | None = None,
              how: dict[str, Any] | None = None) -> dict[str, Any]:
    """The bench result: the rating with its interval, the bot's per-move limit (``own``, None: the
    ladder's), how it was benched (``how``: :func:`conditions`; None: a built-in on secret seeds), the
    ladder used, the rows, forfeits, replayed games and CPU share."""
    how = how if how is not None else conditions(plan_builtin(spec), None)
    forfeits = {side: {k: sum(r[f"{side}_forfeit_kinds"][k] for r in rows) for k in KINDS} for side in "ab"}
    shares = [(r["cpu_share"], r["games"]) for r in rows if r["cpu_share"] is not None and r["games"]]
    n = sum(g for _, g in shares)
    return jsonable({
        "bot": spec, **rating_of(rows, ladder.games or None), **how,
        "replays": total([r.get("replays") for r in rows]),
        "worker_deaths": sum(r.get("worker_deaths", 0) for r in rows),
        "move_time": ladder.move_time if own is None else own,
        "forfeits": {"bot": forfeits["a"], "ladder": forfeits["b"]},
        "cpu_share": round(sum(s * g for s, g in shares) / n, 3) if n else None,
        "ladder": {"scale": ladder.to_dict()["scale"], "move_time": ladder.move_time, "clock": ladder.clock,
                   "games_per_pairing": ladder.games, "ratings": ladder.ratings},
        "max_games_per_rung": max((r["games"] for r in rows), default=0), "sprt_elo": list(SPRT_ELO),
        "rungs": rows,
    })


def total(counts: list[int | None]) -> int | None:
    """The sum of per-rung counts, or None when any rung did not record its count."""
    return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)


def plan_builtin(spec: str) -> Entry:
    """The conditions of a built-in bot (run in-process, the project's own code)."""
    return Entry(spec, spec, BUILT_IN, IN_PROCESS, False, "in-process")


def read_result(path: str) -> dict[str, Any] | None:
    """A bench JSON written by :func:`bench` (a folder means its ``bench.json``), or None with a
    one-line warning when it is not one (any shape: it may come from anywhere, see :func:`result_problem`)."""
    if os.path.isdir(path):
        path = os.path.join(path, "bench.json")
    try:
        obj, problem = parse_line(read_regular(path, MAX_RESULT_BYTES))
    except OSError as e:
        obj, problem = None, f"cannot read it ({e.strerror or e})"
    problem = problem or result_problem(obj)
    if problem is not None:
        print(f"warning: {path}: skipped, not a bench result ({problem})", file=sys.stderr)
        return None
    return obj


MAX_NAME = 300  # characters of a bot or rung name shown in a table
MAX_ELO = 10_000.0  # |Elo| of any figure: the ladder spans about 1,200


def _name_ok(x: Any) -> bool:
    return isinstance(x, str) and 0 < len(x) <= MAX_NAME and x.isprintable()


def _count(x: Any) -> bool:
    return type(x) is int and 0 <= x <= MAX_INDEX


def _rung_problem(r: Any) -> str | None:
    """Why a rung row is malformed or contradicts itself, or None."""
    if not (isinstance(r, dict) and _name_ok(r.get("rung"))):
        return "a rung without a printable name"
    name = r["rung"]
    if not (finite_number(r.get("rung_elo")) and abs(r["rung_elo"]) <= MAX_ELO):
        return f"rung {name!r}: no rating"
    raw = [r.get(k) for k in ("games", "a_wins", "b_wins", "draws")]
    if not all(_count(c) for c in raw):
        return f"rung {name!r}: its games are not its wins, losses and draws"
    counts = [c for c in raw if isinstance(c, int)]  # all of them: each checked by _count
    if counts[0] != sum(counts[1:]):
        return f"rung {name!r}: its games are not its wins, losses and draws"
    games = counts[0]
    for side in "ab":
        n, kinds = r.get(f"{side}_forfeits", 0), r.get(f"{side}_forfeit_kinds")
        if not (_count(n) and n <= games):
            return f"rung {name!r}: bad forfeit count"
        if f"{side}_forfeit_kinds" in r and not (  # absent in older results; never null
                isinstance(kinds, dict) and set(kinds) <= set(KINDS)
                and all(_count(v) for v in kinds.values()) and sum(kinds.values()) == n):
            return f"rung {name!r}: forfeits by kind do not add up"
    wr: Any = r.get("win_rate")
    score = (counts[1] + counts[3] / 2) / games if games else None
    if "win_rate" not in r or (wr is None) != (score is None) or (
            score is not None and not (finite_number(wr) and abs(wr - score) < 1e-6)):
        return f"rung {name!r}: its win rate is not its results (null only without games)"
    for key in ("points_per_deal", "points_per_deal_ci", "win_rate_ci"):
        value = r.get(key)
        if value is not None and not (_pair_ok(value) if key.endswith("_ci") else
                                      finite_number(value) and abs(value) <= MAX_POINTS):
            return f"rung {name!r}: a malformed {key}"
    if "aivat" in r and not rung_aivat_ok(r["aivat"]):
        return f"rung {name!r}: a malformed aivat figure"
    return None


def result_problem(obj: Any) -> str | None:
    """Why ``obj`` is not a bench result the leaderboard can show, or None.

    Every field is checked, and the figures a bench derives (rating and interval, matches, the
    unreliable mark, forfeits by kind) must follow from its rung rows (:func:`rating_of`), so a
    table never shows a number that its own file contradicts. (A file can still lie
    consistently: a bench.json is a claim; its results files hold the games.)
    """
    if not isinstance(obj, dict):
        return "not a JSON object"
    if not (_name_ok(obj.get("bot")) and finite_number(obj.get("elo")) and _count(obj.get("games"))):
        return "no printable bot name, elo or games"
    ci = obj.get("elo_ci")
    if not (isinstance(ci, list) and len(ci) == 2 and all(finite_number(x) for x in ci)):
        return "a malformed elo_ci"
    if "unreliable" in obj and type(obj["unreliable"]) is not bool:
        return "'unreliable' is not true or false"
    rungs = obj.get("rungs")
    if not isinstance(rungs, list) or not rungs:
        return "malformed rungs"
    for r in rungs:
        problem = _rung_problem(r)
        if problem is not None:
            return problem
    if len({r["rung"] for r in rungs}) != len(rungs):
        return "a rung listed twice"
    if not any(r["games"] for r in rungs):
        return "no games against any rung"
    problem = conditions_problem(obj)
    if problem is not None:
        return problem
    lad = obj.get("ladder")
    derived = rating_of(rungs, (lad.get("games_per_pairing") or None) if isinstance(lad, dict) else None)
    if obj["games"] != derived["games"] or obj.get("unreliable", False) != derived["unreliable"]:
        return "its matches or unreliable mark do not follow from its rungs"
    if any(abs(x - y) > 0.11 for x, y in zip([obj["elo"], *ci], [derived["elo"], *derived["elo_ci"]],
                                              strict=True)):
        return "its rating does not follow from its rungs' results"
    f = obj.get("forfeits")
    if f is not None:
        want = {side: {k: sum(r.get(f"{s}_forfeit_kinds", {}).get(k, 0) for r in rungs) for k in KINDS}
                for side, s in (("bot", "a"), ("ladder", "b"))}
        if not (isinstance(f, dict) and set(f) == set(want) and all(
                isinstance(f[side], dict) and {k: f[side].get(k, 0) for k in KINDS} == want[side]
                and set(f[side]) <= set(KINDS) for side in want)):
            return "its forfeits do not follow from its rungs"
    return None


CONDITIONS: dict[str, Any] = {  # the optional fields of how a bot was benched (absent in older results)
    "seed_kind": (SECRET, PUBLIC), "bot_kind": (BUILT_IN, PLUGIN, EXTERNAL),
    "isolation": (IN_PROCESS, SANDBOXED, UNSANDBOXED), "trusted": bool, "sandbox": bool, "unmetered": bool,
    "metering": str, "bot_label": str, "replays": int, "worker_deaths": int,
}


def conditions_problem(obj: dict[str, Any]) -> str | None:
    """Why the fields saying how a bot was benched are malformed, or None (each may be absent)."""
    for key, want in CONDITIONS.items():
        if key not in obj:
            continue
        x = obj[key]
        ok = (x in want if isinstance(want, tuple) else type(x) is bool if want is bool
              else x is None or _count(x) if want is int else _name_ok(x))
        if not ok:
            return f"a malformed {key}"
    seed = obj.get("seed")
    if seed is not None and not (type(seed) is int and abs(seed) < 1 << 128):
        return "a malformed seed"
    lad = obj.get("ladder")
    g = lad.get("games_per_pairing") if isinstance(lad, dict) else None
    if g is not None and not _count(g):
        return "a malformed ladder games_per_pairing"
    return None


def _pair_ok(ci: Any) -> bool:
    return isinstance(ci, list) and len(ci) == 2 and all(x is None or finite_number(x) for x in ci)


WEIGHING = {"weights": ("regression", "1"), "used": ("aivat", "plain")}  # CorrectedFigure's, if there


def rung_aivat_ok(a: Any) -> bool:
    """A rung's corrected figure as :meth:`~agents.arena.corrected.CorrectedFigure.to_dict` writes it:
    finite numbers or null, a short value name and note, counts."""
    ci = a.get("ci") if isinstance(a, dict) else None
    return (isinstance(a, dict) and isinstance(a.get("value"), str) and len(a["value"]) <= 40
            and all(a.get(k) is None or finite_number(a[k]) for k in ("points_per_deal", "sd_ratio"))
            and _pair_ok(ci)
            and all(type(a.get(k)) is int for k in ("corrected_games", "games"))
            and isinstance(a.get("note"), str) and len(a["note"]) <= 1000
            and all(a.get(k) is None or a[k] in choices for k, choices in WEIGHING.items()))


