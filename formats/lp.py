"""CPLEX LP: the portable text dialect that CPLEX, HiGHS, GLPK, CBC, SCIP and Gurobi all read.

What the writer emits, and why (each rule is a reader we met that breaks otherwise):

* ``\\ sudoku-pipeline: {...}`` comment lines first: the metadata of docs/conventions.md, one JSON
  object; when longer than a line may be, it continues on ``\\+ `` comment lines (as MPS's
  ``*+ ``), spaces inside it escaped as ``\\u0020`` so that no line ends with a space.
* ``Minimize`` / ``obj: 0 x_1_1_1 + 0 x_2_1_1 + ...``: EVERY column, in export order, with its
  cost (0 written out), wrapped like the rows. GLPK's and HiGHS's LP readers number columns by
  first appearance, objective first, so their column order is then the export's and their
  positional solution files (``glpsol -w``, HiGHS styles -1 and 2) import right; and the
  objective is never empty (GLPK rejects one).
* ``Subject To`` rows ``label: x + y + ... = 1``, wrapped well below CPLEX's 560-character line
  limit, no tabs, no ranged rows. Coefficients 1 and -1 are written as signs only, others as
  integers (a cage sum ``cagesum_1: x_1_1_1 + 2 x_1_1_2 + ... = 17``); the rows of ``Aineq``
  (thermometers, anti-knight, ...) follow the ``=`` rows as ``label: ... <= b``.
* ``Bounds`` with every bound explicit (``x = 1`` for clue variables of the ``bounds`` encoding,
  ``0 <= x <= 1`` for a continuous 0-1 column), so no reader falls back to its own default --
  except for the columns listed under ``Binaries``, whose bounds 0/1 that section implies
  (GLPK, CBC, HiGHS and SCIP all read them so; GLPK warns "bound ... redefined" for every binary
  that has them twice). No ``Bounds`` section when every column is binary.
* ``Binaries`` (integer columns with bounds exactly 0/1) and ``Generals`` (other integer columns)
  spelled out: CBC silently drops the abbreviation ``bin`` and solves the relaxation, and GLPK
  resets a binary's bounds to 0/1, which would lose ``x = 1``.
* ``End``.

The writer streams: it renders blocks of about ``_CHUNK`` nonzeros into a byte matrix (one token
per matrix row, fields at fixed offsets, zero bytes as padding) and writes the non-zero bytes,
so no Python object is made per nonzero, row or column.

The reader takes CPLEX LP from this writer and from other tools (HiGHS ``writeModel``, PuLP,
``glpsol --wlp``): it splits the text at whitespace with NumPy, classifies tokens vectorised and
falls back to a regex normalisation only for sections where terms are glued (``2x+y<=3``).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.conventions import make_convention
from pipeline.core.errors import ConventionError, FormatError
from pipeline.core.manifest import COMMENT_TAG, comment_line, parse_comment_line

from formats.base import Format, ModelData, atomic_open, constraint_rows, open_binary, register
from formats.text import BLANK, Tokens, bytes_table, factorize_table, number_table

_CHUNK = 1 << 19  # nonzeros (or columns) rendered per block: bounds the writer's memory
_WIDTH = 120  # target line length when wrapping rows and name lists
_MAX_LINE = 255  # hard limit we promise (CPLEX's own is 560)
_MAX_NAME = 200  # longest row label we write; keeps one term plus the label under _MAX_LINE

# Names that a reader could take for a keyword or a number (checked case-insensitively).
_RESERVED = {
    b"free", b"inf", b"infinity", b"infty", b"st", b"s.t.", b"st.", b"subject", b"such", b"bound",
    b"bounds", b"bin", b"binary", b"binaries", b"gen", b"general", b"generals", b"semi", b"semis",
    b"semi-continuous", b"sos", b"end", b"min", b"max", b"minimize", b"minimise", b"minimum",
    b"maximize", b"maximise", b"maximum",
}
_NAME_BYTES = np.zeros(256, bool)
for _c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!\"#$%&()/,.;?@_`'{}|~":
    _NAME_BYTES[_c] = True


# =============================================================================================
# writing
# =============================================================================================
def _term_table(convention, columns: np.ndarray) -> np.ndarray:
    """(n_cols, 3 + W) uint8: `` + x_i_j_k`` per column, zero-padded (``[:, 3:]`` is the name).

    The names are the convention's :meth:`~pipeline.core.conventions.Convention.name_table`. ``W``
    is the width of a name whose every index has as many digits as ``N``, so that the terms per
    wrapped line, which follow from the width, are those of the files written so far.
    """
    names = convention.name_table(columns)
    width = 1 + len(convention.shape) * (1 + len(str(max(convention.shape))))
    terms = np.zeros((names.shape[0], 3 + width), np.uint8)
    terms[:, :3] = np.frombuffer(b" + ", np.uint8)
    terms[:, 3:3 + names.shape[1]] = names
    return terms


def _check_names(table: np.ndarray, what: str, where) -> None:
    """Refuse names an LP reader could misread (numbers, exponents, keywords, odd bytes)."""
    if table.shape[0] == 0:
        return
    present = table != 0
    length = present.sum(axis=1)
    first, second = table[:, 0], table[:, 1] if table.shape[1] > 1 else np.zeros(len(table), np.uint8)
    lower = table | np.where((table >= 65) & (table <= 90), 32, 0).astype(np.uint8)
    reserved = np.isin(lower.view(f"S{table.shape[1]}").ravel(), list(_RESERVED))
    bad = (
        (length == 0) | (length > _MAX_NAME) | (present & ~_NAME_BYTES[table]).any(axis=1)
        | ((first >= 48) & (first <= 57)) | (first == ord("."))
        # "2 e1" and "2e1" look alike to a tokenizer: no e/E followed by a digit or nothing
        | (((first | 32) == ord("e")) & (((second >= 48) & (second <= 57)) | (second == 0)))
        | reserved
    )
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        name = bytes(table[k][table[k] != 0]).decode("ascii", "replace")
        raise FormatError(f"{where}: {what} {name!r} cannot be written in CPLEX LP "
                          f"(names must start with a letter, avoid keywords and use only letters, digits "
                          f"and !\"#$%&()/,.;?@_`'{{}}|~)")


def _compact(block: np.ndarray) -> np.ndarray:
    """The non-zero bytes of a block, in order (1-D boolean indexing: ~2x ``np.compress``)."""
    flat = block.reshape(-1)
    return flat[flat != 0]


def _write_rows(f, indptr, indices, data, heads, tails, terms, first_sign: bool = False) -> None:
    """Write CSR rows as ``head term term ... tail`` with terms `` + name`` / `` - 2.5 name``.

    ``heads``/``tails`` are (n_rows, W) byte tables (e.g. `` cell_1_1:`` and `` = 1\\n``), ``terms``
    the column table of :func:`_term_table`. Lines are wrapped below _MAX_LINE characters; every
    row needs at least one entry. Work goes in blocks of whole rows of about _CHUNK entries.
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    nnz = int(indptr[-1])
    wh, wt = heads.shape[1], tails.shape[1]
    mags = np.abs(data)
    general = bool(nnz) and not np.all(mags == 1)
    term_w = terms.shape[1]
    if general:
        term_w += 1 + number_table(np.unique(mags[mags != 1])).shape[1]  # widest coefficient + space
    if wh + wt + term_w > _MAX_LINE:
        raise FormatError("lp: a name is too long to fit a line")
    per_line = max(1, (_WIDTH - wh - wt) // term_w)
    cuts = np.unique(np.concatenate([[0], np.searchsorted(indptr, np.arange(_CHUNK, nnz, _CHUNK)),
                                     [indptr.size - 1]]))
    for r0, r1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        a, b = int(indptr[r0]), int(indptr[r1])
        length = b - a if r1 - r0 == 1 else int(indptr[r0 + 1] - indptr[r0])
        if (not general and length * (r1 - r0) == b - a and b - a <= 2 * _CHUNK
                and np.all(np.diff(indptr[r0:r1 + 1]) == length)):
            f.write(_uniform_rows(r0, r1, length, indices[a:b], data[a:b], heads, tails, terms, per_line,
                                  first_sign))
        else:
            for a2 in range(a, b, _CHUNK):
                f.write(_any_rows(indptr, a2, min(a2 + _CHUNK, b), indices, data, heads, tails, terms,
                                  per_line, general, first_sign))


def _uniform_rows(r0, r1, length, idx, d, heads, tails, terms, per_line, first_sign) -> np.ndarray:
    """Rows r0..r1-1, all with ``length`` entries of +-1: a (rows, length + 2, W) block, no scatter."""
    wh, wt, tw = heads.shape[1], tails.shape[1], terms.shape[1]
    block = np.zeros((r1 - r0, length + 2, max(wh, wt, tw)), np.uint8)
    block[:, 0, :wh] = heads[r0:r1]
    block[:, 1:length + 1, :tw] = terms[idx].reshape(r1 - r0, length, tw)
    negative = d < 0
    if negative.any():
        block[:, 1:length + 1, 1] = np.where(negative, ord("-"), ord("+")).reshape(r1 - r0, length)
    block[:, 1 + np.arange(per_line, length, per_line), 0] = 10  # wrap: " + x" becomes "\\n+ x"
    if not first_sign:
        # "label: x + y", not "label: + x + y" (a leading minus stays)
        block[:, 1, 1:3] *= (block[:, 1, 1:2] == ord("-"))
    block[:, length + 1, :wt] = tails[r0:r1]
    return _compact(block)


def _any_rows(indptr, a, b, indices, data, heads, tails, terms, per_line, general, first_sign) -> np.ndarray:
    """Entries a..b-1 of any CSR (rows may start before a or end after b), tokens scattered."""
    wh, wt = heads.shape[1], tails.shape[1]
    r0 = int(np.searchsorted(indptr, a, "right")) - 1
    r1 = int(np.searchsorted(indptr, b - 1, "right")) - 1
    counts = np.diff(np.clip(indptr[r0:r1 + 2], a, b))
    rows = np.repeat(np.arange(r0, r1 + 1), counts)
    k = np.arange(a, b)
    j = k - indptr[rows]  # index of the term within its row
    is_head = j == 0
    is_tail = k == indptr[rows + 1] - 1
    pos = (k - a) + np.cumsum(is_head) + np.cumsum(is_tail) - is_tail
    n_tok = (b - a) + int(is_head.sum()) + int(is_tail.sum())
    d = np.asarray(data[a:b], dtype=float)
    names = terms[indices[a:b]]
    if general:
        mag = np.abs(d)
        coef = number_table(mag)
        unit = mag == 1
        coef[unit] = 0
        space = np.where(unit, 0, 32).astype(np.uint8)[:, None]
        names = np.concatenate([names[:, :3], coef, space, names[:, 3:]], axis=1)
    names[:, 1] = np.where(d < 0, ord("-"), ord("+"))
    names[:, 0] = np.where((j % per_line == 0) & (j > 0), 10, 32)  # wrap
    if not first_sign:
        lead = is_head & (d >= 0)
        names[lead, 1:3] = 0
    block = np.zeros((n_tok, max(wh, wt, names.shape[1])), np.uint8)
    block[pos[is_head] - 1, :wh] = heads[rows[is_head]]
    block[pos, :names.shape[1]] = names
    block[pos[is_tail] + 1, :wt] = tails[rows[is_tail]]
    return _compact(block)


def _write_objective(f, cost: np.ndarray, terms: np.ndarray) -> None:
    """``obj: 0 x_1_1_1 + 0 x_2_1_1 + ...``: EVERY column, in export order, zero costs included.

    GLPK's and HiGHS's LP readers number the columns by first appearance, objective first; listing
    them all here makes that numbering the export's, so their positional solution files (``glpsol
    -w``, HiGHS styles -1 and 2) are in our column order. The all-zero cost of a Sudoku is one
    constant table (``_write_rows`` writes the same bytes, slower); other costs go through it.
    """
    n = cost.size
    if n == 0:
        f.write(b" obj: 0\n")
        return
    head = np.frombuffer(b" obj:", np.uint8)[None, :]
    if cost.any():
        _write_rows(f, np.array([0, n]), np.arange(n), cost, head, np.array([[10]], np.uint8), terms)
        return
    # as _write_rows: terms `` + 0 name`` (coefficient width 1), wrapped, no sign before the first
    width = terms.shape[1] + 2
    per_line = max(1, (_WIDTH - head.shape[1] - 1) // width)
    f.write(head.tobytes())
    for a in range(0, n, _CHUNK):
        b = min(a + _CHUNK, n)
        block = np.zeros((b - a, width), np.uint8)
        block[:, :5] = np.frombuffer(b" + 0 ", np.uint8)
        block[:, 5:] = terms[a:b, 3:]
        block[np.arange(-a % per_line, b - a, per_line), 0] = 10
        if a == 0:
            block[0, 0] = 32
            block[0, 1:3] = 0
        f.write(_compact(block))
    f.write(b"\n")


def _write_name_list(f, names: np.ndarray) -> None:
    """Names separated by spaces, wrapped at _WIDTH characters."""
    per_line = max(1, _WIDTH // (names.shape[1] + 1))
    for a in range(0, names.shape[0], _CHUNK):
        b = min(a + _CHUNK, names.shape[0])
        k = np.arange(a, b)
        block = np.zeros((b - a, 2 + names.shape[1]), np.uint8)
        block[:, 0] = np.where((k % per_line == 0) & (k > 0), 10, 0)
        block[:, 1] = 32
        block[:, 2:] = names[a:b]
        f.write(_compact(block))
    if names.shape[0]:
        f.write(b"\n")


def _write_bounds(f, lb: np.ndarray, ub: np.ndarray, names: np.ndarray) -> None:
    """One explicit bound per column: ``0 <= x <= 1``, ``x = 1``, ``x >= 2``, ``-inf <= x <= 3``,
    ``x free``."""
    wn = names.shape[1]
    for a in range(0, lb.size, _CHUNK):
        b = min(a + _CHUNK, lb.size)
        lo, up = lb[a:b], ub[a:b]
        if np.isnan(lo).any() or np.isnan(up).any() or (lo == np.inf).any() or (up == -np.inf).any():
            raise FormatError("lp: a column bound is NaN, lb = +inf or ub = -inf")
        binary = (lo == 0) & (up == 1)
        fixed1 = (lo == 1) & (up == 1)
        if (binary | fixed1).all():
            # the 0-1 case of every Sudoku model: constant fields around the name
            block = np.zeros((b - a, 6 + wn + 6), np.uint8)
            block[:, :6] = np.frombuffer(b" 0 <= ", np.uint8)
            block[:, 6:6 + wn] = names[a:b]
            block[:, 6 + wn:] = np.frombuffer(b" <= 1\n", np.uint8)
            if fixed1.any():
                block[fixed1, 1:6] = 0
                block[fixed1, 6 + wn:] = np.frombuffer(b" = 1\n\0", np.uint8)
            f.write(_compact(block))
            continue
        fin_l, fin_u = np.isfinite(lo), np.isfinite(up)
        fixed = fin_l & fin_u & (lo == up)
        both = fin_l & fin_u & ~fixed
        up_only = ~fin_l & fin_u
        lo_only = fin_l & ~fin_u
        # left part "lb <= " / "-inf <= "
        left_num = number_table(np.where(fin_l, lo, 0.0))
        left_num[~both] = 0
        left = np.concatenate([left_num, np.zeros((b - a, 4), np.uint8)], axis=1)
        left[up_only, :4] = np.frombuffer(b"-inf", np.uint8)
        left[both | up_only, -4:] = np.frombuffer(b" <= ", np.uint8)
        # right part " <= ub" / " = v" / " >= lb" / " free"
        op = np.zeros((b - a, 5), np.uint8)
        op[both | up_only, :4] = np.frombuffer(b" <= ", np.uint8)
        op[fixed, :3] = np.frombuffer(b" = ", np.uint8)
        op[lo_only, :4] = np.frombuffer(b" >= ", np.uint8)
        op[~fin_l & ~fin_u] = np.frombuffer(b" free", np.uint8)
        right_num = number_table(np.where(fin_u, up, np.where(fin_l, lo, 0.0)))
        right_num[~fin_l & ~fin_u] = 0
        block = np.concatenate([np.full((b - a, 1), 32, np.uint8), left, names[a:b], op, right_num,
                                np.full((b - a, 1), 10, np.uint8)], axis=1)
        f.write(_compact(block))


_CONTINUATION = "\\+ "  # as MPS's "*+ ": the rest of the line continues the comment above
_MAX_METADATA_BYTES = 1 << 24  # the metadata comment and its continuation lines are read from this window


def _comment_lines(model) -> bytes:
    """The metadata comment, split into ``\\+ `` continuation lines when it is long."""
    text = comment_line(model)
    room = _MAX_LINE - 8
    if len(text) > room:
        # spaces occur only inside JSON strings (N > 9 puzzles); as \u0020 they cannot be lost
        # from the end of a comment line, and any cut point is safe
        tag, _, body = text.partition(" ")
        text = tag + " " + body.replace(" ", "\\u0020")
    pieces = [text[k:k + room] for k in range(0, len(text), room)]
    conv = model.convention
    lines = ["\\ " + pieces[0]] + [_CONTINUATION + p for p in pieces[1:]]
    ineq = f" (and {model.n_ineq} <= rows, {model.ineq_nnz} nonzeros)" if model.n_ineq else ""
    lines.append(f"\\ {model.puzzle.variant} {conv.n}x{conv.n}, scheme {conv.scheme}/{conv.order}, clues as "
                 f"{model.clue_encoding}: {model.n_rows} rows, {model.n_cols} columns, {model.nnz} nonzeros{ineq}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def write(model: Model, path: str | os.PathLike) -> None:
    """Write ``model`` as CPLEX LP to ``path`` (atomically; ``.gz`` compresses).

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The file (``.gz`` compressed when the name ends so).
    """
    path = Path(path)
    rows_of = constraint_rows(model)
    a = rows_of.matrix.tocsr()
    n_rows, n_cols = a.shape
    labels = bytes_table(rows_of.labels) if n_rows else np.zeros((0, 1), np.uint8)
    _check_names(labels, "row label", path)
    terms = _term_table(model.convention, model.columns)
    names = terms[:, 3:]
    lb, ub = np.asarray(model.lb, float), np.asarray(model.ub, float)
    cost = np.asarray(model.cost, float)
    integ = np.asarray(model.integrality, bool)
    if not (np.isfinite(a.data).all() and np.isfinite(cost).all() and np.isfinite(rows_of.rhs).all()):
        raise FormatError(f"{path}: a coefficient, cost or right-hand side is not finite")
    indptr, indices, data = a.indptr, a.indices, a.data
    empty = np.diff(indptr) == 0
    if empty.any():
        # an LP row needs a term: an empty row becomes "label: 0 x_first = rhs"
        if n_cols == 0:
            raise FormatError(f"{path}: a model with rows but no columns cannot be written as LP")
        counts = np.where(empty, 1, np.diff(indptr))
        new_ptr = np.concatenate([[0], np.cumsum(counts)])
        new_idx = np.zeros(new_ptr[-1], indices.dtype)
        new_val = np.zeros(new_ptr[-1])
        keep = np.repeat(~empty, counts)
        new_idx[keep], new_val[keep] = indices, data
        indptr, indices, data = new_ptr, new_idx, new_val

    with atomic_open(path, "wb") as f:
        f.write(_comment_lines(model))
        f.write(b"Minimize\n")
        _write_objective(f, cost, terms)
        f.write(b"Subject To\n")
        if n_rows:
            heads = np.zeros((n_rows, labels.shape[1] + 2), np.uint8)
            heads[:, 0] = 32
            heads[:, 1:-1] = labels
            heads[:, -1] = ord(":")
            rhs = number_table(rows_of.rhs)
            less = rows_of.less
            extra = int(less.any())  # " <= b" is one byte longer than " = b" (NUL padding is dropped)
            tails = np.zeros((n_rows, rhs.shape[1] + 4 + extra), np.uint8)
            tails[:, :3] = np.frombuffer(b" = ", np.uint8)
            tails[:, 3:3 + rhs.shape[1]] = rhs
            tails[:, 3 + rhs.shape[1]] = 10
            if extra:
                tails[less, :4] = np.frombuffer(b" <= ", np.uint8)
                tails[less, 4:4 + rhs.shape[1]] = rhs[less]
                tails[less, 4 + rhs.shape[1]] = 10
            _write_rows(f, indptr, indices, data, heads, tails, terms)
        # Binaries implies bounds 0/1 (CPLEX LP; GLPK, CBC, HiGHS and SCIP read it so), and GLPK
        # warns "lower/upper bound of variable ... redefined" for a binary in Bounds too
        binary = integ & (lb == 0) & (ub == 1)
        if not binary.all():
            rest = ~binary
            f.write(b"Bounds\n")
            _write_bounds(f, lb[rest], ub[rest], names[rest])
        if binary.any():
            f.write(b"Binaries\n")
            _write_name_list(f, names[binary])
        if (integ & ~binary).any():
            f.write(b"Generals\n")
            _write_name_list(f, names[integ & ~binary])
        f.write(b"End\n")


def export(model: Model, directory: str | os.PathLike) -> list[Path]:
    """Write ``model.lp`` into ``directory``; returns ``[path]``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    """
    path = Path(directory) / "model.lp"
    write(model, path)
    return [path]


# =============================================================================================
# reading
# =============================================================================================
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
        idx = np.asarray(idx, dtype=np.int64)
        drop = (self.buf[self.ends[idx] - 1] == ord(":")) if strip_colon and idx.size else None
        return self.factorize(idx, drop_last=drop)


def _table_str(table: np.ndarray) -> np.ndarray:
    """A zero-padded byte table -> ``str`` array (ASCII through a ``U`` view, else decoded)."""
    if table.shape[0] == 0:
        return np.array([], dtype=str)
    if (table < 128).all():
        return np.ascontiguousarray(table.astype(np.uint32)).view(f"U{table.shape[1]}").ravel()
    return np.array([bytes(r[r != 0]).decode("utf-8", "replace") for r in table], dtype=str)


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


def _metadata(raw: bytes) -> dict:
    """The ``sudoku-pipeline:`` comment (joined with its ``\\+ `` continuation lines), or {}."""
    k = raw.find(COMMENT_TAG.encode())
    if k < 0:
        return {}
    lines = raw[k:k + _MAX_METADATA_BYTES].split(b"\n")
    text = lines[0].rstrip(b"\r")
    for line in lines[1:]:
        if not line.startswith(_CONTINUATION.encode()):
            break
        text += line[len(_CONTINUATION):].rstrip(b"\r")
    return parse_comment_line(text.decode("utf-8", "replace")) or {}


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

    def __init__(self, tx: _Text, lo: int, hi: int, kind: str):
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
        val = _numbers(tx, idx, cls)
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

    def error(self, k: int, message: str) -> FormatError:
        return self.tx.error(int(self.idx[k]) if k < self.idx.size else len(self.tx), message)

    def text(self, k: int) -> str:
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


def _numbers(tx: _Text, idx: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """Values of the NUM tokens (0 elsewhere); the common ``0``, ``1``, ``+1``, ``-1`` fast."""
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
                if v != v:
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
    path = Path(path)
    where = str(path)
    with open_binary(path, where) as f:
        raw = f.read()
    meta = _metadata(raw)
    tx = _Text(_blank_comments(raw), where)
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
            sec = _Section(tx, lo, hi, "expr")
            names, coef, const = _objective(sec)
            obj = (len(name_tokens), sec, names, coef, const)
            name_tokens.append((sec, names))
        elif kind == "st":
            sec = _Section(tx, lo, hi, "expr")
            r = _constraints(sec)
            rows = (len(name_tokens), sec, r)
            name_tokens.append((sec, r[1]))
        elif kind == "bounds":
            sec = _Section(tx, lo, hi, "expr")
            v, lows, ups = _bounds(sec)
            bound_parts.append((len(name_tokens), sec, v, lows, ups))
            name_tokens.append((sec, v))
        else:
            sec = _Section(tx, lo, hi, "names")
            bad = np.flatnonzero(sec.cls != _NAME)
            if bad.size:
                raise sec.error(int(bad[0]), f"expected a name in {tx.text(kw)!r}, found {sec.text(int(bad[0]))!r}")
            (gen_parts if kind == "gen" else bin_parts).append(len(name_tokens))
            name_tokens.append((sec, np.arange(sec.cls.size)))

    # one dictionary over all names, in file order: first appearance = column order, unless the
    # metadata names a convention, which then fixes the order
    codes, uniques, offsets = _name_codes(name_tokens)
    n_cols = len(uniques)
    if meta.get("scheme") is not None and n_cols:
        order = np.argsort(_positions(meta, uniques, where), kind="stable")
        rank = np.empty(n_cols, np.int64)
        rank[order] = np.arange(n_cols)
        codes = rank[codes]
        uniques = uniques[order]
    col_names = _table_str(uniques)

    cost = np.zeros(n_cols)
    offset = 0.0
    if obj is not None:
        i, sec, names, coef, offset = obj
        np.add.at(cost, codes[offsets[i]:offsets[i + 1]], coef)
    if maximize:
        cost = -cost
    if rows is not None:
        i, sec, (row_of, names, coef, le, ge, rhs, label_of_row) = rows
        n_rows = rhs.size
        # terms come row by row, so the CSR row pointers are counts; scipy sorts and merges
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of, minlength=n_rows))])
        a = sp.csr_matrix((coef, codes[offsets[i]:offsets[i + 1]], indptr), shape=(n_rows, n_cols))
        a.sum_duplicates()
        a.eliminate_zeros()
        row_lower = np.where(le, -np.inf, rhs)
        row_upper = np.where(ge, np.inf, rhs)
        row_labels = _row_labels(sec, label_of_row)
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


def _positions(meta: dict, names: np.ndarray, where: str) -> np.ndarray:
    """0-based positions, in the metadata's convention, of the names in byte table ``names``."""
    try:
        canvas = meta.get("canvas") if meta.get("layout") is not None else None
        conv = make_convention(meta["scheme"], meta["order"], int(meta["h"]), int(meta["w"]),
                               canvas=None if canvas is None else (int(canvas[0]), int(canvas[1])))
    except KeyError as e:
        raise FormatError(f"{where}: metadata comment lacks {e.args[0]!r}") from None
    except (ConventionError, TypeError, ValueError) as e:
        raise FormatError(f"{where}: metadata comment: {e}") from None
    try:
        as_bytes = np.ascontiguousarray(names).view(f"S{names.shape[1]}").ravel()
        pos = conv.positions_from_names(as_bytes, where=where)
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
        text = _table_str(uniq).astype(object)
        out[has] = text[codes]
    return out.astype(str)


register(Format("lp", (".lp",), "CPLEX LP (portable: CPLEX, HiGHS, GLPK, CBC, SCIP)",
                export=export, write=write, read=read))
