"""Compressed sparse rows in numpy alone: the rule rows' matrix for the engines that only read it.

The SAT engine reads a rule puzzle's rows (``R`` and the solver view's rule rows) to encode them;
building them as scipy matrices cost its first solve the import of ``scipy.sparse`` (0.13-0.18 s
of a whole process, most of it ``numpy.testing`` and ``numpy.f2py`` pulled in by scipy's array-API
layer). :class:`Csr` holds the same arrays (``indptr``, ``indices``, ``data``) with the few
operations those engines use, each vectorised; :meth:`Csr.to_scipy` gives the scipy matrix to
the writers and HiGHS, from the same arrays (one source of truth for the rows).

It follows scipy's CSR semantics where the callers depend on them: entries at one ``(row,
column)`` are summed and indices sorted (``sum_duplicates``, ``sort_indices``), an entry whose
sum is 0 stays stored (scipy keeps it until ``eliminate_zeros``), and selecting columns keeps
those entries too. ``tests/core/test_csr.py`` checks each operation against scipy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["Csr", "as_csr", "leading_rows", "stack_below_table", "trailing_rows"]


@dataclass(frozen=True, eq=False)
class Csr:
    """A CSR matrix of ``shape`` (rows, columns): row ``i``'s entries are
    ``data[indptr[i]:indptr[i + 1]]`` in columns ``indices[...]`` (ascending within a row)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def from_entries(cls, row: np.ndarray, col: np.ndarray, value: np.ndarray, shape: tuple[int, int]) -> Csr:
        """The matrix of the ``(row, col, value)`` entries: repeated pairs summed (as scipy's
        ``csr_matrix((value, (row, col)))`` then ``sum_duplicates``).

        Parameters
        ----------
        row, col : numpy.ndarray
            Integer coordinates, within ``shape``.
        value : numpy.ndarray
            The entries' values (their dtype is kept).
        shape : (int, int)

        Returns
        -------
        Csr
        """
        row = np.asarray(row, dtype=np.int64)
        col = np.asarray(col, dtype=np.int64)
        value = np.asarray(value)
        n_rows, n_cols = int(shape[0]), int(shape[1])
        width = max(n_cols, 1)
        key = row * width + col
        if key.size > 1 and not (key[1:] >= key[:-1]).all():
            # the rules write their rows in order, columns mostly so: a stable sort of nearly
            # sorted keys is a fraction of a general one (0.003 s against 0.06 s for 900,000)
            order = np.argsort(key, kind="stable")
            key, value = key[order], value[order]
        first = np.ones(key.size, dtype=bool)
        np.not_equal(key[1:], key[:-1], out=first[1:])
        if not first.all():   # repeated (row, column) pairs: summed
            group = np.cumsum(first) - 1
            value = np.bincount(group, weights=value, minlength=int(group[-1]) + 1).astype(value.dtype, copy=False)
            key = key[first]
        row = key // width
        indptr = np.searchsorted(row, np.arange(n_rows + 1), side="left").astype(np.int64)
        return cls(indptr, key - row * width, value, (n_rows, n_cols))

    @property
    def nnz(self) -> int:
        """Stored entries."""
        return int(self.indices.size)

    def row_of_entries(self) -> np.ndarray:
        """Each stored entry's row."""
        return np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))

    def matvec(self, x: np.ndarray) -> np.ndarray:
        """``self @ x`` for a vector ``x`` of ``shape[1]`` values (float)."""
        x = np.asarray(x, dtype=float)
        return np.bincount(self.row_of_entries(), weights=self.data * x[self.indices], minlength=self.shape[0])

    def without_zeros(self) -> Csr:
        """The same matrix without its stored zeros (scipy's ``eliminate_zeros``): itself when
        it has none."""
        keep = self.data != 0
        if keep.all():
            return self
        indptr = np.zeros(self.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.row_of_entries()[keep], minlength=self.shape[0]), out=indptr[1:])
        return Csr(indptr, self.indices[keep], self.data[keep], self.shape)

    def take_rows(self, rows: np.ndarray) -> Csr:
        """The rows ``rows`` (integer indices, in that order, or a boolean mask)."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        rows = rows.astype(np.int64, copy=False)
        lengths = np.diff(self.indptr)[rows]
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # each kept entry's place in the source: its row's start plus its rank within the row
        pick = np.repeat(self.indptr[rows], lengths) + (np.arange(int(indptr[-1])) - np.repeat(indptr[:-1], lengths))
        return Csr(indptr, self.indices[pick], self.data[pick], (int(rows.size), self.shape[1]))

    def take_columns(self, columns: np.ndarray) -> Csr:
        """The columns ``columns`` (ascending, distinct), renumbered ``0 ..``: entries in the other
        columns are dropped, stored zeros kept (as scipy's column selection)."""
        columns = np.asarray(columns, dtype=np.int64)
        new_index = np.full(self.shape[1], -1, dtype=np.int64)
        new_index[columns] = np.arange(columns.size)
        mapped = new_index[self.indices]
        keep = mapped >= 0
        indptr = np.zeros(self.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.row_of_entries()[keep], minlength=self.shape[0]), out=indptr[1:])
        return Csr(indptr, mapped[keep], self.data[keep], (self.shape[0], int(columns.size)))

    def to_scipy(self) -> sp.csr_matrix:
        """The same matrix as a ``scipy.sparse.csr_matrix`` (imports scipy)."""
        import scipy.sparse as sp  # here, not at the top: the engines that read Csr never need it

        matrix = sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)
        matrix.has_sorted_indices = True   # rows are built sorted: no second sort
        return matrix


