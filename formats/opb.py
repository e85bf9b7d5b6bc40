"""OPB, the pseudo-Boolean competition format: ``+1 x1 +1 x2 ... = 1 ;`` per ``= 1`` row.

Rules beyond units are general linear rows, written natively with their integer coefficients:
an ``=`` row of ``Aeq`` as it is (a cage sum ``+1 x12 +2 x13 ... +9 x20 = 17 ;``), a ``<=`` row of
``Aineq`` as its negation with ``>=`` (OPB has ``>=`` and ``=``): ``x + y <= 1`` is
``-1 x +1 ... >= -1 ;``. Rows come in the solver view's order (``Aeq``, then ``Aineq``), then the
bound lines; the reader reads a ``>=`` row of a pipeline file back as the ``<=`` row it negates,
and tells rows from bound lines by the counts of the metadata (``rows``, ``inequalities``).

Variables are named ``x<v>`` with ``v`` = the convention's 0-based position + 1, the numbering
of the CNF file (``docs/conventions.md``, section CNF/OPB); the manifest records the rule.
``bounds`` writes ``lb = 1`` as ``+1 xv >= 1 ;`` after the rows; ``reduce`` names only the kept
columns. A zero objective writes no ``min:`` line (a decision problem); integer costs are
written as ``min: +c xv ... ;``. The header is ``* #variable= V #constraint= C`` with ``V = N^3``
(the largest index), then ``* sudoku-pipeline: {...}`` carries the manifest metadata.
SCIP (pyscipopt ``readProblem``), minisat+ and sat4j read these files.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.errors import clip, FormatError, shortened
from pipeline.core.manifest import COMMENT_TAG, aux_count, column_names, model_metadata, parse_comment_line

from formats.base import Format, ModelData, atomic_open, constraint_rows, open_text, register
from formats.files import is_count
from formats.agree import refuse_disagreement
from formats.cnf import convention_of, render_tokens
from formats.text import digits_table

_CHUNK_NONZEROS = 1 << 20
# integers of at most 18 digits: every one fits the int64 arrays they are read into (a longer one
# is a bad term, as 1e400 is, not an OverflowError)
_TERM = re.compile(r"^([+-]?\d{1,18})$")
_VAR = re.compile(r"^x(\d{1,18})$")
# the competition header solvers size their arrays by (minisat+, sat4j): compared with the file
_HEADER = re.compile(r"^\*\s*#variable=\s*(\S+)\s+#constraint=\s*(\S+)")


def opb_metadata(model: Model) -> dict:
    meta = model_metadata(model, with_columns=False)
    if model.is_reduced:
        meta["kept_columns"] = "by name"
    return meta


def _integer_costs(model: Model) -> np.ndarray | None:
    cost = model.cost
    if model.objective is None or not np.any(cost):
        return None
    if not np.all(np.isfinite(cost)) or np.any(cost != np.rint(cost)):
        raise FormatError("opb: objective costs must be integers in an OPB file")
    return cost.astype(np.int64)


def write(model: Model, path: str | os.PathLike) -> None:
    """Write ``model`` as an OPB file (``.gz`` compressed), atomically.

    Parameters
    ----------
    model : Model
    path : str or Path

    Raises
    ------
    FormatError
        Non-integer objective costs or coefficients.
    """
    rows_of = constraint_rows(model)
    a = rows_of.matrix.tocsr()
    a.sort_indices()
    var = model.columns.astype(np.int64) + 1
    lengths = np.diff(a.indptr)
    if (lengths == 0).any():   # a reduced model's row its clues settled: 0 = b, or 0 <= b
        a, lengths = _with_zero_terms(a, lengths == 0)
    lb_vars = var[model.lb > 0]
    cost = _integer_costs(model)
    n_cons = a.shape[0] + lb_vars.size
    general = not (np.all(a.data == 1) and np.all(rows_of.rhs == 1) and rows_of.n_ineq == 0)
    if general and (np.any(a.data != np.rint(a.data)) or np.any(rows_of.rhs != np.rint(rows_of.rhs))):
        raise FormatError("opb: coefficients and right-hand sides must be integers in an OPB file")
    head = (f"* #variable= {model.n_positions} #constraint= {n_cons}\n"
            f"* {COMMENT_TAG} {json.dumps(opb_metadata(model), separators=(',', ':'))}\n"
            f"* variables: x<v>, v = position + 1 (docs/conventions.md)\n")
    with atomic_open(path, "wb") as f:
        f.write(head.encode())
        if cost is not None:
            nz = np.flatnonzero(cost)
            line = " ".join(f"{c:+d} x{v}" for c, v in zip(cost[nz].tolist(), var[nz].tolist()))
            f.write(f"min: {line} ;\n".encode())
        step = max(1, _CHUNK_NONZEROS // max(int(lengths.max(initial=1)), 1))
        if general:
            for lo in range(0, a.shape[0], step):
                f.write(_general_rows(a, var, rows_of, lo, min(lo + step, a.shape[0])))
        for lo in range(0, a.shape[0] if not general else 0, step):
            hi = min(lo + step, a.shape[0])
            cells = var[a.indices[a.indptr[lo]:a.indptr[hi]]]
            last = np.zeros(cells.size, dtype=bool)
            last[a.indptr[lo + 1:hi + 1] - a.indptr[lo] - 1] = True
            f.write(render_tokens(cells, prefix=b"+1 x", line_end=b" = 1 ;\n", ends_line=last))
        if lb_vars.size:
            f.write(render_tokens(lb_vars, prefix=b"+1 x", line_end=b" >= 1 ;\n",
                                  ends_line=np.ones(lb_vars.size, dtype=bool)))


def _with_zero_terms(a: sp.csr_matrix, empty: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """``a`` with a term ``+0 x<first column>`` in each ``empty`` row: OPB has no constraint
    without a term, and ``+0 x1 = 1 ;`` says what the row says (no solution: minisat+ and the
    reader answer so), as ``+0 x1 = 0 ;`` does for a row that holds."""
    import scipy.sparse as sp

    counts = np.diff(a.indptr) + empty
    indptr = np.concatenate([[0], np.cumsum(counts)])
    indices = np.zeros(int(indptr[-1]), dtype=a.indices.dtype)
    data = np.zeros(int(indptr[-1]), dtype=a.data.dtype)
    kept = np.ones(indices.size, dtype=bool)
    kept[indptr[:-1][empty]] = False   # the zero term is an empty row's only one
    indices[kept], data[kept] = a.indices, a.data
    return sp.csr_matrix((data, indices, indptr), shape=a.shape), counts


def _signed_table(values: np.ndarray) -> np.ndarray:
    """Integers as ``+3`` / ``-12`` in a right-aligned, NUL-padded byte table."""
    values = np.asarray(values, dtype=np.int64)
    digits = digits_table(np.abs(values))
    sign = np.where(values < 0, ord("-"), ord("+")).astype(np.uint8)
    out = np.zeros((values.size, digits.shape[1] + 1), np.uint8)
    out[:, 1:] = digits
    lead = np.argmax(digits != 0, axis=1) if digits.shape[1] else np.zeros(values.size, np.int64)
    out[np.arange(values.size), lead] = sign            # the sign right before the first digit
    return out


def _general_rows(a: sp.csr_matrix, var: np.ndarray, rows_of, lo: int, hi: int) -> bytes:
    """Rows ``lo..hi-1`` with any integer coefficients: ``+c x<v> ... = b ;`` for ``=`` rows,
    the negation ``-c x<v> ... >= -b ;`` for ``<=`` rows (one byte table, NULs dropped)."""
    p0, p1 = int(a.indptr[lo]), int(a.indptr[hi])
    less = rows_of.less[lo:hi]
    flip = np.where(less, -1, 1)
    counts = np.diff(a.indptr[lo:hi + 1])
    coef = (a.data[p0:p1] * np.repeat(flip, counts)).astype(np.int64)
    coef_t = _signed_table(coef)
    var_t = digits_table(var[a.indices[p0:p1]])
    terms = np.zeros((p1 - p0, coef_t.shape[1] + 2 + var_t.shape[1] + 1), np.uint8)
    terms[:, :coef_t.shape[1]] = coef_t
    at = coef_t.shape[1]
    terms[:, at:at + 2] = np.frombuffer(b" x", np.uint8)
    terms[:, at + 2:at + 2 + var_t.shape[1]] = var_t
    terms[:, -1] = ord(" ")
    rhs_t = _signed_table((rows_of.rhs[lo:hi] * flip).astype(np.int64))
    rhs_t[rhs_t == ord("+")] = 0                      # "= 1", "= -1", ">= 0": no plus on the right
    tails = np.zeros((hi - lo, 3 + rhs_t.shape[1] + 3), np.uint8)
    tails[:, :3] = np.where(less[:, None], np.frombuffer(b">= ", np.uint8), np.frombuffer(b"= \0", np.uint8))
    tails[:, 3:3 + rhs_t.shape[1]] = rhs_t
    tails[:, -3:] = np.frombuffer(b" ;\n", np.uint8)
    width = max(terms.shape[1], tails.shape[1])
    block = np.zeros((p1 - p0 + hi - lo, width), np.uint8)
    row_end = np.cumsum(counts) + np.arange(hi - lo)     # where each row's tail goes
    term_pos = np.arange(p1 - p0) + np.repeat(np.arange(hi - lo), counts)
    block[term_pos, :terms.shape[1]] = terms
    block[row_end, :tails.shape[1]] = tails
    flat = block.reshape(-1)
    return flat[flat != 0].tobytes()


def export(model: Model, directory: str | os.PathLike) -> list[Path]:
    """Write ``model.opb`` into ``directory``; returns ``[path]``.

    Parameters
    ----------
    model : Model
        The model to write.
    directory : str or Path
        The export directory.
    """
    path = Path(directory) / "model.opb"
    write(model, path)
    return [path]


def describe(model: Model) -> dict:
    out = {"variable_names": "x<v>, v = position + 1", "variables": model.n_positions,
           "constraints": model.n_rows + model.n_ineq + int((model.lb > 0).sum())}
    if model.n_ineq:
        out["inequalities"] = "each <= row of Aineq negated as >=, after the = rows"
    return out


def _refuse_other_header(header: tuple[str, str] | None, n_vars: int, n_constraints: int, where: str) -> None:
    """FormatError unless the ``* #variable= V #constraint= C`` header (when present) states the
    model's ``N^3`` variables and the file's constraint count: solvers size their arrays by it,
    so a tampered one (``#variable= 999999999999``) is not the manifest's model."""
    if header is None:
        return
    stated = (("variables", n_vars, "the model's OPB has"), ("constraints", n_constraints, "the file has"))
    for text, (what, want, whose) in zip(header, stated):
        number = int(text) if is_count(text) else None
        if number != want:
            raise FormatError(f"{where}: header says {shortened(text)} {what}, {whose} {want}")


def read(path: str | os.PathLike) -> ModelData:
    """An OPB file (linear constraints) back to :class:`ModelData`.

    The metadata's counts split the constraints: the first ``rows`` are the ``=`` rows of
    ``Aeq``, the next ``inequalities`` the ``<=`` rows of ``Aineq`` (written negated with ``>=``
    and negated back here), the rest are bound lines (``+1 xv >= 1`` is ``lb = 1``, ``+1 xv <= 0``
    ``ub = 0``). Without the counts (files of other tools' making): a one-term ``+1 xv >= 1`` /
    ``+1 xv <= 0`` is a bound, any other ``>=``/``<=`` a row with one infinite side. Columns: all
    ``N^3`` variables (a gattai layout's present cells), or for ``reduce`` the named ones (sorted).

    Raises
    ------
    FormatError
        A constraint without ``;``, a bad term or operator, a name other than ``x<int>``, a
        ``* #variable= V #constraint= C`` header other than the model's ``N^3`` and the file's
        constraint count, or a file without the pipeline's metadata.
    """
    where = str(path)
    with open_text(path, where) as f:
        text = f.read()
    meta = {}
    body_lines = []
    header = None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("*"):
            if COMMENT_TAG in s:
                meta = parse_comment_line(s) or {}
            elif header is None and (found := _HEADER.match(s)):
                header = (found.group(1), found.group(2))
        elif s:
            body_lines.append(s)
    if not meta:
        raise FormatError(f"{where}: no '* {COMMENT_TAG}' comment: not a pipeline OPB file")
    body = " ".join(body_lines)
    if body and not body.rstrip().endswith(";"):
        raise FormatError(f"{where}: truncated: the last constraint has no ';'")
    statements = [s.split() for s in body.split(";")[:-1]]
    counted = isinstance(meta.get("rows"), int)
    n_rows = int(meta.get("rows", 0)) + int(meta.get("inequalities", 0)) if counted else None
    rows_cols: list[np.ndarray] = []
    rows_coef: list[np.ndarray] = []
    lower: list[float] = []
    upper: list[float] = []
    cost_terms: list[tuple[np.ndarray, np.ndarray]] = []
    bound_lb: list[int] = []
    bound_ub: list[int] = []
    for k, words in enumerate(statements):
        if words and words[0] in ("min:", "max:"):
            terms = words[1:]
            rel = None
        else:
            if len(words) < 4 or words[-2] not in ("=", ">=", "<="):
                raise FormatError(f"{where}: constraint {k + 1}: expected 'terms <op> rhs ;', found {clip(' '.join(words), 60)!r}")
            terms, rel, rhs = words[:-2], words[-2], words[-1]
            if not _TERM.match(rhs):
                raise FormatError(f"{where}: constraint {k + 1}: right-hand side {shortened(rhs)!r} is not an integer")
        if len(terms) % 2:
            raise FormatError(f"{where}: constraint {k + 1}: terms must be 'coefficient x<v>' pairs")
        coefs, names = terms[0::2], terms[1::2]
        for coef_text, nme in zip(coefs, names):
            if not _TERM.match(coef_text) or not _VAR.match(nme):
                raise FormatError(f"{where}: constraint {k + 1}: bad term {shortened(coef_text)} {shortened(nme)!r}; "
                                  "expected '+1 x<v>'")
        v = np.array([int(nme[1:]) for nme in names], dtype=np.int64)
        c = np.array([int(x) for x in coefs], dtype=np.int64)
        if rel is None:
            cost_terms.append((v, c))
            continue
        b = int(rhs)
        is_row = len(rows_cols) < n_rows if n_rows is not None else not (v.size == 1 and c[0] == 1 and (
            (rel == ">=" and b == 1) or (rel == "<=" and b == 0)))
        if not is_row and v.size == 1 and c[0] == 1 and rel == ">=" and b == 1:
            bound_lb.append(v[0])
        elif not is_row and v.size == 1 and c[0] == 1 and rel == "<=" and b == 0:
            bound_ub.append(v[0])
        elif not is_row:
            raise FormatError(f"{where}: constraint {k + 1}: after the metadata's {n_rows} rows only bound lines "
                              f"('+1 x<v> >= 1' or '+1 x<v> <= 0') may follow, found {clip(' '.join(words), 60)!r}")
        elif rel == ">=" and counted:    # a <= row of Aineq, written negated
            rows_cols.append(v)
            rows_coef.append(-c)
            lower.append(-np.inf)
            upper.append(-b)
        else:
            rows_cols.append(v)
            rows_coef.append(c)
            lower.append(b if rel in ("=", ">=") else -np.inf)
            upper.append(b if rel in ("=", "<=") else np.inf)
    conv, columns_rule = convention_of(meta, where)
    n_cells = conv.n_vars + aux_count(meta)   # cell variables, then the auxiliary columns
    all_vars = np.concatenate(rows_cols + [np.array(bound_lb + bound_ub, dtype=np.int64)]
                              + [v for v, _ in cost_terms]) if (rows_cols or bound_lb or bound_ub) else np.zeros(0, np.int64)
    if all_vars.size and (all_vars.min() < 1 or all_vars.max() > n_cells):
        raise FormatError(f"{where}: variable x{int(all_vars.max())} is beyond the model's {n_cells} variables")
    if counted and len(rows_cols) != n_rows:
        raise FormatError(f"{where}: the metadata counts {n_rows} rows, the file has {len(rows_cols)}")
    _refuse_other_header(header, n_cells, len(rows_cols) + len(bound_lb) + len(bound_ub), where)
    flat = np.concatenate(rows_cols) - 1 if rows_cols else np.zeros(0, np.int64)
    columns = np.unique(flat) if columns_rule is None else columns_rule
    if columns_rule is None and aux_count(meta):   # reduce: auxiliary columns are never dropped
        columns = np.union1d(columns, conv.n_vars + np.arange(aux_count(meta)))
    lengths = np.array([v.size for v in rows_cols], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    data = np.concatenate(rows_coef).astype(float) if rows_coef else np.zeros(0)
    col = np.searchsorted(columns, flat)
    if flat.size and (col.max() >= columns.size or (columns[np.minimum(col, columns.size - 1)] != flat).any()):
        raise FormatError(f"{where}: a variable is not a column of the model its metadata describes")
    a = sp.csr_matrix((data, col, indptr), shape=(lengths.size, columns.size))
    lb, ub, cost = np.zeros(columns.size), np.ones(columns.size), np.zeros(columns.size)
    lb[np.searchsorted(columns, np.array(bound_lb, dtype=np.int64) - 1)] = 1.0
    ub[np.searchsorted(columns, np.array(bound_ub, dtype=np.int64) - 1)] = 0.0
    for v, c in cost_terms:
        cost[np.searchsorted(columns, v - 1)] += c
    if meta.get("clue_encoding") == "reduce" and meta.get("kept_columns") == "by name":
        meta = {**meta, "kept_columns": columns.tolist()}
    model_data = ModelData(a, np.array(lower, dtype=float), np.array(upper, dtype=float), lb, ub, cost,
                           np.ones(columns.size, dtype=bool), None, column_names(meta, conv, columns, where), meta)
    refuse_disagreement(model_data, where)
    return model_data


register(Format("opb", (".opb",), "pseudo-Boolean competition OPB (x<position+1>)", file_names=("model.opb",),
                export=export, write=write, read=read, describe=describe, cost=0.25, one_file=True, gzip=True))
