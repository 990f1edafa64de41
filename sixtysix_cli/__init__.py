"""The ``sixtysix`` command line: ``arena``, ``replay``, ``bots``, ``bench``, ``leaderboard``, and the
commands that installed packages add (``play`` and ``serve`` from ``tables``).

It sits above the bots (``agents``) and the tables: nothing in them imports it.
"""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
