"""The CPLEX LP reader (the writer and the format's registration are in :mod:`formats.lp`).

It takes CPLEX LP from our writer and from other tools (HiGHS ``writeModel``, PuLP,
``glpsol --wlp``): it splits the text at whitespace with NumPy, classifies tokens vectorised and
falls back to a regex normalisation only for sections where terms are glued (``2x+y<=3``).
"""
from __future__ import annotations

import os
from collections.abc import Callable
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.errors import ConventionError, FormatError
from pipeline.core.manifest import COMMENT_TAG, column_positions, metadata_convention, parse_comment_line

from formats.base import ModelData, open_binary
from formats.agree import refuse_disagreement
from formats.text import BLANK, Tokens, factorize_table, first_repeat, table_strings

_CONTINUATION = "\\+ "  # as MPS's "*+ ": the rest of the line continues the comment above
_MAX_METADATA_BYTES = 1 << 24  # the metadata comment and its continuation lines are read from this window
_NAME, _NUM, _SIGN, _SENSE, _LABEL, _COLON, _FREE, _ODD = range(8)
_WS = np.arange(256) <= BLANK  # as the tokeniser: space and control bytes separate tokens
_OP = np.zeros(256, bool)
_OP[list(b"+-<>=:")] = True
_NUMSTART = np.zeros(256, bool)
_NUMSTART[list(b"0123456789.")] = True
_SIGNB = np.zeros(256, bool)
_SIGNB[list(b"+-")] = True
_SENSEB = np.zeros(256, bool)
_SENSEB[list(b"<>=")] = True
_LETTER = np.zeros(256, bool)
_LETTER[list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")] = True

_SECTION = {
    b"min": "min", b"minimize": "min", b"minimise": "min", b"minimum": "min",
    b"max": "max", b"maximize": "max", b"maximise": "max", b"maximum": "max",
    b"st": "st", b"s.t.": "st", b"st.": "st", b"subject": "st", b"such": "st",
    b"bound": "bounds", b"bounds": "bounds",
    b"gen": "gen", b"general": "gen", b"generals": "gen",
    b"bin": "bin", b"binary": "bin", b"binaries": "bin",
    b"semi": "semi", b"semis": "semi", b"semi-continuous": "semi", b"sos": "sos",
    b"end": "end",
}
_SECOND_WORD = {b"subject": b"to", b"such": b"that"}


class _Text(Tokens):
    """The LP reader's tokens (:class:`~formats.text.Tokens`) with line numbers for messages."""

    def __init__(self, buf: np.ndarray, where: str, first_line: int = 1):
        super().__init__(buf)
        self.where = where
        self.first_line = first_line
        self._nl: np.ndarray | None = None

    @property
    def newlines(self) -> np.ndarray:
        if self._nl is None:
            self._nl = np.flatnonzero(self.buf == 10)
        return self._nl

    def line(self, t: int) -> int:
        """1-based line of token ``t`` (or of the end of the text when ``t`` is past the end)."""
        pos = self.starts[t] if t < len(self) else self.buf.size
        return self.first_line + int(np.searchsorted(self.newlines, pos))

    def error(self, t: int, message: str) -> FormatError:
        return FormatError(f"{self.where}:{self.line(t)}: {message}")

    def texts(self, idx: np.ndarray, width: int = 16) -> np.ndarray:
        """Lower-cased first ``width`` bytes of tokens ``idx`` (S array; for keyword checks)."""
        return np.ascontiguousarray(self.fixed(idx, width, case="lower")).view(f"S{width}").ravel()

    def encoded(self, idx: np.ndarray, strip_colon: bool = False):
        """Tokens ``idx`` dictionary-encoded: (codes by first appearance, (n_unique, W) uint8 table
        of the distinct tokens, zero padded). ``strip_colon`` drops a label's final ``:``."""
        idx = np.asarray(idx)   # int32 token numbers stay int32 (5 M names: 20 MB, not 40)
        drop = (self.buf[self.ends[idx] - 1] == ord(":")) if strip_colon and idx.size else None
        return self.factorize(idx, drop_last=drop)


def _blank_comments(raw: bytes) -> np.ndarray:
    """The file as a uint8 array with every ``\\ ...`` comment turned into spaces (offsets, and
    so line numbers, stay those of the file)."""
    buf = np.frombuffer(raw, np.uint8)
    marks = np.flatnonzero(buf == ord("\\"))
    if marks.size == 0:
        return buf
    buf = buf.copy()
    nl = np.flatnonzero(buf == 10)
    stop = np.append(nl, buf.size)[np.searchsorted(nl, marks)]
    keep = np.concatenate([[True], stop[1:] != stop[:-1]])  # the first backslash of each line
    marks, stop = marks[keep], stop[keep]
    if marks.size <= 10000:
        for a, b in zip(marks.tolist(), stop.tolist()):
            buf[a:b] = 32
    else:
        cover = np.zeros(buf.size + 1, np.int8)
        cover[marks] = 1
        cover[stop] -= 1
        buf[np.cumsum(cover[:-1], dtype=np.int8) > 0] = 32
    return buf


def _metadata(raw: bytes, where: str = "LP file") -> dict:
    """The ``sudoku-pipeline:`` comment (joined with its ``\\+ `` continuation lines), or {};
    FormatError when the tagged comment is there but damaged (not our metadata any more)."""
    k = raw.find(COMMENT_TAG.encode())
    if k < 0:
        return {}
    lines = raw[k:k + _MAX_METADATA_BYTES].split(b"\n")
    text = lines[0].rstrip(b"\r")
    for line in lines[1:]:
        if not line.startswith(_CONTINUATION.encode()):
            break
        text += line[len(_CONTINUATION):].rstrip(b"\r")
    meta = parse_comment_line(text.decode("utf-8", "replace"))
    if not isinstance(meta, dict):
        at = raw.count(b"\n", 0, k) + 1
        raise FormatError(f"{where}:{at}: the {COMMENT_TAG!r} comment is not a JSON object")
    return meta


def _classify(tx: _Text, lo: int, hi: int) -> np.ndarray:
    """Token classes for tokens lo..hi-1 (_ODD marks glued tokens such as ``2x`` or ``x+y``)."""
    buf = tx.buf
    starts, ends = tx.starts[lo:hi], tx.ends[lo:hi]
    n = hi - lo
    cls = np.full(n, _NAME, np.int8)
    if n == 0:
        return cls
    first = buf[starts]
    last = buf[ends - 1]
    length = ends - starts
    second = buf[np.minimum(starts + 1, ends - 1)]
    number = _NUMSTART[first] | (_SIGNB[first] & (length > 1) & (_NUMSTART[second] | ((second | 32) == ord("i"))))
    cls[number] = _NUM
    cls[(length == 1) & _SIGNB[first]] = _SIGN
    sense = _SENSEB[first] & ((length == 1) | ((length == 2) & _SENSEB[second]))
    cls[sense] = _SENSE
    cls[(last == ord(":")) & (length > 1) & ~number & ~_SENSEB[first]] = _LABEL
    cls[(length == 1) & (first == ord(":"))] = _COLON
    cls[_SENSEB[first] & ~sense] = _ODD
    if _glued(buf, int(starts[0]), int(ends[-1])):
        # some operator touches a name: find the tokens that hold one
        a = int(starts[0])
        ops = np.flatnonzero(_OP[buf[a:int(ends[-1])]]) + a
        tok = np.searchsorted(starts, ops, "right") - 1
        inner = tok[(cls[tok] == _NAME) | ((cls[tok] == _LABEL) & (ops != ends[tok] - 1))]
        cls[inner] = _ODD
    # "inf"/"infinity" are numbers wherever they stand
    cand = np.flatnonzero((cls == _NAME) & ((first | 32) == ord("i")) & ((length == 3) | (length == 8)))
    if cand.size:
        t = tx.texts(cand + lo, 8)
        cls[cand[np.isin(t, [b"inf", b"infinity"])]] = _NUM
    return cls


_NUMCHAR = _NUMSTART.copy()
_EXP = np.zeros(256, bool)
_EXP[list(b"eE")] = True


def _glued(buf: np.ndarray, a: int, b: int) -> bool:
    """True when an operator byte touches a name or number in a way no LP token explains.

    Legal contacts: ``<=`` (operator pairs), ``name:`` (a label), ``+1``/``-inf`` (a signed number
    after whitespace) and ``1e+5`` (an exponent). Everything else (``x+y``, ``2x<=3``) is glued.
    """
    chunk = buf[a:b]
    ops = np.flatnonzero(_OP[chunk])
    if ops.size == 0:
        return False
    c = chunk[ops]
    prev = np.where(ops > 0, chunk[np.maximum(ops - 1, 0)], 32)
    prev2 = np.where(ops > 1, chunk[np.maximum(ops - 2, 0)], 32)
    nxt = np.where(ops + 1 < chunk.size, chunk[np.minimum(ops + 1, chunk.size - 1)], 32)
    sign = _SIGNB[c]
    colon = c == ord(":")
    ok = np.where(
        colon, _WS[nxt],
        np.where(sign,
                 (_WS[prev] & (_WS[nxt] | _NUMCHAR[nxt] | ((nxt | 32) == ord("i"))))
                 | (_EXP[prev] & _NUMCHAR[prev2] & _NUMCHAR[nxt]),
                 (_WS[prev] | _SENSEB[prev]) & (_WS[nxt] | _SENSEB[nxt] | _SIGNB[nxt] | _NUMCHAR[nxt])))
    return not ok.all()


def _normalise(chunk: bytes) -> bytes:
    """Put spaces around operators, colons and coefficients glued to names (slow path)."""
    chunk = re.sub(rb"(<=|>=|=<|=>|==|<|>|=|:)", rb" \1 ", chunk)
    chunk = re.sub(rb"(?<![0-9.][eE])([+-])", rb" \1 ", chunk)
    return re.sub(rb"(?<![\w.!\"#$%&()/,;?@`'{}|~])((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?=[A-Za-z_])",
                  rb"\1 ", chunk)


class _Section:
    """The tokens of one section, classified, signs folded into the numbers that follow them."""

    def __init__(self, tx: _Text, lo: int, hi: int, kind: str, again: Callable[[], _Text] | None = None):
        # how to make this section again once released (:meth:`released`): the text read anew
        self._again, self._span = again, (lo, hi, kind)
        cls = _classify(tx, lo, hi)
        if kind != "names" and ((cls == _ODD).any() or _glued_numbers(tx, lo, cls)):
            # slow path: re-split this section's bytes after a regex normalisation
            a = tx.starts[lo]
            b = tx.ends[hi - 1]
            first_line = tx.line(lo)
            chunk = _normalise(bytes(tx.buf[a:b]))
            tx = _Text(np.frombuffer(chunk, np.uint8), tx.where, first_line)
            lo, hi = 0, len(tx)
            cls = _classify(tx, lo, hi)
            bad = np.flatnonzero(cls == _ODD)
            if bad.size:
                raise tx.error(int(bad[0]), f"cannot read {tx.text(int(bad[0]))!r}")
        self.tx = tx
        idx = np.arange(lo, hi, dtype=tx.starts.dtype)
        if (cls == _COLON).any():
            # "name : ..." -> the name is a label
            c = np.flatnonzero(cls == _COLON)
            if c[0] == 0 or (cls[c - 1] != _NAME).any():
                k = int(c[0] if c[0] == 0 else c[cls[c - 1] != _NAME][0])
                raise tx.error(int(idx[k]), "':' must follow a name")
            cls[c - 1] = _LABEL
            keep = cls != _COLON
            cls, idx = cls[keep], idx[keep]
        val = _numbers(tx, idx, cls, infinite=kind == "bounds")
        lead = tx.buf[tx.starts[idx]]
        sign = np.where(lead == ord("-"), -1, 1).astype(np.int8)
        signed = (cls == _NUM) & _SIGNB[lead]
        # fold "- 2" into "-2" so that a NUM carries its own sign
        fold = np.flatnonzero((cls[:-1] == _SIGN) & (cls[1:] == _NUM))
        if fold.size:
            val[fold + 1] *= sign[fold]
            signed[fold + 1] = True
            keep = np.ones(cls.size, bool)
            keep[fold] = False
            cls, idx, val, sign, signed = cls[keep], idx[keep], val[keep], sign[keep], signed[keep]
        self.cls, self.idx, self.val, self.sign, self.signed = cls, idx, val, sign, signed

    def parsed(self) -> None:
        """The statements are read: drop the values and signs (a float and two bytes a token),
        keeping what messages need (the classes, the token numbers)."""
        # empty arrays of their own: a view ``val[:0]`` kept the whole array alive (an empty
        # 100x100's 8 M constraint tokens: 80 MB held to the end of the read)
        self.val, self.sign, self.signed = (np.zeros(0, a.dtype) for a in (self.val, self.sign, self.signed))

    def released(self) -> None:
        """The names are encoded: drop the text and its tokens (the buffer, two offsets a token
        and this section's token numbers), which :meth:`error` and :meth:`text` make again from
        the file, once, for a message. An empty 100x100's LP held ~150 MB of them through the
        repeat checks that followed, where its read peaked."""
        del self.tx, self.idx

    def _held(self) -> None:
        if "tx" not in vars(self) and self._again is not None:   # released: read and split again, for a message
            lo, hi, kind = self._span
            again = _Section(self._again(), lo, hi, kind)
            self.tx, self.idx = again.tx, again.idx

    def error(self, k: int, message: str) -> FormatError:
        self._held()
        return self.tx.error(int(self.idx[k]) if k < self.idx.size else len(self.tx), message)

    def text(self, k: int) -> str:
        self._held()
        return self.tx.text(int(self.idx[k]))


_IN_NUMBER = np.zeros(256, bool)
_IN_NUMBER[list(b"0123456789.eE+-")] = True
_IN_NUMBER[0] = True  # padding
_INFINITY = [b"inf", b"+inf", b"-inf", b"infinity", b"+infinity", b"-infinity"]


def _glued_numbers(tx: _Text, lo: int, cls: np.ndarray) -> bool:
    """True when a number token runs into a name (``2x``, ``1e-07x1``): needs the slow path."""
    num = np.flatnonzero(cls == _NUM)
    num = num[tx.ends[lo + num] - tx.starts[lo + num] > 1] + lo
    if num.size == 0:
        return False
    width = min(int((tx.ends[num] - tx.starts[num]).max()), 32)
    text = tx.texts(num, width)  # lower-cased, so "E" shows as "e"
    ok = _IN_NUMBER[text.view(np.uint8).reshape(num.size, width)].all(axis=1)
    if ok.all():
        return False
    return not np.isin(text[~ok], _INFINITY).all()


def _numbers(tx: _Text, idx: np.ndarray, cls: np.ndarray, infinite: bool = False) -> np.ndarray:
    """Values of the NUM tokens (0 elsewhere); the common ``0``, ``1``, ``+1``, ``-1`` fast.

    Every value is finite (NaN and overflowing numerals such as ``1e400`` are refused) except,
    where ``infinite`` (the Bounds section), an infinity spelled ``inf`` or ``infinity``."""
    val = np.zeros(idx.size)
    num = np.flatnonzero(cls == _NUM)
    if num.size == 0:
        return val
    buf = tx.buf
    starts, ends = tx.starts[idx[num]], tx.ends[idx[num]]
    length = ends - starts
    first = buf[starts]
    last = buf[ends - 1]
    digit = (last >= 48) & (last <= 57)
    one = (length == 1) & digit
    two = (length == 2) & _SIGNB[first] & digit
    val[num[one]] = last[one] - 48.0
    val[num[two]] = np.where(first[two] == ord("-"), -1.0, 1.0) * (last[two] - 48.0)
    rest = num[~(one | two)]
    if rest.size:
        codes, uniq = tx.encoded(idx[rest])
        values = np.empty(len(uniq))
        for u, row in enumerate(uniq):  # one parse per distinct number, not per token
            b = bytes(row[row != 0])
            try:
                if b"_" in b:
                    raise ValueError
                v = float(b)
                if not np.isfinite(v) and not (infinite and np.isinf(v) and b"i" in b.lower()):
                    raise ValueError
            except ValueError:
                k = int(rest[np.flatnonzero(codes == u)[0]])
                nxt = cls[k + 1] if k + 1 < cls.size else -1
                what = "coefficient" if nxt == _NAME else "number"
                raise tx.error(int(idx[k]), f"bad {what} {b.decode('utf-8', 'replace')!r}") from None
            values[u] = v
        val[rest] = values[codes]
    return val


def _expression(sec: _Section, lo: int, hi: int, what: str):
    """Terms of tokens lo..hi-1 (no label, no sense): (name ordinals, coefficients, constant)."""
    cls = sec.cls[lo:hi]
    val, sign, signed = sec.val[lo:hi], sec.sign[lo:hi], sec.signed[lo:hi]
    n = cls.size
    bad = np.flatnonzero((cls != _NAME) & (cls != _NUM) & (cls != _SIGN))
    if bad.size:
        k = int(bad[0])
        raise sec.error(lo + k, f"unexpected {sec.text(lo + k)!r} in {what}")
    names = np.flatnonzero(cls == _NAME)
    prev = np.where(names > 0, cls[np.maximum(names - 1, 0)], -1)
    coef = np.ones(names.size)
    has_num = prev == _NUM
    coef[has_num] = val[names[has_num] - 1]
    has_sign = prev == _SIGN
    coef[has_sign] = sign[names[has_sign] - 1]
    # a term after the first must start with a sign: "x y" or "x 2 y" is an error
    starts = np.where(has_num | has_sign, names - 1, names)
    is_num = cls == _NUM
    coefficient_num = np.zeros(n, bool)
    coefficient_num[names[has_num] - 1] = True
    consts = np.flatnonzero(is_num & ~coefficient_num)
    later = np.sort(np.concatenate([starts, consts]))[1:]
    unsigned = later[(cls[later] == _NAME) | ((cls[later] == _NUM) & ~signed[later])]
    if unsigned.size:
        k = int(unsigned[0])
        raise sec.error(lo + k, f"missing '+' or '-' before {sec.text(lo + k)!r} in {what}")
    dangling = np.flatnonzero((cls == _SIGN) & np.append(cls[1:] != _NAME, True))
    if dangling.size:
        k = int(dangling[0])
        raise sec.error(lo + k + 1, f"expected a name after {sec.text(lo + k)!r} in {what}")
    return names + lo, coef, float(val[consts].sum())


def _objective(sec: _Section):
    """(name positions in sec, coefficients, label, constant) of the objective section."""
    n = sec.cls.size
    lo = 1 if n and sec.cls[0] == _LABEL else 0
    if (sec.cls[lo:] == _SENSE).any():
        k = lo + int(np.flatnonzero(sec.cls[lo:] == _SENSE)[0])
        raise sec.error(k, f"unexpected {sec.text(k)!r} in the objective")
    return _expression(sec, lo, n, "the objective")


def _constraints(sec: _Section):
    """Rows: (row of each term, name positions, coefficients, sense, rhs, label positions)."""
    cls = sec.cls
    n = cls.size
    if n == 0:
        none = np.zeros(0, np.int64)
        return none, none, np.zeros(0), np.zeros(0, bool), np.zeros(0, bool), np.zeros(0), none
    senses = np.flatnonzero(cls == _SENSE)
    if senses.size == 0:
        raise sec.error(0, "constraint without '=', '<=' or '>='")
    if senses[-1] == n - 1:
        raise sec.error(n - 1, f"expected a number after {sec.text(n - 1)!r}")
    if senses[-1] < n - 2:
        raise sec.error(int(senses[-1]) + 2, "constraint without '=', '<=' or '>='")
    not_num = senses[cls[senses + 1] != _NUM]
    if not_num.size:
        k = int(not_num[0])
        if k > 0 and cls[k - 1] == _NUM:
            raise sec.error(k, "ranged constraints ('lo <= expression <= hi') are not supported")
        raise sec.error(k + 1, f"expected a number after {sec.text(k)!r}, found {sec.text(k + 1)!r}")
    ends = senses + 1  # the right-hand side closes a row
    row_end = np.zeros(n, bool)
    row_end[ends] = True
    row_of = np.cumsum(row_end) - row_end  # rows closed strictly before each token
    n_rows = senses.size
    row_start = np.concatenate([[0], ends[:-1] + 1])
    labels = np.flatnonzero(cls == _LABEL)
    misplaced = labels[~np.isin(labels, row_start)]
    if misplaced.size:
        k = int(misplaced[0])
        raise sec.error(k, f"unexpected label {sec.text(k)!r} inside a constraint")
    body = np.ones(n, bool)
    body[senses] = body[ends] = False
    body[labels] = False
    # the checks of _expression, row-aware: only a row's first term may lack a sign
    names = np.flatnonzero((cls == _NAME))
    prev_ok = names > 0
    prev = np.full(names.size, -1)
    prev[prev_ok] = cls[names[prev_ok] - 1]
    prev_body = np.zeros(names.size, bool)
    prev_body[prev_ok] = body[names[prev_ok] - 1]
    has_num = (prev == _NUM) & prev_body
    has_sign = (prev == _SIGN)
    coef = np.ones(names.size)
    coef[has_num] = sec.val[names[has_num] - 1]
    coef[has_sign] = sec.sign[names[has_sign] - 1]
    first_body = np.zeros(n, bool)
    fb = row_start + (cls[np.minimum(row_start, n - 1)] == _LABEL)
    first_body[fb[fb < n]] = True
    coefficient_num = np.zeros(n, bool)
    coefficient_num[names[has_num] - 1] = True
    consts = np.flatnonzero((cls == _NUM) & body & ~coefficient_num)
    term_start = np.concatenate([np.where(has_num | has_sign, names - 1, names), consts])
    unsigned = term_start[~first_body[term_start] & ((cls[term_start] == _NAME) |
                                                     ((cls[term_start] == _NUM) & ~sec.signed[term_start]))]
    if unsigned.size:
        k = int(unsigned.min())
        raise sec.error(k, f"missing '+' or '-' before {sec.text(k)!r}")
    dangling = np.flatnonzero((cls == _SIGN) & np.append(cls[1:] != _NAME, True))
    if dangling.size:
        k = int(dangling[0])
        raise sec.error(k + 1, f"expected a name after {sec.text(k)!r}")
    rhs = sec.val[ends].copy()
    if consts.size:
        np.subtract.at(rhs, row_of[consts], sec.val[consts])
    stext = sec.tx.buf[sec.tx.starts[sec.idx[senses]]], sec.tx.buf[sec.tx.ends[sec.idx[senses]] - 1]
    le = (stext[0] == ord("<")) | (stext[1] == ord("<"))
    ge = (stext[0] == ord(">")) | (stext[1] == ord(">"))
    label_of_row = np.full(n_rows, -1)
    label_of_row[row_of[labels]] = labels
    return row_of[names], names, coef, le, ge, rhs, label_of_row


def _bounds(sec: _Section):
    """Bound statements: (names, lb assignments, ub assignments) as positions and values."""
    cls = sec.cls.copy()
    n = cls.size
    cand = np.flatnonzero((cls == _NAME) & ((sec.tx.ends[sec.idx] - sec.tx.starts[sec.idx]) == 4))
    if cand.size:
        cls[cand[sec.tx.texts(sec.idx[cand], 4) == b"free"]] = _FREE
    bad = np.flatnonzero((cls != _NAME) & (cls != _NUM) & (cls != _SENSE) & (cls != _FREE))
    if bad.size:
        k = int(bad[0])
        raise sec.error(k, f"unexpected {sec.text(k)!r} in Bounds")
    v = np.flatnonzero(cls == _NAME)

    def at(k):
        inside = (k >= 0) & (k < n)
        out = np.full(k.shape, -1)
        out[inside] = cls[k[inside]]
        return out

    free = at(v + 1) == _FREE
    right = (at(v + 1) == _SENSE) & (at(v + 2) == _NUM)
    left = (at(v - 1) == _SENSE) & (at(v - 2) == _NUM)
    used = np.zeros(n, np.int64)
    used[v] = 1
    np.add.at(used, v[free] + 1, 1)
    for d in (1, 2):
        np.add.at(used, v[right] + d, 1)
        np.add.at(used, v[left] - d, 1)
    loose = v[~(free | right | left)]
    if loose.size:
        k = int(loose[0])
        raise sec.error(k, f"bound on {sec.text(k)!r} without '<=', '>=', '=' or 'free'")
    wrong = np.flatnonzero(used != 1)
    if wrong.size:
        k = int(wrong[0])
        raise sec.error(k, f"unexpected {sec.text(k)!r} in Bounds")

    buf, starts, ends = sec.tx.buf, sec.tx.starts, sec.tx.ends

    def sense_of(k):
        a, b = buf[starts[sec.idx[k]]], buf[ends[sec.idx[k]] - 1]
        le = (a == ord("<")) | (b == ord("<"))
        ge = (a == ord(">")) | (b == ord(">"))
        return le, ge, ~le & ~ge

    r = v[right]  # name <= u, name >= l, name = v
    le, ge, eq = sense_of(r + 1)
    rval = sec.val[r + 2]
    lft = v[left]  # l <= name, u >= name, v = name
    lle, lge, leq = sense_of(lft - 1)
    lval = sec.val[lft - 2]
    fr = v[free]
    inf = np.full(fr.size, np.inf)
    lows = (np.concatenate([r[ge | eq], lft[lle | leq], fr]), np.concatenate([rval[ge | eq], lval[lle | leq], -inf]))
    ups = (np.concatenate([r[le | eq], lft[lge | leq], fr]), np.concatenate([rval[le | eq], lval[lge | leq], inf]))
    return v, lows, ups


def _sections(tx: _Text):
    """[(kind, first body token, stop token, keyword token)] up to End, checked: starts with
    Minimize/Maximize, has End, no unknown or unsupported section, no section twice."""
    n = len(tx)
    if n == 0:
        raise tx.error(0, "empty file: expected 'Minimize' or 'Maximize'")
    nl = tx.newlines
    first = np.concatenate([[0], np.searchsorted(tx.starts, nl + 1)])  # sorted: dedupe by diff
    first = first[np.concatenate([[True], first[1:] != first[:-1]]) & (first < n)]  # tokens starting a line
    lens = tx.ends[first] - tx.starts[first]
    lead = tx.buf[tx.starts[first]] | 32
    lead_ok = np.zeros(256, bool)
    lead_ok[list(b"mbsge")] = True
    cand = first[(lens <= 16) & lead_ok[lead] & (tx.buf[tx.ends[first] - 1] != ord(":"))]
    words = tx.texts(cand, 16)
    hit = np.isin(words, list(_SECTION))
    found = []
    for t, w in zip(cand[hit].tolist(), words[hit].tolist()):
        nxt = tx.texts(np.array([t + 1]), 8)[0] if t + 1 < n else b""
        if w in _SECOND_WORD:
            if nxt == _SECOND_WORD[w] and tx.line(t + 1) == tx.line(t):
                found.append((_SECTION[w], t + 2, t))
        elif nxt != b":" or tx.line(t + 1) != tx.line(t):  # "end : x = 1" is a row named end
            found.append((_SECTION[w], t + 1, t))
    if not found or found[0][2] != 0 or found[0][0] not in ("min", "max"):
        raise tx.error(0, f"expected 'Minimize' or 'Maximize', found {tx.text(0)!r}")
    sections = []
    for i, (kind, body, t) in enumerate(found):
        sections.append((kind, body, found[i + 1][2] if i + 1 < len(found) else n, t))
        if kind == "end":
            break
    else:
        raise tx.error(n - 1, "missing 'End' (is the file truncated?)")
    kw = np.array([sec[3] for sec in sections])
    is_kw = np.zeros(n + 1, bool)
    is_kw[kw] = True
    # a lone word of letters on its line, where a statement may end, names an unknown section
    starts_line = np.zeros(n + 1, bool)
    starts_line[first] = True
    starts_line[n] = True
    alone = first[starts_line[first + 1] & (lens >= 3) & (lens <= 16)]
    alone = alone[(alone < kw[-1]) & ~is_kw[alone]]
    if alone.size:
        text = tx.texts(alone, 16).view(np.uint8).reshape(alone.size, 16)
        alone = alone[(_LETTER[text] | (text == ord("-")) | (text == 0)).all(axis=1)]
        names_only = np.array([sec[0] in ("gen", "bin") for sec in sections])
        alone = alone[~names_only[np.searchsorted(kw, alone) - 1]]
        prev = tx.buf[tx.ends[alone - 1] - 1]
        alone = alone[~_OP[prev] & ~is_kw[alone - 1]]  # not after an operator, a label, a keyword
        if alone.size:
            raise tx.error(int(alone[0]), f"unknown section {tx.text(int(alone[0]))!r}")
    for kind, body, stop, t in sections:
        if kind in ("semi", "sos") and stop > body:  # HiGHS writes an empty "semi" section
            raise tx.error(t, f"section {tx.text(t)!r} is not supported (0-1 programs only)")
    for group in (("min", "max"), ("st",), ("bounds",)):
        same = [s for s in sections if s[0] in group]
        if len(same) > 1:
            said = " ".join(tx.text(t) for t in range(same[1][3], same[1][1]))  # "Subject To"
            raise tx.error(same[1][3], f"second {said!r} section")
    return [s for s in sections if s[0] not in ("end", "semi", "sos")]


def read(path: str | os.PathLike) -> ModelData:
    """Read a CPLEX LP file (``.gz`` too) into ModelData; columns in convention order when the
    file carries our metadata comment, else in order of first appearance."""
    where = str(path)
    data = _parsed(Path(path), where)
    # compared once the text, its tokens and sections are gone (:func:`_parsed` returned): they
    # sat under the comparison's copies, and an empty 100x100's check peaked there (1.3 GB)
    refuse_disagreement(data, where)
    return data


def _parsed(path: Path, where: str) -> ModelData:
    """The model an LP file states, not yet held against its metadata (:func:`read`)."""
    def text() -> _Text:
        with open_binary(path, where) as f:
            return _Text(_blank_comments(f.read()), where)

    with open_binary(path, where) as f:
        raw = f.read()
    meta = _metadata(raw, where)
    tx = _Text(_blank_comments(raw), where)
    del raw   # the text is tx.buf now (a copy where comments were blanked): not held twice
    sections = _sections(tx)

    name_tokens: list[tuple[_Section, np.ndarray]] = []  # token indices of every column name, in file order
    obj = rows = None
    maximize = False
    bound_parts: list = []
    gen_parts: list[int] = []
    bin_parts: list[int] = []
    for kind, lo, hi, kw in sections:
        if kind in ("min", "max"):
            maximize = kind == "max"
            sec = _Section(tx, lo, hi, "expr", text)
            names, coef, const = _objective(sec)
            obj = (len(name_tokens), sec, names, coef, const)
            name_tokens.append((sec, names))
        elif kind == "st":
            sec = _Section(tx, lo, hi, "expr", text)
            r = _constraints(sec)
            rows = (len(name_tokens), sec, r)
            row_labels = _row_labels(sec, r[-1])   # the labels' text, before the text is released
            name_tokens.append((sec, r[1]))
        elif kind == "bounds":
            sec = _Section(tx, lo, hi, "bounds", text)
            v, lows, ups = _bounds(sec)
            bound_parts.append((len(name_tokens), sec, v, lows, ups))
            name_tokens.append((sec, v))
        else:
            sec = _Section(tx, lo, hi, "names", text)
            bad = np.flatnonzero(sec.cls != _NAME)
            if bad.size:
                raise sec.error(int(bad[0]), f"expected a name in {tx.text(kw)!r}, found {sec.text(int(bad[0]))!r}")
            (gen_parts if kind == "gen" else bin_parts).append(len(name_tokens))
            name_tokens.append((sec, np.arange(sec.cls.size)))
        sec.parsed()

    # one dictionary over all names, in file order: first appearance = column order, unless the
    # metadata names a convention, which then fixes the order
    codes, uniques, offsets = _name_codes(name_tokens)
    del tx   # the last use of the text: the checks below hold the codes, and a message reads it again
    for sec, _ in name_tokens:
        sec.released()
    n_cols = len(uniques)
    if meta.get("scheme") is not None and n_cols:
        order = np.argsort(_positions(meta, uniques, where), kind="stable")
        # int32 ranks make the codes int32 (an empty 100x100's 6 M names: 24 MB less held)
        rank = np.empty(n_cols, np.int32 if n_cols < np.iinfo(np.int32).max else np.int64)
        rank[order] = np.arange(n_cols)
        codes = rank[codes]
        uniques = uniques[order]
    col_names = table_strings(uniques)

    cost = np.zeros(n_cols)
    offset = 0.0
    if obj is not None:
        i, sec, names, coef, offset = obj
        _refuse_repeats(sec, codes[offsets[i]:offsets[i + 1]], names, "the objective")
        np.add.at(cost, codes[offsets[i]:offsets[i + 1]], coef)
    if maximize:
        cost = -cost
    if rows is not None:
        i, sec, (row_of, names, coef, le, ge, rhs, label_of_row) = rows
        n_rows = rhs.size
        # a column twice in one row would be summed: refused, as is a row name given twice
        _refuse_repeats(sec, row_of * max(n_cols, 1) + codes[offsets[i]:offsets[i + 1]], names, "its row")
        # terms come row by row, so the CSR row pointers are counts; scipy sorts and merges
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of, minlength=n_rows))])
        a = sp.csr_matrix((coef, codes[offsets[i]:offsets[i + 1]], indptr), shape=(n_rows, n_cols))
        a.sum_duplicates()
        a.eliminate_zeros()
        row_lower = np.where(le, -np.inf, rhs)
        row_upper = np.where(ge, np.inf, rhs)
        _refuse_repeated_labels(sec, row_labels, label_of_row, row_of, names)
    else:
        a = sp.csr_matrix((0, n_cols))
        row_lower = row_upper = np.zeros(0)
        row_labels = np.array([], dtype=str)

    lb, ub = np.zeros(n_cols), np.full(n_cols, np.inf)
    lb_set, ub_set = np.zeros(n_cols, bool), np.zeros(n_cols, bool)
    for i, sec, v, (lp_, lv), (up_, uv) in bound_parts:
        local = np.full(sec.cls.size, -1)
        local[v] = codes[offsets[i]:offsets[i + 1]]
        for pos, val, target, flag in ((lp_, lv, lb, lb_set), (up_, uv, ub, ub_set)):
            order = np.argsort(pos, kind="stable")  # later statements win
            cols = local[pos[order]]
            target[cols] = val[order]
            flag[cols] = True
    huge = np.abs(lb) >= 1e30
    lb[huge] = np.copysign(np.inf, lb[huge])
    huge = np.abs(ub) >= 1e30
    ub[huge] = np.copysign(np.inf, ub[huge])
    # CPLEX: a negative upper bound alone makes the lower bound -inf
    lb[(ub < 0) & ~lb_set] = -np.inf
    integ = np.zeros(n_cols, bool)
    for i in gen_parts:
        integ[codes[offsets[i]:offsets[i + 1]]] = True
    for i in bin_parts:
        cols = codes[offsets[i]:offsets[i + 1]]
        integ[cols] = True
        ub[cols[~ub_set[cols]]] = 1.0
        lb[cols[~lb_set[cols]]] = 0.0

    if maximize:
        meta = {**meta, "objective_sense": "maximize"}
    if offset:
        meta = {**meta, "objective_offset": offset}
    return ModelData(a, row_lower, row_upper, lb, ub, cost, integ, row_labels, col_names, meta)


