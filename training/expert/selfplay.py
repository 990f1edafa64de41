"""Self-play with search: deals between two guided searches sharing the current network, as samples.

Every deal is a fresh German deal seeded from the iteration's seed and its
index; two :class:`agents.guided.GuidedAgent` bots (their own seeds from the
same, the settings' worlds, depth and leaf valuation, no time limit) play it out, each seeing every
view of its seat (forced moves too: the search infers from the whole deal). At
every decision with more than one legal move (obvious ones included: their
target is the move the rules play) the sample is: the observation
(:func:`~sixtysix_env.observation.encode`), the legal mask, the policy target,
the full state for the value network
(:func:`~sixtysix_env.observation.encode_full`), the deal's index (the
learner's ``value_positions`` subset is per deal) and, once the deal ends,
its game points for that player (the value target). The policy target is
``softmax(value / target_temp)`` of the search's weighted mean values of the
legal moves (:meth:`agents.search.guided.SearchResult.value_policy`): the
values alone, never the search's prior-weighted score, which would only feed
the policy its own preferences back, sharpened; or, with ``target``
"improved", ``softmax(log pi + value / target_temp)``
(:meth:`~agents.search.guided.SearchResult.improved_policy`): the network's
policy moved by the values, ``pi`` itself where they tie. The moves played
are the search's (with its prior), except each seat's first ``sample_moves``, drawn from the target so the
positions are diverse. No teacher: the search is the only expert.

A deal depends on nothing but its seed and the weights, so generation is
deterministic and any split of the deals into chunks (local steps or Ray tasks,
:mod:`training.expert.generation`) merged in index order gives the same samples.
"""

from __future__ import annotations

import io
import random
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agents.arena.inputs import open_regular
from agents.core.checkpoint import write_atomic
from agents.core.nets import PolicyNet, ValueNet
from agents.search.guided import CRITIC
from sixtysix_env.actions import N_ACTIONS, actions_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.knowledge import view
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE, encode, encode_full, mask_to_array
from sixtysix_env.seeding import derive_seed
from sixtysix_env.variants import GERMAN
from training.npz_check import Member, check_npz

MAX_SAMPLE_BYTES = 1 << 36  # one iteration's rows; a fifo or a device is refused without blocking
MAX_SAMPLE_UNPACKED = 1 << 32  # what a sample file's arrays may unpack to (about 1.4 million rows)
SAMPLE_LAYOUT = {"obs": Member((OBS_SIZE,), "float32"), "masks": Member((N_ACTIONS,), "bool"),
                 "policy": Member((N_ACTIONS,), "float32"), "full": Member((FULL_OBS_SIZE,), "float32"),
                 "value": Member((), "float32"), "deal": Member((), "int32")}  # each array: (rows, ...)

VALUES, IMPROVED = "values", "improved"
TARGETS = (VALUES, IMPROVED)  # the policy targets: softmax(values / t), softmax(log pi + values / t)
Weights = dict[str, Any]  # {"hidden", "critic_hidden", "policy", "critic"}: what a generation task gets


class SampleError(ValueError):
    """A sample file or a search result that cannot be used (the message names which and why)."""


class Searcher(Protocol):
    """What self-play needs of a player: ``act`` and, after it, ``last_result`` (an
    :class:`agents.search.guided.SearchResult`: its ``value_policy`` is the target)."""

    last_result: Any

    def act(self, view: Any) -> int: ...


class Player(Protocol):
    """Who plays self-play: builds its network from the weights once per task, then a searcher
    per seat and deal (the real one is :data:`GUIDED`)."""

    def net(self, weights: Weights) -> Any: ...

    def make(self, net: Any, seed: int, settings: Settings) -> Searcher: ...


class Guided:
    """The guided search of :mod:`agents.guided` (:class:`agents.guided.GuidedAgent`) on the
    current networks: the settings' worlds per move, depth and leaves, no time limit."""

    def net(self, weights: Weights) -> Any:
        from agents.core.guide_net import GuideNet

        return GuideNet.from_modules(*modules(weights))

    def make(self, net: Any, seed: int, settings: Settings) -> Searcher:
        from agents.guided import GuidedAgent

        return GuidedAgent(seed=seed, worlds=settings.worlds, net=net, depth=settings.depth,
                           leaf=settings.leaf)


