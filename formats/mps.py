"""MPS, free (default) and fixed: a streaming vectorised writer and a vectorised reader.

Free files start ``NAME SUDOKU FREE`` (CBC and SYMPHONY read fixed columns otherwise) and use the
model's own names (``x_i_j_k`` / ``x_I_J_p_q_n`` and the row labels of docs/conventions.md), padded
with blanks into aligned fields. Fixed files put fields at columns 2/5/15/25/40/50 and need names
of at most 8 characters, so they use :func:`fixed_name_rule` names (``C0000000``, ``R0000000``,
``OBJ``) and a ``<stem>_names.csv`` map beside them.

Rows: ``E`` for every row of ``Aeq`` (``= 1`` for units and clues, ``= S`` for a cage sum), then
``L`` for the rows of ``Aineq`` (rules such as thermometers and anti-knight), with their
right-hand sides in RHS (zeros left out, negatives written); coefficients other than 1 (a cage
sum's 1..N, a thermometer's -1..-N) are written as they are. The fixed style numbers all rows
``R0000000``.. in that order.

Both styles: the export metadata as a comment right after NAME; an ``N`` objective row (entries
only for nonzero costs, no constant, no OBJSENSE); every column inside one ``MARKER``
``'INTORG'``/``'INTEND'`` block with explicit ``UP`` and ``LO`` bounds (never ``BV``, which CPLEX
refuses to combine with ``FX``: error 1454); the clue columns of the ``bounds`` encoding get
``FX 1`` instead. The matrix is written column by column (CSC) in blocks of 256K nonzeros, each
block one numpy byte array of equal-width lines written as is: no Python object per nonzero,
variable or row, and memory bounded by the block (below what highspy's writer needs).

The reader is :mod:`formats.mps_read` (``read``, ``names_map_path`` and ``COMMENT_CONTINUATION``
re-exported here).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import comment_line

from formats.base import Format, atomic_open, constraint_rows, register
from formats.text import BLANK, bytes_table, decimal_table, number_strings
from formats.mps_read import COMMENT_CONTINUATION, names_map_path, read  # noqa: F401  (this module's public names)

STYLES = ("free", "fixed")
OBJ_FREE, OBJ_FIXED = "obj", "OBJ"
RHS_SET, BOUND_SET = "RHS", "BND"
PROBLEM_NAME = "SUDOKU"
MAX_NAME = 100        # longest name the free writer emits
FIXED_DIGITS = 7      # C0000000: 8 characters, the fixed-format name field
FIXED_NUMBER = 12     # fixed-format numeric field, columns 25-36
# CBC 2.10 (CoinMpsIO) fails on lines of 880 characters or more, comments included, and GLPK
# warns about fixed-format lines over 80, so a longer metadata comment (free style: puzzles from
# 25x25 up; fixed style: always) continues on "*+ " lines that read() joins back
CARD_LIMIT = {"free": 800, "fixed": 80}
_CHUNK = 1 << 18      # nonzeros (or bound lines) per rendered block: ~10 MB of text
_BLANK = BLANK


def fixed_name_rule() -> dict:
    """How the fixed-format writer shortens names, for the manifest to record."""
    return {
        "columns": f"C%0{FIXED_DIGITS}d",
        "rows": f"R%0{FIXED_DIGITS}d",
        "objective": OBJ_FIXED,
        "index": "0-based solver column / row of Aeq",
        "map_file": "<stem>_names.csv",
        "map_columns": ["short", "long"],
        "map_order": "objective, rows, columns",
    }


# ---------------------------------------------------------------------------------------------
# rendering: a line kind is a list of parts (bytes constants, (n, w) uint8 tables, or
# (table, index) gathers); every part has one width, so a chunk of lines is one (n, width) array
# written as is. NUL bytes, where a part must shrink, are deleted by one bytes.translate.
# ---------------------------------------------------------------------------------------------
def _blank_table(strings, width: int | None = None) -> np.ndarray:
    """Strings as a blank-padded byte table: fixed MPS columns."""
    return bytes_table(strings, width, pad=_BLANK)


def _part_width(part) -> int:
    return len(part) if isinstance(part, bytes) else (part[0] if isinstance(part, tuple) else part).shape[1]


def _render(parts: list, n: int, out: np.ndarray | None = None) -> np.ndarray:
    """An (n, width) array of lines assembled from ``parts`` (void views make each gather one
    fixed-size copy per line), into ``out`` when given."""
    widths = [_part_width(p) for p in parts]
    if out is None:
        out = np.empty((n, sum(widths)), dtype=np.uint8)
    pos = 0
    for part, w in zip(parts, widths):
        dst = out[:, pos:pos + w]
        if w == 0 or n == 0:
            pass
        elif isinstance(part, bytes):
            dst[:] = np.frombuffer(part, dtype=np.uint8)
        elif isinstance(part, tuple):
            table, index = part
            dst.view(f"V{w}")[:, 0] = np.ascontiguousarray(table).view(f"V{w}").ravel()[index]
        else:
            dst[:] = part
        pos += w
    return out


def _emit(f, lines: np.ndarray, *, strip: bool = False) -> None:
    """Write rendered lines; ``strip`` deletes NUL bytes first."""
    if lines.size:
        f.write(lines.tobytes().translate(None, b"\0") if strip else lines.reshape(-1))


def _values(values, lead: bytes, max_len: int | None):
    """A part for a numeric field: ``lead`` + the number right-aligned in a common width.

    The numbers of a chunk are usually all 1, so distinct values are formatted once and
    gathered; right alignment keeps lines free of trailing blanks.
    """
    v = np.asarray(values, dtype=float)
    if not np.isfinite(v).all():
        raise FormatError("mps: cannot write a non-finite coefficient, bound or right-hand side")
    if v.size == 0 or (v == v[0]).all():
        return lead + (number_strings(v[:1], max_len, where="mps")[0] if v.size else b"0")
    distinct, index = np.unique(v, return_inverse=True)
    s = number_strings(distinct, max_len, where="mps")
    width = int(np.strings.str_len(s).max())
    table = _blank_table(np.char.add(lead, np.strings.rjust(s, width)))
    return table, index


def _short_names(prefix: bytes, count: int) -> np.ndarray:
    """Fixed-format names ``prefix`` + 7-digit 0-based index, as a (count, 8) table."""
    if count > 10 ** FIXED_DIGITS:
        raise FormatError(f"mps: fixed format allows at most {10 ** FIXED_DIGITS:,} names of a kind, "
                          f"the model has {count:,}; write free MPS instead")
    out = np.empty((count, len(prefix) + FIXED_DIGITS), dtype=np.uint8)
    out[:, :len(prefix)] = np.frombuffer(prefix, dtype=np.uint8)
    out[:, len(prefix):] = decimal_table(count, FIXED_DIGITS)
    return out


def _column_table(model, c0: int, c1: int) -> np.ndarray:
    """``model.col_names[c0:c1]`` as an (n, width) byte table, left-aligned and blank-padded: the
    model's :meth:`~pipeline.core.build.Model.name_table` of those columns (one width for every
    chunk) with its zero padding made blanks (every name byte is above the blank, so a maximum
    does it in place)."""
    table = model.name_table(c0, c1)
    return np.maximum(table, _BLANK, out=table)


def _row_table(labels) -> np.ndarray:
    """Row labels as a blank-padded table, refusing what free MPS cannot hold."""
    s = np.asarray(labels, dtype="S") if len(labels) else np.zeros(0, dtype="S1")
    raw = s.view(np.uint8).reshape(s.size, s.dtype.itemsize)
    lengths = np.strings.str_len(s)
    bad = (lengths == 0) | (lengths > MAX_NAME) | ((raw > 0) & (raw <= _BLANK)).any(axis=1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise FormatError(f"mps: row name {str(labels[k])!r} is empty, longer than {MAX_NAME} "
                          "characters or contains blanks; free MPS cannot hold it")
    return _blank_table(s)


class _Layout:
    """One style's names (blank-padded tables; row ``m`` is the objective) and field glue."""

    def __init__(self, model, style: str):
        if style not in STYLES:
            raise FormatError(f"mps: unknown style {style!r}; expected free or fixed")
        self.style = style
        self.model = model
        self.cols: np.ndarray | None
        self.constraints = constraint_rows(model)
        m, n = self.constraints.n_rows, model.n_cols
        if style == "free":
            self.cols = None      # named chunk by chunk (col_part): 1.75 M names were 44 MB held at once
            self.col_width = _column_table(model, 0, 0).shape[1]
            rows = _row_table(self.constraints.labels)
            width = max(rows.shape[1], len(OBJ_FREE))
            self.rows = np.full((m + 1, width), _BLANK, dtype=np.uint8)
            self.rows[:m, :rows.shape[1]] = rows
            self.rows[m, :len(OBJ_FREE)] = np.frombuffer(OBJ_FREE.encode(), dtype=np.uint8)
            self.obj = OBJ_FREE.encode()
            self.head = b"NAME " + PROBLEM_NAME.encode() + b" FREE\n"
            self.col_lead = self.row_type_gap = self.num_lead = self.sep = b" "
            self.rhs_lead = b" " + RHS_SET.encode() + b" "
            self.bound_gap = b" " + BOUND_SET.encode() + b" "
            self.marker = b" MARKER 'MARKER' '%s'\n"
            self.max_number = None
        else:
            self.cols = _short_names(b"C", n)
            self.col_width = self.cols.shape[1]
            self.rows = np.concatenate([_short_names(b"R", m), _blank_table([OBJ_FIXED.encode()], width=8)])
            self.obj = OBJ_FIXED.encode()
            self.head = b"NAME          " + PROBLEM_NAME.encode() + b"\n"   # name from column 15
            self.col_lead = b"    "                                       # names from column 5
            self.row_type_gap = self.sep = self.num_lead = b"  "          # row type in 2-3
            self.rhs_lead = b"    " + RHS_SET.ljust(8).encode() + b"  "
            self.bound_gap = b" " + BOUND_SET.ljust(8).encode() + b"  "
            self.marker = b"    MARKER    'MARKER'                 '%s'\n"  # 15-22 and 40-47
            self.max_number = FIXED_NUMBER

    def values(self, v):
        return _values(v, self.num_lead, self.max_number)

    def col_part(self, cols: np.ndarray, c0: int, c1: int) -> tuple[np.ndarray, np.ndarray]:
        """A part naming ``cols`` (all in ``[c0, c1)``): the short names, or the free names of
        those columns alone."""
        if self.cols is not None:
            return self.cols, cols
        return _column_table(self.model, c0, c1), cols - c0


