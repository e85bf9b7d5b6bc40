"""Numbers -> grid: an N x N matrix of numbers (an array, nested lists, a MATLAB matrix) is a
grid, an N x 3 one a MATLAB-style ``[row col digit]`` clue list. Split from
:mod:`pipeline.core.parse` (its text readers and :func:`~pipeline.core.parse.parse_grid` call
these) to keep that module under the 800-line limit.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.box_shape import _box_n
from pipeline.core.cells_text import pandas_missing, refuse_non_number
from pipeline.core.errors import PuzzleError
from pipeline.core.limits import check_grid_size

__all__ = ["MAX_CLUE_LIST_SIZE"]


_PANDAS_MISSING = np.frompyfunc(pandas_missing, 1, 1)


def _matrix_to_grid(matrix: np.ndarray, box, size, where: str) -> np.ndarray:
    if matrix.ndim != 2 or not matrix.shape[1]:   # (0, 3) is an empty clue list; (0, 0) nothing
        raise PuzzleError(f"{where}: input must be a non-empty 2-D matrix: must be N-by-3 or N-by-N")
    m, k = matrix.shape
    if np.issubdtype(matrix.dtype, np.complexfloating):   # astype(float) dropped the imaginary part
        raise PuzzleError(f"{where}: entries must be real numbers, found complex ones")
    if matrix.dtype.kind in "bmM":   # True is not the digit 1 nor a date a number (verify refuses them too)
        raise PuzzleError(f"{where}: entries must be numbers, found {matrix.dtype} ones")
    if matrix.dtype.kind == "u" and matrix.size and matrix.max() > 2**31:   # the int64 cast made them negative
        raise PuzzleError(f"{where}: entry {matrix.max()} is too large")
    if matrix.dtype == object:   # pandas' missing value (an Int64 column's pd.NA): an empty cell, as NaN and None
        missing = _PANDAS_MISSING(matrix).astype(bool)
        if missing.any():
            matrix = matrix.copy()   # not the caller's array
            matrix[missing] = None
    if not np.issubdtype(matrix.dtype, np.integer):
        try:
            values = matrix.astype(float)
        except (TypeError, ValueError):
            for (r, c), value in np.ndenumerate(matrix):   # an array of objects: its first bad entry, named
                refuse_non_number(value, r + 1, c + 1, where)
            raise PuzzleError(f"{where}: entries must be numbers") from None
        if m == k:  # MATLAB and Excel write empty cells of a grid as NaN
            values = np.where(np.isnan(values), 0.0, values)
        as_int = np.rint(values)
        if not np.array_equal(as_int, values):  # also NaN and inf
            raise PuzzleError(f"{where}: entries must be integers")
        if np.abs(as_int).max(initial=0) > 2**31:
            raise PuzzleError(f"{where}: entry {as_int.flat[np.argmax(np.abs(as_int))]:.0f} is too large")
        matrix = as_int.astype(np.int64)
    # a 3x3 is a grid unless a size or box says the grid is larger: then three [row col digit]
    # clues, as the same rows read as text are
    if m == k and not (m == 3 and (size or _box_n(box) or 3) != 3):
        check_grid_size(m, where)
        return matrix
    if k != 3:
        raise PuzzleError(f"{where}: matrix is {m}-by-{k}: must be N-by-3 or N-by-N")
    return _clue_list_to_grid(matrix, box, size, where)


#: The largest entry of a clue list that is told to give ``--size`` (the largest grid a model is built for).
MAX_CLUE_LIST_SIZE = 100


def _clue_list_to_grid(clues: np.ndarray, box, size, where: str, line_numbers=None) -> np.ndarray:
    """MATLAB-style ``[row col digit]`` rows (1-based) -> grid; ``line_numbers`` for messages."""
    lines = np.arange(1, clues.shape[0] + 1) if line_numbers is None else line_numbers
    # as the MATLAB seed (SEEDS.md section 1: "entries must be integers from 1 to 9"): 9x9 unless
    # --size or --box says otherwise; a bigger entry is an error, never a bigger grid
    n = size or _box_n(box) or 9
    check_grid_size(n, where)
    bad = np.argwhere((clues < 1) | (clues > n))
    if bad.size:
        line, col = bad[0]
        # a 0 row or column: numbered from 0 (NumPy, C) where MATLAB's lists count from 1
        based = ("; rows and columns count from 1, as in MATLAB: add 1 to 0-based ones"
                 if col < 2 and (clues[:, :2] == 0).any() and (clues[:, :2] <= n - 1).all() else "")
        if not based and size is None and box is None and 9 < clues.max() <= MAX_CLUE_LIST_SIZE:
            based = f"; for a bigger grid give --size (--size {int(clues.max())} holds this list's largest entry)"
        raise PuzzleError(
            f"{where}: line {lines[line]}: entries must be integers from 1 to {n}, found {clues[line, col]}{based}"
        )
    r, c, d = (clues - 1).T
    cell = r * n + c
    order = np.lexsort((np.arange(cell.size), cell))
    same = np.flatnonzero((cell[order][1:] == cell[order][:-1]) & (d[order][1:] != d[order][:-1]))
    if same.size:
        a, b = order[same[0]], order[same[0] + 1]
        raise PuzzleError(
            f"{where}: cell ({r[a] + 1}, {c[a] + 1}) given two digits: {d[a] + 1} (line {lines[a]}) "
            f"and {d[b] + 1} (line {lines[b]})"
        )
    grid = np.zeros((n, n), dtype=np.int64)
    grid[r, c] = d + 1
    return grid
