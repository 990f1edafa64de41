"""Sixty-Six on torch tensors: thousands of tables stepped at once (GitHub issue 19).

``import sixtysix_env`` never imports this subpackage: it needs torch.

- :mod:`.engine`: :class:`BatchedEngine`, the rules for N tables as a
  structure of tensors on one device (reset, step, legal masks, deal
  results, automatic reset): the public class over
  - :mod:`.state`: :class:`~.state.BatchedState`, the one typed container
    of every tensor (the fields, what the last step ended) and its scalar
    views (``state(i)``, ``result(i)``, ``scores()``); the engine holds one
    (``eng.now``) and reads its tensors out as attributes;
  - :mod:`.deal`: random decks in batches and the next deal;
  - :mod:`.legal`: legal masks and the check of a step's actions;
  - :mod:`.step`: one action per table (trick, draw, marriage, exchange,
    close, declare, next window), returning the state it makes;
  - :mod:`.score`: the end of a deal (results, rewards, match scores),
    returning the state it makes;
  - :mod:`.lookup`: constants and per-device lookup tables.
- :mod:`.sampling`: :func:`sample_masked`, the project's one masked sampler
  (a policy's logits over the legal actions, every table at once), and
  :func:`random_actions`, a uniformly random legal action per table.
- :mod:`.observe`: :func:`observe`, the 312 features of
  ``observation.encode`` (``full=True``: the 384 of ``encode_full``) for all
  tables, bit for bit; :func:`action_masks`.
- :mod:`.vector`: :class:`SelfPlayEnv` (both seats, for self-play training
  loops; ``training.envs.BatchedEnvs`` puts it behind the training
  collector) and :class:`SixtySixVectorEnv`, a Gymnasium vector env against
  a batched opponent.
- :mod:`.rules`: :func:`~.rules.batched_rules`, the presets it plays (every
  preset of docs/rules-variants.md with its switches, one per engine; a
  hand-made ``Rules`` raises :class:`~.rules.UnsupportedRulesError`).
- :mod:`.check`: the differential check against the scalar engine (tests and
  ``bench/bench_batched_diff.py``).

Benches: ``bench/bench_batched.py`` (decisions per second),
``bench/bench_collect.py --engine batched`` (the training collector with
the policy and critic networks), ``bench/bench_threads.py`` (torch threads
and OpenMP's wait policy side by side), ``bench/bench_batched_diff.py`` (a million decisions
compared with the scalar engine); each takes ``--device cuda``.
"""

from .engine import BatchedEngine
from .observe import action_masks, observe
from .rules import UnsupportedRulesError
from .sampling import NonFiniteLogitsError, random_actions, sample_masked
from .vector import SelfPlayEnv, SixtySixVectorEnv

__all__ = [
    "BatchedEngine",
    "NonFiniteLogitsError",
    "SelfPlayEnv",
    "SixtySixVectorEnv",
    "UnsupportedRulesError",
    "action_masks",
    "observe",
    "random_actions",
    "sample_masked",
]
