"""The PPO policy network and the bot that plays it (no search before the endgame).

The policy sees exactly the environment's observation
(:func:`sixtysix_env.observation.encode`) and outputs 32 logits, one per
action of RULES.md section 5; illegal actions are masked to the dtype's
minimum before the softmax. The critic used in training may see the full
state (``encode_full``); it is never needed to play, so a shipped checkpoint
is used here only for its policy weights.

A checkpoint may also carry an **endgame network** (:class:`EndgameNet`,
trained by ``distill_endgame.py`` on the exact solver's values): a second
MLP that makes the decisions once the talon is spent, where play is a
perfect-information puzzle that the main policy, shared with everything
else, solves less well. It sees the same observation plus the cards nobody
has seen (:func:`unseen_cards`, with the talon spent exactly the opponent's
hand), which it could compute itself but learns faster when given.

It may also carry a **closed-talon network** (an :class:`EndgameNet` too,
under ``"closed"``, from ``distill_endgame.py --phase closed``): it makes
the decisions after a close while cards are still face down in the talon.
There the view fixes no world; the network was fitted on the solver's
values averaged over worlds sampled from the view, which is what PIMC
computes at every such decision (and why PIMC plays that phase better
than the main policy).

Checkpoints are plain ``torch.save`` dicts of tensors and primitive
containers (loadable with ``weights_only=True``)::

    {"format": "sixtysix-ppo", "version": 1, "obs_size": int,
     "config": {...}, "policy": state_dict, "critic": state_dict, ...,
     "endgame": {"hidden": [int, ...], "state": state_dict},   # optional
     "closed": {"hidden": [int, ...], "state": state_dict}}    # optional

``train.py`` adds optimizer state, step counters and RNG states for resuming.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.cards import N_CARDS
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.observation import HAND, OBS_SIZE, TABLE, TRUMP_CARD, WON_ME, WON_OPP, encode

from .base import BaseAgent
from .heuristic import assist_mode, scripted_action
from .solver import Solver, is_closed_view, is_endgame_view

CHECKPOINT_FORMAT = "sixtysix-ppo"
CHECKPOINT_VERSION = 1
DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "ppo_default.pt"


def mlp(in_size: int, hidden: Sequence[int], out_size: int, out_gain: float) -> nn.Sequential:
    """ReLU MLP with orthogonal init (CleanRL's ``layer_init``); a small
    ``out_gain`` makes the initial policy near uniform over legal actions."""
    layers: list[nn.Module] = []
    size = in_size
    for h in hidden:
        lin = nn.Linear(size, h)
        nn.init.orthogonal_(lin.weight, np.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers += [lin, nn.ReLU()]
        size = h
    out = nn.Linear(size, out_size)
    nn.init.orthogonal_(out.weight, out_gain)
    nn.init.zeros_(out.bias)
    layers.append(out)
    return nn.Sequential(*layers)


class PolicyNet(nn.Module):
    """Observation -> 32 action logits (unmasked)."""

    def __init__(self, obs_size: int = OBS_SIZE, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.obs_size = obs_size
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp(obs_size, self.hidden, N_ACTIONS, 0.01)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(obs)


#: Observation planes of cards whose place the observer knows (see :func:`unseen_cards`).
SEEN_PLANES = (HAND, WON_ME, WON_OPP, TABLE, TRUMP_CARD)
ENDGAME_IN = OBS_SIZE + N_CARDS


def unseen_cards(obs: Any) -> Any:
    """The 24-card plane of cards the observer has not seen anywhere (not in
    its hand, no trick, not on the table, not the face-up trump card): the
    opponent's hand plus the face-down talon; with the talon spent, exactly
    the opponent's hand. Works on numpy arrays and torch tensors, batched or
    not (last axis ``OBS_SIZE``)."""
    seen = sum(obs[..., p:p + N_CARDS] for p in SEEN_PLANES)
    return 1.0 - seen.clip(0.0, 1.0)


class EndgameNet(nn.Module):
    """Observation (+ :func:`unseen_cards`) -> 32 logits, for positions with
    the talon spent (trained on the exact solver's values) or closed (on
    their means over sampled worlds)."""

    def __init__(self, hidden: Sequence[int] = (512, 512, 256)) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp(ENDGAME_IN, self.hidden, N_ACTIONS, 0.01)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([obs, unseen_cards(obs)], dim=-1))


class ValueNet(nn.Module):
    """Critic input (the observation, or the full state) -> value in game points."""

    def __init__(self, in_size: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.net = mlp(in_size, tuple(int(h) for h in hidden), 1, 1.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal logits set to the dtype's minimum: probability exactly 0, but
    finite, so entropy and log-prob stay free of NaN (``-inf * 0``)."""
    return torch.where(mask, logits, torch.finfo(logits.dtype).min)


def masked_distribution(logits: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
    """The categorical policy over legal actions only (``mask`` bool, same shape)."""
    return torch.distributions.Categorical(logits=masked_logits(logits, mask))


# ------------------------------------------------------------------ checkpoints
def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Read and validate a checkpoint; any problem is a ``ValueError`` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # corrupt, truncated, or not a torch file at all
        raise ValueError(f"checkpoint {path} is corrupt or not a sixtysix PPO checkpoint: {e}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint {path} is not a sixtysix PPO checkpoint (bad format)")
    if ckpt.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"checkpoint {path} has version {ckpt.get('version')!r}, not {CHECKPOINT_VERSION}")
    if ckpt.get("obs_size") != OBS_SIZE:
        raise ValueError(
            f"checkpoint {path} was trained on observations of size {ckpt.get('obs_size')!r}, "
            f"this version encodes {OBS_SIZE}: retrain it"
        )
    for key in ("policy", "config"):
        if not isinstance(ckpt.get(key), dict):
            raise ValueError(f"checkpoint {path} lacks its {key!r} entry")
    return ckpt


def policy_from_checkpoint(ckpt: dict[str, Any], path: str | os.PathLike = "<memory>") -> PolicyNet:
    """Rebuild the policy network stored in a (validated) checkpoint."""
    hidden = ckpt["config"].get("hidden", [256, 256])
    net = PolicyNet(OBS_SIZE, hidden)
    try:
        net.load_state_dict(ckpt["policy"])
    except (RuntimeError, KeyError) as e:
        raise ValueError(f"checkpoint {path}: policy weights do not fit hidden={hidden}: {e}") from None
    return net


RESUME_ONLY = ("optimizer", "snapshots", "rng")  # checkpoint entries only ``train.py --resume`` reads


PHASE_KEYS = {"spent": "endgame", "closed": "closed"}  # phase -> checkpoint entry of its network
PHASE_RECORDS = {"spent": "distill_endgame", "closed": "distill_closed"}  # phase -> how it was made


def endgame_entry(net: EndgameNet) -> dict[str, Any]:
    """The checkpoint's ``"endgame"`` (or ``"closed"``) entry for ``net``
    (read back by :func:`endgame_from_checkpoint`)."""
    return {"hidden": list(net.hidden), "state": net.state_dict()}


def endgame_from_checkpoint(ckpt: dict[str, Any], path: str | os.PathLike = "<memory>",
                            phase: str = "spent") -> EndgameNet | None:
    """The checkpoint's endgame network for ``phase`` (``"spent"``: the
    ``"endgame"`` entry; ``"closed"``: the ``"closed"`` entry), or None if
    it has none."""
    key = PHASE_KEYS[phase]
    entry = ckpt.get(key)
    if entry is None:
        return None
    try:
        net = EndgameNet(entry["hidden"])
        net.load_state_dict(entry["state"])
    except (RuntimeError, KeyError, TypeError) as e:
        raise ValueError(f"checkpoint {path}: bad {key} network: {e}") from None
    return net


def half_precision(ckpt: dict[str, Any]) -> dict[str, Any]:
    """``ckpt`` with the weights of all its networks stored as float16: half
    the file size. Loading casts them back to float32, so the bot computes
    as before, on weights rounded to float16 (measured: 1 greedy move in
    about 7,000 differs from the float32 file's)."""
    out = dict(ckpt)
    for key in ("policy", "critic"):
        if isinstance(out.get(key), dict):
            out[key] = {k: v.half() for k, v in out[key].items()}
    for key in PHASE_KEYS.values():
        if isinstance(out.get(key), dict):
            out[key] = {**out[key], "state": {k: v.half() for k, v in out[key]["state"].items()}}
    return out


def _numpy_layers(net: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
            for m in net if isinstance(m, nn.Linear)]


def _forward(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    last = len(layers) - 1
    for i, (w, b) in enumerate(layers):
        x = x @ w + b
        if i < last:
            np.maximum(x, 0.0, out=x)
    return x


def save_atomic(obj: dict[str, Any], path: str | os.PathLike) -> None:
    """``torch.save`` to a temp file then ``os.replace``: a killed run never
    leaves a half-written checkpoint behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


# ---------------------------------------------------------------------- the bot
class PPOAgent(BaseAgent):
    """Plays a trained policy network: one forward pass per decision.

    ``endgame``: an optional :class:`EndgameNet` that replaces the policy
    once the talon is spent; ``closed``: one that replaces it after a close
    while the talon still holds cards (still one forward pass, no search).
    ``greedy=True`` picks the most probable legal action; otherwise it samples
    from the masked policy with the agent's own RNG (reseeded by ``reset``).
    ``assist="full"`` (the default, or ``True``) plays, like the search bots,
    the obvious moves (a correct declaration, the trump-nine exchange, a
    marriage) and, like every bot of the ladder, the exact solver's move once
    the talon is spent, when the view fixes every card
    (:func:`agents.heuristic.scripted_action`; under a millisecond); the
    network makes every other decision. ``assist="rules"`` plays only the
    obvious moves by rule: no search at all. With ``assist="none"`` (or
    ``False``) the network plays every move.
    The forward pass runs in numpy on a copy of the weights, which is several
    times faster than torch for a single observation and thread-free.
    """

    def __init__(self, policy: PolicyNet, *, greedy: bool = True, seed: int | None = None,
                 name: str = "ppo", assist: bool | str = "full",
                 endgame: EndgameNet | None = None, closed: EndgameNet | None = None) -> None:
        super().__init__(seed)
        self.name = name
        self.greedy = greedy
        self.assist = assist_mode(assist)
        self.solver = Solver()
        self.np_rng = np.random.default_rng(seed)
        self.layers = _numpy_layers(policy.net)
        self.endgame_layers = _numpy_layers(endgame.net) if endgame is not None else None
        self.closed_layers = _numpy_layers(closed.net) if closed is not None else None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.np_rng = np.random.default_rng(seed)

    def logits(self, view: PlayerView) -> np.ndarray:
        """Unmasked logits for ``view`` (float32, shape (32,)): the endgame
        network's once the talon is spent, the closed-talon network's after a
        close, if there is one; else the policy's."""
        x = encode(view)
        phase_layers = self.endgame_layers if is_endgame_view(view) else \
            self.closed_layers if is_closed_view(view) else None
        if phase_layers is not None:
            return _forward(phase_layers, np.concatenate([x, unseen_cards(x)]))
        return _forward(self.layers, x)

    def act(self, view: PlayerView) -> int:
        legal = view.legal_mask
        if not legal:
            raise ValueError(f"player_{view.player} has no legal action in this view (not its turn?)")
        if self.assist != "none":
            a = scripted_action(view, self.solver, self.rng, self.assist)
            if a is not None:
                return a
        mask = np.array([(legal >> a) & 1 for a in range(N_ACTIONS)], dtype=bool)
        z = np.where(mask, self.logits(view).astype(np.float64), -np.inf)
        if self.greedy:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.np_rng.choice(N_ACTIONS, p=p))


def load_ppo_agent(path: str | os.PathLike | None = None, seed: int | None = None, *,
                   greedy: bool = True, assist: bool | str = "full") -> PPOAgent:
    """A :class:`PPOAgent` from a checkpoint file; ``None``: the shipped
    :data:`DEFAULT_CHECKPOINT`. Bad files raise ``ValueError`` naming them."""
    path = DEFAULT_CHECKPOINT if path is None else Path(path)
    ckpt = load_checkpoint(path)
    from .registry import canonical_name  # the registry spells every bot's spec

    name = canonical_name("ppo", {"path": None if path == DEFAULT_CHECKPOINT else str(path),
                                  "assist": assist_mode(assist)})
    return PPOAgent(policy_from_checkpoint(ckpt, path), greedy=greedy, seed=seed, name=name,
                    assist=assist, endgame=endgame_from_checkpoint(ckpt, path),
                    closed=endgame_from_checkpoint(ckpt, path, "closed"))
