"""training.distill --labels guided: closed-talon rows labelled by the guided search (worlds weighted
by the checkpoint's own policy), the search following each deal from its start; the row files say
how they were labelled, and bad combinations are one-line errors."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.core.checkpoint import DEFAULT_CHECKPOINT, load, policy_from
from agents.core.guide_net import load_guide
from agents.guided import GuidedAgent
from agents.neural import PPOAgent
from agents.play import play_deal
from sixtysix_env.actions import CLOSE
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.knowledge import PlayerView
from training import distill as de

ROOT = Path(__file__).resolve().parents[2]


class CloseAtOnce:
    """The shipped policy, but it closes the talon whenever it may: many closed-talon rows."""

    def __init__(self, seed: int) -> None:
        self.policy = PPOAgent(policy_from(load(DEFAULT_CHECKPOINT)), seed=seed, greedy=False, assist="rules")

    def act(self, v: PlayerView) -> int:
        return CLOSE if v.legal_mask >> CLOSE & 1 else self.policy.act(v)


def test_each_closed_row_is_the_search_value_of_a_bot_that_saw_every_view_of_its_seat() -> None:
    guide = load_guide()
    rows = de._Rows("closed", 4, 0.0, random.Random(3), guide)
    seen: list[tuple[State, PlayerView] | None] = []  # None: a new deal
    seeds: list[int | None] = []  # what new_deal reseeds the two searches with
    assert rows.guides is not None
    for g in rows.guides:
        g.reset = lambda seed=None, reset=g.reset: (seeds.append(seed), reset(seed))[1]  # type: ignore[method-assign]

    def hook(s: State, v: PlayerView) -> int | None:
        seen.append((s.clone(), v))
        return rows(s, v)

    rng = random.Random(7)
    for _ in range(4):
        rows.new_deal()
        seen.append(None)
        play_deal(deal(rng.randrange(1 << 62)), (CloseAtOnce(1), CloseAtOnce(2)), hook)
    labels = rows.arrays()
    assert len(labels["obs"]) >= 4
    # by hand: one guided bot per seat, seeded as new_deal seeds them, shown every view of its seat
    assert len(seeds) == 8 and len(set(seeds)) == 8
    reseed = iter(seeds)
    bots = [GuidedAgent(net=guide, worlds=4), GuidedAgent(net=guide, worlds=4)]
    expected, closed = [], []
    for item in seen:
        if item is None:
            for b in bots:
                b.reset(next(reseed))
            continue
        s, v = item
        if de.is_phase_row(v, "closed"):
            bots[v.player].act(v)
            result = bots[v.player].last_result
            assert result is not None
            expected.append(result.action_values)
            closed.append(item)
        else:
            bots[v.player].search.observe(v)
    assert np.allclose(labels["values"], np.stack(expected))
    legal = labels["legal"]
    assert (labels["values"][~legal] == 0).all() and (np.abs(labels["values"]) <= 3).all()
    assert (labels["obs"][:, 304] > 0).all()  # cards left in the talon: closed, not spent
    # the worlds are weighed: the same positions labelled on uniform worlds differ somewhere
    uniform = [de.row_values(s, v, "closed", 4, rows.solver, random.Random(1)) for s, v in closed]
    assert not np.allclose(labels["values"], np.stack(uniform))


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.distill", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("argv", [["--labels", "guided"], ["--labels", "guided", "--phase", "closed"],
                                  ["--labels", "guided", "--phase", "spent", "--lines", "1"]])
def test_guided_labels_need_the_closed_phase_and_one_line(argv: list[str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        de.parse(["in.pt", "out.pt", *argv])
    assert "--labels guided is for --phase closed with --lines 1" in capsys.readouterr().err


@pytest.mark.slow
def test_a_guided_run_keeps_its_labels_with_its_rows(tmp_path: Path) -> None:
    out, data = tmp_path / "closed.pt", tmp_path / "rows.npz"
    small = ["--phase", "closed", "--lines", "1", "--worlds", "2", "--deals", "30", "--chunk", "15",
             "--epochs", "1", "--workers", "1", "--hidden", "32", "--no-progress"]
    r = run(str(DEFAULT_CHECKPOINT), str(out), *small, "--labels", "guided", "--data", str(data))
    assert r.returncode == 0, r.stderr
    assert str(np.load(data)["labels"]) == "guided" and load(out)["distill_closed"]["labels"] == "guided"
    r = run(str(DEFAULT_CHECKPOINT), str(out), *small, "--data", str(data))  # fitted as uniform: refused
    assert r.returncode == 2 and "holds rows of --labels guided, not uniform" in r.stderr
    r = run(str(DEFAULT_CHECKPOINT), str(out), *small, "--labels", "guided", "--data", str(data))
    assert r.returncode == 0 and f"rows: {len(np.load(data)['obs'])} {data}" in r.stdout, r.stderr
    blind = tmp_path / "blind.pt"  # no critic: no guide, one line before anything is played
    torch.save({k: v for k, v in load(DEFAULT_CHECKPOINT).items() if k != "critic"}, blind)
    r = run(str(blind), str(out), *small, "--labels", "guided", "--data", str(tmp_path / "new.npz"))
    assert r.returncode == 2 and "has no critic" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "new.npz").exists()
