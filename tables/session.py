"""One game between a person and a bot: the model both tables share.

A :class:`Session` plays a match (or one deal) through the public PettingZoo
environment, ``sixtysix_env.env(episode=...)``, reset with the game's seed,
so the finished game is an arena :class:`~agents.record.GameRecord` that
``sixtysix replay`` re-runs move by move. The bot comes from
``agents.make_agent`` and sees only its own view, as in the arena.

Everything a table shows comes from :meth:`Session.frame`: the person's
:class:`~sixtysix_env.PlayerView` and the public moves, drawn by
:func:`tables.frame.table_frame` and told by :class:`tables.narration.Narrator`.
Typed moves are read, and illegal ones refused with the reason, by
:mod:`tables.moves`.

Typical use (the terminal and the web table do exactly this)::

    s = Session("heuristic", seed=7)
    while not s.over:
        if s.bot_to_act:
            s.bot_move()                 # the web table runs bot_decide() in a thread
        elif s.forced_action() is not None:
            s.play(s.forced_action())    # the only legal move
        else:
            s.play(s.parse_move("TH"))   # IllegalMove says why, the game is unchanged
    s.game_line()                        # the record, ready for tables.store
"""

from __future__ import annotations

import copy
import functools
import operator
import secrets
from collections import deque
from typing import Any

import sixtysix_env
from agents import make_agent
from agents.core.forfeits import EXCEPTION, ILLEGAL, RESIGNED
from agents.record import GameRecord
from agents.registry import check_plays
from sixtysix_env import PlayerView, view
from sixtysix_env.actions import DECLARE
from sixtysix_env.contract import GameView
from sixtysix_env.engine import LEAD, OVER, PLAYER_IDS
from sixtysix_env.episodes import check_episode
from sixtysix_env.seeding import derive_seed
from sixtysix_env.variants import Rules, rules_from_spec

from .frame import (
    DealFrame,
    Event,
    Forfeit,
    Frame,
    GameSummary,
    Move,
    Tricks,
    YouAndBot,
    legal_moves,
    table_frame,
)
from .moves import IllegalMove, parse_move, why_illegal
from .narration import Narrator

HUMAN_NAME = "human"
FRAMES_KEPT = 64  # recent frames a table may ask for again (the opponent's moves, shown one by one)
SHARED_WEIGHTS = ("layers", "endgame_layers", "closed_layers")  # a ppo bot's weights: read-only, shared
PPO_KEPT = 8  # ppo checkpoints kept loaded (one per spec)


@functools.lru_cache(maxsize=PPO_KEPT)
def _loaded_ppo(spec: str) -> Any:
    return make_agent(spec, seed=0)


def make_bot(spec: str, seed: int | None) -> Any:
    """``agents.make_agent(spec, seed)``, except that every ``ppo`` bot of one spec shares one
    loaded copy of its network weights (read only, so threads may share them): each game gets
    its own copy of everything else (RNGs, solver). Without it a game with a ppo bot holds
    several MB of weights of its own."""
    if spec.partition(":")[0].strip().lower() != "ppo":
        return make_agent(spec, seed=seed)
    loaded = _loaded_ppo(spec)
    bot = copy.copy(loaded)
    for key, value in vars(loaded).items():
        if key not in SHARED_WEIGHTS:
            setattr(bot, key, copy.deepcopy(value))
    bot.reset(seed)
    return bot


def seat_of_seed(seed: int) -> int:
    """The person's seat when only a seed is given: a function of the seed, so that a
    seed reproduces the whole game (cards, seat, bot) and seats still vary from seed to seed."""
    return derive_seed(seed, "human seat") & 1


