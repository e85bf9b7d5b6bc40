"""The shared text kernel of the model-file formats: numbers and strings as byte tables.

One implementation each (no Python loop per value):

* :func:`number_strings` -- floats -> shortest exact text, integers without a point (``S``);
* :func:`digits_table` / :func:`number_table` -- integers / floats -> zero-padded ``uint8`` tables;
* :func:`bytes_table` -- strings -> zero-padded ``uint8`` table;
* :func:`dense_01_rows` -- rows of a 0/1 matrix as CSV text;
* :func:`render_tokens` -- integers -> separated text (DIMACS, OPB, CSV triplets and vectors),
  :mod:`formats.integer_text`'s, re-exported here;
* :class:`Tokens` -- the one tokeniser of the text readers (MPS, LP): whitespace-separated
  tokens of a byte buffer as offsets, their fixed-width windows, 64-bit keys and numbers;
* :func:`integer_tokens` -- a buffer of integers (a DIMACS body) -> ``int64``, chunk by chunk;
* :func:`factorize_table` -- rows of a byte table -> codes by first appearance and the
  distinct rows (hashed with :func:`~pipeline.core.names.name_hash`, every match verified);
* :func:`~pipeline.core.conventions.decimal_table` and :class:`~pipeline.core.names.NameDictionary` are
  core's, re-exported here so formats use the single implementation.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from formats.integer_text import render_tokens
from pipeline.core.conventions import decimal_table
from pipeline.core.errors import FormatError
from pipeline.core.names import NameDictionary, as_bytes, name_hash, word_width

if TYPE_CHECKING:
    import pyarrow as pa

    from pipeline.core.build import Model

__all__ = ["BLANK", "MAX_INTEGER_DIGITS", "NameDictionary", "Tokens", "as_bytes", "bytes_table", "decimal_table", "dense_01_rows",
           "digits_table", "factorize_table", "integer_tokens", "number_strings", "number_table", "render_tokens",
           "table_strings", "word_width"]

#: Bytes at or below this separate tokens: space, tab, CR, LF and the other control bytes.
BLANK = 32

# Above this magnitude a float64 integer is written in repr form (it may not be exact as int64)
_EXACT_INTEGER = 1e15


def dense_01_rows(matrix: sp.spmatrix, row_start: int, row_stop: int) -> bytes:
    """Rows ``row_start:row_stop`` of a 0/1 sparse matrix as comma-separated ``0``/``1`` lines.

    Parameters
    ----------
    matrix : scipy.sparse matrix
        A 0/1 matrix.
    row_start, row_stop : int
        The rows.

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


def number_strings(values: npt.ArrayLike, max_len: int | None = None, where: str = "number") -> np.ndarray:
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


def digits_table(values: npt.ArrayLike) -> np.ndarray:
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


def number_table(values: npt.ArrayLike) -> np.ndarray:
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


def bytes_table(strings: npt.ArrayLike, width: int | None = None, pad: int = 0) -> np.ndarray:
    """Strings (``str`` ASCII or ``bytes``) -> ``(n, width)`` uint8 table, left-aligned.

    Bytes past each string's end are ``pad`` (0, or a blank for fixed-column text); ``width``
    defaults to the longest string and cuts longer ones.

    Parameters
    ----------
    strings : array-like of str or bytes
        ASCII text.
    width : int, optional
        Table width (default the longest).
    pad : int
        The byte after each string's end.

    Examples
    --------
    >>> bytes_table(["ab", "c"]).tolist()
    [[97, 98], [99, 0]]
    >>> bytes_table([b"UP"], width=4, pad=32).tolist()
    [[85, 80, 32, 32]]
    """
    arr = np.ascontiguousarray(np.asarray(strings).astype("S").ravel())   # str: ASCII or UnicodeEncodeError
    raw = arr.view(np.uint8).reshape(arr.size, arr.dtype.itemsize)
    width = max(arr.dtype.itemsize, 1) if width is None else width
    out = np.full((arr.size, width), pad, dtype=np.uint8)
    w = min(width, raw.shape[1])
    out[:, :w] = raw[:, :w] if pad == 0 else np.where(raw[:, :w] == 0, pad, raw[:, :w])
    return out


