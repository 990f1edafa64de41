"""The API of a browser's own game: start one, follow it, move, ask for a hint, resign.

=========================  ================================================
``GET  /api/bots``         the bots a table can offer, the defaults
``POST /api/games``        new game ``{"vs", "hint", "seed", "episode", "seat", "rules"}``, or
                           at four ``{"players": 4, "partner", "opponents", "seed", "episode"}``
``GET  /api/game``         the game; ``?since=V`` adds the frames after
                           version V, ``&wait=S`` waits up to S seconds for one
``POST /api/game/move``    ``{"action": 0-31 | "TH" | "marry H" ..., "version": V}``
``POST /api/game/hint``    the hint bot's move and values per move
``POST /api/game/resign``  give up (the record says so)
=========================  ================================================

A browser may choose the operator's bots (``--vs``, ``--hint``, ``--bots``,
as exact whole strings) or a built-in bot of the fixed menu within its caps
(:mod:`tables.menu`, checked as text before anything is parsed or started);
the cheating ``oracle`` may be an opponent, never a hint. ``rules`` must be one
of the server's rules choices (``GET /api/bots``: ``rules``), matched as the
whole exact text before it is parsed (:func:`tables.menu.menu_rules`).
``players`` is 2 (the default) or 4: the person (seat 0) and a ``partner`` bot
against two ``opponents`` bots (:class:`tables.four_session.FourSession`),
each a four-player bot spec checked as text (``random``, ``heuristic``,
``search``, ``search:N``); the two-player fields do not apply there.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from agents import KNOWN_AGENTS
from sixtysix_env.episodes import EPISODES

from .cancel import OutOfTime
from .endpoint import (
    ApiError,
    checked_int,
    client_of,
    endpoint,
    owner_of,
    query_int,
    query_seconds,
    read_json,
)
from .four_session import FourSession, check_four_spec
from .games import Busy, Game, GameStore
from .hints import Hinter
from .menu import CHEATS, MENU, MenuError, describe_menu, menu_rules, menu_spec
from .moves import IllegalMove
from .session import Session

if TYPE_CHECKING:
    from starlette.requests import Request

MAX_WAIT = 30.0  # the longest a long poll waits, in seconds
NEW_GAME_FIELDS = {"vs", "hint", "seed", "episode", "seat", "rules", "players", "partner", "opponents"}
TWO_ONLY = {"vs", "hint", "seat", "rules"}
FOUR_MENU = ("heuristic", "random", "search")  # the four-player bots the page offers (search:N is accepted)
FOUR_ONLY = {"partner", "opponents"}


def check_spec(tables: GameStore, spec: Any, what: str) -> str:
    """A bot spec a browser may choose (:func:`tables.menu.menu_spec`), else a 400."""
    try:
        return menu_spec(spec, tables.operator_specs, what)
    except MenuError as e:
        raise ApiError(400, str(e)) from None


def your_game(tables: GameStore, token: str) -> Game:
    try:
        return tables.game(token)
    except KeyError:
        raise ApiError(404, "no game: start one with POST /api/games") from None


@endpoint
async def api_bots(request: Request, tables: GameStore, token: str) -> Any:
    caps = describe_menu()
    info = {name: KNOWN_AGENTS[name] for name in MENU}
    out = [{"spec": name, "help": b.help, "cheats": name in CHEATS,
            "params": {k: {"default": b.params[k].default, "help": b.params[k].help, "allowed": allowed}
                       for k, allowed in caps[name].items()}}
           for name, b in info.items()]
    extra = sorted(tables.operator_specs - set(MENU) - {"none"})
    config = tables.config
    return {"bots": out, "extra": extra, "vs": config.vs, "hint": config.hint, "episodes": list(EPISODES),
            "rules": tables.rules_choices, "rules_default": tables.rules_default,
            "four_bots": list(FOUR_MENU)}


def _new_game_options(tables: GameStore, body: dict[str, Any]) -> dict[str, Any]:
    """The checked fields of a new-game request (400 for anything else)."""
    unknown = set(body) - NEW_GAME_FIELDS
    if unknown:
        raise ApiError(400, f"unknown field(s): {', '.join(sorted(unknown))}")
    players = body.get("players", 2)
    if type(players) is not int or players not in (2, 4):  # not 4.0, "4" or True
        raise ApiError(400, "players must be 2 or 4")
    seed = body.get("seed")
    seed = None if seed is None else checked_int(seed, "seed", 0, 2**63 - 1)
    episode = body.get("episode", "match")
    if episode not in EPISODES:
        raise ApiError(400, f"episode must be one of {', '.join(EPISODES)}")
    if players == 4:
        return _four_options(body, seed, episode)
    if FOUR_ONLY & set(body):
        raise ApiError(400, f"{', '.join(sorted(FOUR_ONLY & set(body)))}: only with players 4")
    vs = check_spec(tables, body.get("vs", tables.config.vs), "vs")
    hint = body.get("hint", tables.config.hint)
    if hint is None or (isinstance(hint, str) and hint.strip().lower() in ("", "none")):
        hint = None
    else:
        hint = check_spec(tables, hint, "hint")
        if hint.partition(":")[0].strip().lower() in CHEATS:
            raise ApiError(400, "hint: the oracle sees the hidden cards, so it cannot give hints")
    seat = body.get("seat")
    seat = None if seat is None else checked_int(seat, "seat", 0, 1)  # None: the seed decides
    try:
        rules = menu_rules(body.get("rules", tables.rules_default), tables.rules_choices)
    except MenuError as e:
        raise ApiError(400, str(e)) from None
    return {"players": 2, "vs": vs, "hint": hint, "seed": seed, "episode": episode, "seat": seat,
            "rules": rules}


def _four_options(body: dict[str, Any], seed: int | None, episode: str) -> dict[str, Any]:
    """The checked fields of a four-player game (400 for a two-player field or a bad bot)."""
    if TWO_ONLY & set(body):
        raise ApiError(400, f"{', '.join(sorted(TWO_ONLY & set(body)))}: not with players 4 "
                            "(you sit at seat 0; partner and opponents name the bots)")
    try:
        partner = check_four_spec(body.get("partner", "heuristic"), "partner")
        opponents = check_four_spec(body.get("opponents", "heuristic"), "opponents")
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    return {"players": 4, "partner": partner, "opponents": opponents, "seed": seed, "episode": episode}


@endpoint
async def api_new(request: Request, tables: GameStore, token: str) -> Any:
    o = _new_game_options(tables, await read_json(request))

    def build() -> tuple[Session | FourSession, Hinter | None]:
        if o["players"] == 4:
            return FourSession(o["partner"], o["opponents"], seed=o["seed"], episode=o["episode"]), None
        s = Session(o["vs"], seed=o["seed"], episode=o["episode"], seat=o["seat"], rules=o["rules"])
        return s, (Hinter(o["hint"], seed=s.seed ^ 0x5EED) if o["hint"] else None)

    tables.drop(token)  # the old game goes now: its search stops and frees its slot for this build
    try:  # building bots is the client's work too: in its slots, so a loop of new games holds no more
        session, hinter = await tables.search(client_of(request), build, wait=True)
    except ValueError as e:
        raise ApiError(400, str(e).split("\n")[0]) from None
    game = Game(session, hinter, owner_of(token), client_of(request))
    try:
        tables.put(token, game)
    except Busy as e:
        raise ApiError(e.status, str(e)) from None
    tables.start_bot(game)
    return game.payload(since=-1), 201


@endpoint
async def api_game(request: Request, tables: GameStore, token: str) -> Any:
    game = your_game(tables, token)
    s = game.session
    if game.pending:
        tables.start_bot(game)  # a no-op while its task runs; restarts one that ended early
    elif game.unsaved and (game.task is None or game.task.done()):
        await tables.save(game)  # the bot's loop could not save it: try again, and let a failure show
    since = query_int(request, "since", -1, 2**31)
    wait_s = query_seconds(request, "wait", MAX_WAIT)
    if wait_s is not None:
        if since is None:
            raise ApiError(400, "wait needs since")
        if s.version <= since and (game.pending or game.unsaved):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(game.changed.wait(), wait_s)
    return game.payload(since)


def _person_action(game: Game, body: dict[str, Any]) -> int:
    """The checked action of a move request (400, 409 or 422 otherwise)."""
    s = game.session
    if set(body) - {"action", "version"}:
        raise ApiError(400, "a move is {\"action\": ..., \"version\": ...}")
    version = body.get("version")
    if version is not None and checked_int(version, "version", 0, 2**31) != s.version:
        raise ApiError(409, f"the game has moved on (version {s.version}); reload it")
    if s.over:
        raise ApiError(409, "the game is over")
    if not s.human_to_act:
        raise ApiError(409, "it is not your turn")
    action = body.get("action")
    try:
        if isinstance(action, str):
            return s.parse_move(action)
        if isinstance(action, int) and not isinstance(action, bool):
            return s.check_legal(action)
        raise ValueError("action must be an action id (0-31) or a move: a card name, 'close', '66'...")
    except IllegalMove as e:
        raise ApiError(422, f"illegal move: {e}") from None
    except ValueError as e:
        raise ApiError(400, str(e)) from None


@endpoint
async def api_move(request: Request, tables: GameStore, token: str) -> Any:
    game = your_game(tables, token)
    action = _person_action(game, await read_json(request))
    s = game.session
    before = s.version
    s.play(action)
    if s.over:
        await tables.save(game)
    else:
        tables.start_bot(game)
    game.notify()
    return game.payload(since=before)


@endpoint
async def api_hint(request: Request, tables: GameStore, token: str) -> Any:
    game = your_game(tables, token)
    s = game.session
    if game.hinter is None or not isinstance(s, Session):  # a four-player game has none
        raise ApiError(409, "this game has no hint bot")
    if not s.human_to_act:
        raise ApiError(409, "no hint: it is not your turn")
    version, v = s.version, s.view
    seen, game.seen = game.seen, []
    hinter = game.hinter

    def think() -> dict[str, Any] | None:
        try:
            for past in seen:
                hinter.observe(past)
            return hinter.hint(v)
        except OutOfTime:  # the game was replaced meanwhile: its searches stop (tables.cancel)
            return None

    if game.hint_lock.locked():
        raise ApiError(429, "a hint is already being worked out for this game")
    async with game.hint_lock:
        try:
            h = await tables.search(game.client, think, wait=False)
        except Busy as e:
            raise ApiError(e.status, str(e)) from None
    if h is None:
        raise ApiError(409, "this game was replaced by a new one")
    values = [{"action": a, "value": x, **({"visits": h["visits"][a]} if h.get("visits") else {})}
              for a, x in sorted(h["values"].items(), key=lambda kv: -kv[1])]
    return {"hint": {"bot": h["bot"], "action": h["action"], "kind": h["kind"], "detail": h["detail"],
                     "values": values, "version": version}, "stale": s.version != version}


@endpoint
async def api_resign(request: Request, tables: GameStore, token: str) -> Any:
    game = your_game(tables, token)
    s = game.session
    if s.over:
        raise ApiError(409, "the game is over")
    before = s.version
    s.resign()
    await tables.save(game)
    game.notify()
    return game.payload(since=before)


__all__ = ["api_bots", "api_game", "api_hint", "api_move", "api_new", "api_resign", "check_spec"]
