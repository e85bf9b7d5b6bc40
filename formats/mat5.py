"""The MATLAB v5 bytes of ``model.mat``'s variables, laid out with NumPy and compressed fast.

scipy's ``savemat`` writes a cell array one element at a time in Python (~40 us each: 14 s for
the 262,144 names of a 64x64, most of 8.6 s for the 10^6 names of a 100x100), so
:mod:`formats.matlab` lays its variables out here, in the byte layout savemat itself uses (the
same bytes before compression: tests/formats/test_matlab.py compares them), as lists of chunks
that are compressed without being joined.

Each miCOMPRESSED variable is one zlib stream made of raw-deflate segments that each end on a
full flush (no back-references across them, as pigz does): a large array is deflated once even
where it appears twice (``Aeq``, ``f``, ``lb``, ``ub``, ``intcon`` at the top level and in
``problem``), and the segments are deflated on a few threads (zlib releases the GIL). Readers
see an ordinary zlib stream (scipy, GNU Octave and MATLAB inflate it as any other).
"""
from __future__ import annotations

import os
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

__all__ = ["ZLIB_LEVEL", "SEGMENT_BYTES", "element_chunks", "element_bytes", "compressed_variables"]

_MI_INT8, _MI_INT32, _MI_UINT32, _MI_DOUBLE, _MI_MATRIX, _MI_COMPRESSED, _MI_UTF8 = 1, 5, 6, 9, 14, 15, 16
_MX_CELL, _MX_STRUCT, _MX_CHAR, _MX_SPARSE, _MX_DOUBLE = 1, 2, 4, 5, 6
# zlib level of the compressed variables: level 1 writes a 100x100 model about five times faster
# than savemat's default 6 for a file about 20% larger (issue 21: the .mat writer within 2x of MPS)
ZLIB_LEVEL = 1


def _pad8(n):
    return (n + 7) // 8 * 8


class _Blocks:
    """Chunks made on demand, block by block (a large cell array's elements): their total size
    is known before they exist, so the element's tags can be written first, and each block can
    be deflated and dropped before the next is laid out (memory is reused, not faulted in anew)."""

    def __init__(self, size: int, make):
        self.size = size
        self.make = make   # () -> iterator of 1-D arrays, in order

    def __bytes__(self) -> bytes:
        return b"".join(bytes(memoryview(block).cast("B")) for block in self.make())


def _nbytes(chunk) -> int:
    return chunk.size if isinstance(chunk, _Blocks) else memoryview(chunk).nbytes


def _size(chunks) -> int:
    return sum(_nbytes(c) for c in chunks)


def _data_element(mi_type: int, payload, small_ok: bool = True) -> list:
    """One tagged data element as chunks; 1..4 bytes go in the small format (tag and data in 8 bytes)."""
    n = memoryview(payload).nbytes
    if small_ok and 0 < n <= 4:
        return [np.array([mi_type | (n << 16)], "<u4").tobytes() + bytes(payload).ljust(4, b"\0")]
    return [np.array([mi_type, n], "<u4").tobytes(), payload, bytes(_pad8(n) - n)]


def _matrix(mx_class: int, dims, name: str, body: list, nzmax: int = 0) -> list:
    """A miMATRIX element: array flags, dimensions, name, then ``body`` (the data elements)."""
    content = (_data_element(_MI_UINT32, np.array([mx_class, nzmax], "<u4").tobytes(), small_ok=False)
               + _data_element(_MI_INT32, np.asarray(dims, "<i4").tobytes(), small_ok=False)
               + _data_element(_MI_INT8, name.encode("ascii"))
               + body)
    size = _size(content)
    if size >= 1 << 32:   # a v5 tag holds 32 bits
        raise ValueError(f"variable {name or 'field'} takes {size:,} bytes, above the v5 limit of 4 GB")
    return [np.array([_MI_MATRIX, size], "<u4").tobytes()] + content


