"""Deal-by-deal cross-check of the ``schnapsen-pkg`` preset against the
open-source ``schnapsen`` package (optional: ``pip install -e ".[schnapsen]"``).

The package is only imported and called, never copied. A deal is shuffled
and dealt by the package's own deck and hand generators; the same cards go
into :func:`~sixtysix_env.deals.fixed_deal` with ``rules="schnapsen-pkg"``.
The package then plays the deal with two :class:`Mirror` bots around any of
its bots: before each move a mirror checks that the package's valid moves
and our engine's legal actions are the same set, and after it plays the
move in our engine too. At the end the winner, the game points and the
winner's score must agree. Any disagreement raises :class:`Mismatch`.

    compare_deal(random.Random(7))                       # random bots
    compare_deal(random.Random(7), strong=True)          # the package's rdeep bots

:class:`PackageBot` goes the other way: one of the package's bots as our
agent (``act(view)``) for ``schnapsen-pkg`` deals, so its bots play ours.
It hands the package bot a state built from a world sampled from the view
(:func:`~sixtysix_env.knowledge.sample_state`), never the true hidden cards.
"""

from __future__ import annotations

import importlib.util
import random
from typing import Any, cast

from sixtysix_env.actions import EXCHANGE, MARRIAGE
from sixtysix_env.cards import CARD_NAMES, KING, QUEEN, cards_of
from sixtysix_env.deals import fixed_deal
from sixtysix_env.engine import FOLLOW, LEAD, State
from sixtysix_env.knowledge import PlayerView, sample_state
from sixtysix_env.scoring import marriage_points

from .base import BaseAgent, require_turn

PACKAGE_BOTS = ("rand", "bully", "rdeep")

SUITS = {"CLUBS": 0, "SPADES": 1, "HEARTS": 2, "DIAMONDS": 3}
RANKS = {"JACK": 1, "QUEEN": 2, "KING": 3, "TEN": 4, "ACE": 5}


class Mismatch(AssertionError):
    """The package and the ``schnapsen-pkg`` preset disagree on a deal."""


def card_of(card: Any) -> int:
    """Our card id of a package ``Card``."""
    return 6 * SUITS[card.suit.name] + RANKS[card.rank.name]


def token(move: Any) -> tuple[Any, ...]:
    """A comparable name of a package move: ("card", id), ("marriage", suit) or ("exchange",)."""
    if move.is_marriage():
        return ("marriage", SUITS[move.suit.name])
    if move.is_trump_exchange():
        return ("exchange",)
    return ("card", card_of(move.card))


def our_tokens(s: State) -> set[tuple[Any, ...]]:
    """Our legal actions as :func:`token` names."""
    out: set[tuple[Any, ...]] = set()
    for a in s.legal_actions():
        if a < MARRIAGE:
            out.add(("card", a))
        elif a < EXCHANGE:
            out.add(("marriage", a - MARRIAGE))
        elif a == EXCHANGE:
            out.add(("exchange",))
        else:
            out.add(("other", a))
    return out


def play_token(s: State, tok: tuple[Any, ...]) -> None:
    """Play a package move in our engine (a marriage is shown, then its king led)."""
    if tok[0] == "card":
        s.apply(tok[1])
    elif tok[0] == "marriage":
        s.apply(MARRIAGE + tok[1])
        s.apply(6 * tok[1] + KING)
    else:
        s.apply(EXCHANGE)


def _mirror_class() -> type:
    from schnapsen.game import Bot

    class Mirror(Bot):
        """A package bot that checks and mirrors every move of ``inner`` in our engine."""

        def __init__(self, seat: int, inner: Any, game: dict[str, Any]) -> None:
            super().__init__(f"mirror{seat}")
            self.seat, self.inner, self.game = seat, inner, game

        def get_move(self, perspective: Any, leader_move: Any) -> Any:
            s: State = self.game["state"]
            window = LEAD if leader_move is None else FOLLOW
            if s.is_over or s.to_act != self.seat or s.window != window:
                raise Mismatch(f"the package asks seat {self.seat} to move, our engine is at {s!r}")
            theirs = {token(m) for m in perspective.valid_moves()}
            ours = our_tokens(s)
            if theirs != ours:
                raise Mismatch(f"legal moves differ at {s!r}: package {sorted(theirs)}, ours {sorted(ours)}")
            move = self.inner.get_move(perspective, leader_move)
            play_token(s, token(move))
            return move

        def notify_trump_exchange(self, move: Any) -> None:
            self.inner.notify_trump_exchange(move)

        def notify_game_end(self, won: bool, perspective: Any) -> None:
            self.inner.notify_game_end(won, perspective)

    return Mirror


