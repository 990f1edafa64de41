"""Review of issue 41: a resumed run folder from elsewhere holds more than its checkpoint.

``metrics.csv`` is read and appended to by a resumed run (``train.py --resume``,
``python -m training.expert --resume``). Before, a symbolic link there made the run append
its rows to whatever it pointed at, a fifo blocked the resume forever and a line without a
whole step ended it in a traceback. Each is now one line naming the file, nothing written.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from training.config_file import ConfigError
from training.logger import Logger

HEADER = "step,wall_s,key,value\n"


@pytest.fixture
def deadline() -> Iterator[None]:
    def expired(*_: object) -> None:
        raise TimeoutError("the logger blocked")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def resume_logger(folder: Path) -> Logger:
    return Logger(folder, tensorboard=False, progress=False, total=100, initial=10, desc="x")


def test_a_linked_metrics_file_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text(HEADER)  # looks like a metrics file, so nothing is dropped from it
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.csv").symlink_to(target)
    with pytest.raises(ConfigError, match="metrics.csv is not a regular file") as e:
        logger = resume_logger(run)
        logger.log(11, {"charts/x": 1.0})
        logger.close()
    assert "\n" not in str(e.value)
    assert target.read_text() == HEADER


def test_a_fifo_metrics_file_is_refused_without_blocking(tmp_path: Path, deadline: None) -> None:
    os.mkfifo(tmp_path / "metrics.csv")
    with pytest.raises(ConfigError, match="metrics.csv is not a regular file"):
        resume_logger(tmp_path)


@pytest.mark.parametrize("line", ["abc,1,k,1\n", "9" * 5000 + ",1,k,1\n", "-1,1,k,1\n"])
def test_a_line_without_a_whole_step_is_one_line_naming_the_file(tmp_path: Path, line: str) -> None:
    path = tmp_path / "metrics.csv"
    path.write_text(HEADER + "5,0.1,k,1\n" + line)
    with pytest.raises(ConfigError, match=r"metrics.csv line 3 is not a metrics row"):
        resume_logger(tmp_path)


def test_a_real_metrics_file_is_still_cut_at_the_checkpoint_and_appended(tmp_path: Path) -> None:
    path = tmp_path / "metrics.csv"
    path.write_text(HEADER + "5,0.1,k,1\n20,0.2,k,2\n")
    logger = resume_logger(tmp_path)
    logger.log(11, {"k": 3.0})
    logger.close()
    assert path.read_text() == HEADER + "5,0.1,k,1\n" + "11," + path.read_text().split("11,", 1)[1]
    assert path.read_text().endswith(",k,3\n")
