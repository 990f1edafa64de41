"""The table as a picture (the ``rgb_array`` render mode), drawn with Pillow.

:func:`draw_table` draws a :class:`~sixtysix_env.render.Table`, the same
description the text is written from, so the picture shows exactly what the
text shows: the side's hand at the bottom (its legal cards raised when it is
to act), the other hand face down at the top (cards known to be in it face
up), the talon with its count and the face-up trump card under it, the card
led to the trick, the deal's points and tricks, the match score, the dealer
and whose turn it is. A spectator's table has both hands face up.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .actions import action_name, actions_of
from .cards import N_CARDS, SUIT_NAMES, cards_of
from .engine import PLAYER_IDS, WINDOW_NAMES

WIDTH, HEIGHT = 800, 520
CARD_W, CARD_H = 64, 92
FELT, FELT_DARK = (27, 94, 52), (20, 72, 40)
INK, RED, WHITE, GOLD = (25, 25, 30), (196, 30, 45), (250, 250, 246), (245, 205, 90)
BACK, BACK_LINE = (38, 70, 150), (210, 220, 245)
SUIT_SIGNS = "\u2663\u2660\u2665\u2666"  # clubs, spades, hearts, diamonds
RANK_TEXT = ("9", "J", "Q", "K", "10", "A")


@lru_cache(maxsize=8)
def _font(size: int, bold: bool = False) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """DejaVu Sans (shipped with matplotlib, it has the suit signs), else Pillow's default."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.origin is not None:
        name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
        path = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / name
        if path.exists():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def _has_signs() -> bool:
    font = _font(20)
    return isinstance(font, ImageFont.FreeTypeFont) and "DejaVu" in (font.getname()[0] or "")


def _suit_sign(suit: int) -> str:
    return SUIT_SIGNS[suit] if _has_signs() else "CSHD"[suit]


