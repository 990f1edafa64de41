"""Four-player team matches in the arena: duplicate deals, summarized like a pairing.

``sixtysix arena --players 4 A B`` (or :func:`team_match`) plays bot A as
one team (both partners) against bot B with :func:`agents.four.match.duplicate_deals`:
every deal twice from the same cards, the teams swapped the second time, so
the cards' luck cancels. The summary is team A's net game points per deal
(A's points minus B's) with a cluster t interval over duplicate pairs, the
statistic of a two-player pairing's "A pts/deal". Each duplicate pair is one
``"team"`` line of the results file (:mod:`.records`), so a killed run resumes.
A line records the deal's card seed and dealer and both plays' actions; a
resume counts it only when the seed is the run's and the actions replay to
its results (:func:`~agents.arena.verify.team_line_problem`), as for
two-player games: any other line (forged, hand-edited, or from before lines
had moves) is skipped with a warning and its deal played again.
The four-player game has its own rules (docs/rules-four.md), so ``rules``
stays German here, and the options that need the two-player referee
(time limits, workers, SPRT, sandbox; ``--no-duplicate``: a team match is
always duplicate) are refused.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from agents.four import make_four_agent
from agents.four.match import DuplicateDeal, duplicate_plays

from .lines import TEAM, TEAM_KEY
from .options import ArenaOptions, OptionError
from .records import Warn, open_results, recorded_seed
from .schedule import derive, secret_seed
from .stats import ratio_interval
from .verify import team_line_problem

TEAM_SIZE = 4  # players at a team match's table

# Options a team match cannot honour, with their default values.
_TWO_PLAYER_ONLY = {"sprt": None, "move_time": None, "move_times": (), "clock": "wall", "workers": 1,
                    "backend": "local", "address": None, "sandbox": False, "reference": (), "rules": "german",
                    "unit": "match", "duplicate": True, "estimator": "plain", "value": "solver"}


@dataclass
class TeamStats:
    """Team A's results against team B over duplicate deals."""

    a: str
    b: str
    deals: int = 0
    a_points: int = 0
    b_points: int = 0
    drawn: int = 0
    points_per_deal: float = 0.0
    points_per_deal_ci: tuple[float, float] = (math.nan, math.nan)

    def table(self) -> str:
        lo, hi = self.points_per_deal_ci
        return (f"team match (four players, duplicate deals): {self.a} vs {self.b}\n"
                f"  deals {self.deals}, game points A {self.a_points} B {self.b_points}, drawn deals "
                f"{self.drawn}\n  A pts/deal {self.points_per_deal:+.3f}, 95% CI [{lo:+.3f}, {hi:+.3f}]")

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["points_per_deal_ci"] = [None if not math.isfinite(x) else x for x in self.points_per_deal_ci]
        return d


def check_team_options(teams: list[str], opts: ArenaOptions) -> None:
    """Two bot specs the four-player registry knows, and no option a team match cannot honour."""
    if len(teams) != 2:
        raise OptionError("{players} 4 plays two teams: give two bot specs, got {n}", n=len(teams))
    for name, default in _TWO_PLAYER_ONLY.items():
        if getattr(opts, name) != default:
            raise OptionError(f"{{{name}}} is for two-player games, not {{players}} 4 team matches")
    for spec in teams:
        make_four_agent(spec, 0)  # an unknown four-player bot fails here, before any deal


def team_config(teams: list[str], opts: ArenaOptions) -> dict[str, Any]:
    """The run's identity in the results file header (a resume must match it)."""
    return {"players": list(teams), "games": opts.games, "seed": opts.seed, "duplicate": True,
            TEAM_KEY: TEAM_SIZE}


def team_stats(teams: list[str], lines: list[dict[str, Any]]) -> TeamStats:
    """The summary of recorded duplicate pairs (``"team"`` lines)."""
    st = TeamStats(teams[0], teams[1])
    nets = []
    for line in lines:
        net = 0
        for winner, points in line["results"]:
            st.deals += 1
            if winner is None:
                st.drawn += 1
            elif winner == 0:
                st.a_points += points
                net += points
            else:
                st.b_points += points
                net -= points
        nets.append(net)
    if nets:
        r, lo, hi = ratio_interval(nets, [2] * len(nets))
        st.points_per_deal, st.points_per_deal_ci = r, (lo, hi)
    return st


def team_line(deal: DuplicateDeal) -> dict[str, Any]:
    """A duplicate pair's results line: enough to replay both plays through the engine."""
    return {"type": TEAM, "index": deal.index, "seed": deal.seed, "dealer": deal.dealer,
            "results": [list(r) for r in deal.pair], "actions": [p.actions for p in deal.plays]}


def verified_lines(path: str, lines: list[dict[str, Any]], games: int, master: int
                   ) -> dict[int, dict[str, Any]]:
    """The recorded team lines of this run by index (the last good line of each). A line whose
    seed is not the run's or whose moves do not give its results is skipped with a warning, and
    its deal played again; lines past ``games`` (a longer run's) stay in the file, uncounted."""
    done = {}
    warn = Warn(path)
    for line in lines:
        k = line["index"]
        if k >= games:
            continue
        if (why := team_line_problem(line, master)) is not None:
            warn(f" team deal {k} {why}; it is played again")
            continue
        done[k] = line
    warn.done("team deals that do not match the schedule or their moves")
    return done


def team_match(teams: list[str], *, options: ArenaOptions | None = None, **fields: Any) -> TeamStats:
    """Bot A (``teams[0]``) as one team against bot B over ``games`` duplicate deals."""
    opts = ArenaOptions.of(options, **fields)
    check_team_options(list(teams), opts)
    if opts.seed is None:
        seed = recorded_seed(opts.results_path) if opts.resume and opts.results_path else None
        opts = dataclasses.replace(opts, seed=secret_seed() if seed is None else seed)
    assert opts.seed is not None
    done: dict[int, dict[str, Any]] = {}
    writer = None
    if opts.results_path is not None:
        lines, writer = open_results(opts.results_path, team_config(list(teams), opts), opts.resume)
        done = verified_lines(opts.results_path, lines, opts.games, opts.seed)
    try:
        for deal in duplicate_plays(teams, opts.games, opts.seed, skip=done, derive=derive):
            done[deal.index] = team_line(deal)
            if writer is not None:
                writer.write(done[deal.index])
    finally:
        if writer is not None:
            writer.close()
    return team_stats(list(teams), [done[k] for k in sorted(done)])


__all__ = ["TEAM_SIZE", "TeamStats", "check_team_options", "team_line", "team_match", "team_stats",
           "verified_lines"]
