"""The partners each digit of a cell takes itself from once the cell is decided, for the cells
whose arcs act only then (:data:`pipeline.solvers.dfsrules_rows.DECIDED_ONLY`: anti-taxicab's), as
the ``dfsrules`` kernel's handler reads them (:mod:`pipeline.solvers.dfsrules_decided`): a cell
decided to ``d`` looks only at the partners whose table takes ``d`` (anti-taxicab: the cells at
distance ``d``, about 5 of its 50 arcs) in place of all its arcs. No numba here: the engine builds
its tables without importing it.
"""
from __future__ import annotations

import numpy as np

from pipeline.solvers.dfsrules_rows import DECIDED_ONLY
from pipeline.solvers.dfsrules_windows_rows import WIN_AT

__all__ = ["DEC_AT", "decided_tables", "only_decided"]

#: The first of the decided partners' slots in ``rint``'s header, after the windows' five: the
#: offsets of ``dec_ptr`` and ``dec_cells`` (:data:`pipeline.solvers.dfsrules_kernel.HEADER`).
DEC_AT = WIN_AT + 5


def decided_tables(arc_ptr: np.ndarray, arc_other: np.ndarray, arc_table: np.ndarray, cell_table: np.ndarray,
                   tables: np.ndarray, n: int) -> list[np.ndarray]:
    """Per cell of :data:`~pipeline.solvers.dfsrules_rows.DECIDED_ONLY` arcs and digit ``d``, its
    partners (in its arcs' order) whose table takes ``d`` when the cell holds ``d``; every other
    cell's lists are empty.

    Parameters
    ----------
    arc_ptr, arc_other, arc_table : numpy.ndarray
        Each cell's arcs (``arc_ptr[c]`` to ``arc_ptr[c + 1] - 1``), each arc's partner and table.
    cell_table : numpy.ndarray
        Each cell's shared table or mark (:func:`pipeline.solvers.dfsrules_rows.shared_tables`).
    tables : numpy.ndarray
        The pair tables, ``(tables, n)`` ``uint64``: row ``t``, digit ``d``: the partner's digits
        that go with ``d``.
    n : int
        Digits.

    Returns
    -------
    list of numpy.ndarray
        ``[dec_ptr, dec_cells]`` (``int64``): cell ``c``'s partners for digit ``d`` at
        ``dec_cells[dec_ptr[c * n + d]:dec_ptr[c * n + d + 1]]``; ``[[0], []]`` when no cell is
        :data:`~pipeline.solvers.dfsrules_rows.DECIDED_ONLY` (the kernel reads none).

    Examples
    --------
    >>> full = np.uint64(0b11)
    >>> tables = np.array([[full & ~np.uint64(1), full], [full, full & ~np.uint64(2)]])
    >>> [p.tolist() for p in decided_tables(np.array([0, 2, 2]), np.array([1, 1]), np.array([0, 1]),
    ...                                     np.array([DECIDED_ONLY, -1]), tables, 2)]
    [[0, 1, 2, 2, 2], [1, 1]]
    >>> [p.tolist() for p in decided_tables(np.array([0, 2, 2]), np.array([1, 1]), np.array([0, 1]),
    ...                                     np.array([-1, -1]), tables, 2)]
    [[0], []]
    """
    n_cells = arc_ptr.size - 1
    if not np.any(cell_table == DECIDED_ONLY):   # nothing reads them: no lists (40 -> 5 us a record)
        return [np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)]
    owner = np.repeat(np.arange(n_cells), np.diff(arc_ptr))
    arcs = np.flatnonzero(cell_table[owner] == DECIDED_ONLY)
    bits = np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
    takes = (tables[arc_table[arcs]] & bits) == 0   # (arcs, n): arc's table takes digit d at d
    at, digit = np.nonzero(takes)                   # arc order, then digit
    keys = owner[arcs[at]] * n + digit
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n_cells * n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n_cells * n), out=ptr[1:])
    return [ptr, arc_other[arcs[at[order]]].astype(np.int64)]


def only_decided(rint: np.ndarray) -> bool:
    """Whether every cell with arcs is :data:`~pipeline.solvers.dfsrules_rows.DECIDED_ONLY`
    (anti-taxicab): the kernel then reads no arc's table (:func:`decided_tables` stand for them),
    so a support lookup of the tables would go unread.

    Parameters
    ----------
    rint : numpy.ndarray
        The rule tables (:func:`pipeline.solvers.dfsrules.rule_tables`'s ``rint``).

    Returns
    -------
    bool

    Examples
    --------
    >>> rint = np.zeros(40, dtype=np.int64)
    >>> rint[0], rint[5], rint[36] = 2, 37, 30
    >>> rint[37:40] = [0, 3, 3]       # cell 0 three arcs, cell 1 none
    >>> rint[30:32] = [DECIDED_ONLY, -1]
    >>> only_decided(rint)
    True
    """
    n_cells, arc_ptr, cell_table = int(rint[0]), int(rint[5]), int(rint[36])
    has_arcs = np.diff(rint[arc_ptr:arc_ptr + n_cells + 1]) > 0
    return bool(has_arcs.any() and np.all(rint[cell_table:cell_table + n_cells][has_arcs] == DECIDED_ONLY))
