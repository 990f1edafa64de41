"""The team run's configuration (``players: 4``): its own small schema, read and checked like PPO's.

``configs/team.yaml`` sets these keys, with ``players: 4``, which is how
``train.py`` tells a team config from a two-player one; the command line
overrides them (``updates=50``). Files, overrides, types and values are read
and checked by :mod:`training.config` (every bad key or value is a
:class:`~training.config.ConfigError` naming it, before any work).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.config import ConfigError, knob, read_yaml, split_command_line
from training.config_checks import (
    AT_LEAST_0,
    AT_LEAST_1,
    GAMES,
    PROCESSES,
    TABLES,
    above,
    at_least,
    between,
    folder_name,
    folder_path,
    sizes,
)

PLAYERS = 4  # the value of ``players`` that makes train.py run this loop
ARCHITECTURE = ("hidden", "critic_hidden")  # keys a resumed run cannot change


def four_bot(key: str, value: str) -> None:
    """A built-in four-player bot spec (``random``, ``heuristic``, ``search[:N]``): a config names
    no checkpoint to play, so a run's config read back from a file starts nothing from elsewhere."""
    from agents.four import make_four_agent

    if value.startswith("net:"):
        raise ConfigError(f"config key {key!r} must be a built-in four-player bot, not a network "
                          f"({value[:80]!r})")
    try:
        make_four_agent(value, 0)
    except ValueError as e:
        raise ConfigError(f"config key {key!r}: {e}") from None


def file_path(key: str, value: str) -> None:
    """'' or a file path (its contents are checked when it is read)."""
    if "\0" in value or len(value) > 4096:
        raise ConfigError(f"config key {key!r} must be '' or a file path, got {value[:80]!r}")


def players(key: str, value: int) -> None:
    if value != PLAYERS:
        raise ConfigError(f"config key {key!r} must be {PLAYERS} for a team run (two-player configs have "
                          "no such key)")