# ---------------------------------------------------------------------------------------------
# reading: one tokeniser
# ---------------------------------------------------------------------------------------------
_BYTE_MASK = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2 ** 64 - 1], dtype=np.uint64)
_LOWER = np.arange(256, dtype=np.uint8)
_LOWER[65:91] += 32
_UPPER = np.arange(256, dtype=np.uint8)
_UPPER[97:123] -= 32
#: Digits of the longest integer :meth:`Tokens.integers` reads (18: every such one fits int64).
MAX_INTEGER_DIGITS = 18
#: Bytes of text :func:`integer_tokens` reads at a time (a token is never cut: a chunk ends at a blank).
INTEGER_CHUNK = 1 << 23


class Tokens:
    """Whitespace-separated tokens of a byte buffer: token ``t`` is ``buf[starts[t]:ends[t]]``.

    The one tokeniser of the text readers: no Python object per line or token. Bytes up to
    :data:`BLANK` separate tokens. Windows of tokens (:meth:`fixed`, :meth:`words`) are
    gathered in one strided read of the buffer, never a copy of it.

    Parameters
    ----------
    buf : ndarray of uint8
        The text.

    Examples
    --------
    >>> tok = Tokens(np.frombuffer(b" ab\\tc1  2.5\\n", np.uint8))
    >>> len(tok), tok.text(1), tok.lengths.tolist()
    (3, 'c1', [2, 2, 3])
    >>> tok.fixed(np.array([0, 1]), 3, case="upper").tolist()
    [[65, 66, 0], [67, 49, 0]]
    >>> tok.numbers(np.array([2]), lambda t, msg: ValueError(msg)).tolist()
    [2.5]
    """

    def __init__(self, buf: np.ndarray):
        self.buf = buf
        solid = buf > BLANK
        edges = np.flatnonzero(solid[1:] != solid[:-1]) + 1
        if buf.size and solid[0]:
            edges = np.concatenate([[0], edges])
        if buf.size and solid[-1]:
            edges = np.concatenate([edges, [buf.size]])
        # int32 offsets halve the biggest arrays of a reader (two per token)
        dtype = np.int32 if buf.size < np.iinfo(np.int32).max else np.int64
        self.starts = edges[0::2].astype(dtype)
        self.ends = edges[1::2].astype(dtype)

    @property
    def lengths(self) -> np.ndarray:
        """Each token's length in bytes (made when asked: not a third array per token held)."""
        return self.ends - self.starts

    @classmethod
    def from_spans(cls, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> "Tokens":
        """Tokens at given byte spans (``buf[starts[t]:ends[t]]``, which may be empty or hold
        blanks): fields of a delimited format, cut by the caller.

        Parameters
        ----------
        buf : ndarray of uint8
            The text.
        starts, ends : numpy.ndarray
            Each token's first byte and the byte past its last.
        """
        tokens = cls(np.zeros(0, np.uint8))
        tokens.buf, tokens.starts, tokens.ends = buf, starts, ends
        return tokens

    def __len__(self) -> int:
        return self.starts.size

    def text(self, t: int) -> str:
        """Token ``t`` as text (for messages)."""
        return bytes(self.buf[self.starts[t]:self.ends[t]]).decode("utf-8", "replace")

    def _windows(self, idx: np.ndarray, width: int) -> np.ndarray:
        """``(n, width)`` uint8 copies of the bytes from each token's start (not yet cut at its end).

        One strided gather; a window that would run past the buffer's end (the last tokens,
        unless the caller left that many blanks after the text) is read from a small
        zero-padded copy of the tail.
        """
        starts = self.starts[idx]
        src = self.buf
        out = np.empty((idx.size, width), np.uint8)
        last_safe = src.size - width
        safe = starts <= last_safe
        if safe.any():
            view = np.ndarray((max(last_safe + 1, 0),), dtype=f"V{width}", buffer=src, strides=(1,))
            out[safe] = view[starts[safe]].view(np.uint8).reshape(-1, width)
        if not safe.all():
            tail_start = max(int(last_safe) + 1, 0)
            tail = np.concatenate([src[tail_start:], np.zeros(width, np.uint8)])
            view = np.ndarray((tail.size - width + 1,), dtype=f"V{width}", buffer=tail, strides=(1,))
            out[~safe] = view[starts[~safe] - tail_start].view(np.uint8).reshape(-1, width)
        return out

    def fixed(self, idx: np.ndarray, width: int, *, case: str | None = None) -> np.ndarray:
        """``(n, width)`` uint8: the first ``width`` bytes of tokens ``idx``, zero past each end;
        ``case`` ``"lower"``/``"upper"`` folds ASCII letters (keyword checks).

        Parameters
        ----------
        idx : numpy.ndarray
            Token numbers (int), in the order of the result's rows.
        width : int
            Bytes kept of each token (longer tokens are cut).
        case : {'lower', 'upper'}, optional
            Fold ASCII letters to this case; None keeps the bytes.
        """
        idx = np.asarray(idx, dtype=np.int64)
        out = self._windows(idx, width)
        out[np.arange(width)[None, :] >= (self.ends[idx] - self.starts[idx])[:, None]] = 0
        if case is not None:
            out = (_LOWER if case == "lower" else _UPPER)[out]
        return out

    def words(self, idx: np.ndarray, width: int) -> np.ndarray:
        """Tokens as ``(n, width // 8)`` little-endian uint64 keys, zero past each end
        (``width`` a multiple of 8): what :class:`~pipeline.core.names.NameDictionary` looks up.

        Parameters
        ----------
        idx : numpy.ndarray
            Token numbers (int), in the order of the result's rows.
        width : int
            Bytes kept of each token, a multiple of 8 (longer tokens are cut).
        """
        idx = np.asarray(idx, dtype=np.int64)
        out = self._windows(idx, width).view("<u8")
        length = self.ends[idx] - self.starts[idx]
        for i in range(width // 8):      # one pass per 8-byte word, not per token
            out[:, i] &= _BYTE_MASK[np.clip(length - 8 * i, 0, 8)]
        return out

    def strings(self, idx: np.ndarray) -> np.ndarray:
        """Tokens ``idx`` as an ``S`` array."""
        idx = np.asarray(idx, dtype=np.int64)
        if idx.size == 0:
            return np.zeros(0, dtype="S1")
        width = int((self.ends[idx] - self.starts[idx]).max())
        return self.fixed(idx, width).view(f"S{width}").ravel()

    def numbers(self, idx: np.ndarray, error: Callable[[int, str], Exception], *,
                infinite: bool = False) -> np.ndarray:
        """Tokens ``idx`` as finite floats (Python's float syntax without ``_``, so ``1e3``).

        ``error(k, text)`` makes the exception raised for the first bad one, ``k`` its place in
        ``idx``; the usual one-digit tokens skip the parser. NaN and numerals that overflow
        (``1e400``) are always bad; ``inf`` / ``infinity`` (signed, any case) only unless
        ``infinite`` (bounds: the one place a model may be infinite).

        Parameters
        ----------
        idx : numpy.ndarray
            Token numbers (int), in the order of the result's rows.
        error : callable
            ``error(k, text)`` -> the exception to raise for the first bad token, ``k`` its place in ``idx``.
        infinite : bool
            Accept spelled-out infinities.
        """
        idx = np.asarray(idx, dtype=np.int64)
        out = np.empty(idx.size)
        head = self.buf[self.starts[idx]]
        simple = (self.ends[idx] - self.starts[idx] == 1) & (head >= 48) & (head <= 57)
        out[simple] = head[simple] - 48
        rest = np.flatnonzero(~simple)
        if rest.size:
            width = int((self.ends[idx[rest]] - self.starts[idx[rest]]).max())
            w = self.fixed(idx[rest], width)
            strings = w.view(f"S{width}").ravel()
            try:
                if (w == ord("_")).any():       # Python's float() would take 1_0
                    raise ValueError
                out[rest] = strings.astype(float)
            except ValueError:
                for j, text in enumerate(strings.tolist()):   # only on the way to an error
                    try:
                        float(text.replace(b"_", b"!"))
                    except ValueError:
                        raise error(int(rest[j]), text.decode("utf-8", "replace")) from None
                out[rest] = [float(t) for t in strings.tolist()]
            bad = ~np.isfinite(out[rest])
            if infinite and bad.any():          # an infinity spelled out (not NaN, not 1e400)
                spelled = (w == ord("i")) | (w == ord("I"))
                bad &= ~(np.isinf(out[rest]) & spelled.any(axis=1))
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                raise error(int(rest[j]), strings[j].decode("utf-8", "replace"))
        return out

    def integers(self) -> tuple[np.ndarray, int]:
        """Every token as a signed decimal integer (``-12``, ``+3``, ``0``; at most
        :data:`MAX_INTEGER_DIGITS` digits), exactly, from the tokens' windows of bytes (no parser
        call, no Python object per token).

        Returns
        -------
        (numpy.ndarray, int)
            The ``int64`` values and -1, or an empty array and the first token that is not such
            an integer.
        """
        if not self.starts.size:
            return np.zeros(0, dtype=np.int64), -1
        lengths = self.lengths.astype(np.int64)
        head = self.buf[self.starts]
        signed = (head == 45) | (head == 43)
        good = (lengths - signed >= 1) & (lengths - signed <= MAX_INTEGER_DIGITS)
        if not good.all():
            return np.zeros(0, dtype=np.int64), int(np.flatnonzero(~good)[0])
        # Horner's rule over each token's last ``width`` bytes, one byte column at a time (a
        # gather of one byte per token): a column before a token's first digit adds 0. No
        # (tokens x width) table: its mask and int64 matrix product were 5 of a 354 MB CNF's 9 s.
        width = int(lengths.max())
        digit_count = lengths - signed
        padded = np.concatenate([np.zeros(width, np.uint8), self.buf])
        ends = self.ends.astype(np.int64)
        values = np.zeros(ends.size, np.int64)
        worst = np.zeros(ends.size, np.uint8)
        for column in range(width):
            digit = padded[ends + column] - np.uint8(48)   # wraps: a byte below '0' is past 9 too
            digit *= digit_count >= width - column
            np.maximum(worst, digit, out=worst)
            values *= 10
            values += digit
        if (worst > 9).any():
            return np.zeros(0, dtype=np.int64), int(np.flatnonzero(worst > 9)[0])
        np.negative(values, out=values, where=head == 45)
        return values, -1

    def factorize(self, idx: np.ndarray, *, drop_last: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Tokens ``idx`` dictionary-encoded (:func:`factorize_table`); ``drop_last`` (bool per
        token) leaves out a token's final byte, e.g. a label's ``:``.

        Parameters
        ----------
        idx : numpy.ndarray
            Token numbers (int), in the order of the result's rows.
        drop_last : numpy.ndarray, optional
            Bool (or 0/1) per token of ``idx``: leave out its final byte.
        """
        idx = np.asarray(idx)
        if idx.size == 0:
            return factorize_table(np.zeros((0, 8), np.uint8))
        lengths = self.ends[idx] - self.starts[idx]
        if drop_last is not None:
            lengths -= np.asarray(drop_last, dtype=lengths.dtype)
        width = word_width(int(lengths.max()))

        def rows(sel: slice | np.ndarray) -> np.ndarray:   # the zero-padded names of rows sel
            table = self._windows(idx[sel], width)
            cut = lengths[sel]
            for column in range(width):   # a bool per token and byte column, not one per byte
                table[cut <= column, column] = 0
            return table
        return _factorize_rows(rows, idx.size, width)


#: Rows hashed, cut or compared at a time by :func:`factorize_table`: each chunk's byte table
#: and hash temporaries are short-lived; only one 64-bit hash per row spans the whole input.
FACTORIZE_CHUNK = 1 << 18


def factorize_table(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of a zero-padded ``(n, W)`` uint8 table (``W`` a multiple of 8) -> (codes by first
    appearance, the distinct rows in that order).

    No Python object per row: the 8-byte words of each row are hashed
    (:func:`~pipeline.core.names.name_hash`, as the name dictionary does) and ``pd.factorize``
    numbers the hashes; the words are then compared with those of each code's first
    occurrence, so a hash collision can never merge two names (it falls back to exact keys).
    Rows wider than 64 bytes take the exact path directly (rare, slower). Hashing and checking
    go :data:`FACTORIZE_CHUNK` rows at a time: beside the table, one ``uint64`` per row.

    Examples
    --------
    >>> codes, distinct = factorize_table(bytes_table([b"x1", b"y", b"x1"], width=8))
    >>> codes.tolist(), [bytes(r).rstrip(b"\\0") for r in distinct]
    ([0, 1, 0], [b'x1', b'y'])
    """
    n, width = table.shape
    if n == 0:
        return np.zeros(0, np.int64), np.zeros((0, 8), np.uint8)
    table = np.ascontiguousarray(table)
    return _factorize_rows(lambda sel: table[sel], n, width)


def _factorize_rows(rows: Callable[[slice | np.ndarray], np.ndarray], n: int,
                    width: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`factorize_table` of the ``n`` rows that ``rows(slice or index array)`` makes, in
    chunks: a whole ``(n, width)`` table (an empty 100x100's 6 M LP names: 96 MB) and the
    hash's temporaries over it never exist at once; only the hashes and the codes are per row."""
    import pandas as pd  # lazily: solve and export never load pandas
    step = FACTORIZE_CHUNK
    exact = False
    if width <= 64:
        hashes = np.empty(n, np.uint64)
        for at in range(0, n, step):
            hashes[at:at + step] = name_hash(np.ascontiguousarray(rows(slice(at, at + step))).view(np.uint64))
        codes, uniq = pd.factorize(hashes)
        del hashes
        distinct = np.ascontiguousarray(rows(_first_of(codes, uniq.size)))
        exact = all((rows(slice(at, at + step)) == distinct[codes[at:at + step]]).all() for at in range(0, n, step))
    if not exact:
        table = np.ascontiguousarray(rows(slice(None)))
        codes, uniq = pd.factorize(np.array([bytes(v) for v in table.view(f"V{width}").ravel()], dtype=object))
        distinct = table[_first_of(codes, len(uniq))]
    return codes.astype(np.int64, copy=False), distinct


def table_strings(table: np.ndarray) -> np.ndarray:
    """A zero-padded ``(n, W)`` byte table (:func:`factorize_table`'s distinct rows) -> ``str``
    array: ASCII through a ``U`` view, anything else decoded as UTF-8 (undecodable bytes
    replaced)."""
    if table.shape[0] == 0:
        return np.array([], dtype=str)
    if (table < 128).all():
        return np.ascontiguousarray(table.astype(np.uint32)).view(f"U{table.shape[1]}").ravel()
    return np.array([bytes(r[r != 0]).decode("utf-8", "replace") for r in table], dtype=str)


def _first_of(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Row of each code's first occurrence."""
    first = np.empty(n_codes, np.int64)
    rows = np.int32 if codes.size < np.iinfo(np.int32).max else np.int64   # 6 M rows: 24 MB, not 48
    first[codes[::-1]] = np.arange(codes.size - 1, -1, -1, dtype=rows)
    return first


def first_repeat(keys: np.ndarray) -> int | None:
    """Index of the first element (in order) whose key appeared before it; None when all differ.

    Parameters
    ----------
    keys : numpy.ndarray
        One key per entry (numbers or strings).

    Returns
    -------
    int or None

    Examples
    --------
    >>> first_repeat(np.array([3, 1, 3, 1])), first_repeat(np.array(["a", "b"]))
    (2, None)
    """
    ordered = np.sort(keys)   # no order (int64 per key) unless there is a repeat to place
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]   # once: an empty 100x100's LP row keys are 32 MB a copy
    again = order[1:][ordered[1:] == ordered[:-1]]
    return int(again.min()) if again.size else None


def integer_tokens(buf: np.ndarray, error: Callable[[str], Exception], chunk: int = INTEGER_CHUNK, *,
                   most: int | None = None, beyond: Callable[[int], Exception] | None = None) -> np.ndarray:
    """The whitespace-separated signed integers of a byte buffer (a DIMACS body), read chunk by
    chunk with :meth:`Tokens.integers`: memory in proportion to a chunk, not to the file (a list
    of 90 million words took 5 GB for a 354 MB CNF).

    Parameters
    ----------
    buf : numpy.ndarray
        ``uint8`` text.
    error : callable
        ``error(text)`` -> the exception to raise for the first token that is not an integer.
    chunk : int
        Bytes a chunk (each is extended to the next blank byte).
    most : int, optional
        The largest magnitude allowed (a CNF header's variable count): each chunk is checked
        against it before it is stored, and the values are ``int32`` when it fits one (half the
        memory of a 56 million literal CNF's ``int64``).
    beyond : callable, optional
        ``beyond(value)`` -> the exception to raise for the largest magnitude past ``most``.

    Returns
    -------
    numpy.ndarray
        The values in order: ``int64``, or ``int32`` when ``most`` fits one.

    Examples
    --------
    >>> integer_tokens(np.frombuffer(b" 1 -22\\n+3 0\\n", np.uint8), ValueError, chunk=4).tolist()
    [1, -22, 3, 0]
    """
    edges = list(_blank_cut_chunks(buf, chunk))
    return piece_integer_tokens(lambda: (buf[start:stop] for start, stop in edges), error, most=most, beyond=beyond)


def piece_integer_tokens(pieces: Callable[[], Iterable[np.ndarray]], error: Callable[[str], Exception], *,
                         most: int | None = None, beyond: Callable[[int], Exception] | None = None,
                         changed: Callable[[], Exception] | None = None) -> np.ndarray:
    """:func:`integer_tokens` of text given in pieces (each ending at a blank byte, or the
    text's end), gone through twice: once to count the tokens, once to parse them into one
    array. A file read a piece at a time this way never holds its whole text (a 354 MB CNF's
    text sat beside its 360 MB of literals).

    Parameters
    ----------
    pieces : callable
        ``pieces()`` -> the ``uint8`` pieces in order; called twice, the same pieces each time.
    error, most, beyond
        As in :func:`integer_tokens`.
    changed : callable, optional
        ``changed()`` -> the exception to raise when a piece holds other tokens the second time
        (a file rewritten while it is read); default a FormatError saying so.

    Returns
    -------
    numpy.ndarray
        As :func:`integer_tokens`.
    """
    # tokens counted first (runs of bytes above the blank, as Tokens splits them), so each chunk's
    # values go straight into one array: a list of parts and their concatenation held the
    # tokens twice (1.44 GB for a 354 MB CNF of 90 M literals)
    counts = []
    for piece in pieces():
        solid = piece > BLANK
        counts.append(int(solid[0]) + int(np.count_nonzero(solid[1:] & ~solid[:-1])) if solid.size else 0)
    narrow = most is not None and most < np.iinfo(np.int32).max
    out = np.empty(sum(counts), dtype=np.int32 if narrow else np.int64)
    at = 0
    for piece, count in zip(pieces(), counts):
        tokens = Tokens(piece)
        values, bad = tokens.integers()
        if bad >= 0:
            raise error(tokens.text(bad))
        if values.size != count:
            raise changed() if changed is not None else FormatError("the text changed while it was read")
        if most is not None and values.size:
            # checked before the values are stored: int32 would wrap a larger one silently
            largest = max(int(values.max()), -int(values.min()))
            if largest > most:
                raise beyond(largest) if beyond is not None else error(str(largest))
        out[at:at + count] = values
        at += count
    if at != out.size:
        raise changed() if changed is not None else FormatError("the text changed while it was read")
    return out


def _blank_cut_chunks(buf: np.ndarray, chunk: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of about ``chunk`` bytes each, every ``stop`` but the last at a blank
    byte (no token is cut in two)."""
    start = 0
    while start < buf.size:
        stop = min(start + chunk, buf.size)
        window = 1 << 12
        while stop < buf.size:   # to the next blank: no token is cut in two
            blank = np.flatnonzero(buf[stop:stop + window] <= BLANK)
            if blank.size:
                stop += int(blank[0])
                break
            if stop + window >= buf.size:
                stop = buf.size
                break
            window *= 2
        yield start, stop
        start = stop


#: Columns named a chunk at a time by :func:`name_array`.
NAME_CHUNK = 1 << 20


def name_array(model: "Model", start: int = 0, stop: int | None = None, *, with_empty: bool = False) -> "pa.Array":
    """The names of solver columns ``start:stop`` as a pyarrow string array (and ``""`` after them
    ``with_empty``): made from the model's zero-padded name table, its bytes and offsets, a chunk
    of columns at a time, rather than from a Python string per name (0.04 s instead of 0.3 s on
    the 100x100; the whole table and its copies were 0.13 GB for 1.75 M names).

    Parameters
    ----------
    model : Model
        The model.
    start, stop : int, optional
        The solver columns, as a slice (default all).
    with_empty : bool
        Append ``""`` (the long form's name of an empty row's line).

    Returns
    -------
    pyarrow.StringArray
    """
    import pyarrow as pa
    stop = model.n_cols if stop is None else stop
    n = stop - start + bool(with_empty)
    offsets = np.zeros(n + 1, dtype=np.int64)
    data = []
    try:
        for lo in range(start, stop, NAME_CHUNK):     # the name bytes (35 MB) are all that is kept
            table = model.name_table(lo, min(lo + NAME_CHUNK, stop))
            at = lo - start
            np.cumsum((table != 0).sum(axis=1), out=offsets[at + 1:at + 1 + table.shape[0]])
            offsets[at + 1:at + 1 + table.shape[0]] += offsets[at]
            data.append(np.ascontiguousarray(table).tobytes().translate(None, b"\0"))
    except UnicodeEncodeError:          # names beyond ASCII: pyarrow encodes them
        names = np.asarray(model.col_names[start:stop], dtype=str)
        return pa.array(np.append(names, "") if with_empty else names)
    if with_empty:   # "" after the names
        offsets[-1] = offsets[-2]
    joined = b"".join(data)
    del data
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(joined)).cast(pa.string())
