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
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import COMMENT_TAG, comment_line, parse_comment_line

from formats.base import Format, ModelData, atomic_open, constraint_rows, open_binary, register
from formats.text import BLANK, bytes_table, NameDictionary, Tokens, decimal_table, number_strings, word_width

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
COMMENT_CONTINUATION = "*+ "
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


def _column_table(model) -> np.ndarray:
    """``model.col_names`` as an (n, width) byte table, left-aligned and blank-padded: the
    convention's :meth:`~pipeline.core.conventions.Convention.name_table` with its zero padding made
    blanks (every name byte is above the blank, so a maximum does it in place)."""
    table = model.convention.name_table(model.columns)
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
        self.constraints = constraint_rows(model)
        m, n = self.constraints.n_rows, model.n_cols
        if style == "free":
            self.cols = _column_table(model)
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


def _pair_lines(lay: _Layout, cols, rows, vals) -> np.ndarray:
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
    lines = _render([lay.col_lead, (lay.cols, cols[first]), lay.sep] + pair +
                    [(lay.rows, rows[second]), lay.values(vals[second]), b"\n"], first.size)
    if single.any():
        head = len(lay.col_lead) + lay.cols.shape[1] + len(lay.sep)
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
                _emit(f, _pair_lines(lay, cols, rows, vals))
            else:
                _emit(f, _render([lay.col_lead, (lay.cols, cols), lay.sep, (lay.rows, rows), lay.values(vals),
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
        tail = [lay.bound_gap, (lay.cols, cols)]
        block = np.empty((k, 2, 1 + 2 + _part_width(lay.bound_gap) + lay.cols.shape[1] + width + 1), np.uint8)
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


def names_map_path(path: str | os.PathLike) -> Path:
    """``<stem>_names.csv`` beside a fixed MPS file (``.csv.gz`` when the MPS is gzipped)."""
    path = Path(path)
    name = path.name
    gz = name.lower().endswith(".gz")
    stem = name[:-3] if gz else name
    if stem.lower().endswith(".mps"):
        stem = stem[:-4]
    return path.with_name(stem + "_names.csv" + (".gz" if gz else ""))


def _write_names_map(model, lay: _Layout, path) -> Path:
    """``short,long`` lines: the objective, the rows, then the columns."""
    def unpadded(table):
        return np.where(table == _BLANK, 0, table).astype(np.uint8)

    short_rows = unpadded(np.concatenate([lay.rows[-1:], lay.rows[:-1]]))
    long_rows = bytes_table(np.concatenate([np.array([OBJ_FREE.encode()]), np.asarray(lay.constraints.labels, dtype="S")]))
    with atomic_open(path, "wb") as f:
        f.write(b"short,long\n")
        _emit(f, _render([short_rows, b",", long_rows, b"\n"], short_rows.shape[0]), strip=True)
        long_cols = model.convention.name_table(model.columns)
        for c0 in range(0, model.n_cols, _CHUNK):
            c1 = min(model.n_cols, c0 + _CHUNK)
            _emit(f, _render([lay.cols[c0:c1], b",", long_cols[c0:c1], b"\n"], c1 - c0), strip=True)
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


# ---------------------------------------------------------------------------------------------
# reader: the file is one bytes object; each section is split into tokens by numpy in blocks of
# lines; names become fixed-width keys (uint64 words) hashed and checked exactly, so neither a
# line nor a token ever becomes a Python object.
# ---------------------------------------------------------------------------------------------
_SECTIONS = ("NAME", "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "ENDATA", "OBJSENSE", "OBJSENCE", "OBJNAME")
_READ_LINES = 1 << 19          # lines tokenised per block
_MAX_TOKEN = 256               # longest name or number accepted
_HEAD_BYTES = 4096             # an empty-file check looks at this much before copying the whole file
_PAD = _MAX_TOKEN + 8          # blanks after a block so that a token's key window never overruns


class _Lines:
    """The file as one bytes object with line offsets (no Python object per line)."""

    def __init__(self, raw: bytes, where: str):
        self.raw, self.where = raw, where
        self.arr = np.frombuffer(raw, dtype=np.uint8)
        nl = np.flatnonzero(self.arr == 10)
        self.starts = np.concatenate([[0], nl + 1])
        self.ends = np.append(nl, len(raw))
        if raw.endswith(b"\n"):                  # no phantom empty line after the last newline
            self.starts, self.ends = self.starts[:-1], self.ends[:-1]
        nonempty = self.ends > self.starts
        self.first = np.full(self.starts.size, 10, dtype=np.uint8)
        self.first[nonempty] = self.arr[self.starts[nonempty]]

    def __len__(self):
        return self.starts.size

    def text(self, i: int) -> str:
        return self.raw[self.starts[i]:self.ends[i]].decode("utf-8", "replace").rstrip("\r")

    def error(self, i: int, message: str) -> FormatError:
        """FormatError naming the file and the 1-based line of 0-based line ``i``."""
        return FormatError(f"{self.where}: line {i + 1}: {message}")

    def blocks(self, lo: int, hi: int):
        for l0 in range(lo, hi, _READ_LINES):
            yield _Block(self, l0, min(hi, l0 + _READ_LINES))


class _Block:
    """Tokens (:class:`~formats.text.Tokens`) of lines ``[l0, l1)`` with each line's first
    token and token count; comment lines (``*`` in column 1) have no fields."""

    def __init__(self, lines: _Lines, l0: int, l1: int):
        self.lines, self.l0 = lines, l0
        s, e = int(lines.starts[l0]), int(lines.ends[l1 - 1])
        b = np.full(e - s + _PAD, BLANK, dtype=np.uint8)   # the pad: key windows never overrun
        b[:e - s] = lines.arr[s:e]
        self.tokens = tok = Tokens(b)
        self.length = tok.lengths
        first = np.searchsorted(tok.starts, lines.starts[l0:l1] - s)
        count = np.diff(np.append(first, len(tok)))
        count[lines.first[l0:l1] == ord("*")] = 0
        self.first, self.count = first, count
        if self.length.size and self.length.max() > _MAX_TOKEN:   # key windows must stay in the pad
            for t in np.flatnonzero(self.length > _MAX_TOKEN).tolist():
                k = int(np.searchsorted(first, t, side="right")) - 1
                if t < first[k] + count[k]:          # not inside a comment line
                    raise self.error(k, f"field longer than {_MAX_TOKEN} characters")

    def line(self, k) -> int:
        """0-based file line of the block's line ``k``."""
        return self.l0 + int(k)

    def error(self, k, message: str) -> FormatError:
        return self.lines.error(self.line(k), message)

    def codes(self, tok: np.ndarray, size: int) -> np.ndarray:
        """Upper-cased tokens of ``size`` bytes as integers (-1 for other lengths)."""
        window = self.tokens.fixed(tok, size, case="upper").astype(np.int64)
        code = np.zeros(tok.size, dtype=np.int64)
        for i in range(size):
            code = code * 256 + window[:, i]
        return np.where(self.length[tok] == size, code, -1)

    def numbers(self, tok: np.ndarray, what: str, rows: np.ndarray) -> np.ndarray:
        """Tokens -> floats; FormatError naming the line of the first that is not a number."""
        return self.tokens.numbers(tok, lambda j, text: self.error(rows[j], f"bad number {text!r} ({what})"))


def _join(parts: list, dtype) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


def _shown(block: "_Block", tok: int) -> str:
    """One token as text, for an error message."""
    return _names(block, np.array([tok]))[0].decode("utf-8", "replace")


def _lookup(block: _Block, table: NameDictionary, tok: np.ndarray) -> np.ndarray:
    """Table index of each token (-1 if absent; tokens longer than every name are absent)."""
    fits = block.length[tok] <= table.width
    out = np.full(tok.size, -1, dtype=np.int64)
    out[fits] = table.lookup(block.tokens.words(tok[fits], table.width))
    return out


def _names(block: _Block, tok: np.ndarray) -> np.ndarray:
    """Tokens as an 'S' array."""
    return block.tokens.strings(tok)


def _to_str(names: np.ndarray) -> np.ndarray:
    try:
        return names.astype(str)
    except UnicodeDecodeError:
        return np.char.decode(names, "utf-8", errors="replace")


def _live_lines(block: _Block, allowed: tuple[int, ...], what: str) -> np.ndarray:
    """Lines of the block with fields, checking their field counts."""
    live = np.flatnonzero(block.count > 0)
    bad = ~np.isin(block.count[live], allowed)
    if bad.any():
        k = live[np.flatnonzero(bad)[0]]
        raise block.error(k, f"{what} line with {block.count[k]} fields (expected "
                             f"{' or '.join(map(str, allowed))})")
    return live


def _read_rows(lines: _Lines, lo: int, hi: int):
    """(type letters as uint8, names as 'S', their name table) of the ROWS section."""
    kind_parts: list[np.ndarray] = []
    name_parts: list[np.ndarray] = []
    at_parts: list[np.ndarray] = []
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (2,), "ROWS")
        code = block.codes(block.first[live], 1)
        bad = ~np.isin(code, [ord(c) for c in "NELG"])
        if bad.any():
            k = live[np.flatnonzero(bad)[0]]
            raise block.error(k, f"unknown row type {_shown(block, block.first[k])!r} (expected N, E, L or G)")
        kind_parts.append(code.astype(np.uint8))
        name_parts.append(_names(block, block.first[live] + 1))
        at_parts.append(block.l0 + live)
    kinds, names, at = _join(kind_parts, np.uint8), _join(name_parts, "S1"), _join(at_parts, np.int64)
    table = NameDictionary(names)
    if table.duplicates.size:
        k = int(table.duplicates[0])
        raise lines.error(int(at[k]), f"row {names[k].decode('utf-8', 'replace')!r} declared twice")
    return kinds, names, table


def _read_columns(lines: _Lines, lo: int, hi: int, rows: NameDictionary):
    """Columns (names 'S', integer flags) and entries (column, row, value) of COLUMNS."""
    run_names, run_lines, run_int = [], [], []
    cols, ents, vals = [], [], []
    integer_state = False
    last_name = None
    n_runs = 0
    marker, intorg, intend = (int.from_bytes(s.ljust(8, b"\0"), "little") for s in
                              (b"'MARKER'", b"'INTORG'", b"'INTEND'"))
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (3, 5), "COLUMNS")
        f1 = block.first[live] + 1
        is_marker = np.zeros(live.size, dtype=bool)
        maybe = block.length[f1] == 8
        is_marker[maybe] = _upper_words(block, f1[maybe]) == marker
        # integer state of each data line: the kind of the last marker above it
        state = np.full(live.size, integer_state)
        if is_marker.any():
            mk = np.flatnonzero(is_marker)
            kind = np.where(block.length[f1[mk] + 1] == 8, _upper_words(block, f1[mk] + 1), 0)
            bad = (kind != intorg) & (kind != intend)
            if bad.any():
                k = live[mk[np.flatnonzero(bad)[0]]]
                raise block.error(k, "unknown marker (expected 'INTORG' or 'INTEND')")
            latest = np.searchsorted(mk, np.arange(live.size), side="right") - 1
            has = latest >= 0
            state[has] = kind[latest[has]] == intorg
            integer_state = bool(kind[-1] == intorg)
        data = live[~is_marker]
        state = state[~is_marker]
        if data.size == 0:
            continue
        col_tok = block.first[data]
        width = word_width(block.length[col_tok].max(initial=1))
        words = block.tokens.words(col_tok, width)
        new = np.ones(data.size, dtype=bool)
        new[1:] = (words[1:] != words[:-1]).any(axis=1)
        names = _names(block, col_tok[new])
        if last_name is not None and names[0] == last_name:
            new[0] = False                       # the column goes on from the previous block
            names = names[1:]
        col_id = n_runs - 1 + np.cumsum(new)
        n_runs += names.size
        if names.size:
            last_name = names[-1]
        run_names.append(names)
        run_lines.append(block.l0 + data[new])
        run_int.append(state[new])
        pair = block.count[data] == 5
        tok_row = np.concatenate([col_tok + 1, col_tok[pair] + 3])
        tok_val = tok_row + 1
        line_of = np.concatenate([data, data[pair]])
        r = _lookup(block, rows, tok_row)
        if (r < 0).any():
            k = int(np.flatnonzero(r < 0)[0])
            raise block.error(line_of[k], f"unknown row {_shown(block, tok_row[k])!r}")
        cols.append(np.concatenate([col_id, col_id[pair]]))
        ents.append(r)
        vals.append(block.numbers(tok_val, "COLUMNS value", line_of))
    names = _join(run_names, "S1")
    table = NameDictionary(names)
    if table.duplicates.size:
        k = int(table.duplicates[0])
        raise lines.error(int(np.concatenate(run_lines)[k]),
                          f"column {names[k].decode('utf-8', 'replace')!r} continues after other columns "
                          "(a column's entries must be contiguous)")
    return names, table, _join(run_int, bool), _join(cols, np.int64), _join(ents, np.int64), _join(vals, float)


def _upper_words(block: _Block, tok: np.ndarray) -> np.ndarray:
    """8-byte tokens, upper-cased, as one little-endian integer each."""
    w = np.ascontiguousarray(block.tokens.fixed(tok, 8, case="upper"))
    return w.view("<u8").ravel().astype(np.int64) if tok.size else np.zeros(0, np.int64)


def _read_rhs(lines: _Lines, lo: int, hi: int, rows: NameDictionary):
    """(row index, value) pairs of an RHS section; the set name is optional (fixed files may
    leave it blank), so 3 or 5 fields mean a set name leads, 2 or 4 that it does not."""
    idx, vals = [], []
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (2, 3, 4, 5), "RHS")
        count = block.count[live]
        first = block.first[live] + count % 2
        two = count - count % 2 == 4
        tok_row = np.concatenate([first, first[two] + 2])
        line_of = np.concatenate([live, live[two]])
        r = _lookup(block, rows, tok_row)
        if (r < 0).any():
            k = int(np.flatnonzero(r < 0)[0])
            raise block.error(line_of[k], f"unknown row {_shown(block, tok_row[k])!r}")
        idx.append(r)
        vals.append(block.numbers(tok_row + 1, "RHS value", line_of))
    return _join(idx, np.int64), _join(vals, float)


_BOUND_TYPES = {name: (ord(name[0]) << 8) | ord(name[1]) for name in
                ("UP", "LO", "FX", "LI", "UI", "MI", "PL", "FR", "BV")}


def _last_per_column(target: np.ndarray, cols: np.ndarray, mask: np.ndarray, values: np.ndarray) -> None:
    """``target[cols[mask]] = values[mask]`` where the last line of a column wins (file order)."""
    sel = np.flatnonzero(mask)[::-1]
    if sel.size:
        c, first = np.unique(cols[sel], return_index=True)
        target[c] = values[sel[first]]


def _read_bounds(lines: _Lines, lo: int, hi: int, columns: NameDictionary, lb, ub, integer) -> None:
    """Apply a BOUNDS section (UP LO FX LI UI MI PL FR BV) to ``lb``, ``ub``, ``integer``."""
    kinds: list[np.ndarray] = []
    col_parts: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    t = _BOUND_TYPES
    valued_types = [t[k] for k in ("UP", "LO", "FX", "LI", "UI")]
    for block in lines.blocks(lo, hi):
        live = _live_lines(block, (2, 3, 4), "BOUNDS")
        count = block.count[live]
        first = block.first[live]
        kind = block.codes(first, 2)
        known = np.isin(kind, list(t.values()))
        if (~known).any():
            k = live[np.flatnonzero(~known)[0]]
            raise block.error(k, f"unknown bound type {_shown(block, block.first[k])!r}")
        valued = np.isin(kind, valued_types)
        # "type [set] column [value]": value types need the value; MI/PL/FR ignore a trailing
        # one; "BV a b" is "BV set column" when b names a column, else "BV column value"
        col_field = np.where(valued, count - 2, np.where(count >= 4, 2, count - 1))
        bv3 = np.flatnonzero((kind == t["BV"]) & (count == 3))
        if bv3.size:
            col_field[bv3] = np.where(_lookup(block, columns, first[bv3] + 2) >= 0, 2, 1)
        bad = np.flatnonzero(col_field < 1)                 # a value type with one field after it
        if bad.size:
            raise block.error(live[bad[0]], "a bound needs a column and a value")
        tok_col = first + col_field
        c = _lookup(block, columns, tok_col)
        if (c < 0).any():
            j = int(np.flatnonzero(c < 0)[0])
            raise block.error(live[j], f"bound on unknown column {_shown(block, tok_col[j])!r}")
        v = np.full(live.size, np.nan)
        sel = np.flatnonzero(valued)
        v[sel] = block.numbers(tok_col[sel] + 1, "bound value", live[sel])
        kinds.append(kind)
        col_parts.append(c)
        vals.append(v)
    if not kinds:
        return
    kind, cols, values = _join(kinds, np.int64), _join(col_parts, np.int64), _join(vals, float)
    is_ = {k: kind == code for k, code in t.items()}
    sets_lb = is_["LO"] | is_["LI"] | is_["FX"] | is_["MI"] | is_["FR"] | is_["BV"]
    sets_ub = is_["UP"] | is_["UI"] | is_["FX"] | is_["PL"] | is_["FR"] | is_["BV"]
    # legacy rule shared by HiGHS and CPLEX: a negative UP on a column without a lower bound
    # frees it below
    had_lb = np.zeros(lb.size, dtype=bool)
    had_lb[cols[sets_lb]] = True
    neg_up = (is_["UP"] | is_["UI"]) & (values < 0) & ~had_lb[cols]
    lb_value = np.select([is_["MI"] | is_["FR"] | neg_up, is_["BV"]], [-np.inf, 0.0], values)
    ub_value = np.select([is_["PL"] | is_["FR"], is_["BV"]], [np.inf, 1.0], values)
    _last_per_column(lb, cols, sets_lb | neg_up, lb_value)
    _last_per_column(ub, cols, sets_ub, ub_value)
    integer[cols[is_["BV"] | is_["LI"] | is_["UI"]]] = True


def _names_map(path: Path) -> tuple[NameDictionary, np.ndarray] | None:
    """(short names, long names) of ``<stem>_names.csv`` (or ``.csv.gz``) beside a fixed file,
    tokenised like MPS (commas read as blanks: names hold neither)."""
    plain = names_map_path(path)
    for candidate in (plain, plain.with_name(plain.name + ".gz"), plain.with_name(plain.name.removesuffix(".gz"))):
        if not candidate.exists():
            continue
        with open_binary(candidate) as f:
            lines = _Lines(f.read().replace(b",", b" "), str(candidate))
        if len(lines) < 1 or lines.text(0).split() != ["short", "long"]:
            return None
        short, long = [], []
        for block in lines.blocks(1, len(lines)):
            live = _live_lines(block, (2,), "names map")
            short.append(_names(block, block.first[live]))
            long.append(_names(block, block.first[live] + 1))
        if not short:
            return None
        return NameDictionary(np.concatenate(short)), np.concatenate(long)
    return None


def _sections(lines: _Lines) -> list[tuple[str, int, str]]:
    """(keyword, line, rest of the line) for every header line (text from column 1)."""
    heads = np.flatnonzero(~np.isin(lines.first, np.frombuffer(b" \t*\r\n", dtype=np.uint8)))
    out = []
    for i in heads.tolist():
        word, _, rest = lines.text(i).partition(" ")
        key = word.strip().upper()
        if key not in _SECTIONS:
            raise lines.error(i, f"unknown section {word.strip()!r}")
        out.append((key, i, rest.strip()))
        if key == "ENDATA":
            return out
    raise FormatError(f"{lines.where}: line {len(lines)}: no ENDATA: the file is truncated or not MPS")


def _metadata(lines: _Lines, stop: int) -> dict:
    """The export metadata from the tagged comment before line ``stop``, joined with its
    ``*+ `` continuation lines ({} if there is none)."""
    comments = np.flatnonzero(lines.first[:stop] == ord("*")).tolist()
    for k, i in enumerate(comments):
        text = lines.text(i)
        if COMMENT_TAG in text:
            for j in comments[k + 1:]:
                more = lines.text(j)
                if j != i + 1 or not more.startswith(COMMENT_CONTINUATION):
                    break
                text, i = text + more[len(COMMENT_CONTINUATION):], j
            return parse_comment_line(text) or {}
    return {}


def _single_value(lines: _Lines, lo: int, hi: int, rest: str) -> str:
    """The argument of OBJSENSE / OBJNAME: on the header line or on the next data line."""
    if rest:
        return rest.split()[0]
    for i in range(lo, hi):
        if lines.first[i] != ord("*") and lines.text(i).strip():
            return lines.text(i).split()[0]
    return ""


def read(path: str | os.PathLike) -> ModelData:
    """Read free or fixed MPS (``.gz`` transparently) into ModelData; FormatError on bad files.

    Fields are split at blanks, so fixed files whose names contain blanks are not supported.
    A fixed file written by :func:`write` gets its long names back from ``<stem>_names.csv``.
    """
    path = Path(path)
    where = str(path)
    with open_binary(path, where) as f:
        try:
            raw = f.read()
        except (OSError, EOFError) as e:
            raise FormatError(f"{where}: cannot read: {e}") from None
    if not raw[:_HEAD_BYTES].strip() and not raw.strip():      # strip() copies: look at the head first
        raise FormatError(f"{where}: line 1: empty file: not MPS")
    lines = _Lines(raw, where)
    sections = _sections(lines)
    heads = [i for _, i, _ in sections] + [len(lines)]
    stray = np.flatnonzero(~np.isin(lines.first[:heads[0]], np.frombuffer(b"*\r\n", dtype=np.uint8)))
    if stray.size:
        raise lines.error(int(stray[0]), "data line before any section")
    found: dict[str, tuple[int, int, int, str]] = {}
    for s, (key, i, rest) in enumerate(sections):
        key = "OBJSENSE" if key == "OBJSENCE" else key
        if key in found:
            raise lines.error(i, f"section {key} appears twice")
        found[key] = (i, i + 1, heads[s + 1], rest)
    order = [key for key, _, _ in sections]
    for key, before in (("COLUMNS", "ROWS"), ("RHS", "COLUMNS"), ("BOUNDS", "COLUMNS")):
        if key in found and (before not in found or order.index(before) > order.index(key)):
            raise lines.error(found[key][0], f"section {key} before {before}")
    if "RANGES" in found:
        raise lines.error(found["RANGES"][0], "RANGES section is not supported")
    if "ROWS" not in found:
        raise FormatError(f"{where}: line {len(lines)}: no ROWS section")
    metadata = _metadata(lines, found["ROWS"][0])
    if "OBJSENSE" in found:
        i, lo, hi, rest = found["OBJSENSE"]
        sense = _single_value(lines, lo, hi, rest)
        if sense.upper() not in ("MIN", "MINIMIZE", "MINIMISE"):
            raise lines.error(i, f"OBJSENSE {sense or '(empty)'} is not supported: only minimisation")
    objective_name = _single_value(lines, *found["OBJNAME"][1:]) if "OBJNAME" in found else ""

    kinds, row_names, rows = _read_rows(lines, *found["ROWS"][1:3])
    if "COLUMNS" in found:
        col_names, columns, integer, col_of, entry_rows, values = _read_columns(lines, *found["COLUMNS"][1:3], rows)
    else:
        col_names, columns = np.zeros(0, "S1"), NameDictionary(np.zeros(0, "S1"))
        integer, col_of, entry_rows, values = np.zeros(0, bool), np.zeros(0, int), np.zeros(0, int), np.zeros(0)
    n = col_names.size
    lb, ub = np.zeros(n), np.full(n, np.inf)
    if "BOUNDS" in found:
        _read_bounds(lines, *found["BOUNDS"][1:3], columns, lb, ub, integer)
    rhs = np.zeros(kinds.size)
    if "RHS" in found:
        r, v = _read_rhs(lines, *found["RHS"][1:3], rows)
        rhs[r] = v

    # the objective: OBJNAME, else the first N row; further N rows are free rows and dropped
    free_rows = np.flatnonzero(kinds == ord("N"))
    if objective_name:
        obj = int(rows.indices(np.array([objective_name.encode()]))[0])
        if obj < 0 or kinds[obj] != ord("N"):
            raise lines.error(found["OBJNAME"][0], f"OBJNAME {objective_name!r} is not an N row")
    else:
        obj = int(free_rows[0]) if free_rows.size else -1
    constraint = np.flatnonzero(kinds != ord("N"))
    new_index = np.full(kinds.size, -1)
    new_index[constraint] = np.arange(constraint.size)
    cost = np.zeros(n)
    is_obj = entry_rows == obj
    np.add.at(cost, col_of[is_obj], values[is_obj])
    keep = (new_index[entry_rows] >= 0) & (values != 0)
    aeq = sp.csr_matrix((values[keep], (new_index[entry_rows[keep]], col_of[keep])), shape=(constraint.size, n))
    aeq.sum_duplicates()
    if obj >= 0 and rhs[obj] != 0:
        metadata = {**metadata, "objective_constant": -float(rhs[obj])}
    ck, cr = kinds[constraint], rhs[constraint]
    row_lower = np.where(ck == ord("L"), -np.inf, cr)
    row_upper = np.where(ck == ord("G"), np.inf, cr)

    row_names = row_names[constraint]
    mapping = _names_map(path) if n and re.fullmatch(rb"C\d{7}", col_names[0]) else None
    if mapping is not None:                 # a fixed file of ours: long names from the map
        short, long = mapping
        ci, ri = short.indices(col_names), short.indices(row_names)
        if (ci >= 0).all() and (ri >= 0).all():
            col_names, row_names = long[ci], long[ri]
    return ModelData(aeq, row_lower, row_upper, lb, ub, cost, integer, _to_str(row_names), _to_str(col_names),
                     metadata)


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
                export=export, write=write, read=read, describe=describe))
