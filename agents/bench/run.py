"""``sixtysix bench SPEC``: play a bot against every rung of the ladder and rate it.

Each rung is a head-to-head in the arena (:func:`agents.arena.head_to_head`)
at the ladder's time control (CPU time by default: a busy machine slows the
bots down without making them lose on time), with duplicate deals, that
stops once the arena's SPRT decides whether the bot is :data:`SPRT_ELO` Elo
weaker or stronger than the rung, after at most ``max_games`` games. A rung
that is the benched bot itself is skipped.

What a bot cannot learn: every rung draws its own secret master seed (kept
in its results file, so results files reveal the deals and must not be
given to bots), so no two rungs share deals and no bot can recompute a deal;
``seed`` makes a bench reproducible (each rung's seed derived from it) and
is therefore only for trusted bots. Every game is played by fresh bots (a
new process for an external bot), and with ``sandbox`` external bots run in
bubblewrap (the default when it works here).

Fairness: a game a rung loses on time is played again, and too many such
games stop the bench with a "machine too busy" error
(:mod:`agents.arena.fairness`); forfeits and the CPU share are reported, and
a rating decided partly by forfeits is marked unreliable.

Every game goes to ``OUT/<rung>.jsonl`` at once, so a killed bench continues
where it stopped when run again with the same ``OUT``. The rating is
:func:`agents.bench.ladder.fit_rating` over all rungs, on the ladder's fixed scale.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from agents.arena import head_to_head
from agents.arena.corrected import EstimatorError, check_estimator
from agents.arena.lines import finite_number, parse_line
from agents.arena.pairing import PairingStats, jsonable
from agents.arena.schedule import SECRET_BITS, derive
from agents.forfeits import KINDS
from agents.protocol.sandbox import sandbox_problem
from sixtysix_env.variants import GERMAN, rules_from_spec

from .ladder import Ladder, fit_rating, load_ladder
from .report import write_reports

SPRT_ELO = (-100.0, 100.0)  # per rung: is the bot 100 Elo weaker (H0) or 100 Elo stronger (H1)?
MAX_GAMES = 100  # per rung at most (50 card seeds, each with both seatings)
REPORT_EVERY = 10  # without a progress bar: a line every this many games
AUTO = "auto"


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
    estimator: str = "plain"  # "aivat": each rung also reports the corrected points per deal
    value: str = "solver"  # the value function of the aivat estimator


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


def use_sandbox(spec: str, sandbox: bool | str) -> bool:
    """Whether to sandbox: as asked, or with ``"auto"`` when bubblewrap works (else say why not)."""
    if sandbox != AUTO:
        return bool(sandbox)
    problem = sandbox_problem()
    if problem is not None and spec.strip().lower().startswith("exec:"):
        print(f"bench: warning: the bot runs without a sandbox ({problem})", file=sys.stderr)
    return problem is None


def bench(spec: str, options: BenchOptions) -> dict[str, Any]:
    """Play (or finish) the bench of ``spec``; write ``bench.md/.json/.png`` in ``out``; return the JSON."""
    check_bench_rules(options.rules)
    try:  # before any rung starts
        check_estimator(options.estimator, options.value, options.rules)
    except EstimatorError as e:
        raise EstimatorError(e.option, f"--{e.option} {e}") from None
    ladder = load_ladder(options.ladder_path)
    os.makedirs(options.out, exist_ok=True)
    sandbox = use_sandbox(spec, options.sandbox)
    rungs = [r for r in ladder.rungs if r != spec.strip()]
    print(f"bench {spec}: {len(rungs)} rungs ({', '.join(rungs)}), at most {options.max_games} matches each, "
          f"{ladder.move_time:g} s of {ladder.clock} time per move, {options.workers} worker(s)"
          + (", sandboxed" if sandbox else "") + f"; results in {options.out}", file=sys.stderr, flush=True)
    if len(rungs) < len(ladder.rungs):
        print(f"bench {spec}: rung {spec.strip()} skipped (it is the bot being benched)", file=sys.stderr)
    rows = []
    for rung in rungs:
        path = rung_file(options.out, rung)
        print(f"bench {spec} vs {rung} (Elo {ladder.ratings[rung]:.0f}):", file=sys.stderr, flush=True)
        st = head_to_head(spec, rung, games=options.max_games, seed=rung_seed(options.seed, rung),
                          move_time=ladder.move_time, clock=ladder.clock, workers=options.workers,
                          results_path=path, resume=os.path.exists(path), sprt=SPRT_ELO,
                          progress=options.progress, reference=(1,), sandbox=sandbox,
                          report_every=0 if options.progress else REPORT_EVERY,
                          estimator=options.estimator, value=options.value, sprt_estimator="plain")
        rows.append(rung_row(rung, ladder, st))
        print(f"bench: {st.summary()}", file=sys.stderr)
    result = summarize(spec, ladder, rows)
    write_reports(result, options.out)
    return result


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


def summarize(spec: str, ladder: Ladder, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The bench result: the rating with its interval, the ladder used, the rows, forfeits and CPU share."""
    results = [(r["rung_elo"], r["a_wins"] + r["draws"] / 2, r["games"]) for r in rows]
    elo, (lo, hi) = fit_rating(results)
    forfeits = {side: {k: sum(r[f"{side}_forfeit_kinds"][k] for r in rows) for k in KINDS} for side in "ab"}
    shares = [(r["cpu_share"], r["games"]) for r in rows if r["cpu_share"] is not None and r["games"]]
    n = sum(g for _, g in shares)
    return jsonable({
        "bot": spec, "elo": round(elo, 1), "elo_ci": [round(lo, 1), round(hi, 1)],
        "games": sum(r["games"] for r in rows),
        "unreliable": any(r["a_forfeits"] or r["b_forfeits"] for r in rows),
        "forfeits": {"bot": forfeits["a"], "ladder": forfeits["b"]},
        "cpu_share": round(sum(s * g for s, g in shares) / n, 3) if n else None,
        "ladder": {"scale": ladder.to_dict()["scale"], "move_time": ladder.move_time, "clock": ladder.clock,
                   "ratings": ladder.ratings},
        "max_games_per_rung": max((r["games"] for r in rows), default=0), "sprt_elo": list(SPRT_ELO),
        "rungs": rows,
    })


