"""The expert-iteration run's configuration: its own small schema, read and checked like PPO's.

``configs/expert.yaml``, ``configs/expert_long.yaml`` and ``configs/expert_warm.yaml`` set these keys (and
``algorithm: expert``, which is how ``train.py`` tells them from PPO
configs); the command line overrides them (``iterations=20``). Files,
overrides, types and values are read and checked by :mod:`training.config`
(every bad key or value is a :class:`~training.config.ConfigError` naming
it, before any work).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.search.guided import LEAVES
from training.config import ConfigError, knob, read_yaml, split_command_line
from training.config_checks import (
    AT_LEAST_0,
    AT_LEAST_1,
    GAMES,
    PROCESSES,
    above,
    between,
    bot_spec,
    folder_name,
    folder_path,
    one_of,
    sizes,
)

from .selfplay import TARGETS

ALGORITHM = "expert"  # the value of ``algorithm`` that makes train.py run this loop
BACKENDS = ("local", "ray")
EVAL_ASSISTS = ("rules", "none")  # the network alone: no search at play time
ARCHITECTURE = ("hidden", "critic_hidden")  # keys a resumed run cannot change
FIXED = {"full_critic": True, "rules": "german", "value_target": "deal"}  # what every checkpoint states


OPERATOR_ONLY = {"ray_address": lambda value: not value}  # a cluster sends back pickles: never a file's pick
ADDRESS = re.compile(r"(auto|(ray://)?[A-Za-z0-9._\-]{1,200}:[0-9]{1,5})")  # a Ray cluster to join


def address(key: str, value: str) -> None:
    """'' or a Ray cluster's address: ``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``."""
    if value and not ADDRESS.fullmatch(value):
        raise ConfigError(f"config key {key!r} must be HOST:PORT, ray://HOST:PORT or 'auto', "
                          f"got {value[:80]!r}")


def checkpoint_path(key: str, value: str) -> None:
    """'' or the path of a checkpoint file (its contents are checked when it is read)."""
    if "\0" in value or len(value) > 4096:
        raise ConfigError(f"config key {key!r} must be '' or a file path, got {value[:80]!r}")


