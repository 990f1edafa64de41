"""The file side of checkpoints: a zip file's directory and members checked before ``torch.load``
unpacks anything (nothing that could outgrow :data:`MAX_BYTES`), and files written whole or not at
all. An implementation detail of :mod:`agents.core.checkpoint`, which owns the format and re-exports
these names (``.npz`` readers use the zip checks too); it imports nothing of the project."""

from __future__ import annotations

import contextlib
import os
import struct
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

MAX_BYTES = 512 * 2**20  # the largest checkpoint file read, and the most its members may unpack to
MAX_DIRECTORY_BYTES = 8 * 2**20  # a zip's central directory: Python objects per entry, so bounded too


def zip_directory(f: BinaryIO, max_directory: int = MAX_DIRECTORY_BYTES) -> list[zipfile.ZipInfo]:
    """The members a zip file (``torch.save``'s format, numpy's ``.npz``) declares, read from its
    central directory alone, nothing unpacked; a ``ValueError`` saying why if it is no zip file or
    its directory is larger than ``max_directory`` bytes (ZipFile would hold all of it as objects)."""
    try:
        f.seek(0)
        first = f.read(4)
        end = _end_record(f)
        # torch and numpy test these 4 bytes
        if end is None or first != zipfile.stringFileHeader:  # type: ignore[attr-defined]
            raise ValueError("not a zip file (torch.save and numpy.savez write zip files; a bare pickle "
                             "or an old torch format could run code or allocate whatever it declares)")
        if end[5] > max_directory:  # zipfile's _ECD_SIZE: the central directory's bytes
            raise ValueError(f"its zip directory declares {end[5]:,} bytes, more than {max_directory:,}")
        _check_zip64_locator(f, end)
        f.seek(0)
        with zipfile.ZipFile(f) as z:
            members = z.infolist()
            # ZipFile reads the directory where it lies (before the end record), torch's reader
            # (miniz) where the end record says it starts: both must be the one directory
            if (z.start_dir != end[zipfile._ECD_OFFSET]  # type: ignore[attr-defined]
                    or end[zipfile._ECD_ENTRIES_TOTAL] != len(members)):  # type: ignore[attr-defined]
                raise ValueError("its zip directory is not where its end record says or holds another "
                                 "number of members (data before the zip, or two directories)")
            return members
    except (OSError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, struct.error) as e:
        raise ValueError(f"not a readable zip file ({str(e)[:120] or type(e).__name__})") from None


def _check_zip64_locator(f: BinaryIO, end: list[Any]) -> None:
    """A ``ValueError`` if a zip64 locator points elsewhere than at the zip64 end record ZipFile
    reads (the one right before it): torch's reader follows the locator."""
    location = end[zipfile._ECD_LOCATION]  # type: ignore[attr-defined]  # where the end record starts
    if location < 20:
        return
    f.seek(location - 20)
    data = f.read(20)
    if data[:4] != zipfile.stringEndArchive64Locator:  # type: ignore[attr-defined]
        return
    locator = zipfile.structEndArchive64Locator  # type: ignore[attr-defined]
    _sig, _disk, offset, _disks = struct.unpack(locator, data)
    if offset != location - 20 - zipfile.sizeEndCentDir64:  # type: ignore[attr-defined]
        raise ValueError("its zip64 locator points elsewhere than at its zip64 end record")


def _end_record(f: BinaryIO) -> list[Any] | None:
    """The end-of-central-directory record as ZipFile itself finds it (zip64 included)."""
    end: list[Any] | None = zipfile._EndRecData(f)  # type: ignore[attr-defined]  # ZipFile's own reader
    return end


def check_members(members: list[zipfile.ZipInfo], cap: int = MAX_BYTES) -> None:
    """A ``ValueError`` unless every member is stored uncompressed (as ``torch.save`` writes them:
    a compressed one could unpack to 1000 times its size) and all they declare fits ``cap``."""
    total = 0
    for info in members:
        name = info.filename[:80]
        if info.compress_type != zipfile.ZIP_STORED:
            raise ValueError(f"member {name!r} is compressed (torch.save stores members as they are; "
                             "a compressed one may unpack to far more than the file)")
        if info.compress_size != info.file_size:
            raise ValueError(f"member {name!r} declares {info.file_size:,} bytes but stores "
                             f"{info.compress_size:,}")
        total += info.file_size
        if total > cap:
            raise ValueError(f"its members declare more than {cap // 2**20} MiB in all")


def write_atomic(path: str | os.PathLike[str], data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temp file, fsync, ``os.replace``.
    On any failure (an ``OSError`` such as a full disk, or Ctrl-C) the temp file is removed
    and the previous file at ``path`` is intact."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
