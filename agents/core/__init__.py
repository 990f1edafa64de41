"""The bottom of ``agents``: pieces the bots, the search, the protocol and training all build on.

Forfeit kinds (:mod:`~agents.core.forfeits`) and process lifetime (:mod:`~agents.core.lifetime`). A module
here imports nothing of ``agents`` outside this package (tests/layout checks it).
"""
