"""DIMACS CNF: every ``= 1`` row as one at-least-one clause plus an at-most-one encoding.

The clauses are :mod:`pipeline.core.clauses`' (:func:`~pipeline.core.clauses.encode`, option
``amo``); this module renders them as text, reads DIMACS files back, and records the encoding's
facts. Variable ``v`` is the convention's 0-based position + 1 (``docs/conventions.md``, section
CNF/OPB), so cell variables are ``1..N^3`` in every clue encoding; auxiliary variables of the
at-most-one encoding follow, ``N^3 + 1 ..``, a contiguous block per row in the solver view's row
order. The clauses come as int64 chunks and are rendered chunk by chunk (:func:`render_tokens`),
so the empty 100x100 is written with no Python object per clause.

Clue encodings: ``rows`` gives each clue a unit clause (its one-literal row), ``bounds`` writes
``lb = 1`` as unit clauses after the rows, ``reduce`` writes the kept rows over the kept
columns only (the kept-column map is "by number": the cell variables the clauses use).

``c`` comment lines carry the manifest metadata (:func:`pipeline.core.manifest.comment_line`) and the
CNF facts (``c sudoku-pipeline-cnf: {...}``: encoding, cell and auxiliary variable ranges).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.clauses import DEFAULT_AMO, encode, iter_clause_tokens
from pipeline.core.conventions import make_convention
from pipeline.core.errors import FormatError
from pipeline.core.manifest import COMMENT_TAG, model_metadata, parse_comment_line

from formats.base import Format, ModelData, atomic_open, open_text, register

CNF_TAG = "sudoku-pipeline-cnf:"


# ----------------------------------------------------------------------------------------------
# rendering integers as text, vectorised
# ----------------------------------------------------------------------------------------------
def render_tokens(values: np.ndarray, *, prefix: bytes = b"", sep: bytes = b" ", line_end: bytes = b"\n",
                  ends_line: np.ndarray | None = None) -> bytes:
    """``prefix + str(value)`` for each value, followed by ``sep`` or, where ``ends_line``,
    ``line_end``: the integer text of DIMACS clauses and OPB rows.

    Every value is rendered into one row of a fixed-width byte table (prefix, right-aligned
    digits and sign, ending), one vectorised pass per digit column; a boolean mask of the bytes
    in use then packs the table row by row into the output. No Python work per value.

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
    if ends_line is None:
        ends_line = np.zeros(n, dtype=bool)
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


def _dimacs_text(tokens: np.ndarray) -> bytes:
    return render_tokens(tokens, ends_line=tokens == 0)


# ----------------------------------------------------------------------------------------------
# writer
# ----------------------------------------------------------------------------------------------
def cnf_metadata(model: Model) -> dict:
    """The manifest metadata the ``c`` line carries (kept columns: the variables used)."""
    meta = model_metadata(model, with_columns=False)
    if model.is_reduced:
        meta["kept_columns"] = "by number"
    return meta


def write(model: Model, path: str | os.PathLike, amo: str | None = DEFAULT_AMO) -> None:
    """Write ``model`` as DIMACS CNF to ``path`` (``.gz`` compressed), atomically.

    Parameters
    ----------
    model : Model
    path : str or Path
    amo : str
        At-most-one encoding: ``auto`` (default), or one of :data:`pipeline.core.clauses.AMO_ENCODINGS`.

    Raises
    ------
    FormatError
        Unknown encoding, an objective, or python-sat missing for a pysat encoding.
    """
    enc = encode(model, amo)
    head = (f"c {COMMENT_TAG} {json.dumps(cnf_metadata(model), separators=(',', ':'))}\n"
            f"c {CNF_TAG} {json.dumps(enc.facts(), separators=(',', ':'))}\n"
            f"p cnf {enc.n_vars} {enc.n_clauses}\n")
    with atomic_open(path, "wb") as f:
        f.write(head.encode())
        for tokens in iter_clause_tokens(enc):
            f.write(_dimacs_text(tokens))


def export(model: Model, directory: str | os.PathLike, *, amo: str | None = DEFAULT_AMO) -> list[Path]:
    """Write ``model.cnf`` into ``directory``; returns ``[path]``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    amo : str
        At-most-one encoding.
    """
    path = Path(directory) / "model.cnf"
    write(model, path, amo=amo)
    return [path]


def describe(model: Model, *, amo: str | None = DEFAULT_AMO) -> dict:
    """The CNF facts for the manifest (encoding, variable ranges, auxiliary rule).

    Parameters
    ----------
    model : Model
        The model to write.
    amo : str
        At-most-one encoding.
    """
    return encode(model, amo).facts()


# ----------------------------------------------------------------------------------------------
# reader
# ----------------------------------------------------------------------------------------------
@dataclass
class CnfFile:
    """A DIMACS file as read: header counts, all clause literals (0-terminated), comments."""

    n_vars: int
    n_clauses: int
    tokens: np.ndarray
    metadata: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)

    @property
    def clause_ends(self) -> np.ndarray:
        return np.flatnonzero(self.tokens == 0)

    def clauses(self) -> list[list[int]]:
        """Clauses as lists (small files)."""
        out, start = [], 0
        flat = self.tokens.tolist()
        for end in self.clause_ends.tolist():
            out.append(flat[start:end])
            start = end + 1
        return out


