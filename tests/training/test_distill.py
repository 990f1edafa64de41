"""training.distill, the endgame and closed-talon networks: labels, the loss, tiny runs, the bot,
and the two benches that measure them."""

from __future__ import annotations

import random
import runpy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.core.checkpoint import DEFAULT_CHECKPOINT, load, policy_from
from agents.core.nets import PhaseNet
from agents.core.rules import is_closed_view, is_endgame_view
from agents.neural import PPOAgent, load_ppo_agent
from agents.search.solver import Solver, action_values
from sixtysix_env.actions import CLOSE, DECLARE
from sixtysix_env.cards import make_card, rank_of, suit_of
from sixtysix_env.deals import deal, new_state
from sixtysix_env.engine import OVER
from sixtysix_env.knowledge import sample_state, view
from sixtysix_env.observation import OBS_SIZE, encode, suit_permutation, unseen_cards
from training import distill as de

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rows() -> dict[str, np.ndarray]:
    return de.phase_positions(str(DEFAULT_CHECKPOINT), seed=5, deals=40, explore=0.2, lines=4)


def test_collect_labels_real_endgame_choices(rows: dict[str, np.ndarray]) -> None:
    n = len(rows["obs"])
    assert n > 20
    assert rows["obs"].shape == (n, OBS_SIZE) and rows["values"].shape == (n, 32)
    legal, values = rows["legal"], rows["values"]
    assert (legal.sum(1) >= 2).all()  # only real choices
    assert (values[~legal] == 0).all()  # illegal actions carry no label
    assert (np.abs(values[legal]) <= 3).all()  # game points of one deal
    assert (rows["obs"][:, 304] == 0).all()  # talon size 0: the talon is spent


def test_collect_values_are_the_solver_values() -> None:
    # the same seed replays the same deal; find its endgame rows by hand
    checked = 0
    for seed in range(9, 40):
        r = de.phase_positions(str(DEFAULT_CHECKPOINT), seed=seed, deals=1, explore=0.0, lines=1)
        rng = random.Random(seed)
        # phase_positions plays the policy (not the endgame network the shipped file also has)
        agent = PPOAgent(policy_from(load(DEFAULT_CHECKPOINT)), seed=seed,
                         greedy=False, assist="rules")
        scores = (rng.randrange(7), rng.randrange(7))
        s = deal(rng.randrange(1 << 62), match_scores=scores)
        found = []
        while s.window != OVER:
            v = view(s, s.to_act)
            if de.is_phase_row(v, "spent"):
                found.append((encode(v), action_values(s)))
            s.apply(agent.act(v))
        assert len(found) == len(r["values"])
        for (obs, vals), row_obs, row in zip(found, r["obs"], r["values"], strict=True):
            assert np.array_equal(obs, row_obs)
            assert {a: int(row[a]) for a in vals} == vals
        checked += len(found)
        if checked >= 5:
            break
    assert checked >= 5


def test_unseen_cards_is_the_opponents_hand_once_the_talon_is_spent(rows: dict[str, np.ndarray]) -> None:
    rng = random.Random(3)
    checked = 0
    for _ in range(30):
        s = deal(rng.randrange(1 << 30))
        while s.window != OVER:
            p = s.to_act
            x = encode(view(s, p))
            plane = unseen_cards(x)
            hidden = s.hands[1 - p] | (0 if s.stock == 0 else sum(1 << c for c in s.talon[12 - s.stock:11]))
            assert [int(b) for b in plane] == [hidden >> c & 1 for c in range(24)]
            checked += s.stock == 0
            on = [a for a in s.legal_actions() if a not in (CLOSE, DECLARE)]  # play on to the endgame
            s.apply(rng.choice(on or s.legal_actions()))
    assert checked > 50
    batch = torch.as_tensor(rows["obs"][:8])  # the torch, batched form agrees
    assert torch.equal(unseen_cards(batch), torch.as_tensor(unseen_cards(rows["obs"][:8])))


