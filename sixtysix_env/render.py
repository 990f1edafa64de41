"""A compact text picture of the table, from the point of view of the player
to act (the environments' ``ansi`` and ``human`` render modes).

Example::

    player_1 to act (lead window), dealer player_0, match 0:0
    trump: hearts, face-up KH, talon 12 (open)
    hand:  9C QC AS JH TD AD
    table: -
    score: player_0 0 (0 tricks), player_1 0 (0 tricks)
    legal: 0 play 9C | 2 play QC | ... | 29 close
"""

from __future__ import annotations

from .actions import action_name, actions_of
from .cards import CARD_NAMES, SUIT_NAMES, names_of
from .engine import PLAYER_IDS, TALON_CLOSED, WINDOW_NAMES, State


def render_text(state: State) -> str:
    """The table as text; shows only the hand of the player to act."""
    p = state.to_act
    lines = []
    if state.result is not None:
        r = state.result
        who = "nobody (drawn)" if r.winner is None else PLAYER_IDS[r.winner]
        lines.append(
            f"deal over: {who} wins {r.game_points} ({r.reason}), scores {r.scores[0]}:{r.scores[1]}"
        )
    else:
        lines.append(f"{PLAYER_IDS[p]} to act ({WINDOW_NAMES[state.window]} window)")
    lines[-1] += f", dealer {PLAYER_IDS[state.dealer]}, match {state.match_scores[0]}:{state.match_scores[1]}"
    talon_state = state.talon_phase  # "open", "closed" or "spent"
    if talon_state == TALON_CLOSED:
        talon_state = f"closed by {PLAYER_IDS[state.closed_by]}"
    face_up = f", face-up {CARD_NAMES[state.trump_card]}" if state.stock else ""
    lines.append(f"trump: {SUIT_NAMES[state.trump]}{face_up}, talon {state.stock} ({talon_state})")
    if state.result is None:
        lines.append(f"hand:  {' '.join(names_of(state.hands[p])) or '-'}")
    table = CARD_NAMES[state.lead_card] if state.lead_card >= 0 else "-"
    if state.marriage_suit >= 0:
        table += f" (marriage in {SUIT_NAMES[state.marriage_suit]} shown)"
    lines.append(f"table: {table}")
    lines.append(
        "score: " + ", ".join(f"{PLAYER_IDS[q]} {state.score(q)} ({state.tricks[q]} tricks)" for q in (0, 1))
    )
    legal = actions_of(state.legal_mask())
    if legal:
        lines.append("legal: " + " | ".join(f"{a} {action_name(a)}" for a in legal))
    return "\n".join(lines)


__all__ = ["render_text"]
