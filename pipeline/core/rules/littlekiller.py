"""Little killer clues: a sum outside the grid for the cells along a diagonal (digits may repeat)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.cellnames import cell_position
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, int_field, parse_cells,
                                      value_span, value_terms)

__all__ = ["LittleKiller", "diagonal_from"]



def diagonal_from(clue: tuple[int, int], step: tuple[int, int], board: Board) -> list[int]:
    """The present cells from one step past the outside ``clue`` (0-based ``(r, c)``, may lie in
    the margin: row or column -1 or the grid's size) along ``step`` until the canvas ends or a
    cell is absent.

    Parameters
    ----------
    clue : (int, int)
        Where the clue sits, 0-based.
    step : (int, int)
        The diagonal direction ``(+-1, +-1)``.
    board : Board
        The puzzle's board.

    Returns
    -------
    list of int
        Canvas numbers in order from the clue.
    """
    out = []
    r, c = clue[0] + step[0], clue[1] + step[1]
    while 0 <= r < board.rows and 0 <= c < board.cols and board.present[board.cell(r, c)]:
        out.append(board.cell(r, c))
        r, c = r + step[0], c + step[1]
    return out


@dataclass(frozen=True, eq=False)
class LittleKiller(Rule):
    """The digits along a diagonal add up to ``total``, repeats allowed:
    ``{"rule": "littlekiller", "sum": 23, "cells": ["r1c4", "r2c3", "r3c2", "r4c1"], "clue": "r0c5"}``.

    ``cells`` run along one diagonal, each a step ``(+-1, +-1)`` from the previous. ``clue``
    (optional, kept for drawing) is where the sum is written: the cell one step before the first,
    outside the grid (row or column 0, or one past the last; ``r0c5`` above); with it the cells
    must be the whole diagonal from the clue to the grid's edge.

    Rows ``littlekiller_k`` (``=``): ``sum_c v(c) = total``.
    """

    cell_list: tuple[int, ...]
    total: int
    clue: tuple[int, int] | None = None   # 0-based (r, c) outside the grid

    kind = "littlekiller"
    families = ("littlekiller",)
    description = "little killer: the digits along a diagonal add up to the clue (digits may repeat)"
    noun = "little killer clue"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "LittleKiller":
        """The clue of ``{"rule": "littlekiller", "sum": total, "cells": [...], "clue": "r0c5"}``.

        Parameters
        ----------
        data : dict
            The document entry: ``cells`` along one diagonal, their ``sum`` and an optional
            outside ``clue`` position (then the cells are its whole diagonal).
        board : Board
            The puzzle's board: the cells lie on it, the clue beside it; the sum fits ``k..k n``.
        where : str
            How messages name the entry (``rules[3] (littlekiller)``).

        Returns
        -------
        LittleKiller
        """
        check_keys(data, {"cells", "sum", "clue"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        total = int_field(data, "sum", where)
        r, c = np.divmod(cells, board.cols)
        dr, dc = np.diff(r), np.diff(c)
        if cells.size > 1 and not ((np.abs(dr) == 1).all() and (dr == dr[0]).all() and (np.abs(dc) == 1).all()
                                   and (dc == dc[0]).all()):
            k = int(np.flatnonzero((np.abs(dr) != 1) | (dr != dr[0]) | (np.abs(dc) != 1) | (dc != dc[0]))[0])
            raise PuzzleError(f"{where}: the cells must run along one diagonal; {cell_name(cells[k], board)} to "
                              f"{cell_name(cells[k + 1], board)} leaves it")
        clue = None
        if data.get("clue") is not None:
            clue = _parse_clue(data["clue"], board, where)
            step = (int(r[0]) - clue[0], int(c[0]) - clue[1])
            if abs(step[0]) != 1 or abs(step[1]) != 1 or (cells.size > 1 and step != (int(dr[0]), int(dc[0]))):
                raise PuzzleError(f"{where}: clue {data['clue']} is not one diagonal step before "
                                  f"{cell_name(cells[0], board)} in the direction of the cells")
            whole = diagonal_from(clue, step, board)
            if whole != cells.tolist():
                raise PuzzleError(f"{where}: clue {data['clue']} sees {len(whole)} cells "
                                  f"({cells_text(whole, board)}), not the {cells.size} listed")
        k = int(cells.size)
        low, high = k * int(board.value_of.min()), k * int(board.value_of.max())
        if not low <= total <= high:
            raise PuzzleError(f"{where}: little killer sum {total} cannot be made by {k} digits {value_span(board)} "
                              f"(possible sums: {low}..{high})")
        return cls(tuple(int(x) for x in cells), total, clue)

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "sum": self.total, "cells": [cell_name(c, board) for c in self.cell_list]}
        if self.clue is not None:
            out["clue"] = f"r{self.clue[0] + 1}c{self.clue[1] + 1}"
        return out

    def describe(self, board: Board) -> str:
        return f"little killer {cells_text(self.cell_list, board)} (sum {self.total})"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def step(self, board: Board) -> tuple[int, int]:
        """The diagonal's direction ``(dr, dc)`` from the clue (``(1, 1)`` for one cell without a clue)."""
        r, c = divmod(self.cell_list[0], board.cols)
        if self.clue is not None:
            return r - self.clue[0], c - self.clue[1]
        if len(self.cell_list) > 1:
            r2, c2 = divmod(self.cell_list[1], board.cols)
            return r2 - r, c2 - c
        return 1, 1

    def glyphs(self, board: Board) -> list[Glyph]:
        """The sum beside the first cell, with the diagonal's arrow."""
        return [Glyph("outside", (self.cell_list[0],), label=str(self.total), step=self.step(board))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``littlekiller_k`` (``=``): the values along the diagonal add up to the sum.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The clue's 1-based number among the puzzle's little killer clues: ``k`` in the label.

        Returns
        -------
        list of Rows
            The one ``littlekiller`` block, one row.
        """
        cells = self.cells()
        row, cell, digit, coef = value_terms(cells[None, :], np.ones((1, cells.size), dtype=np.int64), board)
        return [Rows("littlekiller", row, cell, digit, coef, np.array([self.total]), "E", np.array([[index]]))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A full diagonal off its sum, or a partial one that the empty cells (``1..n`` each)
        can no longer bring to it.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (``n``, cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry.
        """
        values = grid[self.cells()]
        filled = values[values > 0]
        total, empty = int(board.grid_values(filled).sum()), int(values.size - filled.size)
        least, most = int(board.value_of.min()), int(board.value_of.max())
        name = self.describe(board)
        if not empty and total != self.total:
            return [{"message": f"{name}: the digits add up to {total}", "cells": list(self.cell_list)}]
        if empty and total + empty * least > self.total:
            return [{"message": f"{name}: the digits given add up to {total}, leaving less than {least} for each of "
                                f"the {empty} empty cell(s)", "cells": list(self.cell_list)}]
        if empty and total + empty * most < self.total:
            return [{"message": f"{name}: the digits given add up to {total}; {empty} empty cell(s) of at most "
                                f"{most} cannot reach it", "cells": list(self.cell_list)}]
        return []


def _parse_clue(text: object, board: Board, where: str) -> tuple[int, int]:
    """``"r0c5"``: 1-based row and column, 0 or one past the grid for the margin -> 0-based (r, c),
    which must lie outside the canvas's cells (or on an absent cell of a layout)."""
    place = cell_position(text)
    if place is None:
        raise PuzzleError(f"{where}: 'clue' must be an outside position like \"r0c5\", found {clip(text, 40)!r}")
    r, c = place[0] - 1, place[1] - 1
    if not (-1 <= r <= board.rows and -1 <= c <= board.cols):
        raise PuzzleError(f"{where}: clue {text} is not beside the {board.rows}x{board.cols} grid")
    if 0 <= r < board.rows and 0 <= c < board.cols and board.present[board.cell(r, c)]:
        raise PuzzleError(f"{where}: clue {text} is a cell of the grid, not a place outside it")
    return r, c
