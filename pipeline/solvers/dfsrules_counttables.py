"""The ``dfsrules`` kernel's tables of counting rules (counting circles, count-distinct clues), read
by their handlers (:mod:`pipeline.solvers.dfsrules_counting`) instead of the rules' rows, which need
auxiliary columns: each rule's cells, a circle set's exclusion groups and the digit sets whose
values add up to its number of circles.
"""
from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.core.rulerows import rules_by_kind
from pipeline.solvers.dfs import ShapeTables
from pipeline.solvers.dfsrules_rows import by_cell

__all__ = ["CNT_AT", "COUNTING_KINDS", "aux_values", "counting_tables", "standard_values"]

#: The first of the counting tables' slots in ``rint``'s header (``n_cnt``, then the offsets of
#: ``cnt_ptr``, ``cnt_cells``, ``cnt_group``, ``cnt_clue``, ``cnt_sets``, ``cell_cnt_ptr`` and
#: ``cell_cnt``: :data:`pipeline.solvers.dfsrules_kernel.HEADER`).
CNT_AT = 49
#: The rule kinds held by these tables.
COUNTING_KINDS = frozenset({"countingcircles", "countdistinct"})
#: Circle sets are judged by their digit sets (``2 ** n`` enumerated) up to this side.
MAX_CIRCLE_SET_DIGITS = 16


def standard_values(puzzle: Puzzle) -> bool:
    """Whether ``puzzle``'s values are ``1..N`` (``N`` the side), as the handlers suppose.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.

    Returns
    -------
    bool
    """
    board = puzzle.board
    return board.n_values == puzzle.n and bool(np.array_equal(board.value_of, np.arange(1, puzzle.n + 1)))


@functools.lru_cache(maxsize=8)
def _sums(n: int) -> np.ndarray:
    """Each digit set's sum of values ``1..n`` (index: the mask), read-only."""
    masks = np.arange(1 << n, dtype=np.int64)
    out = ((masks[:, None] >> np.arange(n)) & 1) @ np.arange(1, n + 1)
    out.flags.writeable = False
    return out


def _exclusion_groups(cells: np.ndarray, units: ShapeTables) -> np.ndarray:
    """A group number per cell: the cells of a group pairwise in one house (each value once there),
    put greedily in the first group they fit (as ISS's exclusion groups)."""
    m = cells.size
    share = units.share_unit(np.repeat(cells, m), np.tile(cells, m)).reshape(m, m)
    member = np.zeros((m, m), dtype=bool)   # member[g, i]: cell i in group g
    group = np.empty(m, dtype=np.int64)
    used = 0
    for i in range(m):   # a rule's circles (tens), once per puzzle's tables
        fits = ~(member[:used] & ~share[i]).any(axis=1)
        g = int(np.argmax(fits)) if fits.any() else used
        used = max(used, g + 1)
        member[g, i] = True
        group[i] = g
    return group


def counting_tables(puzzle: Puzzle, units: ShapeTables) -> tuple[int, list[np.ndarray], np.ndarray]:
    """The counting rules' tables of ``puzzle`` (values ``1..N``).

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.
    units : ShapeTables
        Its shape's tables.

    Returns
    -------
    tuple
        ``(count, parts, sets)``: the rules, the seven ``rint`` parts in header order (``cnt_ptr``,
        ``cnt_cells``, ``cnt_group``, ``cnt_clue``, ``cnt_sets`` as offsets within ``sets``,
        ``cell_cnt_ptr``, ``cell_cnt``) and the digit sets (``uint64`` masks).
    """
    n, n_cells = puzzle.n, puzzle.n * puzzle.n
    rules = [rule for rule in puzzle.rules if rule.kind in COUNTING_KINDS]
    cells_of, groups_of, clues, set_lists = [], [], [], []
    owners_cells, owners = [], []
    for r, rule in enumerate(rules):
        raw = cast(Any, rule)
        cells = np.asarray(raw.cell_list, dtype=np.int64)
        if rule.kind == "countingcircles":
            cells = np.unique(cells)
            group = _exclusion_groups(cells, units)
            order = np.argsort(group, kind="stable")
            cells, group = cells[order], group[order]
            if n <= MAX_CIRCLE_SET_DIGITS:
                sums = _sums(n)
                set_lists.append(np.flatnonzero(sums == cells.size).astype(np.uint64))
                clues.append(-1)
            else:
                set_lists.append(np.zeros(0, dtype=np.uint64))
                clues.append(-2)
            touched = cells
        else:
            group = np.zeros(cells.size, dtype=np.int64)
            clues.append(int(raw.clue))
            set_lists.append(np.zeros(0, dtype=np.uint64))
            touched = np.union1d(cells, [raw.clue])
        cells_of.append(cells)
        groups_of.append(group)
        owners_cells.append(touched)
        owners.append(np.full(touched.size, r, dtype=np.int64))
    z = np.zeros(0, dtype=np.int64)
    if not rules:
        return (0, [np.zeros(1, dtype=np.int64), z, z, z, np.zeros(1, dtype=np.int64),
                                   np.zeros(n_cells + 1, dtype=np.int64), z], np.zeros(0, dtype=np.uint64))
    ptr = np.concatenate([[0], np.cumsum([c.size for c in cells_of])]).astype(np.int64)
    sets_ptr = np.concatenate([[0], np.cumsum([s.size for s in set_lists])]).astype(np.int64)
    touched_all, owner_all = np.concatenate(owners_cells), np.concatenate(owners)
    cell_ptr, order = by_cell(touched_all, n_cells)
    parts = [ptr, np.concatenate(cells_of), np.concatenate(groups_of), np.asarray(clues, dtype=np.int64), sets_ptr,
             cell_ptr, owner_all[order]]
    return len(rules), parts, np.concatenate(set_lists)


def aux_values(puzzle: Puzzle, grid: np.ndarray) -> np.ndarray:
    """The auxiliary columns' values of a solved ``grid`` of a puzzle whose only rules with such
    columns are counting rules (:data:`COUNTING_KINDS`): per rule, in the model's column order
    (registry order of kinds, then the puzzle's), whether each digit is among its cells.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.
    grid : numpy.ndarray
        ``(N, N)`` digits ``1..N``.

    Returns
    -------
    numpy.ndarray
        ``float``, ``N`` per counting rule.
    """
    flat = np.asarray(grid).ravel()
    n = puzzle.n_values
    rules = [rule for of_kind in rules_by_kind(puzzle) for rule in of_kind if rule.kind in COUNTING_KINDS]
    out = np.zeros((len(rules), n))
    for k, rule in enumerate(rules):   # the rules (a few), once per solution
        out[k, flat[np.asarray(cast(Any, rule).cell_list, dtype=np.int64)] - 1] = 1.0
    return out.ravel()