def _refuse_repeats(sec: _Section, keys: np.ndarray, names: np.ndarray, where: str) -> None:
    """FormatError at the first name token (in file order) whose key was seen before."""
    repeat = first_repeat(keys)
    if repeat is not None:
        k = int(names[repeat])
        raise sec.error(k, f"{sec.text(k)!r} appears twice in {where}")


def _refuse_repeated_labels(sec: _Section, labels: np.ndarray, label_of_row: np.ndarray,
                            row_of: np.ndarray, names: np.ndarray) -> None:
    """FormatError at the later of two constraints with the same name."""
    r = first_repeat(labels)
    if r is not None:
        first_term = np.searchsorted(row_of, r)
        k = int(label_of_row[r]) if label_of_row[r] >= 0 else int(names[first_term]) if first_term < names.size else 0
        raise sec.error(k, f"a second constraint named {str(labels[r])!r}")


def _positions(meta: dict, names: np.ndarray, where: str) -> np.ndarray:
    """0-based positions, in the metadata's convention, of the names in byte table ``names``."""
    conv = metadata_convention(meta, where)
    try:
        as_bytes = np.ascontiguousarray(names).view(f"S{names.shape[1]}").ravel()
        pos = column_positions(meta, conv, as_bytes, where)   # aux_... names: after the N^3 block
    except ConventionError as e:
        raise FormatError(str(e)) from None
    if np.bincount(pos, minlength=conv.n_vars).max(initial=0) > 1:
        raise FormatError(f"{where}: two column names denote the same variable")
    return pos


