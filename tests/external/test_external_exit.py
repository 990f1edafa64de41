"""A bot process that ends during a game crashes that game: it is never restarted mid-game.

Restarting is for the next game only: a fresh process in the middle of a
game would have missed its ``new_match`` and every earlier request.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from external_helpers import wait_gone

from agents.external import ExternalAgent
from agents.play import play_game
from agents.protocol.messages import BotCrash
from agents.random_agent import RandomAgent
from sixtysix_env.deals import deal
from sixtysix_env.knowledge import view

# Answers the first request, then exits (status 0) without a word.
BOT = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "quitter", "version": "1", "protocol": "1.1"}), flush=True)
    elif m["type"] == "request":
        print(json.dumps({"type": "action", "id": m["id"], "action": m["legal"][0]["id"]}), flush=True)
        sys.exit(0)
"""


class SlowRandom(RandomAgent):
    """Thinks long enough for the other bot's process to have ended before its next request."""

    def act(self, view):  # noqa: D102
        time.sleep(0.3)
        return super().act(view)


def _quitter(tmp_path: Path) -> ExternalAgent:
    script = tmp_path / "quitter.py"
    script.write_text(BOT)
    return ExternalAgent([sys.executable, "-S", str(script)], log_dir=str(tmp_path / "logs"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor is Linux only")
def test_a_process_gone_between_requests_is_a_crash_not_a_restart(tmp_path):
    bot = _quitter(tmp_path)
    try:
        bot.reset(1)
        bot.game_start(0, "deal", None)
        s = deal(__import__("random").Random(1))
        pid = bot.pid
        bot.act(view(s, s.to_act))
        assert not wait_gone({pid}, timeout=10)  # its supervisor has exited (not reaped yet)
        with pytest.raises(BotCrash, match="ended before the request; the process exited with status 0"):
            bot.act(view(s, s.to_act))
        assert bot.pid is None  # not started again
    finally:
        bot.close()
    assert Path(bot.log_path).read_text().count(" starting ") == 1


def test_a_bot_that_exits_mid_game_forfeits_it_by_crash_and_the_next_game_starts_afresh(tmp_path):
    bot = _quitter(tmp_path)
    try:
        for seed in (1, 2):
            rec = play_game(bot, SlowRandom(), seed=seed)
            f = rec.forfeit
            assert f is not None and f["seat"] == 0 and f["reason"] == "crash", f
    finally:
        bot.close()
    assert Path(bot.log_path).read_text().count(" starting ") == 2  # one process per game