def compare_deal(rng: random.Random, strong: bool = False, rules: str = "schnapsen-pkg") -> State:
    """Deal and play one deal in both implementations; returns our final state
    or raises :class:`Mismatch`. ``strong``: the package's rdeep bots
    (sampling look-ahead) instead of random ones; ``rules``: our preset (any
    other than the default should disagree)."""
    from schnapsen.bots import RandBot, RdeepBot
    from schnapsen.game import (
        BotState,
        GameState,
        SchnapsenDeckGenerator,
        SchnapsenGamePlayEngine,
        SchnapsenHandGenerator,
    )

    engine = SchnapsenGamePlayEngine()
    gen = SchnapsenDeckGenerator()
    shuffled = gen.shuffle_deck(gen.get_initial_deck(), rng)
    hand1, hand2, talon = SchnapsenHandGenerator.generateHands(shuffled)
    hands = [[card_of(c) for c in hand1.get_cards()], [card_of(c) for c in hand2.get_cards()]]
    ours = fixed_deal(hands, [card_of(c) for c in talon.get_cards()], dealer=1, rules=rules)
    game = {"state": ours}
    Mirror = _mirror_class()

    def inner() -> Any:
        return RdeepBot(num_samples=4, depth=4, rand=random.Random(rng.random())) if strong else RandBot(
            random.Random(rng.random())
        )

    bots = [Mirror(0, inner(), game), Mirror(1, inner(), game)]
    leader, follower = BotState(bots[0], hand1), BotState(bots[1], hand2)
    state = GameState(leader=leader, follower=follower, talon=talon, previous=None)
    winner, points, score = engine.play_game_from_state(state, leader_move=None)
    s: State = game["state"]
    r = s.result
    if r is None:
        raise Mismatch(f"the package ended the deal, our engine did not: {s!r}")
    seat = bots.index(winner)
    our_score = None if r.winner is None else s.score(r.winner)
    if (seat, points, score.direct_points) != (r.winner, r.game_points, our_score):
        raise Mismatch(
            f"results differ: package seat {seat}, {points} game points, score {score.direct_points}; "
            f"ours {r} ({' '.join(CARD_NAMES[c] for c in s.talon)})"
        )
    return s