def as_csr(matrix: Any) -> Csr:
    """``matrix`` as a :class:`Csr`: itself, or any scipy sparse matrix converted (duplicates
    summed, indices sorted).

    Parameters
    ----------
    matrix : Csr or scipy.sparse matrix

    Returns
    -------
    Csr
    """
    if isinstance(matrix, Csr):
        return matrix
    import scipy.sparse as sp  # a scipy matrix was passed: scipy is imported already

    csr = sp.csr_matrix(matrix)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    return Csr(csr.indptr.astype(np.int64), csr.indices.astype(np.int64), csr.data, csr.shape)


def stack_below_table(table: np.ndarray, below: list, n_cols: int) -> sp.csr_matrix:
    """``vstack([T, *below], format="csr")`` of the 0-1 matrix ``T`` whose row ``i`` has ones at
    ``table[i]`` (:func:`pipeline.core.build.table_matrix`), without building ``T`` first: the
    same arrays (values, index type) from one copy of the table's positions, not two (a 100x100's
    ``A`` is 48 MB; stacked with the clue rows it was held twice).

    Parameters
    ----------
    table : numpy.ndarray
        Shape (rows, k): each row's column positions, ascending.
    below : list of scipy.sparse.csr_matrix
        The rows stacked under them, each of ``n_cols`` columns.
    n_cols : int
        Columns of the matrix.

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    import scipy.sparse as sp  # here, not at the top: the engines that read Csr never need it

    n_rows, k = table.shape
    nnz = table.size + sum(part.nnz for part in below)
    rows = n_rows + sum(part.shape[0] for part in below)
    dtype = np.int32 if max(nnz, n_cols, rows) < np.iinfo(np.int32).max else np.int64
    data = np.concatenate([np.ones(table.size), *(part.data for part in below)])
    indices = np.concatenate([table.reshape(-1), *(part.indices for part in below)], dtype=dtype, casting="unsafe")
    starts = np.cumsum([table.size] + [part.nnz for part in below])   # where each part's entries begin
    indptr = np.concatenate([np.arange(0, table.size + 1, k) if k else np.zeros(n_rows + 1, dtype=np.int64),
                             *(part.indptr[1:] + start for part, start in zip(below, starts[:-1]))], dtype=dtype)
    return sp.csr_matrix((data, indices, indptr), shape=(rows, n_cols))


def leading_rows(matrix: sp.csr_matrix, n_rows: int) -> sp.csr_matrix:
    """The first ``n_rows`` rows of a CSR ``matrix`` sharing its arrays (``matrix[:n_rows]``
    copies them): a view, which a caller reads and never changes.

    Parameters
    ----------
    matrix : scipy.sparse.csr_matrix
        Rows ascending within each row, as every matrix of a model.
    n_rows : int
        How many of its first rows.

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    end = int(matrix.indptr[n_rows])
    return _rows_view(matrix, matrix.data[:end], matrix.indices[:end], matrix.indptr[:n_rows + 1])


def trailing_rows(matrix: sp.csr_matrix, start: int) -> sp.csr_matrix:
    """The rows of a CSR ``matrix`` from row ``start`` on, sharing its entries' arrays (only the
    row pointers, one per row, are new): a view, which a caller reads and never changes.

    Parameters
    ----------
    matrix : scipy.sparse.csr_matrix
        Rows ascending within each row, as every matrix of a model.
    start : int
        The first row kept.

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    begin = int(matrix.indptr[start])
    return _rows_view(matrix, matrix.data[begin:], matrix.indices[begin:], matrix.indptr[start:] - matrix.indptr[start])


def _rows_view(matrix: sp.csr_matrix, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray) -> sp.csr_matrix:
    """A CSR matrix of ``matrix``'s columns holding these arrays themselves: given to scipy's
    constructor, a slice under half its array's size was copied (its format check prunes such
    views), so the arrays are set on an empty matrix of the shape instead."""
    import scipy.sparse as sp  # a scipy matrix was passed: scipy is imported already

    view = sp.csr_matrix((indptr.size - 1, matrix.shape[1]), dtype=data.dtype)
    view.data, view.indices, view.indptr = data, indices, indptr
    view.has_sorted_indices = matrix.has_sorted_indices   # as its matrix (a rule row built unsorted stays so)
    return view
