"""Phase distillation: an exact-endgame (or closed-talon) network for a trained PPO policy.

Usage::

    python -m training.distill runs/rules24/last.pt runs/eg/ppo.pt           # defaults below
    python -m training.distill IN.pt OUT.pt --deals 100000 --data rows1.npz   # collect, keep rows
    python -m training.distill IN.pt OUT.pt --data rows1.npz rows2.npz --epochs 10   # fit only
    python -m training.distill NEWER.pt OUT.pt --endgame-from OLD_OUT.pt   # reuse a network
    python -m training.distill EG.pt OUT.pt --phase closed --worlds 16    # the closed-talon network

Why: once the talon is spent the view fixes every card, so the exact solver
(:mod:`agents.search.solver`) knows the value of every move. PPO with the
``pimc-values`` teacher (``train.py``, ``assist: rules``) sees those labels
too, but its one network also has to play the rest of the deal, and it
misses the best endgame move noticeably often (the numbers are in
``agents/checkpoints/README.md``). This tool trains a second network
(:class:`agents.core.nets.PhaseNet`) for that phase alone, and leaves the policy
as it is:

1. **Collect** (``--workers`` processes): deals played by the policy itself
   (sampled, plus ``--explore`` uniformly random moves so the positions are
   not only the policy's favourites), at random match scores; each endgame
   is played out ``--lines`` times from where the talon ran out. Every
   non-obvious decision with the talon spent (lead, follow, final) is a row,
   labelled with the solver's value of every legal action. ``--data FILE``
   keeps the rows (``.npz``); given files that exist, the rows are read
   (several files are joined) and nothing is played.
2. **Fit** the network by minibatch Adam: cross-entropy of its masked policy
   against ``softmax(values / --tau)``, so the best move gets almost all the
   mass. Repeated positions are dropped; every training row is renamed by a
   random permutation of the four suits, which changes nothing in the rules
   (24 times the data, :func:`sixtysix_env.observation.suit_permutation`).
   The rows of the last collect jobs (a twentieth, other deals) are held
   out; the held-out share of optimal moves and the regret (game points lost
   per decision) of the policy and of the new network are printed.
3. **Write** the input checkpoint, optimizer and snapshot pool left out, with
   the network added under ``"endgame"``, atomically.

The result plays as ``ppo:OUT.pt,assist=rules``: still one forward pass per
decision, no search at play time.

``--phase closed`` does the same for the positions after a close while the
talon still holds cards (:func:`agents.core.rules.is_closed_view`), where the
policy plays worse than ``pimc``. No world is certain there, so a row's
label is the solver's value of every move averaged over ``--worlds`` worlds
sampled from the player's view: PIMC's values, which a network can learn
once instead of searching at every decision. The lines are replayed from
the close, and the network is written under ``"closed"``, next to the
input's endgame network. With ``--labels guided`` the worlds are weighted as
the ``guided`` search weighs them (:mod:`agents.search.beliefs`: by how
likely the opponent's moves were under the checkpoint's own policy), and a
row's label is that search's value of every move: the labels then come from
the network's own search, as in expert iteration, not from PIMC's uniform
worlds. It needs a checkpoint with a full-state critic and ``--lines 1``
(the search follows the deal from its start).
"""

from __future__ import annotations

import argparse
import random
import sys
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents.core import checkpoint
from agents.core.guide_net import GuideNet, load_guide
from agents.core.nets import PhaseNet, masked_log_softmax, masked_logits
from agents.core.rules import is_closed_view, is_endgame_view, obvious_action
from agents.guided import GuidedAgent
from agents.neural import PPOAgent
from agents.play import play_deal
from agents.search.solver import Solver
from sixtysix_env.actions import N_ACTIONS, actions_of
from sixtysix_env.cards import N_SUITS
from sixtysix_env.deals import deal
from sixtysix_env.engine import MATCH_TARGET, State
from sixtysix_env.knowledge import PlayerView, sample_state
from sixtysix_env.observation import OBS_SIZE, encode, mask_to_array, suit_permutation
from sixtysix_env.seeding import derive_seed

from . import distill_args, workers
from .phase_rows import ROW_KEYS, join, load_rows, save_rows, unique_rows


def is_phase_row(v: PlayerView, phase: str) -> bool:
    """A decision of ``phase`` the policy really makes: talon spent (``"spent"``)
    or closed with cards left (``"closed"``), not an obvious move (those are
    played by rule; a single legal move is one)."""
    in_phase = is_endgame_view(v) if phase == "spent" else is_closed_view(v)
    return in_phase and obvious_action(v) is None


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


