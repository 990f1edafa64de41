"""A bot's memory and process count are bounded by its control group, and its processes are the first
the kernel kills: a memory hog is killed inside its group (a crash forfeit; the arena lives on), a bot
starting threads without end gets no more than its share, and neither gains anything."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from agents.external import ExternalAgent
from agents.play import play_game
from agents.protocol import cgroups
from agents.protocol.cgroups import PROC_SAMPLES, metering
from agents.random_agent import RandomAgent

BOT = [sys.executable, "-S", str(Path(__file__).resolve().parent / "bots" / "cgroup_bot.py")]
pytestmark = pytest.mark.skipif(metering() == PROC_SAMPLES, reason="no cgroups here")


def _play(tmp_path: Path, *words: str) -> tuple[dict | None, str]:
    """One deal of the cheat against random: its forfeit and its log."""
    bot = ExternalAgent([*BOT, *words], timeout=60.0, log_dir=str(tmp_path / "logs"))
    try:
        rec = play_game(bot, RandomAgent(), seed=1, unit="deal")
    finally:
        bot.close()
    return rec.forfeit, "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))


def test_a_memory_hog_is_killed_in_its_group_and_the_arena_lives(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cgroups, "MEMORY_MAX", 128 << 20)
    forfeit, log = _play(tmp_path, "hog", "512")
    assert "oom_score_adj 1000" in log
    assert "allocated 512 MiB" not in log, "the hog got past its memory limit"
    assert forfeit is not None and forfeit["seat"] == 0 and forfeit["reason"] == "crash", forfeit
    assert re.search(r"signal 9|status 137", log), log[-500:]  # the OOM killer's SIGKILL


def test_a_bot_gets_no_more_tasks_than_its_limit(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cgroups, "PIDS_MAX", 64)
    forfeit, log = _play(tmp_path, "forker", "1000")
    started = int(re.findall(r"^threads (\d+)", log, re.M)[-1])
    assert started < 64, f"{started} threads past a limit of 64 tasks"
    assert forfeit is None  # refused threads are the bot's business: it played on
