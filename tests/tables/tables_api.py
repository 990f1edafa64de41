"""Test helpers: a client that plays through the web API and checks every reply for leaks.

The checker knows the truth the server must keep to itself: it replays the
game from its seed and the public moves the replies report (:class:`Mirror`),
so for every frame (a version of one deal) it knows which cards the player
has not seen: the opponent's unknown cards and the face-down talon. No reply
may name one of them, as a card name (``"TH"``), a drawn card (``"10♥"``) or
a card action id.
"""

from __future__ import annotations

import random
import re
from typing import Any

import sixtysix_env

CARD = re.compile(r"(?<![A-Za-z0-9])([9JQKTA][CSHD])(?![A-Za-z0-9])")
DRAWN = re.compile(r"(10|[9JQKA])([♣♠♥♦])")
NAMES = sixtysix_env.CARD_NAMES


def hidden_cards(state: Any, seat: int) -> int:
    """Cards ``seat`` has not seen in ``state``: the opponent's unknown cards and the face-down talon."""
    opp = 1 - seat
    mask = state.hands[opp] & ~state.known[opp]
    if state.stock:
        for c in state.talon[12 - state.stock:11]:
            mask |= 1 << c
    return mask


def named_cards(obj: Any) -> set[int]:
    """Every card a JSON value names."""
    out: set[int] = set()
    if isinstance(obj, str):
        out |= {NAMES.index(m) for m in CARD.findall(obj)}
        for rank, suit in DRAWN.findall(obj):
            out.add(NAMES.index(("T" if rank == "10" else rank) + "CSHD"["♣♠♥♦".index(suit)]))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("action", "card") and isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 24:
                out.add(v)
            out |= named_cards(k) | named_cards(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= named_cards(v)
    return out


class Mirror:
    """The true game, replayed from the seed and the public moves the replies report."""

    def __init__(self, seed: int, episode: str, seat: int) -> None:
        self.env = sixtysix_env.env(episode=episode)
        self.env.reset(seed=seed)
        self.raw = self.env.unwrapped
        self.seat = seat
        self.version = 0
        self.seen: set[int] = set()  # event seqs applied
        self.hidden = {(0, 1): hidden_cards(self.raw.game_state, seat)}

    def key(self) -> tuple[int, int]:
        return self.version, self.raw.deal_index + 1

    def events(self, events: list[dict[str, Any]]) -> None:
        for e in sorted(events, key=lambda e: e["seq"]):
            if e["seq"] in self.seen:
                continue
            self.seen.add(e["seq"])
            if e["action"] is not None:
                state, deal = self.raw.game_state, self.raw.deal_index + 1
                self.env.step(e["action"])
                self.version += 1
                assert self.version == e["version"], (self.version, e)
                self.hidden[(self.version, deal)] = hidden_cards(state, self.seat)
                if self.raw.game_state is not state:
                    self.hidden[self.key()] = hidden_cards(self.raw.game_state, self.seat)
            elif e["version"] > self.version:  # a resignation or forfeit: nothing moves
                self.hidden[(e["version"], self.raw.deal_index + 1)] = self.hidden[self.key()]
                self.version = e["version"]

    def check_frame(self, f: dict[str, Any], sent: set[int]) -> None:
        self.events(f.get("events", []))
        hidden = self.hidden[(f["version"], f["deal"])]
        leaked = {c for c in named_cards(f) - sent if hidden >> c & 1}
        assert not leaked, f"frame {f['version']}/{f['deal']} names hidden cards {[NAMES[c] for c in leaked]}"

    def check(self, reply: dict[str, Any], sent: set[int] = frozenset()) -> None:
        """Assert that no part of a reply names a card the player has not seen."""
        for f in reply.get("frames", []):
            self.check_frame(f, sent)
        if "state" in reply:
            self.check_frame(reply["state"], sent)
        rest = {k: v for k, v in reply.items() if k not in ("frames", "state")}
        hidden = self.hidden[self.key()]
        leaked = {c for c in named_cards(rest) - sent if hidden >> c & 1}
        assert not leaked, f"reply names hidden cards {[NAMES[c] for c in leaked]}: {rest}"


def pick(state: dict[str, Any], rng: random.Random) -> int:
    legal = state["legal"]
    for m in legal:
        if m["kind"] == "declare" and not m.get("false"):
            return m["action"]
    return rng.choice([m for m in legal if not m.get("false")] or legal)["action"]


def play_match(client: Any, seed: int, *, vs: str = "heuristic", episode: str = "match", seat: int = 0,
               hint: str | None = None, rng: random.Random | None = None,
               pokes: bool = True) -> dict[str, Any]:
    """Play one game through the API with random legal moves; every reply is checked for
    leaks. With ``pokes``, also asks for hints now and then and sends illegal, stale,
    out-of-turn and malformed requests, each of which must get a 4xx with a JSON error
    and leave the game unchanged. Returns the last reply."""
    rng = rng or random.Random(seed)
    mirror = Mirror(seed, episode, seat)
    body = {"vs": vs, "seed": seed, "episode": episode, "seat": seat, "hint": hint or "none"}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data = r.json()
    mirror.check(data)
    requests = 1
    while True:
        g, st = data["game"], data["state"]
        if g["over"] and g["record"] is not None:
            data["requests"] = requests
            return data
        if st["to_act"] != "you":
            if pokes and rng.random() < 0.2:
                refused(client, mirror, st, {"action": 31, "version": st["version"]}, 409)  # not your turn
                requests += 2
            r = client.get("/api/game", params={"since": st["version"], "wait": 20})
            assert r.status_code == 200, r.text
            data = r.json()
            mirror.check(data)
            requests += 1
            continue
        if pokes:
            requests += poke(client, mirror, st, rng, hint)
        action = pick(st, rng)
        r = client.post("/api/game/move", json={"action": action, "version": st["version"]})
        assert r.status_code == 200, r.text
        data = r.json()
        mirror.check(data)
        requests += 1


def refused(client: Any, mirror: Mirror, state: dict[str, Any], body: Any, status: int | tuple[int, ...],
            raw: bytes | None = None) -> None:
    """A request that must be refused with a JSON error, the game unchanged."""
    if raw is not None:
        r = client.post("/api/game/move", content=raw, headers={"content-type": "application/json"})
    else:
        r = client.post("/api/game/move", json=body)
    statuses = status if isinstance(status, tuple) else (status,)
    assert r.status_code in statuses, (r.status_code, r.text, body)
    err = r.json()
    assert set(err) == {"error"} and err["error"], err
    sent = named_cards(body) if isinstance(body, dict) else set()
    mirror.check(err, sent)
    after = client.get("/api/game", params={"since": state["version"]}).json()
    mirror.check(after)
    if state["to_act"] == "you":
        assert after["state"] == state, "a refused request changed the game"
    else:  # the bot may have moved meanwhile, never the player
        assert after["state"]["version"] >= state["version"]


def poke(client: Any, mirror: Mirror, st: dict[str, Any], rng: random.Random, hint: str | None) -> int:
    """Now and then: a hint, an illegal move, a stale version, a malformed body."""
    n = 0
    legal = {m["action"] for m in st["legal"]}
    if hint and rng.random() < 0.08:
        r = client.post("/api/game/hint", json={})
        assert r.status_code == 200, r.text
        h = r.json()
        mirror.check(h)
        assert h["hint"]["action"] in legal and {v["action"] for v in h["hint"]["values"]} <= legal
        n += 1
    roll = rng.random()
    if roll < 0.10:
        illegal = [a for a in range(32) if a not in legal]
        a = rng.choice(illegal)
        refused(client, mirror, st, {"action": a, "version": st["version"]}, 422)
        n += 2
    elif roll < 0.13:
        refused(client, mirror, st, {"action": min(legal), "version": st["version"] + 7}, 409)
        n += 2
    elif roll < 0.16:
        bad = rng.choice([{"action": "xyzzy"}, {"action": 99}, {"action": None}, {"action": True},
                          {"move": 3}, {"action": [1]}, {"action": 1.5}])
        refused(client, mirror, st, bad, 400)
        n += 2
    elif roll < 0.18:
        refused(client, mirror, st, None, 400, raw=rng.choice([b"{", b"[1,2]", b"\xff\xfe", b'"x"']))
        n += 2
    return n
