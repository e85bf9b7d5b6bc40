"""The long-form CSV files (``Aeq_long.csv``, ``Aineq_long.csv``): ``row_label,col_name,value``, one
line per nonzero, written a chunk of rows at a time (pyarrow's CSV writer over dictionary arrays:
each label and name rendered once). Read back by :mod:`formats.csv`.
"""
from __future__ import annotations

import os
from typing import BinaryIO
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model

from formats.base import atomic_open
from formats.text import name_array

_CHUNK = 1 << 20  # lines a write


def write_csv_chunks(f: BinaryIO, columns: list) -> None:
    """Append header-less CSV text of equal-length arrays (numeric, or pyarrow arrays) to ``f``,
    ``_CHUNK`` lines at a time.

    Parameters
    ----------
    f : binary file
        Where the text goes.
    columns : list
        NumPy or pyarrow arrays of one length, one per CSV column.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    n = len(columns[0])
    options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    for start in range(0, n, _CHUNK):
        table = pa.table({str(k): col[start:start + _CHUNK] for k, col in enumerate(columns)})
        pacsv.write_csv(table, f, options)


def write_long(model: Model, path: str | os.PathLike, *, inequalities: bool = False) -> Path:
    """``row_label,col_name,value`` (header), one line per nonzero of ``Aeq`` (or of ``Aineq``).

    A row without nonzeros (a rule row that ``reduce`` emptied and the clues break) is one line
    with an empty ``col_name`` and value 0, so that the row is not lost.

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The CSV file.
    inequalities : bool
        Write ``Aineq`` (with its row labels) instead of ``Aeq``.
    """
    import pyarrow as pa
    matrix = (model.Aineq if inequalities else model.Aeq).tocsr()
    empty = np.diff(matrix.indptr) == 0
    line_ends = np.cumsum(np.diff(matrix.indptr) + empty)    # a row's lines: its nonzeros, or one
    integer = all_integral(matrix.data)
    # dictionary arrays: each label/name is rendered once, the rows just index them
    labels = pa.array(np.asarray(model.ineq_labels if inequalities else model.row_labels, dtype=str))
    names = name_array(model, with_empty=bool(empty.any()))
    with atomic_open(path, "wb") as f:
        f.write(b"row_label,col_name,value\n")
        # a chunk of rows at a time: the whole matrix as COO (rows, columns and values of 7 M
        # nonzeros, and their copies) was 0.26 GB above the model
        lo = 0
        while lo < matrix.shape[0]:
            start = int(line_ends[lo - 1]) if lo else 0
            hi = max(int(np.searchsorted(line_ends, start + _CHUNK, side="right")), lo + 1)
            rows, cols, data = _long_lines(matrix, empty, lo, hi, model.n_cols)
            write_csv_chunks(f, [pa.DictionaryArray.from_arrays(pa.array(rows), labels),
                                  pa.DictionaryArray.from_arrays(pa.array(cols), names),
                                  data.astype(np.int32) if integer else data])
            lo = hi
    return Path(path)


def all_integral(data: np.ndarray) -> bool:
    """Are all values integers below 2^31 (written ``1``, not ``1.0``, here and in the triplets)?
    A chunk at a time: no temporary of the whole matrix's size."""
    return all(np.all(part == np.rint(part)) and np.abs(part).max() < 2**31 for part in value_parts(data))


def value_parts(data: np.ndarray) -> list[np.ndarray]:
    """``data`` in views of ``_CHUNK`` values: a test over them makes temporaries of that size."""
    return [data[lo:lo + _CHUNK] for lo in range(0, data.size, _CHUNK)]


def _long_lines(matrix: sp.csr_matrix, empty: np.ndarray, lo: int, hi: int,
                n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``lo..hi-1`` as ``write_long``'s lines: row, column and value of each nonzero in
    row order, an empty row's one line with column ``n_cols`` (the empty name) and value 0."""
    p0, p1 = int(matrix.indptr[lo]), int(matrix.indptr[hi])
    lines = np.diff(matrix.indptr[lo:hi + 1]) + empty[lo:hi]
    rows = np.repeat(np.arange(lo, hi, dtype=np.int32), lines)
    if not empty[lo:hi].any():
        return rows, matrix.indices[p0:p1].astype(np.int32), matrix.data[p0:p1]
    nonzero = ~np.repeat(empty[lo:hi], lines)
    cols = np.full(rows.size, n_cols, dtype=np.int32)
    data = np.zeros(rows.size)
    cols[nonzero], data[nonzero] = matrix.indices[p0:p1], matrix.data[p0:p1]
    return rows, cols, data
