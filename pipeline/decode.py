"""Vectors <-> grids for any convention (the only place that turns x into a grid)."""
from __future__ import annotations

import numpy as np

from .conventions import Convention
from .errors import PipelineError

INTEGRALITY_TOL = 1e-6


def vector_from_grid(grid: np.ndarray, conv: Convention) -> np.ndarray:
    """Completed or partial grid -> 0/1 vector over all ``N^3`` positions of ``conv``."""
    grid = np.asarray(grid)
    n = conv.n
    if grid.shape != (n, n):
        raise PipelineError(f"grid: expected {n}x{n}, found {'x'.join(map(str, grid.shape))}")
    r, c = np.nonzero(grid)
    x = np.zeros(conv.n_vars)
    x[conv.position(r, c, grid[r, c] - 1)] = 1.0
    return x


def grid_from_vector(x: np.ndarray, conv: Convention, where: str = "solution") -> np.ndarray:
    """0/1 vector over all ``N^3`` positions -> grid; refuses fractional or ambiguous vectors."""
    x = np.asarray(x, dtype=float)
    if x.shape != (conv.n_vars,):
        raise PipelineError(
            f"{where}: expected {conv.n_vars} values for a {conv.n}x{conv.n} grid ({conv.describe()}), found {x.size}"
        )
    if not np.all(np.isfinite(x)):
        k = int(np.flatnonzero(~np.isfinite(x))[0])
        raise PipelineError(f"{where}: value {x[k]} at position {k + 1} ({conv.names([k])[0]}) is not finite")
    rounded = np.rint(x)
    frac = np.abs(x - rounded)
    if frac.max(initial=0) > INTEGRALITY_TOL or rounded.min(initial=0) < 0 or rounded.max(initial=0) > 1:
        k = int(np.argmax(frac > INTEGRALITY_TOL) if frac.max() > INTEGRALITY_TOL else
                np.argmax((rounded < 0) | (rounded > 1)))
        raise PipelineError(
            f"{where}: value {x[k]:g} of {conv.names([k])[0]} (position {k + 1}) is not 0 or 1"
        )
    pos = np.flatnonzero(rounded == 1)
    r, c, d = conv.cell_digit(pos)
    n = conv.n
    per_cell = np.bincount(r * n + c, minlength=n * n)
    if per_cell.max(initial=0) > 1:
        cell = int(np.argmax(per_cell > 1))
        digits = (d[(r * n + c) == cell] + 1).tolist()
        raise PipelineError(f"{where}: cell ({cell // n + 1}, {cell % n + 1}) holds several digits {digits}")
    grid = np.zeros((n, n), dtype=np.int64)
    grid[r, c] = d + 1
    return grid