class _Rows:
    """The play hook of :func:`phase_positions`: records the rows of ``phase`` (and the
    state where the phase began, to replay lines from), and plays a random
    move instead of the policy's with chance ``explore``. With a ``guide``, a
    ``guided`` search per seat sees every view of its seat and labels its rows."""

    def __init__(self, phase: str, worlds: int, explore: float, rng: random.Random,
                 guide: GuideNet | None = None) -> None:
        self.phase, self.worlds, self.explore, self.rng = phase, worlds, explore, rng
        self.solver = Solver()
        self.obs: list[np.ndarray] = []
        self.legal: list[int] = []
        self.values: list[np.ndarray] = []
        self.root: State | None = None
        self.guides = None if guide is None else [GuidedAgent(net=guide, worlds=worlds) for _ in range(2)]

    def new_deal(self) -> None:
        self.root = None
        for g in self.guides or ():
            g.reset(self.rng.randrange(1 << 62))

    def __call__(self, s: State, v: PlayerView) -> int | None:
        if self.root is None and (s.stock == 0 if self.phase == "spent" else s.closed_by >= 0):
            self.root = s.clone()
        if is_phase_row(v, self.phase):
            self.values.append(self.guided_values(v) if self.guides is not None
                               else row_values(s, v, self.phase, self.worlds, self.solver, self.rng))
            self.obs.append(encode(v))
            self.legal.append(v.legal_mask)
        elif self.guides is not None:
            self.guides[v.player].search.observe(v)  # the beliefs follow the deal, as the bot's would
        legal = v.legal_mask
        if legal & (legal - 1) and self.rng.random() < self.explore:
            return self.rng.choice(actions_of(legal))
        return None  # the policy plays

    def guided_values(self, v: PlayerView) -> np.ndarray:
        """The ``guided`` search's value of every legal move (0 elsewhere), game points."""
        guide = self.guides[v.player]  # type: ignore[index]  # only called with guides
        guide.act(v)
        assert guide.last_result is not None
        return guide.last_result.action_values.astype(np.float32)

    def arrays(self) -> dict[str, np.ndarray]:
        n = len(self.obs)
        return {"obs": np.stack(self.obs) if n else np.zeros((0, OBS_SIZE), np.float32),
                "legal": mask_to_array(np.array(self.legal, np.int64)),
                "values": np.stack(self.values) if n else np.zeros((0, N_ACTIONS), np.float32)}


def phase_positions(ckpt_path: str, seed: int, deals: int, explore: float, lines: int = 1,
                    phase: str = "spent", worlds: int = 16, labels: str = "uniform") -> dict[str, np.ndarray]:
    """Play ``deals`` deals with the checkpoint's policy; return the rows of ``phase``.

    Not a PPO rollout (``training.rollout.collect`` is the one collector of
    those): positions of one phase, each labelled with the solver's values.

    The rest of each deal that reaches the phase is played out ``lines``
    times from the moment the talon is spent (or closed) (the moves are
    sampled, so the lines differ): a row then costs a few policy moves
    instead of a deal.
    """
    agent = PPOAgent(checkpoint.policy_from(checkpoint.load(ckpt_path), ckpt_path), greedy=False, seed=seed,
                     assist="rules")
    rng = random.Random(seed)
    rows = _Rows(phase, worlds, explore, rng, load_guide(ckpt_path) if labels == "guided" else None)
    for _ in range(deals):
        scores = (rng.randrange(MATCH_TARGET), rng.randrange(MATCH_TARGET))
        rows.new_deal()
        play_deal(deal(rng.randrange(1 << 62), match_scores=scores), (agent, agent), rows)
        for _line in range(lines - 1):
            if rows.root is None:
                break
            play_deal(rows.root.clone(), (agent, agent), rows)
        rows.solver.clear()
    return rows.arrays()


def phase_loss(logits: torch.Tensor, values: torch.Tensor, legal: torch.Tensor,
               tau: float) -> torch.Tensor:
    """Cross-entropy against ``softmax(values / tau)`` over the legal actions."""
    target = masked_log_softmax(values / tau, legal).exp()
    logp = masked_log_softmax(logits, legal)
    return -(target * logp.masked_fill(~legal, 0.0)).sum(1).mean()


@torch.no_grad()
def phase_quality(net: torch.nn.Module, obs: torch.Tensor, legal: torch.Tensor,
                  values: torch.Tensor) -> tuple[float, float]:
    """(share of greedy moves that are optimal, mean regret in game points)."""
    if len(obs) == 0:
        return float("nan"), float("nan")
    a = masked_logits(net(obs), legal).argmax(1)
    best = masked_logits(values, legal).max(1).values
    regret = best - values.gather(1, a[:, None])[:, 0]
    return float((regret == 0).float().mean()), float(regret.mean())


