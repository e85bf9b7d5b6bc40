"""OPB, the pseudo-Boolean competition format: ``+1 x1 +1 x2 ... = 1 ;`` per ``= 1`` row.

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
from pipeline.core.conventions import make_convention
from pipeline.core.errors import FormatError
from pipeline.core.manifest import COMMENT_TAG, model_metadata, parse_comment_line

from formats.base import Format, ModelData, atomic_open, open_text, register
from formats.cnf import render_tokens

_CHUNK_NONZEROS = 1 << 20
# integers of at most 18 digits: every one fits the int64 arrays they are read into (a longer one
# is a bad term, as 1e400 is, not an OverflowError)
_TERM = re.compile(r"^([+-]?\d{1,18})$")
_VAR = re.compile(r"^x(\d{1,18})$")


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
        Non-integer objective costs, or an empty row.
    """
    a = model.Aeq.tocsr()
    a.sort_indices()
    var = model.columns.astype(np.int64) + 1
    lengths = np.diff(a.indptr)
    if (lengths == 0).any():
        raise FormatError(f"opb: row {model.row_labels[int(np.argmax(lengths == 0))]} has no variable")
    lb_vars = var[model.lb > 0]
    cost = _integer_costs(model)
    n_cons = a.shape[0] + lb_vars.size
    head = (f"* #variable= {model.convention.n_vars} #constraint= {n_cons}\n"
            f"* {COMMENT_TAG} {json.dumps(opb_metadata(model), separators=(',', ':'))}\n"
            f"* variables: x<v>, v = position + 1 (docs/conventions.md)\n")
    with atomic_open(path, "wb") as f:
        f.write(head.encode())
        if cost is not None:
            nz = np.flatnonzero(cost)
            line = " ".join(f"{c:+d} x{v}" for c, v in zip(cost[nz].tolist(), var[nz].tolist()))
            f.write(f"min: {line} ;\n".encode())
        step = max(1, _CHUNK_NONZEROS // max(int(lengths.max(initial=1)), 1))
        for lo in range(0, a.shape[0], step):
            hi = min(lo + step, a.shape[0])
            cells = var[a.indices[a.indptr[lo]:a.indptr[hi]]]
            last = np.zeros(cells.size, dtype=bool)
            last[a.indptr[lo + 1:hi + 1] - a.indptr[lo] - 1] = True
            f.write(render_tokens(cells, prefix=b"+1 x", line_end=b" = 1 ;\n", ends_line=last))
        if lb_vars.size:
            f.write(render_tokens(lb_vars, prefix=b"+1 x", line_end=b" >= 1 ;\n",
                                  ends_line=np.ones(lb_vars.size, dtype=bool)))


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
    return {"variable_names": "x<v>, v = position + 1", "variables": model.convention.n_vars,
            "constraints": model.n_rows + int((model.lb > 0).sum())}


def _short(token: str) -> str:
    """A token for a message: a 400-digit number is named by its first digits."""
    return token if len(token) <= 24 else f"{token[:20]}...({len(token)} characters)"


def read(path: str | os.PathLike) -> ModelData:
    """An OPB file (linear constraints) back to :class:`ModelData`.

    Constraints ``= b`` are rows; a one-term ``+1 xv >= 1`` is ``lb = 1`` and ``+1 xv <= 0`` is
    ``ub = 0`` (the bound lines the writer emits); any other ``>=``/``<=`` is a row with one
    infinite side. Columns: all ``N^3`` variables, or for ``reduce`` the named ones (sorted).

    Raises
    ------
    FormatError
        A constraint without ``;``, a bad term or operator, a name other than ``x<int>``, or a
        file without the pipeline's metadata.
    """
    where = str(path)
    with open_text(path, where) as f:
        text = f.read()
    meta = {}
    body_lines = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("*"):
            if COMMENT_TAG in s:
                meta = parse_comment_line(s) or {}
        elif s:
            body_lines.append(s)
    if not meta:
        raise FormatError(f"{where}: no '* {COMMENT_TAG}' comment: not a pipeline OPB file")
    body = " ".join(body_lines)
    if body and not body.rstrip().endswith(";"):
        raise FormatError(f"{where}: truncated: the last constraint has no ';'")
    statements = [s.split() for s in body.split(";")[:-1]]
    rows_cols, rows_coef, lower, upper, cost_terms = [], [], [], [], []
    bound_lb, bound_ub = [], []
    for k, words in enumerate(statements):
        if words and words[0] in ("min:", "max:"):
            terms = words[1:]
            rel = None
        else:
            if len(words) < 4 or words[-2] not in ("=", ">=", "<="):
                raise FormatError(f"{where}: constraint {k + 1}: expected 'terms <op> rhs ;', found {' '.join(words)[:60]!r}")
            terms, rel, rhs = words[:-2], words[-2], words[-1]
            if not _TERM.match(rhs):
                raise FormatError(f"{where}: constraint {k + 1}: right-hand side {_short(rhs)!r} is not an integer")
        if len(terms) % 2:
            raise FormatError(f"{where}: constraint {k + 1}: terms must be 'coefficient x<v>' pairs")
        coefs, names = terms[0::2], terms[1::2]
        for coef_text, nme in zip(coefs, names):
            if not _TERM.match(coef_text) or not _VAR.match(nme):
                raise FormatError(f"{where}: constraint {k + 1}: bad term {_short(coef_text)} {_short(nme)!r}; "
                                  "expected '+1 x<v>'")
        v = np.array([int(nme[1:]) for nme in names], dtype=np.int64)
        c = np.array([int(x) for x in coefs], dtype=np.int64)
        if rel is None:
            cost_terms.append((v, c))
            continue
        b = int(rhs)
        if v.size == 1 and c[0] == 1 and rel == ">=" and b == 1:
            bound_lb.append(v[0])
        elif v.size == 1 and c[0] == 1 and rel == "<=" and b == 0:
            bound_ub.append(v[0])
        else:
            rows_cols.append(v)
            rows_coef.append(c)
            lower.append(b if rel in ("=", ">=") else -np.inf)
            upper.append(b if rel in ("=", "<=") else np.inf)
    try:
        n = int(meta["n"])
        conv = make_convention(meta["scheme"], meta["order"], int(meta["h"]), int(meta["w"]), meta.get("variant", "classic"))
        encoding = meta["clue_encoding"]
    except (KeyError, TypeError, ValueError) as e:
        raise FormatError(f"{where}: metadata comment lacks {e}") from None
    n_cells = n ** 3
    all_vars = np.concatenate(rows_cols + [np.array(bound_lb + bound_ub, dtype=np.int64)]
                              + [v for v, _ in cost_terms]) if (rows_cols or bound_lb or bound_ub) else np.zeros(0, np.int64)
    if all_vars.size and (all_vars.min() < 1 or all_vars.max() > n_cells):
        raise FormatError(f"{where}: variable x{int(all_vars.max())} is beyond the {n}x{n} grid's {n_cells} variables")
    columns = np.unique(np.concatenate(rows_cols) - 1) if encoding == "reduce" and rows_cols else np.arange(n_cells)
    lengths = np.array([v.size for v in rows_cols], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    flat = np.concatenate(rows_cols) - 1 if rows_cols else np.zeros(0, np.int64)
    data = np.concatenate(rows_coef).astype(float) if rows_coef else np.zeros(0)
    a = sp.csr_matrix((data, np.searchsorted(columns, flat), indptr), shape=(lengths.size, columns.size))
    lb, ub, cost = np.zeros(columns.size), np.ones(columns.size), np.zeros(columns.size)
    lb[np.searchsorted(columns, np.array(bound_lb, dtype=np.int64) - 1)] = 1.0
    ub[np.searchsorted(columns, np.array(bound_ub, dtype=np.int64) - 1)] = 0.0
    for v, c in cost_terms:
        cost[np.searchsorted(columns, v - 1)] += c
    if encoding == "reduce" and meta.get("kept_columns") == "by name":
        meta = {**meta, "kept_columns": columns.tolist()}
    return ModelData(a, np.array(lower, dtype=float), np.array(upper, dtype=float), lb, ub, cost,
                     np.ones(columns.size, dtype=bool), None, conv.names(columns), meta)


register(Format("opb", (".opb",), "pseudo-Boolean competition OPB (x<position+1>)",
                export=export, write=write, read=read, describe=describe))