def _integrality_runs(integer: np.ndarray) -> list[tuple[int, int, bool]]:
    """Maximal column ranges of equal integrality (one range for the all-binary models)."""
    n = integer.size
    if n == 0:
        return []
    change = np.flatnonzero(integer[1:] != integer[:-1]) + 1
    starts, ends = np.concatenate([[0], change]), np.append(change, n)
    return list(zip(starts.tolist(), ends.tolist(), integer[starts].tolist()))


def _column_chunks(indptr: np.ndarray, c0: int, c1: int) -> list[tuple[int, int]]:
    """Column ranges of ``[c0, c1)`` holding about ``_CHUNK`` nonzeros (at least one column) each."""
    targets = np.arange(int(indptr[c0]) + _CHUNK, int(indptr[c1]), _CHUNK)
    cuts = np.unique(np.searchsorted(indptr, targets))
    edges = [c0] + [c for c in cuts.tolist() if c0 < c < c1] + [c1]
    return list(zip(edges[:-1], edges[1:]))


def _entries(a: sp.csc_matrix, cost: np.ndarray, obj_entry: np.ndarray, c0: int, c1: int):
    """(column, row, value) of columns ``[c0, c1)`` in CSC order; an objective entry (row ``m``)
    goes first in each column flagged by ``obj_entry``, spliced in by cumsum offsets."""
    m = a.shape[0]
    p0, p1 = int(a.indptr[c0]), int(a.indptr[c1])
    rows, vals = a.indices[p0:p1], a.data[p0:p1]
    counts = np.diff(a.indptr[c0:c1 + 1])
    k = obj_entry[c0:c1]
    if k.any():
        incl = np.cumsum(k)
        excl = incl - k
        total = (p1 - p0) + int(incl[-1])
        new_rows, new_vals = np.empty(total, dtype=np.int64), np.empty(total)
        a_pos = np.arange(p1 - p0) + np.repeat(incl, counts)
        new_rows[a_pos], new_vals[a_pos] = rows, vals
        flagged = np.flatnonzero(k)
        o_pos = a.indptr[c0 + flagged] - p0 + excl[flagged]
        new_rows[o_pos], new_vals[o_pos] = m, cost[c0 + flagged]
        rows, vals, counts = new_rows, new_vals, counts + k
    return np.repeat(np.arange(c0, c1), counts), rows, vals


