"""Seeds and random number generators: the one place the package derives them.

Standard library only. Everything that must replay the same cards from a seed
goes through here:

- :func:`make_rng`: an RNG from a seed, or an RNG passed through (what
  ``deal`` and ``sample_state`` accept);
- :func:`deal_rng`: the RNG of deal ``k`` of the environments' match started
  with ``seed`` (duplicate matches see the same cards however play goes);
- :func:`derive_seed`: a 63-bit seed from any parts, for schedules of many
  games (``derive_seed(seed, "game", k)``);
- :func:`fresh_seed`: a seed from the operating system, when none is given;
- :class:`SeedStream`: the match seeds of an env's ``reset(seed)`` calls.
"""

from __future__ import annotations

import hashlib
import numbers
import random
from typing import Any


def make_rng(seed: int | random.Random | Any | None = None) -> Any:
    """A ``random.Random`` from a seed, or an RNG passed through.

    Any object with ``shuffle`` and ``random`` methods works, notably
    ``random.Random`` and ``numpy.random.Generator``. A seed is an int
    (numpy's too, never a bool), as in :func:`reset_seed`.
    """
    if seed is None:
        return random.Random()
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return random.Random(int(seed))
    if hasattr(seed, "shuffle") and hasattr(seed, "random"):
        return seed
    raise ValueError(f"expected an int seed or an RNG with shuffle/random, got {seed!r}")


def deal_rng(seed: int | str, k: int) -> random.Random:
    """The RNG that shuffles deal ``k`` of the match started with ``seed``.

    Derived from ``(seed, k)`` only (string seeding is stable across runs and
    platforms), so duplicate matches see the same cards however play goes.
    """
    return random.Random(f"sixtysix:{seed}:{k}")


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts, stable across runs, platforms and Python versions."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def fresh_seed() -> int:
    """A 63-bit seed from the operating system's randomness (``reset(seed=None)``)."""
    return random.SystemRandom().getrandbits(63)


def reset_seed(seed: object) -> int:
    """An env's ``reset(seed)`` as an int: any integer (numpy's too, never a bool), or a
    :func:`fresh_seed` for None; anything else is a ``ValueError``."""
    if seed is None:
        return fresh_seed()
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"seed must be an int or None, got {seed!r}")
    return int(seed)


class SeedStream:
    """The match seed of each ``reset(seed)`` of an env, under Gymnasium's rule:
    a seed restarts the stream, ``reset()`` without one continues it, so seeding
    once replays a whole run of episodes; never seeded, it draws :func:`fresh_seed`.
    Picklable, so a copied env continues the same stream."""

    def __init__(self) -> None:
        self.rng: random.Random | None = None

    def next(self, seed: object) -> int:
        """The seed of the match that ``reset(seed)`` starts (a bad seed: ``ValueError``)."""
        if seed is not None:
            match_seed = reset_seed(seed)
            self.rng = random.Random(derive_seed("reset stream", match_seed))
            return match_seed
        if self.rng is None:
            return fresh_seed()
        return self.rng.getrandbits(63)


__all__ = ["SeedStream", "deal_rng", "derive_seed", "fresh_seed", "make_rng", "reset_seed"]
