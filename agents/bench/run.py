"""``sixtysix bench SPEC``: play a bot against every rung of the ladder and rate it.

Each rung is a head-to-head in the arena (:func:`agents.arena.head_to_head`)
at the ladder's time control, on the card seeds of :data:`BENCH_SEED` with
duplicate deals, that stops once the arena's SPRT decides whether the bot
is :data:`SPRT_ELO` Elo weaker or stronger than the rung, after at most
``max_games`` games. Every game goes to ``OUT/<rung>.jsonl`` at once, so a
killed bench continues where it stopped when run again with the same
``OUT``. The rating is :func:`agents.bench.ladder.fit_rating` over all
rungs, on the ladder's fixed scale.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from agents.arena import head_to_head
from agents.arena.pairing import PairingStats, jsonable

from .ladder import BENCH_SEED, Ladder, fit_rating, load_ladder
from .report import write_reports

SPRT_ELO = (-100.0, 100.0)  # per rung: is the bot 100 Elo weaker (H0) or 100 Elo stronger (H1)?
MAX_GAMES = 100  # per rung at most (50 card seeds, each with both seatings)


@dataclass(frozen=True)
class BenchOptions:
    """How to bench: output folder, workers, the ladder and the per-rung limit."""

    out: str
    workers: int = 1
    max_games: int = MAX_GAMES
    ladder_path: str | None = None
    progress: bool = False


def rung_file(out: str, rung: str) -> str:
    """The results file of one rung in ``out``."""
    return os.path.join(out, re.sub(r"[^A-Za-z0-9_.=-]+", "_", rung) + ".jsonl")


def bench(spec: str, options: BenchOptions) -> dict[str, Any]:
    """Play (or finish) the bench of ``spec``; write ``bench.md/.json/.png`` in ``out``; return the JSON."""
    ladder = load_ladder(options.ladder_path)
    os.makedirs(options.out, exist_ok=True)
    rows = []
    for rung in ladder.rungs:
        path = rung_file(options.out, rung)
        st = head_to_head(spec, rung, games=options.max_games, seed=BENCH_SEED, move_time=ladder.move_time,
                          workers=options.workers, results_path=path, resume=os.path.exists(path),
                          sprt=SPRT_ELO, progress=options.progress)
        rows.append(rung_row(rung, ladder, st))
        print(f"bench {spec} vs {rung}: {st.summary()}", file=sys.stderr)
    result = summarize(spec, ladder, rows)
    write_reports(result, options.out)
    return result


def rung_row(rung: str, ladder: Ladder, st: PairingStats) -> dict[str, Any]:
    """One rung's line of the bench: its rating and the bot's results against it."""
    d = st.to_dict()
    keep = ("games", "a_wins", "b_wins", "draws", "a_forfeits", "b_forfeits", "win_rate", "win_rate_ci",
            "deals", "deal_win_rate", "deal_win_rate_ci", "points_per_deal", "points_per_deal_ci",
            "sprt_verdict")
    return {"rung": rung, "rung_elo": ladder.ratings[rung], **{k: d[k] for k in keep}}


def summarize(spec: str, ladder: Ladder, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The bench result: the rating with its interval, the ladder used, the rows."""
    results = [(r["rung_elo"], r["a_wins"] + r["draws"] / 2, r["games"]) for r in rows]
    elo, (lo, hi) = fit_rating(results)
    return jsonable({
        "bot": spec, "elo": round(elo, 1), "elo_ci": [round(lo, 1), round(hi, 1)],
        "games": sum(r["games"] for r in rows),
        "ladder": {"scale": ladder.to_dict()["scale"], "move_time": ladder.move_time, "seed": ladder.seed,
                   "ratings": ladder.ratings},
        "max_games_per_rung": max((r["games"] for r in rows), default=0), "sprt_elo": list(SPRT_ELO),
        "rungs": rows,
    })


def read_result(path: str) -> dict[str, Any]:
    """A bench JSON written by :func:`bench` (a folder means its ``bench.json``)."""
    if os.path.isdir(path):
        path = os.path.join(path, "bench.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)
