"""The guided bot's beliefs: the opponent's follows of its leads and its closes, on scripted deals."""

from __future__ import annotations

import random
import runpy
from pathlib import Path

import numpy as np
import pytest

from agents.guided import GuidedAgent
from agents.search.beliefs import (
    Beliefs,
    before_close,
    before_lead,
    card_rows,
    lead_likelihoods,
    move_likelihoods,
)
from agents.search.guided import GuidedSearch
from sixtysix_env.actions import CLOSE, parse_action
from sixtysix_env.cards import N_CARDS, parse_cards
from sixtysix_env.deals import deal, fixed_deal
from sixtysix_env.engine import DRAW, FOLLOW, LEAD, State
from sixtysix_env.knowledge import sample_state, view
from tests.agents.test_guided import FakeNet, tiny_guide

BOT = 0
TALON = ["AC", "TC", "KC", "QH", "KH", "TH", "AH", "9D", "JD", "QD", "AD", "JS"]  # JS face up: spades trump
HANDS = [["9C", "JC", "QC", "KD", "TD", "9S"], ["9H", "JH", "QS", "KS", "TS", "AS"]]
TH = parse_cards(["TH"])[0]


def scripted(script: list[str], beliefs: Beliefs, hands: list[list[str]] = HANDS,
             talon: list[str] = TALON) -> tuple[State, list[tuple[int, int, int]], dict[int, State]]:
    """Play ``script`` on a fixed deal with the opponent (player 1) on lead; ``beliefs`` observes
    every view of the bot (player 0). Returns the state, (window, lead returned, close_window) at
    each of the bot's views, and the state before each scripted move by its index."""
    s = fixed_deal(hands, talon, dealer=BOT)
    seen, before = [], {}
    for i, move in enumerate(script):
        if s.to_act == BOT:
            lead = beliefs.observe(view(s, BOT))
            seen.append((s.window, lead, beliefs.close_window))
        before[i] = s.clone()
        s.apply(parse_action(move))
    lead = beliefs.observe(view(s, BOT))
    seen.append((s.window, lead, beliefs.close_window))
    return s, seen, before


# ------------------------------------------------------------------ closes
CLOSES = [  # (script, index of the close in it, the window it was read in: -1 not used, lead read)
    (["close", "continue", "9H"], 0, LEAD, True),  # at its first lead
    (["AS", "9C", "close", "continue", "9H"], 2, DRAW, True),  # after winning a trick, before drawing
    (["AS", "9C", "continue", "close", "continue", "9H"], 3, LEAD, True),  # after drawing
    (["close", "exchange", "9H"], 0, LEAD, True),  # the bot exchanged in answer: taken back
    (["marriage S", "close", "continue", "KS"], 1, -1, False),  # a marriage lead, the close between
]


@pytest.mark.parametrize(("script", "at", "window", "read"), CLOSES)
def test_a_close_is_read_in_its_window_and_rebuilt_exactly(script, at, window, read):
    beliefs = Beliefs()
    s, seen, before = scripted(script, beliefs)
    assert seen[-1][0] == FOLLOW and seen[-1][2] == window
    assert seen[-1][1] == (s.lead_card if read else -1)
    assert all(c == -1 for _, _, c in seen[:-1])  # only at the lead that follows the close
    if window >= 0:
        truth = before_close(before_lead(s, s.lead_card), window, beliefs.close_face_up)
        assert truth == before[at]  # the opponent's state when it closed, field by field
        assert truth.legal_mask() >> CLOSE & 1
    assert Beliefs(extended=False).observe(view(s, BOT)) == seen[-1][1]
    _, off, _ = scripted(script, Beliefs(extended=False))
    assert all(c == -1 for _, _, c in off)


def test_a_close_after_an_exchange_in_the_same_window_is_not_read():
    hands = [["9C", "JC", "QC", "KD", "TD", "QS"], ["9H", "JH", "9S", "KS", "TS", "AS"]]
    _, seen, _ = scripted(["AS", "9C", "exchange", "close", "continue", "9H"], Beliefs(), hands)
    assert seen[-1][0] == FOLLOW and seen[-1][1] >= 0 and seen[-1][2] == -1
    _, seen, _ = scripted(["AS", "9C", "close", "continue", "9H"], Beliefs(), hands)
    assert seen[-1][2] == DRAW  # the same deal without the exchange: read


