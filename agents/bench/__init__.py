"""The standard benchmark: a bot against a fixed, calibrated reference ladder.

``sixtysix bench SPEC`` (:mod:`agents.bench.run`) plays SPEC against every
rung of the ladder (:mod:`agents.bench.ladder`, ratings in ``ladder.json``)
on secret deals (a fresh secret master seed per rung) with duplicate deals,
fresh bots per game, at the ladder's CPU-time control, and fits its rating
on the ladder's fixed scale (see ``docs/benchmark.md``). Untrusted code (``exec:``
bots, plug-ins) runs out of process in the sandbox (:mod:`agents.bench.entry`,
:mod:`agents.host`); ``python -m
agents.bench.calibrate`` made the ladder's ratings; ``sixtysix leaderboard``
merges bench results (:func:`agents.bench.report.leaderboard`).
"""

from .ladder import BENCH_SEED, MOVE_TIME, Ladder, fit_rating, load_ladder
from .run import BenchOptions, bench

__all__ = ["BENCH_SEED", "MOVE_TIME", "BenchOptions", "Ladder", "bench", "fit_rating", "load_ladder"]
