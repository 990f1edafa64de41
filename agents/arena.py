"""The arena: head-to-head and round-robin comparisons of bots, with statistics.

Bots are spec strings for :func:`agents.make_agent` (``"random"``,
``"pimc:worlds=30"``, ``"ppo:path"``) or, with ``workers=1``, Agent objects.
Every game runs through the PettingZoo env (:func:`agents.play.play_game`).

Schedule (reproducible from one master ``seed``): the games of every pairing
use the same card seeds, ``derive_seed(seed, "game", k)``. In duplicate mode
(default) consecutive games ``2k`` and ``2k+1`` share seed ``k`` with the
seats swapped, so both bots get the same cards in the same seat and most of
the luck of the deal cancels. A unit is a match to 7 (default) or one deal.

Nothing is lost: with ``results_path`` every finished game is appended to a
JSON Lines file (:mod:`agents.records`) the moment it ends; ``resume=True``
plays only the missing games and the final numbers equal those of an
uninterrupted run. Results are ordered by game index, so they are identical
for any number of ``workers``.

Statistics (:mod:`agents.stats`): win rate with a Wilson 95% interval
(draws, possible only for single deals, count half; games are treated as
independent, which is conservative for duplicate pairs); deal win rate the
same over deals; game points per deal (A's net: points A won minus points B
won, over completed deals) with a cluster t interval over duplicate pairs
(or games); Elo from the win rate; likelihood of superiority; and for round
robins a Bradley-Terry fit over all games. Forfeited games count as losses
for the offender; the deal interrupted by a forfeit is not a completed deal.

Sequential stop (head-to-head only): with ``sprt=(elo0, elo1)`` the run
tests H0 "A is elo0 stronger than B" against H1 "A is elo1 stronger"
(:func:`stats.sprt`, error rates ``sprt_alpha`` and ``sprt_beta``) after
every game in game-index order (in duplicate mode only at the end of a
duplicate pair, so seat luck stays balanced) and stops at the first game
where it accepts either; ``games`` is then the maximum. The results and the
verdict are those of the games up to that deciding index, identical for any
``workers`` and for a resumed run; games that other workers finish after the
decision are still written to the results file but do not count.

Run ``python -m agents.arena --help`` or ``sixtysix arena --help``.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np

from . import stats
from .base import Agent
from .play import UNITS, GameRecord, derive_seed, make_env, play_game
from .records import ResultsFileError, ResultsWriter, open_results

AgentLike = str | Agent


# --------------------------------------------------------------- the schedule
@dataclass(frozen=True)
class Task:
    """One scheduled game: players ``a`` and ``b`` (indices), seats, seeds."""

    index: int
    a: int
    b: int
    seats: tuple[int, int]  # player index at seat 0 and seat 1
    seed: int
    agent_seeds: tuple[int, int]  # per seat
    cluster: int  # duplicate pair (or game) number within the pairing


def pairings(n_players: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n_players) for j in range(i + 1, n_players)]


def schedule(n_players: int, games: int, seed: int, duplicate: bool) -> list[Task]:
    """All games of a round robin (``n_players == 2``: a head-to-head), by index."""
    tasks = []
    for p, (a, b) in enumerate(pairings(n_players)):
        for g in range(games):
            k, swap = (g // 2, g % 2) if duplicate else (g, 0)
            game_seed = derive_seed(seed, "game", k)
            seed_a = derive_seed(seed, "agent", k, "a")
            seed_b = derive_seed(seed, "agent", k, "b")
            seats, agent_seeds = ((b, a), (seed_b, seed_a)) if swap else ((a, b), (seed_a, seed_b))
            tasks.append(Task(p * games + g, a, b, seats, game_seed, agent_seeds, k))
    return tasks


# ------------------------------------------------------- the sequential stop
SPRT_H1 = "H1"  # accepted: A is elo1 stronger than B
SPRT_H0 = "H0"  # accepted: A is (at most) elo0 stronger than B
SPRT_UNDECIDED = "undecided"  # the maximum number of games came first


@dataclass(frozen=True)
class SprtSettings:
    """Settings of the sequential stop: H0 elo ``elo0`` against H1 ``elo1``, error rates."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v):
                raise ValueError(f"SPRT {name} must be a finite number, got {v!r}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got elo0={self.elo0!r}, elo1={self.elo1!r}")
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0 < v < 1:
                raise ValueError(f"SPRT {name} must be in (0, 1), got {v!r}")
        if not self.alpha + self.beta < 1:
            raise ValueError(f"SPRT needs alpha + beta < 1, got {self.alpha!r} + {self.beta!r}")
        for name in ("elo0", "elo1", "alpha", "beta"):
            object.__setattr__(self, name, float(getattr(self, name)))

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


