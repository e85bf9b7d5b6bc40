"""Puzzle text from a file or standard input, read up to a bound: a gzip-compressed file is read
through (the solution readers and ``batch`` take ``.gz`` files too), and bytes that are not UTF-8
text are one message naming where, not a codec's error."""
from __future__ import annotations

import gzip
import os
import re
import sys
import zlib
from pathlib import Path
from stat import S_ISREG
from typing import BinaryIO

from pipeline.core.errors import PuzzleError, SeveralPuzzles

__all__ = ["GZIP_MAGIC", "MAX_TEXT_BYTES", "read_at_most", "read_bounded", "read_stdin", "read_text_file", "size_text",
           "too_much"]

#: The most text one puzzle source may hold: a 256x256 grid with its rules is a few MB, and
#: standard input or a file beyond this is refused after reading this much, not read whole
#: (``solve - </dev/zero`` grew by a gigabyte a second).
MAX_TEXT_BYTES = 64 * 2 ** 20

#: The first bytes of a gzip stream.
GZIP_MAGIC = b"\x1f\x8b"
#: Other compressed or binary files a puzzle path may name by mistake, by their first bytes.
BINARY_KINDS = ((GZIP_MAGIC, "gzip-compressed"), (b"PK\x03\x04", "a zip archive"), (b"BZh", "bzip2-compressed"),
                (b"\xfd7zXZ\x00", "xz-compressed"), (b"PAR1", "a Parquet file (batch reads those)"),
                (b"\x89HDF", "an HDF5 file"), (b"MATLAB", "a MATLAB .mat file"),
                (b"\x28\xb5\x2f\xfd", "zstd-compressed"), (b"7z\xbc\xaf\x27\x1c", "a 7z archive"))
#: Where a tar archive says so (POSIX ``ustar`` at offset 257 of its first header).
TAR_MAGIC_AT, TAR_MAGIC = 257, b"ustar"
#: Bytes of a file's start that :func:`binary_kind` needs to see every kind.
BINARY_HEAD = 512


def _is_tar(head: bytes) -> bool:
    return head[TAR_MAGIC_AT:TAR_MAGIC_AT + len(TAR_MAGIC)] == TAR_MAGIC


def binary_kind(head: bytes) -> str | None:
    """What binary file ``head`` (a file's first bytes) starts, as a message says it
    (:data:`BINARY_KINDS`), or None.

    Parameters
    ----------
    head : bytes
        The file's first :data:`BINARY_HEAD` bytes, where it has them (a tar archive says so
        at offset 257).

    Returns
    -------
    str or None

    Examples
    --------
    >>> binary_kind(b"PK\\x03\\x04..."), binary_kind(b"4....")
    ('a zip archive', None)
    """
    if _is_tar(head):
        return "a tar archive"
    return next((name for magic, name in BINARY_KINDS if head.startswith(magic)), None)


def size_text(b: float) -> str:
    """A byte count for a message: GiB, MiB, KiB or bytes.

    Parameters
    ----------
    b : float
        Bytes.

    Returns
    -------
    str
    """
    # a small limit (tests, a 1000-byte SUDOKU_PIPELINE_MAX_BYTES) is not rounded to '0 MiB'
    if b >= 2**30 * 1e6:   # past a million GiB the digits say nothing more
        return f"{b / 2**30:.1e} GiB"
    if b >= 2**30:
        return f"{b / 2**30:,.1f} GiB"
    if b >= 2**20:
        return f"{b / 2**20:,.0f} MiB"
    return f"{b / 2**10:,.0f} KiB" if b >= 2**10 else f"{b:,.0f} bytes"


def too_much(what: str, where: str, limit: int | None, why: str) -> PuzzleError:
    """The error for text beyond its bound.

    Parameters
    ----------
    what : str
        How the message names the input.
    where : str
        The file (quoted) or ``standard input``.
    limit : int or None
        The bound in bytes; None: :data:`MAX_TEXT_BYTES`.
    why : str
        What the message says beyond ``limit``.

    Returns
    -------
    PuzzleError
    """
    if limit is None:
        return PuzzleError(f"{what}: {where} holds more than {size_text(MAX_TEXT_BYTES)} of text; "
                           "a puzzle is far smaller")
    return PuzzleError(f"{what}: {where} holds more than {size_text(limit)} of text; {why}")


def _decoded(data: bytes, what: str, where: str) -> str:
    """UTF-8 text of ``data`` (a BOM dropped), or one line saying what the bytes look like."""
    if _is_tar(data):   # text in a tar decodes as UTF-8
        raise PuzzleError(f"{what}: {where} is a tar archive, not puzzle text") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        kind = binary_kind(data)
        if kind is not None:   # a Parquet file is batch's input: one of one row is read as it is
            error = SeveralPuzzles if data.startswith(b"PAR1") else PuzzleError
            raise error(f"{what}: {where} is {kind}, not puzzle text") from None
        header = data[:data.find(b"\n")].decode("utf-8-sig", errors="replace").lower()
        # a table's field that is not UTF-8 is a bad field of its row, as batch reads it (one not read: none)
        error = SeveralPuzzles if where != "standard input" and "puzzle" in re.split(r"[\s,;\"']+", header) \
            else PuzzleError
        raise error(f"{what}: {where} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}: "
                    f"{e.reason})") from None