def _card(d: ImageDraw.ImageDraw, x: int, y: int, card: int, highlight: bool = False) -> None:
    """A face-up card with its top-left corner at (x, y)."""
    suit, rank = divmod(card, 6)
    color = RED if suit in (2, 3) else INK
    d.rounded_rectangle((x + 3, y + 3, x + CARD_W + 3, y + CARD_H + 3), 7, fill=FELT_DARK)
    d.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), 7, fill=WHITE,
                        outline=GOLD if highlight else (120, 120, 120), width=3 if highlight else 1)
    d.text((x + 6, y + 3), RANK_TEXT[rank], font=_font(20, True), fill=color)
    d.text((x + 7, y + 25), _suit_sign(suit), font=_font(16), fill=color)
    centre = (x + CARD_W // 2 + 4, y + CARD_H // 2 + 12)
    d.text(centre, _suit_sign(suit), font=_font(34), fill=color, anchor="mm")


def _back(d: ImageDraw.ImageDraw, x: int, y: int, w: int = CARD_W, h: int = CARD_H) -> None:
    """A face-down card."""
    d.rounded_rectangle((x + 3, y + 3, x + w + 3, y + h + 3), 7, fill=FELT_DARK)
    d.rounded_rectangle((x, y, x + w, y + h), 7, fill=BACK, outline=WHITE, width=2)
    d.rounded_rectangle((x + 6, y + 6, x + w - 6, y + h - 6), 4, outline=BACK_LINE, width=1)
    for k in range(x + 10, x + w - 8, 8):
        d.line((k, y + 10, k, y + h - 10), fill=(60, 95, 175))


def _fan(d: ImageDraw.ImageDraw, y: int, up: list[int], down: int, legal: int) -> None:
    """A hand centred in the table's left part: ``up`` face-up cards (legal ones raised
    when ``legal`` is not 0), then ``down`` face-down cards."""
    n = len(up) + down
    step = CARD_W + 8
    x0 = (560 - (n * step - 8)) // 2 + 20
    for i, c in enumerate(up):
        playable = bool(legal >> c & 1)
        _card(d, x0 + i * step, y - (12 if playable else 0), c, highlight=playable)
    for i in range(len(up), n):
        _back(d, x0 + i * step, y)


def _talon(d: ImageDraw.ImageDraw, t: Any) -> None:
    """The face-up trump card lying under the talon, and the talon's count."""
    x, y = 40, 205
    if t.face_up >= 0 and t.talon != "spent":
        card = Image.new("RGBA", (CARD_W + 4, CARD_H + 4), (0, 0, 0, 0))
        _card(ImageDraw.Draw(card), 0, 0, t.face_up)
        turned = card.rotate(-90, expand=True)  # across the talon, its corner showing on the right
        d._image.paste(turned, (x + 28, y + 14), turned)
    if t.stock > 1:
        for k in range(min(3, t.stock - 1)):
            _back(d, x - 2 * k, y - 2 * k)
    label = f"talon {t.stock}"
    if t.talon != "open":
        label += f" ({t.talon})"
    d.text((x, y + CARD_H + 22), label, font=_font(15), fill=WHITE)


def _tricks(n: int) -> str:
    return f"{n} trick" if n == 1 else f"{n} tricks"


def _player_label(t: Any, p: int) -> str:
    me = " (you)" if t.side == p else ""
    dealer = ", dealer" if t.dealer == p else ""
    return f"{PLAYER_IDS[p]}{me}{dealer}: {t.scores[p]} points, {_tricks(t.tricks[p])}"


def _status(t: Any) -> tuple[str, str]:
    """The headline (whose turn, or how the deal ended) and the legal actions' line."""
    if t.result is not None:
        r = t.result
        who = "drawn deal" if r.winner is None else f"{PLAYER_IDS[r.winner]} wins {r.game_points}"
        return f"deal over: {who} ({r.reason.replace('_', ' ')})", ""
    turn = "your turn" if t.side == t.to_act else f"{PLAYER_IDS[t.to_act]} to act"
    head = f"{turn} ({WINDOW_NAMES[t.window]})"
    others = [action_name(a) for a in actions_of(t.legal_mask) if a >= N_CARDS]
    return head, ", ".join(others)


def _panel(d: ImageDraw.ImageDraw, t: Any) -> None:
    """The right-hand panel: match score, trump, turn."""
    x = 590
    d.rounded_rectangle((x - 12, 20, WIDTH - 16, HEIGHT - 20), 10, fill=FELT_DARK)
    d.text((x, 34), "Sixty-Six", font=_font(24, True), fill=GOLD)
    ms = t.match_scores
    d.text((x, 76), "match (to 7)", font=_font(14), fill=WHITE)
    d.text((x, 94), f"{ms[0]} : {ms[1]}", font=_font(30, True), fill=WHITE)
    d.text((x, 134), "player_0 : player_1", font=_font(12), fill=WHITE)
    trump_color = (255, 120, 120) if t.trump in (2, 3) else WHITE
    d.text((x, 170), "trump", font=_font(14), fill=WHITE)
    d.text((x, 188), f"{_suit_sign(t.trump)} {SUIT_NAMES[t.trump]}", font=_font(22, True), fill=trump_color)
    head, extra = _status(t)
    words, line, y = head.split(" "), "", 240
    for w in words:  # wrap the headline to the panel's width
        if len(line) + len(w) > 20:
            d.text((x, y), line, font=_font(16, True), fill=GOLD)
            line, y = "", y + 22
        line = f"{line} {w}".strip()
    d.text((x, y), line, font=_font(16, True), fill=GOLD)
    if extra:
        d.text((x, y + 34), "other moves:", font=_font(13), fill=WHITE)
    for i, a in enumerate(extra.split(", ")[:6] if extra else []):
        d.text((x + 10, y + 54 + 18 * i), a, font=_font(13), fill=WHITE)


def draw_table(t: Any) -> np.ndarray:
    """The table ``t`` as an (HEIGHT, WIDTH, 3) uint8 array."""
    if not hasattr(t, "hand_sizes"):  # (render imports this module: no import of Table here)
        raise TypeError(f"draw_table draws a Table (player_table(view), spectator_table(state)); got {t!r}")
    img = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    d = ImageDraw.Draw(img)
    bottom = 0 if t.side is None else t.side
    top = 1 - bottom
    top_up = cards_of(t.hands[top]) if t.hands[top] is not None else cards_of(t.known[top])
    d.text((30, 18), _player_label(t, top), font=_font(15), fill=WHITE)
    _fan(d, 44, top_up, t.hand_sizes[top] - len(top_up), 0)
    legal = t.legal_mask if t.to_act == bottom else 0
    bottom_hand = t.hands[bottom] or 0
    _fan(d, HEIGHT - CARD_H - 46, cards_of(bottom_hand), 0, legal)
    d.text((30, HEIGHT - 32), _player_label(t, bottom), font=_font(15), fill=WHITE)
    _talon(d, t)
    cx, cy = 320, 205
    trick = (cx - 16, cy - 14, cx + CARD_W + 16, cy + CARD_H + 14)
    d.rounded_rectangle(trick, 12, outline=(60, 130, 80), width=2)
    if t.lead_card >= 0:
        _card(d, cx, cy, t.lead_card)
    if t.marriage_suit >= 0:
        d.text((cx + CARD_W + 28, cy + 30), f"marriage {_suit_sign(t.marriage_suit)} shown",
               font=_font(14), fill=GOLD)
    _panel(d, t)
    return np.asarray(img, dtype=np.uint8).copy()


__all__ = ["HEIGHT", "WIDTH", "draw_table"]
