"""Masked PPO self-play for Sixty-Six, readable top to bottom (after CleanRL's ``ppo.py``).

Usage::

    python train.py                                      # configs/default.yaml (~10 min, 2 cores)
    python train.py --config configs/long.yaml           # the full recipe
    python train.py --total-steps 100000 name=try seed=3 # override any config key
    python train.py --resume                             # continue runs/<name>/last.pt

One iteration:

1. **Collect.** ``num_envs`` tables (:class:`sixtysix_env.vector.VectorEnv`)
   play matches; each step every table takes one decision. The learner's
   policy acts for both seats of self-play tables, and for one seat of tables
   against an opponent from the pool (a frozen past snapshot, or a bot from
   ``agents/``). Illegal logits are set to the dtype minimum and the mask is
   stored with the transition. The policy's seats play obvious moves (a
   correct declaration, the trump-nine exchange, a marriage) by rule and,
   once the talon is spent and the view fixes every card, the exact solver
   (``assist: full``, as the ``ppo`` bot does), so the network learns the
   decisions where judgement matters. ``assist: rules`` scripts only the
   obvious moves (the network learns the endgame too, for play without
   search); ``assist: none`` scripts nothing.
2. **Per-seat trajectories.** Each seat of each table is its own trajectory:
   a transition of player p continues at p's next decision, and the reward
   of a deal (+-game points) belongs to the last transition of each player,
   delivered at the deal's end (:func:`record_rewards`; PettingZoo issue
   #1147 is the classic way to get this wrong). A deal is one episode for
   GAE; tables keep playing the match so every match score is seen.
3. **GAE** over those streams (:func:`compute_gae`), bootstrapped at the
   rollout's end with the critic's value of each seat's current position.
   The critic may see the full state (``encode_full``); the policy never.
4. **PPO update**: clipped surrogate, value loss, entropy bonus; the stored
   masks are reused to recompute log-probs. A teacher term (kickstarting,
   Schmitt et al. 2018) pulls the policy towards a teacher on the learner's
   rows; plain PPO from random play needs millions of deals to get anywhere.
   The default teacher, ``pimc-values``, distils PIMC: each labelled row gets
   PIMC's action values in ONE world sampled from the player's view (about
   0.6 ms, 1/64 of a pimc decision, computed by ``teacher_workers``
   processes while the main process plays), and the centred logits are
   regressed on them (:func:`value_distill_loss`); over many rows that
   regression converges to PIMC's values averaged over worlds. Its weight
   (``teacher_coef`` fading linearly to ``teacher_min``) is 10 throughout
   in the shipped configs: in runs this short the distillation is most of
   the learning. A bot spec (``heuristic``) instead pulls towards that bot's
   action by cross-entropy.
5. **Evaluate** against random, heuristic and pimc through the arena with
   duplicate deals; log to TensorBoard and ``metrics.csv``; checkpoint
   atomically (``last.pt``: everything to resume except the table positions,
   so a resumed run goes on with fresh deals; ``best.pt``: the best policy
   so far against ``heuristic``).

Log keys have fixed prefixes: ``charts/``, ``losses/``, ``eval/``.
"""

from __future__ import annotations

import csv
import dataclasses
import random
import sys
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from agents.heuristic import ASSIST_MODES, assist_mode, scripted_action
from agents.neural import (
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    PolicyNet,
    PPOAgent,
    ValueNet,
    load_checkpoint,
    masked_distribution,
    save_atomic,
)
from agents.solver import Solver
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from sixtysix_env.vector import EPISODES, VectorEnv

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "default.yaml"
VALUE_TEACHER = "pimc-values"