def test_a_close_more_than_a_trick_before_the_lead_is_not_read():
    """A bot shown only some of its views (a hint bot) cannot tell which window an older close was in."""
    s = fixed_deal(HANDS, TALON, dealer=BOT).play("AS")
    beliefs = Beliefs()
    beliefs.observe(view(s, BOT))  # the talon open
    s.play("9C", "continue", "close", "continue", "TS", "9S", "9H")  # the close, then a whole trick
    assert s.to_act == BOT and s.window == FOLLOW and s.closed_by == 1
    assert beliefs.observe(view(s, BOT)) == s.lead_card and beliefs.close_window == -1
    s = fixed_deal(HANDS, TALON, dealer=BOT).play("AS")
    beliefs.observe(view(s, BOT))
    s.play("9C", "continue", "close", "continue", "9H")
    beliefs.observe(view(s, BOT))
    assert beliefs.close_window == LEAD  # the views in between unseen, but the close was just made


def test_the_closes_likelihood_multiplies_the_leads():
    s, _, _ = scripted(["close", "continue", "9H"], Beliefs())
    lead = s.lead_card
    rng = random.Random(3)
    worlds = [s.clone()] + [sample_state(view(s, BOT), rng) for _ in range(5)]
    for favourite, high in ((CLOSE, True), (lead, False)):  # a policy that loves closing, or leading
        logits = FakeNet(favourite).policy_logits
        alone = lead_likelihoods(worlds, lead, logits, 1.0, 0.1)
        both = lead_likelihoods(worlds, lead, logits, 1.0, 0.1, LEAD)
        closes = move_likelihoods([before_close(before_lead(w, lead), LEAD) for w in worlds], CLOSE, logits,
                                  1.0, 0.1)
        np.testing.assert_allclose(both, alone * closes)
        assert (closes > 0.9).all() if high else (closes < 0.02).all()
    search = GuidedSearch(FakeNet(TH), infer=False, beta=1.0)  # type: ignore[arg-type]
    scripted(["close", "continue", "9H"], search.beliefs)
    _, lik = search.weights(view(s, BOT), worlds, lead)  # the search weighs the close in
    np.testing.assert_allclose(lik, lead_likelihoods(worlds, lead, FakeNet(TH).policy_logits, 1.0, 0.1, LEAD))
    assert not np.allclose(lik, lead_likelihoods(worlds, lead, FakeNet(TH).policy_logits, 1.0, 0.1))


# ------------------------------------------------------------------ follows
def bot_leads(script: list[str], search: GuidedSearch, keep: int = 40,
              seed: int = 1) -> tuple[State, State, list[State]]:
    """The bot (player 0, on lead) searches ``keep`` worlds (the truth first) and leads
    ``script[0]``; the rest is played, the search observing the bot's views. Returns the state,
    the state at the opponent's follow and the worlds."""
    s = fixed_deal(HANDS_LEAD, TALON_LEAD, dealer=1)
    v = view(s, BOT)
    search.observe(v)
    rng = random.Random(seed)
    worlds = [s.clone()] + [sample_state(v, rng) for _ in range(keep - 1)]
    search.remember(v, worlds[:keep], [], parse_action(script[0]))
    s.apply(parse_action(script[0]))
    at_follow = s.clone()
    for move in script[1:]:
        s.apply(parse_action(move))
        if s.to_act == BOT:
            search.observe(view(s, BOT))
            break
    return s, at_follow, worlds


HANDS_LEAD = [["9C", "JC", "QC", "KD", "TD", "AD"], ["9H", "JH", "QS", "KS", "TS", "AS"]]
TALON_LEAD = ["9D", "JD", "QD", "KC", "TC", "AC", "QH", "KH", "TH", "AH", "9S", "JS"]

FOLLOWS = [  # (moves from the bot's lead to its next view, worlds kept, evidence recorded)
    (["AD", "9H"], 40, True),  # the bot wins the trick: its next view is the draw
    (["9C", "AS", "continue", "9H"], 40, True),  # the opponent wins, draws and leads
    (["AD", "9H"], 1, False),  # one world: nothing to compare
    (["AD", "9H"], 0, False),  # a move played by rule: no worlds kept
]


@pytest.mark.parametrize(("script", "keep", "recorded"), FOLLOWS)
def test_a_follow_is_recorded_only_after_a_searched_lead(script, keep, recorded):
    search = GuidedSearch(FakeNet(TH), infer=False, beta=1.0)  # type: ignore[arg-type]
    s, at_follow, _ = bot_leads(script, search, keep)
    assert search.beliefs.pending is None and search.beliefs.follow is None  # consumed at the next view
    assert len(search.beliefs.entries) == int(recorded)
    if recorded:
        stock, ratios = search.beliefs.entries[0]
        assert stock == at_follow.stock  # the talon when the opponent followed: fading counts from there
        assert ratios[TH] < 0  # the model would have followed with TH: worlds holding it explained 9H badly


