"""Pointing through pair relations, the tables of the ``dfsrules`` kernel's rule
(:mod:`pipeline.solvers.dfsrules_kernel`): when a digit ``d`` has two places ``p`` and ``q`` left
in a house, ``d`` is in one of them, so a cell ``c`` loses every digit that goes with neither
``p = d`` nor ``q = d``.

What ``p = d`` takes from ``c`` is, by how the two cells are related:

* a pair relation (an arc of the kernel, every rule row over the two cells and their shared
  house together): the digits of ``c`` that the arc's table does not allow with ``d``;
* a shared house, no rule between them: ``d`` itself;
* ``c`` is ``p``: every digit but ``d``.

So a cell next to both places of a digit in a non-consecutive puzzle loses ``d - 1`` and ``d + 1``
(and a place loses them when the other place is its neighbour); a cell a knight's move from one
place and in a house with the other loses ``d`` in an anti-knight puzzle. Cells related to both
places by houses alone are plain locked candidates, which the kernel leaves out (they cost more a
node than they save there).

:func:`pointing_tables` lists, for every pair of positions ``i < j`` of every house, the cells so
related to both and how: the kernel reads the pair of the two places it finds, a handful of
entries, and looks up each entry's two masks. On the bench's non-consecutive puzzles this cut the
search tree by about half.
"""
from __future__ import annotations

import numpy as np

from pipeline.solvers.dfs import ShapeTables

__all__ = ["MAX_POINTING_CELLS", "PEER", "SELF", "pointing_tables"]

#: How ``p = d`` bears on a cell in an entry: ``SELF`` (the cell is ``p``: every digit but ``d``
#: goes) or ``PEER`` (a shared house and no arc: ``d`` goes); an arc's number otherwise.
SELF, PEER = -3, -2
_NONE = -1
#: Grids up to this many cells get the tables (their cell-by-cell relation matrix is built at once:
#: 16x16 holds 65,536 entries; larger grids go without the rule).
MAX_POINTING_CELLS = 256


def pointing_tables(units: ShapeTables, arc_ptr: np.ndarray, arc_other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every house position pair's cells related to both positions, at least one of them by an arc.

    Parameters
    ----------
    units : ShapeTables
        The shape's houses and peers.
    arc_ptr, arc_other : numpy.ndarray
        Each cell's arcs (the kernel's pair relations): cell ``a``'s arcs are numbered
        ``arc_ptr[a]`` to ``arc_ptr[a + 1] - 1``, arc ``k`` leads to ``arc_other[k]``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(ptr, entries)`` (``int64``): house ``u``'s positions ``i < j`` have entries
        ``ptr[key]`` to ``ptr[key + 1] - 1`` with ``key = (u * size + i) * size + j``; entry ``e``
        is ``entries[3e:3e + 3]`` = the cell, then how ``p = units[u, i]`` and ``q = units[u, j]``
        each bear on it (an arc's number, :data:`PEER` or :data:`SELF`). Both empty (no arcs, or
        a grid above :data:`MAX_POINTING_CELLS` cells): the kernel skips the rule.
    """
    n_cells = units.peers.shape[0]
    n_units, size = units.units.shape
    if arc_other.size == 0 or n_cells > MAX_POINTING_CELLS or size < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    relation = np.full((n_cells, n_cells), _NONE, dtype=np.int32)
    real = np.arange(units.peers.shape[1]) < units.n_peers[:, None]
    relation[np.repeat(np.arange(n_cells), units.n_peers), units.peers[real]] = PEER
    relation[np.repeat(np.arange(n_cells), np.diff(arc_ptr)), arc_other] = np.arange(arc_other.size)
    first, second = np.triu_indices(size, 1)
    key = ((np.arange(n_units)[:, None] * size + first) * size + second).ravel()
    p = units.units[:, first].ravel()
    q = units.units[:, second].ravel()
    by_p, by_q = relation[p], relation[q]          # (position pairs, cells)
    pair, cell = np.nonzero((by_p != _NONE) & (by_q != _NONE) & ((by_p >= 0) | (by_q >= 0)))
    # the places themselves: q under an arc from p loses what p = d takes but d, and so does p
    to_q = np.flatnonzero(relation[p, q] >= 0)
    to_p = np.flatnonzero(relation[q, p] >= 0)
    keys = np.concatenate([key[pair], key[to_q], key[to_p]])
    entries = np.stack([
        np.concatenate([cell, q[to_q], p[to_p]]),
        np.concatenate([by_p[pair, cell], relation[p[to_q], q[to_q]], np.full(to_p.size, SELF)]),
        np.concatenate([by_q[pair, cell], np.full(to_q.size, SELF), relation[q[to_p], p[to_p]]]),
    ], axis=1).astype(np.int64)
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n_units * size * size + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n_units * size * size), out=ptr[1:])
    return ptr, entries[order].ravel()
