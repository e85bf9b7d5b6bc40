"""Cell names in puzzle documents and messages: ``"r3c5"`` (1-based, any case) <-> the canvas
number ``r * cols + c`` (0-based), extra cells by their own names (:mod:`pipeline.core.extracells`).
:mod:`pipeline.core.rules.base` exports them beside the board they are read against.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.core.errors import clip, PuzzleError, some_of
from pipeline.core.extracells import extra_index, extra_name

if TYPE_CHECKING:
    from pipeline.core.rules.base import Board

__all__ = ["cell_list_text", "cell_name", "cell_pattern", "cell_position", "cells_text", "given_pattern", "parse_cell",
           "parse_cells"]


def cell_pattern(digits: str = "{1,4}", gap: str = r"\s*") -> str:
    """The regular expression text of a cell name, ``r3c5`` in any case, its row and column the
    first two groups: the one spelling every reader of names builds on (a given's ``r3c5=7``, the
    margin's ``r0c3``, a layout's corner, ``--highlight``).

    Parameters
    ----------
    digits : str
        The quantifier of each number's digits (``"{1,4}"``; ``"+"`` for any length).
    gap : str
        What may stand between the row and the ``c`` (spaces by default; ``""`` for none).

    Returns
    -------
    str
    """
    return rf"[rR]([0-9]{digits}){gap}[cC]([0-9]{digits})"


def given_pattern(value_digits: int) -> re.Pattern[str]:
    """``r3c5=7`` (spaces around each part, any case): row, column and the value (a minus sign
    allowed) as groups 1 to 3.

    Parameters
    ----------
    value_digits : int
        Most digits of the value.

    Returns
    -------
    re.Pattern
    """
    return re.compile(rf"^\s*{cell_pattern()}\s*=\s*(-?[0-9]{{1,{value_digits}}})\s*$")


_CELL = re.compile(rf"^\s*{cell_pattern()}\s*$")


def cell_position(text: Any) -> tuple[int, int] | None:
    """1-based ``(row, column)`` of a cell name (``"r3c5"``, any case, spaces around), None for
    anything else (an extra cell's ``S3``, ``[3, 5]``, not a string). No range check: a clue beside
    the grid is ``r0c3``; :func:`parse_cell` checks against the board. The one reading of a name
    that the formats' readers and writers share."""
    m = _CELL.match(text) if isinstance(text, str) else None
    return (int(m.group(1)), int(m.group(2))) if m is not None else None


def parse_cell(text: Any, board: Board, where: str) -> int:
    """``"r3c5"`` (1-based, any case) or ``[3, 5]`` -> the canvas number of the cell; PuzzleError
    naming ``where`` when it is not a cell reference or lies outside the grid.

    Parameters
    ----------
    text : object
        The reference.
    board : Board
        The puzzle's board.
    where : str
        How messages name the rule.

    Returns
    -------
    int
    """
    pair = cell_position(text) or _row_column_pair(text)
    if pair is None and (k := extra_index(text, board.extra)) is not None:
        return board.n_cells + k
    if pair is None:
        also = f", or an extra cell such as {extra_name(0, board.extra)}" if board.extra else ""
        raise PuzzleError(f"{where}: {clip(text, 40)!r} is not a cell (expected r<row>c<column> or [row, column], "
                          f"1-based, e.g. r1c1 or [1, 1]{also})")
    r, c = pair
    if not (1 <= r <= board.rows and 1 <= c <= board.cols):
        raise PuzzleError(f"{where}: cell r{r}c{c} is outside the {board.rows}x{board.cols} grid")
    cell = board.cell(r - 1, c - 1)
    if not board.present[cell]:
        raise PuzzleError(f"{where}: cell r{r}c{c} is not part of the puzzle (outside every grid of the layout)")
    return cell


def _row_column_pair(value: Any) -> tuple[int, int] | None:
    """``[row, column]`` (two integers, 1-based, as JSON and MATLAB users write a cell) as a pair;
    None for anything else (a float such as 1.0, a boolean, three numbers)."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and \
            all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return int(value[0]), int(value[1])
    return None


#: Canvases up to this many cells have every cell's name looked up in one dict (built once per size).
_NAMED_CELLS = 1 << 14


@lru_cache(maxsize=16)
def _cell_numbers(rows: int, cols: int) -> dict[str, int]:
    """Each ``"r<row>c<col>"`` (1-based, lower case) of a ``rows x cols`` canvas -> its canvas number."""
    return {f"r{r + 1}c{c + 1}": r * cols + c for r in range(rows) for c in range(cols)}


def parse_cells(value: Any, board: Board, where: str, *, at_least: int = 1) -> np.ndarray:
    """A list of cell references -> their canvas numbers (each at most once).

    Parameters
    ----------
    value : object
        The ``"cells"`` list.
    board : Board
        The puzzle's board.
    where : str
        How messages name the rule.
    at_least : int
        Fewest cells the rule takes.

    Returns
    -------
    ndarray of int64
    """
    if not isinstance(value, (list, tuple)) or not value:
        raise PuzzleError(f"{where}: 'cells' must be a non-empty list of cells like \"r1c1\"")
    try:   # the usual "r3c5", one lookup each; anything else (case, spaces, extra cells, errors) below
        if board.rows * board.cols > _NAMED_CELLS:
            raise KeyError("a canvas too large to name every cell")
        cells = np.array([_cell_numbers(board.rows, board.cols)[v] for v in value], dtype=np.int64)
        if not board.present[cells].all():
            raise KeyError("outside the layout")
    except (KeyError, TypeError):
        cells = np.array([parse_cell(v, board, where) for v in value], dtype=np.int64)
    ordered = np.sort(cells)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]   # not np.unique: it imports numpy.ma (7 ms of a solve)
    if repeated.size:   # the first listed cell that repeats (sorted, not a count per cell: 300,000 cells)
        twice = cells[np.argmax(np.isin(cells, repeated))]
        raise PuzzleError(f"{where}: cell {cell_name(int(twice), board)} is listed twice")
    if cells.size < at_least:
        raise PuzzleError(f"{where}: needs at least {at_least} cells, found {cells.size}")
    return cells


def cell_name(cell: int, board: Board) -> str:
    """``r3c5`` (1-based) of a canvas number.

    Parameters
    ----------
    cell : int
        Canvas number.
    board : Board
        The board (its width).

    Returns
    -------
    str
    """
    if cell >= board.n_cells and board.extra:
        return extra_name(int(cell) - board.n_cells, board.extra)
    r, c = divmod(int(cell), board.cols)
    return f"r{r + 1}c{c + 1}"


def cells_text(cells: "np.ndarray | tuple[int, ...] | list[int]", board: Board) -> str:
    """``r1c1..r2c1`` for a cage/thermometer (first and last), ``r1c1`` for one cell.

    Parameters
    ----------
    cells : sequence of int
        Canvas numbers, in the rule's order.
    board : Board
        The board (its width).

    Returns
    -------
    str
    """
    cells = [int(c) for c in cells]
    if len(cells) == 1:
        return cell_name(cells[0], board)
    return f"{cell_name(cells[0], board)}..{cell_name(cells[-1], board)}"


def cell_list_text(cells: "np.ndarray | tuple[int, ...] | list[int]", board: Board, shown: int = 6) -> str:
    """``r1c1, r2c2, r3c3`` for a set of cells (even/odd marks, an extra region); past ``shown``
    cells the rest are counted (``r1c1, ..., r2c4 and 3 more``).

    Parameters
    ----------
    cells : sequence of int
        Canvas numbers.
    board : Board
        The board (its width).
    shown : int
        Cells named at most.

    Returns
    -------
    str
    """
    return some_of([cell_name(int(c), board) for c in cells], shown)