def test_the_kept_world_is_the_opponents_follow_decision():
    search = GuidedSearch(FakeNet(TH), infer=False, beta=1.0)  # type: ignore[arg-type]
    s = fixed_deal(HANDS_LEAD, TALON_LEAD, dealer=1)
    v = view(s, BOT)
    search.observe(v)
    search.remember(v, [s.clone(), s.clone()], [], parse_action("AD"))
    pending = search.beliefs.pending
    assert pending is not None and pending.card == parse_action("AD")
    s.apply(parse_action("AD"))
    assert pending.worlds[0] == s  # rebuilt exactly: the opponent to follow
    search.observe(v)
    search.remember(v, [s.clone(), s.clone()], [], CLOSE)  # not a card led: nothing kept
    assert search.beliefs.pending is None


def test_a_strongly_preferred_follow_not_played_moves_the_beliefs_away_from_its_card():
    search = GuidedSearch(FakeNet(TH), infer=False, beta=1.0)  # type: ignore[arg-type]
    s, _, _ = bot_leads(["AD", "9H"], search, keep=60)
    v = view(s, BOT)
    worlds = [sample_state(v, random.Random(i)) for i in range(60)]
    unknown = card_rows([w.hands[1 - BOT] & ~v.opp_known for w in worlds])
    holds = unknown[:, TH] > 0
    assert 0 < holds.sum() < len(worlds)
    log_w = search.beliefs.carried(v, unknown)
    assert log_w[holds].mean() < log_w[~holds].mean() - 0.5
    weights, _ = search.weights(v, worlds, -1)
    assert (weights > 0).all() and np.isfinite(weights).all()  # lowered, never ruled out
    flat = GuidedSearch(FakeNet(TH), infer=False, beta=1.0, extended=False)  # type: ignore[arg-type]
    bot_leads(["AD", "9H"], flat, keep=60)
    assert not flat.beliefs.entries  # the switch: leads alone


def test_a_follow_is_never_carried_into_another_deal_or_match():
    search = GuidedSearch(FakeNet(TH), infer=False, beta=1.0)  # type: ignore[arg-type]
    s = fixed_deal(HANDS_LEAD, TALON_LEAD, dealer=1)
    v = view(s, BOT)
    search.observe(v)
    search.remember(v, [s.clone() for _ in range(4)], [], parse_action("AD"))
    other = deal(random.Random(5), dealer=0, match_scores=(1, 0))  # the next deal
    search.observe(view(other, BOT))
    assert search.beliefs.pending is None and not search.beliefs.entries
    search.observe(v)
    search.remember(v, [s.clone() for _ in range(4)], [], parse_action("AD"))
    search.reset()  # a new match
    assert search.beliefs.pending is None
    s.play("AD", "9H")
    search.observe(view(s, BOT))
    assert not search.beliefs.entries


def test_the_bot_keeps_worlds_only_for_its_searched_leads_and_is_deterministic():
    net = tiny_guide(2)
    runs = []
    for _ in range(2):
        bots = [GuidedAgent(seed=3, worlds=4, net=net), GuidedAgent(seed=4, worlds=4, net=net)]
        rng, record, follows = random.Random(8), [], 0
        for _ in range(6):
            s = deal(rng)
            while not s.is_over:
                bot = bots[s.to_act]
                v = view(s, s.to_act)
                before = len(bot.search.beliefs.entries)
                a = bot.act(v)
                r = bot.last_result
                pending = bot.search.beliefs.pending
                searched = r.worlds >= 2 and v.window == LEAD and a < N_CARDS and v.stock > 0
                assert (pending is not None) == searched
                if pending is not None:
                    assert len(pending.worlds) == r.worlds and pending.card == a
                follows += len(bot.search.beliefs.entries) > before and v.window != FOLLOW  # not a lead's
                record.append((a, [(st, x.tobytes()) for st, x in bot.search.beliefs.entries]))
                s.apply(a)
        assert follows > 0
        runs.append(record)
    assert runs[0] == runs[1]


def test_a_move_likelihood_is_floored_above_zero():
    s = fixed_deal(HANDS_LEAD, TALON_LEAD, dealer=1).play("AD")
    logits = FakeNet(parse_action("AS"), strength=1e4).policy_logits  # the model would play AS for sure
    lik = move_likelihoods([s], parse_action("9H"), logits, 1.0, 0.1)
    n = s.legal_mask().bit_count()
    assert lik[0] == pytest.approx(0.1 / n) and lik[0] > 0  # the uniform share: never 0


def test_the_belief_bench_runs_and_reports_every_configuration(capsys):
    bench = runpy.run_path(str(Path(__file__).resolve().parents[2] / "bench" / "bench_beliefs.py"))
    bench["main"](["--deals", "4", "--worlds", "4", "--actor", "guided:worlds=2", "--opponent", "heuristic"])
    out = capsys.readouterr().out
    assert "talon open" in out and "all - leads" in out
    assert all(f"\n{c} " in out for c in ("uniform", "leads", "all"))