def sprt_settings(
    sprt: Sequence[float] | None, alpha: float = 0.05, beta: float = 0.05
) -> SprtSettings | None:
    """Validated settings from ``(elo0, elo1)`` and the error rates (None without ``sprt``)."""
    if sprt is None:
        if (alpha, beta) != (0.05, 0.05):
            raise ValueError("sprt_alpha and sprt_beta need sprt=(elo0, elo1)")
        return None
    if isinstance(sprt, str | bytes) or not isinstance(sprt, Sequence) or len(sprt) != 2:
        raise ValueError(f"sprt must be a pair (elo0, elo1), got {sprt!r}")
    return SprtSettings(sprt[0], sprt[1], alpha, beta)


class SequentialStop:
    """The SPRT of a head-to-head run, fed game lines in index order (A is player 0).

    It tests after every game, or in duplicate mode only after the second
    game of each duplicate pair (and after game ``max_games``, the last).
    ``decided`` turns true at the first test that accepts H0 or H1.
    """

    def __init__(self, settings: SprtSettings, duplicate: bool, max_games: int) -> None:
        self.settings = settings
        self.duplicate = duplicate
        self.max_games = max_games
        self.wins = self.draws = self.losses = 0
        self.played = 0
        self.result = self._test()

    def _test(self) -> stats.SprtResult:
        s = self.settings
        return stats.sprt(self.wins, self.draws, self.losses, elo0=s.elo0, elo1=s.elo1, alpha=s.alpha,
                          beta=s.beta)

    @property
    def decided(self) -> bool:
        return self.result.decision != "continue"

    @property
    def verdict(self) -> str:
        return {"accept": SPRT_H1, "reject": SPRT_H0}.get(self.result.decision, SPRT_UNDECIDED)

    def add(self, line: dict[str, Any]) -> bool:
        """Count one game (the next by index); return whether the test has decided."""
        if self.decided:
            raise RuntimeError("the sequential test has already decided")
        w = line["winner"]
        if w is None:
            self.draws += 1
        elif line["seats"][w] == 0:
            self.wins += 1
        else:
            self.losses += 1
        self.played += 1
        if not self.duplicate or self.played % 2 == 0 or self.played >= self.max_games:
            self.result = self._test()
        return self.decided

    def record(self, st: PairingStats) -> PairingStats:
        """Write the verdict into ``st`` (the statistics of the counted games)."""
        s = self.settings
        st.sprt_verdict = self.verdict
        st.sprt_llr = self.result.llr
        st.sprt_bounds = (self.result.lower, self.result.upper)
        st.sprt_elo = (s.elo0, s.elo1)
        st.sprt_alpha, st.sprt_beta = s.alpha, s.beta
        st.sprt_max_games = self.max_games
        return st


