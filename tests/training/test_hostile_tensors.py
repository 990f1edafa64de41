"""Checkpoints whose tensors no network can load: sparse, on the meta device, of integer, complex,
boolean or float8 dtypes where weights are floats. Every loader (``ppo:`` and ``guided:`` bot specs,
``train.py --resume``, ``python -m training.distill`` and its ``--endgame-from``) refuses them with
one :class:`CheckpointError` line that names the file and says what the tensor is, never a torch
traceback from the NaN check."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from agents import make_agent
from agents.core import checkpoint
from agents.core.checkpoint import CheckpointError, load
from agents.core.nets import PhaseNet, PolicyNet
from sixtysix_env.observation import OBS_SIZE
from training import distill

TENSORS: dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], str]] = {
    "meta": (lambda t: torch.empty(t.shape, device="meta"), "a tensor on the meta device, not the CPU"),
    "sparse": (lambda t: t.to_sparse(), "a sparse_coo tensor, not a dense one"),
    "int": (lambda t: t.to(torch.int64), "of dtype int64, not float16, bfloat16, float32 or float64"),
    "complex": (lambda t: t.to(torch.complex64), "of dtype complex64, not float16"),
    "bool": (lambda t: t.bool(), "of dtype bool, not float16"),
    "float8": (lambda t: t.to(torch.float8_e4m3fn), "of dtype float8_e4m3fn, not float16"),
}


def hostile(path: Path, kind: str, where: str = "policy") -> Path:
    """A checkpoint whose first weight of ``where`` (or an extra entry) is a tensor of ``kind``."""
    torch.manual_seed(0)
    ckpt = checkpoint.build({"hidden": [8]}, PolicyNet(OBS_SIZE, [8]))
    ckpt["endgame"] = checkpoint.phase_entry(PhaseNet([4]))
    make = TENSORS[kind][0]
    if where == "extra":
        ckpt["extra"] = {"x": make(torch.zeros(3))}
    else:
        state = ckpt["policy"] if where == "policy" else ckpt["endgame"]["state"]
        state["net.0.weight"] = make(state["net.0.weight"])
    with warnings.catch_warnings():  # torch's beta warnings on sparse tensors
        warnings.simplefilter("ignore")
        torch.save(ckpt, path)  # not save_atomic: a hostile file need not respect its checks
    return path


UNREADABLE = ("meta", "sparse", "float8")  # tensors the NaN check cannot read, wherever they are


@pytest.mark.parametrize("kind, where", [*((k, w) for k in TENSORS for w in ("policy", "endgame")),
                                         *((k, "extra") for k in UNREADABLE)])
def test_a_tensor_no_network_can_load_is_named(tmp_path: Path, kind: str, where: str) -> None:
    path = hostile(tmp_path / "bad.pt", kind, where)
    with pytest.raises(CheckpointError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(f"checkpoint {path}: ") and "\n" not in message
    assert TENSORS[kind][1] in message


def test_integer_tensors_outside_the_weights_are_data(tmp_path: Path) -> None:
    assert load(hostile(tmp_path / "ok.pt", "int", "extra"))["extra"]["x"].dtype == torch.int64


@pytest.mark.parametrize("kind", ["int", "complex"])
def test_a_weight_of_the_wrong_dtype_is_not_called_a_shape_mismatch(tmp_path: Path, kind: str) -> None:
    with pytest.raises(CheckpointError, match="policy weight 'net.0.weight' is of dtype") as info:
        load(hostile(tmp_path / "bad.pt", kind))
    assert "declared architecture" not in str(info.value)


@pytest.mark.parametrize("spec", ["ppo", "guided"])
@pytest.mark.parametrize("kind", ["meta", "sparse"])
def test_bot_specs_refuse_them(tmp_path: Path, spec: str, kind: str) -> None:
    path = hostile(tmp_path / "bad.pt", kind)
    with pytest.raises(CheckpointError, match=f"checkpoint {path}: policy weight"):
        make_agent(f"{spec}:{path}")


@pytest.mark.parametrize("kind", ["meta", "sparse", "int"])
def test_distill_refuses_them_as_input_and_as_endgame_source(tmp_path: Path, kind: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad, good, out = hostile(tmp_path / "bad.pt", kind), tmp_path / "good.pt", tmp_path / "out.pt"
    torch.manual_seed(0)
    checkpoint.save_atomic(checkpoint.build({"hidden": [8]}, PolicyNet(OBS_SIZE, [8])), good)
    for argv in ([str(bad), str(out)], [str(good), str(out), "--endgame-from", str(bad)]):
        assert distill.main([*argv, "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: checkpoint {bad}: ") and err.count("\n") == 1, err
        assert not out.exists()


@pytest.mark.parametrize("key", ["hidden", "rules"])
def test_a_config_value_nested_too_deeply_to_print_is_named(tmp_path: Path, key: str) -> None:
    """A hand-made pickle loads at any depth; printing the value in an error would recurse."""
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    ckpt = checkpoint.build({"hidden": [8], key: deep}, PolicyNet(OBS_SIZE, [8]))
    with pytest.raises(CheckpointError, match="deep.pt: entries nested too deeply"):
        checkpoint.validate(ckpt, tmp_path / "deep.pt")
