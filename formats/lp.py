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

The reader (:mod:`formats.lp_read`, re-exported here as ``read``) takes CPLEX LP from this writer
and from other tools (HiGHS ``writeModel``, PuLP, ``glpsol --wlp``).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from pipeline.core.build import Model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import comment_line

from formats.base import Format, atomic_open, constraint_rows, register
from formats.text import bytes_table, number_table
from formats.lp_read import _CONTINUATION, read  # noqa: F401  (read: this module's public name)

_CHUNK = 1 << 17  # nonzeros (or columns) rendered per block: bounds the writer's memory
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
def _term_table(convention, columns: np.ndarray, names=None) -> np.ndarray:
    """(n_cols, 3 + W) uint8: `` + x_i_j_k`` per column, zero-padded (``[:, 3:]`` is the name).

    The names are the convention's :meth:`~pipeline.core.conventions.Convention.name_table`, or
    ``names(start, stop)`` (a model's :meth:`~pipeline.core.build.Model.name_table`: auxiliary
    columns), filled in a chunk of columns at a time: the whole name table beside the terms was
    40 MB more for 1.75 M columns. ``W`` is the width of a name whose every index has as many
    digits as ``N``, so that the terms per wrapped line, which follow from the width, are those
    of the files written so far.
    """
    if names is None:
        table = convention.name_table(columns)
        names = lambda start, stop: table[start:stop]   # noqa: E731
    n = columns.size
    width = max(1 + len(convention.shape) * (1 + len(str(max(convention.shape)))), names(0, min(n, 1)).shape[1])
    terms = np.zeros((n, 3 + width), np.uint8)
    terms[:, :3] = np.frombuffer(b" + ", np.uint8)
    for lo in range(0, n, _CHUNK):
        part = names(lo, min(lo + _CHUNK, n))
        terms[lo:lo + part.shape[0], 3:3 + part.shape[1]] = part
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
    terms = _term_table(model.convention, model.columns, model.name_table if model.n_aux else None)
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
            _write_name_list(f, names if binary.all() else names[binary])   # all: no copy of the names
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


register(Format("lp", (".lp",), "CPLEX LP (portable: CPLEX, HiGHS, GLPK, CBC, SCIP)", file_names=("model.lp",),
                export=export, write=write, read=read, cost=0.4, one_file=True, gzip=True))