def gather(args: argparse.Namespace) -> dict[str, np.ndarray]:
    """Run :func:`phase_positions` in ``args.workers`` processes, ``args.chunk`` deals a job."""
    n_jobs = -(-args.deals // args.chunk)
    jobs = [(args.checkpoint, derive_seed(args.seed, "collect", i),
             min(args.chunk, args.deals - i * args.chunk), args.explore, args.lines, args.phase, args.worlds,
             args.labels)
            for i in range(n_jobs)]
    parts: list[dict[str, np.ndarray]] = []
    bar = tqdm(total=args.deals, unit="deal", desc="collect", disable=not args.progress)
    with workers.running(args.workers, fork=False) as pool:  # they run torch: fresh interpreters
        for part, job in zip(pool.map(phase_positions, *zip(*jobs, strict=True)), jobs, strict=True):
            parts.append(part)
            bar.update(job[2])
    bar.close()
    return join(parts)


def fit(net: torch.nn.Module, rows: dict[str, np.ndarray], args: argparse.Namespace,
        policy: torch.nn.Module | None = None) -> tuple[float, float]:
    """Minibatch Adam on :func:`phase_loss`, learning rate decayed linearly to 0.

    The last twentieth of the rows (the last collect jobs: other deals than
    the rest) is held out; each training row is renamed by a random suit
    permutation unless ``--no-augment``. Prints the held-out quality of
    ``policy`` (for comparison) and of ``net`` after each epoch; returns
    ``net``'s last (optimal share, regret).
    """
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
        acc, reg = phase_quality(policy, *test)
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
            loss = phase_loss(net(obs), values, legal, args.tau)
            opt.zero_grad()
            loss.backward()
            opt.step()
            bar.update(1)
        acc, reg = phase_quality(net, *test)
        bar.write(f"epoch {epoch + 1}: held-out optimal {acc:.1%}, regret {reg:.4f} pts/decision")
    bar.close()
    return acc, reg


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line, checked (:func:`training.distill_args.parse`)."""
    return distill_args.parse(argv, __doc__ or "")


def read_rows(args: argparse.Namespace) -> dict[str, np.ndarray] | None:
    """The rows of ``--data`` if every file exists, None when they are to be collected."""
    missing = [f for f in args.data if not f.exists()]
    if missing and len(args.data) > 1:
        raise ValueError(f"--data: {', '.join(map(str, missing))} missing; "
                         "only a single new file is collected")
    if not args.data or missing:
        return None
    return join([load_rows(f, args.phase, args.labels) for f in args.data])


def fit_new(args: argparse.Namespace, rows: dict[str, np.ndarray] | None,
            policy: torch.nn.Module) -> PhaseNet | None:
    """Collect rows (unless given) and fit a new network; None (after an error
    message) when there are too few rows."""
    if rows is None:
        rows = gather(args)
        if args.data:
            save_rows(rows, args.data[0], args.phase, args.labels)
    print(f"rows: {len(rows['obs'])}" + "".join(f" {f}" for f in args.data))
    if len(rows["obs"]) < 2:
        print("error: too few endgame rows to fit; play more --deals", file=sys.stderr)
        return None
    net = PhaseNet(args.hidden)
    fit(net, rows, args, policy=policy)
    return net


def record(args: argparse.Namespace, source: dict[str, Any] | None) -> dict[str, Any]:
    """How the network was made (stored next to it): the command's flags, and
    the record of the checkpoint a copied network came from."""
    out = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items() if k != "progress"}
    out["data"] = [str(f) for f in args.data]
    if source is not None:
        out["source_record"] = source
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    key = checkpoint.PHASE_KEYS[args.phase]
    source: dict[str, Any] | None = None
    net = None
    try:
        distill_args.check_paths(args)  # before an hour of collecting
        ckpt = checkpoint.load(args.checkpoint)
        policy = checkpoint.policy_from(ckpt, args.checkpoint)
        rows = read_rows(args)
        if rows is None and args.labels == "guided":
            GuideNet.from_checkpoint(ckpt, args.checkpoint)  # a critic that sees the full state, or one line
        if args.endgame_from is not None:
            source_ckpt = checkpoint.load(args.endgame_from)
            source = source_ckpt.get(checkpoint.PHASE_RECORDS[args.phase])
            net = checkpoint.phase_net_from(source_ckpt, args.endgame_from, args.phase)
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
    out = checkpoint.with_phase_net(checkpoint.playable(ckpt, key), args.phase, net, record(args, source))
    try:
        checkpoint.save_atomic(checkpoint.half_precision(out) if args.half else out, args.out)
    except (ValueError, OSError) as e:  # NaN weights, a full disk: one line
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
