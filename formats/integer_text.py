"""Integers as separated text, vectorised: :func:`render_tokens` (the integer text of DIMACS
clauses, OPB rows and the CSV triplets and vectors), through tables of 4-byte words of 0..9999.

Moved out of :mod:`formats.text`, which re-exports :func:`render_tokens`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["render_tokens"]


def _word_tables() -> tuple[np.ndarray, np.ndarray]:
    """4-byte words (little-endian uint32, zero bytes dropped when written) of 0..9999: the high
    part of a number (row 0: digits without leading zeros, 0 empty; row 1: the same after a
    ``-``, which needs at most 3 digits) and the low part (row 0: without leading zeros, 0 as
    ``0``; row 1: zero-padded to 4 digits, after a high part)."""
    def words(texts: list[bytes]) -> np.ndarray:
        return np.frombuffer(b"".join(t.rjust(4, b"\0") for t in texts), dtype="<u4")

    plain = [b"%d" % i for i in range(10000)]
    high = np.stack([words([b""] + plain[1:]), words([b"-"] + [b"-" + t if i < 1000 else b"" for i, t in
                                                               enumerate(plain[1:], 1)])])
    low = np.stack([words(plain), words([b"%04d" % i for i in range(10000)])])
    return high, low


_HIGH_WORDS, _LOW_WORDS = (words.ravel() for words in _word_tables())


def _pad_words(text: bytes) -> np.ndarray:
    """``text`` as little-endian uint32 words, zero-padded to a multiple of 4 bytes."""
    return np.frombuffer(text.ljust(-(-len(text) // 4) * 4, b"\0"), dtype="<u4")


def render_tokens(values: np.ndarray, *, prefix: bytes = b"", sep: bytes = b" ", line_end: bytes = b"\n",
                  ends_line: np.ndarray | None = None) -> bytes:
    """``prefix + str(value)`` for each value, followed by ``sep`` or, where ``ends_line``,
    ``line_end``: the integer text of DIMACS clauses and OPB rows.

    Every value is one row of a table of 4-byte words: the prefix, the text of ``|value| //
    10**4`` (with the sign) and of ``|value| % 10**4`` looked up in tables of 0..9999 whose
    padding bytes are 0, and the ending; dropping the zero bytes of the table gives the text.
    No Python work per value, two lookups per value instead of a division per digit. Values of
    ``10**7`` and more (``10**8`` and more if none is negative) take the digit-by-digit path.

    Parameters
    ----------
    values : numpy.ndarray
        Integers.
    prefix : bytes
        Before each value (``x`` for OPB names).
    sep : bytes
        After a value that does not end a line.
    line_end : bytes
        After a value that ends a line.
    ends_line : numpy.ndarray of bool, optional
        Which values end a line.

    Examples
    --------
    >>> render_tokens(np.array([3, -12, 0]), ends_line=np.array([False, False, True]))
    b'3 -12 0\\n'
    """
    values = np.asarray(values, dtype=np.int64).ravel()
    n = values.size
    if n == 0:
        return b""
    lowest, top = int(values.min()), int(values.max())
    if max(top, -lowest) >= (10**7 if lowest < 0 else 10**8) or b"\0" in prefix + sep + line_end:
        return _render_digits(values, prefix=prefix, sep=sep, line_end=line_end, ends_line=ends_line)
    ends_line = np.zeros(n, dtype=bool) if ends_line is None else np.asarray(ends_line, dtype=bool).ravel()
    head, tail = _pad_words(prefix), _pad_words(sep)
    end = _pad_words(line_end)
    if end.size != tail.size:
        width = max(end.size, tail.size)
        head_pad = np.zeros(width, dtype="<u4")
        tail = np.concatenate([tail, head_pad[:width - tail.size]])
        end = np.concatenate([end, head_pad[:width - end.size]])
    p = head.size
    table = np.empty((n, p + 2 + tail.size), dtype="<u4")
    table[:, :p] = head
    mag = np.abs(values).astype(np.uint32)
    high = mag // np.uint32(10000)
    low = mag - high * np.uint32(10000)
    low += (high > 0) * np.uint32(10000)              # the zero-padded row after a high part
    if lowest < 0:
        high += (values < 0) * np.uint32(10000)       # the row with the sign
    np.take(_HIGH_WORDS, high, out=table[:, p], mode="clip")   # (clip: no buffered copy)
    np.take(_LOW_WORDS, low, out=table[:, p + 1], mode="clip")
    if tail.size == 1:
        table[:, p + 2] = np.where(ends_line, end[0], tail[0])
    else:
        table[:, p + 2:] = tail
        table[ends_line, p + 2:] = end
    return table.tobytes().translate(None, b"\0")


def _render_digits(values: np.ndarray, *, prefix: bytes = b"", sep: bytes = b" ", line_end: bytes = b"\n",
                   ends_line: np.ndarray | None = None) -> bytes:
    """:func:`render_tokens` for any int64: one vectorised pass per digit column into a
    fixed-width byte table, a boolean mask of the bytes in use packs it.

    Parameters
    ----------
    values : numpy.ndarray
        Integers.
    prefix, sep, line_end : bytes
        As in :func:`render_tokens`.
    ends_line : numpy.ndarray of bool, optional
        Which values end a line.
    """
    values = np.asarray(values, dtype=np.int64).ravel()
    n = values.size
    if ends_line is None:
        ends_line = np.zeros(n, dtype=bool)
    ends_line = np.asarray(ends_line, dtype=bool).ravel()
    if n == 0:
        return b""
    neg = values < 0
    mag = np.abs(values)
    digits = np.ones(n, dtype=np.int8)
    power = 10
    top = int(mag.max())
    while power <= top:
        digits += mag >= power
        power *= 10
    body = digits + neg
    p, d = len(prefix), int(body.max())
    t = max(len(sep), len(line_end))
    width = p + d + t
    table = np.empty((n, width), dtype=np.uint8)
    if p:
        table[:, :p] = np.frombuffer(prefix, dtype=np.uint8)
    rest = mag.astype(np.uint32) if top < 2**32 else mag  # 32-bit division is cheaper
    ten = rest.dtype.type(10)
    for j in range(p + d - 1, p - 1, -1):
        quotient = rest // ten  # (np.divmod is twice as slow here)
        table[:, j] = rest - quotient * ten
        rest = quotient
    table[:, p:p + d] += ord("0")
    rows = np.flatnonzero(neg)
    table[rows, p + d - 1 - digits[rows]] = ord("-")
    table[:, p + d:] = np.frombuffer(sep.ljust(t, b"\0"), dtype=np.uint8)
    table[ends_line, p + d:] = np.frombuffer(line_end.ljust(t, b"\0"), dtype=np.uint8)
    # the bytes in use depend only on (body length, ending): one mask row per combination
    col = np.arange(width)
    lengths = np.arange(d + 1)[:, None, None]
    tails = np.array([len(sep), len(line_end)])[None, :, None]
    patterns = (col >= p + d - lengths) & (col < p + d + tails)
    patterns[:, :, :p] = True
    used = patterns.reshape(-1, width)[body.astype(np.int64) * 2 + ends_line]
    return table[used].tobytes()
