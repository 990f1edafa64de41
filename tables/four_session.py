"""A four-player table: the person and a partner bot against two bots (docs/rules-four.md).

:class:`FourSession` is the four-player :class:`tables.session.Session`: the
same methods and properties, so the terminal (:mod:`tables.terminal`) and the
web table (:mod:`tables.games`, :mod:`tables.game_api`) drive either one
through one code path. It plays the game through the game contract
(:mod:`sixtysix_env.contract`: ``legal_mask``, ``apply``, ``result``,
``match_scores``), deals with :mod:`sixtysix_env.four_deals` from the seed,
and gives each bot (``agents.four.make_four_agent``) only its own
:class:`~sixtysix_env.four_knowledge.FourView`.

The person sits at seat 0, the partner at seat 2, the opponents at 1 and 3.
Sides are teams: ``"you"`` is the person's team. Four-player games are not
written to a record file (``recorded`` is False): ``sixtysix replay`` and the
viewer read two-player games.
"""

from __future__ import annotations

import copy
import operator
import re
import secrets
import types
from collections import deque
from typing import Any

from agents.four import make_four_agent
from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE, EXCHANGE
from sixtysix_env.cards import CARD_NAMES, SUIT_NAMES
from sixtysix_env.contract import GameView
from sixtysix_env.engine import LEAD, OVER
from sixtysix_env.episodes import check_episode
from sixtysix_env.four import FOUR, FourState
from sixtysix_env.four_deals import deal_four, next_four
from sixtysix_env.four_knowledge import FourView, view_four
from sixtysix_env.seeding import derive_seed

from .four_frame import SEAT_NAMES, SEAT_WORDS, FourFrame, four_frame, four_moves, why_illegal_four
from .frame import DealFrame, DealScores, Event, Forfeit, GameSummary, Move, Tricks, YouAndBot
from .moves import IllegalMove, marriage_points, parse_move

FRAMES_KEPT = 64
FOUR_SPEC = re.compile(r"random|heuristic|search(:[1-9][0-9]?)?")
REASONS = {
    "declared": "{w} declared 66",
    "false_declaration": "{l} declared with less than 66",
    "last_trick": "all tricks played, {w} scored more points",
    "drawn": "all tricks played, equal points: nobody scores, the same dealer deals again",
}
NO_SUCH_MOVE = "the four-player game has no talon: no exchange, closing or continue"


def check_four_spec(spec: Any, what: str) -> str:
    """A four-player bot spec as text (``random``, ``heuristic``, ``search``, ``search:N`` with
    N 1-99), checked before any bot is built; else a ``ValueError`` naming ``what``."""
    if not isinstance(spec, str) or FOUR_SPEC.fullmatch(spec) is None:  # the exact whole text
        shown = repr(spec)[:40]
        raise ValueError(f"{what} must be a four-player bot: random, heuristic, search or search:N "
                         f"(N 1-99), got {shown}")
    return spec


