"""Indexing cells: the digit in a cell says where in its row (column) the digit of its column
(row) number is (ISS ``Indexing``, column ``C`` or row ``R`` indexing)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.base import Board, Glyph, Rows, Rule, cell_list_text, cell_name, check_keys, parse_cells

__all__ = ["Indexing"]

BY = ("column", "row")


@dataclass(frozen=True, eq=False)
class Indexing(Rule):
    """Column indexing (``"by": "column"``): cell ``(r, c)`` holding ``v`` puts the digit ``c`` at
    ``(r, v)``; row indexing (``"by": "row"``): ``(r, c)`` holding ``v`` puts ``r`` at ``(v, c)``.
    ``{"rule": "indexing", "by": "column", "cells": ["r1c1", "r2c1", ...]}`` (1-based ``r, c, v``;
    one grid, not a layout: rows and columns are the grid's).

    Value sets follow ISS (its ``Indexing`` on a ``0..N-1`` grid): the listed cell's value ``V``
    is a 1-based position, so it must be one of ``1..N``, and the target holds the value ``c``
    (the 1-based column number), which must be a value of the set (on ``0..8`` a cell of column
    9 cannot be an indexing cell).

    Rows ``indexing_k_r_c_d`` (``= 0``), for listed cell ``(r, c)`` and digit ``d`` (value ``V``)
    with ``V != c`` in ``1..N`` (column indexing): ``x[(r,c), d] - x[(r,V), digit of c]``. The rule
    says ``x[(r,c),d] <= x[(r,V),c]``; the other way holds too because row ``r`` holds each value
    once: were ``(r,V) = c`` and ``(r,c) = W != V``, the rule would put ``c`` at ``(r,W)`` as well
    (or at ``(r,c)`` itself when ``W = c``). When ``(r,V)`` is listed too, the row of the pair is
    written once (at the smaller column). A digit whose value is outside ``1..N`` (or every digit,
    when ``c`` is not a value of the set) gets the one-term row ``x[(r,c), d] = 0`` under the same
    label. Row indexing is the same with rows and columns exchanged.
    """

    by: str
    cell_list: tuple[int, ...]

    kind = "indexing"
    families = ("indexing",)
    needs_lines = True   # the reverse implication holds because a row (column) holds each value once
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
            raise PuzzleError(f"{where}: 'by' must be column or row, found {clip(by)!r}")
        if board.grids or not board.present.all():   # one grid (square, or a rectangle: ISS indexes its lines)
            raise PuzzleError(f"{where}: indexing needs one grid, found {board.shape_text}")
        cells = parse_cells(data.get("cells"), board, where)
        if (cells >= board.n_cells).any():   # its rows are the grid's rows and columns
            raise PuzzleError(f"{where}: indexing cells are grid cells; "
                              f"{cell_name(int(cells[cells >= board.n_cells][0]), board)} is an extra cell")
        return cls(by, tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "by": self.by, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"{self.by} indexing {cell_list_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def _links(self, board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(cell, digit, target, target_digit)`` 0-based: ``cell`` holds ``digit`` exactly when
        ``target`` holds ``target_digit``, one entry per pair (listed cell, digit whose value is a
        position other than its own index); ``target = -1`` marks a digit the cell cannot hold (its
        value names no position, or the cell's own number is not a value of the set)."""
        n = board.cols if self.by == "column" else board.rows   # positions of the line (N on a square)
        cells = self.cells()
        r, c = np.divmod(cells, board.cols)
        index = c if self.by == "column" else r             # the cell's own column (row) number, 0-based
        n_values = board.n_values
        k = np.repeat(np.arange(cells.size), n_values)
        d = np.tile(np.arange(n_values), cells.size)
        p = board.value_of[d] - 1                           # the position the digit's value names, 0-based
        want = board.index_of(index + 1)[k]                 # the digit of the own number (-1: none)
        bad = (p < 0) | (p >= n) | (want < 0)
        keep = bad | (p != index[k])
        k, d, p, want, bad = k[keep], d[keep], p[keep], want[keep], bad[keep]
        q = np.clip(p, 0, n - 1)
        target = np.where(self.by == "column", r[k] * board.cols + q, q * board.cols + c[k])
        # a pair of listed cells gives one relation twice: keep it at the smaller index
        drop = ~bad & np.isin(target, cells) & (p < index[k])
        keep = ~drop
        return cells[k][keep], d[keep], np.where(bad, -1, target)[keep], want[keep]

    def glyphs(self, board: Board) -> list[Glyph]:
        """The indexing cells shaded (red for column indexing, blue for row indexing, as ISS)."""
        return [Glyph("shade", self.cell_list, colour="#f4c7c3" if self.by == "column" else "#c9daf8")]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``indexing_k_r_c_d`` (``= 0``): ``x[(r,c), d] - x[target, own number]`` per listed cell and
        digit, or ``x[(r,c), d]`` alone for a digit whose value names no position (class docstring).

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
        linked = target >= 0
        width = 1 + linked.astype(np.int64)                 # two terms, or one (a digit the cell cannot hold)
        row = np.repeat(np.arange(m), width)
        pairs = np.stack([cell, target], axis=1).ravel()
        digits = np.stack([digit, target_digit], axis=1).ravel()
        coefs = np.tile([1, -1], m)
        used = np.stack([np.ones(m, dtype=bool), linked], axis=1).ravel()
        return [Rows("indexing", row, pairs[used], digits[used], coefs[used],
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
        filled = grid[cells] > 0
        cells, r, c = cells[filled], r[filled], c[filled]
        v = board.grid_values(grid[cells])
        own = c if self.by == "column" else r
        word = "column" if self.by == "column" else "row"
        n = board.cols if self.by == "column" else board.rows
        out = [{"message": f"{self.describe(board)}: {cell_name(cells[k], board)} holds {v[k]}, which names no {word} "
                           f"(1..{n})", "cells": [int(cells[k])]}
               for k in np.flatnonzero((v < 1) | (v > n)).tolist()]
        q = np.clip(v - 1, 0, n - 1)
        target = np.where(self.by == "column", r * board.cols + q, q * board.cols + c)
        held = board.grid_values(grid[target])
        bad = np.flatnonzero((v >= 1) & (v <= n) & (grid[target] > 0) & (held != own + 1))
        return out + [{"message": f"{self.describe(board)}: {cell_name(cells[k], board)} holds {v[k]}, so "
                                  f"{cell_name(target[k], board)} should hold its {word} number {own[k] + 1}, "
                                  f"not {held[k]}", "cells": [int(cells[k]), int(target[k])]} for k in bad.tolist()]