GUIDED = Guided()


def modules(weights: Weights) -> tuple[PolicyNet, ValueNet]:
    """The torch policy and value networks holding ``weights``."""
    policy = PolicyNet(OBS_SIZE, weights["hidden"])
    policy.load_state_dict(weights["policy"])
    critic = ValueNet(FULL_OBS_SIZE, weights["critic_hidden"])
    critic.load_state_dict(weights["critic"])
    return policy, critic


@dataclass(frozen=True)
class Settings:
    """What a generation task needs besides the weights and its deal indices."""

    seed: int  # the iteration's seed: deal i is dealt from derive_seed(seed, "deal", i)
    worlds: int
    sample_moves: int
    target_temp: float  # game points: the policy target is softmax(the search's values / target_temp)
    target: str = "values"  # TARGETS: the values alone, or the network's policy moved by them
    depth: int = 1  # the search's depth (1 or 2: agents.search.guided)
    leaf: str = CRITIC  # LEAVES: how the search values an open leaf


@dataclass
class Samples:
    """Decisions of self-play, one row each (numpy arrays of equal length)."""

    obs: np.ndarray  # (n, OBS_SIZE) float32: the player's observation
    masks: np.ndarray  # (n, 32) bool: legal moves
    policy: np.ndarray  # (n, 32) float32: the search's policy, sums to 1 over the legal moves
    full: np.ndarray  # (n, FULL_OBS_SIZE) float32: encode_full(state, player)
    value: np.ndarray  # (n,) float32: the deal's game points for the player (-3..3)
    deal: np.ndarray  # (n,) int32: the deal's index in its iteration (rows of a deal share one result)

    def __len__(self) -> int:
        return len(self.value)

    @classmethod
    def empty(cls) -> Samples:
        return cls.concat([])

    @classmethod
    def concat(cls, parts: Sequence[Samples]) -> Samples:
        """The rows of ``parts`` in order."""
        shapes = {"obs": (OBS_SIZE,), "masks": (N_ACTIONS,), "policy": (N_ACTIONS,), "full": (FULL_OBS_SIZE,),
                  "value": (), "deal": ()}
        dtypes = {"masks": np.bool_, "deal": np.int32}
        out = {}
        for f in fields(cls):
            arrays = [getattr(p, f.name) for p in parts]
            out[f.name] = (np.concatenate(arrays) if arrays else
                           np.zeros((0, *shapes[f.name]), dtypes.get(f.name, np.float32)))
        return cls(**out)

    def save(self, path: Path) -> None:
        """Write the rows to ``path`` (``.npz``) whole or not at all."""
        data = io.BytesIO()
        np.savez_compressed(data, **{f.name: getattr(self, f.name) for f in fields(self)})
        write_atomic(path, data.getbuffer())

    @classmethod
    def load(cls, path: Path) -> Samples:
        """Rows written by :meth:`save`, checked (shapes, dtypes, finite, targets that are
        distributions over legal moves); a :class:`SampleError` naming the file otherwise. The
        arrays' headers are checked first (:func:`~training.npz_check.check_npz`): a forged file
        never makes ``np.load`` allocate more than :data:`MAX_SAMPLE_UNPACKED` bytes."""
        try:
            with open_regular(path, MAX_SAMPLE_BYTES) as raw:
                check_npz(raw, SAMPLE_LAYOUT, MAX_SAMPLE_UNPACKED)
                raw.seek(0)
                with np.load(raw, allow_pickle=False) as z:
                    data = {f.name: z[f.name] for f in fields(cls)}
        except (OSError, KeyError, ValueError, EOFError, MemoryError, zipfile.BadZipFile) as e:
            raise SampleError(f"sample file {path} cannot be read: {str(e)[:200]}") from None
        samples = cls(**data)
        samples.check(str(path))
        return samples

    def check(self, where: str) -> None:
        """A :class:`SampleError` naming ``where`` unless the rows are whole and their targets sound."""
        n = len(self.value)
        want = {"obs": ((n, OBS_SIZE), np.float32), "masks": ((n, N_ACTIONS), np.bool_),
                "policy": ((n, N_ACTIONS), np.float32), "full": ((n, FULL_OBS_SIZE), np.float32),
                "value": ((n,), np.float32), "deal": ((n,), np.int32)}
        for name, (shape, dtype) in want.items():
            a = getattr(self, name)
            if not isinstance(a, np.ndarray) or a.shape != shape or a.dtype != dtype:
                raise SampleError(f"{where}: {name!r} is not {dtype.__name__} of shape {shape}")
            if a.dtype == np.float32 and not np.isfinite(a).all():
                raise SampleError(f"{where}: {name!r} holds NaN or infinite values")
        if n and (self.deal < 0).any():
            raise SampleError(f"{where}: a deal index is negative")
        if n and (np.abs(self.value) > 3).any():
            raise SampleError(f"{where}: a value target is outside -3..3 game points")
        if n and ((self.policy < 0).any() or (self.policy[~self.masks] != 0).any()
                  or not np.allclose(self.policy.sum(axis=1), 1.0, atol=1e-4)):
            raise SampleError(f"{where}: a policy target is not a distribution over the legal moves")


