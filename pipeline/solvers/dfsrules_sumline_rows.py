"""The sum lines as the ``dfsrules`` kernel's handler takes them
(:mod:`pipeline.solvers.dfsrules_sumline`), which sum lines the handler does not take
(:func:`sumline_problem`), its scratch, and a solved grid's values of the rule's auxiliary columns
(:func:`sumline_aux_values`). No numba here: the engine builds its tables without importing it.
"""
from __future__ import annotations

from typing import Protocol, cast

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.solvers.dfsrules_counttables import CNT_AT, standard_values
from pipeline.solvers.dfsrules_rows import line_cells

__all__ = ["MAX_HANDLED_SUM", "SUM_AT", "sumline_aux_values", "sumline_priorities", "sumline_problem", "sumline_scratch",
           "sumline_tables"]

#: The first of the sum lines' slots in ``rint``'s header (``n_sum``, then the offsets of
#: ``sum_ptr``, ``sum_cells``, ``sum_total``, ``sum_loop``, ``cell_sum_ptr`` and ``cell_sum``:
#: :data:`pipeline.solvers.dfsrules_kernel.HEADER`), after the counting rules' eight.
SUM_AT = CNT_AT + 8
#: The handler keeps a segment's running sums ``0 .. total - 1`` as one ``uint64`` mask.
MAX_HANDLED_SUM = 63


class _SumLine(Protocol):
    """A sum line (:class:`pipeline.core.rules.segments.SumLine`: its cells in order, its sum, a loop or not)."""

    cell_list: tuple[int, ...]
    total: int
    loop: bool


def _sumlines(puzzle: Puzzle) -> list[_SumLine]:
    # read by kind: importing pipeline.core.rules.segments here would load it for every rule puzzle
    return cast(list[_SumLine], [rule for rule in puzzle.rules if rule.kind == "sumline"])


def sumline_problem(puzzle: Puzzle) -> str | None:
    """Why the kernel's handler does not take ``puzzle``'s sum lines (None: it takes them, or there
    are none): values other than ``1..N``, a sum above :data:`MAX_HANDLED_SUM`, or a cell outside
    the grid.

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
    >>> doc = {"size": 4, "box": "2x2", "rules": [{"rule": "sumline", "cells": ["r1c1", "r1c2", "r1c3"], "sum": 5}]}
    >>> sumline_problem(parse_puzzle(doc)) is None
    True
    >>> doc["values"] = [0, 1, 2, 3]
    >>> sumline_problem(parse_puzzle(doc))
    'dfsrules propagates sum lines over the values 1..N only (here 0..3), and sumline adds auxiliary columns'
    """
    lines = _sumlines(puzzle)
    if not lines:
        return None
    n, board = puzzle.n, puzzle.board
    if not standard_values(puzzle):
        values = np.asarray(board.value_of)
        span = f"{int(values.min())}..{int(values.max())}" if values.size else "none"
        return (f"dfsrules propagates sum lines over the values 1..N only (here {span}), "
                "and sumline adds auxiliary columns")
    big = max(line.total for line in lines)
    if big > MAX_HANDLED_SUM:
        return (f"dfsrules propagates sum lines up to a sum of {MAX_HANDLED_SUM} (one running sum a bit), "
                f"found {big}, and sumline adds auxiliary columns")
    if any(c < 0 or c >= n * n for line in lines for c in line.cell_list):
        return "dfsrules propagates sum lines inside the grid only, and sumline adds auxiliary columns here"
    return None


def sumline_tables(puzzle: Puzzle) -> tuple[int, list[np.ndarray]]:
    """The sum lines for the kernel's handler (a puzzle :func:`sumline_problem` accepts).

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.

    Returns
    -------
    tuple
        ``(count, parts)``: the lines, and the six ``rint`` parts in header order: where each
        line's cells start (``lines + 1``), the cells in order (flat), each line's sum, whether it
        is a loop (1) or not (0), and each cell's lines (``cell_ptr``, ``cell_lines``), ``int64``.
    """
    lines = _sumlines(puzzle)
    n_cells = puzzle.n * puzzle.n
    ptr, cells, cell_ptr, cell_lines = line_cells([line.cell_list for line in lines], n_cells)
    totals = np.array([line.total for line in lines], dtype=np.int64)
    loops = np.array([bool(line.loop) for line in lines], dtype=np.int64)
    return len(lines), [ptr, cells, totals, loops, cell_ptr, cell_lines]


