"""Output options never destroy files: every report path is checked before any game is played.

An output path (``--json``, ``--markdown``, ``--png``, the leaderboard's
``--markdown``) is refused when it names an input of the command (the
results file, a bench result being merged), another output of the same
command, something that is no file to write (``''``, a folder, a fifo or a
device: writing to a fifo blocks until a reader comes), or (without
``force``) any file that already exists.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping

IMAGE_SUFFIXES = (".png", ".svg", ".pdf")  # what a chart option writes (matplotlib infers the format)


class OutputError(ValueError):
    """An output path that would overwrite a file, or that names no file to write (named in the message)."""


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def path_problem(path: str | os.PathLike[str], *, make_parents: bool = True) -> str | None:
    """Why no file can be written at ``path``, or None: ``''`` names none; a folder, a fifo or a
    device is no file; the folder it goes in must exist, or (``make_parents``: the writer makes
    it) its nearest existing ancestor must be a folder."""
    path = os.fspath(path)
    if not path:
        return "is empty: name a file"
    if os.path.isdir(path):
        return "is a folder"
    if os.path.exists(path) and not os.path.isfile(path):
        return "exists and is not a regular file (a fifo or a device)"
    parent = os.path.dirname(os.path.abspath(path))
    if not make_parents and not os.path.isdir(parent):
        return f"is in {parent}, which is not a folder that exists"
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        return f"cannot be made: {parent} is not a folder"
    return None


def suffix_problem(path: str | os.PathLike[str]) -> str | None:
    """A suffix that names no chart format (:data:`IMAGE_SUFFIXES`), or None: checked before the
    work the chart shows, not by matplotlib at the end."""
    if os.path.splitext(os.fspath(path))[1].lower() not in IMAGE_SUFFIXES:
        return f"must end in {', '.join(IMAGE_SUFFIXES[:-1])} or {IMAGE_SUFFIXES[-1]} (the chart's format)"
    return None


def image_problem(path: str | os.PathLike[str], *, make_parents: bool = True) -> str | None:
    """:func:`path_problem` or :func:`suffix_problem`: why no chart can be written at ``path``."""
    return path_problem(path, make_parents=make_parents) or suffix_problem(path)


def check_outputs(outputs: Mapping[str, str | None], inputs: Mapping[str, str | None], force: bool,
                  *, images: Collection[str] = (), make_parents: bool = True) -> None:
    """Raise :class:`OutputError` for an output (by option name) that would destroy a file or that
    names no file to write (:func:`path_problem`; the outputs named in ``images``: also
    :func:`suffix_problem`).

    ``outputs`` and ``inputs`` map option names to paths (None: not given;
    ``"-"``: standard output, never a file).
    """
    given = {k: p for k, p in outputs.items() if p is not None and p != "-"}
    for name, path in given.items():
        problem = path_problem(path, make_parents=make_parents)
        if problem is not None:
            raise OutputError(f"{name} {path or repr(path)} {problem}")
        for other, src in inputs.items():
            if src and _same(path, src):
                raise OutputError(f"{name} {path} is the {other} file: it would be overwritten; choose "
                                  "another path")
        for other, out in given.items():
            if other < name and _same(path, out):
                raise OutputError(f"{name} and {other} name the same file {path}")
        problem = suffix_problem(path) if name in images else None
        if problem is not None:
            raise OutputError(f"{name} {path} {problem}")
        if os.path.exists(path) and not force:
            raise OutputError(f"{name} {path} exists; pass --force to overwrite it, or choose another path")