def _pair_lines(lay: _Layout, cols, rows, vals, c0: int, c1: int) -> np.ndarray:
    """Free-style COLUMNS lines holding two (row, value) pairs, a third fewer bytes than one.

    An entry opens a line when its rank inside its column is even; the last line of a column
    with an odd count has one pair, moved to the second slot (any blanks separate free fields)
    so that every line of the chunk keeps one width.
    """
    starts = np.flatnonzero(np.diff(cols, prepend=-1) != 0)
    rank = np.arange(cols.size) - np.repeat(starts, np.diff(np.append(starts, cols.size)))
    first = np.flatnonzero(rank % 2 == 0)
    second = first + 1
    single = second >= cols.size
    single[~single] = cols[second[~single]] != cols[first[~single]]
    second[single] = first[single]
    pair = [(lay.rows, rows[first]), lay.values(vals[first]), lay.sep]
    lines = _render([lay.col_lead, lay.col_part(cols[first], c0, c1), lay.sep] + pair +
                    [(lay.rows, rows[second]), lay.values(vals[second]), b"\n"], first.size)
    if single.any():
        head = len(lay.col_lead) + lay.col_width + len(lay.sep)
        lines[single, head:head + sum(_part_width(p) for p in pair)] = _BLANK
    return lines


def _write_columns(f, lay: _Layout, a: sp.csc_matrix, cost: np.ndarray, integer: np.ndarray) -> None:
    """COLUMNS in CSC order; free style two pairs a line, fixed style one (fields 5-6 would sit
    at columns 40-61 and save nothing)."""
    # a column without entries must still be declared, so it gets an explicit 0 objective entry
    obj_entry = (cost != 0) | (np.diff(a.indptr) == 0)
    for start, stop, is_int in _integrality_runs(integer):
        if is_int:
            f.write(lay.marker % b"INTORG")
        for c0, c1 in _column_chunks(a.indptr, start, stop):
            cols, rows, vals = _entries(a, cost, obj_entry, c0, c1)
            if lay.style == "free":
                _emit(f, _pair_lines(lay, cols, rows, vals, c0, c1))
            else:
                _emit(f, _render([lay.col_lead, lay.col_part(cols, c0, c1), lay.sep, (lay.rows, rows), lay.values(vals),
                                  b"\n"], cols.size))
        if is_int:
            f.write(lay.marker % b"INTEND")


