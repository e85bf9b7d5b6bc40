"""What the line rules share (arrows, whispers, renban, between lines, ...): reading a line,
naming it, and building rows from a short list of terms per row.

A line's rows are few (the document bounds them), so they are assembled from one small array
per row and concatenated once.
"""
from __future__ import annotations

import numpy as np

from pipeline.core.rules.base import Board, Rows, cell_name, cells_text, parse_cells

__all__ = ["RowBuilder", "line_cells", "line_name", "values_text", "at_most", "at_least"]


class RowBuilder:
    """Rows of one family and sense, added one at a time as ``(cells, digits, coefs)`` terms
    (``digits`` 0-based) with a right-hand side and label indices."""

    def __init__(self, family: str, sense: str, k: int) -> None:
        self.family, self.sense, self.k = family, sense, k
        self._cells: list[np.ndarray] = []
        self._digits: list[np.ndarray] = []
        self._coefs: list[np.ndarray] = []
        self._rhs: list[int] = []
        self._labels: list[tuple[int, ...]] = []

    def add(self, cells: np.ndarray, digits: np.ndarray, coefs: np.ndarray, rhs: int, label: tuple[int, ...]) -> None:
        """One row ``sum coefs * x[cells, digits] (<= | =) rhs``.

        Parameters
        ----------
        cells, digits, coefs : ndarray of int
            The row's terms (same length; digits 0-based).
        rhs : int
            Right-hand side.
        label : tuple of int
            1-based label indices (``k`` of them).
        """
        self._cells.append(np.asarray(cells, dtype=np.int64))
        self._digits.append(np.asarray(digits, dtype=np.int64))
        self._coefs.append(np.asarray(coefs, dtype=np.int64))
        self._rhs.append(int(rhs))
        self._labels.append(tuple(label))

    def rows(self) -> Rows:
        """The rows added so far (an empty block when none)."""
        if not self._rhs:
            return Rows.empty(self.family, self.sense, self.k)
        sizes = np.array([c.size for c in self._cells])
        return Rows(self.family, np.repeat(np.arange(sizes.size), sizes), np.concatenate(self._cells),
                    np.concatenate(self._digits), np.concatenate(self._coefs), np.array(self._rhs, dtype=np.int64),
                    self.sense, np.array(self._labels, dtype=np.int64).reshape(-1, self.k))


def at_most(cell: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Terms of the indicator ``v(cell) <= d + 1`` (``d`` 0-based): ``x[cell, 0..d]``.

    Parameters
    ----------
    cell : int
        Canvas cell.
    d : int
        0-based digit.

    Returns
    -------
    (cells, digits)
    """
    digits = np.arange(d + 1)
    return np.full(digits.size, cell), digits


def at_least(cell: int, d: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Terms of the indicator ``v(cell) >= d + 1`` (``d`` 0-based): ``x[cell, d..n-1]``.

    Parameters
    ----------
    cell : int
        Canvas cell.
    d : int
        0-based digit.
    n : int
        Number of digits.

    Returns
    -------
    (cells, digits)
    """
    digits = np.arange(d, n)
    return np.full(digits.size, cell), digits


def line_cells(data: dict, board: Board, where: str, at_least_cells: int) -> tuple[int, ...]:
    """The ``"cells"`` of a line entry, in order (no cell twice; adjacency is not required).

    Parameters
    ----------
    data : dict
        The entry.
    board : Board
        The puzzle's board.
    where : str
        How messages name the entry.
    at_least_cells : int
        Fewest cells the line takes.

    Returns
    -------
    tuple of int
    """
    return tuple(int(c) for c in parse_cells(data.get("cells"), board, where, at_least=at_least_cells))


def line_name(word: str, cells: "tuple[int, ...] | np.ndarray", board: Board) -> str:
    """``whisper r1c1..r1c4``: how messages name a line.

    Parameters
    ----------
    word : str
        The rule's name in messages.
    cells : sequence of int
        The line's cells.
    board : Board
        The board.

    Returns
    -------
    str
    """
    return f"{word} {cells_text(cells, board)}"


def values_text(cells: "list[int] | np.ndarray", grid: np.ndarray, board: Board) -> str:
    """``r1c1=3, r1c2=5``: the cells a message names, with their digits.

    Parameters
    ----------
    cells : sequence of int
        Canvas cells.
    grid : ndarray
        Flat canvas grid.
    board : Board
        The board.

    Returns
    -------
    str
    """
    return ", ".join(f"{cell_name(int(c), board)}={board.value(int(grid[int(c)]))}" for c in cells)