@pytest.mark.parametrize("perm", [(1, 0, 2, 3), (3, 2, 0, 1), (2, 3, 1, 0)])
def test_renaming_suits_keeps_the_position_and_its_values(perm: tuple[int, ...]) -> None:
    # play the same deal twice, once with every card's suit renamed by perm; the
    # renamed observation must be the gathered one and the solver values agree
    obs_src, act_src = suit_permutation(perm)

    def rename_card(c: int) -> int:
        return make_card(perm[suit_of(c)], rank_of(c))

    def rename_action(a: int) -> int:
        return rename_card(a) if a < 24 else 24 + perm[a - 24] if a < 28 else a

    rng = random.Random(sum(perm))
    checked = 0
    for _ in range(15):
        cards = list(range(24))
        rng.shuffle(cards)
        s = new_state((cards[:6], cards[6:12]), cards[12:], 0)
        r = [rename_card(c) for c in cards]
        t = new_state((r[:6], r[6:12]), r[12:], 0)
        while s.window != OVER:
            for p in (0, 1):
                assert np.array_equal(encode(view(s, p))[obs_src], encode(view(t, p)))
            if s.stock == 0 and s.window in (0, 3) and len(s.legal_actions()) > 1:
                vs, vt = action_values(s), action_values(t)
                assert {rename_action(a): v for a, v in vs.items()} == vt
                row_s, row_t = np.zeros(32), np.zeros(32)
                row_s[list(vs)], row_t[list(vt)] = list(vs.values()), list(vt.values())
                assert np.array_equal(row_s[act_src], row_t)
                checked += 1
            on = [a for a in s.legal_actions() if a not in (CLOSE, DECLARE)]
            a = rng.choice(on or s.legal_actions())
            s.apply(a)
            t.apply(rename_action(a))
    assert checked > 20
    values = np.arange(32, dtype=np.float32)
    assert sorted(values[act_src]) == list(values)  # a permutation of the actions


def test_endgame_loss_prefers_the_best_move() -> None:
    legal = torch.tensor([[True, True, False, True]])
    values = torch.tensor([[1.0, -1.0, 0.0, -2.0]])
    good = torch.tensor([[5.0, 0.0, 9.0, 0.0]])  # an illegal logit must not matter
    bad = torch.tensor([[0.0, 5.0, 0.0, 0.0]])
    assert de.phase_loss(good, values, legal, 0.25) < de.phase_loss(bad, values, legal, 0.25)
    # its minimum is at logits = values / tau (up to a constant)
    best = de.phase_loss(values / 0.25 + 3.0, values, legal, 0.25)
    assert best < de.phase_loss(values / 0.25 * 1.5, values, legal, 0.25)
    assert best < de.phase_loss(values / 0.25 * 0.5, values, legal, 0.25)


def test_fit_learns_the_rows(rows: dict[str, np.ndarray]) -> None:
    torch.manual_seed(0)
    net = PhaseNet((64,))
    args = de.parse(["in.pt", "out.pt", "--epochs", "30", "--batch", "32", "--no-progress"])
    obs, legal, values = (torch.as_tensor(rows[k]) for k in de.ROW_KEYS)
    acc0, _ = de.phase_quality(net, obs, legal, values)
    de.fit(net, rows, args)
    acc1, reg1 = de.phase_quality(net, obs, legal, values)
    assert acc1 > max(acc0, 0.8) and reg1 < 0.3


def play_to_closed_views(seed: int, deals: int) -> list:
    """(state, view) pairs of non-obvious closed-talon decisions: random
    play that closes the talon whenever it may."""
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        s = deal(rng.randrange(1 << 30))
        while s.window != OVER:
            v = view(s, s.to_act)
            if de.is_phase_row(v, "closed"):
                out.append((s.clone(), v))
            legal = s.legal_actions()
            s.apply(CLOSE if CLOSE in legal else rng.choice(legal))
    return out


