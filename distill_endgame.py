"""Endgame distillation: an exact-endgame network for a trained PPO policy.

Usage::

    python distill_endgame.py runs/rules24/last.pt runs/eg/ppo.pt           # defaults below
    python distill_endgame.py IN.pt OUT.pt --deals 100000 --data rows1.npz   # collect, keep rows
    python distill_endgame.py IN.pt OUT.pt --data rows1.npz rows2.npz --epochs 10   # fit only
    python distill_endgame.py NEWER.pt OUT.pt --endgame-from OLD_OUT.pt   # reuse a network
    python distill_endgame.py EG.pt OUT.pt --phase closed --worlds 16    # the closed-talon network

Why: once the talon is spent the view fixes every card, so the exact solver
(``agents.solver``) knows the value of every move. PPO with the
``pimc-values`` teacher (``train.py``, ``assist: rules``) sees those labels
too, but its one network also has to play the rest of the deal; measured on
self-play deals, the 16M-step policy missed the best move in about 6% of its
endgame decisions, costing about 0.08 game points per deal. This script
trains a second network (:class:`agents.neural.EndgameNet`) for that phase
alone, and leaves the policy as it is:

1. **Collect** (``--workers`` processes): deals played by the policy itself
   (sampled, plus ``--explore`` uniformly random moves so the positions are
   not only the policy's favourites), at random match scores; each endgame
   is played out ``--lines`` times from where the talon ran out. Every
   non-obvious decision with the talon spent (lead, follow, final) is a row,
   labelled with the solver's value of every legal action. ``--data FILE``
   keeps the rows (``.npz``); given files that exist, the rows are read
   (several files are joined) and nothing is played.
2. **Fit** the endgame network by minibatch Adam: cross-entropy of its
   masked policy against ``softmax(values / --tau)``, so the best move gets
   almost all the mass. Repeated positions are dropped; every training row
   is renamed by a random permutation of the four suits, which changes
   nothing in the rules (24 times the data, :func:`suit_permutation`). The
   rows of the last collect jobs (a twentieth, other deals) are held out;
   the held-out share of optimal moves and the regret (game points lost per
   decision) of the policy and of the new network are printed.
3. **Write** the input checkpoint, optimizer and snapshot pool left out, with
   the network added under ``"endgame"``, atomically.

The result plays as ``ppo:OUT.pt,assist=rules``: still one forward pass per
decision, no search at play time.

``--phase closed`` does the same for the positions after a close while the
talon still holds cards (:func:`agents.solver.is_closed_view`), where the
policy plays worse than ``pimc`` (measured: about 0.05 game points more
lost per decision, against the true deal's solver values). No world is
certain there, so a row's label is the solver's value of every move
averaged over ``--worlds`` worlds sampled from the player's view: PIMC's
values, which a network can learn once instead of searching at every
decision. The lines are replayed from the close, and the network is
written under ``"closed"``, next to the input's endgame network.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.heuristic import obvious_action
from agents.neural import (
    PHASE_KEYS,
    PHASE_RECORDS,
    RESUME_ONLY,
    EndgameNet,
    PPOAgent,
    endgame_entry,
    endgame_from_checkpoint,
    half_precision,
    load_checkpoint,
    masked_logits,
    policy_from_checkpoint,
    save_atomic,
)
from agents.solver import Solver, is_closed_view, is_endgame_view
from sixtysix_env.actions import MARRIAGE, N_ACTIONS
from sixtysix_env.cards import N_CARDS, N_SUITS, RANK_NAMES, make_card
from sixtysix_env.engine import MATCH_TARGET, OVER, State, deal
from sixtysix_env.knowledge import PlayerView, sample_state, view
from sixtysix_env.observation import (
    HAND,
    LEGAL,
    MARRIAGE_NOW,
    OBS_SIZE,
    SHOWN_ME,
    SHOWN_OPP,
    TRUMP_CARD,
    TRUMP_SUIT,
    encode,
)

ROW_KEYS = ("obs", "legal", "values")
CARD_PLANES = tuple(range(HAND, TRUMP_CARD + N_CARDS, N_CARDS))  # the ten 24-card planes
SUIT_FIELDS = (TRUMP_SUIT, SHOWN_ME, SHOWN_OPP, MARRIAGE_NOW)  # one flag per suit


def suit_permutation(perm: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Gather indices ``(obs_src, action_src)`` that rename suit ``s`` to
    ``perm[s]``: ``obs[..., obs_src]`` and ``values[..., action_src]`` then
    describe the renamed position, which has the same values (the rules
    treat suits alike; which one is trumps is part of the observation).
    Fitting on randomly renamed rows gives 24 times the data for free."""
    obs_src, act_src = np.arange(OBS_SIZE), np.arange(N_ACTIONS)
    for s in range(N_SUITS):
        for r in range(len(RANK_NAMES)):
            old, new = make_card(s, r), make_card(perm[s], r)
            for o in (*CARD_PLANES, LEGAL):
                obs_src[o + new] = o + old
            act_src[new] = old
        for o in SUIT_FIELDS:
            obs_src[o + perm[s]] = o + s
        obs_src[LEGAL + MARRIAGE + perm[s]] = LEGAL + MARRIAGE + s
        act_src[MARRIAGE + perm[s]] = MARRIAGE + s
    return obs_src, act_src


