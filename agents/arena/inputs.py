"""Reading a file that may come from elsewhere: a regular file only, and at most so many bytes.

A results file or a bench result handed over by someone else may be a fifo
(reading it blocks for ever), a device such as ``/dev/zero`` (endless), a
folder, or a symlink to any of these. :func:`read_regular` and
:func:`open_regular` refuse all of them with a one-line :class:`NotRegularFile`,
before reading a byte.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

MAX_RESULTS_BYTES = 1 << 30  # the largest results file read whole (about a million games)


class NotRegularFile(OSError):
    """A path that is not a regular file, or one larger than the reader's cap (``strerror`` says which)."""


def check_regular(fd: int, path: str, cap: int) -> int:
    """The size of the open file ``fd``; :class:`NotRegularFile` unless it is a regular file of at most
    ``cap`` bytes."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(0, "not a regular file", path)
    if st.st_size > cap:
        raise NotRegularFile(0, f"larger than {cap} bytes", path)
    return st.st_size


@contextlib.contextmanager
def open_regular(path: str | os.PathLike[str], cap: int) -> Iterator[BinaryIO]:
    """The regular file at ``path`` of at most ``cap`` bytes, open for reading (for a reader that
    takes a file, such as ``np.load``); opening never blocks, so a fifo is refused too."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        check_regular(fd, os.fspath(path), cap)
        with os.fdopen(fd, "rb", closefd=False) as f:
            yield f
    finally:
        os.close(fd)


def read_regular(path: str, cap: int, *, head: bool = False) -> bytes:
    """The bytes of the regular file at ``path``: all of them, at most ``cap`` (``head``: its first
    ``cap`` bytes, whatever its size); opening never blocks, so a fifo is refused too."""
    with open_regular(path, MAX_RESULTS_BYTES if head else cap) as f:
        data = f.read(cap if head else cap + 1)
    if len(data) > cap:
        raise NotRegularFile(0, f"larger than {cap} bytes", path)
    return data
