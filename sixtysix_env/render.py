"""Pictures of the table from one player's side, a spectator's only on request
(the environments' ``ansi``, ``human`` and ``rgb_array`` render modes).

Every picture is drawn from a :class:`Table`, a plain description of what is
on the table, and a :class:`Table` is built only from
:class:`~sixtysix_env.knowledge.PlayerView` objects:

- :func:`player_table` ``(view)``: one player's side: that player's hand,
  the opponent's hand face down (with the cards it is known to hold), the
  legal actions only when that player is to act. What the environments
  render by default; by construction it shows nothing the player may not
  know (docs/rules.md section 6), and the tests resample the hidden cards and
  check that the picture does not change.
- :func:`spectator_table` ``(state)``: both hands, built from both players'
  views: the explicit opt-in ``render_view="all"`` (replays, debugging).

:func:`render_text` writes a table as text,
:func:`sixtysix_env.picture.draw_table` draws it as an (H, W, 3) uint8
picture with Pillow; :func:`show` is what an env's ``render()`` does in each
render mode. A render mode the environments do not know is accepted with a
warning, as ``gymnasium.make`` and gymnasium's ``check_env`` treat one
(SB3's ``make_vec_env`` passes ``"rgb_array"`` to every env); ``render()``
then warns and returns None.

Example (``player_table(view(state, 0))``)::

    player_0's side: player_1 to act (follow window), dealer player_1, match 0:0
    trump: hearts, face-up AH, talon 12 (open)
    player_0 (me): TC TS AS QH KH
    player_1: 6 cards, known: -
    table: AC
    score: player_0 0 (0 tricks), player_1 0 (0 tricks)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .actions import action_name, actions_of
from .cards import CARD_NAMES, SUIT_NAMES, names_of
from .engine import PLAYER_IDS, TALON_CLOSED, WINDOW_NAMES, State
from .knowledge import PlayerView, view
from .scoring import DealResult

#: Render modes of both environments.
RENDER_MODES = ("human", "ansi", "rgb_array")
#: The ``render_view`` that shows both hands (a spectator's view; an explicit opt-in only).
SPECTATOR = "all"


@dataclass(frozen=True, slots=True)
class Table:
    """What a picture of the table shows; card sets are 24-bit masks.

    ``side`` is the player whose side it is drawn from, or None for a
    spectator. ``hands[p]`` is player p's hand, or None when it is face down
    (then ``hand_sizes[p]`` cards, of which ``known[p]`` are known).
    ``legal_mask`` holds the actions shown as legal: the side's when it is
    to act (a spectator sees the acting player's), else 0.
    """

    side: int | None
    hands: tuple[int | None, int | None]
    hand_sizes: tuple[int, int]
    known: tuple[int, int]
    to_act: int
    window: int
    dealer: int
    match_scores: tuple[int, int]
    trump: int
    face_up: int  # the face-up trump card, -1 once the talon is empty
    stock: int
    talon: str  # "open", "closed by player_1" or "spent"
    lead_card: int
    marriage_suit: int
    scores: tuple[int, int]
    tricks: tuple[int, int]
    legal_mask: int
    result: DealResult | None  # once the deal is over


def _table(v: PlayerView, hands: tuple[int | None, int | None], known: tuple[int, int],
           side: int | None, legal_mask: int) -> Table:
    """A table with everything public taken from ``v``."""
    talon = v.talon_phase
    if talon == TALON_CLOSED:
        talon = f"closed by {PLAYER_IDS[v.closed_by]}"
    sizes = [0, 0]
    sizes[v.player] = v.hand.bit_count()
    sizes[v.opponent] = v.opp_hand_size
    return Table(
        side=side, hands=hands, hand_sizes=(sizes[0], sizes[1]), known=known,
        to_act=v.to_act, window=v.window, dealer=v.dealer, match_scores=v.match_scores,
        trump=v.trump, face_up=v.trump_card, stock=v.stock, talon=talon,
        lead_card=v.lead_card, marriage_suit=v.marriage_suit, scores=v.scores,
        tricks=v.tricks, legal_mask=legal_mask, result=v.result,
    )


def player_table(v: PlayerView) -> Table:
    """The table from ``v.player``'s side: only what that player may know."""
    p = v.player
    hands: list[int | None] = [None, None]
    hands[p] = v.hand
    known = [0, 0]
    known[v.opponent] = v.opp_known
    return _table(v, (hands[0], hands[1]), (known[0], known[1]), p, v.legal_mask)


def spectator_table(state: State) -> Table:
    """Both hands face up (``render_view="all"``): for replays and debugging, never a player."""
    views = (view(state, 0), view(state, 1))
    acting = views[state.to_act]
    return _table(acting, (views[0].hand, views[1].hand), (0, 0), None, acting.legal_mask)


def _hand_line(t: Table, p: int) -> str:
    name = PLAYER_IDS[p]
    hand = t.hands[p]
    if hand is not None:
        me = " (me)" if t.side == p else ""
        return f"{name}{me}: {' '.join(names_of(hand)) or '-'}"
    return f"{name}: {t.hand_sizes[p]} cards, known: {' '.join(names_of(t.known[p])) or '-'}"


def _tricks(n: int) -> str:
    """``"1 trick"``, ``"2 tricks"``."""
    return f"{n} trick" if n == 1 else f"{n} tricks"


def render_text(t: Table) -> str:
    """The table as text (the ``ansi`` and ``human`` modes)."""
    if not isinstance(t, Table):
        raise TypeError(f"render_text draws a Table (player_table(view), spectator_table(state)); got {t!r}")
    side = "spectator" if t.side is None else f"{PLAYER_IDS[t.side]}'s side"
    if t.result is not None:
        r = t.result
        who = "nobody (drawn)" if r.winner is None else PLAYER_IDS[r.winner]
        head = f"deal over: {who} wins {r.game_points} ({r.reason}), scores {r.scores[0]}:{r.scores[1]}"
    else:
        head = f"{PLAYER_IDS[t.to_act]} to act ({WINDOW_NAMES[t.window]} window)"
    lines = [f"{side}: {head}, dealer {PLAYER_IDS[t.dealer]}, match {t.match_scores[0]}:{t.match_scores[1]}"]
    face_up = f", face-up {CARD_NAMES[t.face_up]}" if t.face_up >= 0 else ""
    lines.append(f"trump: {SUIT_NAMES[t.trump]}{face_up}, talon {t.stock} ({t.talon})")
    lines += [_hand_line(t, p) for p in (0, 1)]
    table = CARD_NAMES[t.lead_card] if t.lead_card >= 0 else "-"
    if t.marriage_suit >= 0:
        table += f" (marriage in {SUIT_NAMES[t.marriage_suit]} shown)"
    lines.append(f"table: {table}")
    scores = (f"{PLAYER_IDS[q]} {t.scores[q]} ({_tricks(t.tricks[q])})" for q in (0, 1))
    lines.append("score: " + ", ".join(scores))
    legal = actions_of(t.legal_mask)
    if legal:
        lines.append("legal: " + " | ".join(f"{a} {action_name(a)}" for a in legal))
    return "\n".join(lines)


def _warn(message: str) -> None:
    import gymnasium  # only the environments call this; drawing a table needs no gymnasium

    gymnasium.logger.warn(message)


def show(render_mode: str | None, table: Callable[[], Table]) -> Any:
    """What an env's ``render()`` does with the ``table()`` it draws: ``"ansi"``
    returns the text, ``"human"`` prints it (and returns None), ``"rgb_array"``
    returns the picture; None or an unknown mode warns and returns None."""
    if render_mode not in RENDER_MODES:
        _warn(f"render() called with render_mode={render_mode!r}; pass one of {list(RENDER_MODES)}")
        return None
    if render_mode == "rgb_array":
        from .picture import draw_table  # Pillow only when a picture is drawn

        return draw_table(table())
    text = render_text(table())
    if render_mode == "human":
        print(text)
        return None
    return text


def check_render_args(render_mode: str | None, render_view: Any, views: tuple[Any, ...]) -> None:
    """A warning unless ``render_mode`` is one of :data:`RENDER_MODES` or None (the
    Gymnasium API's treatment: see the module docstring); ``ValueError`` unless
    ``render_view`` is one of ``views``."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        _warn(f"render_mode={render_mode!r} is not one of {list(RENDER_MODES)}: render() will return None")
    if isinstance(render_view, bool) or render_view not in views:
        raise ValueError(f"render_view must be one of {list(views)}, got {render_view!r}")


__all__ = [
    "RENDER_MODES",
    "SPECTATOR",
    "Table",
    "check_render_args",
    "player_table",
    "render_text",
    "show",
    "spectator_table",
]
