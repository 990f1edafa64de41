"""The run configuration: one dataclass, YAML files, ``key=value`` overrides, checks, ``--help``.

Every knob of ``train.py`` is a field of :class:`Config` declared with
:func:`knob`, which keeps its help text next to it; ``configs/*.yaml`` set
fields, the command line overrides them (``--total-steps 1000``,
``--total-steps=1000`` or ``total_steps=1000``). A wrong key, type or value
is a :class:`ConfigError` that names the key, so a typo never trains for an
hour with a default. Every value is checked when the config is read, before
any work: types, the check each field declares (ranges, choices, bot specs
through ``agents.parse_spec``, folder names), finite floats; a bad value
never surfaces at the end of a run.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from agents.core.rules import ASSIST_MODES, assist_mode
from sixtysix_env.episodes import EPISODES
from sixtysix_env.variants import RulesMismatchError, rules_from_spec

from .config_checks import (
    AT_LEAST_0,
    AT_LEAST_1,
    GAMES,
    MAX_BATCH,
    PROCESSES,
    PROCESSES_OR_0,
    TABLES,
    VALUE_TEACHER,
    Check,
    above,
    bad_value,
    between,
    bot_spec,
    builtin_bot,
    folder_name,
    folder_path,
    one_of,
    rules_spec,
    shown,
    sizes,
    teacher_spec,
)
from .config_file import ConfigError, read_yaml

ENGINES = ("scalar", "batched")  # what steps the training tables (training.envs)
MIN_MINIBATCH = 16  # decisions per minibatch below which advantages cannot be normalised
OPPONENT_PREFIX = "opp_"  # opp_<kind>: the weight of the tables against that opponent kind

T = TypeVar("T")


def knob(default: T, help: str, check: Check | None = None) -> T:
    """A config field with its ``--help`` text and the check of its value (every value of a
    field is checked when a config is read; lists get a fresh copy per Config)."""
    meta = {"help": help, "check": check}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)  # type: ignore[return-value]
    return field(default=default, metadata=meta)


def check_resume_rules(saved: Config, cfg: Config, where: str) -> None:
    """A :class:`RulesMismatchError` unless ``cfg`` plays the rules of ``saved`` (the
    resumed checkpoint's config; one from before presets played German)."""
    before, now = rules_from_spec(saved.rules), rules_from_spec(cfg.rules)
    if before != now:
        raise RulesMismatchError(f"--resume: {where} was trained on rules {before.spec!r}; a resumed run "
                                 f"keeps its rules, so rules={now.spec!r} needs a new run (name=...)")




def weight(default: float, what: str) -> float:
    """An ``opp_<kind>`` field: the weight of ``what`` (>= 0) in the draw of each table's opponent."""
    return knob(default, f"weight of {what}", AT_LEAST_0)


@dataclass
class Config:
    """Every knob of a run; configs/*.yaml set these keys, the command line overrides them."""

    # --- the run
    name: str = knob("default", "run name: logs and checkpoints go to <run_dir>/<name>/", folder_name)
    run_dir: str = knob("runs", "parent folder of the run folders", folder_path)
    seed: int = knob(1, "seeds the deals, the network initialisation and the sampling", between(0, 2**63 - 1))
    total_steps: int = knob(2_000_000, "environment steps (decisions at all tables, opponents' "
                            "included) to train for; the learning-rate and teacher schedules end "
                            "here", AT_LEAST_1)
    time_limit: float = knob(0.0, "stop after this many minutes of training (checked after each "
                             "update; then the last checkpoint and the final evaluation as at the end; "
                             "0: no limit)", AT_LEAST_0)
    stop_steps: int = knob(0, "stop once this many environment steps are done, the schedules still "
                           "running to total_steps (0: total_steps); how a run stopped by hand is "
                           "redone", AT_LEAST_0)
    # --- the tables
    num_envs: int = knob(128, "tables stepped together; the network sees batches of this size", TABLES)
    rollout_steps: int = knob(64, "steps per table between two updates (a batch is num_envs * "
                              "rollout_steps decisions)", TABLES)
    engine: str = knob("scalar", "'scalar': the tables are sixtysix_env.vector.VectorEnv (every opponent "
                       "kind, assist, the teacher); 'batched': the torch engine sixtysix_env.batched "
                       "(several times faster collection; assist 'none', no teacher)", one_of(ENGINES))
    episode: str = knob("match", "'match': tables play whole matches (deal rewards, every match score "
                        "seen); 'deal': 0:0 deals", one_of(EPISODES))
    rules: str = knob("german", "the game the tables, the evaluation and the bots play: a rules preset "
                      "spec of docs/rules-variants.md ('german', 'german+draw_bonus+double_game', "
                      "'kawu', 'schnapsen', 'schnapsen-pkg'); stored in the checkpoint, and a resumed "
                      "run keeps it; engine 'batched' plays 'german' only", rules_spec)
    # --- PPO
    learning_rate: float = knob(1e-3, "Adam step size", above(0))
    anneal_lr: bool = knob(True, "decay the learning rate linearly over total_steps, to "
                           "lr_floor * learning_rate")
    lr_floor: float = knob(0.0, "with anneal_lr: the share of learning_rate left at the end (0: decay to "
                           "0; a long self-play run keeps learning with some left)", between(0, 1))
    gamma: float = knob(1.0, "discount per own decision (a deal is short and its reward comes at the "
                        "end)", between(0, 1))
    gae_lambda: float = knob(0.95, "GAE lambda", between(0, 1))
    update_epochs: int = knob(4, "passes over each batch", AT_LEAST_1)
    num_minibatches: int = knob(4, "minibatches per pass", AT_LEAST_1)
    # --- the loss
    clip_coef: float = knob(0.2, "PPO ratio clipping", above(0))
    ent_coef: float = knob(0.003, "entropy bonus weight", AT_LEAST_0)
    vf_coef: float = knob(0.5, "value loss weight", AT_LEAST_0)
    max_grad_norm: float = knob(0.5, "gradient norm clipping", above(0))
    target_kl: float = knob(0.0, "stop an update's epochs early once the approximate KL passes this "
                            "(0: never)", AT_LEAST_0)
    # --- the networks
    hidden: list[int] = knob([256, 256], "policy MLP hidden sizes", sizes)
    critic_hidden: list[int] = knob([256, 256], "critic MLP hidden sizes", sizes)
    full_critic: bool = knob(True, "the critic sees the full state (encode_full: opponent's hand, "
                             "talon); the policy never does")
    # --- what the network does not learn: scripted moves, and the teacher
    assist: str = knob("full", "'full': the policy's seats play obvious moves by rule and the exact "
                       "solver once the talon is spent (agents.core.rules.scripted_action, as the ppo bot "
                       "does by default); 'rules': obvious moves only (the network learns the endgame, "
                       "to play with no search); 'none': nothing scripted. Scripted moves are not "
                       "learner steps, so learning is about the real choices. (true/false in older "
                       "configs mean 'full'/'none'.)", one_of(ASSIST_MODES))
    teacher: str = knob(VALUE_TEACHER, "kickstarting teacher, so PPO starts from sensible play: "
                        "'pimc-values' regresses the centred logits (times teacher_temp) on PIMC's "
                        "action values in one sampled world (their average over worlds is what pimc "
                        "maximises: a distillation of pimc); an agent spec ('heuristic') pulls the "
                        "policy towards that bot's action by cross-entropy; '' for none", teacher_spec)
    teacher_temp: float = knob(0.05, "'pimc-values': game points per logit, so the distilled policy "
                               "is softmax(values / temp)", above(0))
    teacher_frac: float = knob(1.0, "fraction of the learner's rows the teacher labels (its labels "
                               "cost most of the time)", between(0, 1, low_open=True))
    teacher_workers: int = knob(2, "processes that compute teacher labels while the main process "
                                "plays (0: the main process)", PROCESSES_OR_0)
    teacher_coef: float = knob(10.0, "initial weight of the teacher term", AT_LEAST_0)
    teacher_steps: int = knob(1_600_000, "environment steps over which the teacher weight decays "
                              "linearly to teacher_min", AT_LEAST_1)
    teacher_min: float = knob(10.0, "teacher weight after teacher_steps (equal to teacher_coef: a "
                              "constant weight; 0: the teacher fades out and PPO alone goes on)", AT_LEAST_0)
    drop_forced: bool = knob(False, "a move with one legal action is not a learner step (the policy "
                             "plays it, nothing is learnt from it)")
    torch_threads: int = knob(1, "torch.set_num_threads for the whole run", PROCESSES)
    # --- the opponents (training.opponents.KINDS: one opp_<kind> weight each)
    opp_self: float = weight(0.45, "self-play tables (the current policy in both seats, both learn)")
    opp_snapshot: float = weight(0.15, "tables against a frozen past snapshot of the policy")
    opp_random: float = weight(0.0, "tables against uniformly random legal play")
    opp_heuristic: float = weight(0.4, "tables against agents' 'heuristic' bot (slow: keep small)")
    opp_pimc: float = weight(0.0, "tables against the pimc bot (very slow: keep tiny or 0)")
    pimc_spec: str = knob("pimc:worlds=8", "agent spec of the pimc opponent in training", bot_spec)
    # --- the snapshot pool
    snapshot_every: int = knob(10, "updates between two snapshots added to the pool", AT_LEAST_1)
    snapshot_pool: int = knob(20, "most recent snapshots kept", AT_LEAST_1)
    # --- evaluation, checkpoints, logs
    eval_every: int = knob(0, "environment steps between evaluations (also one at the end; 0: only "
                           "at the end)", AT_LEAST_0)
    eval_random_games: int = knob(20, "matches against 'random' per evaluation (duplicate pairs)", GAMES)
    eval_heuristic_games: int = knob(200, "matches against 'heuristic' per evaluation (duplicate "
                                     "pairs)", GAMES)
    eval_pimc_games: int = knob(0, "matches against pimc per evaluation (slow)", GAMES)
    eval_pimc_spec: str = knob("pimc", "agent spec of the pimc evaluation opponent", bot_spec)
    checkpoint_every: int = knob(20, "updates between two writes of last.pt (also written at the "
                                 "end)", AT_LEAST_1)
    progress: bool = knob(True, "show a tqdm progress bar")
    tensorboard: bool = knob(True, "write TensorBoard event files to the run folder")

    def opponent_weights(self) -> dict[str, float]:
        """Kind name -> weight of its tables, from the ``opp_<kind>`` fields."""
        return {f.name[len(OPPONENT_PREFIX):]: getattr(self, f.name)
                for f in dataclasses.fields(self) if f.name.startswith(OPPONENT_PREFIX)}

    def end_steps(self) -> int:
        """The environment step at which the run stops (``stop_steps`` or ``total_steps``)."""
        return min(self.stop_steps or self.total_steps, self.total_steps)

    def check(self) -> None:
        """The checks that span fields (a ConfigError naming them), after each field's own."""
        weights = list(self.opponent_weights().values())
        if sum(weights) <= 0:
            raise ConfigError(f"opponent weights opp_* must have a positive sum, got {weights}")
        batch = self.num_envs * self.rollout_steps
        if batch > MAX_BATCH:
            raise ConfigError(f"num_envs * rollout_steps = {batch} decisions per batch; at most {MAX_BATCH} "
                              "(a batch is held in memory at once)")
        per_minibatch = self.num_envs * self.rollout_steps // self.num_minibatches
        if per_minibatch < MIN_MINIBATCH:
            raise ConfigError(
                f"num_envs * rollout_steps / num_minibatches = {self.num_envs} * {self.rollout_steps} / "
                f"{self.num_minibatches} decisions per minibatch; it needs at least {MIN_MINIBATCH} (the "
                "learner makes about half of them): raise num_envs or rollout_steps, or lower "
                "num_minibatches")


class UntrustedSettingError(ConfigError):
    """``--resume`` of a checkpoint whose config names a bot (or another thing a run would start)
    that is not built in: a checkpoint's settings are data, so the operator must name it."""


Trusted = Callable[[str], bool]  # whether a value from a file may be used without the operator naming it


def started_keys(schema: type) -> dict[str, Trusted]:
    """The keys of ``schema`` whose values a run builds bots from (its bot-spec fields), each with
    :func:`~training.config_checks.builtin_bot`: which of their values are safe from a file."""
    return {f.name: builtin_bot for f in dataclasses.fields(schema)
            if f.metadata.get("check") in (bot_spec, teacher_spec)}


def trusted_config(data: dict[str, Any], overrides: dict[str, Any], where: str, again: str,
                   schema: type = Config, extra: dict[str, Trusted] | None = None) -> dict[str, Any]:
    """The config ``data`` of a checkpoint to resume, with the operator's ``overrides`` of the
    keys that start something (:func:`started_keys` and ``extra``); an
    :class:`UntrustedSettingError` naming ``where`` and what to pass to ``again`` (the resume
    command) if it holds a value of those keys that is not safe and not overridden. Nothing in
    ``data`` is parsed before this: parsing a plug-in's spec imports it."""
    if not isinstance(data, dict):
        return data  # config_from_dict names it
    checks = {**started_keys(schema), **(extra or {})}
    out, refused = dict(data), []
    for key, trusted in checks.items():
        if key in overrides:
            out[key] = overrides[key]
        elif isinstance(data.get(key), str) and not trusted(data[key]):
            refused.append(key)
    if refused:
        raise UntrustedSettingError(untrusted_message(data, refused, where, again, schema))
    return out


def untrusted_message(data: dict[str, Any], keys: list[str], where: str, again: str, schema: type) -> str:
    """One line: which settings of ``where`` are refused, why, and the command that resumes with them."""
    named = ", ".join(f"{k}={str(data[k])[:120]!r}" for k in keys)
    args = [shlex.quote(f"{k}={data[k]}") if str(data[k]).isprintable() and len(data[k]) <= 300
            else f"{k}=..." for k in keys]
    defaults = dataclasses.asdict(schema())
    instead = " ".join(shlex.quote(f"{k}={defaults[k]}") for k in keys)
    return (f"--resume: {where} names {named}, which a run would start, import, read or join: a "
            f"checkpoint's settings are data (only built-in bots without a path are taken from one), so "
            f"name it yourself to resume with it: {again} {' '.join(args)} (or another, e.g. {instead})")


S = TypeVar("S")  # a config schema: a dataclass of knob() fields, Config or another tool's


def _types(schema: type) -> dict[str, Any]:
    return typing.get_type_hints(schema)


def _fits(want: Any, value: Any) -> bool:
    """Whether ``value`` has the field type ``want`` (bools are not ints here)."""
    if want is bool:
        return isinstance(value, bool)
    if want is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if want is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if want is str:
        return isinstance(value, str)
    return isinstance(value, list) and all(_fits(int, v) for v in value)  # list[int]


TYPE_NAMES: dict[Any, str] = {list[int]: "a list of ints"}  # a field type named otherwise than __name__


def _check_value(key: str, value: Any, schema: type = Config) -> Any:
    """``value`` for ``key`` if its type fits the field (ints pass as floats), else ConfigError."""
    if key == "assist" and isinstance(value, bool):  # configs and checkpoints from before the modes
        value = assist_mode(value)
    if key == "rules" and isinstance(value, str):  # one spelling in checkpoints: "KAWU" is "kawu"
        try:
            value = rules_from_spec(value).spec
        except ValueError:
            pass  # the field's check names the problem
    want = _types(schema)[key]
    if want is float and isinstance(value, str):  # YAML 1.1 reads "3e-4" (no dot) as a string
        try:
            value = float(value)
        except ValueError:
            pass
    if not _fits(want, value):
        tname = TYPE_NAMES.get(want) or getattr(want, "__name__", str(want))
        raise ConfigError(f"config key {key!r} must be {tname}, got {shown(value)} "
                          f"({type(value).__name__})")
    return float(value) if want is float else value


def _validate(cfg: S) -> S:
    """``cfg`` if its values make a run, else a ConfigError naming the key: every field's own
    check (:func:`knob`), finite floats, and the checks that span fields (its ``check()``)."""
    for f in dataclasses.fields(cfg):  # type: ignore[arg-type]
        value = getattr(cfg, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise bad_value(f.name, value, "a finite number")
        if f.metadata.get("check") is not None:
            f.metadata["check"](f.name, value)
    check = getattr(cfg, "check", None)
    if check is not None:
        check()
    return cfg


def config_from_dict(data: dict[str, Any], base: Any = None, where: str = "config",
                     schema: type = Config) -> Any:
    """``base`` (default: the defaults of ``schema``, :class:`Config` or another tool's dataclass
    of :func:`knob` fields) with the keys of ``data`` set, type-checked."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {type(data).__name__}")
    values = dataclasses.asdict(base if base is not None else schema())
    known = _types(schema)
    for key, value in data.items():
        if not isinstance(key, str) or key not in known:
            raise ConfigError(f"unknown config key {str(key)[:60]!r} in {where} "
                              f"(known: {', '.join(sorted(known))})")
        values[key] = _check_value(key, value, schema)
    return _validate(schema(**values))


def load_config(path: str | Path, schema: type = Config) -> Any:
    """A config file (YAML mapping) on top of the defaults of ``schema``."""
    return config_from_dict(read_yaml(path), where=str(path), schema=schema)


def parse_overrides(args: list[str], schema: type = Config) -> dict[str, Any]:
    """``--total-steps 1000``, ``--total-steps=1000`` or ``total_steps=1000`` -> {key: value}.

    Values are read as YAML scalars/lists (``true``, ``3e-4``, ``[64,64]``);
    a string field keeps the text as given.
    """
    out: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--"):
            key, eq, text = arg[2:].partition("=")
            if not eq:
                if i + 1 >= len(args):
                    raise ConfigError(f"override {arg} needs a value")
                text = args[i + 1]
                i += 1
        elif "=" in arg:
            key, _, text = arg.partition("=")
        else:
            raise ConfigError(f"cannot read argument {arg!r}: use --key value or key=value")
        key = key.replace("-", "_")
        types = _types(schema)
        if key not in types:
            raise ConfigError(f"unknown config key {key!r} on the command line")
        out[key] = _check_value(key, text if types[key] is str else _yaml_value(key, text), schema)
        i += 1
    return out


def _yaml_value(key: str, text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):  # ValueError: an int of thousands of digits
        raise ConfigError(f"cannot read the value {text[:80]!r} of {key!r}") from None


@dataclass
class CommandLine:
    """What ``train.py``'s arguments ask for: the config file, the overrides, resume or help."""

    config: Any  # a Config, or the schema's dataclass
    overrides: dict[str, Any]
    resume: bool = False


def split_command_line(args: list[str], default_config: Path) -> tuple[Path, list[str], bool]:
    """``[--config FILE] [--resume] [overrides...]`` -> (config file, the overrides' arguments, resume)."""
    args = list(args)
    resume = "--resume" in args
    args = [a for a in args if a != "--resume"]
    path: str | Path = default_config
    for i, a in enumerate(args):
        if a == "--config" or a.startswith("--config="):
            if a == "--config" and i + 1 >= len(args):
                raise ConfigError("--config needs a file")
            path = a[len("--config="):] if "=" in a else args[i + 1]
            del args[i:i + (1 if "=" in a else 2)]
            break
    return Path(path), args, resume


def parse_command_line(args: list[str], default_config: Path, schema: type = Config) -> CommandLine:
    """``[--config FILE] [--resume] [--key value | key=value ...]`` -> the run's config.

    The config file (``default_config`` if none) sets the keys, the
    overrides go on top; a resumed run later takes the checkpoint's config
    with the same overrides (see ``train.py``)."""
    path, args, resume = split_command_line(args, default_config)
    overrides = parse_overrides(args, schema)
    base = load_config(path, schema)
    return CommandLine(config_from_dict(overrides, base=base, where="the command line", schema=schema),
                       overrides, resume)


def help_text(schema: type = Config) -> str:
    """One line per config key: ``--key (default): help``, from the fields' help."""
    defaults = dataclasses.asdict(schema())
    return "\n".join(f"  --{f.name.replace('_', '-')} ({defaults[f.name]!r}): {f.metadata['help']}"
                     for f in dataclasses.fields(schema))
