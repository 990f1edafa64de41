"""Host a Python plug-in bot out of process: ``python -m agents.host [--path P ...] SPEC``.

The bench runs plug-in bots (``mypkg.bots:MyBot``, ``bot.py:MyBot``, an
installed ``sixtysix.bots`` name; :mod:`agents.plugins`) that the operator
has not declared trusted through this host, as an ``exec:`` bot, in the
sandbox: the bot then sees only what the protocol sends (the player's view,
decoded here into a :class:`~sixtysix_env.knowledge.PlayerView`), never the
game state, the arena's frames or its memory, and each game is a fresh
process, so nothing (a class attribute, a module global) outlives a game.

``--path P`` (repeatable) puts the folder above ``P`` on ``sys.path``: the
bench names the plug-in's top-level package or module file with it, so the
sandbox binds that and nothing around it. ``--check`` builds the bot once and
exits: 0 when it can be hosted, 3 with one line on stderr when not (a bot
that ``requires_state`` needs the true state, which no protocol bot gets).

What the bot prints goes to standard error (its log): standard output is the
protocol's. A bot that raises ends the process, which the arena records as
the bot's crash.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

from sixtysix_env.cards import SUIT_LETTERS, card_id
from sixtysix_env.engine import WINDOW_NAMES
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.variants import GERMAN

from .protocol.messages import arena_version

# The host decodes two-player German views only: it speaks 1.1, so the arena refuses it other games.
HOST_PROTOCOL = "1.1"

REFUSED = 3  # the exit status of --check for a bot that cannot be hosted


class HostError(ValueError):
    """A plug-in the host cannot play (it needs the true state, or it cannot be built)."""


# ------------------------------------------------------------ the view, decoded
def _mask(names: Sequence[str]) -> int:
    m = 0
    for name in names:
        m |= 1 << card_id(name)
    return m


def _card(name: str | None) -> int:
    return -1 if name is None else card_id(name)


def _seat(x: int | None) -> int:
    return -1 if x is None else int(x)


def _suits(letters: Sequence[str]) -> int:
    return sum(1 << SUIT_LETTERS.index(s) for s in letters)


def _pair(x: Sequence[Any]) -> tuple[int, int]:
    return (int(x[0]), int(x[1]))


def view_from_message(v: dict[str, Any], legal: Sequence[dict[str, Any]]) -> PlayerView:
    """The :class:`PlayerView` a request's ``view`` and ``legal`` were built from (German rules,
    the only preset the bench plays): the inverse of :func:`~agents.protocol.messages.view_message`."""
    pv = PlayerView.__new__(PlayerView)
    player = int(v["seat"])
    fields: dict[str, Any] = {
        "player": player, "hand": _mask(v["hand"]), "window": WINDOW_NAMES.index(v["window"]),
        "to_act": player, "legal_mask": sum(1 << int(a["id"]) for a in legal),
        "trump": SUIT_LETTERS.index(v["trump"]), "trump_card": _card(v["trump_card"]),
        "stock": int(v["talon"]),
        "closed_by": _seat(v["closed_by"]), "closer_opp_tricks": int(v["closer_opp_tricks"] or 0),
        "points": _pair(v["points"]), "tricks": _pair(v["tricks"]),
        "won": (_mask(v["won"][0]), _mask(v["won"][1])),
        "played": (_mask(v["played"][0]), _mask(v["played"][1])),
        "shown": (_suits(v["marriages"][0]), _suits(v["marriages"][1])),
        "exchanged_by": _seat(v["exchanged_by"]), "lead_card": _card(v["lead_card"]),
        "marriage_suit": -1 if v["marriage_suit"] is None else SUIT_LETTERS.index(v["marriage_suit"]),
        "can_declare": bool(v["can_declare"]), "dealer": int(v["dealer"]),
        "match_scores": _pair(v["match_scores"]), "result": None, "scores": _pair(v["scores"]),
        "my_known": _mask(v["my_known"]), "my_void": _mask(v["my_excluded"]),
        "opp_known": _mask(v["opp_known"]), "opp_void": _mask(v["opp_excluded"]),
        "opp_hand_size": int(v["opp_hand_size"]), "unseen": _mask(v["unseen"]),
        "rules": GERMAN, "bonus": 0, "held": None,
    }
    for k, x in fields.items():
        setattr(pv, k, x)
    return pv


# ------------------------------------------------------------ the bot
def build(spec: str, seed: int | None) -> Any:
    """A fresh bot of ``spec``; one that ``requires_state`` is a :class:`HostError`."""
    from agents.registry import make_agent  # here: the plug-in's own import errors come out as one line

    agent = make_agent(spec, seed=seed)
    if getattr(agent, "requires_state", False):
        raise HostError(f"bot {spec!r} requires the true game state (requires_state): it cannot be rated, "
                        "a bench bot sees only its player's view")
    return agent


def _hook(agent: Any, name: str, *args: Any) -> None:
    fn = getattr(agent, name, None)
    if callable(fn):
        fn(*args)


class Host:
    """Answers the arena's messages for one plug-in: a fresh bot per ``new_match``."""

    def __init__(self, spec: str, out: IO[str]) -> None:
        self.spec, self.out = spec, out
        self.agent: Any = None

    def handle(self, msg: dict[str, Any]) -> bool:
        """Act on one message; False when the host should exit."""
        kind = msg.get("type")
        if kind == "hello":
            self._send({"type": "hello", "name": self.spec[:200] or "host", "version": arena_version(),
                        "protocol": HOST_PROTOCOL})
        elif kind == "new_match":
            self._new_match(msg)
        elif kind == "request":
            view = view_from_message(msg["view"], msg["legal"])
            if self.agent is None:  # a request without new_match: a game starts here
                self.agent = build(self.spec, None)
            self._send({"type": "action", "id": msg["id"], "action": int(self.agent.act(view))})
        elif kind == "deal_end" and self.agent is not None:
            _hook(self.agent, "deal_end", {k: msg[k] for k in ("winner", "game_points", "reason", "scores")})
        return kind != "quit"

    def _new_match(self, msg: dict[str, Any]) -> None:
        seconds = msg["time_ms"] / 1000
        self.agent = build(self.spec, msg.get("seed"))
        _hook(self.agent, "reset", msg.get("seed"))
        _hook(self.agent, "game_start", msg["seat"], msg.get("unit") or "match", seconds)
        _hook(self.agent, "time_control", msg.get("clock", "wall"), seconds)

    def _send(self, msg: dict[str, Any]) -> None:
        self.out.write(json.dumps(msg) + "\n")
        self.out.flush()


def protocol_out() -> IO[str]:
    """The protocol's channel (the original stdout); from now on fd 1 and ``sys.stdout`` are stderr,
    so whatever the bot prints lands in its log, never among the protocol's lines."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.host", description=__doc__.splitlines()[0])
    p.add_argument("--path", action="append", default=[], help="put the folder above PATH on sys.path")
    p.add_argument("--check", action="store_true", help="build the bot once, exit 3 if it cannot be hosted")
    p.add_argument("spec", help="the plug-in bot's spec (agents/plugins.py)")
    args = p.parse_args(argv)
    for path in args.path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    if args.check:
        try:
            build(args.spec, None)
        except ValueError as e:  # HostError, PluginError: one line
            print(f"{p.prog}: {str(e).splitlines()[0]}", file=sys.stderr)
            return REFUSED
        return 0
    host = Host(args.spec, protocol_out())
    for line in sys.stdin:  # end of input: the arena is gone
        if not host.handle(json.loads(line)):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
