"""One game between a person and a bot: the model both tables share.

A :class:`Session` plays a match (or one deal) through the public PettingZoo
environment, ``sixtysix_env.env(episode=...)``, reset with the game's seed,
so the finished game is an arena :class:`~agents.play.GameRecord` that
``sixtysix replay`` re-runs move by move. The bot comes from
``agents.make_agent`` and sees only its own view, as in the arena.

Everything a table shows comes from :meth:`Session.frame`: a JSON-ready
dict built from the person's :class:`~sixtysix_env.PlayerView` and the
moves played so far (every move in Sixty-Six is public once made). Cards are
written by name (``"TH"``); the tables draw them. Nothing else about the
hidden cards reaches it, so nothing else can reach a screen.

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

import re
import secrets
from collections import deque
from typing import Any

import sixtysix_env
from agents import make_agent
from agents.play import AGENT_IDS, GameRecord, derive_seed
from agents.play import _deal_dict as deal_dict  # the record's own converter: one format
from sixtysix_env import ACTION_NAMES, PlayerView, parse_action, view
from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE, actions_of
from sixtysix_env.cards import CARD_NAMES, SUIT_LETTERS, SUIT_NAMES, cards_of
from sixtysix_env.engine import (
    CLOSE_RESPONSE,
    DRAW,
    FINAL,
    FOLLOW,
    LEAD,
    MARRIAGE_POINTS,
    MATCH_TARGET,
    OVER,
    TRUMP_MARRIAGE_POINTS,
    WIN_SCORE,
    WINDOW_NAMES,
)

YOU, OPPONENT = "you", "opponent"
EPISODES = ("match", "deal")
HUMAN_NAME = "human"
SUIT_SYMBOLS = "♣♠♥♦"
RESIGNED = "resigned"  # the forfeit reason of a person who gives up (RULES.md 4.4)
FRAMES_KEPT = 64  # recent frames a table may ask for again (the opponent's moves, shown one by one)
KIND_ORDER = {"card": 0, "marriage": 1, "exchange": 2, "close": 3, "declare": 4, "continue": 5}
REASON_TEXT = {
    "declared": "{w} declared 66",
    "closer_beaten": "{w} declared 66 after {l} closed the talon",
    "false_declaration": "{l} declared with less than 66",
    "closer_failed": "{l} closed the talon and did not reach 66",
    "last_trick": "all tricks played, {w} has more points",
    "drawn": "all tricks played, equal points: nobody scores, the same dealer deals again",
}
_CARD_WORD = re.compile(r"^(10|[9jqkta])\s*([cshd♣♠♥♦])$", re.IGNORECASE)


class IllegalMove(ValueError):
    """A move the person may not make now; the message says why. The game is unchanged."""


def card_order(cards: list[int], trump: int) -> list[int]:
    """Cards as a hand is held: suits alternating in colour, trumps last, low to high."""
    suits = [s for s in (0, 2, 1, 3) if s != trump] + [trump]
    return sorted(cards, key=lambda c: (suits.index(c // 6), c % 6))


def parse_card_word(text: str) -> int | None:
    """``"TH"``, ``"th"``, ``"10H"``, ``"T♥"``, ``"10 ♥"`` -> card id; None if not a card."""
    m = _CARD_WORD.match(text.strip())
    if m is None:
        return None
    rank = "T" if m.group(1) == "10" else m.group(1).upper()
    suit = m.group(2).upper()
    suit = SUIT_LETTERS[SUIT_SYMBOLS.index(suit)] if suit in SUIT_SYMBOLS else suit
    return CARD_NAMES.index(rank + suit)


def parse_suit_word(text: str) -> int | None:
    t = text.strip().lower()
    for s in range(4):
        if t in (SUIT_LETTERS[s].lower(), SUIT_SYMBOLS[s], SUIT_NAMES[s], SUIT_NAMES[s][:-1]):
            return s
    return None


def marriage_points(suit: int, trump: int) -> int:
    return TRUMP_MARRIAGE_POINTS if suit == trump else MARRIAGE_POINTS


def why_illegal(v: PlayerView, action: int) -> str | None:
    """Why ``action`` is not legal for the player of view ``v`` (None if it is),
    in words a player understands. Reads only the view."""
    if (v.legal_mask >> action) & 1:
        return None
    if v.window == OVER:
        return "the game is over"
    if v.to_act != v.player:
        return "it is not your turn"
    w = v.window
    hand = v.hand
    nine = 6 * v.trump
    if action < 24:
        name = CARD_NAMES[action]
        if not (hand >> action) & 1:
            return f"you do not hold {name}"
        if w == DRAW:
            return "you took the trick: draw first (continue), or close, exchange or declare"
        if w == CLOSE_RESPONSE:
            return "the talon was just closed: continue (or exchange the nine of trumps) first"
        if w == FINAL:
            return "no cards left to play: declare or continue"
        if w == LEAD and v.marriage_suit >= 0:
            suit = SUIT_NAMES[v.marriage_suit]
            return f"after showing the marriage in {suit} you must lead its king or queen"
        if w == FOLLOW:
            lead = v.lead_card
            lead_suit = lead // 6
            same = hand & (0b111111 << (6 * lead_suit))
            if same:
                if action // 6 != lead_suit:
                    return f"the talon is {_talon_word(v)}: you must follow suit ({SUIT_NAMES[lead_suit]})"
                return f"the talon is {_talon_word(v)}: you must beat {CARD_NAMES[lead]} with a higher " \
                    f"{SUIT_NAMES[lead_suit][:-1]}"
            return f"the talon is {_talon_word(v)}: with no {SUIT_NAMES[lead_suit]} you must play a trump"
        return f"{name} cannot be played now"
    if MARRIAGE <= action < EXCHANGE:
        suit = action - MARRIAGE
        if w != LEAD:
            return "a marriage is shown when you lead"
        if not v.talon_open:
            return f"no marriages once the talon is {_talon_word(v)}"
        if v.marriage_suit >= 0:
            return "one marriage per lead: now lead its king or queen"
        return f"you do not hold the king and queen of {SUIT_NAMES[suit]}"
    if action == EXCHANGE:
        if not (hand >> nine) & 1:
            return "you do not hold the nine of trumps"
        if not v.talon_open and w != CLOSE_RESPONSE:
            return f"the talon is {_talon_word(v)}"
        if w == FOLLOW:
            return "only the player on lead may exchange"
        if w == LEAD and v.marriage_suit >= 0:
            return "exchange before showing a marriage, not after"
        if v.tricks[v.player] == 0:
            return "you may exchange only after taking a trick"
        return "you cannot exchange now"
    if action == CLOSE:
        if not v.talon_open:
            return f"the talon is already {_talon_word(v)}"
        if w in (FOLLOW, CLOSE_RESPONSE):
            return "only the player on lead may close the talon"
        return "you cannot close now"
    if action == DECLARE:
        if v.tricks[v.player] == 0:
            return "you need a trick before you can declare"
        return "you may declare only right after taking a trick or showing a marriage"
    if action == CONTINUE:
        if w == LEAD:
            return "you are on lead: play a card"
        if w == FOLLOW:
            return "play a card to the trick"
    return f"{ACTION_NAMES[action]} is not possible now"


def _talon_word(v: PlayerView) -> str:
    if v.closed_by >= 0:
        return "closed"
    return "open" if v.stock else "spent"


class Session:
    """A match (``episode="match"``) or one deal between a person and a bot.

    ``vs``: the bot's spec (anything ``agents.make_agent`` accepts); ``seed``:
    the cards (None: a random seed, kept secret from the tables until the
    game is over); ``seat``: the person's seat (0 or 1). Bots are seeded as
    the arena seeds them (``derive_seed(seed, "seat", s)``), so a seed gives
    the same cards and the same bot.
    """

    def __init__(self, vs: str = "heuristic", *, seed: int | None = None, episode: str = "match",
                 seat: int = 0, auto_forced: bool = True, human: str = HUMAN_NAME) -> None:
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if seat not in (0, 1) or isinstance(seat, bool):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        bad_seed = isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63
        if seed is not None and bad_seed:
            raise ValueError(f"seed must be an int in 0..2**63-1, got {seed!r}")
        self.seed_chosen = seed is not None
        self.seed = secrets.randbits(63) if seed is None else seed
        self.unit = episode
        self.seat = seat
        self.bot_seat = 1 - seat
        self.auto_forced = auto_forced
        seeds = (derive_seed(self.seed, "seat", 0), derive_seed(self.seed, "seat", 1))
        self.bot = make_agent(vs, seed=seeds[self.bot_seat])
        self.bot.reset(seeds[self.bot_seat])
        self.bot_name = str(self.bot.name)
        self._bot_needs_state = bool(getattr(self.bot, "requires_state", False))
        players = [human, human]
        players[self.bot_seat] = self.bot_name
        self.record = GameRecord(seed=self.seed, unit=episode, players=(players[0], players[1]),
                                 agent_seeds=seeds)
        self.env = sixtysix_env.env(episode=episode)
        self.env.reset(seed=self.seed)
        self._raw = self.env.unwrapped
        self.version = 0  # moves applied (a resignation counts as one more)
        self.events: list[dict[str, Any]] = []
        self.frames: deque[dict[str, Any]] = deque(maxlen=FRAMES_KEPT)
        self.deal_results: list[dict[str, Any]] = []  # per finished deal, from the person's side
        self._trick: list[tuple[int, int]] = []  # (seat, card) of the trick on the table
        self._taken_by: int | None = None  # winner of the trick on the table, once complete
        self._last_trick: tuple[list[tuple[int, int]], int] | None = None
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
        return YOU if seat == self.seat else OPPONENT

    def name(self, seat: int) -> str:
        """How texts call a seat: "you" or the bot's name."""
        return "you" if seat == self.seat else self.bot_name

    # ------------------------------------------------------------ the person
    def legal_moves(self, v: PlayerView | None = None) -> list[dict[str, Any]]:
        """The person's legal moves in table order (cards as held, then the buttons)."""
        v = self.view if v is None else v
        if v.to_act != self.seat or v.window == OVER or self._finished:
            return []
        moves = [self._move(v, a) for a in actions_of(v.legal_mask)]
        order = {c: i for i, c in enumerate(card_order(cards_of(v.hand), v.trump))}
        moves.sort(key=lambda m: (KIND_ORDER[m["kind"]], order.get(m["action"], m["action"])))
        return moves

    def _move(self, v: PlayerView, a: int) -> dict[str, Any]:
        me = self.seat
        m: dict[str, Any] = {"action": a, "name": ACTION_NAMES[a]}
        if a < 24:
            m.update(kind="card", card=CARD_NAMES[a], label=CARD_NAMES[a])
        elif a < EXCHANGE:
            s = a - MARRIAGE
            pts = marriage_points(s, v.trump)
            m.update(kind="marriage", suit=SUIT_LETTERS[s],
                     label=f"Marriage {SUIT_SYMBOLS[s]} ({pts}{', trumps' if s == v.trump else ''})")
        elif a == EXCHANGE:
            m.update(kind="exchange",
                     label=f"Exchange {CARD_NAMES[6 * v.trump]} for {CARD_NAMES[v.trump_card]}")
        elif a == CLOSE:
            m.update(kind="close", label="Close the talon" + (" (no draw)" if v.window == DRAW else ""))
        elif a == DECLARE:
            score = v.scores[me]
            m.update(kind="declare", label=f"Declare 66 (you have {score})" if score >= WIN_SCORE
                     else f"Declare 66 (false: you have {score})")
            m["false"] = score < WIN_SCORE
        else:
            label = {DRAW: "Draw", CLOSE_RESPONSE: "Continue (no exchange)",
                     FINAL: "Continue (no declaration)"}.get(v.window, "Continue")
            m.update(kind="continue", label=label)
        return m

    def forced_action(self) -> int | None:
        """The person's move when it is the only legal one and ``auto_forced`` is on."""
        if not self.auto_forced or not self.human_to_act:
            return None
        legal = self.view.legal_mask
        return legal.bit_length() - 1 if legal and not legal & (legal - 1) else None

    def parse_move(self, text: str) -> int:
        """A move typed or sent by the person: a card (``TH``, ``10H``, ``T♥``), ``marry H``,
        ``exchange``, ``close``, ``66``/``declare``, ``continue``/``draw``, or an action name
        (``play TH``, ``marriage H``). Raises :class:`IllegalMove` saying why when it is
        not legal now, ``ValueError`` when the text is no move at all."""
        if not isinstance(text, str) or len(text) > 40:
            raise ValueError("a move is a short text: a card, 'marry' and a suit, close, 66 or continue")
        t = " ".join(text.strip().lower().split())
        action = self._parse_words(t)
        if action is None:
            try:
                action = parse_action(t)
            except ValueError:
                raise ValueError(
                    f"not a move: {text.strip()!r}; type a card (rank 9 J Q K T A, then suit C S H D), "
                    "'marry' and a suit, 'exchange', 'close', '66' or 'continue'") from None
        self.check_legal(action)
        return action

    def _parse_words(self, t: str) -> int | None:
        card = parse_card_word(t)
        if card is not None:
            return card
        if t.startswith("play "):
            return parse_card_word(t[5:])
        words = t.split(" ")
        if words[0] in ("marry", "marriage", "m", "show", "meld", "20", "40"):
            if len(words) == 1:
                legal = [a for a in range(MARRIAGE, EXCHANGE) if (self.view.legal_mask >> a) & 1]
                if len(legal) > 1:
                    raise ValueError("which marriage? say 'marry H' (or C, S, D)")
                return legal[0] if legal else MARRIAGE + self.view.trump
            suit = parse_suit_word(" ".join(words[1:]))
            return None if suit is None else MARRIAGE + suit
        return {
            "exchange": EXCHANGE, "x": EXCHANGE, "swap": EXCHANGE,
            "close": CLOSE,
            "66": DECLARE, "declare": DECLARE, "claim": DECLARE, "out": DECLARE,
            "continue": CONTINUE, "draw": CONTINUE, "decline": CONTINUE, "pass": CONTINUE,
            "go": CONTINUE, "no": CONTINUE, "c": CONTINUE,
        }.get(t)

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

    def play(self, action: int) -> list[dict[str, Any]]:
        """Play the person's ``action`` (checked); returns the new frames."""
        self.check_legal(action)
        return self._apply(self.seat, action)

    def resign(self) -> list[dict[str, Any]]:
        """The person gives up: the match is lost at once (RULES.md 4.4)."""
        if self._finished:
            raise IllegalMove("the game is over")
        self.version += 1
        self._forfeit(self.seat, RESIGNED, "the person resigned")
        self._event(self.seat, None, "You resign: " + self._match_text())
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
        raised. Safe to run in another thread: it touches only the bot."""
        try:
            return int(self.bot.act(v, **kwargs)), None
        except Exception as e:  # noqa: BLE001 - a crashing bot forfeits, as in the arena
            return None, f"{type(e).__name__}: {e}"

    def apply_bot(self, v: PlayerView, action: int | None, error: str | None) -> list[dict[str, Any]]:
        """Apply the move :meth:`bot_decide` returned for view ``v``; a stale move (the
        game moved on meanwhile) is dropped. A bot that crashed or chose an illegal
        move forfeits, as in the arena."""
        if not self.bot_to_act or view(self.state, self.bot_seat) != v:
            return []
        if error is not None or action is None or not (v.legal_mask >> action) & 1:
            self.version += 1
            if error is not None:
                self._forfeit(self.bot_seat, "exception", error)
                text = f"{self.bot_name} crashed ({error[:200]}) and forfeits"
            else:
                self._forfeit(self.bot_seat, "illegal", f"illegal action {action}")
                text = f"{self.bot_name} chose an illegal move and forfeits"
            self._event(self.bot_seat, None, text + ": " + self._match_text())
            f = self.frame()
            self.frames.append(f)
            return [f]
        return self._apply(self.bot_seat, action)

    def bot_move(self) -> list[dict[str, Any]]:
        """Let the bot move now, in this thread (the terminal table)."""
        v, kwargs = self.bot_view()
        return self.apply_bot(v, *self.bot_decide(v, kwargs))

    # --------------------------------------------------------------- applying
    def _apply(self, seat: int, action: int) -> list[dict[str, Any]]:
        state = self.state
        before = view(state, self.seat)
        deal_no = self.deal_number
        self.env.step(action)
        self.version += 1
        self.record.actions.append(action)
        self.record.moves += 1
        after = view(state, self.seat)  # ``state`` is the deal just played, even when it ended
        self._track_trick(seat, action, before, after)
        self._event(seat, action, self._describe(seat, action, before, after), deal_no)
        frames = []
        if state.result is not None:
            info = self._raw.infos[AGENT_IDS[0]]
            self.record.deals.append(deal_dict(info["deal_result"]))
            if self._raw.terminations[AGENT_IDS[0]]:
                self._finish()
            self.deal_results.append(self._result_dict(state.result, deal_no))
            self._event(None, None, self._result_text(state.result, deal_no), deal_no)
            frames.append(self.frame(after, deal_no))
            if not self._finished:  # the env has dealt the next deal
                self._trick, self._taken_by, self._last_trick = [], None, None
                frames.append(self.frame())
        else:
            frames.append(self.frame(after, deal_no))
        self.frames.extend(frames)
        return frames

    def _track_trick(self, seat: int, action: int, before: PlayerView, after: PlayerView) -> None:
        if action >= 24:
            return
        if before.window == LEAD:
            if self._taken_by is not None:
                self._last_trick = (self._trick, self._taken_by)
            self._trick, self._taken_by = [(seat, action)], None
        else:
            self._trick = self._trick + [(seat, action)]
            self._taken_by = 0 if after.tricks[0] > before.tricks[0] else 1

    def _finish(self) -> None:
        rec = self.record
        if rec.unit == "deal":
            last = rec.deals[-1]
            rec.winner = last["winner"]
            score = [0, 0]
            if last["winner"] is not None:
                score[last["winner"]] = last["game_points"]
            rec.match_score = (score[0], score[1])
        else:
            ms = self.state.match_scores
            rec.match_score = (int(ms[0]), int(ms[1]))
            rec.winner = 0 if rec.match_score[0] > rec.match_score[1] else 1
        self._finished = True

    def _forfeit(self, seat: int, reason: str, detail: str) -> None:
        rec = self.record
        rec.forfeit = {"seat": seat, "reason": reason, "detail": detail[:500]}
        rec.winner = 1 - seat
        if rec.unit == "match":
            ms = self.state.match_scores
            rec.match_score = (int(ms[0]), int(ms[1]))
        self._finished = True

    # ------------------------------------------------------------------ texts
    def _event(self, seat: int | None, action: int | None, text: str, deal_no: int | None = None) -> None:
        self.events.append({
            "seq": len(self.events), "version": self.version, "deal": deal_no or self.deal_number,
            "who": None if seat is None else self.who(seat), "action": action, "text": text,
        })

    def _describe(self, seat: int, action: int, before: PlayerView, after: PlayerView) -> str:
        """One line about a public move, from the person's side (cards by name)."""
        name = self.name(seat)
        subject = "You" if seat == self.seat else name
        s = "" if seat == self.seat else "s"
        w = before.window
        if action < 24:
            card = CARD_NAMES[action]
            if w == LEAD:
                return f"{subject} lead{s} {card}"
            winner = self._taken_by
            gained = after.points[winner] - before.points[winner]
            who = "You take" if winner == self.seat else f"{self.bot_name} takes"
            return f"{subject} play{s} {card}: {who} the trick ({gained} points)"
        if action < EXCHANGE:
            suit = action - MARRIAGE
            pts = marriage_points(suit, before.trump)
            text = f"{subject} show{s} the marriage in {SUIT_NAMES[suit]} ({pts})"
            if before.tricks[seat] == 0:
                text += ", counted after a first trick"
            return text
        if action == EXCHANGE:
            return f"{subject} exchange{s} {CARD_NAMES[6 * before.trump]} for the trump card " \
                f"{CARD_NAMES[before.trump_card]}"
        if action == CLOSE:
            return f"{subject} close{s} the talon" + (" without drawing" if w == DRAW else "")
        if action == DECLARE:
            return f"{subject} declare{s} 66 with {before.scores[seat]}"
        if w == DRAW:
            return self._draw_text(seat, before, after)
        if w == CLOSE_RESPONSE:
            return f"{subject} do{'es' if s else ''} not exchange"
        return f"{subject} do{'es' if s else ''} not declare"

    def _draw_text(self, winner: int, before: PlayerView, after: PlayerView) -> str:
        new = cards_of(after.hand & ~before.hand)
        mine = CARD_NAMES[new[0]] if new else "?"
        last = before.stock == 2
        if last:
            trump = CARD_NAMES[before.trump_card]
            if winner == self.seat:
                text = f"You draw {mine}; {self.bot_name} takes the trump card {trump}"
            else:
                text = f"{self.bot_name} draws; you take the trump card {trump}"
            return text + "; the talon is spent"
        first = "You draw" if winner == self.seat else f"{self.bot_name} draws, you draw"
        if winner == self.seat:
            return f"{first} {mine}, {self.bot_name} draws; talon {after.stock}"
        return f"{first} {mine}; talon {after.stock}"

    def _result_dict(self, res: Any, deal_no: int) -> dict[str, Any]:
        me, opp = self.seat, self.bot_seat
        w = res.winner
        return {
            "deal": deal_no, "winner": None if w is None else self.who(w), "game_points": res.game_points,
            "reason": res.reason, "scores": {YOU: res.scores[me], OPPONENT: res.scores[opp]},
            "text": self._result_text(res, deal_no), "match_over": self._finished,
        }

    def _result_text(self, res: Any, deal_no: int) -> str:
        me, opp = self.seat, self.bot_seat
        w = res.winner
        if w is None:
            head = f"Deal {deal_no}: drawn"
        else:
            who = "You win" if w == me else f"{self.bot_name} wins"
            head = f"Deal {deal_no}: {who} {res.game_points} game point{'s' if res.game_points > 1 else ''}"
        why = REASON_TEXT[res.reason]
        if w is not None:
            why = why.format(w=self.name(w), l=self.name(1 - w))
        text = f"{head} ({why}; points {res.scores[me]}:{res.scores[opp]})"
        if self._finished:
            text += ". " + self._match_text()
        return text

    def _match_text(self) -> str:
        rec = self.record
        if rec.winner is None:
            return "Game over: drawn"
        won = "You win" if rec.winner == self.seat else f"{self.bot_name} wins"
        if rec.unit == "deal":
            return f"Game over: {won}"
        ms = rec.match_score
        return f"Game over: {won} the match {ms[self.seat]}:{ms[self.bot_seat]}"

    # ------------------------------------------------------------------ frames
    def frame(self, v: PlayerView | None = None, deal_no: int | None = None) -> dict[str, Any]:
        """The table as the person may see it (JSON-ready), from their view ``v``
        (default: now) and the public moves; cards by name."""
        v = self.view if v is None else v
        deal_no = deal_no or self.deal_number
        me, opp = self.seat, self.bot_seat
        over = v.window == OVER
        talon = "closed" if v.closed_by >= 0 else "open" if v.stock else "spent"
        moves = self.legal_moves(v) if not over else []
        illegal = {}
        if moves:
            for c in cards_of(v.hand):
                r = why_illegal(v, c)
                if r is not None:
                    illegal[CARD_NAMES[c]] = r
        return {
            "version": self.version,
            "deal": deal_no,
            "dealer": self.who(v.dealer),
            "match": {YOU: v.match_scores[me], OPPONENT: v.match_scores[opp], "target": MATCH_TARGET},
            "trump": SUIT_LETTERS[v.trump],
            "trump_card": CARD_NAMES[v.trump_card] if v.trump_card >= 0 else None,
            "talon": v.stock,
            "talon_state": talon,
            "closed_by": self.who(v.closed_by) if v.closed_by >= 0 else None,
            "hand": [CARD_NAMES[c] for c in card_order(cards_of(v.hand), v.trump)],
            "opponent_cards": v.opp_hand_size,
            "opponent_known": [CARD_NAMES[c] for c in card_order(cards_of(v.opp_known), v.trump)],
            "trick": {"cards": [{"who": self.who(p), "card": CARD_NAMES[c]} for p, c in self._trick],
                      "taken_by": None if self._taken_by is None else self.who(self._taken_by)},
            "last_trick": None if self._last_trick is None else {
                "cards": [{"who": self.who(p), "card": CARD_NAMES[c]} for p, c in self._last_trick[0]],
                "taken_by": self.who(self._last_trick[1])},
            YOU: self._side(v, me),
            OPPONENT: self._side(v, opp),
            "to_act": None if over or self._finished else self.who(v.to_act),
            "window": WINDOW_NAMES[v.window],
            "legal": moves,
            "illegal": illegal,
            "deal_result": self.deal_results[-1] if over and self.deal_results else None,
            "events": [e for e in self.events if e["version"] == self.version and e["deal"] == deal_no],
        }

    def _side(self, v: PlayerView, p: int) -> dict[str, Any]:
        shown = [s for s in range(4) if v.shown[p] >> s & 1]
        pending = 0 if v.tricks[p] else sum(marriage_points(s, v.trump) for s in shown)
        return {"score": v.scores[p], "tricks": v.tricks[p], "marriages": [SUIT_LETTERS[s] for s in shown],
                "pending": pending}

    def summary(self) -> dict[str, Any]:
        """The game around the table: players, episode, result (JSON-ready)."""
        rec = self.record
        return {
            "bot": self.bot_name, "episode": self.unit, "seat": AGENT_IDS[self.seat],
            "version": self.version, "over": self._finished,
            "winner": None if rec.winner is None or not self._finished else self.who(rec.winner),
            "match_score": {YOU: rec.match_score[self.seat], OPPONENT: rec.match_score[self.bot_seat]}
            if self._finished else None,
            "forfeit": rec.forfeit,
            "seed": self.seed if self._finished or self.seed_chosen else None,
            "deals": self.deal_results,
        }

    def frames_since(self, version: int) -> list[dict[str, Any]]:
        """Kept frames newer than ``version`` (what a table has not shown yet)."""
        return [f for f in self.frames if f["version"] > version]

    # ------------------------------------------------------------------ record
    def game_line(self, **extra: Any) -> dict[str, Any]:
        """The finished game as an arena results line (``index`` set by the store)."""
        if not self._finished:
            raise ValueError("the game is not over")
        line = {"type": "game", "index": None}
        line.update(self.record.to_dict())
        line.update(human_seat=self.seat, source="tables")
        line.update(extra)
        return line


__all__ = ["IllegalMove", "Session", "card_order", "parse_card_word", "why_illegal"]
