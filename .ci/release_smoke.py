"""What a user gets from the wheel alone: run by .ci/release-check in a clean venv, outside the source tree.

Each check is one line of output; any failure raises (exit code 1) naming what is missing.
"""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path


def check(what: str, ok: bool) -> None:
    if not ok:
        raise SystemExit(f"release check failed: {what}")
    print(f"ok: {what}")


def main() -> None:
    import agents
    import sixtysix_env
    import tables
    import training

    for module in (sixtysix_env, agents, tables, training):
        where = Path(module.__file__).resolve()
        check(f"{module.__name__} imported from the installed wheel ({where.parent})",
              "site-packages" in where.parts)

    import gymnasium
    import numpy as np

    env = sixtysix_env.env(episode="deal")
    env.reset(seed=3)
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        env.step(action)
        steps += 1
    check(f"PettingZoo env: a deal of {steps} steps to the end", env.unwrapped.game_state.is_over)

    g = gymnasium.make("SixtySix-v0", opponent="heuristic", episode="deal")
    obs, info = g.reset(seed=0)
    done = False
    while not done:
        obs, _reward, terminated, truncated, info = g.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    check("Gymnasium env SixtySix-v0: an episode against heuristic", done)

    from agents import make_agent
    from agents.core.checkpoint import DEFAULT_CHECKPOINT

    check(f"shipped checkpoint present ({DEFAULT_CHECKPOINT.name})", DEFAULT_CHECKPOINT.is_file())
    state = sixtysix_env.deal(11)
    bot = make_agent("ppo", seed=0)
    action = bot.act(sixtysix_env.view(state, state.to_act))
    check(f"ppo bot plays a legal move from the shipped checkpoint ({sixtysix_env.action_name(action)})",
          state.is_legal(action))

    from agents.bench.ladder import load_ladder

    rungs = load_ladder().rungs
    check(f"bench ladder shipped ({', '.join(rungs)})", len(rungs) >= 2)
    schemas = files("agents.protocol") / "schemas"
    check("protocol document and schemas shipped", (files("agents.protocol") / "PROTOCOL.md").is_file()
          and (schemas / "request.schema.json").is_file())
    check("browser table's static files shipped", (files("tables") / "static" / "index.html").is_file())
    print(f"release smoke test passed with Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