@dataclass
class ExpertConfig:
    """Every knob of an expert-iteration run; configs/expert*.yaml set these keys."""

    algorithm: str = knob(ALGORITHM, "which training loop: 'expert' (this one; PPO configs have no such "
                          "key)", one_of((ALGORITHM,)))
    # --- the run
    name: str = knob("expert", "run name: logs and checkpoints go to <run_dir>/<name>/", folder_name)
    run_dir: str = knob("runs", "parent folder of the run folders", folder_path)
    seed: int = knob(1, "seeds the deals, the searches, the network initialisation and the minibatches",
                     between(0, 2**63 - 1))
    iterations: int = knob(40, "generate -> train -> checkpoint iterations to run in all", AT_LEAST_1)
    time_limit: float = knob(0.0, "stop after this many minutes of this invocation (checked after each "
                             "iteration; 0: no limit)", AT_LEAST_0)
    # --- self-play generation
    deals: int = knob(64, "deals of self-play per iteration (each from a fresh seeded German deal)",
                      AT_LEAST_1)
    worlds: int = knob(16, "worlds the guided search samples per move (fixed: the search is "
                       "deterministic given its seed)", between(1, 4096))
    sample_moves: int = knob(4, "each seat's first moves of a deal are drawn from the search's policy "
                             "instead of its best move (diverse positions); 0: always the search's move",
                             AT_LEAST_0)
    target_temp: float = knob(0.2, "game points: the policy target is softmax(the search's mean value of "
                              "each legal move / target_temp) (see target)", above(0))
    target: str = knob("values", "policy target: 'values' = softmax(search values / target_temp); "
                       "'improved' = softmax(log pi + search values / target_temp), the network's own "
                       "policy moved by the search's values", one_of(TARGETS))
    depth: int = knob(1, "the search's depth with the talon open: 1 = leaf after the move; 2 = after the "
                      "opponent's best reply too", between(1, 2))
    leaf: str = knob("critic", "how the search values an open leaf: 'critic' (one forward) or 'rollout' "
                     "(both sides play the policy's likeliest move until the talon is spent, then the "
                     "exact solver; about 8x the CPU)", one_of(LEAVES))
    chunk: int = knob(8, "deals per generation task (the unit of work of a Ray task or a local step)",
                      AT_LEAST_1)
    backend: str = knob("local", "'local': generate in this process; 'ray': as Ray tasks over the "
                        "chunks (same samples)", one_of(BACKENDS))
    workers: int = knob(1, "backend 'ray': CPUs of the local Ray instance started for the run (ignored "
                        "with ray_address)", PROCESSES)
    ray_address: str = knob("", "backend 'ray': the address of a running Ray cluster to join "
                            "('HOST:PORT', 'ray://HOST:PORT' or 'auto'); '': start a local one", address)
    # --- the networks and the learner
    init: str = knob("", "a checkpoint to start the networks from (a PPO run's with a full-state critic, or "
                     "an expert run's; its hidden and critic_hidden must equal this config's); the optimizer "
                     "starts fresh; --resume ignores it (the run's own last.pt wins); '': random weights",
                     checkpoint_path)
    hidden: list[int] = knob([256, 256], "policy MLP hidden sizes", sizes)
    critic_hidden: list[int] = knob([256, 256], "value MLP hidden sizes (input: the full state)", sizes)
    learning_rate: float = knob(1e-3, "Adam step size", above(0))
    epochs: int = knob(2, "passes over the replay window per iteration", AT_LEAST_1)
    batch_size: int = knob(256, "samples per minibatch", AT_LEAST_1)
    value_coef: float = knob(1.0, "weight of the value loss (MSE to the deal's game points)", AT_LEAST_0)
    value_positions: int = knob(0, "at most this many positions of each deal enter the value loss (a "
                                "fixed subset drawn from the seed; a deal's positions share one result); "
                                "0: all", AT_LEAST_0)
    replay: int = knob(4, "iterations whose samples the learner trains on (the replay window)", AT_LEAST_1)
    max_grad_norm: float = knob(1.0, "gradient norm clipping", above(0))
    torch_threads: int = knob(1, "torch.set_num_threads for the learner", PROCESSES)
    # --- evaluation and logs
    eval_every: int = knob(5, "iterations between evaluations of the network alone (also one at the "
                           "end; 0: only at the end)", AT_LEAST_0)
    eval_assist: str = knob("rules", "assist of the evaluated network ('ppo:<path>,assist=rules': obvious "
                            "moves by rule, no search)", one_of(EVAL_ASSISTS))
    eval_heuristic_games: int = knob(40, "matches against 'heuristic' per evaluation (duplicate pairs)",
                                     GAMES)
    eval_pimc_games: int = knob(10, "matches against pimc per evaluation (duplicate pairs; slow)", GAMES)
    eval_pimc_spec: str = knob("pimc", "agent spec of the pimc evaluation opponent", bot_spec)
    progress: bool = knob(True, "show a tqdm progress bar")
    tensorboard: bool = knob(True, "write TensorBoard event files to the run folder")

    def check(self) -> None:
        """The checks that span fields."""
        if self.ray_address and self.backend != "ray":
            raise ConfigError(f"config key 'ray_address' ({self.ray_address!r}) needs backend: ray")

    def checkpoint_config(self) -> dict[str, Any]:
        """The ``config`` entry of the run's checkpoints: these keys and :data:`FIXED`, which
        say how the networks are read (the value net sees ``encode_full``; it predicts the deal)."""
        return {**dataclasses.asdict(self), **FIXED}


def from_checkpoint_config(data: dict[str, Any], where: str) -> dict[str, Any]:
    """The keys of a checkpoint's ``config`` that are this schema's (:data:`FIXED` checked and
    dropped); a ConfigError naming ``where`` if it is not an expert run's."""
    if not isinstance(data, dict) or data.get("algorithm") != ALGORITHM:
        raise ConfigError(f"{where} is not an expert-iteration run's checkpoint")
    for key, value in FIXED.items():
        if data.get(key) != value:
            raise ConfigError(f"{where}: config {key!r} must be {value!r}, got {str(data.get(key))[:40]!r}")
    return {k: v for k, v in data.items() if k not in FIXED}


def override_texts(args: list[str]) -> dict[str, str]:
    """``--key value``, ``--key=value`` or ``key=value`` -> {key: text}, unchecked (the loop that
    runs checks them)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        key, eq, text = arg.lstrip("-").partition("=")
        if arg.startswith("--") and not eq and i + 1 < len(args):
            text, i = args[i + 1], i + 1
        out[key.replace("-", "_")] = text
        i += 1
    return out


def requested(args: list[str], default_config: Path) -> bool:
    """Whether ``train.py args`` asks for this loop: its config file (or an override) names
    ``algorithm``, or ``--resume`` names a run folder whose ``config.yaml`` does. Unreadable
    files answer False: the PPO path then names the problem."""
    try:
        path, rest, resume = split_command_line(args, default_config)
        data = read_yaml(path)
    except ConfigError:
        return False
    if not isinstance(data, dict):
        return False
    overrides = override_texts(rest)
    if "algorithm" in data or "algorithm" in overrides:
        return True
    if not resume:
        return False
    folder = Path(str(overrides.get("run_dir", data.get("run_dir", "runs")))) / str(
        overrides.get("name", data.get("name", "default")))
    try:
        saved = read_yaml(folder / "config.yaml")
    except ConfigError:
        return False
    return isinstance(saved, dict) and saved.get("algorithm") == ALGORITHM