class Session:
    """A match (``episode="match"``) or one deal between a person and a bot.

    ``vs``: the bot's spec (anything ``agents.make_agent`` accepts); ``seed``:
    the cards (None: a random seed, kept secret from the tables until the
    game is over); ``seat``: the person's seat (0 or 1; None: :func:`seat_of_seed`,
    so that the seed alone reproduces the game). Bots are seeded as
    the arena seeds them (``derive_seed(seed, "seat", s)``), so a seed gives
    the same cards and the same bot.
    """

    players = 2
    recorded = True  # finished games are written to a record file (tables.store)

    def __init__(self, vs: str = "heuristic", *, seed: int | None = None, episode: str = "match",
                 seat: int | None = 0, auto_forced: bool = True, human: str = HUMAN_NAME,
                 rules: str | Rules | None = None) -> None:
        check_episode(episode)
        self.rules = rules_from_spec(rules)  # a bad spec: a named rules error (a ValueError)
        check_plays(vs, self.rules.spec)
        if seat is not None and (seat not in (0, 1) or isinstance(seat, bool)):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        bad_seed = isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63
        if seed is not None and bad_seed:
            raise ValueError(f"seed must be an int in 0..2**63-1, got {seed!r}")
        self.seed_chosen = seed is not None
        self.seed = secrets.randbits(63) if seed is None else seed
        seat = seat_of_seed(self.seed) if seat is None else seat
        self.unit = episode
        self.seat = seat
        self.bot_seat = 1 - seat
        self.auto_forced = auto_forced
        seeds = (derive_seed(self.seed, "seat", 0), derive_seed(self.seed, "seat", 1))
        self.bot = make_bot(vs, seeds[self.bot_seat])
        self.bot.reset(seeds[self.bot_seat])
        self.bot_name = str(self.bot.name)
        self._bot_needs_state = bool(getattr(self.bot, "requires_state", False))
        self.narrator = Narrator(seat, self.bot_name)
        players = [human, human]
        players[self.bot_seat] = self.bot_name
        self.record = GameRecord(seed=self.seed, unit=episode, players=(players[0], players[1]),
                                 agent_seeds=seeds)
        self.env = sixtysix_env.env(episode=episode, info_mode="rich", rules=self.rules)
        self.env.reset(seed=self.seed)
        self._raw = self.env.unwrapped
        self.version = 0  # moves applied (a resignation counts as one more)
        self.events: list[Event] = []
        self.frames: deque[Frame] = deque(maxlen=FRAMES_KEPT)
        self.deal_results: list[DealFrame] = []  # per finished deal, from the person's side
        self.tricks = Tricks()  # the trick on the table and the last one, from the public moves
        self._finished = False
        self.frames.append(self.frame())

    # ----------------------------------------------------------------- status
    @property
    def state(self) -> Any:
        """The engine state of the current deal (hidden cards included: never show it)."""
        return self._raw.game_state

    @property
    def view(self) -> PlayerView:
        """What the person knows now."""
        return view(self.state, self.seat)

    @property
    def over(self) -> bool:
        return self._finished

    @property
    def human_to_act(self) -> bool:
        return not self._finished and self.state.to_act == self.seat and self.state.window != OVER

    @property
    def bot_to_act(self) -> bool:
        return not self._finished and self.state.to_act == self.bot_seat and self.state.window != OVER

    @property
    def deal_number(self) -> int:
        return self._raw.deal_index + 1

    @property
    def winner(self) -> int | None:
        return self.record.winner if self._finished else None

    def who(self, seat: int) -> str:
        """How frames call a seat: ``"you"`` or ``"opponent"``."""
        return self.narrator.who(seat)

    # ------------------------------------------------------------ the person
    def legal_moves(self, v: PlayerView | None = None) -> list[Move]:
        """The person's legal moves in table order (cards as held, then the buttons)."""
        return [] if self._finished else legal_moves(self.view if v is None else v)

    def forced_action(self) -> int | None:
        """The person's move when it is the only legal one and ``auto_forced`` is on."""
        if not self.auto_forced or not self.human_to_act:
            return None
        legal = self.view.legal_mask
        return legal.bit_length() - 1 if legal and not legal & (legal - 1) else None

    def parse_move(self, text: str) -> int:
        """A move typed or sent by the person (:func:`tables.moves.parse_move` reads it).
        Raises :class:`IllegalMove` saying why when it is not legal now, ``ValueError``
        when the text is no move at all."""
        return self.check_legal(parse_move(self.view, text))

    def check_legal(self, action: Any) -> int:
        """``action`` as an int if the person may play it now, else :class:`IllegalMove`."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 32:
            raise ValueError(f"an action is an int 0-31, got {action!r}")
        if self._finished:
            raise IllegalMove("the game is over")
        if not self.human_to_act:
            raise IllegalMove("it is not your turn")
        reason = why_illegal(self.view, action)
        if reason is not None:
            raise IllegalMove(reason)
        return action

    def play(self, action: int) -> list[Frame]:
        """Play the person's ``action`` (checked); returns the new frames."""
        self.check_legal(action)
        return self._apply(self.seat, action)

    def resign(self) -> list[Frame]:
        """The person gives up: the match is lost at once (docs/rules.md section 4.4)."""
        if self._finished:
            raise IllegalMove("the game is over")
        self.version += 1
        self._forfeit(self.seat, RESIGNED, "the person resigned")
        self._event(self.seat, None, "You resign: " + self.narrator.game_over(self.record))
        f = self.frame()
        self.frames.append(f)
        return [f]

    # ----------------------------------------------------------------- the bot
    def bot_view(self) -> tuple[PlayerView, dict[str, Any]]:
        """What the bot may see, and the extra arguments its ``act`` takes (the
        cheating ``oracle`` gets a copy of the state, as in the arena)."""
        if not self.bot_to_act:
            raise ValueError("it is not the bot's turn")
        v = view(self.state, self.bot_seat)
        return v, ({"state": self.state.clone()} if self._bot_needs_state else {})

    def bot_decide(self, v: PlayerView, kwargs: dict[str, Any]) -> tuple[int | None, str | None]:
        """The bot's move for view ``v``: ``(action, None)``, or ``(None, error)`` when the bot
        raised. The bot gets its own copy of ``v`` (an edit to it cannot touch the game). Safe
        to run in another thread: it touches only the bot."""
        try:
            action = self.bot.act(copy.deepcopy(v), **kwargs)
            if isinstance(action, bool):
                raise TypeError("act() returned a bool, not an action id")
            return operator.index(action), None  # an int or a numpy integer; a float or text raises
        except BaseException as e:  # noqa: BLE001 - a crashing bot (even SystemExit) forfeits, as in the arena
            return None, f"{type(e).__name__}: {e}"[:500]

    def apply_bot(self, v: GameView, action: int | None, error: str | None) -> list[Frame]:
        """Apply the move :meth:`bot_decide` returned for view ``v``; a stale move (the
        game moved on meanwhile) is dropped. A bot that crashed or chose an illegal
        move forfeits, as in the arena."""
        if not self.bot_to_act or view(self.state, self.bot_seat) != v:
            return []
        if error is not None:
            return self.forfeit_bot(error)
        if action is None or not 0 <= action < 32 or not (v.legal_mask >> action) & 1:
            return self.forfeit_bot(f"illegal action {action}", ILLEGAL)
        return self._apply(self.bot_seat, action)

    def forfeit_bot(self, error: str, reason: str = EXCEPTION) -> list[Frame]:
        """The bot loses the game: it crashed (``reason="exception"``) or chose an illegal move."""
        if self._finished:
            return []
        self.version += 1
        self._forfeit(self.bot_seat, reason, error)
        what = "chose an illegal move" if reason == ILLEGAL else f"crashed ({error[:200]})"
        self._event(self.bot_seat, None, f"{self.bot_name} {what} and forfeits: "
                    + self.narrator.game_over(self.record))
        f = self.frame()
        self.frames.append(f)
        return [f]

    def bot_move(self) -> list[Frame]:
        """Let the bot move now, in this thread (the terminal table)."""
        v, kwargs = self.bot_view()
        return self.apply_bot(v, *self.bot_decide(v, kwargs))

    # --------------------------------------------------------------- applying
    def _apply(self, seat: int, action: int) -> list[Frame]:
        state = self.state
        before = view(state, self.seat)
        deal_no = self.deal_number
        self.env.step(action)
        self.version += 1
        self.record.add_move(action)
        after = view(state, self.seat)  # ``state`` is the deal just played, even when it ended
        if action < 24:
            taker = 0 if after.tricks[0] > before.tricks[0] else 1
            self.tricks.play(seat, action, before.window == LEAD, taker)
        text = self.narrator.move(seat, action, before, after, self.tricks.taken_by)
        self._event(seat, action, text, deal_no)
        if state.result is None:
            frames = [self.frame(after, deal_no)]
        else:
            frames = self._end_deal(state, after, deal_no, declared=action == DECLARE)
        self.frames.extend(frames)
        return frames

    def _end_deal(self, state: Any, after: PlayerView, deal_no: int, declared: bool = True) -> list[Frame]:
        """Record the deal just finished (``declared``: ended by a declaration, not by a
        trick that reached 66); the frames of its end and of the next deal's start."""
        self.record.add_deal(self._raw.infos[PLAYER_IDS[0]]["deal_result"])
        if self._raw.terminations[PLAYER_IDS[0]]:
            self._finish()
        game_over = self.narrator.game_over(self.record) if self._finished else None
        result = self.narrator.deal_result(state.result, deal_no, game_over, declared)
        self.deal_results.append(result)
        self._event(None, None, result["text"], deal_no)
        frames = [self.frame(after, deal_no)]
        if not self._finished:  # the env has dealt the next deal
            self.tricks = Tricks()
            frames.append(self.frame())
        return frames

    def _finish(self) -> None:
        self.record.finish(self.state.match_scores)
        self._finished = True

    def _forfeit(self, seat: int, reason: str, detail: str) -> None:
        self.record.lose_by_forfeit(seat, reason, detail, self.state.match_scores)
        self._finished = True

    def _event(self, seat: int | None, action: int | None, text: str, deal_no: int | None = None) -> None:
        self.events.append(Event(
            seq=len(self.events), version=self.version, deal=deal_no or self.deal_number,
            who=None if seat is None else self.who(seat), action=action, text=text,
        ))

    # ------------------------------------------------------------------ frames
    def frame(self, v: PlayerView | None = None, deal_no: int | None = None) -> Frame:
        """The table as the person may see it (JSON-ready), from their view ``v``
        (default: now) and the public moves; cards by name."""
        v = self.view if v is None else v
        deal_no = deal_no or self.deal_number
        over = v.window == OVER
        return Frame(
            version=self.version,
            deal=deal_no,
            **table_frame(v, self.tricks, self._finished),
            deal_result=self.deal_results[-1] if over and self.deal_results else None,
            events=[e for e in self.events if e["version"] == self.version and e["deal"] == deal_no],
        )

    def summary(self) -> GameSummary:
        """The game around the table: players, episode, result (JSON-ready)."""
        rec = self.record
        return GameSummary(
            bot=self.bot_name, episode=self.unit, seat=PLAYER_IDS[self.seat],
            version=self.version, over=self._finished,
            winner=None if rec.winner is None or not self._finished else self.who(rec.winner),
            match_score=YouAndBot(you=rec.match_score[self.seat], opponent=rec.match_score[self.bot_seat])
            if self._finished else None,
            forfeit=None if rec.forfeit is None else Forfeit(
                seat=rec.forfeit["seat"], reason=rec.forfeit["reason"], detail=rec.forfeit["detail"]),
            title=self.narrator.result_title(rec) if self._finished else None,
            seed=self.seed if self._finished or self.seed_chosen else None,
            deals=self.deal_results,
            rules=self.rules.spec,
            players=2,
            partner=None,
        )

    def frames_since(self, version: int) -> list[Frame]:
        """Kept frames newer than ``version`` (what a table has not shown yet)."""
        return [f for f in self.frames if f["version"] > version]

    # ------------------------------------------------------------------ record
    def game_line(self, **extra: Any) -> dict[str, Any]:
        """The finished game as an arena results line: the run's players are the person (0)
        and the bot (1), each game its own cluster (``index`` and ``cluster`` set by the store)."""
        if not self._finished:
            raise ValueError("the game is not over")
        seats = [0, 1] if self.seat == 0 else [1, 0]  # player index at seat 0 and seat 1
        line: dict[str, Any] = {"type": "game", "index": None, "pairing": [0, 1], "seats": seats,
                                "cluster": None}
        line.update(self.record.to_dict())
        line.update(human_seat=self.seat, source="tables", rules=self.rules.spec)
        line.update(extra)
        return line


__all__ = ["Session", "make_bot", "seat_of_seed"]
