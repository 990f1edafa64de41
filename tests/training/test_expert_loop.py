"""Expert iteration end to end (training.expert.loop) with a stand-in for the guided search: an
iteration generates, trains and checkpoints; a resumed run goes on exactly as an uninterrupted
one; the checkpoint plays as ``ppo:<path>``; train.py hands ``algorithm: expert`` configs over."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from helpers import UniformPlayer

from agents import make_agent
from agents.core import checkpoint
from agents.play import play_deal
from sixtysix_env.deals import deal
from training.config import config_from_dict, read_yaml
from training.curve import read_evaluations
from training.expert import loop
from training.expert.config import ExpertConfig

ROOT = Path(__file__).resolve().parents[2]
TINY = {"deals": 2, "chunk": 1, "worlds": 1, "hidden": [16], "critic_hidden": [16], "batch_size": 8,
        "eval_every": 0, "eval_heuristic_games": 0, "eval_pimc_games": 0, "progress": False,
        "tensorboard": False}


def config(tmp_path: Path, **keys) -> ExpertConfig:
    return config_from_dict({**TINY, "run_dir": str(tmp_path), **keys}, schema=ExpertConfig)


def networks(path: Path) -> dict[str, torch.Tensor]:
    ckpt = checkpoint.load(path, resumable=True)
    out = {f"policy.{k}": v for k, v in ckpt["policy"].items()}
    out.update({f"critic.{k}": v for k, v in ckpt["critic"].items()})
    for i, state in ckpt["optimizer"]["state"].items():
        out.update({f"adam.{i}.{k}": v for k, v in state.items()})
    return out


def test_one_iteration_generates_trains_and_writes_a_playable_checkpoint(tmp_path):
    run = loop.train(config(tmp_path, iterations=1, eval_heuristic_games=2), player=UniformPlayer())
    last = tmp_path / "expert" / "last.pt"
    ckpt = checkpoint.load(last, resumable=True)
    assert ckpt["update"] == 1 and ckpt["global_step"] == 2 and run.iteration == 1
    assert ckpt["config"]["value_target"] == "deal" and ckpt["config"]["full_critic"] is True
    assert (tmp_path / "expert" / "samples" / "000001.npz").is_file()
    bot = make_agent(f"ppo:{last},assist=rules", seed=1)
    assert play_deal(deal(4), [bot, make_agent("random", seed=2)]).result is not None
    evals = read_evaluations(tmp_path / "expert" / "metrics.csv")  # what training.curve draws
    assert list(evals) == ["heuristic"] and evals["heuristic"][0]["step"] == 2
    saved = read_yaml(tmp_path / "expert" / "config.yaml")  # the run's config is a config file again
    assert config_from_dict(saved, schema=ExpertConfig) == run.cfg


def test_a_resumed_run_goes_on_exactly_as_an_uninterrupted_one(tmp_path):
    loop.train(config(tmp_path / "a", iterations=3, replay=2), player=UniformPlayer())
    loop.train(config(tmp_path / "b", iterations=2, replay=2), player=UniformPlayer())
    resumed = loop.train(config(tmp_path / "b", iterations=2, replay=2), resume=True,
                         overrides={"iterations": 3}, player=UniformPlayer())
    assert resumed.iteration == 3
    a, b = networks(tmp_path / "a" / "expert" / "last.pt"), networks(tmp_path / "b" / "expert" / "last.pt")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert sorted(p.name for p in (tmp_path / "b" / "expert" / "samples").iterdir()) == ["000002.npz",
                                                                                       "000003.npz"]


class InterruptedPlayer(UniformPlayer):
    """Ctrl-C in the middle of the second iteration's self-play."""

    def make(self, net, seed, settings):
        searcher = super().make(net, seed, settings)
        act = searcher.act

        def interrupted(v):
            if len(self.players) > 30:
                raise KeyboardInterrupt
            return act(v)

        searcher.act = interrupted
        return searcher


def test_an_interrupted_iteration_is_played_again_on_resume_and_nothing_is_lost(tmp_path):
    loop.train(config(tmp_path / "a", iterations=2), player=UniformPlayer())
    with pytest.raises(KeyboardInterrupt):
        loop.train(config(tmp_path / "b", iterations=2), player=InterruptedPlayer())
    assert checkpoint.load(tmp_path / "b" / "expert" / "last.pt", resumable=True)["update"] == 1
    loop.train(config(tmp_path / "b", iterations=2), resume=True, player=UniformPlayer())
    a, b = networks(tmp_path / "a" / "expert" / "last.pt"), networks(tmp_path / "b" / "expert" / "last.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    rows = (tmp_path / "b" / "expert" / "metrics.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:] if ",charts/samples," in r] == ["2", "4"]


def test_resume_names_a_missing_sample_file_and_refuses_new_networks(tmp_path):
    loop.train(config(tmp_path, iterations=1), player=UniformPlayer())
    with pytest.raises(loop.ConfigError, match="hidden"):
        loop.train(config(tmp_path, iterations=2), resume=True, overrides={"hidden": [8]},
                   player=UniformPlayer())
    (tmp_path / "expert" / "samples" / "000001.npz").unlink()
    with pytest.raises(loop.ConfigError, match="000001.npz"):
        loop.train(config(tmp_path, iterations=2), resume=True, player=UniformPlayer())
    with pytest.raises(loop.ConfigError, match=r"already holds a run.*--resume name=expert run_dir=.*add "
                                                r"iterations=N to go further"):
        loop.train(config(tmp_path, iterations=2), player=UniformPlayer())


def test_train_py_hands_expert_configs_to_the_expert_loop(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("algorithm: expert\ndeals: 2\nwolds: 3\n")
    out = subprocess.run([sys.executable, "train.py", "--config", str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and "unknown config key 'wolds'" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "train.py", "--config", "configs/expert.yaml", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "--sample-moves" in out.stdout and "--num-envs" not in out.stdout
