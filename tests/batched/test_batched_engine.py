"""BatchedEngine: seeding, dealing, validation, active tables, state round trips."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
import torch

from sixtysix_env.actions import CLOSE, CONTINUE, N_ACTIONS
from sixtysix_env.batched import BatchedEngine, action_masks, observe
from sixtysix_env.batched.engine import NOOP
from sixtysix_env.batched.observe import masks_of
from sixtysix_env.batched.sampling import random_actions
from sixtysix_env.cards import FULL_DECK
from sixtysix_env.deals import deal
from sixtysix_env.engine import LEAD, OVER, TALON_SIZE


def play(eng: BatchedEngine, steps: int, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    seen = []
    for _ in range(steps):
        eng.step(random_actions(eng.legal, g))
        seen.append(observe(eng))
    return seen


def test_import_sixtysix_env_does_not_import_torch() -> None:
    code = "import sys, sixtysix_env; assert 'torch' not in sys.modules, 'torch was imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_same_seed_same_play_other_seed_other_deals() -> None:
    a, b, c = BatchedEngine(64, 5), BatchedEngine(64, 5), BatchedEngine(64, 6)
    assert torch.equal(a.hands, b.hands) and not torch.equal(a.hands, c.hands)
    for x, y in zip(play(a, 60), play(b, 60), strict=True):
        assert torch.equal(x, y)
    a.reset(5)
    assert torch.equal(a.hands, b.__class__(64, 5).hands)


def test_deals_are_deals_and_look_uniform() -> None:
    eng = BatchedEngine(4096, 0)
    h0, h1 = eng.hands[0], eng.hands[1]
    talon = (1 << eng.talon).sum(0)
    assert ((h0 | h1 | talon) == FULL_DECK).all() and not (h0 & h1).any() and not ((h0 | h1) & talon).any()
    assert (eng.window == LEAD).all() and (eng.stock == TALON_SIZE).all()
    assert (eng.to_act == 1 - eng.dealer).all() and (eng.match_scores == 0).all()
    # every card lands in player 0's hand a quarter of the time, and on top of the talon 1/24 of it
    in_hand0 = ((h0.unsqueeze(1) >> torch.arange(24)) & 1).float().mean(0)
    assert ((in_hand0 - 0.25).abs() < 0.04).all()
    top = torch.bincount(eng.talon[0], minlength=24).float() / 4096
    assert ((top - 1 / 24).abs() < 0.02).all()
    assert abs(eng.dealer.float().mean().item() - 0.5) < 0.05
    assert (eng.trump == eng.talon[-1] // 6).all() and (eng.trump_card == eng.talon[-1]).all()


def test_illegal_actions_raise_naming_the_table_before_anything_moves() -> None:
    eng = BatchedEngine(8, 0)
    before = eng.hands.clone()
    actions = random_actions(eng.legal)
    actions[3] = CONTINUE  # never legal in the lead window
    message = r"table\(s\) \[3\]; table 3: 31 \(continue\) .* lead window; legal: "
    with pytest.raises(ValueError, match=message):
        eng.step(actions)
    with pytest.raises(ValueError, match="illegal"):
        eng.step(torch.full((8,), NOOP))
    with pytest.raises(ValueError, match="shape"):
        eng.step(torch.zeros(3, dtype=torch.int64))
    assert torch.equal(eng.hands, before)


def test_inactive_tables_do_not_move() -> None:
    eng = BatchedEngine(16, 1)
    g = torch.Generator().manual_seed(0)
    for _ in range(30):
        active = torch.arange(16) % 2 == 0
        frozen = {k: getattr(eng, k).clone() for k in ("hands", "window", "to_act", "played", "match_scores")}
        eng.step(random_actions(eng.legal, g), active)
        for k, v in frozen.items():
            assert torch.equal(getattr(eng, k)[..., 1::2], v[..., 1::2])
        assert not eng.deal_done[1::2].any() and (eng.rewards[1::2] == 0).all()


def test_state_round_trip_and_results() -> None:
    rng = random.Random(3)
    states = [deal(rng) for _ in range(5)]
    eng = BatchedEngine.from_states(states)
    assert all(eng.state(i) == s for i, s in enumerate(states))
    eng.step(torch.full((5,), CLOSE), autoreset=False)
    eng.step(torch.full((5,), CONTINUE), autoreset=False)
    for i, s in enumerate(states):
        s.play("close", "continue")
        assert eng.state(i) == s and eng.result(i) is None
    with pytest.raises(ValueError, match="OVER"):
        BatchedEngine.from_states([_finished()])


def _finished():
    s = deal(random.Random(0))
    while not s.is_over:
        s.apply(s.legal_actions()[-1])
    return s


def test_without_autoreset_a_finished_deal_waits_in_the_over_window() -> None:
    eng = BatchedEngine(256, 2)
    g = torch.Generator().manual_seed(2)
    while not eng.deal_done.any():  # until then no table is in the OVER window
        eng.step(random_actions(eng.legal, g), autoreset=False)
    done = eng.deal_done
    assert (eng.window[done] == OVER).all() and (eng.legal[done] == 0).all()
    assert (eng.deal_reason[done] >= 0).all() and (eng.deal_reason[~done] == -1).all()
    eng.autoreset()
    assert (eng.window != OVER).all() and (eng.legal != 0).all()


def test_random_actions_are_legal_and_uniform() -> None:
    legal = torch.tensor([0b1011, 1 << 31 | 1, (1 << 24) - 1, 0])
    g = torch.Generator().manual_seed(0)
    draws = torch.stack([random_actions(legal, g) for _ in range(3000)])
    assert set(draws[:, 0].tolist()) == {0, 1, 3} and set(draws[:, 1].tolist()) == {0, 31}
    assert (draws[:, 3] == NOOP).all()
    counts = torch.bincount(draws[:, 2], minlength=24).float()
    assert ((counts / 3000 - 1 / 24).abs() < 0.015).all()


def test_masks_agree_with_the_legal_bitmask() -> None:
    eng = BatchedEngine(512, 4)
    play(eng, 20)
    masks = action_masks(eng.legal)
    assert masks.shape == (512, N_ACTIONS) and masks.dtype == torch.bool
    assert torch.equal(masks, masks_of(observe(eng)))
    assert torch.equal((masks.long() << torch.arange(N_ACTIONS)).sum(1), eng.legal)


def test_inference_mode_on_either_side() -> None:
    from sixtysix_env.batched.vector import SelfPlayEnv

    with torch.inference_mode():
        made_inside = SelfPlayEnv(32, 0)
    made_outside = SelfPlayEnv(32, 0)
    g = torch.Generator().manual_seed(0)
    for env in (made_inside, made_outside):
        for inside in (True, False, True, False):
            with torch.inference_mode(inside):
                for _ in range(20):
                    env.step(random_actions(env.engine.legal, g))
    with torch.inference_mode():
        eng = BatchedEngine(8, 0)
    eng.load_states([deal(random.Random(1))])
    eng.step(random_actions(eng.legal, g))