def test_closed_rows_are_labelled_with_the_solver_values_averaged_over_sampled_worlds() -> None:
    positions = play_to_closed_views(seed=2, deals=10)
    assert len(positions) > 10
    solver = Solver()
    for s, v in positions[:12]:
        row = de.row_values(s, v, "closed", 3, solver, random.Random(5))
        rng = random.Random(5)  # the same three worlds, by hand
        expected = np.zeros(32)
        for _ in range(3):
            for a, x in action_values(sample_state(v, rng)).items():
                expected[a] += x / 3
        assert np.allclose(row, expected)
        legal = np.array([v.legal_mask >> a & 1 for a in range(32)], dtype=bool)
        assert (row[~legal] == 0).all()
        # a spent-talon label is the true state's values, whatever the worlds
        assert s.stock > 0 and not de.is_phase_row(v, "spent")
    # phase_positions keeps only closed-talon rows, with labels within one deal's game points
    r = de.phase_positions(str(DEFAULT_CHECKPOINT), seed=3, deals=30, explore=0.3, lines=2, phase="closed",
                   worlds=2)
    assert len(r["obs"]) > 10
    assert (r["obs"][:, 304] > 0).all()  # cards left in the talon
    assert (r["legal"].sum(1) >= 2).all() and (np.abs(r["values"]) <= 3).all()
    assert (r["values"][~r["legal"]] == 0).all()


@pytest.mark.parametrize("phase", ["spent", "closed"])
def test_agent_uses_each_phase_network_only_in_its_phase(phase: str) -> None:
    # the endgame network with the talon spent; the closed-talon network after a
    # close with cards left; the policy (or the other network) everywhere else
    policy = policy_from(load(DEFAULT_CHECKPOINT))
    torch.manual_seed(1)
    endgame, closed = PhaseNet((16,)), PhaseNet((16,))
    net, in_phase = (endgame, is_endgame_view) if phase == "spent" else (closed, is_closed_view)
    with torch.no_grad():  # logits that vary with the position, so the check means something
        net.net[-1].weight.mul_(1000.0)
    others = {} if phase == "spent" else {"endgame": endgame}
    plain = PPOAgent(policy, assist="none", **others)
    with_net = PPOAgent(policy, assist="none", **others, **{"endgame" if phase == "spent" else "closed": net})
    close_p = 0.0 if phase == "spent" else 0.3  # close often to reach the closed phase
    rng = random.Random(6)
    seen = {True: 0, False: 0}
    for _ in range(30):
        s = deal(rng.randrange(1 << 30))
        while s.window != OVER:
            v = view(s, s.to_act)
            inside = in_phase(v)
            assert is_closed_view(v) == (s.closed_by >= 0 and s.stock > 0 and s.window in (0, 3, 4))
            assert not (is_closed_view(v) and is_endgame_view(v))  # the phases never overlap
            if inside:
                expected = net(torch.as_tensor(encode(v))[None])[0].detach().numpy()
                assert np.allclose(with_net.logits(v), expected, rtol=1e-4, atol=1e-4)
                assert np.ptp(expected) > 0.5 and not np.allclose(expected, plain.logits(v))
            else:
                assert np.array_equal(with_net.logits(v), plain.logits(v))
            seen[inside] += 1
            legal = s.legal_actions()
            s.apply(CLOSE if CLOSE in legal and rng.random() < close_p else plain.act(v))
    assert seen[True] > 20 and seen[False] > 100