def read_result(path: str) -> dict[str, Any] | None:
    """A bench JSON written by :func:`bench` (a folder means its ``bench.json``), or None with a
    one-line warning when it is not one (any shape: it may come from anywhere)."""
    if os.path.isdir(path):
        path = os.path.join(path, "bench.json")
    try:
        with open(path, "rb") as f:
            obj, problem = parse_line(f.read(1 << 24))
    except OSError as e:
        obj, problem = None, f"cannot read it ({e.strerror})"
    problem = problem or result_problem(obj)
    if problem is not None:
        print(f"warning: {path}: skipped, not a bench result ({problem})", file=sys.stderr)
        return None
    return obj


def result_problem(obj: Any) -> str | None:
    """Why ``obj`` is not a bench result the leaderboard can show, or None."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    if not (isinstance(obj.get("bot"), str) and finite_number(obj.get("elo"))
            and type(obj.get("games")) is int):
        return "no bot, elo or games"
    ci = obj.get("elo_ci")
    if not (isinstance(ci, list) and len(ci) == 2 and all(finite_number(x) for x in ci)):
        return "a malformed elo_ci"
    rungs = obj.get("rungs")
    if not isinstance(rungs, list) or not all(
            isinstance(r, dict) and isinstance(r.get("rung"), str)
            and (r.get("win_rate") is None or finite_number(r.get("win_rate")))
            and (r.get("points_per_deal") is None or finite_number(r["points_per_deal"]))
            and (r.get("points_per_deal_ci") is None or _pair_ok(r["points_per_deal_ci"]))
            and ("aivat" not in r or rung_aivat_ok(r["aivat"])) for r in rungs):
        return "malformed rungs"
    return None


def _pair_ok(ci: Any) -> bool:
    return isinstance(ci, list) and len(ci) == 2 and all(x is None or finite_number(x) for x in ci)


def rung_aivat_ok(a: Any) -> bool:
    """A rung's corrected figure as :meth:`~agents.arena.corrected.CorrectedFigure.to_dict` writes it:
    finite numbers or null, a short value name and note, counts."""
    ci = a.get("ci") if isinstance(a, dict) else None
    return (isinstance(a, dict) and isinstance(a.get("value"), str) and len(a["value"]) <= 40
            and all(a.get(k) is None or finite_number(a[k]) for k in ("points_per_deal", "sd_ratio"))
            and _pair_ok(ci)
            and all(type(a.get(k)) is int for k in ("corrected_games", "games"))
            and isinstance(a.get("note"), str) and len(a["note"]) <= 1000)


