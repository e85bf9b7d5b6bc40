"""The shared text kernel of the model-file formats: numbers and strings as byte tables.

One implementation each (no Python loop per value):

* :func:`number_strings` -- floats -> shortest exact text, integers without a point (``S``);
* :func:`digits_table` / :func:`number_table` -- integers / floats -> zero-padded ``uint8`` tables;
* :func:`bytes_table` -- strings -> zero-padded ``uint8`` table;
* :func:`dense_01_rows` -- rows of a 0/1 matrix as CSV text;
* :func:`~pipeline.conventions.decimal_table` and :class:`~pipeline.names.NameDictionary` are
  core's, re-exported here so formats use the single implementation.
"""
from __future__ import annotations

import numpy as np

from pipeline.conventions import decimal_table
from pipeline.errors import FormatError
from pipeline.names import NameDictionary, as_bytes, word_width

__all__ = ["NameDictionary", "as_bytes", "bytes_table", "decimal_table", "dense_01_rows", "digits_table",
           "number_strings", "number_table", "word_width"]

# Above this magnitude a float64 integer is written in repr form (it may not be exact as int64)
_EXACT_INTEGER = 1e15


def dense_01_rows(matrix, row_start: int, row_stop: int) -> bytes:
    """Rows ``row_start:row_stop`` of a 0/1 sparse matrix as comma-separated ``0``/``1`` lines.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> dense_01_rows(sp.csr_matrix([[1, 0], [0, 1]]), 0, 2)
    b'1,0\\n0,1\\n'
    """
    block = matrix[row_start:row_stop].toarray()
    m, n = block.shape
    if m == 0:
        return b""
    chars = np.empty((m, 2 * n), dtype=np.uint8)
    chars[:, 0::2] = np.where(block != 0, ord("1"), ord("0"))
    chars[:, 1::2] = ord(",")
    chars[:, -1] = ord("\n")
    return chars.tobytes()


def number_strings(values, max_len: int | None = None, where: str = "number") -> np.ndarray:
    """Floats -> shortest round-trip text (integers without ``.0``; ``Inf``/``-Inf``), as ``S``.

    Parameters
    ----------
    values : array_like of float
    max_len : int, optional
        A fixed field width: the few longer texts are rounded to the most digits that fit.
    where : str
        Prefix of the error message.

    Returns
    -------
    numpy.ndarray
        ``S`` strings, one per value.

    Raises
    ------
    FormatError
        If a number cannot be written within ``max_len`` characters.

    Examples
    --------
    >>> number_strings([1.0, -2.0, 0.1, float("inf")]).tolist()
    [b'1', b'-2', b'0.1', b'Inf']
    """
    values = np.asarray(values, dtype=float).ravel()
    integral = (values == np.rint(values)) & (np.abs(values) < _EXACT_INTEGER)
    if integral.all():
        s = values.astype(np.int64).astype("S16")
        if max_len is None or not (np.strings.str_len(s) > max_len).any():
            return s
        s = s.astype("S24")  # some integers are too long for the field: round them below
    s = values.astype("S24")  # numpy's float -> bytes cast is the shortest round-trip repr, in C
    s[integral] = values[integral].astype(np.int64).astype("S24")
    s[values == np.inf] = b"Inf"
    s[values == -np.inf] = b"-Inf"
    if max_len is not None:
        long = np.flatnonzero(np.strings.str_len(s) > max_len)
        for digits in range(max_len - 1, 0, -1):   # at most max_len passes over the few long ones
            if long.size == 0:
                break
            short = np.char.mod(f"%.{digits}g", values[long]).astype("S24")
            # rounding up near the float maximum would overflow to inf when read back
            fits = (np.strings.str_len(short) <= max_len) & np.isfinite(short.astype(float))
            s[long[fits]] = short[fits]
            long = long[~fits]
        if long.size:
            raise FormatError(f"{where}: number {values[long[0]]!r} does not fit the "
                              f"{max_len}-character fixed field")
    return s


def digits_table(values) -> np.ndarray:
    """Non-negative integers -> ``(n, D)`` uint8 decimal digits, right-aligned, padding bytes 0.

    Zero bytes vanish when a block is compacted, so each row is the integer's text; this avoids
    ``astype('S20')`` (about 0.25 s per million values).

    Examples
    --------
    >>> digits_table([7, 42]).tolist()
    [[0, 55], [52, 50]]
    """
    values = np.asarray(values, dtype=np.int64).ravel()
    top = int(values.max(initial=0))
    width = len(str(top))
    out = np.zeros((values.size, width), np.uint8)
    rest = values.copy()
    for k in range(width - 1, -1, -1):            # one numpy pass per digit column
        rest, digit = np.divmod(rest, 10)
        out[:, k] = digit + ord("0")
        if k < width - 1:
            out[:, k] *= (values >= 10 ** (width - 1 - k))  # a leading zero is padding
    return out


def number_table(values) -> np.ndarray:
    """Finite floats -> ``(n, W)`` uint8 text, zero padded (integers without a point).

    Integers are right-aligned (sign, then digits); other numbers left-aligned shortest repr.

    Examples
    --------
    >>> bytes(number_table([-3.0, 12.0]).ravel()).replace(b"\\0", b"|")
    b'-|3|12'
    """
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        return np.zeros((0, 1), np.uint8)
    integral = (values == np.rint(values)) & (np.abs(values) < _EXACT_INTEGER)
    if integral.all():
        mags = digits_table(np.abs(values).astype(np.int64))
        negative = values < 0
        if not negative.any():
            return mags
        sign = np.where(negative, ord("-"), 0).astype(np.uint8)[:, None]
        return np.concatenate([sign, mags], axis=1)
    text = number_strings(values)
    width = int(np.strings.str_len(text).max())
    return text.astype(f"S{width}").view(np.uint8).reshape(values.size, width)


def bytes_table(strings) -> np.ndarray:
    """Strings (``str`` ASCII or ``bytes``) -> ``(n, W)`` uint8 table, zero padded.

    Examples
    --------
    >>> bytes_table(["ab", "c"]).tolist()
    [[97, 98], [99, 0]]
    """
    arr = np.asarray(strings)
    arr = np.char.encode(arr, "ascii") if arr.dtype.kind == "U" else arr.astype("S")
    width = max(arr.dtype.itemsize, 1)
    return np.ascontiguousarray(arr.astype(f"S{width}")).view(np.uint8).reshape(arr.size, width)
