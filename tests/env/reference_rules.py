"""An independent reference of the two-player rules, for differential tests.

Written from the rules documents alone (docs/rules.md, docs/rules-variants.md
V2 and V3), without reading or importing the engine: plain sets and lists,
one readable method per rule, slow and obvious on purpose. The tests play the
same deals in both and compare the legal actions before every move, the
player to act, both scores and the result. The two have only the public API in common: card
ids (``6 * suit + rank``), the 32 actions and the fixed talon order.

A :class:`Game` is the reference's own reading of one preset; it deliberately
does not read :class:`sixtysix_env.variants.Rules`, so that a wrong field in a
preset shows up as a disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CARD_POINTS = (0, 2, 3, 4, 10, 11)  # 9 J Q K T A (docs/rules.md 1)
QUEEN_RANK, KING_RANK = 2, 3
MARRY, EXCHANGE, CLOSE, DECLARE, CONTINUE = 24, 28, 29, 30, 31


@dataclass(frozen=True)
class Game:
    """One reading of a preset (which game the reference plays)."""

    name: str
    cards: tuple[int, ...]
    hand_size: int
    swap_rank: int  # the low trump exchanged for the face-up card: 0 nine, 1 jack
    draw_window: bool  # a phase-1 trick's winner may close before drawing
    close_response: bool  # the closer's opponent may exchange at the close
    late_marriages: bool  # marriages also once the talon is closed or spent
    marriage_needs_trick_first: bool  # shown without a trick: lost for good (kawu)
    last_trick_bonus: int  # 10 German; 0 when the last trick wins the deal itself
    last_trick_wins: bool  # talon ran out, nobody declared: the last trick's winner scores 1
    false_claim_three: bool  # a false declaration costs 3 against an opponent without a trick
    beaten_closer_as_failed: bool  # beating the closer scores 2 or 3 like a failed close
    failed_close_whole_deal: bool = False  # a failed close's 3: the opponent took no trick at all (kawu)


ALL = tuple(range(24))
NO_NINES = tuple(c for c in ALL if c % 6)
GERMAN = Game("german", ALL, 6, 0, True, True, False, False, 10, False, False, False)
KAWU = Game("kawu", ALL, 6, 0, False, False, False, True, 0, True, True, True, True)
SCHNAPSEN = Game("schnapsen", NO_NINES, 5, 1, False, True, True, False, 0, True, False, False)


def suit(c: int) -> int:
    return c // 6


def rank(c: int) -> int:
    return c % 6


def game_points(loser_score: int, loser_tricks: int) -> int:
    """docs/rules.md 4.1: 3 against no trick, 2 against under 33, else 1."""
    if loser_tricks == 0:
        return 3
    return 2 if loser_score < 33 else 1


@dataclass
class Deal:
    """One deal under a :class:`Game`. ``window`` is one of lead, draw,
    respond, follow, final, over."""

    game: Game
    hands: list[set[int]]
    stock: list[int]  # stock[0] is drawn next; stock[-1] is the face-up trump card
    dealer: int
    trump: int = 0
    closer: int | None = None
    opp_tricks_at_close: int = 0
    piles: list[list[int]] = field(default_factory=lambda: [[], []])
    bonus: list[int] = field(default_factory=lambda: [0, 0])
    marriages: list[list[tuple[int, bool]]] = field(default_factory=lambda: [[], []])  # (suit, may count)
    seen: list[set[int]] = field(default_factory=lambda: [set(), set()])  # cards of p's the opponent saw
    window: str = "lead"
    turn: int = 0
    table: int | None = None
    shown_now: int | None = None
    fresh: bool = False  # just took a trick or showed a marriage, not led since
    result: tuple[int | None, int, tuple[int, int]] | None = None

    @classmethod
    def start(cls, game: Game, hands: list[list[int]], talon: list[int], dealer: int) -> Deal:
        d = cls(game, [set(hands[0]), set(hands[1])], list(talon), dealer)
        d.trump = suit(talon[-1])
        d.turn = 1 - dealer  # forehand leads
        return d

    # ---------------------------------------------------------------- facts
    def tricks(self, p: int) -> int:
        return len(self.piles[p]) // 2

    def score(self, p: int) -> int:
        s = sum(CARD_POINTS[rank(c)] for c in self.piles[p]) + self.bonus[p]
        if self.tricks(p):
            s += sum(40 if m == self.trump else 20 for m, counts in self.marriages[p] if counts)
        return s

    def hidden_from(self, p: int) -> tuple[list[int], list[int]]:
        """What ``p`` cannot know: the opponent's cards it has not seen, and the
        face-down talon cards (talon positions from the next to draw)."""
        o = 1 - p
        return sorted(self.hands[o] - self.seen[o]), self.stock[:-1]

    def talon_open(self) -> bool:
        return self.closer is None and len(self.stock) > 0

    def low_trump(self) -> int:
        return 6 * self.trump + self.game.swap_rank

    def marriages_held(self, p: int) -> set[int]:
        h = self.hands[p]
        return {s for s in range(4) if 6 * s + KING_RANK in h and 6 * s + QUEEN_RANK in h}

    # ---------------------------------------------------------- legal moves
    def legal(self) -> set[int]:
        p, w, h = self.turn, self.window, self.hands[self.turn]
        if w == "over":
            return set()
        if w == "final":
            return {DECLARE, CONTINUE}
        if w == "respond":
            return {CONTINUE} | ({EXCHANGE} if self.low_trump() in h else set())
        if w == "draw":
            return {CONTINUE, CLOSE, DECLARE} | ({EXCHANGE} if self.low_trump() in h else set())
        if w == "follow":
            return self.follow_cards(h)
        acts: set[int] = set()
        if self.shown_now is not None:
            acts |= {c for c in h if suit(c) == self.shown_now and rank(c) in (QUEEN_RANK, KING_RANK)}
        else:
            acts |= h
            if self.talon_open() or self.game.late_marriages:
                acts |= {MARRY + s for s in self.marriages_held(p)}
            if self.talon_open() and self.low_trump() in h and self.tricks(p) > 0:
                acts.add(EXCHANGE)
        if self.talon_open():
            acts.add(CLOSE)
        if self.fresh and self.tricks(p) > 0:
            acts.add(DECLARE)
        return acts

    def follow_cards(self, h: set[int]) -> set[int]:
        """Phase 1: anything. Phase 2: follow and beat if able, else trump, else anything."""
        if self.talon_open():
            return set(h)
        led = self.table
        assert led is not None
        same = {c for c in h if suit(c) == suit(led)}
        if same:
            higher = {c for c in same if rank(c) > rank(led)}
            return higher or same
        trumps = {c for c in h if suit(c) == self.trump}
        return trumps or set(h)

    # ------------------------------------------------------------ transitions
    def step(self, a: int) -> None:
        assert a in self.legal(), (a, self.window)
        p, w = self.turn, self.window
        if w == "follow":
            self.finish_trick(p, a)
        elif a < 24:
            self.hands[p].remove(a)
            self.table, self.window, self.turn = a, "follow", 1 - p
            self.fresh, self.shown_now = False, None
        elif a < EXCHANGE:
            s = a - MARRY
            counts = not self.game.marriage_needs_trick_first or self.tricks(p) > 0
            self.marriages[p].append((s, counts))
            self.seen[p] |= {6 * s + QUEEN_RANK, 6 * s + KING_RANK}
            self.shown_now, self.fresh = s, True
        elif a == EXCHANGE:
            nine = self.low_trump()
            self.hands[p].remove(nine)
            self.hands[p].add(self.stock[-1])
            self.seen[p].add(self.stock[-1])
            self.stock[-1] = nine
            if w == "respond":
                self.window, self.turn = "lead", 1 - p
        elif a == CLOSE:
            self.closer, self.opp_tricks_at_close = p, self.tricks(1 - p)
            if self.game.close_response:
                self.window, self.turn = "respond", 1 - p
            else:
                self.window = "lead"
        elif a == DECLARE:
            self.end_by_declaration(p)
        elif w == "draw":
            self.draw(p)
            self.window = "lead"
        elif w == "respond":
            self.window, self.turn = "lead", 1 - p
        else:  # final, continue: nobody went out after a close
            self.end_closer_failed()

    def draw(self, winner: int) -> None:
        """The winner draws first, then the loser; the face-up card comes last."""
        self.hands[winner].add(self.stock.pop(0))
        if len(self.stock) == 1:  # the loser takes the face-up card, seen by both
            self.seen[1 - winner].add(self.stock[0])
        self.hands[1 - winner].add(self.stock.pop(0))

    def finish_trick(self, p: int, card: int) -> None:
        led = self.table
        assert led is not None
        self.hands[p].remove(card)
        if suit(card) == suit(led):
            winner = p if rank(card) > rank(led) else 1 - p
        else:
            winner = p if suit(card) == self.trump else 1 - p
        self.piles[winner] += [led, card]
        self.table, self.turn, self.fresh = None, winner, True
        if self.talon_open():
            if self.game.draw_window:
                self.window = "draw"
            else:
                self.draw(winner)
                self.window = "lead"
        elif self.hands[winner]:
            self.window = "lead"
        elif self.closer is not None:
            self.window = "final"
        elif self.game.last_trick_wins:
            if self.score(winner) >= 66:
                self.end_by_declaration(winner)
            else:
                self.end(winner, 1)
        else:
            self.bonus[winner] += self.game.last_trick_bonus
            s0, s1 = self.score(0), self.score(1)
            if s0 == s1:
                self.end(None, 0)
            else:
                top = 0 if s0 > s1 else 1
                self.end(top, game_points(self.score(1 - top), self.tricks(1 - top)))

    def closer_failed_points(self) -> int:
        assert self.closer is not None
        whole = self.game.failed_close_whole_deal
        tricks = self.tricks(1 - self.closer) if whole else self.opp_tricks_at_close
        return 3 if tricks == 0 else 2

    def end_by_declaration(self, p: int) -> None:
        o = 1 - p
        if self.score(p) < 66:
            self.end(o, 3 if self.game.false_claim_three and self.tricks(o) == 0 else 2)
        elif self.closer == o:
            self.end(p, self.closer_failed_points() if self.game.beaten_closer_as_failed else 2)
        else:
            self.end(p, game_points(self.score(o), self.tricks(o)))

    def end_closer_failed(self) -> None:
        assert self.closer is not None
        self.end(1 - self.closer, self.closer_failed_points())

    def end(self, winner: int | None, points: int) -> None:
        self.window = "over"
        self.result = (winner, points, (self.score(0), self.score(1)))
