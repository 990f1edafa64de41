"""``sixtysix play``: play Sixty-Six against any bot in a terminal, or with a partner against two bots.

The table shows your hand, the trump card and the talon count, the trick on
the table, the last trick, card points and game points, and your legal
moves numbered. Type a number or the move itself (``TH``, ``10H``, ``T♥``,
``marry H``, ``exchange``, and where the preset has them ``close``, ``66``,
``continue``); the prompt and ``help`` name only the moves the preset and
the moment allow; an illegal move
is refused with the reason and the position stays as it was. ``?`` asks the
hint bot (``--hint``), with its values per move where it has them. The
finished game is appended to ``--records`` (an arena results file:
``sixtysix replay FILE --game N`` and ``sixtysix serve --records FILE`` read
it).

With ``--players 4`` you (seat 0) and a ``--partner`` bot (seat 2) play the
four-player partnership game (docs/rules-four.md) against two ``--opponents``
bots (four-player bots: random, heuristic, search[:N]). The table shows your
hand, the other three seats, the trick with who played what and both teams'
scores; you type a number, a card, ``marry H`` or ``66`` (the game has no
talon: no exchange, close or continue). No hints, and the game is not saved.

Run as ``python -m tables.terminal --vs pimc --seed 7``; ``add_arguments``
and ``main`` let the ``sixtysix`` command offer the same as ``sixtysix play``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from sixtysix_env.actions import CONTINUE
from sixtysix_env.engine import DRAW

from .four_session import FourSession
from .four_terminal import HELP_FOUR, prompt_four, render_four
from .frame import Frame, Move, Side, Trick
from .moves import IllegalMove, parse_move
from .prompts import help_text, preset_lacks, prompt_text
from .session import Session
from .tty import Style, columns, detect_style, move_label, visible_len

DEFAULT_RECORDS = os.path.join("runs", "tables", "games.jsonl")
MAX_DELAY = 60.0  # seconds before each bot move: more is a typo, and inf would hang the table
def render(s: Session, f: Frame, st: Style) -> str:
    """The table of frame ``f`` (what the person may see) as text."""
    you, opp = f["you"], f["opponent"]
    bot = s.bot_name
    if s.unit == "match":
        score = f"match you {f['match']['you']} : {f['match']['opponent']} {bot} (to {f['match']['target']})"
    else:
        score = "a single deal"
    dealer = "you" if f["dealer"] == "you" else bot
    lines = [st.dim("─" * 72),
             st.bold(f" Sixty-Six · you vs {bot} · {score} · deal {f['deal']} · dealer {dealer}")]

    def side(d: Side) -> str:
        text = f"{d['score']} points · {d['tricks']} trick{'' if d['tricks'] == 1 else 's'}"
        if d["marriages"]:
            text += " · marriage " + " ".join(st.suit(m) for m in d["marriages"])
            if d["pending"]:
                text += f" ({d['pending']} counts after a first trick)"
        return text

    known = ""
    if f["opponent_known"]:
        known = " · holds " + " ".join(st.card(c) for c in f["opponent_known"])
    lines.append(f" {bot:<10.10} {'▮' * f['opponent_cards']:<6} {side(opp)}{known}")
    trump = st.suit(f["trump"])
    if f["trump_card"]:
        talon = f"{st.card(f['trump_card'])} face up + {f['talon'] - 1} face down"
    else:
        talon = "no cards left" if f["talon"] == 0 else f"{f['talon']} cards"
    state = f["talon_state"] if f["talon_state"] != "closed" else \
        f"closed by {'you' if f['closed_by'] == 'you' else bot}"
    lines.append(f" {'talon':<10} {talon} ({state}) · trumps {trump}")
    def name(w: str | None) -> str:
        return "you" if w == "you" else bot

    def cards(trick: Trick) -> str:
        return ", ".join(f"{name(c['who'])} {st.card(c['card'])}" for c in trick["cards"])

    trick = f["trick"]
    if trick["cards"]:
        taken = f" → {name(trick['taken_by'])}" if trick["taken_by"] else ""
        lines.append(f" {'table':<10} {cards(trick)}{taken}")
    else:
        lines.append(f" {'table':<10} -")
    if f["last_trick"]:
        lt = f["last_trick"]
        lines.append(f" {'last trick':<10} {cards(lt)} → {name(lt['taken_by'])}")
    lines.append(f" {'you':<10} {side(you)}")
    playable = {m["card"] for m in f["legal"] if m["kind"] == "card"}
    hand = [st.card(c) if c in playable or not f["legal"] else st.dim(st.card(c)) for c in f["hand"]]
    lines.append(f" {'hand':<10} " + " ".join(hand))
    lines.append(st.dim("─" * 72))
    if f["legal"]:
        lines.append(" Your moves:")
        lines += columns([f"{i:>2}) {move_label(m, st)}" for i, m in enumerate(f["legal"], 1)], st)
    return "\n".join(lines)


def render_hint(h: dict[str, Any], moves: list[Move], st: Style) -> str:
    by_action = {m["action"]: (i, m) for i, m in enumerate(moves, 1)}
    i, best = by_action[h["action"]]
    lines = [f" Hint from {h['bot']}: {i}) {move_label(best, st)}"]
    if h["detail"]:
        lines.append(st.dim(f"   {h['detail']}"))
    values = h["values"]
    if values:
        for a in sorted(values, key=lambda a: -values[a]):
            j, m = by_action[a]
            v = values[a]
            shown = f"{100 * v:5.1f}%" if h["kind"] == "probability" else f"{v:+6.2f}"
            visits = f"  {h['visits'][a]} visits" if h.get("visits") else ""
            mark = "  ◀" if a == h["action"] else ""
            label = move_label(m, st)
            label += " " * max(0, 26 - visible_len(label))
            lines.append(f"   {j:>2}) {label} {shown}{visits}{mark}")
    return "\n".join(lines)


class TerminalTable:
    """The game loop of ``sixtysix play``."""

    def __init__(self, session: Session | FourSession, hint_spec: str | None, style: Style, delay: float,
                 records: str | None, out: TextIO = sys.stdout) -> None:
        self.s = session
        self.four = session.players == 4  # the four-player table: its own drawing, help and prompt
        self.style = style
        self.delay = delay
        self.records = records
        self.out = out
        self.hinter: Any = None
        if hint_spec:
            from .hints import Hinter

            self.hinter = Hinter(hint_spec, seed=session.seed ^ 0x5EED)
        self._shown_events = 0

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def events(self, pause: bool) -> None:
        """Print the moves made since the last call, one by one."""
        for e in self.s.events[self._shown_events:]:
            if pause and e["who"] not in (None, "you") and self.delay:
                time.sleep(self.delay)
            mark = "•" if e["who"] is None else "▸"
            self.say(f"  {mark} {self.style.text(e['text'])}")
        self._shown_events = len(self.s.events)

    def run(self) -> int:
        s = self.s
        if isinstance(s, FourSession):
            against = f"for four: you and {s.partner} against two {s.opponents}"
            rules = ", no hints, not saved"
        else:
            against = f"against {s.bot_name}"
            rules = "" if s.rules.spec == "german" else f", rules {s.rules.spec}"
        self.say(self.style.bold(f"Sixty-Six {against}"
                                 f"{' (seed ' + str(s.seed) + ')' if s.seed_chosen else ''}{rules}. "
                                 "Type 'help' for the moves" + ("." if self.four else ", '?' for a hint.")))
        deal = s.deal_number
        while not s.over:
            if s.deal_number != deal:
                deal = s.deal_number
                if not self._ask("Press Enter for the next deal "):
                    return self._abandon()
                continue
            if s.bot_to_act:
                s.bot_move()
                self.events(pause=True)
                continue
            forced = s.forced_action()
            if forced is not None:
                s.play(forced)
                self.events(pause=False)
                continue
            if not self._turn():
                return self._abandon()
            self.events(pause=False)
        return self._finish()

    def _ask(self, prompt: str) -> str | None:
        try:
            return input(prompt) + "\n"
        except EOFError:
            return None

    def _turn(self) -> bool:
        """One move of the person's (with as many hints and refusals as they like); False: quit."""
        s = self.s
        if self.hinter is not None:
            self.hinter.observe(s.view)
        self.say(self.table())
        while True:
            moves = s.legal_moves()
            line = self._ask(prompt_four(moves) if self.four else prompt_text(moves, s.view.window))
            if line is None:
                return False
            cmd = line.strip()
            low = cmd.lower()
            if not cmd:
                if s.view.window == DRAW:  # the common choice after a trick won: one key
                    s.play(CONTINUE)
                    return True
                continue
            if low in ("q", "quit", "exit"):
                return False
            if low in ("h", "help"):
                self.say(self.style.text(HELP_FOUR if isinstance(s, FourSession) else help_text(s.rules)))
                continue
            if low in ("t", "table"):
                self.say(self.table())
                continue
            if low == "log":
                for e in s.events[-12:]:
                    self.say("   " + self.style.text(e["text"]))
                continue
            if low in ("?", "hint"):
                self._hint()
                continue
            if low == "resign":
                answer = self._ask(" Resign? The game counts as lost. Type y to resign: ")
                if answer is None:
                    return False
                if answer.strip().lower() in ("y", "yes"):
                    s.resign()
                    return True
                self.say(" Not resigned. Position unchanged.")
                continue
            moves = s.legal_moves()
            try:
                number = cmd.isdigit() and (len(cmd) == 1 or (len(cmd) == 2 and cmd != "66"))
                if number:  # "66" is the word for declaring (the list never reaches 66 moves)
                    n = int(cmd)
                    if not 1 <= n <= len(moves):
                        self.say(f" No move {n}: choose 1-{len(moves)}. Position unchanged.")
                        continue
                    action = moves[n - 1]["action"]
                else:
                    missing = None
                    if isinstance(s, Session):  # the four-player session names its missing moves itself
                        missing = preset_lacks(s.rules, parse_move(s.view, cmd))
                    if missing:
                        self.say(f" Not allowed: {missing}. Position unchanged.")
                        continue
                    action = s.parse_move(cmd)
            except IllegalMove as e:
                self.say(f" Not allowed: {self.style.text(str(e))}. Position unchanged.")
                continue
            except ValueError as e:
                self.say(f" {e}")
                continue
            s.play(action)
            return True

    def table(self) -> str:
        """The table now, drawn for this game."""
        s = self.s
        if isinstance(s, FourSession):
            return render_four(s, s.frame(), self.style)
        return render(s, s.frame(), self.style)

    def _hint(self) -> None:
        if self.four:
            self.say(" No hints at the four-player table.")
            return
        if self.hinter is None:
            self.say(" No hint bot (start with --hint SPEC).")
            return
        self.say(self.style.dim(f" {self.hinter.name} is thinking..."))
        h = self.hinter.hint(self.s.view)
        self.say(render_hint(h, self.s.legal_moves(), self.style))

    def _abandon(self) -> int:
        self.say("\n Game abandoned; it is not saved.")
        return 1

    def _finish(self) -> int:
        s = self.s
        self.events(pause=False)
        self.say(self.table())
        summary = s.summary()
        self.say(self.style.bold(f" Game over: {summary['title']}. Seed {summary['seed']}."))
        if not self.records:
            return 0
        from .store import RecordStore

        try:
            store = RecordStore(self.records)
            index = store.append(s.game_line())
        except (OSError, ValueError) as e:
            self.say(f" Could not save the game to {self.records}: {e}")
            return 1
        self.say(f" Saved as game {index} of {self.records}")
        self.say(f" Replay: sixtysix replay {self.records} --game {index}")
        return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``sixtysix play``."""
    parser.add_argument("--players", type=int, choices=(2, 4), default=2,
                        help="2 (default): you against one bot; 4: you (seat 0) and a partner bot (seat 2) "
                             "against two bots, the four-player partnership game (docs/rules-four.md; "
                             "no hints, --vs, --rules or --seat, and the game is not saved)")
    parser.add_argument("--partner", default="heuristic", metavar="SPEC",
                        help="with --players 4: your partner, a four-player bot: random, heuristic "
                             "(default) or search[:N] (sixtysix bots --players 4)")
    parser.add_argument("--opponents", default="heuristic", metavar="SPEC",
                        help="with --players 4: both opponents, a four-player bot (default heuristic)")
    parser.add_argument("--vs", default="heuristic", metavar="SPEC",
                        help="the bot to play against: any spec the arena accepts (default heuristic)")
    parser.add_argument("--hint", default="pimc", metavar="SPEC",
                        help="the bot that answers '?' (default pimc; 'none' for no hints)")
    parser.add_argument("--rules", default="german", metavar="SPEC",
                        help="the rules preset: german (default), kawu, schnapsen, schnapsen-pkg, with "
                             "+draw_bonus/+double_game where they apply (docs/rules-variants.md)")
    parser.add_argument("--seed", type=int, default=None, help="the cards (default: random)")
    parser.add_argument("--episode", choices=("match", "deal"), default="match",
                        help="a match to 7 game points (default) or a single deal")
    parser.add_argument("--seat", type=int, choices=(0, 1), default=0, help="your seat (default 0)")
    parser.add_argument("--records", default=DEFAULT_RECORDS, metavar="PATH",
                        help=f"append the finished game to this JSONL file (default {DEFAULT_RECORDS})")
    parser.add_argument("--no-save", action="store_true", help="do not save the finished game")
    parser.add_argument("--delay", type=float, default=0.6, metavar="SECONDS",
                        help="pause before each of the bot's moves (default 0.6)")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the red suits (default: when the terminal has colour)")
    parser.add_argument("--no-auto", dest="auto", action="store_false",
                        help="ask even when only one move is legal")


def _session(args: argparse.Namespace) -> Session | FourSession:
    """The game the options ask for (a ``ValueError`` names a bad one)."""
    if getattr(args, "players", 2) == 4:
        if args.rules != "german" or args.seat != 0:
            raise ValueError("--rules and --seat are for two players: at --players 4 you sit at seat 0 "
                             "and play the rules of docs/rules-four.md")
        return FourSession(args.partner, args.opponents, seed=args.seed, episode=args.episode,
                           auto_forced=args.auto)
    return Session(args.vs, seed=args.seed, episode=args.episode, seat=args.seat,
                   auto_forced=args.auto, rules=args.rules)


def main(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """Run ``sixtysix play`` with parsed ``args`` (or a list of command-line words)."""
    if not isinstance(args, argparse.Namespace):
        parser = argparse.ArgumentParser(prog="sixtysix play", description=__doc__.split("\n\n")[0])
        add_arguments(parser)
        args = parser.parse_args(args)
    try:
        session = _session(args)
        if not 0 <= args.delay <= MAX_DELAY:  # also refuses nan
            raise ValueError(f"--delay must be 0..{MAX_DELAY:g} seconds, got {args.delay}")
        four = isinstance(session, FourSession)
        if not args.no_save and not four:
            from .store import check_records_path

            check_records_path(args.records, "--records")
        hint = None if four or args.hint.strip().lower() in ("", "none") else args.hint
        table = TerminalTable(session, hint, detect_style(sys.stdout, args.color), args.delay,
                              None if args.no_save or four else args.records)
    except ValueError as e:
        print(f"sixtysix play: error: {e}", file=sys.stderr)
        return 2
    try:
        return table.run()
    except KeyboardInterrupt:
        print("\n Interrupted; the game is not saved.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