def sumline_scratch(rint: np.ndarray) -> int:
    """``work`` entries the sum lines take (0 without any): a dirty flag per line, then one line's
    scratch: its running sums at each boundary (``L + 1``) and the digits each cell keeps (``L``),
    ``L`` the longest line.

    Parameters
    ----------
    rint : numpy.ndarray
        The kernel's integer tables (:func:`sumline_tables` packed at :data:`SUM_AT`).

    Returns
    -------
    int
    """
    count = int(rint[SUM_AT])
    if not count:
        return 0
    at = int(rint[SUM_AT + 1])
    longest = int(np.diff(rint[at:at + count + 1]).max())
    return count + 2 * longest + 1


def sumline_priorities(rint: np.ndarray, n_cells: int) -> np.ndarray:
    """The conflict scores a search with sum lines starts from (:func:`pipeline.solvers.dfsrules_kernel.search`):
    each cell's sum lines' lengths added up (a cell a line passes twice counts it twice), as ISS
    starts its scores at the sizes of the handlers on a cell; zeros without sum lines. Among the
    cells of fewest candidates the lines' go first, and when the fewest is three or more, the
    conflicts per candidate lean to them until real conflicts outweigh it: the bench's ten sum-line
    puzzles 68,228 -> 35,140 nodes (the slowest 44,309 -> 13,897), ISS's single 56-cell line
    222,075 -> 167,785.

    Parameters
    ----------
    rint : numpy.ndarray
        The kernel's integer tables (:func:`sumline_tables` packed at :data:`SUM_AT`).
    n_cells : int
        Cells of the grid.

    Returns
    -------
    numpy.ndarray
        ``int64``, one score per cell.

    Examples
    --------
    >>> rint = np.zeros(SUM_AT + 11, dtype=np.int64)   # two lines: over cells 0 1, and 1 2 3
    >>> rint[SUM_AT:SUM_AT + 3] = 2, SUM_AT + 3, SUM_AT + 6
    >>> rint[SUM_AT + 3:] = 0, 2, 5, 0, 1, 1, 2, 3
    >>> sumline_priorities(rint, 5).tolist()
    [2, 5, 3, 3, 0]
    """
    count = int(rint[SUM_AT])
    if not count:
        return np.zeros(n_cells, dtype=np.int64)
    at, cells_at = int(rint[SUM_AT + 1]), int(rint[SUM_AT + 2])
    lengths = np.diff(rint[at:at + count + 1])
    cells = rint[cells_at:cells_at + int(lengths.sum())]
    return np.bincount(cells, weights=np.repeat(lengths, lengths), minlength=n_cells).astype(np.int64)


def _states(values: np.ndarray, total: int, loop: bool) -> np.ndarray:
    """Each automaton's state at each boundary (``(automata, L + 1)``) over a line's ``values``:
    a line's one automaton from 0 (a segment past the sum stays where it was: the grid is
    solved), a loop's automaton ``c`` from ``c`` with the dead state ``total`` once a segment
    passes the sum (:class:`pipeline.core.rules.segments.SumLine`)."""
    starts = np.arange(total) if loop else np.zeros(1, dtype=np.int64)
    out = np.empty((starts.size, values.size + 1), dtype=np.int64)
    out[:, 0] = starts
    state = starts.copy()
    for i, v in enumerate(values):   # a line's cells (tens), once per solution
        reach = state + int(v)
        nxt = np.where(reach == total, 0, np.where(reach > total, total, reach))
        state = np.where(state == total, total, nxt)
        out[:, i + 1] = state
    return out


def sumline_aux_values(puzzle: Puzzle, grid: np.ndarray, names: np.ndarray) -> np.ndarray:
    """The values of the sum lines' auxiliary columns (``aux_sumline_k_c_i_t``: line ``k``'s
    automaton ``c`` in state ``t - 1`` at boundary ``i``) in a solved grid, for a solution vector
    over every column of the model.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle :func:`sumline_problem` accepts.
    grid : numpy.ndarray
        Its solved grid (values ``1..N``).
    names : numpy.ndarray
        The model's auxiliary column names of the sum lines.

    Returns
    -------
    numpy.ndarray
        0/1 (float) per name.
    """
    values = np.asarray(grid).reshape(-1)
    names = np.asarray(names).astype(str)
    out = np.zeros(names.size)
    if not names.size:
        return out
    k, c, i, t = np.array(np.char.split(np.char.replace(names, "aux_sumline_", ""), "_").tolist(),
                          dtype=np.int64).T
    for number, line in enumerate(_sumlines(puzzle), start=1):   # the puzzle's sum lines (a few)
        own = k == number
        states = _states(values[np.array(line.cell_list, dtype=np.int64)], int(line.total), bool(line.loop))
        out[own] = states[c[own] - 1, i[own] - 1] == t[own] - 1
    return out
