"""Output options never destroy files: every report path is checked before any game is played.

An output path (``--json``, ``--markdown``, ``--png``, the leaderboard's
``--markdown``) is refused when it names an input of the command (the
results file, a bench result being merged), another output of the same
command, or (without ``force``) any file that already exists.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


class OutputError(ValueError):
    """An output path that would overwrite a file (named in the message)."""


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_outputs(outputs: Mapping[str, str | None], inputs: Mapping[str, str | None], force: bool) -> None:
    """Raise :class:`OutputError` for an output (by option name) that would destroy a file.

    ``outputs`` and ``inputs`` map option names to paths (None: not given;
    ``"-"``: standard output, never a file).
    """
    given = {k: p for k, p in outputs.items() if p and p != "-"}
    for name, path in given.items():
        for other, src in inputs.items():
            if src and _same(path, src):
                raise OutputError(f"{name} {path} is the {other} file: it would be overwritten; choose "
                                  "another path")
        for other, out in given.items():
            if other < name and _same(path, out):
                raise OutputError(f"{name} and {other} name the same file {path}")
        if os.path.isdir(path):
            raise OutputError(f"{name} {path} is a folder")
        if os.path.exists(path) and not force:
            raise OutputError(f"{name} {path} exists; pass --force to overwrite it, or choose another path")
