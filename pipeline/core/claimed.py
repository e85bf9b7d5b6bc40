"""A claimed solution read for its puzzle: the grid as the command line prints it (in the
puzzle's values, a rectangular grid in its rows and columns, a gattai layout's whole canvas) and
the lines of its extra cells (``S: 1 2 3``). ``verify`` reads its GRID this way, and so does
:func:`pipeline.verify` for text and files."""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from pipeline.core.extracells import split_extra_lines
from pipeline.core.hexadoku import ZERO_BASED_SIDE, Alphabet
from pipeline.core.parse import parse_grid
from pipeline.core.puzzle import Puzzle
from pipeline.core.rect import read_rect_grid
from pipeline.core.values import parse_value_grid

__all__ = ["read_claimed_grid", "zero_based_puzzle"]


def read_claimed_grid(source: Any, puzzle: Puzzle, box: Any = None,
                      reading: list | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """The grid of ``source`` (digit indices ``1..V``) and the digits of the puzzle's extra cells
    when the text names them (else None).

    A 16x16 puzzle written in ``0-F`` with no ``0`` clue reads as ``1-G`` (its clues mean the same
    values either way, bar ``0`` and ``G``): an answer to it with ``0`` cells and no ``G`` (at most
    one ``0`` a row and a column, :func:`pipeline.core.hexadoku.zero_based_kinds`), or written as
    numbers with ``0`` cells and no 16 by the same rule, is read in ``0-F``, not with its ``0``
    cells empty. Its ``0`` is then the puzzle's digit 16, the one no
    clue holds (:func:`_either_reading`), so the verdict is the same for the 1-G puzzle; with
    ``reading`` the grid is in the digits of :func:`zero_based_puzzle`, appended to it.

    Parameters
    ----------
    source : str, path, ndarray or list
        The grid as ``solve`` prints it: in the puzzle's values.
    puzzle : Puzzle
        The puzzle it claims to solve (its shape, values and extra cells).
    box : str or (int, int), optional
        Box shape for reading a grid of classic values (``--box``).
    reading : list, optional
        Gets the puzzle in the values the answer was read in when that is ``0-F`` and the puzzle's
        own reading ``1-G`` (draw it, name its values in ``0-F``); the grid is then in its digits.

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
    if not _either_reading(puzzle):
        return parse_grid(lines, box=box, size=rows if rows == cols else None), extra
    alphabet = Alphabet(answer=True)
    grid = parse_grid(lines, box=box, size=rows, alphabet=alphabet)
    if not alphabet:   # 1-G as the puzzle: a 'G', or '0' twice in a row (empty cells)
        return grid, extra
    if reading is not None:
        reading.append(zero_based_puzzle(puzzle))
        return grid, extra
    # 0-F digit d (value d - 1) is the 1-G puzzle's digit d - 1, and the value 0 its unused 16
    return np.where(grid > 1, grid - 1, np.where(grid == 1, ZERO_BASED_SIDE, 0)), extra


def _either_reading(puzzle: Puzzle) -> bool:
    """Could ``puzzle`` be a 0-F puzzle read as 1-G? A plain 16x16 in the values 1..16 whose clues
    hold no 16 (``G``; a ``0`` clue would have made it 0-F) and nothing that reads the values
    (rules, extra cells, a layout): only the answer tells its alphabet."""
    return (puzzle.n == ZERO_BASED_SIDE and puzzle.grid.shape == (ZERO_BASED_SIDE, ZERO_BASED_SIDE)
            and puzzle.values is None and puzzle.layout is None and not puzzle.rules and not puzzle.extra
            and not bool((puzzle.grid == ZERO_BASED_SIDE).any()))


def zero_based_puzzle(puzzle: Puzzle) -> Puzzle:
    """``puzzle`` (a 16x16 in the values 1..16 with no 16 clue) in hexadoku's values ``0..15``: each
    clue the same value, so its digit one more (the digit of value 0 is 1).

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle as read in ``1-G``.

    Returns
    -------
    Puzzle

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> hexa = zero_based_puzzle(parse_puzzle("12" + "." * 254))
    >>> hexa.values[:3], hexa.grid[0, :3].tolist()
    ((0, 1, 2), [2, 3, 0])
    """
    grid = np.where(puzzle.grid > 0, puzzle.grid + 1, 0)
    return dataclasses.replace(puzzle, grid=grid, values=tuple(range(ZERO_BASED_SIDE)))
