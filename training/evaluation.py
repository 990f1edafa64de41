"""Evaluation of the policy during and after training, through the arena.

The greedy policy (with the run's ``assist``) plays matches against
``random``, ``heuristic`` and ``pimc`` with duplicate deals (each deal twice,
seats swapped), so luck of the cards cancels. The deals of the evaluation
after update ``u`` are seeded ``EVAL_SEED + u`` whatever the run's seed, so
runs are compared on the same deals. The statistics and their 95% intervals
are the arena's (:class:`agents.arena.PairingStats`). The matches follow the
run's ``rules`` preset (:func:`arena_fields`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from agents import make_agent
from agents.arena import ArenaOptions, PairingStats, head_to_head
from agents.core.nets import PolicyNet
from agents.neural import PPOAgent
from sixtysix_env.variants import GERMAN, rules_from_spec

from .config import Config, ConfigError

EVAL_SEED = 10_000


def opponents(cfg: Config) -> list[tuple[str, int]]:
    """(agent spec, matches) of each evaluation opponent the config asks for."""
    specs = (("random", cfg.eval_random_games), ("heuristic", cfg.eval_heuristic_games),
             (cfg.eval_pimc_spec, cfg.eval_pimc_games))
    return [(spec, games) for spec, games in specs if games > 0]


def arena_fields(cfg: Config) -> dict[str, Any]:
    """The arena options that make the evaluation play the run's rules: none for plain German
    (the arena's default), else ``rules``; a ConfigError if the arena has no such option."""
    rules = rules_from_spec(cfg.rules)
    if rules == GERMAN or not opponents(cfg):
        return {}
    if "rules" not in {f.name for f in dataclasses.fields(ArenaOptions)}:
        raise ConfigError(f"config key 'rules': the arena cannot play {rules.spec!r} for the evaluation; "
                          "set eval_random_games, eval_heuristic_games and eval_pimc_games to 0")
    return {"rules": rules.spec}


def evaluate(policy: PolicyNet, cfg: Config, update: int) -> dict[str, PairingStats]:
    """The greedy policy against each evaluation opponent: short name (``pimc`` for
    ``pimc:worlds=8``) -> the arena's statistics, from the policy's side."""
    agent = PPOAgent(policy, greedy=True, name="ppo-train", assist=cfg.assist)
    seed = EVAL_SEED + update
    return {spec.split(":")[0]: head_to_head(agent, make_agent(spec, seed=seed), games=games, unit="match",
                                             seed=seed, duplicate=True, **arena_fields(cfg))
            for spec, games in opponents(cfg)}


def metrics(results: dict[str, PairingStats]) -> dict[str, float]:
    """The ``eval/`` log entries of an evaluation."""
    out: dict[str, float] = {}
    for tag, st in results.items():
        lo, hi = st.win_rate_ci
        out.update({f"eval/win_rate_{tag}": st.win_rate, f"eval/win_rate_lo_{tag}": lo,
                    f"eval/win_rate_hi_{tag}": hi, f"eval/points_per_deal_{tag}": st.points_per_deal})
    return out


def score(results: dict[str, PairingStats]) -> float:
    """What ``best.pt`` keeps the best of: the win rate against heuristic (else random)."""
    for tag in ("heuristic", "random"):
        if tag in results:
            return results[tag].win_rate
    return 0.0


def note(results: dict[str, PairingStats]) -> str:
    """A few characters for the progress bar: win rate and points per deal per opponent."""
    return " ".join(f"win_rate_{tag}={st.win_rate:.2f} points_per_deal_{tag}={st.points_per_deal:.2f}"
                    for tag, st in results.items())


def describe(results: dict[str, PairingStats]) -> list[str]:
    """One line per opponent: match win rate and game points per deal, each with its 95% interval."""
    lines = []
    for tag, st in results.items():
        (lo, hi), (plo, phi) = st.win_rate_ci, st.points_per_deal_ci
        finite = math.isfinite(plo) and math.isfinite(phi)
        points = f"[{plo:+.3f}, {phi:+.3f}]" if finite else "(too few games for an interval)"
        lines.append(f"  vs {tag:<10} won {st.win_rate:6.1%} [{lo:.1%}, {hi:.1%}] of {st.games} matches, "
                     f"{st.points_per_deal:+.3f} {points} game points per deal")
    return lines
