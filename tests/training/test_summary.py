"""What a finished run prints: a real ``sixtysix play`` command, and a curve with many points."""

from __future__ import annotations

import shlex
from pathlib import Path
from types import ModuleType

import pytest

from agents import make_agent
from sixtysix_cli import build_parser
from sixtysix_env.deals import deal
from sixtysix_env.knowledge import view
from training import curve

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"


def summary_line(out: str, label: str) -> list[str]:
    line = next(x for x in out.splitlines() if x.startswith(label))
    return shlex.split(line[len(label):].partition("#")[0])


@pytest.mark.parametrize("assist", ["full", "none"])
def test_the_summary_plays_and_draws_a_default_run(train: ModuleType, tmp_path: Path, assist: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "runs with space"
    args = ["--config", str(SMOKE), f"run_dir={run_dir}", "eval_every=0", "teacher_workers=0",
            "eval_heuristic_games=0", "opp_self=0", "opp_snapshot=0", "opp_random=1", "opp_heuristic=0",
            f"assist={assist}"]
    assert train.main(args) == 0
    out = capsys.readouterr().out

    words = summary_line(out, "play it:")
    assert words[:2] == ["sixtysix", "play"]
    play = build_parser().parse_args(words[1:])  # the sixtysix command line, as the shell splits it
    bot = make_agent(play.vs, seed=1)  # the trained checkpoint, with the assist it was trained with
    assert bot.assist == assist
    state = deal(1)
    assert view(state, state.to_act).legal_mask >> bot.act(view(state, state.to_act)) & 1

    words = summary_line(out, "curve:")
    assert words[:3] == ["python", "-m", "training.curve"]
    capsys.readouterr()
    assert curve.main(words[3:]) == 0
    table = capsys.readouterr().out
    assert "training tables vs random: 3 updates" in table  # evaluated once, yet a curve
    assert (run_dir / "smoke" / "learning_curve.png").stat().st_size > 10_000


def test_moving_average() -> None:
    assert curve.moving_average([1.0, 3.0, 5.0, 7.0], 2) == [1.0, 2.0, 4.0, 6.0]