# ---------------------------------------------------------------- statistics
@dataclass
class PairingStats:
    """Result of A against B; every rate and net number is from A's side."""

    a: str
    b: str
    games: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    forfeits: int = 0
    a_forfeits: int = 0
    b_forfeits: int = 0
    win_rate: float = float("nan")
    win_rate_ci: tuple[float, float] = (0.0, 1.0)
    deals: int = 0
    a_deal_wins: int = 0
    b_deal_wins: int = 0
    drawn_deals: int = 0
    deal_win_rate: float = float("nan")
    deal_win_rate_ci: tuple[float, float] = (0.0, 1.0)
    points_per_deal: float = float("nan")
    points_per_deal_ci: tuple[float, float] = (float("nan"), float("nan"))
    elo: float = float("nan")
    elo_ci: tuple[float, float] = (float("nan"), float("nan"))
    los: float = 0.5
    unit: str = "match"
    duplicate: bool = True
    # Sequential stop (None unless the run had ``sprt``): verdict SPRT_H1, SPRT_H0
    # or SPRT_UNDECIDED, the LLR at the last test, its (lower, upper) bounds,
    # the settings, and the maximum number of games the run allowed.
    sprt_verdict: str | None = None
    sprt_llr: float | None = None
    sprt_bounds: tuple[float, float] | None = None
    sprt_elo: tuple[float, float] | None = None
    sprt_alpha: float | None = None
    sprt_beta: float | None = None
    sprt_max_games: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (strict: NaN and infinite values, e.g. the Elo of a 100% score, become None)."""
        return {k: _jsonable(v) for k, v in self.__dict__.items()}

    def sprt(self, elo0: float = 0.0, elo1: float = 10.0, alpha: float = 0.05,
             beta: float = 0.05) -> stats.SprtResult:
        """SPRT of "A is ``elo1`` stronger than B" (vs ``elo0``) on these games."""
        return stats.sprt(self.a_wins, self.draws, self.b_wins, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)

    def summary(self) -> str:
        lo, hi = self.win_rate_ci
        units = "matches" if self.unit == "match" else "deals"
        return (
            f"{self.a} vs {self.b}: {self.games} {units}, win rate {_pct(self.win_rate)} "
            f"[{_pct(lo)}, {_pct(hi)}], deals won {_pct(self.deal_win_rate)}, "
            f"points/deal {self.points_per_deal:+.3f} [{self.points_per_deal_ci[0]:+.3f}, "
            f"{self.points_per_deal_ci[1]:+.3f}], forfeits {self.a_forfeits}/{self.b_forfeits}"
        ) + (f"\n{self.sprt_text()}" if self.sprt_verdict is not None else "")

    def sprt_text(self) -> str:
        """One line on the sequential stop ('' if the run had none)."""
        if self.sprt_verdict is None or self.sprt_elo is None or self.sprt_bounds is None:
            return ""
        e0, e1 = self.sprt_elo
        verdict = {
            SPRT_H1: f"H1 accepted ({self.a} stronger than {self.b} by about {e1:g} Elo)",
            SPRT_H0: f"H0 accepted ({self.a} not stronger than {self.b} by {e1:g} Elo)",
        }.get(self.sprt_verdict, "undecided (maximum reached)")
        units = "matches" if self.unit == "match" else "deals"
        llr = round(self.sprt_llr or 0.0, 3) + 0.0  # no "-0.000"
        return (
            f"SPRT elo0 {e0:g} vs elo1 {e1:g} (alpha {self.sprt_alpha:g}, beta {self.sprt_beta:g}): "
            f"{verdict} after {self.games} of at most {self.sprt_max_games} {units}, "
            f"LLR {llr:+.3f} in [{self.sprt_bounds[0]:+.3f}, {self.sprt_bounds[1]:+.3f}]"
        )


def pairing_stats(
    records: Sequence[dict[str, Any]], a: int, b: int, names: Sequence[str], unit: str, duplicate: bool
) -> PairingStats:
    """Statistics of the games between players ``a`` and ``b`` (records as in the JSONL file)."""
    st = PairingStats(names[a], names[b], unit=unit, duplicate=duplicate)
    net_by_cluster: dict[int, float] = {}
    deals_by_cluster: dict[int, int] = {}
    for r in records:
        if {r["seats"][0], r["seats"][1]} != {a, b}:
            continue
        seat_a = r["seats"].index(a)
        st.games += 1
        w = r["winner"]
        if w is None:
            st.draws += 1
        elif w == seat_a:
            st.a_wins += 1
        else:
            st.b_wins += 1
        if r["forfeit"] is not None:
            st.forfeits += 1
            if r["forfeit"]["seat"] == seat_a:
                st.a_forfeits += 1
            else:
                st.b_forfeits += 1
        c = r["cluster"]
        net = 0
        for d in r["deals"]:
            dw = d["winner"]
            if dw is None:
                st.drawn_deals += 1
            elif dw == seat_a:
                st.a_deal_wins += 1
                net += d["game_points"]
            else:
                st.b_deal_wins += 1
                net -= d["game_points"]
        st.deals += len(r["deals"])
        net_by_cluster[c] = net_by_cluster.get(c, 0) + net
        deals_by_cluster[c] = deals_by_cluster.get(c, 0) + len(r["deals"])
    if st.games:
        score = st.a_wins + 0.5 * st.draws
        st.win_rate = score / st.games
        st.win_rate_ci = stats.wilson_interval(score, st.games)
        st.elo = stats.elo_from_score(st.win_rate)
        st.elo_ci = (stats.elo_from_score(st.win_rate_ci[0]), stats.elo_from_score(st.win_rate_ci[1]))
        st.los = stats.los(st.a_wins, st.b_wins)
    if st.deals:
        dscore = st.a_deal_wins + 0.5 * st.drawn_deals
        st.deal_win_rate = dscore / st.deals
        st.deal_win_rate_ci = stats.wilson_interval(dscore, st.deals)
        keys = sorted(net_by_cluster)
        r_, lo, hi = stats.ratio_interval(
            [net_by_cluster[k] for k in keys], [deals_by_cluster[k] for k in keys]
        )
        st.points_per_deal, st.points_per_deal_ci = r_, (lo, hi)
    return st


@dataclass
class RoundRobinResult:
    """All pairings of a round robin plus a Bradley-Terry rating of every bot."""

    names: list[str]
    config: dict[str, Any]
    pairings: list[PairingStats]
    ratings: stats.Ratings
    score: list[float] = field(default_factory=list)  # games won (draws half) per bot
    games: list[int] = field(default_factory=list)  # games played per bot

    def standings(self) -> list[int]:
        """Player indices, best rating first."""
        return sorted(range(len(self.names)), key=lambda i: -self.ratings.elo[i])

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "ratings": [
                {
                    "name": self.names[i],
                    "elo": _jsonable(self.ratings.elo[i]),
                    "elo_ci": _jsonable(self.ratings.intervals[i]),
                    "games": self.games[i],
                    "score": self.score[i],
                }
                for i in self.standings()
            ],
            "pairings": [p.to_dict() for p in self.pairings],
        }

    # ---------------------------------------------------------------- output
    def _rating_rows(self) -> list[list[str]]:
        rows = []
        for rank, i in enumerate(self.standings(), start=1):
            lo, hi = self.ratings.intervals[i]
            g = self.games[i]
            rows.append(
                [str(rank), self.names[i], f"{self.ratings.elo[i]:+.0f}", f"[{lo:+.0f}, {hi:+.0f}]",
                 str(g), _pct(self.score[i] / g if g else float("nan"))]
            )
        return rows

    def _pairing_rows(self) -> list[list[str]]:
        rows = []
        for p in self.pairings:
            rows.append(
                [f"{p.a} vs {p.b}", str(p.games), _pct(p.win_rate), _ci_pct(p.win_rate_ci), str(p.deals),
                 _pct(p.deal_win_rate), f"{p.points_per_deal:+.3f}",
                 f"[{p.points_per_deal_ci[0]:+.3f}, {p.points_per_deal_ci[1]:+.3f}]",
                 f"{p.a_forfeits}/{p.b_forfeits}"]
            )
        return rows

    _RATING_HEAD = ["rank", "bot", "Elo", "95% CI", "games", "score"]
    _PAIR_HEAD = ["A vs B", "games", "A win", "95% CI", "deals", "A deal win", "A pts/deal", "95% CI",
                  "forfeits A/B"]

    def _title(self) -> str:
        c = self.config
        unit = "matches to 7" if c.get("unit") == "match" else "single deals"
        dup = "duplicate" if c.get("duplicate") else "not duplicate"
        mt = f", {c['move_time']}s per move" if c.get("move_time") else ""
        at_most = "at most " if c.get("sprt") else ""
        return (f"Sixty-Six arena: {at_most}{c.get('games')} {unit} per pairing, {dup}, seed {c.get('seed')}"
                f"{mt}")

    def _sprt_lines(self) -> list[str]:
        return [t for t in (p.sprt_text() for p in self.pairings) if t]

    def table(self) -> str:
        """A plain-text report for the terminal."""
        return "\n".join(
            [self._title(), "", _text_table(self._RATING_HEAD, self._rating_rows()), "",
             _text_table(self._PAIR_HEAD, self._pairing_rows()),
             *(["", *self._sprt_lines()] if self._sprt_lines() else [])]
        )

    def markdown(self) -> str:
        return "\n".join(
            [f"**{self._title()}**", "", _md_table(self._RATING_HEAD, self._rating_rows()), "",
             _md_table(self._PAIR_HEAD, self._pairing_rows()), "",
             *(f"{t}\n" for t in self._sprt_lines())]
        )

    def plot(self, path: str) -> None:
        """PNG: ratings with 95% error bars, and the win-rate matrix."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        order = self.standings()[::-1]
        n = len(self.names)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, max(3.0, 0.5 * n + 2)))
        elo = [self.ratings.elo[i] for i in order]
        ci = [self.ratings.intervals[i] for i in order]
        err = [[e - lo for e, (lo, _) in zip(elo, ci, strict=True)],
               [hi - e for e, (_, hi) in zip(elo, ci, strict=True)]]
        ax1.errorbar(elo, range(n), xerr=err, fmt="o", capsize=4)
        ax1.set_yticks(range(n), [self.names[i] for i in order])
        ax1.axvline(0, color="grey", lw=0.5)
        ax1.set_xlabel("Elo (Bradley-Terry, mean 0), 95% interval")
        mat = np.full((n, n), np.nan)
        for p in self.pairings:
            i, j = self.names.index(p.a), self.names.index(p.b)
            mat[i, j], mat[j, i] = p.win_rate, 1 - p.win_rate
        im = ax2.imshow(mat, vmin=0, vmax=1, cmap="RdYlGn")
        ax2.set_xticks(range(n), self.names, rotation=45, ha="right")
        ax2.set_yticks(range(n), self.names)
        for i in range(n):
            for j in range(n):
                if not math.isnan(mat[i, j]):
                    ax2.text(j, i, f"{mat[i, j]:.2f}", ha="center", va="center", fontsize=8)
        ax2.set_title("win rate of row against column")
        fig.colorbar(im, ax=ax2, fraction=0.046)
        fig.suptitle(self._title(), fontsize=9)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