def is_endgame_row(v: PlayerView) -> bool:
    """A decision the solver labels exactly and the policy really makes:
    talon spent, not an obvious move (those are played by rule)."""
    return is_endgame_view(v) and obvious_action(v) is None


def is_closed_row(v: PlayerView) -> bool:
    """A closed-talon decision the policy really makes: not an obvious move
    (a single legal move is one)."""
    return is_closed_view(v) and obvious_action(v) is None


def row_values(s: State, v: PlayerView, phase: str, worlds: int, solver: Solver,
               rng: random.Random) -> np.ndarray:
    """The label of one row: the solver's value of every legal action (0
    elsewhere), in the true state (``"spent"``: the view fixes it) or
    averaged over ``worlds`` worlds sampled from the view (``"closed"``)."""
    row = np.zeros(N_ACTIONS, np.float32)
    if phase == "spent":
        for a, x in solver.action_values(s).items():
            row[a] = x
        return row
    for _ in range(worlds):
        for a, x in solver.action_values(sample_state(v, rng)).items():
            row[a] += x
        solver.clear()
    return row / worlds


def collect(ckpt_path: str, seed: int, deals: int, explore: float, lines: int = 1,
            phase: str = "spent", worlds: int = 16) -> dict[str, np.ndarray]:
    """Play ``deals`` deals with the checkpoint's policy; return the rows of ``phase``.

    The rest of each deal that reaches the phase is played out ``lines``
    times from the moment the talon is spent (or closed) (the moves are
    sampled, so the lines differ): a row then costs a few policy moves
    instead of a deal.
    """
    is_row = is_endgame_row if phase == "spent" else is_closed_row
    ckpt = load_checkpoint(ckpt_path)
    agent = PPOAgent(policy_from_checkpoint(ckpt, ckpt_path), greedy=False, seed=seed,
                     assist="rules")
    rng = random.Random(seed)
    solver = Solver()
    obs: list[np.ndarray] = []
    legal_bits: list[int] = []
    values: list[np.ndarray] = []
    for _ in range(deals):
        scores = (rng.randrange(MATCH_TARGET), rng.randrange(MATCH_TARGET))
        s = deal(rng.randrange(1 << 62), match_scores=scores)
        root: State | None = None
        line = 1
        while True:
            if s.window == OVER:
                if root is None or line >= lines:
                    break
                s, line = root.clone(), line + 1
            if root is None and (s.stock == 0 if phase == "spent" else s.closed_by >= 0):
                root = s.clone()
            v = view(s, s.to_act)
            legal = v.legal_mask
            if is_row(v):
                values.append(row_values(s, v, phase, worlds, solver, rng))
                obs.append(encode(v))
                legal_bits.append(legal)
            if legal & (legal - 1) and rng.random() < explore:
                a = rng.choice([a for a in range(N_ACTIONS) if legal >> a & 1])
            else:
                a = agent.act(v)
            s.apply_unchecked(a)
        solver.clear()
    n = len(obs)
    return {
        "obs": np.stack(obs) if n else np.zeros((0, OBS_SIZE), np.float32),
        "legal": (np.array(legal_bits, np.int64).reshape(n, 1) >> np.arange(N_ACTIONS) & 1).astype(bool),
        "values": np.stack(values) if n else np.zeros((0, N_ACTIONS), np.float32),
    }