class FourSession:
    """A match (``episode="match"``) or one deal of the person and ``partner`` against two
    ``opponents`` bots. ``seed`` fixes the cards and the bots (None: random, kept secret until
    the game is over); deal ``k`` is dealt from ``derive_seed(seed, "four-deal", k)``."""

    players = 4
    recorded = False  # not written to a record file
    seat = 0

    def __init__(self, partner: str = "heuristic", opponents: str = "heuristic", *, seed: int | None = None,
                 episode: str = "match", auto_forced: bool = True) -> None:
        check_episode(episode)
        partner = check_four_spec(partner, "partner")
        opponents = check_four_spec(opponents, "opponents")
        bad_seed = isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63
        if seed is not None and bad_seed:
            raise ValueError(f"seed must be an int in 0..2**63-1, got {seed!r}")
        self.seed_chosen = seed is not None
        self.seed = secrets.randbits(63) if seed is None else seed
        self.unit = episode
        self.auto_forced = auto_forced
        self.rules = FOUR
        self.partner, self.opponents = partner, opponents
        self.bots = {s: make_four_agent(partner if s == 2 else opponents, derive_seed(self.seed, "seat", s))
                     for s in (1, 2, 3)}
        self.bot = types.SimpleNamespace(**{SEAT_WORDS[s]: b for s, b in self.bots.items()})
        self.bot_name = opponents
        self.state: FourState = deal_four(derive_seed(self.seed, "four-deal", 0), rules=FOUR)
        self.deal_number = 1
        self.version = 0
        self.events: list[Event] = []
        self.frames: deque[FourFrame] = deque(maxlen=FRAMES_KEPT)
        self.deal_results: list[DealFrame] = []
        self.tricks = Tricks()
        self.forfeit: Forfeit | None = None
        self._finished = False
        self.frames.append(self.frame())

    # ----------------------------------------------------------------- status
    @property
    def view(self) -> FourView:
        """What the person knows now."""
        return view_four(self.state, 0)

    @property
    def over(self) -> bool:
        return self._finished

    @property
    def human_to_act(self) -> bool:
        return not self._finished and self.state.to_act == 0 and self.state.window != OVER

    @property
    def bot_to_act(self) -> bool:
        return not self._finished and self.state.to_act != 0 and self.state.window != OVER

    def who(self, seat: int) -> str:
        return SEAT_WORDS[seat]

    # ------------------------------------------------------------ the person
    def legal_moves(self, v: FourView | None = None) -> list[Move]:
        return [] if self._finished else four_moves(self.view if v is None else v)

    def forced_action(self) -> int | None:
        if not self.auto_forced or not self.human_to_act:
            return None
        legal = self.view.legal_mask
        return legal.bit_length() - 1 if legal and not legal & (legal - 1) else None

    def parse_move(self, text: str) -> int:
        """A typed move (a card, ``marry H``, ``66``); :class:`IllegalMove` says why it is not
        legal now, ``ValueError`` when the text is no move of the four-player game."""
        action = parse_move(self.view, text)
        if action in (EXCHANGE, CLOSE, CONTINUE):
            raise IllegalMove(NO_SUCH_MOVE)
        return self.check_legal(action)

    def check_legal(self, action: Any) -> int:
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 32:
            raise ValueError(f"an action is an int 0-31, got {action!r}")
        if self._finished:
            raise IllegalMove("the game is over")
        if not self.human_to_act:
            raise IllegalMove("it is not your turn")
        reason = why_illegal_four(self.view, action)
        if reason is not None:
            raise IllegalMove(reason)
        return action

    def play(self, action: int) -> list[FourFrame]:
        self.check_legal(action)
        return self._apply(0, action)

    def resign(self) -> list[FourFrame]:
        """The person gives up: their team loses the match at once."""
        if self._finished:
            raise IllegalMove("the game is over")
        return self._lose(0, "resigned", "the person resigned", "You resign")

    # ----------------------------------------------------------------- the bots
    def bot_view(self) -> tuple[FourView, dict[str, Any]]:
        if not self.bot_to_act:
            raise ValueError("it is not a bot's turn")
        return view_four(self.state, self.state.to_act), {}

    def bot_decide(self, v: FourView, kwargs: dict[str, Any]) -> tuple[int | None, str | None]:
        """The move of the bot at ``v``'s seat: ``(action, None)`` or ``(None, error)``."""
        try:
            action = self.bots[v.player].act(copy.deepcopy(v), **kwargs)
            if isinstance(action, bool):
                raise TypeError("act() returned a bool, not an action id")
            return operator.index(action), None
        except BaseException as e:  # noqa: BLE001 - a crashing bot forfeits, as in the arena
            return None, f"{type(e).__name__}: {e}"[:500]

    def apply_bot(self, v: GameView, action: int | None, error: str | None) -> list[FourFrame]:
        """Apply a bot's move for view ``v`` (dropped when stale); a crash or an illegal move forfeits."""
        if not self.bot_to_act or self.state.to_act != v.player or view_four(self.state, v.player) != v:
            return []
        if error is not None:
            return self.forfeit_bot(error)
        if action is None or not 0 <= action < 32 or not (v.legal_mask >> action) & 1:
            return self.forfeit_bot(f"illegal action {action}", "illegal")
        return self._apply(v.player, action)

    def forfeit_bot(self, error: str, reason: str = "exception") -> list[FourFrame]:
        """The bot to act loses the game for its team (it crashed or chose an illegal move)."""
        if self._finished:
            return []
        seat = self.state.to_act
        what = "chose an illegal move" if reason == "illegal" else f"crashed ({error[:200]})"
        return self._lose(seat, reason, error, f"{SEAT_NAMES[seat]} {what} and forfeits")

    def bot_move(self) -> list[FourFrame]:
        v, kwargs = self.bot_view()
        return self.apply_bot(v, *self.bot_decide(v, kwargs))

    # --------------------------------------------------------------- applying
    def _apply(self, seat: int, action: int) -> list[FourFrame]:
        state = self.state
        before = view_four(state, 0)
        deal_no = self.deal_number
        state.apply(action)
        self.version += 1
        after = view_four(state, 0)
        taker = None
        if action < 24:
            if before.window != LEAD and len(before.trick) == 3:  # the card completes the trick
                taker = after.leader
            self.tricks.play(seat, action, before.window == LEAD, taker)
        self._event(seat, action, self._move_text(seat, action, before, after, taker), deal_no)
        if state.result is None:
            frames = [self.frame(after, deal_no)]
        else:
            frames = self._end_deal(after, deal_no)
        self.frames.extend(frames)
        return frames

    def _move_text(self, seat: int, action: int, before: FourView, after: FourView, taker: int | None) -> str:
        subject = SEAT_NAMES[seat]
        s = "" if seat == 0 else "s"
        if action < 24:
            card = CARD_NAMES[action]
            if before.window == LEAD:
                return f"{subject} lead{s} {card}"
            if taker is None:
                return f"{subject} play{s} {card}"
            team = taker & 1
            gained = after.points[team] - before.points[team]
            takes = "You take" if taker == 0 else f"{SEAT_NAMES[taker]} takes"
            return f"{subject} play{s} {card}: {takes} the trick ({gained} points)"
        if action == DECLARE:
            return f"{subject} declare{s} 66 with {before.scores[seat & 1]} for the team"
        suit = action - 24
        pts = marriage_points(suit, before.trump)
        text = f"{subject} show{s} the marriage in {SUIT_NAMES[suit]} ({pts})"
        return text + (", counted after the team's first trick" if before.tricks[seat & 1] == 0 else "")

    def _end_deal(self, after: FourView, deal_no: int) -> list[FourFrame]:
        res = self.state.result
        if self.unit == "deal" or self.state.match_over:
            self._finished = True
        result = self._deal_result(res, deal_no)
        self.deal_results.append(result)
        self._event(None, None, result["text"], deal_no)
        frames = [self.frame(after, deal_no)]
        if not self._finished:
            self.state = next_four(self.state, derive_seed(self.seed, "four-deal", deal_no))
            self.deal_number += 1
            self.tricks = Tricks()
            frames.append(self.frame())
        return frames

    def _deal_result(self, res: Any, deal_no: int) -> DealFrame:
        w = res.winner
        if w is None:
            head = f"Deal {deal_no}: drawn"
        else:
            who = "Your team wins" if w == 0 else "The opponents win"
            head = f"Deal {deal_no}: {who} {res.game_points} game point{'s' if res.game_points > 1 else ''}"
        why = REASONS.get(res.reason, res.reason)
        if w is not None:
            teams = ("your team", "the opponents")
            why = why.format(w=teams[w], l=teams[1 - w])
        text = f"{head} ({why}; points {res.scores[0]}:{res.scores[1]})"
        if self._finished:
            text += ". Game over: " + self.title()
        return DealFrame(deal=deal_no, winner=None if w is None else ("you" if w == 0 else "opponent"),
                          game_points=res.game_points, reason=res.reason,
                          scores=DealScores(you=res.scores[0], opponent=res.scores[1]), text=text,
                          match_over=self._finished)

    def _lose(self, seat: int, reason: str, detail: str, text: str) -> list[FourFrame]:
        self.version += 1
        self.forfeit = Forfeit(seat=seat, reason=reason, detail=detail)
        self._finished = True
        self._event(seat, None, f"{text}: Game over: {self.title()}")
        f = self.frame()
        self.frames.append(f)
        return [f]

    def _event(self, seat: int | None, action: int | None, text: str, deal_no: int | None = None) -> None:
        self.events.append(Event(seq=len(self.events), version=self.version, deal=deal_no or self.deal_number,
                                 who=None if seat is None else SEAT_WORDS[seat], action=action, text=text))

    # ------------------------------------------------------------------ results
    @property
    def winner(self) -> int | None:
        """The winning team once the game is over (None: drawn or not over)."""
        if not self._finished:
            return None
        if self.forfeit is not None:
            return 1 - (self.forfeit["seat"] & 1)
        if self.unit == "deal":
            return self.state.result.winner if self.state.result is not None else None
        return self.state.match_winner

    def title(self) -> str:
        """Who won the finished game, the person's team first."""
        w = self.winner
        if w is None:
            return "drawn"
        won = "Your team wins" if w == 0 else "The opponents win"
        if self.unit == "deal":
            return f"{won} the deal"
        ms = self.state.match_scores
        return f"{won} the match · your team {ms[0]} : {ms[1]} opponents"

    def frame(self, v: FourView | None = None, deal_no: int | None = None) -> FourFrame:
        """The table as the person may see it (JSON-ready), from their view ``v`` (default: now)."""
        v = self.view if v is None else v
        deal_no = deal_no or self.deal_number
        over = v.window == OVER
        events = [e for e in self.events if e["version"] == self.version and e["deal"] == deal_no]
        return FourFrame(version=self.version, deal=deal_no, **four_frame(v, self.tricks, self._finished),
                         deal_result=self.deal_results[-1] if over and self.deal_results else None,
                         events=events)

    def summary(self) -> GameSummary:
        done = self._finished
        w = self.winner
        ms = self.state.match_scores
        return GameSummary(
            bot=self.opponents, episode=self.unit, seat="player_0", version=self.version, over=done,
            winner=None if w is None else ("you" if w == 0 else "opponent"),
            match_score=YouAndBot(you=ms[0], opponent=ms[1]) if done else None,
            forfeit=self.forfeit, title=self.title() if done else None,
            seed=self.seed if done or self.seed_chosen else None, deals=self.deal_results,
            rules=self.rules.name, players=4, partner=self.partner,
        )

    def frames_since(self, version: int) -> list[FourFrame]:
        return [f for f in self.frames if f["version"] > version]

    def game_line(self, **extra: Any) -> dict[str, Any]:
        raise ValueError("four-player games are not recorded")


__all__ = ["FourSession", "check_four_spec"]
