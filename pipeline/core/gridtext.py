"""Grids as text: the compact line (``.`` empty, ``1-9A-Z``) and the boxed, human-readable
grid. ``pipeline.core.puzzle`` re-exports both (where callers have always imported them)."""
from __future__ import annotations

import numpy as np

from pipeline.core.parse import COMPACT_DIGITS
from pipeline.core.values import grid_values


def grid_to_string(grid: np.ndarray, n: int | None = None) -> str:
    """Compact line (``.`` empty, ``1-9A-Z``) when N <= 35, else space-separated integers.

    Parameters
    ----------
    grid : ndarray of int
        The grid (or a layout's canvas), 0 = empty.
    n : int, optional
        The number of digits (default: the grid's side).

    Returns
    -------
    str
    """
    grid = np.asarray(grid)
    if (grid.shape[0] if n is None else n) <= len(COMPACT_DIGITS):
        alphabet = np.array(list("." + COMPACT_DIGITS))
        return "".join(alphabet[grid.ravel()])
    return " ".join(map(str, grid.ravel()))


def format_grid(grid: np.ndarray, h: int | None = None, w: int | None = None,
                values: tuple[int, ...] | None = None) -> str:
    """Human-readable grid (``.`` for empty), with box separators when the box shape is given.

    Parameters
    ----------
    grid : numpy.ndarray
        ``(N, N)``, 0 for empty.
    h, w : int, optional
        Box shape: separators between boxes.
    values : tuple of int, optional
        The puzzle's value set: digits are shown as their values (:mod:`pipeline.core.values`).
    """
    grid = np.asarray(grid)
    n, cols = grid.shape[0], grid.shape[1]
    shown = grid_values(grid, values)
    top = len(str(max(n, cols)))
    width = max(top, *(len(str(v)) for v in values)) if values else top
    cells = np.where(grid > 0, np.char.rjust(shown.astype(str), width), ".".rjust(width))
    lines = []
    for r in range(n):
        chunks = [" ".join(cells[r, k:k + w]) for k in range(0, cols, w)] if w else [" ".join(cells[r])]
        line = " | ".join(chunks)
        if h and r and r % h == 0:
            lines.append("".join("+" if ch == "|" else "-" for ch in line))
        lines.append(line)
    return "\n".join(lines)
