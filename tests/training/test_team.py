"""Team self-play end to end (training.team): ``train.py`` hands ``players: 4`` configs over; a
tiny run warm-starts, trains, checkpoints, evaluates and resumes; its checkpoint plays as the
four-player bot ``net:PATH``; hostile checkpoints and configs are one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.core.checkpoint import DEFAULT_CHECKPOINT, CheckpointError
from agents.core.nets import PolicyNet, ValueNet
from agents.four import describe_four_agents, make_four_agent
from agents.four.net import CRITIC4_SIZE, load_team
from sixtysix_env.aec_four import OBS4_SIZE
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import view_four
from training.config import config_from_dict
from training.team import ship
from training.team.config import TeamConfig, requested
from training.team.rollout import Collector, batch_of

ROOT = Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "team_smoke.yaml")


def test_train_resume_and_play(train, tmp_path: Path, capsys) -> None:
    assert train.main(["--config", SMOKE, f"run_dir={tmp_path}"]) == 0
    last = tmp_path / "team-smoke" / "last.pt"
    ckpt = load_team(last, resumable=True)
    assert (ckpt["update"], ckpt["global_step"], ckpt["warm_done"]) == (2, 8, True)
    assert len(ckpt["snapshots"]) == 2 and (tmp_path / "team-smoke" / "warm.npz").is_file()
    out = capsys.readouterr().out
    assert "vs heuristic: " in out and "95% CI" in out
    assert train.main(["--resume", "name=team-smoke", f"run_dir={tmp_path}", "updates=3"]) == 0
    assert load_team(last)["update"] == 3
    shipped = tmp_path / "team.pt"
    assert ship.main([str(last), str(shipped)]) == 0
    assert set(load_team(shipped)) == {*ship.KEEP} and "critic" not in load_team(shipped)
    bots = [make_four_agent(spec, seat) for seat, spec in enumerate([f"net:{shipped}", "heuristic"] * 2)]
    s = deal_four(5, dealer=1)
    while not s.is_over:
        s.apply(bots[s.to_act].act(view_four(s, s.to_act)))  # the network's moves are legal
    assert s.result is not None
    assert "net:PATH" in describe_four_agents()
    warm = tmp_path / "team-smoke" / "warm.npz"  # a new run on these positions plays no teacher deals
    assert train.main(["--config", SMOKE, f"run_dir={tmp_path}", "name=again", f"warm_data={warm}",
                       "updates=1", "eval_deals=0"]) == 0
    assert load_team(tmp_path / "again" / "last.pt")["warm_done"] is True


def test_rewards_are_team_game_points() -> None:
    cfg = config_from_dict({"deals_per_update": 6, "hidden": [8], "critic_hidden": [8], "opp_self": 1.0,
                            "opp_snapshot": 0.0, "opp_bot": 0.0, "match_scores": True}, schema=TeamConfig)
    torch.manual_seed(0)
    policy, critic = PolicyNet(OBS4_SIZE, [8]), ValueNet(CRITIC4_SIZE, [8])
    c = Collector(cfg, 0, np.random.default_rng(0))
    while c.step(policy, critic, policy):
        pass
    assert len(c.trajs) == 24  # every seat of every self-play deal learns
    assert any(s.match_scores != [0, 0] for s in c.states)  # dealt at match scores 0..6
    for i, s in enumerate(c.states):
        totals = [sum(c.rows["reward"][r] for r in c.trajs[(i, seat)]) for seat in range(4)]
        assert totals[0] == totals[2] == -totals[1] == -totals[3]  # partners share, teams zero-sum
        assert s.result is not None
        assert abs(totals[0]) == (s.result.game_points if s.result.winner is not None else 0)
    b = batch_of(c, 1.0, 1.0)
    assert len(b.actions) == len(c.rows["action"]) and torch.isfinite(b.advantages).all()


def test_hostile_checkpoints_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="two-player checkpoint"):
        make_four_agent(f"net:{DEFAULT_CHECKPOINT}")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a zip")
    for spec in (f"net:{junk}", f"net:{tmp_path / 'missing.pt'}", f"net:{tmp_path}"):
        with pytest.raises(CheckpointError) as e:
            make_four_agent(spec)
        assert "\n" not in str(e.value)


def test_bad_team_configs(train, tmp_path: Path, capsys) -> None:
    junk = tmp_path.parent / "junk.npz"
    junk.write_bytes(b"PK not an npz")
    for bad in ("players=2", "warm_teacher=net:x.pt", "opp_bot_spec=pimc", "deals_per_update=0",
                f"warm_data={junk}", f"warm_data={tmp_path.parent / 'missing.npz'}"):
        assert train.main(["--config", SMOKE, f"run_dir={tmp_path}", bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err
    assert not any(tmp_path.iterdir())
    assert requested(["--config", SMOKE], ROOT / "configs" / "default.yaml")
    assert not requested([], ROOT / "configs" / "default.yaml")
