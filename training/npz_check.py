"""An ``.npz`` file's arrays checked from their headers before ``np.load`` allocates any of them.

``np.load`` allocates each array at the shape its npy header declares and
only then reads the data: a compressed member of a few KiB may declare a
``(10**12, 100)`` array, or unpack to gigabytes. :func:`check_npz` reads the
zip directory (:func:`agents.core.checkpoint.zip_directory`) and each expected
member's header (``numpy.lib.format``) from the member's stream, and refuses
any array of another dtype or row layout, row counts that differ between
members, or declared bytes beyond what the member unpacks to or the cap.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
from numpy.lib import format as npy

from agents.core.checkpoint import zip_directory

MAX_HEADER = 10_000  # bytes of an npy header: numpy's own default bound


class ShapeError(ValueError):
    """An array of another layout than expected, or a row count the other arrays do not share."""


@dataclass(frozen=True)
class Member:
    """One array an ``.npz`` must hold: its shape after the row count (``rows``: a first
    dimension of rows shared by every member with ``rows``; else the whole shape) and its dtype
    (``dtype``: exactly that one; else any of the dtype kinds ``kinds``, called ``what``);
    ``optional``: it may be missing."""

    shape: tuple[int, ...]
    dtype: str = ""
    kinds: str = ""
    rows: bool = True
    optional: bool = False
    what: str = ""


def check_npz(f: BinaryIO, members: dict[str, Member], cap: int) -> None:
    """A ``ValueError`` saying why unless the npz in ``f`` holds each of ``members`` as it says,
    each declared within its own unpacked size, all within ``cap`` bytes; nothing is allocated
    beyond the headers (members not named are never read, so not checked)."""
    infos = {info.filename: info for info in zip_directory(f)}  # the last of a name, as ZipFile picks
    f.seek(0)
    total, rows = 0, None
    with zipfile.ZipFile(f) as z:
        for name, want in members.items():
            # np.load's z[name] reads a member called exactly ``name`` if there is one, else name.npy
            info = infos.get(name, infos.get(name + ".npy"))
            if info is None:
                if not want.optional:
                    raise ValueError(f"it has no array {name!r}")
                continue
            total += info.file_size
            if total > cap:
                raise ValueError(f"its arrays unpack to more than {cap:,} bytes")
            shape, dtype, header = _header(z, info)
            n = _check_array(name, want, shape, dtype, info.file_size - header)
            if want.rows and rows is not None and n != rows:
                raise ShapeError(f"array {name!r} has {n:,} rows, the others {rows:,}")
            rows = n if want.rows else rows


def _header(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[tuple[int, ...], np.dtype, int]:
    """The shape, dtype and header length an npy member declares, read from its stream."""
    with z.open(info) as member:
        try:
            version = npy.read_magic(member)
            if version == (1, 0):
                shape, fortran, dtype = npy.read_array_header_1_0(member, max_header_size=MAX_HEADER)
            elif version == (2, 0):
                shape, fortran, dtype = npy.read_array_header_2_0(member, max_header_size=MAX_HEADER)
            else:
                raise ValueError(f"npy format version {version} (this reads 1.0 and 2.0)")
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:120]
            raise ValueError(f"array {info.filename[:80]!r} has no readable npy header: {reason}") from None
        return tuple(shape), dtype, member.tell()


def _check_array(name: str, want: Member, shape: tuple[int, ...], dtype: np.dtype, room: int) -> int:
    """The row count of array ``name`` (0 without rows), or a ``ValueError``: not the dtype
    ``want`` says, not its layout (:class:`ShapeError`), or more bytes declared than its member
    holds (``room``)."""
    ok = dtype == np.dtype(want.dtype) if want.dtype else dtype.kind in want.kinds
    if dtype.hasobject or not ok:
        raise ValueError(f"array {name!r} is of dtype {str(dtype)[:40]}, not "
                         f"{want.dtype or want.what or 'of the kinds ' + want.kinds}")
    layout = shape[1:] if want.rows else shape
    if (want.rows and not shape) or layout != want.shape:
        expected = str(("rows", *want.shape)).replace("'", "") if want.rows else str(want.shape)
        raise ShapeError(f"array {name!r} has shape {str(shape)[:80]}, not {expected}")
    declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if declared > room:
        raise ValueError(f"array {name!r} declares {declared:,} bytes, its member holds {max(room, 0):,}")
    return shape[0] if want.rows else 0
