"""Indexing cells: the digit in a cell says where in its row (column) the digit of its column
(row) number is (ISS ``Indexing``, column ``C`` or row ``R`` indexing)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_list_text, cell_name, check_keys, parse_cells,
                                      value_span)

__all__ = ["Indexing"]

BY = ("column", "row")


@dataclass(frozen=True, eq=False)
class Indexing(Rule):
    """Column indexing (``"by": "column"``): cell ``(r, c)`` holding ``v`` puts the digit ``c`` at
    ``(r, v)``; row indexing (``"by": "row"``): ``(r, c)`` holding ``v`` puts ``r`` at ``(v, c)``.
    ``{"rule": "indexing", "by": "column", "cells": ["r1c1", "r2c1", ...]}`` (1-based ``r, c, v``;
    one grid, not a layout: rows and columns are the grid's).

    Rows ``indexing_k_r_c_v`` (``= 0``), for listed cell ``(r, c)`` and ``v != c`` (column
    indexing): ``x[(r,c), v] - x[(r,v), c]``. The rule says ``x[(r,c),v] <= x[(r,v),c]``; the other
    way holds too because row ``r`` holds each digit once: were ``(r,v) = c`` and ``(r,c) = w != v``,
    the rule would put ``c`` at ``(r,w)`` as well. When ``(r,v)`` is listed too, the row of the
    pair is written once (at the smaller column). Row indexing is the same with rows and columns
    exchanged (labels ``indexing_k_r_c_v`` with ``v != r``).
    """

    by: str
    cell_list: tuple[int, ...]

    kind = "indexing"
    families = ("indexing",)
    description = "indexing: a cell's digit says where in its row (column) its column (row) number goes"
    noun = "indexing cell"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Indexing":
        """The indexing cells of ``{"rule": "indexing", "by": "column"|"row", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: ``by`` and the indexing ``cells``.
        board : Board
            The puzzle's board: one ``n x n`` grid (no layout), the cells on it.
        where : str
            How messages name the entry (``rules[3] (indexing)``).

        Returns
        -------
        Indexing
        """
        check_keys(data, {"by", "cells"}, where)
        by = data.get("by")
        if by not in BY:
            raise PuzzleError(f"{where}: 'by' must be column or row, found {str(by)[:20]!r}")
        if not (board.rows == board.cols == board.n and board.present.all()):
            raise PuzzleError(f"{where}: indexing needs one {board.n}x{board.n} grid, not a layout's canvas")
        if board.values:   # a digit names a row or column: it must be one of 1..N
            raise PuzzleError(f"{where}: indexing needs the values 1..{board.n}, not {value_span(board)}")
        cells = parse_cells(data.get("cells"), board, where)
        return cls(by, tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "by": self.by, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"{self.by} indexing {cell_list_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def _links(self, board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(cell, digit, target, target_digit)`` 0-based: ``cell`` holds ``digit`` exactly when
        ``target`` holds ``target_digit``, one entry per pair (listed cell, digit ``!=`` its index)."""
        n = board.n
        cells = self.cells()
        r, c = np.divmod(cells, board.cols)
        index = c if self.by == "column" else r             # the cell's own column (row) number, 0-based
        k = np.repeat(np.arange(cells.size), n)
        v = np.tile(np.arange(n), cells.size)
        keep = v != index[k]
        k, v = k[keep], v[keep]
        target = np.where(self.by == "column", r[k] * board.cols + v, v * board.cols + c[k])
        # a pair of listed cells gives one relation twice: keep it at the smaller index
        listed = np.isin(target, cells)
        drop = listed & (v < index[k])
        k, v, target = k[~drop], v[~drop], target[~drop]
        return cells[k], v, target, index[k]

    def glyphs(self, board: Board) -> list[Glyph]:
        """The indexing cells shaded (red for column indexing, blue for row indexing, as ISS)."""
        return [Glyph("shade", self.cell_list, colour="#f4c7c3" if self.by == "column" else "#c9daf8")]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``indexing_k_r_c_v`` (``= 0``): ``x[(r,c), v] - x[target, own index]`` per listed cell and digit.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n``, its width).
        index : int
            The rule's 1-based number among the puzzle's indexing rules: ``k`` in the labels.

        Returns
        -------
        list of Rows
            The one ``indexing`` block.
        """
        cell, digit, target, target_digit = self._links(board)
        m = cell.size
        r, c = np.divmod(cell, board.cols)
        return [Rows("indexing", np.repeat(np.arange(m), 2), np.stack([cell, target], axis=1).ravel(),
                     np.stack([digit, target_digit], axis=1).ravel(), np.tile([1, -1], m),
                     np.zeros(m, dtype=np.int64), "E", np.stack([np.full(m, index), r + 1, c + 1, digit + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A filled indexing cell whose target cell holds a digit other than its column (row) number.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty (an empty target is not judged).
        board : Board
            The puzzle's board (its width, for targets and cell names).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per break: the indexing cell and its target.
        """
        cells = self.cells()
        r, c = np.divmod(cells, board.cols)
        v = grid[cells]
        filled = v > 0
        cells, r, c, v = cells[filled], r[filled], c[filled], v[filled]
        own = c if self.by == "column" else r
        target = np.where(self.by == "column", r * board.cols + v - 1, (v - 1) * board.cols + c)
        held = grid[target]
        bad = np.flatnonzero((held > 0) & (held != own + 1))
        word = "column" if self.by == "column" else "row"
        return [{"message": f"{self.describe(board)}: {cell_name(cells[k], board)} holds {v[k]}, so "
                            f"{cell_name(target[k], board)} should hold its {word} number {own[k] + 1}, not {held[k]}",
                 "cells": [int(cells[k]), int(target[k])]} for k in bad.tolist()]
