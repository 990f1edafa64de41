"""One options dataclass for the API and the CLI, one place for its checks, pluggable backends."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.arena import ArenaOptions, OptionError, head_to_head, run
from agents.arena.records import as_played
from agents.arena.runner import InProcess, Setup, play_missing
from agents.arena.schedule import schedule
from agents.arena.sprt import SequentialStop, SprtSettings
from sixtysix_cli.main import FLAGS, build_parser


@pytest.mark.parametrize(
    "fields, api, cli",
    [
        (dict(games=0), "games must be at least 1, got 0", "--games must be at least 1"),
        (dict(games=2.0), "games must be an int", "--games must be an int"),
        (dict(games=2, workers=True), "workers must be an int", "--workers must be an int"),
        (dict(games=2, unit="set"), "unit must be one of", "--unit must be one of"),
        (dict(games=2, move_time=0), "move_time must be positive", "--move-time must be positive"),
        (dict(games=2, seed=1.5), "seed must be an int", "--seed must be an int"),
        (dict(games=2, resume=True), "resume needs results_path", "--resume needs --results PATH"),
        (dict(games=2, sprt_beta=0.1), "sprt_alpha and sprt_beta need sprt=(elo0, elo1)",
         "--sprt-alpha and --sprt-beta need --sprt ELO0,ELO1"),
    ],
)
def test_bad_options_name_the_keyword_or_the_flag(fields, api, cli):
    with pytest.raises(OptionError) as e:
        ArenaOptions(**fields)
    assert str(e.value).startswith(api) and e.value.spelled(FLAGS).startswith(cli)


def test_keywords_and_options_are_the_same_run():
    opts = ArenaOptions(games=4, seed=2, unit="deal")
    assert head_to_head("heuristic", "random", options=opts) == head_to_head(
        "heuristic", "random", games=4, seed=2, unit="deal")
    # keywords replace fields of the given options (and are checked again)
    a = run(["random", "random"], options=opts, seed=3)
    b = run(["random", "random"], games=4, seed=3, unit="deal")
    assert a[:2] == b[:2] and [as_played(g) for g in a[2]] == [as_played(g) for g in b[2]]
    with pytest.raises(OptionError, match="games"):
        run(["random", "random"], options=opts, games=0)
    with pytest.raises(TypeError):
        run(["random", "random"], games=2, gmaes=3)
    with pytest.raises(TypeError, match="ArenaOptions"):
        run(["random", "random"], options={"games": 2})


def test_options_normalise_and_derive_the_sprt_settings(tmp_path):
    opts = ArenaOptions(games=2, seed=np.int64(7), results_path=tmp_path / "r.jsonl", sprt=(0, 50))
    assert type(opts.seed) is int and opts.results_path == str(tmp_path / "r.jsonl")
    assert opts.sprt_test == SprtSettings(0.0, 50.0, 0.05, 0.05)
    assert opts.run_config(["a", "b"])["sprt"] == {"elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05}
    assert "sprt" not in ArenaOptions(games=2).run_config(["a", "b"])
    assert ArenaOptions(games=2, sprt=(0, 50), sprt_alpha=0.01).sprt_test.alpha == 0.01


def test_cli_flags_use_the_arena_checks():
    parser = build_parser()
    for flag, value in (("--games", "0"), ("--workers", "-1"), ("--move-time", "0")):
        with pytest.raises(SystemExit):
            parser.parse_args(["arena", "a", "b", flag, value])
    args = parser.parse_args(["arena", "a", "b", "--games", "3", "--move-time", "0.5"])
    assert (args.games, args.move_time, args.sprt_alpha) == (3, 0.5, None)


def test_arena_does_not_import_the_cli():
    code = "import sys, agents.arena; assert 'sixtysix_cli' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent).returncode == 0


class Reversed:
    """A backend that finishes the games queued so far in the opposite order, as a parallel one might."""

    def play(self, setup, tasks):
        while tasks:
            yield from reversed(list(InProcess().play(setup, tasks)))


@pytest.mark.parametrize("sprt", [None, SprtSettings(-50, 50)])
def test_results_do_not_depend_on_the_order_a_backend_returns_games(sprt):
    setup = Setup(("random", "random"), "deal", (None, None))
    tasks = schedule(2, 200, seed=3, duplicate=True)
    counts, lines = [], []
    for backend in (InProcess(), Reversed()):
        done = {}
        stop = SequentialStop(sprt, True, len(tasks)) if sprt is not None else None
        counts.append(play_missing(setup, ["a", "b"], tasks, done, backend, stop=stop))
        lines.append([as_played(done[t.index]) for t in tasks[:counts[-1]]])
    assert counts[0] == counts[1] and lines[0] == lines[1]
    assert counts[0] == (122 if sprt is not None else 200)
