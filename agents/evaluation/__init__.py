"""Variance-reduced evaluation of bots (docs/variance.md).

- :mod:`~agents.evaluation.aivat`: one deal's luck terms and corrected result;
- :mod:`~agents.evaluation.values`: the value functions the terms use;
- :mod:`~agents.evaluation.regression`: cross-fitted weights for the terms;
- :mod:`~agents.evaluation.games`: the arena seam (game lines in, corrected points out).
"""
