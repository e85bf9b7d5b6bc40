"""Given pencil marks: cells limited to a set of digits (f-puzzles ``givenPencilMarks``, ISS ``~``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.parse import whole_number
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_list_text, cell_name, check_keys, parse_cells,
                                      value_words)

__all__ = ["PencilMarks"]


@dataclass(frozen=True, eq=False)
class PencilMarks(Rule):
    """Cells that hold one of the listed digits: ``{"rule": "pencilmarks", "cells": ["r4c7"],
    "digits": [2, 4, 6, 8]}``.

    Rows ``pencilmarks_g_r_c`` (``<= 0``), one per cell ``(r, c)`` of rule ``g`` (the puzzle's
    pencil-mark rules numbered ``1..``): the sum of the cell's variables of the digits not listed.
    A rule listing every digit adds no row.
    """

    cell_list: tuple[int, ...]
    digits: tuple[int, ...]   # values (1-based digits unless the puzzle has a value set), ascending, distinct

    kind = "pencilmarks"
    families = ("pencilmarks",)
    description = "pencil marks: cells limited to the listed digits"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str):
        """The marks of ``{"rule": "pencilmarks", "cells": [...], "digits": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: the ``cells`` and their allowed ``digits`` (distinct, ``1..n``).
        board : Board
            The puzzle's board: the cells lie on it, the digits are ``1..n``.
        where : str
            How messages name the entry (``rules[3] (pencilmarks)``).

        Returns
        -------
        PencilMarks
        """
        check_keys(data, {"cells", "digits"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        raw = data.get("digits")
        if not isinstance(raw, (list, tuple)) or not raw:
            raise PuzzleError(f"{where}: 'digits' must be a non-empty list of digits {value_words(board)}, "
                              f"found {clip(raw, 40)!r}")
        digits = []
        for value in raw:
            digit = whole_number(value)
            if digit is None or board.index_of([digit])[0] < 0:
                raise PuzzleError(f"{where}: 'digits' holds {clip(value)!r}, not a digit {value_words(board)}")
            if digit in digits:
                raise PuzzleError(f"{where}: digit {digit} is listed twice in 'digits'")
            digits.append(digit)
        return cls(tuple(int(c) for c in cells), tuple(sorted(digits)))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list], "digits": list(self.digits)}

    def describe(self, board: Board) -> str:
        return f"pencil marks {','.join(map(str, self.digits))} in {cell_list_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        marks = "".join(str(d) if d < 10 else chr(ord("A") + d - 10) for d in self.digits)
        return [Glyph("mark", (c,), style="text", label=marks) for c in self.cell_list]

    @classmethod
    def title(cls, rules: list) -> str:
        cells = sum(len(rule.cell_list) for rule in rules)   # "3 cells with pencil marks", however many rules
        return f"{cells} cell{'' if cells == 1 else 's'} with pencil marks"

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``pencilmarks_g_r_c`` (``<= 0``): cell ``(r, c)`` holds none of the digits not listed.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n``, its width for ``r, c``).
        index : int
            The rule's 1-based number among the puzzle's pencil-mark rules: ``g`` in the labels.

        Returns
        -------
        list of Rows
            The one ``pencilmarks`` block (empty when every digit is listed).
        """
        cells = self.cells()
        allowed = np.zeros(board.n_values, dtype=bool)
        allowed[board.index_of(list(self.digits))] = True   # the document's digits are values
        wrong = np.flatnonzero(~allowed)   # 0-based digits
        if not wrong.size:
            return [Rows.empty("pencilmarks", "L", 3)]
        k = wrong.size
        row = np.repeat(np.arange(cells.size), k)
        r, c = np.divmod(cells, board.cols)
        labels = np.stack([np.full(cells.size, index), r + 1, c + 1], axis=1)
        return [Rows("pencilmarks", row, np.repeat(cells, k), np.tile(wrong, cells.size),
                     np.ones(row.size, dtype=np.int64), np.zeros(cells.size, dtype=np.int64), "L", labels)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Every filled cell holding a digit not among its marks.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (cell names in the messages).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per such cell.
        """
        cells = self.cells()
        values = grid[cells]
        bad = cells[(values > 0) & ~np.isin(board.grid_values(values), self.digits)]
        marks = ", ".join(map(str, self.digits))
        return [{"message": f"{cell_name(c, board)} holds {board.value(grid[c])}, not one of its pencil marks {marks}",
                 "cells": [int(c)]} for c in bad.tolist()]
