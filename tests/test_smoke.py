import random

from sixtysix_env.engine import deal


def test_random_deal_ends():
    rng = random.Random(0)
    s = deal(rng)
    while not s.is_over:
        s.apply(rng.choice(s.legal_actions()))
    assert s.result is not None
