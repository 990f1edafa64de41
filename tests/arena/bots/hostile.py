"""Bots that try to cheat or to hurt the arena (issue 23, issue 24), used by tests/arena/test_hostile.py.

Each reports what it learned to the JSON-lines file named by its ``log``
parameter, or else by the environment variable ``HOSTILE_LOG`` (one line per
game), so the tests can check that it gained nothing.
"""

from __future__ import annotations

import json
import os
from typing import Any

from agents.arena.schedule import derive
from agents.play import make_env
from agents.random_agent import RandomAgent
from sixtysix_env.seeding import derive_seed

MASTERS, GAMES = 200, 12  # the small master seed values and game numbers the attacker tries


def report(log: str | None = None, **fields: Any) -> None:
    path = log or os.environ.get("HOSTILE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(fields) + "\n")


def crack(agent_seed: int | None) -> int | None:
    """The card seed of the game whose agent seed is ``agent_seed``, if a small master seed gives it:
    under the old public derivation (``derive_seed``) and under the arena's keyed one."""
    if agent_seed is None:
        return None
    for m in range(MASTERS):
        for k in range(GAMES):
            for side in "ab":
                if derive_seed(m, "agent", k, side) == agent_seed:
                    return derive_seed(m, "game", k)
                if derive(m, "agent", k, side) == agent_seed:
                    return derive(m, "deal", k)
    return None


def hand_of(card_seed: int, seat: int) -> int:
    """The first deal's hand of ``seat`` for a card seed (as the env deals it)."""
    env = make_env("deal")
    env.reset(seed=card_seed)
    return env.unwrapped.game_state.hands[seat]


class SeedAttacker(RandomAgent):
    """Searches the master seed and game number from its own seed, then names the opponent's hand."""

    name = "seed-attacker"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.agent_seed, self.card_seed, self.first = seed, crack(seed), True

    def act(self, view: Any) -> int:
        if self.first:
            self.first = False
            if self.card_seed is not None:
                guess = hand_of(self.card_seed, 1 - view.player)
            else:  # chance: six of the cards it cannot place
                unseen = [c for c in range(24) if view.unseen >> c & 1]
                guess = sum(1 << c for c in self.rng.sample(unseen, min(6, len(unseen))))
            report(bot="seed", agent_seed=self.agent_seed, seat=view.player, found=self.card_seed is not None,
                   guess=guess)
        return super().act(view)


class MemoryBot(RandomAgent):
    """Remembers its first hand of every game; in a later game it guesses the opponent holds it
    (true in the mirror game of a duplicate pair, when the same bot plays both)."""

    name = "memory"

    def __init__(self, seed: int | None = None, log: str | None = None) -> None:
        super().__init__(seed)
        self.hands: list[int] = []
        self.first = False
        self.log = log

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.first = True

    def act(self, view: Any) -> int:
        if self.first:
            self.first = False
            report(self.log, bot="memory", seat=view.player, remembered=len(self.hands),
                   guess=self.hands[-1] if self.hands else None)
            self.hands.append(view.hand)
        return super().act(view)


class Vandal(RandomAgent):
    """Plays legal moves but first edits everything it is handed: every field of its view, the
    true state (it asks for it, like the oracle), the deal results and the game record."""

    name = "vandal"
    requires_state = True

    def act(self, view: Any, state: Any = None) -> int:
        legal = view.legal_mask
        action = super().act(view)
        for name in type(view).__slots__:
            setattr(view, name, "garbage")
        if state is not None:
            state.hands = [0xFFFFFF, 0]
            state.points[0] = 999
            state.match_scores[1] = 6
            state.known.append(1)
            state.to_act = 7
            state.talon = ()
        return action if legal >> action & 1 else 0

    def deal_end(self, deal: dict[str, Any]) -> None:
        deal["winner"] = "me"
        deal["scores"].append(999)
        deal.clear()

    def game_end(self, record: Any) -> None:
        record.winner = 99
        record.deals.clear()
        record.actions.append(-1)
        record.forfeit = {"seat": "x"}


class Sluggish(RandomAgent):
    """A reference bot that loses on time: every move while the file ``$SLUGGISH_FILE`` holds a
    positive count (one less each game it slows), or always without the variable."""

    name = "sluggish"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.slow = _take_one(os.environ.get("SLUGGISH_FILE"))

    def act(self, view: Any) -> int:
        if self.slow:
            import time

            time.sleep(0.5)
        return super().act(view)


def _take_one(path: str | None) -> bool:
    """Whether this game is a slow one: always without a file, else while its count lasts."""
    if not path:
        return True
    n = int(open(path).read() or 0)
    if n > 0:
        with open(path, "w") as f:
            f.write(str(n - 1))
    return n > 0
