"""The result of a round robin and its reports: text for the terminal, Markdown, JSON, PNG.

:class:`RoundRobinResult` holds the numbers (from :func:`agents.arena.summarize`);
this module only lays them out, so every report shows the same numbers.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.stats import Ratings
from .fairness import share_text
from .lines import jsonable
from .pairing import PairingStats, percent

RATING_HEAD = ["rank", "bot", "Elo", "95% CI", "games", "score"]
PAIR_HEAD = ["A vs B", "games", "A win", "95% CI", "deals", "A deal win", "A pts/deal", "95% CI",
             "forfeits A/B"]
AIVAT_HEAD = ["A pts/deal aivat", "95% CI", "SD plain/aivat"]  # beside the plain figure, with aivat


@dataclass
class RoundRobinResult:
    """All pairings of a round robin plus a Bradley-Terry rating of every bot."""

    names: list[str]
    config: dict[str, Any]
    pairings: list[PairingStats]
    ratings: Ratings
    score: list[float] = field(default_factory=list)  # games won (draws half) per bot
    games: list[int] = field(default_factory=list)  # games played per bot
    # How the games were played (empty for a summary of a results file alone): seed_kind, sandbox,
    # bot_kinds (per bot, as names), metering and replays, as the results header records them.
    how: dict[str, Any] = field(default_factory=dict)

    def standings(self) -> list[int]:
        """Player indices, best rating first."""
        return sorted(range(len(self.names)), key=lambda i: -self.ratings.elo[i])

    @property
    def forfeits(self) -> int:
        """Games decided by a forfeit, over all pairings."""
        return sum(p.forfeits for p in self.pairings)

    @property
    def cpu_share(self) -> float | None:
        """CPU time over wall time of all games (None if none recorded it)."""
        shares = [(p.cpu_share, p.games) for p in self.pairings if p.cpu_share is not None and p.games]
        total = sum(g for _, g in shares)
        return sum(s * g for s, g in shares) / total if total else None

    def notes(self) -> list[str]:
        """Warnings under the tables: forfeits that decided games, a low CPU share, games the
        estimator could not correct."""
        out = [f"{p.a} vs {p.b}: {p.aivat.note}" for p in self.pairings
               if p.aivat is not None and p.aivat.note]
        if self.forfeits:
            games = sum(p.games for p in self.pairings)
            out.append(f"Ratings unreliable: {self.forfeits} of {games} games were decided by forfeit "
                       "(see the forfeits column).")
        share = share_text(self.cpu_share)
        return out + ([share] if share else [])

    def to_dict(self) -> dict[str, Any]:
        """The JSON summary (strict JSON: no NaN or infinities)."""
        return {
            "config": self.config,
            "unreliable": bool(self.forfeits),
            "forfeits": self.forfeits,
            "cpu_share": jsonable(self.cpu_share),
            "ratings": [
                {
                    "name": self.names[i],
                    "elo": jsonable(self.ratings.elo[i]),
                    "elo_ci": jsonable(self.ratings.intervals[i]),
                    "games": self.games[i],
                    "score": self.score[i],
                }
                for i in self.standings()
            ],
            "pairings": [p.to_dict() for p in self.pairings],
            **self.how,
        }

    def table(self) -> str:
        """A plain-text report for the terminal."""
        sprt = self._sprt_lines() + self.notes()
        return "\n".join(
            [self.title(), *self._how_lines(), "", text_table(RATING_HEAD, self._rating_rows()), "",
             text_table(self._pair_head(), self._pairing_rows()), *(["", *sprt] if sprt else [])]
        )

    def markdown(self) -> str:
        """The same report as Markdown tables."""
        return "\n".join(
            [f"**{self.title()}**", *(f"\n{md_cell(t)}" for t in self._how_lines()), "",
             md_table(RATING_HEAD, self._rating_rows()), "",
             md_table(self._pair_head(), self._pairing_rows()), "",
             *(f"{t}\n" for t in self._sprt_lines() + self.notes())]
        )

    def plot(self, path: str) -> None:
        """PNG: ratings with 95% error bars, and the win-rate matrix."""
        plot_round_robin(self, path)

    def title(self) -> str:
        """One line on how the run was played."""
        c = self.config
        unit = "matches to 7" if c.get("unit") == "match" else "single deals"
        dup = "duplicate" if c.get("duplicate") else "not duplicate"
        mt = f", {c['move_time']}s of {c.get('clock', 'wall')} time per move" if c.get("move_time") else ""
        at_most = "at most " if c.get("sprt") else ""
        est = c.get("estimator")
        aivat = f", aivat estimator (value {est.get('value')})" if isinstance(est, dict) else ""
        return (f"Sixty-Six arena: {at_most}{c.get('games')} {unit} per pairing, {dup}, seed {c.get('seed')}"
                f"{mt}{aivat}")

    def _how_lines(self) -> list[str]:
        """One line on how the games were played (none for a summary of a results file alone)."""
        h = self.how
        if not h:
            return []
        kinds = h.get("bot_kinds") or []
        bots = ", ".join(f"{n} {k}" for n, k in zip(self.names, kinds, strict=False))
        boxed = h.get("sandbox")
        sandbox = "not recorded" if not isinstance(boxed, bool) else "on" if boxed else "off"
        return [f"Seed {h.get('seed_kind', 'not recorded')}; sandbox {sandbox}; "
                f"bots: {bots or 'not recorded'}; metering {h.get('metering', 'not recorded')}; "
                f"games replayed {h.get('replays', 0)}"]

    def _pair_head(self) -> list[str]:
        return PAIR_HEAD + (AIVAT_HEAD if any(p.aivat is not None for p in self.pairings) else [])

    def _rating_rows(self) -> list[list[str]]:
        rows = []
        for rank, i in enumerate(self.standings(), start=1):
            lo, hi = self.ratings.intervals[i]
            g = self.games[i]
            rows.append([str(rank), self.names[i], f"{self.ratings.elo[i]:+.0f}", f"[{lo:+.0f}, {hi:+.0f}]",
                         str(g), percent(self.score[i] / g if g else float("nan"))])
        return rows

    def _pairing_rows(self) -> list[list[str]]:
        aivat = any(p.aivat is not None for p in self.pairings)
        return [
            [f"{p.a} vs {p.b}", str(p.games), percent(p.win_rate), _ci_pct(p.win_rate_ci), str(p.deals),
             percent(p.deal_win_rate), f"{p.points_per_deal:+.3f}",
             f"[{p.points_per_deal_ci[0]:+.3f}, {p.points_per_deal_ci[1]:+.3f}]",
             p.forfeit_text(), *(_aivat_cells(p) if aivat else [])]
            for p in self.pairings
        ]

    def _sprt_lines(self) -> list[str]:
        return [t for t in (p.sprt_text() for p in self.pairings) if t]


def _aivat_cells(p: PairingStats) -> list[str]:
    """The corrected points per deal, its interval and the SD ratio ("-" where none: plain only)."""
    f = p.aivat
    if f is None or not f.corrected_games:
        return ["-", "-", "-"]
    ratio = f"{f.sd_ratio:.2f}" if math.isfinite(f.sd_ratio) else "-"
    return [f"{f.points_per_deal:+.3f}", f"[{f.ci[0]:+.3f}, {f.ci[1]:+.3f}]", ratio]


def _ci_pct(ci: tuple[float, float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def text_table(head: list[str], rows: list[list[str]]) -> str:
    """Left-aligned columns under a dashed rule."""
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h) for k, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*head), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*r) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def md_cell(text: str) -> str:
    """``text`` as one Markdown table cell: a ``|`` escaped, line breaks and other control characters
    as spaces (names may come from files from elsewhere: a cell never splits the table)."""
    return "".join(c if c.isprintable() else " " for c in text).replace("|", "\\|")


def md_code(text: str) -> str:
    """``text`` as a Markdown code span that ends where it should, whatever backticks it holds."""
    run = max((len(m) for m in re.findall("`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(map(md_cell, head)) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    lines += ["| " + " | ".join(map(md_cell, r)) + " |" for r in rows]
    return "\n".join(lines)


def plot_round_robin(result: RoundRobinResult, path: str) -> None:
    """Write the ratings (95% error bars) and the win-rate matrix of ``result`` as a PNG."""
    import matplotlib  # only here: slow to import, and the backend must be set first

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = result.names
    order = result.standings()[::-1]
    n = len(names)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, max(3.0, 0.5 * n + 2)))
    elo = [result.ratings.elo[i] for i in order]
    ci = [result.ratings.intervals[i] for i in order]
    err = [[e - lo for e, (lo, _) in zip(elo, ci, strict=True)],
           [hi - e for e, (_, hi) in zip(elo, ci, strict=True)]]
    ax1.errorbar(elo, range(n), xerr=err, fmt="o", capsize=4)
    ax1.set_yticks(range(n), [names[i] for i in order])
    ax1.axvline(0, color="grey", lw=0.5)
    ax1.set_xlabel("Elo (Bradley-Terry, mean 0), 95% interval")
    mat = np.full((n, n), np.nan)
    for p in result.pairings:
        i, j = names.index(p.a), names.index(p.b)
        mat[i, j], mat[j, i] = p.win_rate, 1 - p.win_rate
    im = ax2.imshow(mat, vmin=0, vmax=1, cmap="RdYlGn")
    ax2.set_xticks(range(n), names, rotation=45, ha="right")
    ax2.set_yticks(range(n), names)
    for i in range(n):
        for j in range(n):
            if not math.isnan(mat[i, j]):
                ax2.text(j, i, f"{mat[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax2.set_title("win rate of row against column")
    fig.colorbar(im, ax=ax2, fraction=0.046)
    fig.suptitle(result.title(), fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
