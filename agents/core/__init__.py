"""The bottom of ``agents``: what the bots, the search, the protocol and training all build on.

The rules of thumb (:mod:`~agents.core.rules`), the networks (:mod:`~agents.core.nets`), the
checkpoint format (:mod:`~agents.core.checkpoint`, its file checks in
:mod:`~agents.core.checkpoint_files`) and the ``guided`` bot's network in numpy
(:mod:`~agents.core.guide_net`), the statistics of bot comparisons (:mod:`~agents.core.stats`),
forfeit kinds (:mod:`~agents.core.forfeits`) and process lifetime (:mod:`~agents.core.lifetime`).
A module here imports nothing of ``agents`` outside this package (tests/layout checks it).
"""
