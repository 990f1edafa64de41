"""The engine against an independent reference of the rules (tests/env/reference_rules.py).

Both play the same deals with the same random legal moves; before every move
they must agree on the player to act, the legal actions and both scores, and
at the end on the winner, the game points and the scores. Moves are drawn with
extra weight on marriages, exchanges, closing and declaring, so every rule of
docs/rules.md sections 3-5 (and the kawu and Schnapsen differences of
docs/rules-variants.md) is exercised thousands of times. Fixed RNG seed values: the run
is deterministic and takes a few seconds.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixtysix_env.actions import IllegalActionError
from sixtysix_env.aec import env
from sixtysix_env.aec_four import env as four_env
from sixtysix_env.cards import CARD_NAMES, cards_of
from sixtysix_env.deals import deal, next_dealer
from sixtysix_env.engine import PLAYER_IDS, State
from sixtysix_env.four import FOUR_IDS, FourState
from sixtysix_env.four_deals import deal_four, next_four
from sixtysix_env.gym_env import SixtySixGymEnv
from tests.env.reference_four import FourDeal
from tests.env.reference_rules import CLOSE, DECLARE, GERMAN, KAWU, SCHNAPSEN, Deal, Game

GAMES = {"german": GERMAN, "kawu": KAWU, "schnapsen": SCHNAPSEN}
DEALS = 1500
MASK_CHECKED_DEALS = 150  # of those, every one of the 32 actions is also tried on a copy


def reference_of(s: State, game: Game) -> Deal:
    return Deal.start(game, [cards_of(s.hands[0]), cards_of(s.hands[1])], list(s.talon), s.dealer)


def choose(s: State, rng: random.Random, style: int) -> int:
    """A random legal action. ``style`` varies how often the talon is closed
    (never to eagerly) and when a player declares (never, at random, always,
    or exactly when right), so that every way a deal ends comes up."""
    legal = s.legal_actions()
    close_weight = (0.0, 0.05, 0.3, 4.0)[style % 4]
    declare = (0, 1, 2, 3)[style // 4 % 4]
    if DECLARE in legal and len(legal) > 1:
        right = s.score(s.to_act) >= 66
        take = (False, rng.random() < 0.3, True, right)[declare]
        if take:
            return DECLARE
        legal = [a for a in legal if a != DECLARE]
    weights = [1.0 if a < 24 else close_weight if a == CLOSE else 4.0 for a in legal]
    if not any(weights):
        weights = [1.0] * len(legal)
    return rng.choices(legal, weights)[0]


def assert_mask_is_what_apply_accepts(s: State) -> None:
    legal = set(s.legal_actions())
    for a in range(32):
        t = s.clone()
        try:
            t.apply(a)
            accepted = True
        except IllegalActionError:
            accepted = False
        assert accepted == (a in legal), (a, s)


def play_both(spec: str, seed: int, check_mask: bool) -> tuple[State, Deal]:
    rng = random.Random(seed)
    s = deal(rng, rules=spec)
    ref = reference_of(s, GAMES[spec])
    for _ in range(100):
        where = f"{spec} seed {seed}: {s}"
        assert s.is_over == (ref.window == "over"), where
        if s.is_over:
            break
        assert s.to_act == ref.turn, where
        legal = s.legal_actions()
        assert set(legal) == ref.legal(), where
        assert (s.score(0), s.score(1)) == (ref.score(0), ref.score(1)), where
        if check_mask:
            assert_mask_is_what_apply_accepts(s)
        a = choose(s, rng, seed)
        s.apply(a)
        ref.step(a)
    assert s.is_over, f"{spec} seed {seed}: no end in 100 moves"
    assert ref.result is not None
    winner, points, scores = ref.result
    assert (s.result.winner, s.result.game_points, s.result.scores) == (winner, points, scores), (
        f"{spec} seed {seed}: engine {s.result}, reference {ref.result}"
    )
    return s, ref


@pytest.mark.parametrize("spec", sorted(GAMES))
def test_engine_agrees_with_the_reference(spec):
    reasons = set()
    for seed in range(DEALS):
        s, ref = play_both(spec, seed, seed < MASK_CHECKED_DEALS)
        reasons.add(s.result.reason)
        # docs/rules.md 2: the winner deals next; after a drawn deal the same dealer
        winner, points, _ = ref.result
        assert next_dealer(s) == (ref.dealer if winner is None else winner)
        assert s.match_scores == [points if p == winner else 0 for p in (0, 1)]
    # The run reaches every way a deal can end under the preset.
    ends = {"declared", "closer_beaten", "false_declaration", "closer_failed", "last_trick"}
    assert ends <= reasons, reasons
    if spec == "german":
        assert "drawn" in reasons


# ------------------------------------------------------------- four players
FOUR_DEALS = 1500


def choose_four(s: FourState, rng: random.Random, style: int) -> int:
    """A random legal action; marriages favoured; declaring never, at random, always or when right."""
    legal = s.legal_actions()
    if DECLARE in legal and len(legal) > 1:
        right = s.score(s.to_act % 2) >= 66
        if (False, rng.random() < 0.3, True, right)[style % 4]:
            return DECLARE
        legal = [a for a in legal if a != DECLARE]
    return rng.choices(legal, [1 if a < 24 else 4 for a in legal])[0]


def test_four_player_engine_agrees_with_the_reference():
    reasons = set()
    for seed in range(FOUR_DEALS):
        rng = random.Random(seed)
        s = deal_four(rng)
        ref = FourDeal.start([cards_of(h) for h in s.hands], s.trump_card, s.dealer)
        assert s.trump_card in ref.hands[s.dealer]  # F2.2: the dealer's own card
        for _ in range(80):
            where = f"four seed {seed}: {s}"
            assert s.is_over == (ref.window == "over"), where
            if s.is_over:
                break
            assert s.to_act == ref.turn, where
            assert set(s.legal_actions()) == ref.legal(), where
            assert (s.score(0), s.score(1)) == (ref.score(0), ref.score(1)), where
            a = choose_four(s, rng, seed)
            s.apply(a)
            ref.step(a)
        assert ref.result is not None, f"four seed {seed}: no end"
        assert (s.result.winner, s.result.game_points, s.result.scores) == ref.result, f"four seed {seed}"
        reasons.add(s.result.reason)
        assert s.match_scores == [ref.result[1] if t == ref.result[0] else 0 for t in (0, 1)]
        assert next_four(s, 0).dealer == (s.dealer if ref.result[0] is None else (s.dealer + 1) % 4)  # F7.2
    assert {"declared", "false_declaration", "last_trick", "drawn"} <= reasons, reasons


# ------------------------------------------------- through the PettingZoo env
ENV_MATCHES = 40
SWITCHES = "german+draw_bonus+double_game"


@pytest.mark.parametrize("spec", [*sorted(GAMES), SWITCHES])
def test_env_matches_follow_the_reference(spec):
    """Whole matches through ``sixtysix_env.env``: the first deal fixed by the
    reset options of docs/rules.md section 7 (card names), the action masks
    equal to the reference's legal actions (all zeros for the player not to
    act), game-point rewards per deal, the dealer and match score carried on,
    and the match won at 7. With the German switches (docs/rules-variants.md
    V1.2, V1.3) nobody declares or closes, so that deals run out and some are
    drawn: drawn deals (one or more in a row) add 1 to the next won deal's game points, and a
    7-0 match counts twice."""
    game = GAMES[spec.split("+")[0]]
    quiet = spec == SWITCHES
    draws = doubles = 0
    for seed in range(ENV_MATCHES):
        rng = random.Random(seed)
        cards = list(game.cards)
        rng.shuffle(cards)
        n = game.hand_size
        options = {
            "dealer": seed % 2,
            "hands": [[CARD_NAMES[c] for c in cards[:n]], [CARD_NAMES[c] for c in cards[n : 2 * n]]],
            "talon": [CARD_NAMES[c] for c in cards[2 * n :]],
        }
        start = [seed % 7, 0] if quiet else [0, 0]  # some matches end 7-0
        options["scores"] = start
        e = env(rules=spec, reward="game_points")
        e.reset(seed=seed, options=options)
        ref = Deal.start(game, [cards[:n], cards[n : 2 * n]], cards[2 * n :], seed % 2)
        match, bonus = start[:], 0
        for _ in range(3000):
            agent = e.agent_selection
            assert not e.terminations[agent], f"{spec} match {seed} ended at {match}"
            assert agent == PLAYER_IDS[ref.turn]
            masks = [e.observe(a)["action_mask"] for a in PLAYER_IDS]
            assert {int(a) for a in np.flatnonzero(masks[ref.turn])} == ref.legal()
            assert not masks[1 - ref.turn].any()
            a = choose_from(sorted(ref.legal()), rng, quiet)
            ref.step(a)
            e.step(a)
            if ref.result is not None:  # the deal ended: rewards, then the next deal
                winner, points, _ = ref.result
                if quiet:
                    draws += winner is None
                    points, bonus = (0, 1) if winner is None else (points + bonus, 0)
                rewards = [e.rewards[a] for a in PLAYER_IDS]
                assert rewards == [
                    points if p == winner else -points if winner is not None else 0 for p in (0, 1)
                ]
                if winner is not None:
                    match[winner] += points
                if max(match) >= 7:
                    assert all(e.terminations.values())
                    double = quiet and min(match) == 0
                    doubles += double
                    assert e.game_state.match_value == (2 if double else 1)
                    break
                s = e.game_state
                assert s.match_scores == match
                assert s.dealer == (ref.dealer if winner is None else winner)
                ref = reference_of(s, game)
        else:
            raise AssertionError(f"{spec} match {seed} did not end")
    assert not quiet or (draws >= 3 and doubles >= 3), (draws, doubles)


def choose_from(legal: list[int], rng: random.Random, quiet: bool = False) -> int:
    """A random legal action, the non-card ones favoured; ``quiet``: never
    declare or close unless nothing else is legal."""
    if quiet:
        legal = [a for a in legal if a not in (DECLARE, CLOSE)] or legal
    return rng.choices(legal, [1 if a < 24 else 3 for a in legal])[0]


def test_four_player_env_deals_follow_the_reference():
    """One-deal episodes of ``sixtysix_env.aec_four.env`` fixed by the reset
    options (F9.1): masks equal the reference's legal actions (zeros for the
    other seats) and both partners get the team's +g or -g."""
    for seed in range(150):
        rng = random.Random(seed)
        cards = list(range(24))
        rng.shuffle(cards)
        hands = [cards[6 * i : 6 * i + 6] for i in range(4)]
        dealer = seed % 4
        e = four_env(episode="deal")
        e.reset(seed=seed, options={"dealer": dealer, "hands": [[CARD_NAMES[c] for c in h] for h in hands]})
        ref = FourDeal.start(hands, hands[dealer][-1], dealer)  # the dealer's last card is trumps
        while ref.result is None:
            assert e.agent_selection == FOUR_IDS[ref.turn]
            masks = [e.observe(a)["action_mask"] for a in FOUR_IDS]
            assert {int(a) for a in np.flatnonzero(masks[ref.turn])} == ref.legal(), f"seed {seed}"
            assert not any(masks[q].any() for q in range(4) if q != ref.turn)
            a = choose_from(sorted(ref.legal()), rng)
            ref.step(a)
            e.step(a)
        winner, points, _ = ref.result
        team_reward = [points if t == winner else -points if winner is not None else 0 for t in (0, 1)]
        assert [e.rewards[a] for a in FOUR_IDS] == [team_reward[q % 2] for q in range(4)], f"seed {seed}"
        assert all(e.terminations.values())