def _name_codes(parts):
    """Dictionary-encode the name tokens of all sections at once, in file order:
    (codes, (n_unique, W) byte table, per-part offsets into codes)."""
    counts = [p.size for _, p in parts]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    groups = []  # the sections may have been re-split (slow path): encode per _Text, then merge
    for sec, p in parts:
        if not groups or groups[-1][0] is not sec.tx:
            groups.append([sec.tx, []])
        groups[-1][1].append(sec.idx[p])
    if not groups or offsets[-1] == 0:
        return np.zeros(0, np.int64), np.zeros((0, 8), np.uint8), offsets
    encoded = [tx.encoded(np.concatenate(idx)) for tx, idx in groups]
    if len(encoded) == 1:
        return encoded[0][0], encoded[0][1], offsets
    width = max(t.shape[1] for _, t in encoded)
    tables = [np.pad(t, ((0, 0), (0, width - t.shape[1]))) for _, t in encoded]
    merged, table = factorize_table(np.concatenate(tables))
    base = np.cumsum([0] + [t.shape[0] for t in tables])
    codes = np.concatenate([merged[base[i] + c] for i, (c, _) in enumerate(encoded)])
    return codes, table, offsets


def _row_labels(sec: _Section, label_of_row: np.ndarray) -> np.ndarray:
    """Row names: the labels, ``c<k>`` (1-based) for unlabelled rows as CPLEX names them."""
    out = np.char.add("c", (np.arange(label_of_row.size) + 1).astype(str)).astype(object)
    has = label_of_row >= 0
    if has.any():
        codes, uniq = sec.tx.encoded(sec.idx[label_of_row[has]], strip_colon=True)
        text = table_strings(uniq).astype(object)
        out[has] = text[codes]
    return out.astype(str)