def _jsonable(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_jsonable(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _pct(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}%"


def _ci_pct(ci: tuple[float, float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _text_table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h) for k, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*head), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*r) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------- running
def _make(spec: AgentLike) -> Agent:
    if isinstance(spec, str):
        from .registry import make_agent

        return make_agent(spec)
    return spec


def _names(players: Sequence[AgentLike]) -> list[str]:
    """Display names: the spec string, or the object's ``name``; repeats get ``#2``, ``#3``."""
    names: list[str] = []
    for p in players:
        base = p if isinstance(p, str) else str(getattr(p, "name", type(p).__name__))
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def _check(players: Sequence[AgentLike], games: int, unit: str, workers: int,
           move_time: float | None) -> None:
    if len(players) < 2:
        raise ValueError("the arena needs at least two bots")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if move_time is not None and not move_time > 0:
        raise ValueError(f"move_time must be positive seconds or None, got {move_time!r}")
    from .registry import parse_spec

    for p in players:
        if isinstance(p, str):
            parse_spec(p)  # fail fast on a bad spec, before any game or worker starts
    objects = [p for p in players if not isinstance(p, str)]
    for p in objects:
        if not (hasattr(p, "act") and hasattr(p, "reset")):
            raise ValueError(f"not a bot: {p!r} (give a spec string or an object with act() and reset())")
    if objects and workers > 1:
        raise ValueError("Agent objects can only be played with workers=1; pass spec strings to use workers")
    if len({id(p) for p in objects}) != len(objects):
        raise ValueError("pass a distinct Agent object for each player (one object cannot sit in two seats)")


def _game_line(task: Task, rec: GameRecord) -> dict[str, Any]:
    d = {"type": "game", "index": task.index, "pairing": [task.a, task.b], "seats": list(task.seats),
         "cluster": task.cluster}
    d.update(rec.to_dict())
    return d


# Per-process state of pool workers (built once by the initializer).
_W: dict[str, Any] = {}


def _init_worker(specs: list[str], unit: str, move_time: float | None) -> None:
    # Bots are built on the first task, not here: an exception in a pool
    # initializer makes multiprocessing respawn the worker forever, while one
    # in a task reaches the parent as a clear error.
    _W.update(specs=specs, agents=None, env=None, unit=unit, move_time=move_time)


def _play_task(agents: Sequence[Agent], env: Any, task: Task, unit: str,
               move_time: float | None) -> dict[str, Any]:
    rec = play_game(agents[task.seats[0]], agents[task.seats[1]], task.seed, unit, move_time,
                    agent_seeds=task.agent_seeds, env=env)
    return _game_line(task, rec)


def _worker_task(task: Task) -> dict[str, Any]:
    if _W["agents"] is None:
        _W["agents"] = [_make(s) for s in _W["specs"]]
        _W["env"] = make_env(_W["unit"])
    return _play_task(_W["agents"], _W["env"], task, _W["unit"], _W["move_time"])


def _mp_context() -> Any:
    """forkserver on Unix (no fork of a threaded parent), spawn elsewhere."""
    methods = mp.get_all_start_methods()
    return mp.get_context("forkserver" if "forkserver" in methods else "spawn")


def _run_games(players: Sequence[AgentLike], names: list[str], tasks: list[Task], unit: str,
               workers: int, move_time: float | None, done: dict[int, dict[str, Any]],
               writer: ResultsWriter | None, progress: bool, seq: SequentialStop | None = None) -> int:
    """Play the missing games; return how many leading games (by index) count.

    Without ``seq`` that is all of them. With it, finished games are fed to the
    test in index order and play stops once it decides: the count is then the
    deciding game's index plus one, whatever order the workers finish in.
    """
    pos = 0  # games tasks[:pos] have been fed to seq

    def advance() -> bool:
        nonlocal pos
        assert seq is not None
        while pos < len(tasks) and tasks[pos].index in done:
            pos += 1
            if seq.add(done[tasks[pos - 1].index]):
                return True
        return False

    if seq is not None and advance():
        return pos  # a resumed run whose recorded games already decide
    todo = [t for t in tasks if t.index not in done]
    bar = _progress_bar(len(tasks), len(tasks) - len(todo), names, done) if progress else None
    results = _results(players, todo, unit, workers, move_time)
    try:
        for line in results:
            done[line["index"]] = line
            if writer is not None:
                writer.write(line)
            if bar is not None:
                bar.update(line)
            if seq is not None and advance():
                return pos
    finally:
        results.close()  # stops (terminates) a worker pool still playing
        if bar is not None:
            bar.close()
    return len(tasks)


def _results(players: Sequence[AgentLike], todo: list[Task], unit: str, workers: int,
             move_time: float | None) -> Iterator[dict[str, Any]]:
    if not todo:
        return
    if workers == 1 or len(todo) == 1:
        agents = [_make(p) for p in players]
        env = make_env(unit)
        for task in todo:
            yield _play_task(agents, env, task, unit, move_time)
        return
    ctx = _mp_context()
    n = min(workers, len(todo))
    chunk = max(1, min(8, len(todo) // (n * 16)))
    with ctx.Pool(n, initializer=_init_worker, initargs=(list(players), unit, move_time)) as pool:
        yield from pool.imap_unordered(_worker_task, todo, chunksize=chunk)


class _Progress:
    """tqdm bar: games done, rate, ETA, and the current standings."""

    def __init__(self, total: int, initial: int, names: list[str], done: dict[int, dict[str, Any]]) -> None:
        from tqdm import tqdm

        self.names = names
        self.score = [0.0] * len(names)
        self.played = [0] * len(names)
        for line in done.values():
            self._count(line)
        self.bar = tqdm(total=total, initial=initial, unit="game", dynamic_ncols=True, file=sys.stderr)
        self._show()

    def _count(self, line: dict[str, Any]) -> None:
        seats, w = line["seats"], line["winner"]
        for s in (0, 1):
            p = seats[s]
            self.played[p] += 1
            self.score[p] += 0.5 if w is None else float(w == s)

    def _show(self) -> None:
        order = sorted(range(len(self.names)), key=lambda i: -self.score[i] / max(1, self.played[i]))
        text = " ".join(f"{self.names[i]} {_pct(self.score[i] / self.played[i])}"
                        for i in order[:4] if self.played[i])
        self.bar.set_postfix_str(text, refresh=False)

    def update(self, line: dict[str, Any]) -> None:
        self._count(line)
        self._show()
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def _progress_bar(total: int, initial: int, names: list[str], done: dict[int, dict[str, Any]]) -> _Progress:
    return _Progress(total, initial, names, done)


def _validate_resumed(path: str, lines: list[dict[str, Any]], tasks: list[Task]) -> dict[int, dict[str, Any]]:
    by_index = {t.index: t for t in tasks}
    done = {}
    for line in lines:
        t = by_index.get(line["index"])
        if t is None:
            continue  # beyond this run's game count (the file's run was longer)
        if line.get("seed") != t.seed or line.get("seats") != list(t.seats):
            raise ResultsFileError(
                f"{path}: game {t.index} does not match this run's schedule (seed or seats differ)"
            )
        done[t.index] = line
    return done


def run(
    players: Sequence[AgentLike],
    *,
    games: int,
    unit: str = "match",
    seed: int = 0,
    duplicate: bool = True,
    workers: int = 1,
    move_time: float | None = None,
    results_path: str | None = None,
    resume: bool = False,
    progress: bool = False,
    sprt: tuple[float, float] | None = None,
    sprt_alpha: float = 0.05,
    sprt_beta: float = 0.05,
) -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
    """Play (or finish) a round robin; return names, config and game lines ordered by index.

    With ``sprt`` (two players only) the lines are those up to the deciding game.
    """
    names, config, lines, _ = _run(
        players, games=games, unit=unit, seed=seed, duplicate=duplicate, workers=workers,
        move_time=move_time, results_path=results_path, resume=resume, progress=progress,
        sprt=sprt_settings(sprt, sprt_alpha, sprt_beta),
    )
    return names, config, lines


def _run(
    players: Sequence[AgentLike], *, games: int, unit: str, seed: int, duplicate: bool, workers: int,
    move_time: float | None, results_path: str | None, resume: bool, progress: bool,
    sprt: SprtSettings | None,
) -> tuple[list[str], dict[str, Any], list[dict[str, Any]], SequentialStop | None]:
    _check(players, games, unit, workers, move_time)
    if resume and results_path is None:
        raise ValueError("resume needs a results_path to resume from")
    if sprt is not None and len(players) != 2:
        raise ValueError(f"the SPRT stop is for head-to-head runs (two bots), got {len(players)} bots")
    names = _names(players)
    config: dict[str, Any] = {"players": names, "games": games, "unit": unit, "seed": seed,
                              "duplicate": duplicate, "move_time": move_time}
    if sprt is not None:  # only then, so files of runs without it resume as before
        config["sprt"] = sprt.to_dict()
    tasks = schedule(len(players), games, seed, duplicate)
    seq = SequentialStop(sprt, duplicate, games) if sprt is not None else None
    done: dict[int, dict[str, Any]] = {}
    writer = None
    if results_path is not None:
        lines, writer = open_results(results_path, config, resume)
        done = _validate_resumed(results_path, lines, tasks)
    try:
        counted = _run_games(players, names, tasks, unit, workers, move_time, done, writer, progress, seq)
    finally:
        if writer is not None:
            writer.close()
    return names, config, [done[t.index] for t in tasks[:counted]], seq


def head_to_head(
    agent_a: AgentLike,
    agent_b: AgentLike,
    *,
    games: int,
    unit: str = "match",
    seed: int = 0,
    duplicate: bool = True,
    workers: int = 1,
    move_time: float | None = None,
    results_path: str | None = None,
    resume: bool = False,
    progress: bool = False,
    sprt: tuple[float, float] | None = None,
    sprt_alpha: float = 0.05,
    sprt_beta: float = 0.05,
) -> PairingStats:
    """Play ``games`` games of A against B and return A's statistics.

    Duplicate mode plays each seed twice with the seats swapped. Spec strings
    or Agent objects (objects only with ``workers=1``). See the module
    docstring for the statistics and the results file.

    ``sprt=(elo0, elo1)`` stops early once the SPRT of H0 "A is elo0 Elo
    stronger" against H1 "A is elo1 stronger" (error rates ``sprt_alpha``,
    ``sprt_beta``) decides; ``games`` is then the maximum, and the returned
    statistics count the games up to the deciding one and hold the verdict
    (``sprt_verdict``: ``"H1"``, ``"H0"`` or ``"undecided"``, ``sprt_llr``,
    ``sprt_bounds``).
    """
    names, _, lines, seq = _run(
        [agent_a, agent_b], games=games, unit=unit, seed=seed, duplicate=duplicate, workers=workers,
        move_time=move_time, results_path=results_path, resume=resume, progress=progress,
        sprt=sprt_settings(sprt, sprt_alpha, sprt_beta),
    )
    st = pairing_stats(lines, 0, 1, names, unit, duplicate)
    return seq.record(st) if seq is not None else st


def round_robin(
    specs: Sequence[AgentLike],
    *,
    games: int,
    unit: str = "match",
    seed: int = 0,
    duplicate: bool = True,
    workers: int = 1,
    move_time: float | None = None,
    results_path: str | None = None,
    resume: bool = False,
    progress: bool = False,
    prior_draws: float = 1.0,
    sprt: tuple[float, float] | None = None,
    sprt_alpha: float = 0.05,
    sprt_beta: float = 0.05,
) -> RoundRobinResult:
    """Every bot against every other, ``games`` games per pairing, plus ratings.

    Ratings are a Bradley-Terry fit over all games (``prior_draws`` virtual
    draws per pairing keep a perfect score finite; see :func:`stats.bradley_terry`).
    ``sprt`` (exactly two bots) stops early as in :func:`head_to_head`; the
    pairing then holds the verdict.
    """
    names, config, lines, seq = _run(
        specs, games=games, unit=unit, seed=seed, duplicate=duplicate, workers=workers,
        move_time=move_time, results_path=results_path, resume=resume, progress=progress,
        sprt=sprt_settings(sprt, sprt_alpha, sprt_beta),
    )
    result = summarize(names, config, lines, prior_draws=prior_draws)
    if seq is not None:
        seq.record(result.pairings[0])
    return result


def summarize(names: list[str], config: dict[str, Any], lines: Sequence[dict[str, Any]],
              prior_draws: float = 1.0) -> RoundRobinResult:
    """Statistics of recorded games (as returned by :func:`run` or read from a results file)."""
    n = len(names)
    unit, duplicate = config["unit"], config["duplicate"]
    pair_stats = [pairing_stats(lines, a, b, names, unit, duplicate) for a, b in pairings(n)]
    score = np.zeros((n, n))
    played = np.zeros((n, n))
    for line in lines:
        s0, s1 = line["seats"]
        w = line["winner"]
        played[s0, s1] += 1
        played[s1, s0] += 1
        score[s0, s1] += 0.5 if w is None else float(w == 0)
        score[s1, s0] += 0.5 if w is None else float(w == 1)
    ratings = stats.bradley_terry(names, score, played, prior_draws=prior_draws)
    return RoundRobinResult(
        list(names), dict(config), pair_stats, ratings,
        score=[float(x) for x in score.sum(axis=1)], games=[int(x) for x in played.sum(axis=1)],
    )


if __name__ == "__main__":
    from agents.cli import main

    sys.exit(main(["arena", *sys.argv[1:]]))