# ----------------------------------------------------- through the Gymnasium env
def scripted_opponent(ref: Deal, seat: int, rng: random.Random):
    """An opponent for the learner in ``seat`` that checks its mask against the
    reference, plays a random legal action and steps the reference with it."""

    def opponent(obs: dict) -> int:
        assert ref.turn == 1 - seat
        assert {int(a) for a in np.flatnonzero(obs["action_mask"])} == ref.legal()
        a = choose_from(sorted(ref.legal()), rng)
        ref.step(a)
        return a

    return opponent


@pytest.mark.parametrize("spec", sorted(GAMES))
def test_gym_env_deals_follow_the_reference(spec):
    """One-deal episodes of ``SixtySixGymEnv`` with a fixed deal and a scripted
    opponent: the learner's ``action_masks()`` and the opponent's mask equal
    the reference's legal actions, and the reward is the learner's +g or -g."""
    game = GAMES[spec]
    for seed in range(60):
        rng = random.Random(seed)
        cards = list(game.cards)
        rng.shuffle(cards)
        n, seat, dealer = game.hand_size, seed % 2, seed // 2 % 2
        ref = Deal.start(game, [cards[:n], cards[n : 2 * n]], cards[2 * n :], dealer)
        e = SixtySixGymEnv(opponent=scripted_opponent(ref, seat, rng), seat=seat, episode="deal", rules=spec)
        hands = [[CARD_NAMES[c] for c in cards[:n]], [CARD_NAMES[c] for c in cards[n : 2 * n]]]
        talon = [CARD_NAMES[c] for c in cards[2 * n :]]
        e.reset(seed=seed, options={"dealer": dealer, "hands": hands, "talon": talon})
        total, done = 0.0, ref.result is not None
        while not done:
            assert ref.turn == seat
            assert {int(a) for a in np.flatnonzero(e.action_masks())} == ref.legal()
            a = choose_from(sorted(ref.legal()), rng)
            ref.step(a)
            _, reward, done, truncated, _ = e.step(a)
            total += reward
            assert not truncated and done == (ref.result is not None)
        winner, points, _ = ref.result
        assert total == (0 if winner is None else points if winner == seat else -points), (
            f"{spec} seed {seed}"
        )
