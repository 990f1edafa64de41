"""Fixed positions and every bot's action on them: the behaviour a refactor must keep.

``python tests/golden_positions.py`` rewrites ``tests/data/golden_actions.json``
(only when a behaviour change is intended); ``test_golden_actions.py`` checks it.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from sixtysix_env import DECLARE, deal, view
from sixtysix_env.engine import WINDOW_NAMES

GOLDEN = Path(__file__).resolve().parent / "data" / "golden_actions.json"
SPECS = (
    "random", "heuristic", "pimc:worlds=16", "pimc:worlds=8,infer=1", "ismcts:iterations=150",
    "oracle", "ppo", "ppo:assist=rules", "ppo:assist=none",
)
PER_CLASS = 40  # positions kept per (window, phase)


def phase(state) -> str:
    if state.stock == 0:
        return "spent"
    return "closed" if state.closed_by >= 0 else "open"


def move(state, rng: random.Random) -> int:
    """Random play that rarely declares, so that deals reach the spent talon too."""
    legal = state.legal_actions()
    rest = [a for a in legal if a != DECLARE]
    return rng.choice(rest if rest and rng.random() < 0.95 else legal)


def positions() -> list[tuple[int, int]]:
    """(deal seed, moves played) pairs: random play, at most PER_CLASS per (window, phase)."""
    counts: dict[tuple[int, str], int] = {}
    out = []
    for seed in range(1500):
        rng, pick = random.Random(seed), random.Random(-seed - 1)
        state = deal(seed)
        k = 0
        while not state.is_over:
            key = (state.window, phase(state))
            if counts.get(key, 0) < PER_CLASS and pick.random() < 0.25:
                counts[key] = counts.get(key, 0) + 1
                out.append((seed, k))
            state.apply(move(state, rng))
            k += 1
    return out


def replay(seed: int, moves: int):
    rng = random.Random(seed)
    state = deal(seed)
    for _ in range(moves):
        state.apply(move(state, rng))
    return state


def actions(spec: str, cases: list[tuple[int, int]]) -> list[int]:
    from agents import make_agent

    out = []
    bot = make_agent(spec, seed=0)
    for i, (seed, moves) in enumerate(cases):
        state = replay(seed, moves)
        bot.reset(1000 + i)
        v = view(state, state.to_act)
        if getattr(bot, "requires_state", False):
            out.append(int(bot.act(v, state=state)))
        else:
            out.append(int(bot.act(v)))
    return out


def record() -> dict:
    cases = positions()
    return {
        "cases": cases,
        "classes": sorted({f"{WINDOW_NAMES[replay(s, m).window]}/{phase(replay(s, m))}" for s, m in cases}),
        "actions": {spec: actions(spec, cases) for spec in SPECS},
    }


if __name__ == "__main__":
    data = record()
    GOLDEN.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"{len(data['cases'])} positions, classes {data['classes']}", file=sys.stderr)
