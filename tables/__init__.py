"""Tables where a person plays Sixty-Six against any bot.

- :mod:`tables.session`: one game between a person and a bot, driven through
  the public environment (``sixtysix_env.env``) and ``agents.make_agent``;
  the one model both tables share. Everything it shows comes from the
  person's :class:`~sixtysix_env.PlayerView` and the public moves.
- :mod:`tables.hints`: what a hint bot would play, with its values per move.
- :mod:`tables.store`: finished games appended (fsync'd) to an arena-format
  JSONL file that ``sixtysix replay`` and the browser viewer read.
- :mod:`tables.terminal`: ``sixtysix play``, the table in a terminal.
- :mod:`tables.web`: ``sixtysix serve``, the table in a browser (Starlette +
  uvicorn; the page in ``tables/static`` is plain HTML/CSS/JavaScript).
- :mod:`tables.viewer`: the move-by-move frames of a recorded game.
"""