def read_bounded(handle: BinaryIO, most: int) -> bytes:
    """At most ``most + 1`` bytes of an open binary file, read through gzip when it starts with
    :data:`GZIP_MAGIC` (the bound then holds for what it expands to, so a bomb stops there): one
    byte past ``most`` tells the caller the file is larger.

    Parameters
    ----------
    handle : binary file
        Open for reading, at its start.
    most : int
        The bytes the caller allows.

    Returns
    -------
    bytes

    Raises
    ------
    OSError, EOFError, zlib.error
        An unreadable file or a broken gzip stream (the callers word them).
    """
    if handle.read(2) == GZIP_MAGIC:
        handle.seek(0)
        with gzip.GzipFile(fileobj=handle) as unpacked:
            return read_at_most(unpacked, most)
    handle.seek(0)
    return read_at_most(handle, most)


#: Bytes :func:`read_at_most` asks for at a time.
READ_CHUNK = 1 << 20


def read_at_most(handle: BinaryIO | gzip.GzipFile, most: int) -> bytes:
    """At most ``most + 1`` bytes of an open binary stream, asked for a chunk at a time.

    ``handle.read(most + 1)`` allocates all ``most + 1`` bytes before it reads any: 1 GiB for a
    300-byte solution file read under the 1 GiB bound, a bare ``MemoryError`` under ``ulimit -v``.
    Here the memory follows what the stream holds.

    Parameters
    ----------
    handle : binary file
        Open for reading.
    most : int
        The bytes the caller allows (one more is read to tell that there are more).

    Returns
    -------
    bytes

    Examples
    --------
    >>> import io
    >>> read_at_most(io.BytesIO(b"abcdef"), 3), read_at_most(io.BytesIO(b"abc"), 3)
    (b'abcd', b'abc')
    """
    chunks: list[bytes] = []
    wanted = most + 1
    step = min(READ_CHUNK, wanted)
    try:   # a regular file's size: its bytes in one read, without joining chunks (twice the memory)
        stat_ = os.fstat(handle.fileno())
        if S_ISREG(stat_.st_mode) and not isinstance(handle, gzip.GzipFile):
            step = min(max(stat_.st_size + 1, step), wanted)
    except (AttributeError, OSError, ValueError):   # no descriptor (BytesIO, a test's stream)
        pass
    while wanted > 0:
        chunk = handle.read(min(step, wanted))
        step = READ_CHUNK
        if not chunk:
            break
        chunks.append(chunk)
        wanted -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_stdin(what: str = "puzzle", limit: int | None = None, why: str = "") -> str:
    """Standard input as text, at most :data:`MAX_TEXT_BYTES` of it (or ``limit`` bytes).

    Parameters
    ----------
    what : str
        How the message names the input.
    limit : int, optional
        The most it may hold, when smaller than :data:`MAX_TEXT_BYTES` (regions:
        :func:`pipeline.core.parse.region_text_bytes`).
    why : str
        What the message says beyond ``limit``.

    Returns
    -------
    str

    Raises
    ------
    PuzzleError
        More text than that, or bytes that are not UTF-8.
    """
    most = MAX_TEXT_BYTES if limit is None else limit
    buffer = getattr(sys.stdin, "buffer", None)
    try:
        # bytes where there are (a text stream put in sys.stdin's place has none): their decoding
        # error names what they look like, a gzip stream for one
        data = sys.stdin.read(most + 1) if buffer is None else read_at_most(buffer, most)
    except UnicodeDecodeError as e:
        raise PuzzleError(f"{what}: standard input is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise PuzzleError(f"{what}: cannot read standard input: {e}") from None
    if len(data) > most:
        raise too_much(what, "standard input", limit, why)
    text = data if isinstance(data, str) else _decoded(data, what, "standard input")
    # universal newlines, as a text stream reads them
    _LAST_STDIN[0] = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return _LAST_STDIN[0]


#: What :func:`read_stdin` read last: standard input is read once, and a later step of the same
#: command (convert's free text of the puzzle it parsed) reads it from here.
_LAST_STDIN = [""]


def last_stdin_text() -> str:
    """The text :func:`read_stdin` read last in this process ("" when it read none).

    Returns
    -------
    str
    """
    return _LAST_STDIN[0]


def read_text_file(path: Path, what: str, limit: int | None = None, why: str = "") -> str:
    """A file's text, at most :data:`MAX_TEXT_BYTES` (or ``limit``) bytes of it, read through
    gzip when it is compressed (the bound then holds for what it expands to).

    Parameters
    ----------
    path : pathlib.Path
        The file.
    what : str
        How the message names the input.
    limit : int, optional
        The most it may hold, when smaller than :data:`MAX_TEXT_BYTES`.
    why : str
        What the message says beyond ``limit``.

    Returns
    -------
    str
        With universal newlines, as a text-mode read gives.

    Raises
    ------
    PuzzleError
        A missing or unreadable file, more text than that, a broken gzip stream, or bytes that are
        not UTF-8 (a compressed or binary file of another kind named as such).
    """
    most = MAX_TEXT_BYTES if limit is None else limit
    where = repr(str(path))
    try:
        with open(path, "rb") as handle:
            data = read_bounded(handle, most)
    except FileNotFoundError:
        raise PuzzleError(f"{what}: no such file {str(path)!r}") from None
    except (OSError, EOFError, zlib.error) as e:
        raise PuzzleError(f"{what}: cannot read {where}: {getattr(e, 'strerror', None) or e}") from None
    if len(data) > most:
        raise too_much(what, where, limit, why)
    return _decoded(data, what, where).replace("\r\n", "\n").replace("\r", "\n")