def masked_log_softmax(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the policy restricted to the legal actions."""
    return torch.log_softmax(masked_logits(logits, legal), dim=1)


def endgame_loss(logits: torch.Tensor, values: torch.Tensor, legal: torch.Tensor,
                 tau: float) -> torch.Tensor:
    """Cross-entropy against ``softmax(values / tau)`` over the legal actions."""
    target = torch.softmax(masked_logits(values / tau, legal), dim=1)
    logp = masked_log_softmax(logits, legal)
    return -(target * logp.masked_fill(~legal, 0.0)).sum(1).mean()


@torch.no_grad()
def endgame_quality(net: torch.nn.Module, obs: torch.Tensor, legal: torch.Tensor,
                    values: torch.Tensor) -> tuple[float, float]:
    """(share of greedy moves that are optimal, mean regret in game points)."""
    if len(obs) == 0:
        return float("nan"), float("nan")
    a = masked_logits(net(obs), legal).argmax(1)
    best = masked_logits(values, legal).max(1).values
    regret = best - values.gather(1, a[:, None])[:, 0]
    return float((regret == 0).float().mean()), float(regret.mean())


def gather(args: argparse.Namespace) -> dict[str, np.ndarray]:
    """Run :func:`collect` in ``args.workers`` processes, ``args.chunk`` deals a job."""
    from tqdm import tqdm

    n_jobs = -(-args.deals // args.chunk)
    jobs = [(args.checkpoint, args.seed * 1_000_003 + i, min(args.chunk, args.deals - i * args.chunk),
             args.explore, args.lines, args.phase, args.worlds) for i in range(n_jobs)]
    parts: list[dict[str, np.ndarray]] = []
    bar = tqdm(total=args.deals, unit="deal", desc="collect", disable=not args.progress)
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for part, job in zip(pool.map(collect, *zip(*jobs, strict=True)), jobs, strict=True):
            parts.append(part)
            bar.update(job[2])
    bar.close()
    return {k: np.concatenate([p[k] for p in parts]) for k in ROW_KEYS}


def load_rows(path: Path, phase: str = "spent") -> dict[str, np.ndarray]:
    """Rows saved by an earlier run (``--data``); a bad file, or one of the
    other phase, is a clear error (files without a phase are "spent")."""
    try:
        with np.load(path) as f:
            rows = {k: f[k] for k in ROW_KEYS}
            stored = str(f["phase"]) if "phase" in f.files else "spent"
    except Exception as e:  # missing keys, not an npz, truncated
        raise ValueError(f"--data {path} is not a file of endgame rows: {e}") from None
    if stored != phase:
        raise ValueError(f"--data {path} holds rows of --phase {stored}, not {phase}")
    n = len(rows["obs"])
    if rows["obs"].shape != (n, OBS_SIZE) or rows["legal"].shape != (n, N_ACTIONS) \
            or rows["values"].shape != (n, N_ACTIONS):
        raise ValueError(f"--data {path}: rows do not fit this version's observation size {OBS_SIZE}")
    return rows


def unique_rows(rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The rows with repeated observations dropped (the replayed lines of a
    deal start from the same position), first occurrences kept in order."""
    seen: set[bytes] = set()
    keep = []
    for i, x in enumerate(rows["obs"]):
        b = x.tobytes()
        if b not in seen:
            seen.add(b)
            keep.append(i)
    return {k: v[keep] for k, v in rows.items()}


def fit(net: torch.nn.Module, rows: dict[str, np.ndarray], args: argparse.Namespace,
        policy: torch.nn.Module | None = None) -> tuple[float, float]:
    """Minibatch Adam on :func:`endgame_loss`, learning rate decayed linearly to 0.

    The last twentieth of the rows (the last collect jobs: other deals than
    the rest) is held out; each training row is renamed by a random suit
    permutation (:func:`suit_permutation`) unless ``--no-augment``. Prints
    the held-out quality of ``policy`` (for comparison) and of ``net`` after
    each epoch; returns ``net``'s last (optimal share, regret).
    """
    from tqdm import tqdm

    g = torch.Generator().manual_seed(args.seed)
    rows = unique_rows(rows)
    data = [torch.as_tensor(rows[k]) for k in ROW_KEYS]
    n = len(data[0])
    n_test = max(1, n // 20)
    test = [t[n - n_test:] for t in data]
    train_rows = [t[:n - n_test] for t in data]
    perms = [suit_permutation(p) for p in permutations(range(N_SUITS))]
    obs_src = torch.as_tensor(np.stack([p[0] for p in perms]))
    act_src = torch.as_tensor(np.stack([p[1] for p in perms]))
    print(f"distinct rows: {n}, held out: {n_test}")
    if policy is not None:
        acc, reg = endgame_quality(policy, *test)
        print(f"held-out, the policy: optimal {acc:.1%}, regret {reg:.4f} pts/decision")
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    m = len(train_rows[0])
    per_epoch = max(1, m // args.batch)
    total = args.epochs * per_epoch
    bar = tqdm(total=total, unit="batch", desc="fit", disable=not args.progress)
    acc = reg = float("nan")
    for epoch in range(args.epochs):
        order = torch.randperm(m, generator=g)
        for i in range(per_epoch):
            for group in opt.param_groups:
                group["lr"] = args.lr * (1 - (epoch * per_epoch + i) / total)
            obs, legal, values = (t[order[i * args.batch:(i + 1) * args.batch]] for t in train_rows)
            if args.augment:
                k = torch.randint(len(perms), (len(obs),), generator=g)
                obs = obs.gather(1, obs_src[k])
                legal, values = legal.gather(1, act_src[k]), values.gather(1, act_src[k])
            loss = endgame_loss(net(obs), values, legal, args.tau)
            opt.zero_grad()
            loss.backward()
            opt.step()
            bar.update(1)
        acc, reg = endgame_quality(net, *test)
        bar.write(f"epoch {epoch + 1}: held-out optimal {acc:.1%}, regret {reg:.4f} pts/decision")
    bar.close()
    return acc, reg


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", help="a train.py checkpoint (last.pt, best.pt or a policy file)")
    p.add_argument("out", help="where to write the checkpoint with its endgame network")
    p.add_argument("--deals", type=int, default=60_000, help="deals to play for rows (default 60000)")
    p.add_argument("--phase", choices=tuple(PHASE_KEYS), default="spent",
                   help="the network to make: 'spent' (talon spent, the default) or "
                        "'closed' (talon closed with cards left in it)")
    p.add_argument("--worlds", type=int, default=16,
                   help="worlds sampled from the view to label a closed-talon row (default 16)")
    p.add_argument("--lines", type=int, default=6, help="endgame lines played per deal (default 6)")
    p.add_argument("--explore", type=float, default=0.1, help="share of random moves (default 0.1)")
    p.add_argument("--chunk", type=int, default=1000, help="deals per collect job (default 1000)")
    p.add_argument("--data", type=Path, nargs="+", default=[],
                   help="row files (.npz): read and joined if they all exist; "
                        "one missing file is collected and written")
    p.add_argument("--hidden", type=int, nargs="+", default=[512, 512, 256],
                   help="hidden layer sizes of the endgame network (default 512 512 256)")
    p.add_argument("--endgame-from", type=Path, metavar="CKPT",
                   help="copy CKPT's endgame network instead of collecting and fitting one "
                        "(it depends on no policy: a newer policy can reuse it)")
    p.add_argument("--half", action="store_true",
                   help="store all networks in float16: half the file size, play all but unchanged")
    p.add_argument("--no-augment", dest="augment", action="store_false",
                   help="do not rename suits at random while fitting")
    p.add_argument("--tau", type=float, default=0.25, help="target temperature in game points")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--workers", type=int, default=2, help="collect processes (default 2)")
    p.add_argument("--threads", type=int, default=2, help="torch threads for the fit")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-progress", dest="progress", action="store_false")
    a = p.parse_args(argv)
    for name in ("deals", "lines", "worlds", "chunk", "epochs", "batch", "workers", "threads"):
        if getattr(a, name) < 1:
            p.error(f"--{name} must be at least 1, got {getattr(a, name)}")
    if any(h < 1 for h in a.hidden):
        p.error(f"--hidden sizes must be at least 1, got {a.hidden}")
    if not 0.0 <= a.explore <= 1.0:
        p.error(f"--explore must be in [0, 1], got {a.explore}")
    if a.tau <= 0 or a.lr <= 0:
        p.error(f"--tau and --lr must be positive, got {a.tau} and {a.lr}")
    return a


def fit_new(args: argparse.Namespace, rows: dict[str, np.ndarray] | None,
            policy: torch.nn.Module) -> EndgameNet | None:
    """Collect rows (unless given) and fit a new endgame network; None (after
    an error message) when there are too few rows."""
    if rows is None:
        rows = gather(args)
        if args.data:
            args.data[0].parent.mkdir(parents=True, exist_ok=True)
            tmp = args.data[0].with_name(args.data[0].name + ".tmp.npz")
            np.savez(tmp, phase=np.array(args.phase), **rows)
            tmp.replace(args.data[0])
    print(f"rows: {len(rows['obs'])}" + "".join(f" {f}" for f in args.data))
    if len(rows["obs"]) < 2:
        print("error: too few endgame rows to fit; play more --deals", file=sys.stderr)
        return None
    net = EndgameNet(args.hidden)
    fit(net, rows, args, policy=policy)
    return net


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        ckpt = load_checkpoint(args.checkpoint)
        policy = policy_from_checkpoint(ckpt, args.checkpoint)
        missing = [f for f in args.data if not f.exists()]
        if missing and len(args.data) > 1:
            raise ValueError(f"--data: {', '.join(map(str, missing))} missing; only a single "
                             "new file is collected")
        rows = None
        if args.data and not missing:
            parts = [load_rows(f, args.phase) for f in args.data]
            rows = {k: np.concatenate([p[k] for p in parts]) for k in ROW_KEYS}
        net = None
        key = PHASE_KEYS[args.phase]
        source_record = None  # how a copied network was made
        if args.endgame_from is not None:
            source = load_checkpoint(args.endgame_from)
            source_record = source.get(PHASE_RECORDS[args.phase])
            net = endgame_from_checkpoint(source, args.endgame_from, args.phase)
            if net is None:
                raise ValueError(f"--endgame-from {args.endgame_from} has no {key} network")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    if net is not None:
        print(f"{key} network {list(net.hidden)} copied from {args.endgame_from}")
    else:
        net = fit_new(args, rows, policy)
        if net is None:
            return 2
    out: dict[str, Any] = {k: v for k, v in ckpt.items() if k not in (*RESUME_ONLY, key)}
    out[key] = endgame_entry(net)  # the other phase's network, if any, is kept
    record = {k: v for k, v in vars(args).items() if k != "progress"}
    record["data"] = [str(f) for f in args.data]
    record["endgame_from"] = None if args.endgame_from is None else str(args.endgame_from)
    if source_record is not None:
        record["source_record"] = source_record
    out[PHASE_RECORDS[args.phase]] = record
    if args.half:
        out = half_precision(out)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_atomic(out, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
