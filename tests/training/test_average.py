"""training.average: the mean of several policies' weights, as a playable checkpoint."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.core.checkpoint import DEFAULT_CHECKPOINT, load, phase_entry
from agents.core.nets import PhaseNet
from agents.neural import load_ppo_agent
from sixtysix_env.deals import deal
from sixtysix_env.engine import OVER
from sixtysix_env.knowledge import view
from training import average as ap

ROOT = Path(__file__).resolve().parents[2]


def test_mean_of_state_dicts_by_hand() -> None:
    a = {"w": torch.tensor([[1.0, 2.0]]), "b": torch.tensor([0.0])}
    b = {"w": torch.tensor([[3.0, 6.0]]), "b": torch.tensor([1.0])}
    c = {"w": torch.tensor([[2.0, 1.0]]), "b": torch.tensor([-4.0])}
    got = ap.average_state_dicts([a, b, c], ["a", "b", "c"])
    assert torch.equal(got["w"], torch.tensor([[2.0, 3.0]])) and torch.equal(got["b"], torch.tensor([-1.0]))


@pytest.mark.parametrize("other, message", [
    ({"w": torch.zeros(1, 2)}, "b.pt has other layers than a.pt: ['b']"),
    ({"w": torch.zeros(2, 2), "b": torch.zeros(1)}, "b.pt: w has shape (2, 2), a.pt has (1, 2)"),
])
def test_mismatched_networks_are_named(other: dict[str, torch.Tensor], message: str) -> None:
    a = {"w": torch.zeros(1, 2), "b": torch.zeros(1)}
    with pytest.raises(ValueError) as e:
        ap.average_state_dicts([a, other], ["a.pt", "b.pt"])
    assert str(e.value) == message


def shifted(tmp_path: Path, name: str, delta: float, endgame: bool = True) -> Path:
    """The shipped checkpoint with every policy weight moved by ``delta``."""
    ckpt = load(DEFAULT_CHECKPOINT)
    ckpt["policy"] = {k: v.float() + delta for k, v in ckpt["policy"].items()}
    ckpt["optimizer"] = {"state": {}, "param_groups": []}
    if not endgame:
        for key in ("endgame", "distill_endgame", "closed", "distill_closed"):
            ckpt.pop(key, None)
    path = tmp_path / name
    torch.save(ckpt, path)
    return path


def test_average_undoes_opposite_shifts_and_keeps_the_endgame_network(tmp_path: Path) -> None:
    up, down = shifted(tmp_path, "up.pt", 0.25), shifted(tmp_path, "down.pt", -0.25)
    ship = load(DEFAULT_CHECKPOINT)
    out = ap.average_checkpoints([up, down])
    for k, v in ship["policy"].items():
        assert torch.allclose(out["policy"][k], v.float(), atol=1e-6)
    assert all(torch.equal(out["endgame"]["state"][k], v.float())
               for k, v in ship["endgame"]["state"].items())
    assert "optimizer" not in out and out["distill_endgame"] == ship["distill_endgame"]
    assert out["average_policies"]["inputs"] == [str(up), str(down)]
    bare = shifted(tmp_path, "bare.pt", 0.0, endgame=False)
    no_eg = ap.average_checkpoints([bare, up])
    assert "endgame" not in no_eg and "distill_endgame" not in no_eg
    assert no_eg["average_policies"]["endgame_from"] is None
    with_eg = ap.average_checkpoints([bare, up], endgame_from=down)
    assert with_eg["average_policies"]["endgame_from"] == str(down) and "endgame" in with_eg


def test_the_closed_talon_network_comes_with_the_endgame_network(tmp_path: Path) -> None:
    bare, up = shifted(tmp_path, "bare.pt", 0.0, endgame=False), shifted(tmp_path, "up.pt", 0.25)
    source = load(up)
    torch.manual_seed(0)
    source["closed"] = phase_entry(PhaseNet((8,)))
    source["distill_closed"] = {"phase": "closed", "worlds": 16}
    with_closed = tmp_path / "closed.pt"
    torch.save(source, with_closed)
    out = ap.average_checkpoints([bare, up], endgame_from=with_closed)
    assert all(torch.equal(out["closed"]["state"][k], v) for k, v in source["closed"]["state"].items())
    assert out["distill_closed"] == source["distill_closed"] and "endgame" in out
    assert "closed" not in ap.average_checkpoints([bare, up])  # bare has neither network


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.average", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_cli_writes_a_playable_checkpoint_and_rejects_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "avg.pt"
    r = run(str(out), str(DEFAULT_CHECKPOINT), str(DEFAULT_CHECKPOINT))
    assert r.returncode == 0, r.stderr
    assert "averaged 2 policies" in r.stdout and f"wrote {out}" in r.stdout
    same, ship = load_ppo_agent(out, assist="rules"), load_ppo_agent(None, assist="rules")
    s = deal(3)
    while s.window != OVER:  # the mean of a policy with itself plays exactly like it
        v = view(s, s.to_act)
        assert np.array_equal(same.logits(v), ship.logits(v))
        a = ship.act(v)
        assert same.act(v) == a
        s.apply(a)

    bare = shifted(tmp_path, "bare.pt", 0.0, endgame=False)
    cases = [
        ((str(out), str(DEFAULT_CHECKPOINT)), "at least two checkpoints"),
        ((str(out), str(out), str(DEFAULT_CHECKPOINT)), "is also an input"),
        ((str(tmp_path / "x.pt"), str(DEFAULT_CHECKPOINT), str(tmp_path / "nope.pt")),
         "nope.pt does not exist"),
        ((str(tmp_path / "x.pt"), str(DEFAULT_CHECKPOINT), str(bare), "--endgame-from", str(bare)),
         "has no endgame network"),
    ]
    for args, message in cases:
        r = run(*args)
        assert r.returncode == 2 and message in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
    assert not (tmp_path / "x.pt").exists()


def test_a_full_disk_is_one_line_of_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    up, down = shifted(tmp_path, "up.pt", 0.25), shifted(tmp_path, "down.pt", -0.25)

    def full_disk(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    assert ap.main([str(tmp_path / "avg.pt"), str(up), str(down)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: cannot write checkpoint {tmp_path / 'avg.pt'}: No space left on device\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["down.pt", "up.pt"]
