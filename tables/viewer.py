"""The move-by-move frames of a recorded game, for the browser viewer.

A record (a game line of an arena results file, or of the tables' own file)
holds the seed and every action, so the game is re-run through the
environment exactly as ``sixtysix replay`` does, and each position becomes
a JSON-ready frame: both hands, the talon in order, the trick, the scores
and the move made from it. The game is over, so the viewer shows all the
cards (a :class:`ViewerFrame`, declared once here; a test checks the keys
``tables/static/viewer.js`` reads). A replay that disagrees with the recorded deals (another engine
version, an edited file) is a ``ValueError``, as in ``sixtysix replay``.
"""

from __future__ import annotations

from typing import Any, TypedDict

import sixtysix_env
from sixtysix_env import ACTION_NAMES
from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE
from sixtysix_env.cards import CARD_NAMES, SUIT_LETTERS, SUIT_NAMES
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, LEAD, PLAYER_IDS, WINDOW_NAMES

from .frame import Tricks, card_names
from .record_line import RecordLine


class SeatCard(TypedDict):
    seat: int
    card: str


class LastTrick(TypedDict):
    cards: list[SeatCard]
    taken_by: int


class DealEnd(TypedDict):
    winner: int | None
    game_points: int
    reason: str
    scores: list[int]


class RecordedMove(TypedDict):
    n: int  # 1, 2, ... over the whole game
    seat: int
    action: int
    name: str
    text: str


class ViewerFrame(TypedDict):
    """One position of a recorded game, every card shown; seats by number (0, 1)."""

    deal: int
    dealer: int
    window: str
    to_act: int | None
    hands: list[list[str]]
    talon: list[str]  # the face-down cards, in the order they would be drawn
    stock: int
    trump: str
    trump_card: str | None
    closed_by: int | None
    trick: list[SeatCard]
    taken_by: int | None
    last_trick: LastTrick | None
    scores: list[int]
    tricks: list[int]
    marriages: list[list[str]]
    match: list[int]
    result: DealEnd | None
    move: RecordedMove | None  # the move made from this position; None at a deal's end


def move_text(state: Any, action: int, players: list[str]) -> str:
    """A recorded move in words (cards by name)."""
    p = state.to_act
    who = f"{players[p]} (player_{p})"
    if action < 24:
        return f"{who} {'leads' if state.window == LEAD else 'plays'} {CARD_NAMES[action]}"
    if action < EXCHANGE:
        return f"{who} shows the marriage in {SUIT_NAMES[action - MARRIAGE]}"
    if action == EXCHANGE:
        nine, face_up = CARD_NAMES[6 * state.trump], CARD_NAMES[state.trump_card]
        return f"{who} exchanges {nine} for the trump card {face_up}"
    if action == CLOSE:
        return f"{who} closes the talon"
    if action == DECLARE:
        return f"{who} declares 66 with {state.score(p)}"
    if action == CONTINUE:
        what = {DRAW: "draws", CLOSE_RESPONSE: "does not exchange"}.get(state.window, "does not declare")
        return f"{who} {what}"
    return f"{who} {ACTION_NAMES[action]}"


def _frame(state: Any, deal_no: int, tricks: Tricks) -> ViewerFrame:
    t = state.trump
    stock = state.stock
    face_down = state.talon[12 - stock:11] if stock else ()
    return ViewerFrame(
        deal=deal_no, dealer=state.dealer, window=WINDOW_NAMES[state.window],
        to_act=None if state.result is not None else state.to_act,
        hands=[card_names(state.hands[0], t), card_names(state.hands[1], t)],
        talon=[CARD_NAMES[c] for c in face_down], stock=stock,
        trump=SUIT_LETTERS[t], trump_card=CARD_NAMES[state.trump_card] if stock else None,
        closed_by=state.closed_by if state.closed_by >= 0 else None,
        trick=[SeatCard(seat=p, card=CARD_NAMES[c]) for p, c in tricks.cards], taken_by=tricks.taken_by,
        last_trick=None if tricks.last is None else LastTrick(
            cards=[SeatCard(seat=p, card=CARD_NAMES[c]) for p, c in tricks.last[0]], taken_by=tricks.last[1]),
        scores=[state.score(0), state.score(1)], tricks=list(state.tricks),
        marriages=[[SUIT_LETTERS[s] for s in range(4) if state.shown[p] >> s & 1] for p in (0, 1)],
        match=list(state.match_scores),
        result=None if state.result is None else DealEnd(
            winner=state.result.winner, game_points=state.result.game_points,
            reason=state.result.reason, scores=list(state.result.scores)),
        move=None,
    )


def replay_frames(g: RecordLine) -> dict[str, Any]:
    """``{"game": summary, "frames": [...]}`` for a checked game line ``g``
    (:func:`tables.record_line.checked_line`): a frame before each move (with that move) and
    one at the end of each deal."""
    unit, seed, actions, players, recorded = g["unit"], g["seed"], g["actions"], g["players"], g["deals"]
    rules = g["rules"]
    env = sixtysix_env.env(episode=unit, rules=rules)  # an unknown spec: a named rules error (ValueError)
    env.reset(seed=seed)
    raw = env.unwrapped
    frames: list[ViewerFrame] = []
    deal_no, tricks = 1, Tricks()
    for n, action in enumerate(actions):
        state = raw.game_state
        if raw.terminations[PLAYER_IDS[0]]:
            raise ValueError(f"the recorded actions go on after the game ended (move {n + 1})")
        if not state.is_legal(action):
            raise ValueError(f"move {n + 1} ({action!r}) is not legal in the replayed game")
        f = _frame(state, deal_no, tricks)
        f["move"] = RecordedMove(n=n + 1, seat=state.to_act, action=action, name=ACTION_NAMES[action],
                                 text=move_text(state, action, players))
        frames.append(f)
        seat, window = state.to_act, state.window
        env.step(action)
        if action < 24:
            lead = window == LEAD
            taker = None if lead else seat if _won(state, seat, tricks.cards[0][1], action) else 1 - seat
            tricks.play(seat, action, lead, taker)
        if state.result is not None:
            rec = recorded[deal_no - 1] if deal_no <= len(recorded) else None
            res = state.result
            if rec is None or (rec["reason"], rec["game_points"]) != (res.reason, res.game_points):
                raise ValueError(f"the replay of deal {deal_no} differs from the record")
            frames.append(_frame(state, deal_no, tricks))
            deal_no, tricks = deal_no + 1, Tricks()
    if not raw.terminations[PLAYER_IDS[0]] and g["forfeit"] is None:
        raise ValueError("the recorded actions end before the game does")
    return {"game": {"players": players, "unit": unit, "seed": seed, "winner": g["winner"],
                     "match_score": g["match_score"], "forfeit": g["forfeit"],
                     "index": g["index"], "rules": env.unwrapped.rules.spec},
            "frames": frames}


def _won(state: Any, seat: int, lead: int, card: int) -> bool:
    """Whether ``seat`` took the trick of ``lead`` and ``card`` (both cards are in its pile)."""
    bits = 1 << lead | 1 << card
    return state.won[seat] & bits == bits