# ===================================================================== config
@dataclass
class Config:
    """Every knob of a run; configs/*.yaml set these keys, the command line overrides them."""

    name: str = "default"
    """run name: logs and checkpoints go to ``<run_dir>/<name>/``"""
    run_dir: str = "runs"
    """parent folder of the run folders"""
    seed: int = 1
    """seeds the deals, the network initialisation and the sampling"""
    total_steps: int = 2_000_000
    """environment steps (decisions at all tables, opponents' included) to train for"""
    num_envs: int = 128
    """tables stepped together; the network sees batches of this size"""
    rollout_steps: int = 64
    """steps per table between two updates (a batch is num_envs * rollout_steps decisions)"""
    episode: str = "match"
    """'match': tables play whole matches (deal rewards, every match score seen); 'deal': 0:0 deals"""
    learning_rate: float = 1e-3
    """Adam step size"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over total_steps"""
    gamma: float = 1.0
    """discount per own decision (a deal is short and its reward comes at the end)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """passes over each batch"""
    num_minibatches: int = 4
    """minibatches per pass"""
    clip_coef: float = 0.2
    """PPO ratio clipping"""
    ent_coef: float = 0.003
    """entropy bonus weight"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient norm clipping"""
    target_kl: float = 0.0
    """stop an update's epochs early once the approximate KL passes this (0: never)"""
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """policy MLP hidden sizes"""
    critic_hidden: list[int] = field(default_factory=lambda: [256, 256])
    """critic MLP hidden sizes"""
    full_critic: bool = True
    """the critic sees the full state (encode_full: opponent's hand, talon); the policy never does"""
    assist: str = "full"
    """'full': the policy's seats play obvious moves by rule and the exact solver once the talon is
    spent (agents.heuristic.scripted_action, as the ppo bot does by default); 'rules': obvious moves
    only (the network learns the endgame, to play with no search); 'none': nothing scripted.
    Scripted moves are not learner steps, so learning is about the real choices. (true/false
    in older configs mean 'full'/'none'.)"""
    teacher: str = "pimc-values"
    """kickstarting teacher, so PPO starts from sensible play: 'pimc-values' regresses
    the centred logits (times teacher_temp) on PIMC's action values in one sampled world (their
    average over worlds is what pimc maximises: a distillation of pimc); an agent spec
    ('heuristic') pulls the policy towards that bot's action by cross-entropy; '' for none"""
    teacher_temp: float = 0.05
    """'pimc-values': game points per logit, so the distilled policy is softmax(values / temp)"""
    teacher_frac: float = 1.0
    """fraction of the learner's rows the teacher labels (its labels cost most of the time)"""
    teacher_workers: int = 2
    """processes that compute teacher labels while the main process plays (0: the main process)"""
    teacher_coef: float = 10.0
    """initial weight of the teacher term"""
    teacher_steps: int = 1_600_000
    """environment steps over which the teacher weight decays linearly to teacher_min"""
    teacher_min: float = 10.0
    """teacher weight after teacher_steps (equal to teacher_coef: a constant weight; 0: the teacher
    fades out and PPO alone goes on)"""
    torch_threads: int = 1
    """torch.set_num_threads for the whole run"""
    opp_self: float = 0.45
    """weight of self-play tables (the current policy in both seats, both learn)"""
    opp_snapshot: float = 0.15
    """weight of tables against a frozen past snapshot of the policy"""
    opp_random: float = 0.0
    """weight of tables against uniformly random legal play"""
    opp_heuristic: float = 0.4
    """weight of tables against agents' 'heuristic' bot (slow: keep small)"""
    opp_pimc: float = 0.0
    """weight of tables against the pimc bot (very slow: keep tiny or 0)"""
    pimc_spec: str = "pimc:worlds=8"
    """agent spec of the pimc opponent in training"""
    snapshot_every: int = 10
    """updates between two snapshots added to the pool"""
    snapshot_pool: int = 20
    """most recent snapshots kept"""
    eval_every: int = 0
    """environment steps between evaluations (also one at the end; 0: only at the end)"""
    eval_random_games: int = 20
    """matches against 'random' per evaluation (duplicate pairs)"""
    eval_heuristic_games: int = 200
    """matches against 'heuristic' per evaluation (duplicate pairs)"""
    eval_pimc_games: int = 0
    """matches against pimc per evaluation (slow)"""
    eval_pimc_spec: str = "pimc"
    """agent spec of the pimc evaluation opponent"""
    checkpoint_every: int = 20
    """updates between two writes of last.pt (also written at the end)"""
    progress: bool = True
    """show a tqdm progress bar"""
    tensorboard: bool = True
    """write TensorBoard event files to the run folder"""


class ConfigError(ValueError):
    """A bad config file, key, type or command-line override."""


_TYPES = typing.get_type_hints(Config)
_FIELDS = {f.name for f in dataclasses.fields(Config)}


def _check_value(key: str, value: Any) -> Any:
    """``value`` for ``key`` if its type fits the field (ints pass as floats), else ConfigError."""
    if key == "assist" and isinstance(value, bool):  # configs and checkpoints from before the modes
        value = assist_mode(value)
    want = _TYPES[key]
    ok: bool
    if want is bool:
        ok = isinstance(value, bool)
    elif want is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif want is float:
        if isinstance(value, str):  # YAML 1.1 reads "3e-4" (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                pass
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif want is str:
        ok = isinstance(value, str)
    else:  # list[int]
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    if not ok:
        tname = getattr(want, "__name__", str(want))
        raise ConfigError(f"config key {key!r} must be {tname}, got {value!r} ({type(value).__name__})")
    return value