def deal_value(state: State, player: int) -> float:
    """The finished deal's game points for ``player``: + for its win, - for its loss, 0 drawn."""
    res = state.result
    assert res is not None, "the deal is not over"
    if res.winner is None:
        return 0.0
    return float(res.game_points if res.winner == player else -res.game_points)


def search_target(policy: Any, mask: np.ndarray, where: str) -> np.ndarray:
    """A search's policy target as a float32 distribution over the legal moves (``mask``), or a
    :class:`SampleError`: a search that puts mass on an illegal move or none anywhere is a bug."""
    p = np.asarray(policy, dtype=np.float32).reshape(-1)
    if p.shape != (N_ACTIONS,) or not np.isfinite(p).all() or (p < 0).any() or (p[~mask] != 0).any():
        raise SampleError(f"{where}: the search's policy is not a distribution over the legal moves")
    total = float(p.sum())
    if not abs(total - 1.0) < 1e-3:
        raise SampleError(f"{where}: the search's policy sums to {total:.4f}, not 1")
    return p / total


def play_deal(net: Any, settings: Settings, index: int, player: Player = GUIDED) -> Samples:
    """Deal ``index`` of ``settings.seed`` played by two searches on ``net``, as samples."""
    state = deal(derive_seed(settings.seed, "deal", index), rules=GERMAN)
    players = [player.make(net, derive_seed(settings.seed, "search", index, seat), settings)
               for seat in (0, 1)]
    pick = random.Random(derive_seed(settings.seed, "pick", index))
    moves = [0, 0]
    rows: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    while not state.is_over:
        p = state.to_act
        v = view(state, p)
        mask = mask_to_array(v.legal_mask)
        searcher = players[p]
        searcher.last_result = None
        action = searcher.act(v)  # also a forced move: the search follows the deal through its views
        result = searcher.last_result
        if result is not None and v.legal_mask.bit_count() > 1:  # a forced move teaches nothing
            legal = actions_of(v.legal_mask)
            wanted = (result.improved_policy(legal, settings.target_temp) if settings.target == IMPROVED
                      else result.value_policy(legal, settings.target_temp))
            target = search_target(wanted, mask, f"deal {index} of seed {settings.seed}")
            if moves[p] < settings.sample_moves:
                action = pick.choices(range(N_ACTIONS), weights=target.tolist())[0]
            rows.append((p, encode(v), mask, target, encode_full(state, p)))
        moves[p] += 1
        state.apply(action)
    if not rows:
        return Samples.empty()
    return Samples(obs=np.stack([r[1] for r in rows]), masks=np.stack([r[2] for r in rows]),
                   policy=np.stack([r[3] for r in rows]), full=np.stack([r[4] for r in rows]),
                   value=np.array([deal_value(state, r[0]) for r in rows], np.float32),
                   deal=np.full(len(rows), index, np.int32))


def generate_chunk(weights: Weights, settings: Settings, first: int, count: int,
                   player: Player = GUIDED) -> Samples:
    """Deals ``first .. first + count - 1`` of ``settings.seed``: one task of generation (locally
    or on Ray), a function of its arguments alone."""
    net = player.net(weights)
    return Samples.concat([play_deal(net, settings, i, player) for i in range(first, first + count)])
