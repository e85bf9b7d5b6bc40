"""A claimed solution read for its puzzle: the grid as the command line prints it (in the
puzzle's values, a rectangular grid in its rows and columns, a gattai layout's whole canvas) and
the lines of its extra cells (``S: 1 2 3``). ``verify`` reads its GRID this way, and so does
:func:`pipeline.verify` for text and files."""
from __future__ import annotations

from typing import Any

import numpy as np

from pipeline.core.extracells import split_extra_lines
from pipeline.core.parse import parse_grid
from pipeline.core.puzzle import Puzzle
from pipeline.core.rect import read_rect_grid
from pipeline.core.values import parse_value_grid

__all__ = ["read_claimed_grid"]


def read_claimed_grid(source: Any, puzzle: Puzzle, box: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
    """The grid of ``source`` (digit indices ``1..V``) and the digits of the puzzle's extra cells
    when the text names them (else None).

    Parameters
    ----------
    source : str, path, ndarray or list
        The grid as ``solve`` prints it: in the puzzle's values.
    puzzle : Puzzle
        The puzzle it claims to solve (its shape, values and extra cells).
    box : str or (int, int), optional
        Box shape for reading a grid of classic values (``--box``).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray or None)

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> puzzle = parse_puzzle({"size": 4, "values": "0-3", "givens": "0..............."})
    >>> read_claimed_grid("0123230110323210", puzzle)[0][0].tolist()   # values 0..3 are digits 1..4
    [1, 2, 3, 4]
    """
    lines, extra = split_extra_lines(source, puzzle) if puzzle.extra else (source, None)
    # the side of the whole grid: a gattai layout's canvas (21 for a samurai), not one grid's N
    rows, cols = puzzle.grid.shape
    if puzzle.is_rect or rows != cols:   # a rectangular grid or canvas (two grids side by side): rows x cols
        return read_rect_grid(lines, rows, cols, puzzle.values, puzzle.n), extra
    if puzzle.values is not None and rows == cols:   # in its values (0 is a value of 0..8)
        return parse_value_grid(lines, rows, tuple(puzzle.values)), extra
    return parse_grid(lines, box=box, size=rows if rows == cols else None), extra
