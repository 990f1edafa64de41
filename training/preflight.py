"""Every bot a run will use, built, asked one move and torn down before the run claims its folder.

A config's bot specs (the opponents, the evaluation opponents, the teacher)
are the operator's (a resumed run's too: a checkpoint's own are kept only
when built in, :func:`training.config.trusted_config`), so an ``exec:``
command or a plug-in in them is trusted to run; but a bad one must stop
the run before anything is written, not an hour in, when the first
evaluation or the first table against it needs it.
:func:`check_bots` builds each bot the config names, plays one move of a
fixed deal with it and closes it; any failure is a
:class:`~training.config.ConfigError` naming the key and the spec.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agents import make_agent
from sixtysix_env.deals import deal
from sixtysix_env.knowledge import view

from .config import VALUE_TEACHER, Config, ConfigError, bot_spec, teacher_spec
from .evaluation import arena_fields
from .evaluation import opponents as evaluation_opponents
from .opponents import KINDS

NOT_BOTS = ("", VALUE_TEACHER)  # values of a bot-spec key that name no bot


def bot_specs(cfg: Config) -> dict[str, str]:
    """Spec -> the config key (or role) that names it: every key declared as a bot spec,
    the opponent kinds' bots and the evaluation opponents, each spec once."""
    out: dict[str, str] = {}
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if f.metadata["check"] in (bot_spec, teacher_spec) and value not in NOT_BOTS:
            out.setdefault(value, f.name)
    for kind in KINDS:
        if kind.spec is not None:
            out.setdefault(kind.spec(cfg), f"{kind.name} opponent")
    for spec, _games in evaluation_opponents(cfg):
        out.setdefault(spec, "evaluation opponent")
    return out


def check_bots(cfg: Config) -> None:
    """Build, ask one move of and close every bot of :func:`bot_specs`; a ConfigError on
    the first that fails; also whether the evaluation can play the run's rules."""
    arena_fields(cfg)
    state = deal(cfg.seed % 2**32, rules=cfg.rules)  # the bots must play the run's preset
    for spec, key in bot_specs(cfg).items():
        agent: Any = None
        try:
            agent = make_agent(spec, seed=cfg.seed)
            agent.reset(cfg.seed)
            agent.act(view(state, state.to_act))
        except Exception as e:  # noqa: BLE001 - whatever a bot raises, the run must not start
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
            raise ConfigError(f"config key {key!r}: the bot {spec!r} failed before the run began: "
                              f"{reason}") from None
        finally:
            close = getattr(agent, "close", None)
            if callable(close):
                close()