def _widen(part, width: int, lead: int):
    """A numeric part right-aligned to ``width`` bytes (blanks inserted after the lead)."""
    extra = width - _part_width(part)
    if extra <= 0:
        return part
    if isinstance(part, bytes):
        return part[:lead] + b" " * extra + part[lead:]
    table, index = part
    table = np.concatenate([table[:, :lead], np.full((table.shape[0], extra), _BLANK, np.uint8), table[:, lead:]],
                           axis=1)
    return table, index


def _write_bounds(f, lay: _Layout, lb: np.ndarray, ub: np.ndarray) -> None:
    """Per column ``UP`` then ``LO`` (one ``FX`` when equal; ``PL``/``MI`` for infinite sides).

    Both lines of a column are rendered into one (columns, 2, width) block, so each line kind
    keeps its own (usually constant) value and no per-line value table is needed.
    """
    kinds = _blank_table([b"UP", b"LO", b"FX", b"PL", b"MI"])
    n = lb.size
    step = max(1, _CHUNK // 2)
    for c0 in range(0, n, step):
        c1 = min(n, c0 + step)
        lo, up = lb[c0:c1], ub[c0:c1]
        k = c1 - c0
        fixed = (lo == up) & np.isfinite(lo)
        kind = [np.where(fixed, 2, np.where(np.isposinf(up), 3, 0)), np.where(np.isneginf(lo), 4, 1)]
        values = [lay.values(np.where(fixed, lo, np.where(np.isfinite(up), up, 0.0))),
                  lay.values(np.where(np.isfinite(lo), lo, 0.0))]
        width = max(_part_width(v) for v in values)
        values = [_widen(v, width, len(lay.num_lead)) for v in values]
        cols = np.arange(c0, c1)
        head = [b" "]
        tail = [lay.bound_gap, lay.col_part(cols, c0, c1)]
        block = np.empty((k, 2, 1 + 2 + _part_width(lay.bound_gap) + lay.col_width + width + 1), np.uint8)
        for j in (0, 1):
            _render(head + [(kinds, kind[j])] + tail + [values[j], b"\n"], k, out=block[:, j, :])
        flag = np.stack([kind[0] == 3, kind[1] == 4], axis=1)
        if flag.any():                       # PL and MI carry no value
            block[flag, -1 - width:-1] = 0
        lines = block.reshape(2 * k, -1)
        if fixed.any():                      # FX replaces the UP/LO pair
            keep = np.ones((k, 2), dtype=bool)
            keep[:, 1] = ~fixed
            lines = lines[keep.ravel()]
        _emit(f, lines, strip=bool(flag.any()))


def _comment_lines(text: str, limit: int) -> bytes:
    """``* text``, continued on ``*+ `` lines so that no line is longer than ``limit``."""
    data = text.encode("utf-8")
    first = limit - 2
    more = limit - len(COMMENT_CONTINUATION)
    pieces = [b"* " + data[:first]]
    pieces += [COMMENT_CONTINUATION.encode() + data[i:i + more] for i in range(first, len(data), more)]
    return b"\n".join(pieces) + b"\n"


def _csc(a: sp.spmatrix) -> sp.csc_matrix:
    """Column-major copy of ``a``; a 0/1 matrix is copied with int8 data (a twelfth of the
    float64 copy for 12M nonzeros)."""
    a = a.tocsr()
    if a.nnz and (a.data == 1).all():
        a = sp.csr_matrix((np.ones(a.nnz, dtype=np.int8), a.indices, a.indptr), shape=a.shape)
    return a.tocsc()


def _write_stream(f, model, lay: _Layout) -> None:
    rows_of = lay.constraints
    m = rows_of.n_rows
    f.write(lay.head)
    f.write(_comment_lines(comment_line(model), CARD_LIMIT[lay.style]))
    if lay.style == "fixed":
        f.write(b"* names: C%07d = column, R%07d = row (0-based); long names: <stem>_names.csv\n")
    f.write(b"ROWS\n")
    f.write(b" N" + lay.row_type_gap + lay.obj + b"\n")
    for r0 in range(0, m, _CHUNK):
        r1 = min(m, r0 + _CHUNK)
        names = np.where(lay.rows[r0:r1] == _BLANK, 0, lay.rows[r0:r1]).astype(np.uint8)
        kind = b" E" if r1 <= rows_of.n_eq else (_blank_table([b" E", b" L"]), (np.arange(r0, r1) >= rows_of.n_eq) * 1)
        _emit(f, _render([kind, lay.row_type_gap, names, b"\n"], r1 - r0), strip=True)
    f.write(b"COLUMNS\n")
    _write_columns(f, lay, _csc(rows_of.matrix), np.asarray(model.cost, dtype=float),
                   np.asarray(model.integrality, dtype=bool))
    f.write(b"RHS\n")
    beq = np.asarray(rows_of.rhs, dtype=float)
    nonzero = np.flatnonzero(beq)
    for r0 in range(0, nonzero.size, _CHUNK):
        rows = nonzero[r0:r0 + _CHUNK]
        _emit(f, _render([lay.rhs_lead, (lay.rows, rows), lay.values(beq[rows]), b"\n"], rows.size))
    f.write(b"BOUNDS\n")
    _write_bounds(f, lay, np.asarray(model.lb, dtype=float), np.asarray(model.ub, dtype=float))
    f.write(b"ENDATA\n")


def _write_names_map(model, lay: _Layout, path) -> Path:
    """``short,long`` lines: the objective, the rows, then the columns."""
    def unpadded(table):
        return np.where(table == _BLANK, 0, table).astype(np.uint8)

    short_rows = unpadded(np.concatenate([lay.rows[-1:], lay.rows[:-1]]))
    long_rows = bytes_table(np.concatenate([np.array([OBJ_FREE.encode()]), np.asarray(lay.constraints.labels, dtype="S")]))
    assert lay.cols is not None            # the fixed style's short names
    with atomic_open(path, "wb") as f:
        f.write(b"short,long\n")
        _emit(f, _render([short_rows, b",", long_rows, b"\n"], short_rows.shape[0]), strip=True)
        for c0 in range(0, model.n_cols, _CHUNK):
            c1 = min(model.n_cols, c0 + _CHUNK)
            _emit(f, _render([lay.cols[c0:c1], b",", model.name_table(c0, c1), b"\n"], c1 - c0), strip=True)
    return Path(path)


def write(model: Model, path: str | os.PathLike, style: str = "free") -> None:
    """Write ``model`` as MPS (``style`` free or fixed; fixed also writes ``<stem>_names.csv``).

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The file (``.gz`` compressed when the name ends so).
    style : {'free', 'fixed'}
        MPS flavour.
    """
    lay = _Layout(model, style)
    with atomic_open(path, "wb") as f:
        _write_stream(f, model, lay)
    if style == "fixed":
        _write_names_map(model, lay, names_map_path(path))


def export(model: Model, directory: str | os.PathLike, *, mps_style: str = "free") -> list[Path]:
    """``model.mps`` (free); with ``mps_style`` fixed or both also ``model_fixed.mps`` + its names map.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    mps_style : {'free', 'fixed', 'both'}
        Which files.
    """
    if mps_style not in ("free", "fixed", "both"):
        raise FormatError(f"mps: unknown mps_style {mps_style!r}; expected free, fixed or both")
    d = Path(directory)
    write(model, d / "model.mps")
    written = [d / "model.mps"]
    if mps_style in ("fixed", "both"):
        write(model, d / "model_fixed.mps", style="fixed")
        written += [d / "model_fixed.mps", names_map_path(d / "model_fixed.mps")]
    return written


def describe(model: Model, *, mps_style: str = "free") -> dict:
    """The manifest's record of the MPS files: styles written and the fixed-format name rule.

    Parameters
    ----------
    model : Model
        The model to write.
    mps_style : {'free', 'fixed', 'both'}
        Which files (the fixed names map).
    """
    entry: dict[str, object] = {"styles": ["free"] + (["fixed"] if mps_style in ("fixed", "both") else [])}
    if mps_style in ("fixed", "both"):
        entry["fixed_names"] = fixed_name_rule()
    return entry


register(Format("mps", (".mps",), "MPS, free (default) or fixed (style='fixed', short names + map)",
                export=export, write=write, read=read, describe=describe,
                file_names=("model.mps", "model_fixed.mps", names_map_path("model_fixed.mps").name), cost=0.6, one_file=True, gzip=True))