class NameTable:
    """A column of ASCII names as a zero-padded uint8 table (one row a name) and their lengths:
    what :func:`_cellstr_element` lays out, without the names as a str array (for 1.75 M
    columns the str array was 0.16 GB, four bytes a character, and stayed cached on the model).

    Parameters
    ----------
    table : numpy.ndarray
        ``(n, W)`` uint8, each name left-aligned and zero-padded (no name holds a NUL).
    """

    def __init__(self, table: np.ndarray):
        self.table = table
        self.lengths = (table != 0).sum(axis=1).astype(np.int64)
        self.size = self.lengths.size


def _ascii_table(names) -> tuple[np.ndarray, np.ndarray]:
    """Names -> (uint8 table, one row per name, NUL-padded; lengths in bytes)."""
    values = np.asarray(names).ravel()
    if values.dtype.kind != "U":
        values = values.astype(str)
    width = max(values.dtype.itemsize // 4, 1)
    codes = values.view(np.uint32).reshape(values.size, -1) if values.size else np.zeros((0, width), np.uint32)
    if codes.size == 0 or int(codes.max()) < 128:   # ASCII (every name of this package): a numeric cast
        table = codes.astype(np.uint8)
        lengths = np.char.str_len(values).astype(np.int64)
    else:                                            # UTF-8, name by name
        text = np.char.encode(values, "utf-8")
        table = np.frombuffer(text.tobytes(), dtype=np.uint8).reshape(text.size, text.dtype.itemsize)
        lengths = np.char.str_len(text).astype(np.int64)
    return table, lengths


def _cellstr_element(names, name: str = "") -> list:
    """A column cell array of char row vectors, laid out with NumPy block by block.

    Each element is a 56-byte header (matrix tag, flags, dimensions 1 x len, empty name, data
    tag) and the characters padded to 8 bytes; up to 4 characters sit in the small data tag
    itself. The header depends on the name's length alone, so there is one template per
    distinct length (a handful); a block of elements is laid out in 8-byte words as rows of
    one width, and the words beyond each element's own size are squeezed out.
    """
    table, lengths = (names.table, names.lengths) if isinstance(names, NameTable) else _ascii_table(names)
    count = lengths.size
    if count == 0:
        return _matrix(_MX_CELL, (0, 1), name, [])
    present = np.bincount(lengths)             # a few distinct lengths: a lookup, not a sort
    kinds = np.flatnonzero(present)
    which = np.zeros(present.size, dtype=np.intp)
    which[kinds] = np.arange(kinds.size)
    which = which[lengths]
    small = kinds <= 4                                     # per distinct length
    data_words = np.where(small, 0, (kinds + 7) // 8)
    template = np.zeros((kinds.size, 14), dtype="<u4")
    template[:] = (_MI_MATRIX, 0, _MI_UINT32, 8, _MX_CHAR, 0, _MI_INT32, 8, 1, 0, _MI_INT8, 0, 0, 0)
    template[:, 1] = 48 + 8 * data_words                   # the element's size after its tag
    template[:, 9] = kinds                                 # dimensions 1 x len
    template[:, 12] = np.where(small, _MI_UTF8 | (kinds << 16), _MI_UTF8)
    template[:, 13] = np.where(small, 0, kinds)
    words = 7 + data_words
    width = int(words.max())
    total = int((present[kinds] * words).sum()) * 8
    per_block = max(1, SEGMENT_BYTES // (8 * width))

    def block(lo: int, hi: int) -> np.ndarray:
        rows = np.empty((hi - lo, width), dtype="<u8")   # every word is written below
        kind = which[lo:hi]
        rows[:, :7] = template.view("<u8")[kind]
        part = table[lo:hi]
        if width > 7:
            chars = rows[:, 7:].view(np.uint8)   # the names' bytes, NUL-padded to whole words
            used = min(part.shape[1], chars.shape[1])
            chars[:, :used] = part[:, :used]
            chars[:, used:] = 0
        in_tag = small[kind]
        if in_tag.any():   # up to 4 characters go where the small tag keeps them (bytes 52..55)
            four = np.zeros((hi - lo, 4), dtype=np.uint8)
            four[:, :min(4, part.shape[1])] = part[:, :4]
            rows.view("<u4")[in_tag, 13] = four[in_tag].view("<u4").ravel()
        if (words == width).all():
            return rows.reshape(-1)
        return rows[(np.arange(width) < words[:, None])[kind]]

    def blocks():
        for lo in range(0, count, per_block):
            yield block(lo, min(lo + per_block, count))

    return _matrix(_MX_CELL, (count, 1), name, [_Blocks(total, blocks)])


def element_chunks(value: object, name: str = "", memo: dict | None = None) -> list:
    """``value`` (dict, sparse, 2-D float array, str, column of names) as a miMATRIX element.

    ``memo`` (id of a value -> its data elements) lets a value that appears twice (``Aeq`` at the
    top level and in ``problem``) be laid out once, so its chunks are the same objects.

    Parameters
    ----------
    value : dict, sparse matrix, ndarray or str
        The variable's value.
    name : str
        Its name (empty inside a struct or cell).
    memo : dict, optional
        Data elements already laid out, by the id of their value.
    """
    if isinstance(value, dict):
        width = max(len(k) for k in value) + 1
        names = b"".join(k.encode("ascii").ljust(width, b"\0") for k in value)
        body = (_data_element(_MI_INT32, np.array([width], "<i4").tobytes())
                + _data_element(_MI_INT8, names))
        for v in value.values():
            body += element_chunks(v, "", memo)
        return _matrix(_MX_STRUCT, (1, 1), name, body)
    if isinstance(value, NameTable):
        return _cellstr_element(value, name) if value.size else _matrix(_MX_CELL, (0, 1), name, [])
    if isinstance(value, str):
        return _matrix(_MX_CHAR, (1, len(value)), name, _data_element(_MI_UTF8, value.encode("utf-8")))
    if memo is not None and id(value) in memo:
        mx_class, shape, body, nzmax = memo[id(value)][1]
        return _matrix(mx_class, shape, name, body, nzmax)
    if sp.issparse(value):
        a = sp.csc_matrix(value, dtype=np.float64)
        a.sort_indices()
        body = (_data_element(_MI_INT32, np.ascontiguousarray(a.indices, "<i4"), small_ok=False)
                + _data_element(_MI_INT32, np.ascontiguousarray(a.indptr, "<i4"), small_ok=False)
                + _data_element(_MI_DOUBLE, np.ascontiguousarray(a.data, "<f8"), small_ok=False))
        parts = (_MX_SPARSE, a.shape, body, max(a.nnz, 1))
    else:
        array = np.asarray(value)
        if array.dtype == object or array.dtype.kind in "US":
            return _cellstr_element(array, name) if array.size else _matrix(_MX_CELL, array.shape, name, [])
        body = _data_element(_MI_DOUBLE, np.asarray(array, "<f8").ravel(order="F"), small_ok=False)
        parts = (_MX_DOUBLE, array.shape, body, 0)
    if memo is not None:
        memo[id(value)] = (value, parts)   # the value is kept, so its id is not reused meanwhile
    mx_class, shape, body, nzmax = parts
    return _matrix(mx_class, shape, name, body, nzmax)


def element_bytes(value: object, name: str = "") -> bytes:
    """``value`` as one miMATRIX element's bytes (what savemat writes, uncompressed).

    Parameters
    ----------
    value : dict, sparse matrix, ndarray or str
        The variable's value.
    name : str
        Its name.

    Returns
    -------
    bytes
    """
    return b"".join(bytes(c) for c in element_chunks(value, name))


SEGMENT_BYTES = 1 << 23   # 8 MB: big arrays are cut into segments of this size, small chunks merged up to it


def _deflate(data, level: int) -> tuple[bytes, int, int]:
    """One segment: its raw deflate ending on a full flush, its Adler-32 and its length."""
    z = zlib.compressobj(level, zlib.DEFLATED, -15)
    return z.compress(data) + z.flush(zlib.Z_FULL_FLUSH), zlib.adler32(data), memoryview(data).nbytes


_ADLER_BASE = 65521


def _adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two pieces from theirs (zlib's adler32_combine, which Python lacks)."""
    rem = second_length % _ADLER_BASE
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % _ADLER_BASE
    sum1 = (sum1 + (second & 0xFFFF) + _ADLER_BASE - 1) % _ADLER_BASE
    sum2 = (sum2 + (first >> 16) + (second >> 16) + _ADLER_BASE - rem) % _ADLER_BASE
    return sum1 | (sum2 << 16)


def _segments(chunks):
    """Chunks -> segments to deflate, in order: ``("shared", array, start, stop)`` slices of large
    arrays (the same array deflated once wherever it appears), ``("own", block)`` for the blocks
    of :class:`_Blocks` (made here, one at a time), ``("bytes", data)`` for the rest."""
    pending, pending_size = [], 0
    for chunk in chunks:
        if isinstance(chunk, _Blocks) or (isinstance(chunk, np.ndarray) and chunk.nbytes >= SEGMENT_BYTES // 8):
            if pending:
                yield ("bytes", b"".join(pending))
                pending, pending_size = [], 0
            if isinstance(chunk, _Blocks):
                for block in chunk.make():
                    yield ("own", block)
                continue
            size = memoryview(chunk).nbytes
            for start in range(0, size, SEGMENT_BYTES):
                yield ("shared", chunk, start, min(start + SEGMENT_BYTES, size))
        else:
            view = memoryview(chunk).cast("B")
            pending.append(bytes(view))
            pending_size += view.nbytes
            if pending_size >= SEGMENT_BYTES:
                yield ("bytes", b"".join(pending))
                pending, pending_size = [], 0
    if pending:
        yield ("bytes", b"".join(pending))


def _zlib_header(level: int) -> bytes:
    """The two bytes that open a zlib stream (deflate, 32K window, the level's FLEVEL, FCHECK)."""
    cmf = 0x78
    flevel = 0 if level < 2 else 1 if level < 6 else 2 if level == 6 else 3
    flg = flevel << 6
    flg += 31 - (cmf * 256 + flg) % 31
    return bytes([cmf, flg])


def compressed_variables(variables: list[tuple[str, object]], level: int = ZLIB_LEVEL) -> list[list]:
    """Top-level variables ``(name, value)`` as savemat(do_compression=True) stores them: each a
    miCOMPRESSED element holding a zlib stream of its miMATRIX element; returned as chunks.

    Each variable's segments are handed to the threads as soon as it is laid out, so the next
    one (the names of ``problem``) is laid out while the earlier ones are deflated.

    Parameters
    ----------
    variables : list of (str, object)
        Names and values, in file order.
    level : int
        zlib compression level.
    """
    memo: dict = {}
    shared: dict = {}
    out = []
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        jobs = []
        in_flight: list = []   # blocks made here: at most a few wait, so their memory is reused
        for name, value in variables:
            row = []
            for seg in _segments(element_chunks(value, name, memo)):
                if seg[0] == "shared":
                    key = (id(seg[1]), seg[2])
                    if key not in shared:
                        shared[key] = pool.submit(_deflate, memoryview(seg[1]).cast("B")[seg[2]:seg[3]], level)
                    row.append(shared[key])
                    continue
                data = memoryview(seg[1]).cast("B") if seg[0] == "own" else seg[1]
                row.append(pool.submit(_deflate, data, level))
                if seg[0] == "own":
                    in_flight.append(row[-1])
                    while len(in_flight) > 2 * workers:
                        in_flight.pop(0).result()
                del seg, data   # the job holds a block until it is deflated; nothing else does
            jobs.append(row)
        for row in jobs:
            packed, check = [_zlib_header(level)], 1
            for job in row:
                data, adler, length = job.result()
                packed.append(data)
                check = _adler32_combine(check, adler, length)
            packed += [zlib.compressobj(level, zlib.DEFLATED, -15).flush(), check.to_bytes(4, "big")]
            out.append([np.array([_MI_COMPRESSED, _size(packed)], "<u4").tobytes()] + packed)
    return out