def _validate(cfg: Config) -> Config:
    positive = ("total_steps", "num_envs", "rollout_steps", "update_epochs", "num_minibatches",
                "torch_threads", "snapshot_every", "snapshot_pool", "checkpoint_every", "teacher_steps")
    for key in positive:
        if getattr(cfg, key) < 1:
            raise ConfigError(f"config key {key!r} must be >= 1, got {getattr(cfg, key)}")
    if cfg.assist not in ASSIST_MODES:
        raise ConfigError(f"config key 'assist' must be one of {ASSIST_MODES}, got {cfg.assist!r}")
    if cfg.episode not in EPISODES:
        raise ConfigError(f"config key 'episode' must be one of {EPISODES}, got {cfg.episode!r}")
    if cfg.teacher_coef < 0 or cfg.teacher_min < 0:
        raise ConfigError("config keys 'teacher_coef' and 'teacher_min' must be >= 0")
    if cfg.teacher_workers < 0:
        raise ConfigError(f"config key 'teacher_workers' must be >= 0, got {cfg.teacher_workers}")
    if not cfg.teacher_temp > 0 or not 0 < cfg.teacher_frac <= 1:
        raise ConfigError("config keys need teacher_temp > 0 and 0 < teacher_frac <= 1")
    if cfg.teacher and cfg.teacher != VALUE_TEACHER:
        from agents import parse_spec

        try:
            parse_spec(cfg.teacher)
        except ValueError as e:
            raise ConfigError(f"config key 'teacher': {VALUE_TEACHER!r}, '' or an agent spec; {e}") from None
    weights = [cfg.opp_self, cfg.opp_snapshot, cfg.opp_random, cfg.opp_heuristic, cfg.opp_pimc]
    if min(weights) < 0 or sum(weights) <= 0:
        raise ConfigError(f"opponent weights opp_* must be >= 0 with a positive sum, got {weights}")
    if not cfg.hidden or not cfg.critic_hidden or min(cfg.hidden + cfg.critic_hidden) < 1:
        raise ConfigError("config keys 'hidden' and 'critic_hidden' must be non-empty lists of positive ints")
    if not cfg.name or "/" in cfg.name:
        raise ConfigError(f"config key 'name' must be a plain folder name, got {cfg.name!r}")
    return cfg


def config_from_dict(data: dict[str, Any], base: Config | None = None, where: str = "config") -> Config:
    """``base`` (default: the defaults) with the keys of ``data`` set, type-checked."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {type(data).__name__}")
    values = dataclasses.asdict(base if base is not None else Config())
    for key, value in data.items():
        if key not in _FIELDS:
            raise ConfigError(f"unknown config key {key!r} in {where} (known: {', '.join(sorted(_FIELDS))})")
        values[key] = _check_value(key, value)
    return _validate(Config(**values))


def load_config(path: str | Path) -> Config:
    """A config file (YAML mapping) on top of the defaults."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as e:
        raise ConfigError(f"cannot read config file {path}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {path} is not valid YAML: {e}") from None
    return config_from_dict(data, where=str(path))


def parse_overrides(args: list[str]) -> dict[str, Any]:
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
        if key not in _FIELDS:
            raise ConfigError(f"unknown config key {key!r} on the command line")
        if _TYPES[key] is str:
            value: Any = text
        else:
            try:
                value = yaml.safe_load(text)
            except yaml.YAMLError:
                raise ConfigError(f"cannot read the value {text!r} of {key!r}") from None
        out[key] = _check_value(key, value)
        i += 1
    return out


