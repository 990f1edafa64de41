"""The four-player table in a terminal (``sixtysix play --players 4``): what it draws and says.

:mod:`tables.terminal` runs the game loop for both tables; this module draws a
four-player frame (:class:`tables.four_frame.FourFrame`: your hand, the other
three seats, the trick with who played what, both teams' scores) and gives
the ``help`` and prompt texts, which name only the moves the four-player game
has (a card, a marriage, 66; docs/rules-four.md).
"""

from __future__ import annotations

from typing import Any

from .four_frame import FourFrame, FourSeat
from .frame import Side, Trick
from .tty import Style, columns, move_label

SEAT_LABELS = {"you": "you", "left": "left", "partner": "partner", "right": "right"}
HELP_FOUR = """moves:   a number from the list, or the move itself:
         a card (TH, 10H, T♥, 9c), marry H (or marry ♥), 66 (declare)
         you lead a marriage's king or queen; your partner may show one when you lead
other:   t table again    log recent moves    resign    quit    help"""
PROMPT_WORDS = (("card", "card"), ("marriage", "'marry H'"), ("declare", "66"))


def prompt_four(moves: list[Any]) -> str:
    """The move prompt: the kinds of move legal now, in words."""
    kinds = {m["kind"] for m in moves}
    words = ["number", *(word for kind, word in PROMPT_WORDS if kind in kinds)]
    return f" Your move ({', '.join(words)}): "


def _side(d: Side, st: Style) -> str:
    text = f"{d['score']} points · {d['tricks']} trick{'' if d['tricks'] == 1 else 's'}"
    if d["marriages"]:
        text += " · marriage " + " ".join(st.suit(m) for m in d["marriages"])
        if d["pending"]:
            text += f" ({d['pending']} counts after a first trick)"
    return text


def _seat(word: str, seat: FourSeat, bot: str, f: FourFrame, st: Style) -> str:
    name = f"{word} ({bot})"
    text = f" {name:<22.22} {'▮' * seat['cards']:<6}"
    if seat["known"]:
        text += " holds " + " ".join(st.card(c) for c in seat["known"])
    if seat["marriages"]:
        text += " · showed " + " ".join(st.suit(m) for m in seat["marriages"])
    if f["dealer"] == word:
        text += " · dealer"
    if f["to_act"] == word:
        text += " · to play"
    return text


def _cards(trick: Trick, st: Style) -> str:
    return ", ".join(f"{SEAT_LABELS[c['who']]} {st.card(c['card'])}" for c in trick["cards"])


def render_four(s: Any, f: FourFrame, st: Style) -> str:
    """The four-player table of frame ``f`` as text (session ``s`` names the bots and the game)."""
    if s.unit == "match":
        m = f["match"]
        score = f"match your team {m['you']} : {m['opponent']} opponents (to {m['target']})"
    else:
        score = "a single deal"
    lines = [st.dim("─" * 72),
             st.bold(f" Sixty-Six for four · you and partner vs two bots · {score} · deal {f['deal']}")]
    bots = {"left": s.opponents, "partner": s.partner, "right": s.opponents}
    for word in ("partner", "left", "right"):
        lines.append(_seat(word, f["seats"][word], bots[word], f, st))
    where = "held by the dealer" if f["trump_held"] else "played"
    lines.append(f" {'trumps':<10} {st.suit(f['trump'])} (turned up: {st.card(f['trump_card'])}, {where})")
    trick = f["trick"]
    if trick["cards"]:
        taken = f" → {SEAT_LABELS[trick['taken_by']]}" if trick["taken_by"] else ""
        lines.append(f" {'trick':<10} {_cards(trick, st)}{taken}")
    else:
        lines.append(f" {'trick':<10} -")
    if f["last_trick"]:
        lt = f["last_trick"]
        lines.append(f" {'last trick':<10} {_cards(lt, st)} → {SEAT_LABELS[lt['taken_by'] or 'you']}")
    lines.append(f" {'your team':<10} {_side(f['you'], st)}")
    lines.append(f" {'opponents':<10} {_side(f['opponent'], st)}")
    playable = {m["card"] for m in f["legal"] if m["kind"] == "card"}
    hand = [st.card(c) if c in playable or not f["legal"] else st.dim(st.card(c)) for c in f["hand"]]
    dealer = " · dealer" if f["dealer"] == "you" else ""
    lines.append(f" {'your hand':<10} " + " ".join(hand) + dealer)
    lines.append(st.dim("─" * 72))
    if f["legal"]:
        lines.append(" Your moves:")
        lines += columns([f"{i:>2}) {move_label(m, st)}" for i, m in enumerate(f["legal"], 1)], st)
    return "\n".join(lines)


__all__ = ["HELP_FOUR", "prompt_four", "render_four"]
