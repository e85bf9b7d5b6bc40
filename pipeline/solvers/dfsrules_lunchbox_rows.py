"""The lunchbox lines as the ``dfsrules`` kernel's handler takes them
(:mod:`pipeline.solvers.dfsrules_lunchbox`), the rows of their distinct digits, and which
lunchboxes the handler does not take (:func:`lunchbox_problem`). No numba here: the engine
builds its tables without importing it.
"""
from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.solvers.dfsrules_counttables import standard_values
from pipeline.solvers.dfsrules_rows import line_cells

__all__ = ["lunchbox_aux_values", "lunchbox_problem", "lunchbox_rows", "lunchbox_tables"]


class _Lunchbox(Protocol):
    """A lunchbox rule (:class:`pipeline.core.rules.segments.Lunchbox`: its cells in order, its sum)."""

    cell_list: tuple[int, ...]
    total: int


def _lunchboxes(puzzle: Puzzle) -> list[_Lunchbox]:
    # read by kind: importing pipeline.core.rules.segments here would load it for every rule puzzle
    return cast(list[_Lunchbox], [rule for rule in puzzle.rules if rule.kind == "lunchbox"])


def lunchbox_problem(puzzle: Puzzle) -> str | None:
    """Why the kernel's handler does not take ``puzzle``'s lunchboxes (None: it takes them, or
    there are none): values other than ``1..N``, or a line with a cell outside the grid.

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> doc = {"size": 4, "box": "2x2", "rules": [{"rule": "lunchbox", "cells": ["r1c1", "r2c2", "r3c3"], "sum": 2}]}
    >>> lunchbox_problem(parse_puzzle(doc)) is None
    True
    """
    lines = _lunchboxes(puzzle)
    if not lines:
        return None
    n = puzzle.n
    if not standard_values(puzzle):
        return "dfsrules propagates lunchboxes over the values 1..N only, and lunchbox adds auxiliary columns here"
    if any(c < 0 or c >= n * n for line in lines for c in line.cell_list):
        return "dfsrules propagates lunchboxes inside the grid only, and lunchbox adds auxiliary columns here"
    return None


def lunchbox_tables(puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lunchbox lines for the kernel's handler: where each line's cells start (``lines + 1``),
    the cells in order (flat), each line's sum, and each cell's lines (``cell_ptr``, ``cell_lines``).

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle :func:`lunchbox_problem` accepts.

    Returns
    -------
    tuple of numpy.ndarray
        ``(ptr, cells, sums, cell_ptr, cell_lines)``, ``int64``.
    """
    lines = _lunchboxes(puzzle)
    n_cells = puzzle.n * puzzle.n
    ptr, cells, cell_ptr, cell_lines = line_cells([line.cell_list for line in lines], n_cells)
    return ptr, cells, np.array([line.total for line in lines], dtype=np.int64), cell_ptr, cell_lines


def lunchbox_rows(puzzle: Puzzle) -> tuple[np.ndarray, ...] | None:
    """The rows of each lunchbox's distinct digits whose cells do not share a unit (the rule's
    ``lunchboxdistinct``: each digit at most once over the line), as
    :func:`pipeline.solvers.dfsrules.rule_terms` gives rows; None when there are none.

    Parameters
    ----------
    puzzle : Puzzle
        Its rules and board.

    Returns
    -------
    tuple of numpy.ndarray or None
        ``(row, cell, digit, coef)`` per term and ``(rhs, is_equal)`` per row, rows from 0.
    """
    lines = [np.array(line.cell_list, dtype=np.int64) for line in _lunchboxes(puzzle)]
    if not lines:
        return None
    n = puzzle.n
    apart = [line for line in lines if not puzzle.board.share_a_unit(line[None, :])[0]]
    if not apart:
        return None
    sizes = np.array([line.size for line in apart], dtype=np.int64)
    cells = np.concatenate(apart)
    line_of = np.repeat(np.arange(len(apart)), sizes)
    # row (line, digit): the line's cells at that digit
    row = (line_of[None, :] * n + np.arange(n)[:, None]).ravel()
    cell = np.tile(cells, n)
    digit = np.repeat(np.arange(n, dtype=np.int64), cells.size)
    order = np.argsort(row, kind="stable")
    rows = len(apart) * n
    return (row[order], cell[order], digit[order], np.ones(cell.size, dtype=np.int64),
            np.ones(rows, dtype=np.int64), np.zeros(rows, dtype=bool))


def lunchbox_aux_values(puzzle: Puzzle, grid: np.ndarray, names: np.ndarray) -> np.ndarray:
    """The values of the lunchboxes' auxiliary columns (``aux_lunchbox_k_s_i``: line ``k``'s
    smallest value at its ``i``-th cell for ``s = 1``, its largest for ``s = 2``) in a solved grid,
    for a solution vector over every column of the model.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle :func:`lunchbox_problem` accepts.
    grid : numpy.ndarray
        Its solved grid (values ``1..N``).
    names : numpy.ndarray
        The model's auxiliary column names in order (``Model.aux_names``).

    Returns
    -------
    numpy.ndarray
        0/1 (float) per name.
    """
    values = np.asarray(grid).reshape(-1)
    wanted = []
    for k, line in enumerate(_lunchboxes(puzzle), start=1):
        on = values[np.array(line.cell_list, dtype=np.int64)]
        wanted += [f"aux_lunchbox_{k}_1_{int(on.argmin()) + 1}", f"aux_lunchbox_{k}_2_{int(on.argmax()) + 1}"]
    return np.isin(names, np.array(wanted)).astype(float)
