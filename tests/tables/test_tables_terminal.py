"""`sixtysix play` (``python -m tables.terminal``) driven through a whole match in a pseudo-terminal."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

PROMPT = r"Your move \(number"  # then the kinds of move legal now (tables.terminal.prompt_text)
MOVE = re.compile(r"(\d+)\) (.+?)(?=\s{2,}\d+\) |\s*$)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def moves_listed(screen: str) -> dict[int, str]:
    """The numbered moves of the last table printed: ``{1: "J♥", 7: "Close the talon", ...}``."""
    listed = screen.rsplit("Your moves:", 1)[-1]
    out = {}
    for line in listed.splitlines():
        for n, label in MOVE.findall(line.strip()):
            out[int(n)] = label.strip()
    return out


def card_word(label: str) -> str | None:
    """``"10♥"`` -> ``"TH"`` (how a player would type it), None for a button."""
    m = re.fullmatch(r"(10|[9JQKA])([♣♠♥♦])", label)
    if m is None:
        return None
    return ("T" if m.group(1) == "10" else m.group(1)) + "CSHD"["♣♠♥♦".index(m.group(2))]


@pytest.mark.slow
def test_a_whole_match_in_a_terminal(tmp_path):
    records = tmp_path / "games.jsonl"
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TERM="xterm-256color", PYTHONIOENCODING="utf-8", LANG="C.UTF-8")
    args = ["-m", "tables.terminal", "--vs", "heuristic", "--hint", "pimc:worlds=8", "--seed", "4",
            "--delay", "0", "--records", str(records)]
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60, dimensions=(60, 140))
    rng = random.Random(4)
    typed = {"number": 0, "card": 0, "button": 0}
    hinted = refused = False
    try:
        while True:
            i = child.expect([PROMPT, "Press Enter for the next deal", r"Saved as game (\d+)", pexpect.EOF])
            screen = ANSI.sub("", child.before)
            if i == 1:
                child.sendline("")
                continue
            if i == 2:
                index = int(child.match.group(1))
                child.expect(pexpect.EOF)
                break
            assert i == 0, "the program ended before the match did:\n" + screen[-3000:]
            moves = moves_listed(screen)
            assert moves and sorted(moves) == list(range(1, len(moves) + 1)), screen[-2000:]
            if not hinted:
                child.sendline("?")
                child.expect(r"Hint from pimc:worlds=8: (\d+)\) ")
                assert int(child.match.group(1)) in moves
                child.expect(PROMPT)
                hinted = True
            if not refused:
                kinds = " ".join(moves.values())
                words = (("exchange", "Exchange"), ("close", "Close"), ("66", "Declare"))
                bad = next((w for w, label in words if label not in kinds), None)
                if bad is not None:
                    child.sendline(bad)
                    child.expect(r"Not allowed: (.+?)\. Position unchanged\.")
                    assert child.match.group(1)
                    child.expect(PROMPT)
                    child.sendline("t")  # the table again: the same moves
                    child.expect(PROMPT)
                    assert moves_listed(ANSI.sub("", child.before)) == moves
                    refused = True
            sound = {n: label for n, label in moves.items() if "false" not in label}
            choices = [n for n, label in sound.items() if not label.startswith("Close")]
            declare = [n for n, label in sound.items() if label.startswith("Declare")]
            n = declare[0] if declare else rng.choice(choices or list(moves))
            word = card_word(moves[n])
            if word is not None and rng.random() < 0.5:
                child.sendline(word if rng.random() < 0.5 else word.lower())
                typed["card"] += 1
            else:
                child.sendline(str(n))
                typed["number" if word else "button"] += 1
    finally:
        child.close()
    assert child.exitstatus == 0
    assert hinted and refused and typed["card"] >= 3 and typed["number"] >= 3, typed
    p = subprocess.run([sys.executable, "-m", "sixtysix_cli", "replay", str(records), "--game", str(index)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    head = f"game {index}: human (player_0) vs heuristic (player_1), a match to 7, seed 4"
    assert p.stdout.startswith(head)


def spawn(*extra: str):
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TERM="dumb", PYTHONIOENCODING="utf-8", LANG="C.UTF-8")
    args = ["-m", "tables.terminal", "--vs", "heuristic", "--hint", "none", "--delay", "0",
            "--no-save", *extra]
    return pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60, dimensions=(60, 140))


def test_66_declares_enter_draws_and_resign_asks_first():
    """``66`` declares whenever declaring is legal (it is no move number), Enter alone draws
    after a trick won, and ``resign`` asks before it gives the game away."""
    rng = random.Random(3)
    child = spawn("--seed", "3", "--episode", "deal")
    declared = drew = False
    try:
        for _ in range(60):
            child.expect(PROMPT)
            screen = ANSI.sub("", child.before)
            moves = moves_listed(screen)
            labels = list(moves.values())
            if "Draw" in labels and not drew:
                child.expect(r"Enter draws\): ")
                child.sendline("")
                child.expect(r"You draw \S+")  # Enter alone drew the card
                child.expect(PROMPT)
                assert "Draw" not in moves_listed(ANSI.sub("", child.before)).values()
                drew = True
                child.sendline("t")  # the table again, for the loop
                continue
            if any(label.startswith("Declare 66") for label in labels):
                child.sendline("66")
                child.expect(r"\n.*[Dd]eclare")
                assert "No move 66" not in child.before
                declared = True
                break
            cards = [n for n, label in moves.items() if card_word(label)]
            child.sendline(str(rng.choice(cards or list(moves))))
        assert declared and drew
    finally:
        child.close()

    child = spawn("--seed", "5")
    try:
        child.expect(PROMPT)
        child.sendline("resign")
        child.expect("Resign\\?")
        child.sendline("n")
        child.expect("Not resigned")
        child.expect(PROMPT)
        child.sendline("resign")
        child.expect("Resign\\?")
        child.sendline("y")
        child.expect(r"Game over: heuristic wins the match · you 0 : heuristic 0")
        child.expect(pexpect.EOF)
    finally:
        child.close()