def read_cnf(path: str | os.PathLike) -> CnfFile:
    """Parse a DIMACS CNF file (any solver's), with the pipeline's metadata if present.

    Raises
    ------
    FormatError
        No ``p cnf`` header, a non-integer token, a literal beyond the header's variable count,
        a clause count that differs from the header, or an unterminated last clause.
    """
    where = str(path)
    with open_text(path, where) as f:
        text = f.read()
    meta, facts = {}, {}
    header = None
    body_start = 0
    pos = 0
    while pos < len(text):  # comments and the header come first
        nl = text.find("\n", pos)
        nl = len(text) if nl < 0 else nl
        line = text[pos:nl].strip()
        if line.startswith("c") or not line:
            if CNF_TAG in line:
                try:
                    facts = json.loads(line.split(CNF_TAG, 1)[1])
                except json.JSONDecodeError:
                    raise FormatError(f"{where}: unreadable {CNF_TAG} comment") from None
            elif COMMENT_TAG in line:
                meta = parse_comment_line(line) or {}
            pos = nl + 1
            continue
        if line.startswith("p"):
            parts = line.split()
            if len(parts) != 4 or parts[1] != "cnf" or not (parts[2].isdigit() and parts[3].isdigit()):
                raise FormatError(f"{where}: bad header {line!r}; expected 'p cnf <variables> <clauses>'")
            header = (int(parts[2]), int(parts[3]))
            body_start = nl + 1
            break
        raise FormatError(f"{where}: expected 'p cnf' before the clauses, found {line[:40]!r}")
    if header is None:
        raise FormatError(f"{where}: no 'p cnf <variables> <clauses>' header")
    body = text[body_start:]
    if "c" in body:  # comment lines between clauses (allowed by some tools)
        body = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("c"))
    words = body.split()
    try:
        tokens = np.array(words, dtype=np.int64)
    except (ValueError, OverflowError):
        bad = next(w for w in words if not w.lstrip("-").isdigit())
        raise FormatError(f"{where}: {bad!r} is not an integer literal") from None
    n_vars, n_clauses = header
    if tokens.size and tokens[-1] != 0:
        raise FormatError(f"{where}: truncated: the last clause has no terminating 0")
    if tokens.size and np.abs(tokens).max() > n_vars:
        raise FormatError(f"{where}: literal {int(np.abs(tokens).max())} exceeds the header's {n_vars} variables")
    found = int((tokens == 0).sum())
    if found != n_clauses:
        raise FormatError(f"{where}: header says {n_clauses} clauses, found {found}")
    return CnfFile(n_vars, n_clauses, tokens, meta, facts)


def read(path: str | os.PathLike) -> ModelData:
    """A pipeline CNF back to :class:`ModelData`: the at-least-one clauses (all-positive clauses
    over cell variables) are the ``= 1`` rows; positive units are ``lb = 1`` for the ``bounds``
    encoding; negative cell units are ``ub = 0``. Columns are the cell variables (all of them,
    or for ``reduce`` those the clauses use). CNF has no row names: ``row_labels`` is None.

    Raises
    ------
    FormatError
        The file lacks the pipeline's metadata comment (a foreign CNF: use :func:`read_cnf`).
    """
    cnf = read_cnf(path)
    where = str(path)
    meta = cnf.metadata
    if not meta:
        raise FormatError(f"{where}: no '{COMMENT_TAG}' comment: not a pipeline CNF (read_cnf reads any DIMACS)")
    try:
        n = int(meta["n"]) if "n" in meta else int(meta["h"]) * int(meta["w"])
        conv = make_convention(meta["scheme"], meta["order"], int(meta["h"]), int(meta["w"]), meta.get("variant", "classic"))
        encoding = meta["clue_encoding"]
    except (KeyError, TypeError, ValueError) as e:
        raise FormatError(f"{where}: metadata comment lacks {e}") from None
    n_cells = n ** 3
    tokens = cnf.tokens
    ends = cnf.clause_ends
    starts = np.concatenate([[0], ends[:-1] + 1])
    length = ends - starts
    clause_of = np.repeat(np.arange(ends.size), length + 1)
    lits = tokens
    bad = (lits < 0) | (lits > n_cells)
    is_positive_cells = np.bincount(clause_of, weights=bad, minlength=ends.size) == 0
    unit = length == 1
    bound_units = unit & ~is_positive_cells | (unit & is_positive_cells & (encoding == "bounds"))
    row_clauses = is_positive_cells & ~bound_units
    first = tokens[starts]
    lb_vars = first[bound_units & (first > 0)]
    ub_vars = -first[bound_units & (first < 0) & (-first <= n_cells)]
    keep_lit = np.repeat(row_clauses, length + 1) & (tokens != 0)
    row_lit = tokens[keep_lit] - 1
    row_len = length[row_clauses]
    if encoding == "reduce":
        columns = np.unique(row_lit)
    else:
        columns = np.arange(n_cells)
    col = np.searchsorted(columns, row_lit)
    indptr = np.concatenate([[0], np.cumsum(row_len)])
    a = sp.csr_matrix((np.ones(row_lit.size), col, indptr), shape=(row_len.size, columns.size))
    lb = np.zeros(columns.size)
    ub = np.ones(columns.size)
    lb[np.searchsorted(columns, lb_vars - 1)] = 1.0
    ub[np.searchsorted(columns, ub_vars - 1)] = 0.0
    ones = np.ones(row_len.size)
    if encoding == "reduce" and meta.get("kept_columns") == "by number":
        meta = {**meta, "kept_columns": columns.tolist()}
    return ModelData(a, ones, ones.copy(), lb, ub, np.zeros(columns.size), np.ones(columns.size, dtype=bool),
                     None, conv.names(columns), meta)


register(Format("cnf", (".cnf", ".dimacs"), "DIMACS CNF (exactly-one rows; option amo)",
                export=export, write=write, read=read, describe=describe))