def _card(c: int) -> Any:
    """The package ``Card`` of our card id."""
    from schnapsen.deck import Card, Rank, Suit

    suit = next(k for k, v in SUITS.items() if v == c // 6)
    rank = next(k for k, v in RANKS.items() if v == c % 6)
    return Card.get_card(Rank[rank], Suit[suit])


def package_state(world: State, me: int) -> tuple[Any, Any]:
    """A package ``GameState`` of our ``world`` for the seat ``me`` to move in,
    and the leader's move when ``me`` follows (else None). Cards played
    before, and cards known in the opponent's hand, go into a history of
    stand-in tricks: the package bots read what they have seen from it."""
    from schnapsen.game import BotState, GameState, Hand, Marriage, Previous, RegularMove, RegularTrick, Score
    from schnapsen.game import Talon as PkgTalon

    leader = me if world.window == LEAD else 1 - me
    hands = list(world.hands)
    leader_move: Any = None
    if world.window == FOLLOW:
        lead = world.lead_card
        hands[leader] |= 1 << lead  # the package removes the led card after the trick
        suit = lead // 6
        if lead % 6 == KING and world.shown[leader] >> suit & 1:
            leader_move = Marriage(_card(6 * suit + QUEEN), _card(lead))
        else:
            leader_move = RegularMove(_card(lead))

    def score(p: int) -> Any:
        direct = world.score(p)
        pending = 0
        if world.held is not None:
            suits, at = world.held[p]
            if world.tricks[p] <= at:
                pending = marriage_points(suits, world.trump)
        return Score(direct_points=direct, pending_points=pending)

    def bot_state(p: int) -> Any:
        hand = Hand([_card(c) for c in cards_of(hands[p])], max_size=5)
        return BotState(implementation=cast(Any, None), hand=hand, score=score(p),  # a stand-in: no bot
                        won_cards=[_card(c) for c in cards_of(world.won[p])])

    size = len(world.talon)
    rest = [*world.talon[size - world.stock : size - 1], world.trump_card] if world.stock else []
    suit_name = next(k for k, v in SUITS.items() if v == world.trump)
    from schnapsen.deck import Suit

    talon = PkgTalon([_card(c) for c in rest], trump_suit=Suit[suit_name])

    def state(previous: Any) -> Any:
        lead_state, follow_state = bot_state(leader), bot_state(1 - leader)
        return GameState(leader=lead_state, follower=follow_state, talon=talon, previous=previous)

    seen = (world.played[0] | world.played[1] | world.known[1 - me] & hands[1 - me]) & ~hands[me]
    if world.window == FOLLOW:
        seen &= ~(1 << world.lead_card)
    fillers = cards_of(hands[me]) or [world.trump_card]
    seen_cards = cards_of(seen)
    previous = None
    for i in range(0, len(seen_cards), 2):
        a = seen_cards[i]
        b = seen_cards[i + 1] if i + 1 < len(seen_cards) else fillers[0]
        trick = RegularTrick(leader_move=RegularMove(_card(a)), follower_move=RegularMove(_card(b)))
        previous = Previous(state(previous), trick, True)
    return state(previous), leader_move


class PackageMissingError(ValueError):
    """The optional ``schnapsen`` package is not installed."""


def check_kind(kind: str) -> str:
    """A package bot's kind (the ``schnapsen-pkg:KIND`` spec), checked with the package present."""
    if kind not in PACKAGE_BOTS:
        raise ValueError(f"unknown schnapsen package bot {kind!r}: choose one of {', '.join(PACKAGE_BOTS)}")
    if importlib.util.find_spec("schnapsen") is None:
        raise PackageMissingError("the optional 'schnapsen' package is not installed: "
                                  "pip install -e '.[schnapsen]'")
    return kind


class PackageBot(BaseAgent):
    """A bot of the ``schnapsen`` package (``rand``, ``bully`` or ``rdeep``)
    as our agent, for ``schnapsen-pkg`` deals only."""

    inner: Any  # the package's bot (its classes differ by kind)

    def __init__(self, kind: str = "rdeep", seed: int | None = None) -> None:
        check_kind(kind)
        super().__init__(seed)
        self.kind = kind
        self.name = f"pkg-{kind}"
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        from schnapsen.bots import BullyBot, RandBot, RdeepBot

        self.rng.seed(seed)
        inner_rng = random.Random(self.rng.random())
        if self.kind == "rdeep":
            self.inner = RdeepBot(num_samples=4, depth=4, rand=inner_rng)
        else:
            self.inner = (BullyBot if self.kind == "bully" else RandBot)(inner_rng)

    def act(self, view: PlayerView) -> int:
        from schnapsen.game import FollowerPerspective, LeaderPerspective, SchnapsenGamePlayEngine

        require_turn(view)
        if view.rules.name != "schnapsen-pkg":
            raise ValueError(f"{self.name} plays the schnapsen-pkg rules only, not {view.rules.spec!r}")
        if view.window == LEAD and view.marriage_suit >= 0:
            return 6 * view.marriage_suit + KING  # the marriage's king, chosen with the marriage
        gs, leader_move = package_state(sample_state(view, self.rng), view.player)
        engine = SchnapsenGamePlayEngine()
        if leader_move is None:
            perspective: Any = LeaderPerspective(gs, engine)
        else:
            perspective = FollowerPerspective(gs, engine, leader_move)
        tok = token(self.inner.get_move(perspective, leader_move))
        if tok[0] == "card":
            return tok[1]
        return MARRIAGE + tok[1] if tok[0] == "marriage" else EXCHANGE


__all__ = [
    "PACKAGE_BOTS", "Mismatch", "PackageBot", "PackageMissingError", "card_of", "check_kind", "compare_deal",
    "our_tokens", "package_state",
    "play_token", "token",
]  # fmt: skip
