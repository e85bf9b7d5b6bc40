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
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import COMMENT_TAG, model_metadata

from formats.base import Format, atomic_open, constraint_rows, register
from formats.cnf import render_tokens
from formats.opb_read import read
from formats.text import digits_table

_CHUNK_NONZEROS = 1 << 20


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


register(Format("opb", (".opb",), "pseudo-Boolean competition OPB (x<position+1>)", file_names=("model.opb",),
                export=export, write=write, read=read, describe=describe, cost=0.25, one_file=True, gzip=True))