@dataclass
class TeamConfig:
    """Every knob of a team self-play run; configs/team*.yaml set these keys."""

    players: int = knob(PLAYERS, "4: four-player partnership self-play, one network in all four seats "
                        "(two-player configs have no such key)", players)
    # --- the run
    name: str = knob("team", "run name: logs and checkpoints go to <run_dir>/<name>/", folder_name)
    run_dir: str = knob("runs", "parent folder of the run folders", folder_path)
    seed: int = knob(1, "seeds the deals, the network initialisation and the minibatches",
                     between(0, 2**63 - 1))
    updates: int = knob(200, "PPO updates to run in all", AT_LEAST_0)
    time_limit: float = knob(0.0, "stop after this many minutes of this invocation (checked after each "
                             "update; 0: no limit)", AT_LEAST_0)
    torch_threads: int = knob(1, "torch.set_num_threads", PROCESSES)
    # --- warm start: imitation of a teacher team
    warm_teacher: str = knob("search:12", "four-player bot whose moves the network imitates before PPO "
                             "(in all four seats)", four_bot)
    warm_deals: int = knob(0, "deals the teacher plays for the warm start (0: no warm start, PPO from "
                           "random weights)", at_least(0, 10**7))
    warm_explore: float = knob(0.1, "chance that a move of a warm-start deal is a random legal one "
                               "(the teacher still labels it): positions off the teacher's own path",
                               between(0, 1))
    warm_data: str = knob("", "read the warm-start positions from this file (another team run's "
                          "warm.npz, checked when read) instead of playing warm_deals deals; '': play them",
                          file_path)
    warm_epochs: int = knob(10, "passes of minibatch Adam over the warm-start positions", AT_LEAST_0)
    warm_learning_rate: float = knob(1e-3, "Adam step size of the warm start", above(0))
    imitation_coef: float = knob(0.5, "weight of the cross-entropy towards the teacher's moves on "
                                 "warm-start positions in each PPO minibatch, decaying linearly to 0 at "
                                 "the last update", AT_LEAST_0)
    # --- PPO on team self-play
    hidden: list[int] = knob([256, 256], "policy MLP hidden sizes", sizes)
    critic_hidden: list[int] = knob([256, 256], "value MLP hidden sizes (input: the observation and "
                                    "the other three hands)", sizes)
    deals_per_update: int = knob(128, "deals played per update, side by side", TABLES)
    opp_self: float = knob(0.5, "share of deals where both teams are the current network", AT_LEAST_0)
    opp_snapshot: float = knob(0.25, "share of deals against a past snapshot of the network (the "
                               "current one until the first snapshot)", AT_LEAST_0)
    opp_bot: float = knob(0.25, "share of deals against the bot team opp_bot_spec", AT_LEAST_0)
    opp_bot_spec: str = knob("heuristic", "the bot team of opp_bot", four_bot)
    match_scores: bool = knob(False, "deal each training deal at match scores drawn from 0..6 for each "
                              "team, so the network sees its match-score inputs move; false: every "
                              "deal is a match's first (0:0)")
    snapshot_every: int = knob(10, "updates between snapshots", AT_LEAST_1)
    snapshot_pool: int = knob(10, "snapshots kept", AT_LEAST_1)
    trick_shaping: float = knob(0.0, "potential-based shaping: each decision is also rewarded with "
                                "trick_shaping x the change of (own team's - other team's card points) / "
                                "66 since it; sums to 0 over a deal", AT_LEAST_0)
    learning_rate: float = knob(3e-4, "Adam step size", above(0))
    update_epochs: int = knob(4, "PPO passes over each update's rows", AT_LEAST_1)
    num_minibatches: int = knob(4, "minibatches per pass", AT_LEAST_1)
    gamma: float = knob(1.0, "discount per decision of a seat", between(0, 1))
    gae_lambda: float = knob(0.95, "GAE lambda", between(0, 1))
    clip_coef: float = knob(0.2, "PPO clip", above(0))
    ent_coef: float = knob(0.003, "entropy bonus", AT_LEAST_0)
    vf_coef: float = knob(0.5, "value loss weight", AT_LEAST_0)
    max_grad_norm: float = knob(0.5, "gradient norm clipping", above(0))
    # --- evaluation
    eval_every: int = knob(25, "updates between evaluations (also one at the end; 0: only at the end)",
                           AT_LEAST_0)
    eval_deals: int = knob(100, "duplicate deals against eval_spec per evaluation (each played twice, "
                           "the teams swapped)", GAMES)
    eval_spec: str = knob("heuristic", "the bot team the network is evaluated against", four_bot)

    def check(self) -> None:
        """The checks that span fields."""
        if self.opp_self + self.opp_snapshot + self.opp_bot <= 0:
            raise ConfigError("config keys opp_self, opp_snapshot, opp_bot: at least one must be > 0")

    def opponent_weights(self) -> dict[str, float]:
        total = self.opp_self + self.opp_snapshot + self.opp_bot
        return {"self": self.opp_self / total, "snapshot": self.opp_snapshot / total,
                "bot": self.opp_bot / total}


def requested(args: list[str], default_config: Path) -> bool:
    """Whether ``train.py args`` asks for a team run: its config file or an override sets
    ``players``, or ``--resume`` names a run folder whose ``config.yaml`` does. Unreadable
    files answer False: the two-player path then names the problem."""
    try:
        path, rest, resume = split_command_line(args, default_config)
        data = read_yaml(path)
    except ConfigError:
        return False
    if not isinstance(data, dict):
        return False
    named = {a.lstrip("-").partition("=")[0].replace("-", "_") for a in rest}
    if "players" in data or "players" in named:
        return True
    if not resume:
        return False
    texts = dict(a.lstrip("-").partition("=")[::2] for a in rest if "=" in a)
    folder = Path(str(texts.get("run_dir", data.get("run_dir", "runs")))) / str(
        texts.get("name", data.get("name", "default")))
    try:
        saved: Any = read_yaml(folder / "config.yaml")
    except ConfigError:
        return False
    return isinstance(saved, dict) and saved.get("players") == PLAYERS
