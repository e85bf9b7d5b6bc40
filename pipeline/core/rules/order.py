"""Order rules over cell values ``v(c) = sum_d d * x[c, d]``: thermometers and greater-than signs."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, adjacent, cell_name, cells_text, check_keys, king_step, parse_cells,
                                      value_span, value_terms)
from pipeline.core.rules.rowblocks import ragged_positions

__all__ = ["Thermometer", "Greater"]


def _less_rows(family: str, smaller: np.ndarray, larger: np.ndarray, labels: np.ndarray, n: "int | Board") -> Rows:
    """``v(smaller) - v(larger) <= -1`` per entry: each a ``>=`` rule written as its negation."""
    pairs = np.stack([smaller, larger], axis=1)
    signs = np.tile(np.array([1, -1]), (pairs.shape[0], 1))
    row, cell, digit, coef = value_terms(pairs, signs, n)
    return Rows(family, row, cell, digit, coef, np.full(pairs.shape[0], -1), "L", labels)


@dataclass(frozen=True, eq=False)
class Thermometer(Rule):
    """Digits strictly increase from the bulb (the first cell) along the path of cells.

    Rows ``thermo_t_i``: ``v(c_i) - v(c_{i+1}) <= -1`` for each step ``i`` of thermometer ``t``.
    """

    cell_list: tuple[int, ...]

    kind = "thermo"
    families = ("thermo",)
    description = "thermometer: digits strictly increase from the bulb"
    noun = "thermometer"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Thermometer":
        """The thermometer of ``{"rule": "thermo", "cells": [bulb, ...]}``.

        Parameters
        ----------
        data : dict
            The document entry: ``cells`` from the bulb, each touching the previous one
            (diagonals included), at least 2 and at most ``n``.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (thermo)``).

        Returns
        -------
        Thermometer
        """
        check_keys(data, {"cells"}, where)
        cells = parse_cells(data.get("cells"), board, where, at_least=2)
        name = f"thermometer {cells_text(cells, board)}"
        for a, b in zip(cells[:-1].tolist(), cells[1:].tolist()):
            if not king_step(a, b, board):
                raise PuzzleError(f"{where}: {name} jumps from {cell_name(a, board)} to {cell_name(b, board)} "
                                  "(each cell must touch the previous one, diagonals included)")
        if cells.size > board.n_values:
            raise PuzzleError(f"{where}: {name} has {cells.size} cells; strictly increasing digits "
                              f"{value_span(board)} fill at most {board.n_values}")
        return cls(tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"thermometer {cells_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="thermo")]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``thermo_t_i``: ``v(c_i) - v(c_{i+1}) <= -1`` per step ``i``.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The thermometer's 1-based number among the puzzle's thermometers: ``t`` in the labels.

        Returns
        -------
        list of Rows
            The one ``thermo`` block, one row per step.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every thermometer's steps in one ``thermo`` block, thermometer by thermometer (as
        :meth:`rows` of each in turn).

        Parameters
        ----------
        rules : list of Thermometer
            The puzzle's thermometers, in order.
        board : Board
            The puzzle's board (``n`` digits).
        first_index : int
            The first thermometer's number: ``t`` in the labels.

        Returns
        -------
        list of Rows
        """
        paths = [np.array(rule.cell_list, dtype=np.int64) for rule in rules]   # type: ignore[attr-defined]
        thermo, step = ragged_positions(np.array([path.size - 1 for path in paths], dtype=np.int64))
        labels = np.stack([thermo + first_index, step + 1], axis=1)
        smaller = np.concatenate([path[:-1] for path in paths])
        larger = np.concatenate([path[1:] for path in paths])
        return [_less_rows("thermo", smaller, larger, labels, board)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The first two filled cells that do not increase enough for the cells between them.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry.
        """
        cells = self.cells()
        values = grid[cells]
        at = np.flatnonzero(values > 0)
        # filled cells i < j need d_j - d_i >= j - i (strict increase through the empty cells
        # between; digits in increasing order of value, so digits and values agree)
        shown = board.grid_values(values)
        for i, j in zip(at[:-1].tolist(), at[1:].tolist()):
            if values[j] - values[i] < j - i:
                a, b = cell_name(cells[i], board), cell_name(cells[j], board)
                how = (f"{b} holds {shown[j]}, not more than {a}'s {shown[i]}" if j == i + 1 else
                       f"{a} holds {shown[i]} and {b} holds {shown[j]}: {j - i - 1} cell(s) between cannot increase")
                return [{"message": f"{self.describe(board)}: {how}", "cells": [int(cells[i]), int(cells[j])]}]
        return []


@dataclass(frozen=True, eq=False)
class Greater(Rule):
    """A greater-than sign: the first cell's digit is larger than the second's (Futoshiki).

    Rows ``greater_k``: ``v(second) - v(first) <= -1``.
    """

    larger: int
    smaller: int

    kind = "greater"
    families = ("greater",)
    description = "greater-than sign: the first cell holds the larger digit"
    noun = "greater-than sign"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Greater":
        """The sign of ``{"rule": "greater", "cells": [larger, smaller]}``.

        Parameters
        ----------
        data : dict
            The document entry: two orthogonally adjacent ``cells``, the larger first.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (greater)``).

        Returns
        -------
        Greater
        """
        check_keys(data, {"cells"}, where)
        cells = parse_cells(data.get("cells"), board, where, at_least=2)
        if cells.size != 2:
            raise PuzzleError(f"{where}: a greater-than sign joins 2 cells, found {cells.size}")
        larger, smaller = int(cells[0]), int(cells[1])
        if not adjacent(larger, smaller, board):   # a sign sits on the edge two cells share, as a Kropki dot
            raise PuzzleError(f"{where}: greater-than sign joins {cell_name(larger, board)} and "
                              f"{cell_name(smaller, board)}, which are not orthogonal neighbours")
        return cls(larger, smaller)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(self.larger, board), cell_name(self.smaller, board)]}

    def describe(self, board: Board) -> str:
        return f"{cell_name(self.larger, board)} > {cell_name(self.smaller, board)}"

    def cells(self) -> np.ndarray:
        return np.array([self.larger, self.smaller], dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("dot", (self.larger, self.smaller), style="chevron")]   # pointing at the smaller

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``greater_k``: ``v(smaller) - v(larger) <= -1``.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The sign's 1-based number among the puzzle's greater-than signs: ``k`` in the label.

        Returns
        -------
        list of Rows
            The one ``greater`` block, one row.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every sign's row in one ``greater`` block, in the signs' order (as :meth:`rows` of
        each in turn).

        Parameters
        ----------
        rules : list of Greater
            The puzzle's greater-than signs, in order.
        board : Board
            The puzzle's board (``n`` digits).
        first_index : int
            The first sign's number: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        smaller = np.array([rule.smaller for rule in rules], dtype=np.int64)   # type: ignore[attr-defined]
        larger = np.array([rule.larger for rule in rules], dtype=np.int64)     # type: ignore[attr-defined]
        labels = np.arange(first_index, first_index + len(rules), dtype=np.int64)[:, None]
        return [_less_rows("greater", smaller, larger, labels, board)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Both cells filled and the first not larger.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry.
        """
        big, small = int(grid[self.larger]), int(grid[self.smaller])
        if big and small and big <= small:
            return [{"message": f"{self.describe(board)} but {cell_name(self.larger, board)} holds {board.value(big)} "
                                f"and {cell_name(self.smaller, board)} holds {board.value(small)}",
                     "cells": [self.larger, self.smaller]}]
        return []
