"""``sixtysix play`` under the rule presets: the help and the prompt name only the moves the
preset (and the moment) has, and a schnapsen-pkg deal won by reaching 66 with a trick is told
as the automatic win it is, not as a declaration (issue 42)."""

from __future__ import annotations

import builtins
import io

import pytest

from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE
from sixtysix_env.engine import DRAW
from sixtysix_env.scoring import DECLARED, DealResult
from sixtysix_env.variants import PRESETS
from tables.narration import Narrator
from tables.session import Session
from tables.terminal import Style, TerminalTable, help_text, preset_lacks, prompt_text


def test_help_offers_close_66_and_continue_only_where_the_preset_has_them():
    german = help_text(PRESETS["german"])
    for word in ("close", "66 (declare)", "continue (also: draw, decline)", "Enter alone draws"):
        assert word in german
    pkg = help_text(PRESETS["schnapsen-pkg"])
    for word in ("close", "(declare)", "continue", "draw", "decline", "Enter"):
        assert word not in pkg, word
    assert "exchange" in pkg and "66 counts by itself" in pkg
    schnapsen = help_text(PRESETS["schnapsen"])  # closing, no draw window
    assert "close" in schnapsen and "66 (declare)" in schnapsen and "draw" not in schnapsen
    assert "9c" not in schnapsen and "9c" not in pkg  # no nines in their deck


def test_the_prompt_names_the_kinds_of_move_legal_now():
    s = Session("random", seed=1, episode="deal", rules="schnapsen-pkg")
    seen = 0
    while not s.over:
        if s.bot_to_act:
            s.bot_move()
            continue
        moves = s.legal_moves()
        prompt = prompt_text(moves, s.view.window)
        assert prompt.startswith(" Your move (number")
        for word in ("close", "66", "continue", "Enter"):
            assert word not in prompt, (word, prompt)
        assert ("card" in prompt) == any(m["kind"] == "card" for m in moves)
        seen += 1
        s.play(moves[0]["action"])
    assert seen

    s = Session("random", seed=2)  # german: a draw window after a trick won
    while not (s.human_to_act and s.view.window == DRAW):
        assert not s.over
        if s.bot_to_act:
            s.bot_move()
        else:
            s.play(s.legal_moves()[0]["action"])
    prompt = prompt_text(s.legal_moves(), s.view.window)
    assert "continue" in prompt and "Enter draws" in prompt and "card" not in prompt
    kinds = {m["kind"] for m in s.legal_moves()}
    assert ("close" in prompt) == ("close" in kinds) and ("66" in prompt) == ("declare" in kinds)


def test_moves_the_preset_lacks_are_refused_as_such():
    pkg = PRESETS["schnapsen-pkg"]
    assert "no closing" in preset_lacks(pkg, CLOSE)
    assert "no declaring" in preset_lacks(pkg, DECLARE)
    assert preset_lacks(pkg, CONTINUE)
    assert all(preset_lacks(PRESETS["german"], a) is None for a in (CLOSE, DECLARE, CONTINUE))


def test_a_win_by_reaching_66_is_not_told_as_a_declaration():
    n = Narrator(0, "bot")
    res = DealResult(0, 2, DECLARED, (70, 20))
    assert "you declared 66" in n.result_text(res, 1, None)
    auto = n.result_text(res, 1, None, declared=False)
    assert "declared" not in auto and "you reached 66" in auto and "automatic win" in auto


def _play_pkg(seed: int, monkeypatch) -> tuple[Session, str]:
    """A whole schnapsen-pkg game in the terminal table, the person always typing 1."""
    s = Session("random", seed=seed, episode="deal", rules="schnapsen-pkg", auto_forced=False)
    out = io.StringIO()
    monkeypatch.setattr(builtins, "input", lambda prompt="": out.write(prompt) and "1")
    assert TerminalTable(s, None, Style(False, True), 0.0, None, out=out).run() == 0
    return s, out.getvalue()


def test_sixtysix_play_tells_a_schnapsen_pkg_win_at_66_as_automatic(monkeypatch):
    for seed in range(40):
        s, text = _play_pkg(seed, monkeypatch)
        if s.deal_results[-1]["reason"] == DECLARED:
            break
    else:
        pytest.fail("no schnapsen-pkg deal ended at 66 in 40 seeds")
    assert "reached 66: an automatic win" in text
    assert "declared 66" not in text and "declare" not in text.lower().replace("declaring", "")
    assert "help" in text  # the prompt was shown; it never offered close, 66 or continue
    assert "close," not in text and ", 66" not in text and "continue" not in text


def test_typing_a_move_the_preset_lacks_says_so(monkeypatch):
    s = Session("random", seed=3, episode="deal", rules="schnapsen-pkg", auto_forced=False)
    answers = iter(["help", "close", "66", "quit"])
    out = io.StringIO()
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    TerminalTable(s, None, Style(False, True), 0.0, None, out=out).run()
    text = out.getvalue()
    assert "Not allowed: the schnapsen-pkg rules have no closing" in text
    assert "Not allowed: the schnapsen-pkg rules have no declaring" in text
    assert "66 counts by itself" in text