@pytest.mark.parametrize("argv, message", [
    (["--deals", "0"], "--deals: must be at least 1"),
    (["--deals", "9" * 15], "--deals: must be at most 1000000"),  # would plan a job list for ever
    (["--explore", "1.5"], "--explore: must be in [0, 1]"),
    (["--explore", "nan"], "--explore: must be in [0, 1]"),
    (["--tau", "0"], "--tau: must be a finite number above 0"),
    (["--tau", "nan"], "--tau: must be a finite number above 0"),
    (["--lr", "nan"], "--lr: must be a finite number above 0"),
    (["--lr", "inf"], "--lr: must be a finite number above 0"),
    (["--hidden", "64", "0"], "--hidden: must be a layer size in 1..4096"),
    (["--hidden", "5000"], "--hidden: must be a layer size in 1..4096"),
    (["--hidden", *["8"] * 9], "--hidden must be 1 to 8 layer sizes"),
    (["--worlds", "0"], "--worlds: must be at least 1"),
    (["--worlds", "5000"], "--worlds: must be at most 4096"),
    (["--workers", "5000"], "--workers: must be at most 1024"),
    (["--seed", str(2**64)], "--seed: must be in [0, 2**63 - 1]"),  # torch's generators take no more
    (["--phase", "open"], "invalid choice: 'open'"),
])
def test_bad_arguments_are_named(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        de.parse(["in.pt", "out.pt", *argv])
    assert message in capsys.readouterr().err


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.distill", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_tiny_run_writes_a_playable_checkpoint_and_reuses_its_rows(tmp_path: Path) -> None:
    out, data = tmp_path / "eg.pt", tmp_path / "rows.npz"
    small = ["--deals", "40", "--chunk", "20", "--lines", "2", "--epochs", "1", "--workers", "1",
             "--hidden", "32", "--no-progress", "--data", str(data)]
    r = run(str(DEFAULT_CHECKPOINT), str(out), *small)
    assert r.returncode == 0, r.stderr
    assert "the policy: optimal" in r.stdout and "held-out optimal" in r.stdout and "wrote" in r.stdout
    ckpt = load(out)
    assert "optimizer" not in ckpt and ckpt["distill_endgame"]["deals"] == 40
    assert ckpt["endgame"]["hidden"] == [32]
    agent = load_ppo_agent(out, assist="rules")
    assert agent.assist == "rules" and agent.endgame_layers is not None
    n = len(np.load(data)["obs"])

    r = run(str(DEFAULT_CHECKPOINT), str(out), *small)  # the rows are read back, not collected
    assert r.returncode == 0, r.stderr
    assert f"rows: {n} {data}" in r.stdout
    two = [a for a in small if a not in ("--data", str(data))] + ["--data", str(data), str(data)]
    r = run(str(DEFAULT_CHECKPOINT), str(out), *two)  # several files are joined
    assert r.returncode == 0, r.stderr
    assert f"rows: {2 * n} {data} {data}" in r.stdout
    r = run(str(DEFAULT_CHECKPOINT), str(out), "--data", str(data), str(tmp_path / "new.npz"))
    assert r.returncode == 2 and "new.npz missing" in r.stderr

    copy = tmp_path / "copy.pt"  # reuse the endgame network with another policy file
    source = load(out)  # as the runs above last wrote it, not the first run's
    r = run(str(DEFAULT_CHECKPOINT), str(copy), "--endgame-from", str(out))
    assert r.returncode == 0 and "copied from" in r.stdout, r.stderr
    copied = load(copy)
    assert copied["endgame"]["state"].keys() == source["endgame"]["state"].keys()
    assert all(torch.equal(copied["endgame"]["state"][k], source["endgame"]["state"][k])
               for k in source["endgame"]["state"])
    plain = tmp_path / "plain.pt"
    torch.save({k: v for k, v in ckpt.items() if k != "endgame"}, plain)
    r = run(str(DEFAULT_CHECKPOINT), str(copy), "--endgame-from", str(plain))
    assert r.returncode == 2 and "has no endgame network" in r.stderr

    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"\x00" * 10)
    r = run(str(bad), str(out))
    assert r.returncode == 2 and "bad.pt is corrupt" in r.stderr
    np.savez(tmp_path / "junk.npz", x=np.zeros(3))
    r = run(str(DEFAULT_CHECKPOINT), str(out), "--data", str(tmp_path / "junk.npz"))
    assert r.returncode == 2 and "is not a file of endgame rows" in r.stderr


