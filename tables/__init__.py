"""Tables where a person plays Sixty-Six against any bot.

The game, shared by both tables:

- :mod:`tables.session`: one game between a person and a bot, driven through
  the public environment (``sixtysix_env.env``) and ``agents.make_agent``.
- :mod:`tables.frame`: the table as the person may see it, built from their
  :class:`~sixtysix_env.PlayerView` and the public tricks only.
- :mod:`tables.narration`: the moves and results in words, from the person's side.
- :mod:`tables.moves`: typed moves read, illegal ones refused with the rule they break.
- :mod:`tables.hints`: what a hint bot would play, with its values per move.
- :mod:`tables.store`: finished games appended (fsync'd) to an arena-format
  JSONL file that ``sixtysix replay`` and the browser viewer read.
- :mod:`tables.viewer`: the move-by-move frames of a recorded game.
- :mod:`tables.four_session` and :mod:`tables.four_frame`: the four-player table (the person
  and a partner bot against two bots, docs/rules-four.md), with the same methods as a
  :class:`~tables.session.Session`, so both tables play it through the same code.

The tables:

- :mod:`tables.terminal`: ``sixtysix play``, the table in a terminal (``--players 4``:
  :mod:`tables.four_terminal`; cards and colours: :mod:`tables.tty`).
- :mod:`tables.web`: ``sixtysix serve``, the table in a browser (Starlette +
  uvicorn; the page in ``tables/static`` is plain HTML/CSS/JavaScript), with
  :mod:`tables.games` (the games by session, the bots' threads),
  :mod:`tables.endpoint` (session cookie, JSON in and out, JSON errors),
  :mod:`tables.game_api` and :mod:`tables.records_api` (the two halves of the API).
- :mod:`tables.loadtest`: many games at once through the API, and a local server for tests.
"""
