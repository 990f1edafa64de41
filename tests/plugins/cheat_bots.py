"""Plug-in bots that cheat, each on top of the same honest heuristic (the bench's cheat tests enter them
by import path). Out of process, in the bench's host, none of the cheats finds anything: each plays
exactly the honest bot's moves, or is refused."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from agents.heuristic import HeuristicAgent
from agents.oracle import OracleAgent
from sixtysix_env.engine import State
from sixtysix_env.knowledge import sample_state


class Honest(HeuristicAgent):
    """The built-in heuristic as a plug-in: what every cheat below plays when its cheat finds nothing."""

    name = "honest"


class _Cheat(Honest):
    """An honest bot that plays the oracle's move on a state it should not have; counts its hits."""

    hits = 0  # class-wide: a test may read it in-process

    def __init__(self, seed: int | None = None, move_time: float | None = None) -> None:
        super().__init__(seed, move_time)
        self.oracle = OracleAgent(seed=seed)

    def cheat(self, view: Any, state: State | None) -> int:
        if state is None:
            return super().act(view)
        type(self).hits += 1
        print(f"{type(self).__name__}: cheated", file=sys.stderr)
        return self.oracle.act(view, state=state)


class StateReader(_Cheat):
    """Declares ``requires_state``: agents.play then hands it the true state."""

    requires_state = True

    def act(self, view: Any, state: State | None = None) -> int:  # type: ignore[override]
        return self.cheat(view, state)


class FramePeeker(_Cheat):
    """Walks its callers' frames for the game state (the play loop's env holds it)."""

    def act(self, view: Any) -> int:
        return self.cheat(view, _state_in_callers(view.player))


def _state_in_callers(player: int) -> State | None:
    frame = sys._getframe(2)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            state = getattr(getattr(value, "unwrapped", value), "game_state", None)
            if isinstance(value, State):
                state = value
            if isinstance(state, State) and state.to_act == player:
                return state
        frame = frame.f_back
    return None


class Memory(_Cheat):
    """Remembers its hands in a class attribute: in the mirror game of a duplicate pair the opponent
    holds the hand this bot held before, so the first tricks are played on a known hand."""

    hands: dict[tuple[int, int], tuple[int, int]] = {}  # (deal number, trump card) -> (hand, which bot)
    made = 0  # bots made so far in this process: each game's bot has its own number

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.deal = 0
        Memory.made += 1
        self.number = Memory.made

    def deal_end(self, deal: Any) -> None:
        self.deal += 1

    def act(self, view: Any) -> int:
        if view.stock == 12 and view.trump_card >= 0:
            key = (getattr(self, "deal", 0), view.trump_card)
            before, who = self.hands.setdefault(key, (view.hand, getattr(self, "number", 0)))
            if who != getattr(self, "number", 0) and before & view.hand == 0:  # an earlier game's hand
                try:
                    state = sample_state(view, self.rng, opp_lacks=view.unseen & ~before)
                except ValueError:
                    state = None
                return self.cheat(view, state)
        return super().act(view)


class WorkerKiller(Honest):
    """After its first move, kills its process with SIGKILL as soon as another bot's ``act`` is called:
    in-process, the rung is thinking then, and the arena would blame the rung for the dead worker."""

    def act(self, view: Any) -> int:
        move = super().act(view)
        me = self

        def hook(frame: Any, event: str, arg: Any) -> None:
            if event == "call" and frame.f_code.co_name == "act" and frame.f_locals.get("self") is not me:
                os.kill(os.getpid(), signal.SIGKILL)

        sys.setprofile(hook)
        return move


class SelfKiller(Honest):
    """Kills its own process on its third move."""

    def __init__(self, seed: int | None = None, move_time: float | None = None) -> None:
        super().__init__(seed, move_time)
        self.moves = 0

    def act(self, view: Any) -> int:
        self.moves += 1
        if self.moves == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(view)


class Chatty(Honest):
    """Prints to standard output and writes to its file descriptor 1: neither may reach the protocol."""

    def act(self, view: Any) -> int:
        print("thinking...")
        os.write(1, b'{"type": "action", "id": 0, "action": 99}\n')
        return super().act(view)