@pytest.mark.slow
def test_closed_phase_run_adds_its_network_next_to_the_endgame_network(tmp_path: Path) -> None:
    out, data = tmp_path / "closed.pt", tmp_path / "closed.npz"
    small = ["--phase", "closed", "--worlds", "2", "--deals", "30", "--chunk", "15", "--lines", "2",
             "--epochs", "1", "--workers", "1", "--hidden", "32", "--no-progress"]
    r = run(str(DEFAULT_CHECKPOINT), str(out), *small, "--data", str(data))
    assert r.returncode == 0, r.stderr
    ckpt, shipped = load(out), load(DEFAULT_CHECKPOINT)
    assert ckpt["closed"]["hidden"] == [32] and ckpt["distill_closed"]["worlds"] == 2
    assert all(torch.equal(ckpt["endgame"]["state"][k], v)  # the endgame network is kept as it was
               for k, v in shipped["endgame"]["state"].items())
    assert ckpt["distill_endgame"] == shipped["distill_endgame"]
    agent = load_ppo_agent(out, assist="rules")
    assert agent.closed_layers is not None and agent.endgame_layers is not None
    assert str(np.load(data)["phase"]) == "closed"
    r = run(str(DEFAULT_CHECKPOINT), str(out), "--data", str(data))  # rows of the other phase
    assert r.returncode == 2 and "holds rows of --phase closed, not spent" in r.stderr

    copy = tmp_path / "copy.pt"  # copied to another policy file, by phase
    r = run(str(DEFAULT_CHECKPOINT), str(copy), "--phase", "closed", "--endgame-from", str(out))
    assert r.returncode == 0 and "closed network [32] copied from" in r.stdout, r.stderr
    assert all(torch.equal(load(copy)["closed"]["state"][k], v)
               for k, v in ckpt["closed"]["state"].items())
    half = tmp_path / "half.pt"  # float16: half the size, the same play all but never
    r = run(str(out), str(half), "--phase", "closed", "--endgame-from", str(out), "--half")
    assert r.returncode == 0, r.stderr
    small_ckpt = load(half)
    assert small_ckpt["closed"]["state"]["net.0.weight"].dtype == torch.float16
    assert small_ckpt["policy"]["net.0.weight"].dtype == torch.float16
    assert small_ckpt["distill_closed"]["source_record"] == ckpt["distill_closed"]
    assert ckpt["closed"]["state"]["net.0.weight"].dtype == torch.float32  # a fit writes float32
    assert all(v.dtype == torch.float16
               for k in ("endgame", "closed") for v in small_ckpt[k]["state"].values())
    full, halved = load_ppo_agent(out, assist="rules"), load_ppo_agent(half, assist="rules")
    rng = random.Random(1)
    for _ in range(3):
        s = deal(rng.randrange(1 << 30))
        while s.window != OVER:
            v = view(s, s.to_act)
            assert np.allclose(halved.logits(v), full.logits(v), atol=0.05)
            s.apply(full.act(v))
    eg_only = tmp_path / "eg_only.pt"
    torch.save({k: v for k, v in ckpt.items() if k != "closed"}, eg_only)
    r = run(str(DEFAULT_CHECKPOINT), str(copy), "--phase", "closed", "--endgame-from", str(eg_only))
    assert r.returncode == 2 and "has no closed network" in r.stderr


def bench_main(name: str) -> Callable[[list[str]], None]:
    """The ``main`` of a bench script, run from its file (bench/ is not a package)."""
    return runpy.run_path(str(ROOT / "bench" / f"{name}.py"), run_name=name)["main"]


def test_endgame_bench_reports_per_window(capsys: pytest.CaptureFixture[str]) -> None:
    bench_main("bench_endgame")(["--deals", "20", "--seed", "3"])
    out = capsys.readouterr().out
    assert "20 self-play deals" in out and "lead" in out and "total  lost" in out


def test_closed_bench_scores_both_bots_on_the_same_positions(capsys: pytest.CaptureFixture[str]) -> None:
    bench_main("bench_closed")(["--deals", "12", "--seed", "3", "--worlds", "4"])
    out = capsys.readouterr().out
    assert "ppo:assist=rules vs pimc (4 worlds), 12 deals" in out
    lines = [line.replace(",", "").split() for line in out.splitlines()]
    ppo_row, pimc_row, total = lines[1], lines[2], lines[3]
    assert ppo_row[:3] == ["ppo", "to", "act:"] and pimc_row[:3] == ["pimc", "to", "act:"]
    assert int(total[1]) == int(ppo_row[3]) + int(pimc_row[3]) > 0
    assert all(float(x) >= 0 for x in (ppo_row[6], ppo_row[11], total[4], total[6]))
