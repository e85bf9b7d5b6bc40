"""Gattai layouts: overlapping ``N x N`` grids on one canvas (samurai and its kin).

A layout is a canvas of ``rows x cols`` cells and the top-left corners of its grids; a canvas
cell belongs to the puzzle when some grid covers it (absent cells hold no digit and have no
variables). Each grid brings its rows, columns and ``h x w`` boxes as units; a box shared by two
grids (the samurai's corner boxes) is one unit. Unit numbering (the ``g`` of ``row_g_d``):

* rows and columns: grid by grid in the layout's order, each grid's own rows top to bottom
  (columns left to right): grid ``k``'s row ``r`` (1-based) is unit ``(k - 1) * N + r``;
* boxes: every distinct box once, numbered row-major over the canvas by its top-left cell.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.parse import COMPACT_DIGITS, MAX_TOKEN_DIGITS
from pipeline.core.rules.cellnames import cell_pattern

__all__ = ["Layout", "samurai", "LAYOUT_NAMES", "layout_from_spec", "canvas_from_text"]

#: Most grids a layout may hold (the largest published gattai have around a dozen).
MAX_GRIDS = 64
#: Largest row or column of a grid's corner in ``{"grids": ["r1c13", ...]}``.
MAX_CORNER = 999
#: Most canvas cells per cell of the grids (samurai: 1.2; a chain of 20 9x9 grids touching
#: corner to corner: 10.4): beyond it the empty canvas, modelled too, would dominate the cost.
MAX_CANVAS_PER_CELL = 16


@dataclass(frozen=True)
class Layout:
    """Grids of side ``n`` with ``h x w`` boxes at ``origins`` (0-based top-left cells)."""

    name: str
    n: int
    h: int
    w: int
    origins: tuple[tuple[int, int], ...]

    def __post_init__(self):
        if not self.origins:
            raise PuzzleError("layout: no grids")
        if len(self.origins) > MAX_GRIDS:
            raise PuzzleError(f"layout: {len(self.origins)} grids; at most {MAX_GRIDS}")
        if any(r < 0 or c < 0 for r, c in self.origins):
            raise PuzzleError("layout: grid corners must be inside the canvas (row and column >= 1)")
        if len(set(self.origins)) != len(self.origins):
            raise PuzzleError("layout: two grids at the same place")
        r0 = min(r for r, _ in self.origins)
        c0 = min(c for _, c in self.origins)
        if (r0, c0) != (0, 0) and (r0 > 0 or c0 > 0):
            # a canvas starts at its first grid: shift so that rows and columns 1.. are used
            object.__setattr__(self, "origins", tuple((r - r0, c - c0) for r, c in self.origins))
        if any(r % self.h or c % self.w for r, c in self.origins):
            grid = next(k for k, (r, c) in enumerate(self.origins) if r % self.h or c % self.w)
            raise PuzzleError(f"layout: grid {grid + 1} does not sit on the {self.h}x{self.w} box lattice "
                              "(overlapping grids must share whole boxes)")

    @property
    def rows(self) -> int:
        return max(r for r, _ in self.origins) + self.n

    @property
    def cols(self) -> int:
        return max(c for _, c in self.origins) + self.n

    @property
    def n_grids(self) -> int:
        return len(self.origins)

    def grid_cells(self) -> np.ndarray:
        """``(G, N, N)`` canvas numbers of each grid's cells."""
        n, cols = self.n, self.cols
        local = np.arange(n)[:, None] * cols + np.arange(n)[None, :]
        return np.stack([r * cols + c + local for r, c in self.origins])

    def present(self) -> np.ndarray:
        """``(rows * cols,)`` True where a grid covers the cell."""
        mask = np.zeros(self.rows * self.cols, dtype=bool)
        mask[self.grid_cells().ravel()] = True
        return mask

    def unit_families(self) -> list[tuple[str, np.ndarray]]:
        """``[("row", ...), ("col", ...), ("box", ...)]`` as the module docstring numbers them."""
        grids = self.grid_cells()
        n, h, w = self.n, self.h, self.w
        rows = grids.reshape(-1, n)
        cols = grids.transpose(0, 2, 1).reshape(-1, n)
        boxes = grids.reshape(-1, n // h, h, n // w, w).transpose(0, 1, 3, 2, 4).reshape(-1, n)
        boxes = np.unique(np.sort(boxes, axis=1), axis=0)     # shared boxes once, by top-left cell
        return [("row", rows), ("col", cols), ("box", boxes)]

    def grid_of_units(self) -> dict[str, np.ndarray]:
        """Which grid (0-based) each row and column unit belongs to (messages name it)."""
        k = np.repeat(np.arange(self.n_grids), self.n)
        return {"row": k, "col": k}

    def to_spec(self):
        """The document form: the layout's name, or ``{"grids": [...], "box": "HxW"}``."""
        if self.h == self.w and self == samurai(self.h, self.w):   # samurai needs square boxes
            return "samurai"
        return {"grids": [f"r{r + 1}c{c + 1}" for r, c in self.origins]}


def samurai(h: int = 3, w: int = 3) -> Layout:
    """Five ``N x N`` grids (``N = h * w``, square boxes): four corners and a centre grid sharing one
    box with each (9x9: a 21x21 canvas).

    Parameters
    ----------
    h, w : int
        Box shape of each grid (square).

    Returns
    -------
    Layout
    """
    if h != w:
        raise PuzzleError(f"layout: samurai needs square boxes, found {h}x{w}")
    n = h * w
    far = 2 * (n - h)
    return Layout("samurai", n, h, w, ((0, 0), (0, far), (far, 0), (far, far), (n - h, n - w)))


LAYOUT_NAMES = ("samurai",)


def layout_from_spec(spec: str | dict, h: int, w: int, where: str = "layout") -> Layout:
    """A layout from the document's ``"layout"``: ``"samurai"``, or ``{"grids": ["r1c1", ...]}``
    (each grid's top-left cell, 1-based, on the canvas).

    Parameters
    ----------
    spec : str or dict
        The document's ``"layout"``.
    h, w : int
        Box shape of each grid.
    where : str
        How messages name it.

    Returns
    -------
    Layout
    """
    if spec == "samurai":
        return samurai(h, w)
    if isinstance(spec, dict) and set(spec) <= {"grids"} and isinstance(spec.get("grids"), list):
        origins = []
        for k, text in enumerate(spec["grids"]):
            if not isinstance(text, str):
                raise PuzzleError(f"{where}: grids[{k}] must be a cell like \"r1c13\", found {clip(text)!r}")
            m = re.fullmatch(rf"\s*{cell_pattern('{1,9}', '')}\s*", text)
            if m is None:
                raise PuzzleError(f"{where}: grids[{k}] {clip(text)!r} is not a cell like \"r1c13\"")
            row, col = int(m.group(1)), int(m.group(2))
            if not (1 <= row <= MAX_CORNER and 1 <= col <= MAX_CORNER):
                raise PuzzleError(f"{where}: grids[{k}] {text.strip()!r}: a corner's row and column must be 1 to "
                                  f"{MAX_CORNER}")
            origins.append((row - 1, col - 1))
        layout = Layout("custom", h * w, h, w, tuple(origins))
        # every canvas cell is modelled (N variables each): grids far apart would cost time and
        # memory for the empty canvas between them, unbounded by the puzzle's own size
        cells = int(np.unique(layout.grid_cells()).size)   # without the canvas itself
        if layout.rows * layout.cols > MAX_CANVAS_PER_CELL * cells:
            raise PuzzleError(f"{where}: the grids span a {layout.rows}x{layout.cols} canvas for {cells} cells; "
                              f"at most {MAX_CANVAS_PER_CELL} canvas cells per cell of the puzzle (the whole canvas "
                              "is modelled): place the grids so that they touch or overlap")
        return layout
    raise PuzzleError(f"{where}: expected \"samurai\" or {{\"grids\": [\"r1c1\", ...]}}, found {clip(spec, 40)!r}")


def canvas_from_text(text: str, layout: Layout, where: str) -> np.ndarray:
    """The ``rows x cols`` canvas grid of a layout from compact text (one character per canvas
    cell, row-major, ``.``/``0`` empty or absent; whitespace and line breaks are ignored) or
    space-separated integers.

    Parameters
    ----------
    text : str
        The canvas text.
    layout : Layout
        Its grids and canvas size.
    where : str
        How messages name the text.

    Returns
    -------
    ndarray of int64, shape (rows, cols)
    """
    if not isinstance(text, str):
        raise PuzzleError(f"{where}: expected the canvas as text, found {type(text).__name__}")
    size = layout.rows * layout.cols
    tokens = text.split()
    if len(tokens) == size:
        numbers = [_canvas_value(tok, where, k) for k, tok in enumerate(tokens)]
        return np.array(numbers, dtype=np.int64).reshape(layout.rows, layout.cols)
    compact = "".join(tokens)
    if len(compact) != size:
        raise PuzzleError(f"{where}: a {layout.name} canvas has {layout.rows}x{layout.cols} = {size} cells, "
                          f"found {len(compact)} characters")
    table = np.full(256, -1, dtype=np.int64)
    for value, char in enumerate("." + COMPACT_DIGITS):
        table[ord(char)] = table[ord(char.lower())] = value
    table[ord("0")] = 0
    values = table[np.frombuffer(compact.encode("ascii", "replace"), dtype=np.uint8)]
    if (values < 0).any():
        k = int(np.argmax(values < 0))
        raise PuzzleError(f"{where}: character {compact[k]!r} at cell {k + 1} is not a digit or '.'")
    return values.reshape(layout.rows, layout.cols)


def _canvas_value(tok: str, where: str, k: int) -> int:
    if tok in (".", "0"):
        return 0
    # ASCII only: str.isdigit and int() take any script's digits ('٥'), a compact canvas does not
    if not (tok.isascii() and tok.isdigit()) or len(tok) > MAX_TOKEN_DIGITS:
        raise PuzzleError(f"{where}: cell {k + 1} is {clip(tok)!r}, not a digit")
    return int(tok)
