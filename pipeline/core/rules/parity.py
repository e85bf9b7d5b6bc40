"""Even and odd cells."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.rules.base import Board, Glyph, Rows, Rule, cell_list_text, cell_name, check_keys, parse_cells

__all__ = ["Even", "Odd"]


@dataclass(frozen=True, eq=False)
class _Parity(Rule):
    """Cells that hold an even (or odd) digit.

    Rows ``parity_r_c`` (``<= 0``), one per marked cell: the sum of its variables of the other
    parity.
    """

    cell_list: tuple[int, ...]

    families = ("parity",)
    remainder = 0  # digit % 2 the cells must have

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str):
        check_keys(data, {"cells"}, where)
        return cls(tuple(int(c) for c in parse_cells(data.get("cells"), board, where)))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"{self.kind} cells {cell_list_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("mark", self.cell_list, style="square" if self.remainder == 0 else "circle")]

    @classmethod
    def title(cls, rules: list) -> str:
        cells = sum(len(rule.cell_list) for rule in rules)   # "3 even cells", however many entries
        return f"{cells} {cls.kind} cell" + ("" if cells == 1 else "s")

    def rows(self, board: Board, index: int) -> list[Rows]:
        cells = self.cells()
        wrong = np.flatnonzero((board.value_of % 2) != self.remainder)   # 0-based digits of the wrong parity
        k = wrong.size
        row = np.repeat(np.arange(cells.size), k)
        r, c = np.divmod(cells, board.cols)
        return [Rows("parity", row, np.repeat(cells, k), np.tile(wrong, cells.size),
                     np.ones(row.size, dtype=np.int64), np.zeros(cells.size, dtype=np.int64), "L",
                     np.stack([r + 1, c + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        cells = self.cells()
        values = grid[cells]
        bad = cells[(values > 0) & (board.grid_values(values) % 2 != self.remainder)]
        return [{"message": f"{cell_name(c, board)} is marked {self.kind} but holds {board.value(grid[c])}",
                 "cells": [int(c)]}
                for c in bad.tolist()]


@dataclass(frozen=True, eq=False)
class Even(_Parity):
    kind = "even"
    description = "even cells: they hold even digits"
    remainder = 0


@dataclass(frozen=True, eq=False)
class Odd(_Parity):
    kind = "odd"
    description = "odd cells: they hold odd digits"
    remainder = 1
