"""What happened at the table, in words, from the person's side.

:class:`Narrator` turns a public move (with the person's views before and
after it), a deal's result and the game's end into the lines both tables
show ("You play TH: pimc takes the trick (14 points)"). It reads only the
person's views and public facts: the cards the bot draws are never named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.record import GameRecord
from sixtysix_env import PlayerView
from sixtysix_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE
from sixtysix_env.cards import CARD_NAMES, SUIT_NAMES, cards_of
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, LEAD

from .frame import OPPONENT, YOU, DealFrame, DealScores
from .moves import marriage_points

REASON_TEXT = {
    "declared": "{w} declared 66",
    "closer_beaten": "{w} declared 66 after {l} closed the talon",
    "false_declaration": "{l} declared with less than 66",
    "closer_failed": "{l} closed the talon and did not reach 66",
    "last_trick": "all tricks played, {w} has more points",
    "drawn": "all tricks played, equal points: nobody scores, the same dealer deals again",
}
# A deal won by reaching 66 with a trick, no declaration made: the presets that check 66
# after every trick (schnapsen-pkg, docs/rules-variants.md V4.6) and those whose last trick
# ends the deal (kawu, schnapsen) score it as a declaration (the same engine reason).
REACHED_TEXT = {
    "declared": "{w} reached 66: an automatic win",
    "closer_beaten": "{w} reached 66 after {l} closed the talon: an automatic win",
}


@dataclass(frozen=True)
class Narrator:
    """Texts for the person in ``seat`` playing the bot called ``bot``."""

    seat: int
    bot: str

    def who(self, seat: int) -> str:
        """How frames call a seat: ``"you"`` or ``"opponent"``."""
        return YOU if seat == self.seat else OPPONENT

    def name(self, seat: int) -> str:
        """How texts call a seat: "you" or the bot's name."""
        return "you" if seat == self.seat else self.bot

    def move(self, seat: int, action: int, before: PlayerView, after: PlayerView,
             taken_by: int | None) -> str:
        """One line about a public move (``taken_by``: who takes the trick it completes)."""
        subject = "You" if seat == self.seat else self.bot
        s = "" if seat == self.seat else "s"
        w = before.window
        if action < 24:
            card = CARD_NAMES[action]
            if w == LEAD:
                return f"{subject} lead{s} {card}"
            assert taken_by is not None  # a card that is not a lead completes a trick
            gained = after.points[taken_by] - before.points[taken_by]
            who = "You take" if taken_by == self.seat else f"{self.bot} takes"
            return f"{subject} play{s} {card}: {who} the trick ({gained} points)"
        if action < EXCHANGE:
            suit = action - MARRIAGE
            pts = marriage_points(suit, before.trump)
            text = f"{subject} show{s} the marriage in {SUIT_NAMES[suit]} ({pts})"
            return text + (", counted after a first trick" if before.tricks[seat] == 0 else "")
        if action == EXCHANGE:
            return f"{subject} exchange{s} {CARD_NAMES[6 * before.trump]} for the trump card " \
                f"{CARD_NAMES[before.trump_card]}"
        if action == CLOSE:
            return f"{subject} close{s} the talon" + (" without drawing" if w == DRAW else "")
        if action == DECLARE:
            return f"{subject} declare{s} 66 with {before.scores[seat]}"
        if w == DRAW:
            return self._draw(seat, before, after)
        return f"{subject} do{'es' if s else ''} not {'exchange' if w == CLOSE_RESPONSE else 'declare'}"

    def _draw(self, winner: int, before: PlayerView, after: PlayerView) -> str:
        new = cards_of(after.hand & ~before.hand)
        mine = CARD_NAMES[new[0]] if new else "?"
        mine_first = winner == self.seat
        if before.stock == 2:  # the last draw: the second player takes the face-up trump card
            trump = CARD_NAMES[before.trump_card]
            if mine_first:
                return f"You draw {mine}; {self.bot} takes the trump card {trump}; the talon is spent"
            return f"{self.bot} draws; you take the trump card {trump}; the talon is spent"
        if mine_first:
            return f"You draw {mine}, {self.bot} draws; talon {after.stock}"
        return f"{self.bot} draws, you draw {mine}; talon {after.stock}"

    def deal_result(self, res: Any, deal_no: int, game_over: str | None,
                    declared: bool = True) -> DealFrame:
        """A finished deal for the frames (``game_over``: the end text when the game ended too;
        ``declared``: False when the move that ended it was no declaration, so a win by 66 was
        automatic)."""
        me, opp = self.seat, 1 - self.seat
        w = res.winner
        return DealFrame(
            deal=deal_no, winner=None if w is None else self.who(w), game_points=res.game_points,
            reason=res.reason, scores=DealScores(you=res.scores[me], opponent=res.scores[opp]),
            text=self.result_text(res, deal_no, game_over, declared), match_over=game_over is not None,
        )

    def result_text(self, res: Any, deal_no: int, game_over: str | None, declared: bool = True) -> str:
        me, opp = self.seat, 1 - self.seat
        w = res.winner
        if w is None:
            head = f"Deal {deal_no}: drawn"
        else:
            who = "You win" if w == me else f"{self.bot} wins"
            head = f"Deal {deal_no}: {who} {res.game_points} game point{'s' if res.game_points > 1 else ''}"
        why = REASON_TEXT[res.reason] if declared else REACHED_TEXT.get(res.reason, REASON_TEXT[res.reason])
        if w is not None:
            why = why.format(w=self.name(w), l=self.name(1 - w))
        text = f"{head} ({why}; points {res.scores[me]}:{res.scores[opp]})"
        return text if game_over is None else f"{text}. {game_over}"

    def game_over(self, record: GameRecord) -> str:
        """The end of the game (a deal or a match), from the finished ``record``."""
        return "Game over: " + self.result_title(record)

    def result_title(self, record: GameRecord) -> str:
        """Who won the finished ``record``; a match adds its score, always the person's first
        (``heuristic wins the match · you 3 : heuristic 7``), whoever won (both tables show this)."""
        if record.winner is None:
            return "drawn"
        won = "You win" if record.winner == self.seat else f"{self.bot} wins"
        if record.unit == "deal":
            return f"{won} the deal"
        ms = record.match_score
        return f"{won} the match · you {ms[self.seat]} : {self.bot} {ms[1 - self.seat]}"


__all__ = ["REACHED_TEXT", "REASON_TEXT", "Narrator"]