# ============================================================ PPO ingredients
def compute_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    seats: np.ndarray,
    learn: np.ndarray,
    next_values: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns for per-seat trajectories in time-major arrays.

    ``rewards``, ``values``, ``dones``, ``seats``, ``learn`` have shape
    ``(T, N)``: step t at table n was a decision of player ``seats[t, n]``;
    only rows with ``learn`` belong to a trajectory. A transition continues at
    the same table's next learn row of the same seat, unless ``dones`` (the
    deal ended after it: its ``rewards`` hold the deal's outcome). The last
    transition of each stream that is not done bootstraps from
    ``next_values[n, seat]``. Rows outside ``learn`` get 0.
    """
    T, N = rewards.shape
    adv = np.zeros((T, N), np.float32)
    next_v = np.asarray(next_values, np.float32).copy()  # (N, 2): value of the seat's next decision
    next_a = np.zeros((N, 2), np.float32)  # advantage of the seat's next decision
    rows = np.arange(N)
    for t in range(T - 1, -1, -1):
        s = seats[t]
        live = 1.0 - dones[t].astype(np.float32)
        nv = next_v[rows, s]
        na = next_a[rows, s]
        delta = rewards[t] + gamma * nv * live - values[t]
        a = delta + gamma * lam * live * na
        a = np.where(learn[t], a, 0.0).astype(np.float32)
        adv[t] = a
        lt = learn[t]
        next_v[rows[lt], s[lt]] = values[t][lt]
        next_a[rows[lt], s[lt]] = a[lt]
    return adv, adv + values


def record_rewards(
    t: int,
    seats: np.ndarray,
    learn: np.ndarray,
    deal_done: np.ndarray,
    step_rewards: np.ndarray,
    last_t: np.ndarray,
    rewards: np.ndarray,
    dones: np.ndarray,
) -> None:
    """Book step ``t``'s outcome on the transitions of the players who earned it.

    ``seats[n]`` acted at table n in step t (a trajectory step when
    ``learn[n]``); ``last_t[n, p]`` is the step of player p's latest pending
    transition at table n (-1: none in this rollout) and is updated here. When
    a deal ended (``deal_done``), each player's reward ``step_rewards[n, p]``
    goes to that player's own latest transition, which is marked done: the
    player who did not make the last move still gets its outcome.
    """
    rows = np.flatnonzero(learn)
    last_t[rows, seats[rows]] = t
    ended = np.flatnonzero(deal_done)
    for p in (0, 1):
        k = last_t[ended, p]
        ok = k >= 0
        rewards[k[ok], ended[ok]] += step_rewards[ended[ok], p]
        dones[k[ok], ended[ok]] = True
    last_t[ended] = -1


def value_distill_loss(logits: torch.Tensor, values: torch.Tensor, legal: torch.Tensor,
                       temp: float) -> torch.Tensor:
    """Mean squared error between ``temp * logits`` and ``values`` over the legal
    actions, each centred on its mean over them.

    Centring removes what all actions share (how lucky the sampled world
    was), which is most of a one-world label's noise, and leaves the logits'
    free constant alone. Its minimiser over many worlds is logits = mean
    values / temp, so the policy becomes softmax(PIMC's values / temp).
    """
    m = legal.to(logits.dtype)
    n = m.sum(1, keepdim=True).clamp(min=1.0)
    pred = logits * temp
    pred = pred - (pred * m).sum(1, keepdim=True) / n
    target = values - (values * m).sum(1, keepdim=True) / n
    return (((pred - target) ** 2) * m).sum() / m.sum().clamp(min=1.0)


def sample_actions(logits: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample legal actions and their log-probs from the masked policy."""
    dist = masked_distribution(logits, masks)
    actions = dist.sample()
    return actions, dist.log_prob(actions)


# ============================================================== the opponents
SELF, SNAPSHOT, RANDOM, HEURISTIC, PIMC = range(5)
KIND_NAMES = ("self", "snapshot", "random", "heuristic", "pimc")


class Opponents:
    """Who sits at each table: an opponent kind per table and the learner's seat.

    Kinds are drawn by the config weights at every match start (and at every
    deal start with ``episode='deal'``). Bots come from ``agents.make_agent``,
    one per table, created on first use.
    """

    def __init__(self, cfg: Config, num_envs: int, rng: np.random.Generator) -> None:
        w = np.array([cfg.opp_self, cfg.opp_snapshot, cfg.opp_random, cfg.opp_heuristic, cfg.opp_pimc])
        self.probs = w / w.sum()
        self.rng = rng
        self.specs = {HEURISTIC: "heuristic", PIMC: cfg.pimc_spec}
        self.seed = cfg.seed
        self.kind = np.zeros(num_envs, np.int64)
        self.learner_seat = np.zeros(num_envs, np.int64)
        self.bots: dict[tuple[int, int], Any] = {}
        self.redraw(np.arange(num_envs))

    def redraw(self, tables: np.ndarray) -> None:
        if len(tables) == 0:
            return
        self.kind[tables] = self.rng.choice(len(self.probs), size=len(tables), p=self.probs)
        self.learner_seat[tables] = self.rng.integers(0, 2, size=len(tables))
        for n in tables[self.kind[tables] >= HEURISTIC].tolist():
            self.bot(n, int(self.kind[n])).reset(int(self.rng.integers(2**31)))

    def bot(self, table: int, kind: int) -> Any:
        key = (table, kind)
        if key not in self.bots:
            from agents import make_agent

            self.bots[key] = make_agent(self.specs[kind], seed=self.seed * 100_003 + table)
        return self.bots[key]

    def learns(self, to_act: np.ndarray) -> np.ndarray:
        """Rows where the learner decides (and which therefore are trajectory steps)."""
        return (self.kind == SELF) | (to_act == self.learner_seat)


# ================================================================ collection
_WORKER_TEACHERS: dict[str, Any] = {}  # per process: the teacher bot or solver, built on first use


def teacher_labels(spec: str, views: list[PlayerView], seeds: list[int]) -> list[Any]:
    """Teacher labels of ``views``, one seed each (so a label does not depend on
    which process computes it): PIMC's values in one sampled world (a dict
    action -> game points) for ``pimc-values``, else the bot's action."""
    from agents.pimc import world_action_values

    if spec not in _WORKER_TEACHERS:
        from agents import make_agent

        _WORKER_TEACHERS[spec] = Solver() if spec == VALUE_TEACHER else make_agent(spec)
    teacher = _WORKER_TEACHERS[spec]
    out: list[Any] = []
    for v, seed in zip(views, seeds, strict=True):
        if spec == VALUE_TEACHER:
            out.append(world_action_values(v, random.Random(seed), teacher))
            teacher.clear()
        else:
            teacher.reset(seed)
            out.append(teacher.act(v))
    return out


class Teacher:
    """Labels the learner's rows for kickstarting: a bot's action, or (``pimc-values``)
    PIMC's action values in one world sampled from the player's view.

    With ``workers`` > 0 the labels are computed in worker processes while the
    main process goes on playing; :meth:`finish` collects them into the buffer
    before the update. Labels are the same either way.
    """

    def __init__(self, spec: str, seed: int, frac: float, workers: int = 0) -> None:
        self.spec = spec
        self.values = spec == VALUE_TEACHER
        self.rng = random.Random(seed)
        self.frac = frac
        self.pool = None
        if workers > 0:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        self.pending: list[tuple[int, list[int], Any]] = []

    def label(self, t: int, rows: list[int], venv: VectorEnv,
              known: dict[int, PlayerView] | None = None) -> None:
        """Queue labels for step ``t`` of ``rows`` (a random ``frac`` of them);
        ``known``: views of some tables already built this step."""
        rng = self.rng
        picked, views = [], []
        for n in rows:
            if self.frac < 1 and rng.random() >= self.frac:
                continue
            v = known.get(n) if known else None
            if v is None:
                v = venv.view_of(n)
            if self.values and v.legal_mask & (v.legal_mask - 1) == 0:
                continue  # one legal move: nothing to learn
            picked.append(n)
            views.append(v)
        if not picked:
            return
        seeds = [rng.getrandbits(63) for _ in picked]
        if self.pool is None:
            self.pending.append((t, picked, teacher_labels(self.spec, views, seeds)))
        else:
            self.pending.append((t, picked, self.pool.submit(teacher_labels, self.spec, views, seeds)))

    def finish(self, buf: Rollout) -> None:
        """Write every queued label into ``buf`` (waits for the workers)."""
        for t, rows, res in self.pending:
            labels = res if isinstance(res, list) else res.result()
            for n, lab in zip(rows, labels, strict=True):
                if self.values:
                    out = buf.teacher_values[t, n]
                    out[:] = 0.0
                    for a, q in lab.items():
                        out[a] = q
                else:
                    buf.teacher[t, n] = lab
                buf.labelled[t, n] = True
        self.pending.clear()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


class Rollout:
    """Time-major ``(T, N, ...)`` buffers of one rollout, like CleanRL's; ``learn``
    marks the rows that are steps of a learner trajectory (opponents' moves and,
    with ``assist``, the scripted moves are not)."""

    def __init__(self, T: int, N: int, critic_in: int) -> None:
        self.obs = np.zeros((T, N, OBS_SIZE), np.float32)
        self.critic_obs = np.zeros((T, N, critic_in), np.float32)
        self.masks = np.zeros((T, N, N_ACTIONS), bool)
        self.actions = np.zeros((T, N), np.int64)
        self.logprobs = np.zeros((T, N), np.float32)
        self.values = np.zeros((T, N), np.float32)
        self.rewards = np.zeros((T, N), np.float32)
        self.dones = np.zeros((T, N), bool)
        self.seats = np.zeros((T, N), np.int64)
        self.learn = np.zeros((T, N), bool)
        self.teacher = np.zeros((T, N), np.int64)  # the teacher's action on learner rows (kickstarting)
        self.teacher_values = np.zeros((T, N, N_ACTIONS), np.float32)  # or its action values
        self.labelled = np.zeros((T, N), bool)  # rows the teacher labelled
        self.last_t = np.full((N, 2), -1, np.int64)  # each seat's latest pending transition


def collect(
    venv: VectorEnv,
    opponents: Opponents,
    policy: PolicyNet,
    critic: ValueNet,
    snapshot_net: PolicyNet,
    buf: Rollout,
    rng: np.random.Generator,
    teacher: Teacher | None = None,
    assist: str = "none",
) -> tuple[np.ndarray, dict[int, list[float]]]:
    """Fill ``buf`` with one rollout; returns the bootstrap values ``(N, 2)`` of
    each seat's current position and, per opponent kind, the learner's reward
    of every deal that ended (self-play: the winner's). ``teacher`` (or None)
    labels the learner's rows for kickstarting. ``assist`` (``Config.assist``)
    scripts the policy's seats' obvious moves (``rules``) and, once the talon
    is spent, the exact endgame too (``full``)."""
    T = buf.rewards.shape[0]
    cin = slice(0, buf.critic_obs.shape[2])
    buf.dones[:] = False
    buf.rewards[:] = 0.0
    buf.labelled[:] = False
    buf.last_t[:] = -1
    py_rng = random.Random(int(rng.integers(2**31)))
    solver = Solver()
    deal_rewards: dict[int, list[float]] = {k: [] for k in range(len(KIND_NAMES))}
    kind = opponents.kind
    for t in range(T):
        buf.obs[t] = venv.obs
        buf.critic_obs[t] = venv.full_obs[:, cin]
        buf.masks[t] = venv.masks
        buf.seats[t] = venv.to_act
        learn = opponents.learns(venv.to_act)
        solved: dict[int, int] = {}
        views: dict[int, PlayerView] = {}
        if assist != "none":  # the policy's seats: obvious moves (and the spent-talon endgame)
            for n in np.flatnonzero(learn | (kind == SNAPSHOT)).tolist():
                v = views[n] = venv.view_of(n)
                a = scripted_action(v, solver, py_rng, assist)
                if a is not None:
                    solved[n] = a
                    learn[n] = False
        buf.learn[t] = learn
        if teacher is not None:
            teacher.label(t, np.flatnonzero(learn).tolist(), venv, views)
        with torch.no_grad():
            obs_t = torch.from_numpy(buf.obs[t])
            mask_t = torch.from_numpy(buf.masks[t])
            actions_t, logp_t = sample_actions(policy(obs_t), mask_t)
            buf.values[t] = critic(torch.from_numpy(buf.critic_obs[t])).numpy()
            actions = actions_t.numpy()
            buf.logprobs[t] = logp_t.numpy()
            snap = np.flatnonzero(~learn & (kind == SNAPSHOT))
            if len(snap):
                actions[snap] = sample_actions(snapshot_net(obs_t[snap]), mask_t[snap])[0].numpy()
        rand = np.flatnonzero(~learn & (kind == RANDOM))
        if len(rand):  # uniform over legal actions: the argmax of random keys on legal slots
            keys = rng.random((len(rand), N_ACTIONS))
            actions[rand] = np.argmax(np.where(buf.masks[t][rand], keys, -1.0), axis=1)
        for n in np.flatnonzero(~learn & (kind >= HEURISTIC)).tolist():
            if n not in solved:
                actions[n] = opponents.bot(n, int(kind[n])).act(venv.view_of(n))
        for n, a in solved.items():
            actions[n] = a
        buf.actions[t] = actions
        venv.step(actions)
        record_rewards(t, buf.seats[t], learn, venv.deal_done, venv.rewards, buf.last_t,
                       buf.rewards, buf.dones)
        for n in np.flatnonzero(venv.deal_done).tolist():
            k = int(kind[n])
            r = abs(venv.rewards[n, 0]) if k == SELF else venv.rewards[n, opponents.learner_seat[n]]
            deal_rewards[k].append(float(r))
        opponents.redraw(np.flatnonzero(venv.match_done if venv.episode == "match" else venv.deal_done))
    if teacher is not None:
        teacher.finish(buf)
    with torch.no_grad():
        next_values = np.stack(
            [critic(torch.from_numpy(venv.full_obs_of(p)[:, cin])).numpy() for p in (0, 1)], axis=1
        )
    return next_values, deal_rewards


# ================================================================ evaluation
def evaluate(agent: Any, spec: str, games: int, seed: int) -> dict[str, float]:
    """Win rate and points per deal of ``agent`` against ``make_agent(spec)``, duplicate deals."""
    from agents import make_agent
    from agents.arena import head_to_head

    st = head_to_head(agent, make_agent(spec, seed=seed), games=games, unit="match", seed=seed,
                      duplicate=True)
    lo, hi = st.win_rate_ci
    return {"win_rate": st.win_rate, "win_rate_lo": lo, "win_rate_hi": hi,
            "points_per_deal": st.points_per_deal}


# ================================================================== training
class Logger:
    """TensorBoard + ``metrics.csv`` (step, wall seconds, key, value) in the run folder."""

    def __init__(self, run_dir: Path, tensorboard: bool) -> None:
        self.start = time.time()
        path = run_dir / "metrics.csv"
        new = not path.exists()
        self.file = path.open("a", newline="")
        self.csv = csv.writer(self.file)
        if new:
            self.csv.writerow(["step", "wall_s", "key", "value"])
        self.tb = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(str(run_dir))

    def log(self, step: int, metrics: dict[str, float]) -> None:
        wall = round(time.time() - self.start, 2)
        for key, value in metrics.items():
            self.csv.writerow([step, wall, key, f"{float(value):.6g}"])
            if self.tb is not None:
                self.tb.add_scalar(key, float(value), step)
        self.file.flush()

    def close(self) -> None:
        self.file.close()
        if self.tb is not None:
            self.tb.close()


def train(cfg: Config, resume: bool = False, overrides: dict[str, Any] | None = None) -> Path:
    """Run (or, with ``resume``, continue) training; returns the run folder."""
    run_dir = Path(cfg.run_dir) / cfg.name
    ckpt: dict[str, Any] | None = None
    if resume:
        path = run_dir / "last.pt"
        if not path.exists():
            raise ConfigError(f"--resume: no checkpoint {path} to resume from")
        try:
            ckpt = load_checkpoint(path)
        except ValueError as e:
            raise ConfigError(f"--resume: {e}") from None
        if "optimizer" not in ckpt:
            raise ConfigError(f"--resume: checkpoint {path} holds only a policy, not a resumable run")
        cfg = config_from_dict({**ckpt["config"], **(overrides or {})}, where=str(path))
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)

    # --- networks: the policy sees OBS_SIZE, the critic optionally the full state
    policy = PolicyNet(OBS_SIZE, cfg.hidden)
    critic_in = FULL_OBS_SIZE if cfg.full_critic else OBS_SIZE
    critic = ValueNet(critic_in, cfg.critic_hidden)
    params = list(policy.parameters()) + list(critic.parameters())
    optimizer = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
    snapshot_net = PolicyNet(OBS_SIZE, cfg.hidden)
    snapshots: list[dict[str, torch.Tensor]] = []
    global_step = update = 0
    best = -1.0
    env_seed = cfg.seed
    if ckpt is not None:
        policy.load_state_dict(ckpt["policy"])
        critic.load_state_dict(ckpt["critic"])
        optimizer.load_state_dict(ckpt["optimizer"])
        snapshots = list(ckpt.get("snapshots", []))
        global_step, update, best = ckpt["global_step"], ckpt["update"], ckpt["best"]
        torch.set_rng_state(ckpt["rng"]["torch"])
        rng.bit_generator.state = ckpt["rng"]["numpy"]
        env_seed = cfg.seed + 7919 * update  # fresh deals after a restart (tables are not saved)

    teacher = None
    if cfg.teacher:
        teacher = Teacher(cfg.teacher, cfg.seed + 7919 * update, cfg.teacher_frac, cfg.teacher_workers)
    N, T = cfg.num_envs, cfg.rollout_steps
    venv = VectorEnv(N, seed=env_seed, episode=cfg.episode, full_obs=True)
    opponents = Opponents(cfg, N, rng)
    buf = Rollout(T, N, critic_in)

    logger = Logger(run_dir, cfg.tensorboard)
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.total_steps, initial=min(global_step, cfg.total_steps), unit="step",
                   dynamic_ncols=True, desc=cfg.name)
    last_eval = global_step
    eval_note = ""

    def checkpoint(path: Path, full: bool) -> None:
        obj: dict[str, Any] = {
            "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "obs_size": OBS_SIZE,
            "config": dataclasses.asdict(cfg), "policy": policy.state_dict(), "critic": critic.state_dict(),
            "global_step": global_step, "update": update, "best": best,
        }
        if full:
            obj.update(optimizer=optimizer.state_dict(), snapshots=snapshots,
                       rng={"torch": torch.get_rng_state(), "numpy": rng.bit_generator.state})
        save_atomic(obj, path)

    def run_eval() -> dict[str, float]:
        agent = PPOAgent(policy, greedy=True, name="ppo-train", assist=cfg.assist)
        out: dict[str, float] = {}
        for spec, games in (("random", cfg.eval_random_games), ("heuristic", cfg.eval_heuristic_games),
                            (cfg.eval_pimc_spec, cfg.eval_pimc_games)):
            if games > 0:
                tag = spec.split(":")[0]
                for k, v in evaluate(agent, spec, games, seed=10_000 + update).items():
                    out[f"eval/{k}_{tag}"] = v
        return out

    while global_step < cfg.total_steps:
        if cfg.anneal_lr:
            frac = max(0.0, 1.0 - global_step / cfg.total_steps)
            optimizer.param_groups[0]["lr"] = cfg.learning_rate * frac
        if snapshots:
            snapshot_net.load_state_dict(snapshots[int(rng.integers(len(snapshots)))])
        else:
            snapshot_net.load_state_dict(policy.state_dict())

        # ---- 1. collect T steps at N tables (teacher labels only while its weight is positive)
        fade = max(0.0, 1.0 - global_step / cfg.teacher_steps)
        teacher_w = cfg.teacher_min + (cfg.teacher_coef - cfg.teacher_min) * fade if teacher else 0.0
        t0 = time.perf_counter()
        next_values, deal_rewards = collect(venv, opponents, policy, critic, snapshot_net, buf, rng,
                                            teacher if teacher_w > 0 else None, cfg.assist)
        collect_s = time.perf_counter() - t0

        # ---- 2-3. per-seat GAE
        adv, ret = compute_gae(buf.rewards, buf.values, buf.dones, buf.seats, buf.learn, next_values,
                               cfg.gamma, cfg.gae_lambda)

        # ---- 4. PPO update on the learner's rows
        t1 = time.perf_counter()
        sel = buf.learn.reshape(-1)
        b_obs = torch.from_numpy(buf.obs.reshape(-1, OBS_SIZE)[sel])
        b_cobs = torch.from_numpy(buf.critic_obs.reshape(-1, critic_in)[sel])
        b_mask = torch.from_numpy(buf.masks.reshape(-1, N_ACTIONS)[sel])
        b_act = torch.from_numpy(buf.actions.reshape(-1)[sel])
        b_logp = torch.from_numpy(buf.logprobs.reshape(-1)[sel])
        b_adv = torch.from_numpy(adv.reshape(-1)[sel])
        b_ret = torch.from_numpy(ret.reshape(-1)[sel])
        b_teacher = torch.from_numpy(buf.teacher.reshape(-1)[sel])
        b_tvalues = torch.from_numpy(buf.teacher_values.reshape(-1, N_ACTIONS)[sel])
        b_labelled = torch.from_numpy(buf.labelled.reshape(-1)[sel])
        size = len(b_act)
        mb_size = max(1, size // cfg.num_minibatches)
        clipfracs: list[float] = []
        pg_loss = v_loss = entropy = approx_kl = t_loss = torch.zeros(())
        for _epoch in range(cfg.update_epochs):
            order = torch.randperm(size)
            for start in range(0, size - mb_size + 1, mb_size):
                mb = order[start:start + mb_size]
                dist = masked_distribution(policy(b_obs[mb]), b_mask[mb])
                logratio = dist.log_prob(b_act[mb]) - b_logp[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                mb_adv = b_adv[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio,
                                    -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                v_loss = 0.5 * ((critic(b_cobs[mb]) - b_ret[mb]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
                lab = mb[b_labelled[mb]]
                if teacher_w > 0 and len(lab):  # kickstarting on the labelled rows
                    if teacher.values:  # regress centred logits on PIMC's values
                        t_loss = value_distill_loss(policy(b_obs[lab]), b_tvalues[lab], b_mask[lab],
                                                    cfg.teacher_temp)
                    else:  # cross-entropy towards the teacher's action
                        t_loss = -masked_distribution(policy(b_obs[lab]), b_mask[lab]).log_prob(
                            b_teacher[lab]).mean()
                    loss = loss + teacher_w * t_loss
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
                optimizer.step()
            if cfg.target_kl > 0 and approx_kl.item() > cfg.target_kl:
                break
        update_s = time.perf_counter() - t1
        global_step += N * T
        update += 1
        if update % cfg.snapshot_every == 0:
            snapshots.append({k: v.detach().clone() for k, v in policy.state_dict().items()})
            del snapshots[:-cfg.snapshot_pool]

        # ---- 5. log, evaluate, checkpoint
        y, r = b_ret.numpy(), buf.values.reshape(-1)[sel]
        metrics = {
            "charts/sps": N * T / (collect_s + update_s),
            "charts/collect_sps": N * T / collect_s,
            "charts/learning_rate": optimizer.param_groups[0]["lr"],
            "charts/learner_rows": size,
            "charts/deals": sum(len(v) for v in deal_rewards.values()),
            "charts/teacher_coef": teacher_w,
            "losses/policy": pg_loss.item(), "losses/value": v_loss.item(), "losses/entropy": entropy.item(),
            "losses/teacher": t_loss.item(),
            "losses/approx_kl": approx_kl.item(), "losses/clipfrac": float(np.mean(clipfracs or [0.0])),
            "losses/explained_variance": float(1 - np.var(y - r) / np.var(y)) if np.var(y) > 0 else 0.0,
        }
        for k, rewards in deal_rewards.items():  # learner's points per deal against each opponent kind
            if rewards and k != SELF:
                metrics[f"charts/reward_vs_{KIND_NAMES[k]}"] = float(np.mean(rewards))
        finished = global_step >= cfg.total_steps
        if (cfg.eval_every > 0 and global_step - last_eval >= cfg.eval_every) or finished:
            last_eval = global_step
            ev = run_eval()
            metrics.update(ev)
            score = ev.get("eval/win_rate_heuristic", ev.get("eval/win_rate_random", 0.0))
            eval_note = " ".join(f"{k[5:]}={v:.2f}" for k, v in ev.items() if "_lo_" not in k
                                 and "_hi_" not in k)
            if score >= best:
                best = score
                checkpoint(run_dir / "best.pt", full=False)
        logger.log(global_step, metrics)
        if update % cfg.checkpoint_every == 0 or finished:
            checkpoint(run_dir / "last.pt", full=True)
        if bar is not None:
            bar.update(min(global_step, cfg.total_steps) - bar.n)
            bar.set_postfix_str(f"sps={metrics['charts/sps']:.0f} {eval_note}")
    if teacher is not None:
        teacher.close()
    if bar is not None:
        bar.close()
    logger.close()
    return run_dir


def field_docs() -> dict[str, str]:
    """The docstring under each Config field (read from the source, for --help)."""
    import ast
    import inspect

    body = ast.parse(inspect.getsource(Config)).body[0].body  # type: ignore[attr-defined]
    out = {}
    for node, nxt in zip(body, body[1:], strict=False):
        doc = isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
        if isinstance(node, ast.AnnAssign) and doc:
            out[node.target.id] = " ".join(str(nxt.value.value).split())  # type: ignore[attr-defined]
    return out


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "-h" in args or "--help" in args:
        print(__doc__)
        print("Config keys (defaults of train.Config; configs/default.yaml sets the same values):")
        docs, defaults = field_docs(), dataclasses.asdict(Config())
        for f in dataclasses.fields(Config):
            print(f"  --{f.name.replace('_', '-')} ({defaults[f.name]!r}): {docs.get(f.name, '')}")
        return 0
    resume = "--resume" in args
    args = [a for a in args if a != "--resume"]
    config_path: str | Path = DEFAULT_CONFIG
    for i, a in enumerate(args):
        if a == "--config" or a.startswith("--config="):
            if a == "--config" and i + 1 >= len(args):
                print("error: --config needs a file", file=sys.stderr)
                return 2
            config_path = a[len("--config="):] if "=" in a else args[i + 1]
            del args[i:i + (1 if "=" in a else 2)]
            break
    try:
        overrides = parse_overrides(args)
        cfg = config_from_dict(overrides, base=load_config(config_path), where="the command line")
        run_dir = train(cfg, resume=resume, overrides=overrides)
    except ConfigError as e:  # bad configs and checkpoints: a clear message, no traceback
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"done: {run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
