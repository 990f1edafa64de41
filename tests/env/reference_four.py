"""An independent reference of four-player partnership Sixty-Six (docs/rules-four.md).

Written from the rules document alone, without the engine; see
tests/env/reference_rules.py for the two-player one and why. Seats play
clockwise, partners opposite (team = seat % 2); all parameters at their
defaults (heading the trick, the leader's partner may show a marriage,
last trick +10, match to 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.env.reference_rules import (
    CARD_POINTS,
    DECLARE,
    KING_RANK,
    MARRY,
    QUEEN_RANK,
    game_points,
    rank,
    suit,
)


def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` takes the trick from the card ``best`` now winning it (F3.1)."""
    if suit(card) == suit(best):
        return rank(card) > rank(best)
    return suit(card) == trump


@dataclass
class FourDeal:
    """One four-player deal; ``window`` is lead, follow or over."""

    hands: list[set[int]]
    trump: int
    dealer: int
    piles: list[list[int]] = field(default_factory=lambda: [[], []])  # per team
    bonus: list[int] = field(default_factory=lambda: [0, 0])
    shown: list[set[int]] = field(default_factory=lambda: [set() for _ in range(4)])  # suits, per seat
    seen: list[set[int]] = field(default_factory=lambda: [set() for _ in range(4)])  # cards all have seen
    window: str = "lead"
    turn: int = 0
    leader: int = 0
    trick: list[int] = field(default_factory=list)
    shown_now: int | None = None
    partner_showed: bool = False
    fresh: bool = False
    result: tuple[int | None, int, tuple[int, int]] | None = None

    @classmethod
    def start(cls, hands: list[list[int]], trump_card: int, dealer: int) -> FourDeal:
        d = cls([set(h) for h in hands], suit(trump_card), dealer)
        d.leader = d.turn = (dealer + 1) % 4  # F2.3
        d.seen[dealer].add(trump_card)  # F2.2: turned face up, kept by the dealer
        return d

    def hidden_from(self, seat: int) -> list[int]:
        """The other seats' cards that ``seat`` has not seen."""
        return sorted(c for q in range(4) if q != seat for c in self.hands[q] - self.seen[q])

    def tricks(self, team: int) -> int:
        return len(self.piles[team]) // 4

    def score(self, team: int) -> int:
        s = sum(CARD_POINTS[rank(c)] for c in self.piles[team]) + self.bonus[team]
        if self.tricks(team):
            s += sum(40 if m == self.trump else 20 for seat in (team, team + 2) for m in self.shown[seat])
        return s

    def new_marriages(self, seat: int) -> set[int]:
        h = self.hands[seat]
        held = {s for s in range(4) if 6 * s + KING_RANK in h and 6 * s + QUEEN_RANK in h}
        return {MARRY + s for s in held - self.shown[seat]}

    def legal(self) -> set[int]:
        p, h = self.turn, self.hands[self.turn]
        if self.window == "over":
            return set()
        if self.window == "lead":
            if self.shown_now is not None:
                acts = {c for c in h if suit(c) == self.shown_now and rank(c) in (QUEEN_RANK, KING_RANK)}
            else:
                acts = set(h) | self.new_marriages(p)
            if self.fresh and self.tricks(p % 2):
                acts.add(DECLARE)
            return acts
        acts = self.follow_cards(h)
        if p == (self.leader + 2) % 4 and not self.partner_showed:
            acts |= self.new_marriages(p)
        return acts

    def winning(self) -> int:
        best = self.trick[0]
        for c in self.trick[1:]:
            if beats(c, best, self.trump):
                best = c
        return best

    def follow_cards(self, h: set[int]) -> set[int]:
        """F3.2: follow and head the trick if able (any card of the suit once it
        is trumped); void: trump, over-trumping if able; else anything."""
        led, best = self.trick[0], self.winning()
        same = {c for c in h if suit(c) == suit(led)}
        if same:
            heads = {c for c in same if beats(c, best, self.trump)}
            return heads or same
        trumps = {c for c in h if suit(c) == self.trump}
        if trumps:
            over = {c for c in trumps if beats(c, best, self.trump)}
            return over or trumps
        return set(h)

    def step(self, a: int) -> None:
        assert a in self.legal(), (a, self.window)
        p = self.turn
        if a == DECLARE:
            self.declare(p % 2)
        elif a >= MARRY:
            self.shown[p].add(a - MARRY)
            self.seen[p] |= {6 * (a - MARRY) + QUEEN_RANK, 6 * (a - MARRY) + KING_RANK}
            if self.window == "lead":
                self.shown_now, self.fresh = a - MARRY, True
            else:
                self.partner_showed = True
        else:
            self.hands[p].remove(a)
            self.trick.append(a)
            if self.window == "lead":
                self.window, self.shown_now, self.fresh = "follow", None, False
            if len(self.trick) < 4:
                self.turn = (p + 1) % 4
            else:
                self.finish_trick()

    def finish_trick(self) -> None:
        winner = (self.leader + self.trick.index(self.winning())) % 4
        self.piles[winner % 2] += self.trick
        self.trick, self.partner_showed = [], False
        self.leader = self.turn = winner
        self.window, self.fresh = "lead", True
        if not self.hands[winner]:
            self.bonus[winner % 2] += 10
            s0, s1 = self.score(0), self.score(1)
            if s0 == s1:
                self.end(None, 0)
            else:
                top = 0 if s0 > s1 else 1
                self.end(top, game_points(self.score(1 - top), self.tricks(1 - top)))

    def declare(self, team: int) -> None:
        other = 1 - team
        if self.score(team) < 66:
            self.end(other, 2)
        else:
            self.end(team, game_points(self.score(other), self.tricks(other)))

    def end(self, winner: int | None, points: int) -> None:
        self.window = "over"
        self.result = (winner, points, (self.score(0), self.score(1)))
