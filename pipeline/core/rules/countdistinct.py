"""Count-distinct clues (ISS ``CountDistinct`` over grid cells): the clue cell's value is how many
different values its counted cells hold."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import (Board, Glyph, Rows, cell_list_text, cell_name, check_keys, parse_cell,
                                      parse_cells)

__all__ = ["CountDistinct"]


@dataclass(frozen=True, eq=False)
class CountDistinct(AuxRule):
    """``{"rule": "countdistinct", "clue": "r3c3", "cells": [...]}``: the clue cell's value is the
    number of distinct values in ``cells`` (ISS ``CountDistinct~CLUE~cells``; the clue may be one of
    the cells).

    Auxiliary columns ``aux_countdistinct_k_d``: digit ``d`` is in the cells. Rows
    ``distinctseen_k_i_d`` (``<= 0``): ``x[c_i, d] - aux_d``; ``distinctonly_k_d`` (``<= 0``):
    ``aux_d - sum_i x[c_i, d]``; ``distinctcount_k`` (``= 0``): ``sum_d aux_d - v(clue)``.
    """

    clue: int
    cell_list: tuple[int, ...]

    kind: ClassVar[str] = "countdistinct"
    families: ClassVar[tuple[str, ...]] = ("distinctseen", "distinctonly", "distinctcount")
    aux_families: ClassVar[tuple[str, ...]] = ("countdistinct",)
    description: ClassVar[str] = "count distinct: the clue cell's value is how many different values its cells hold"
    noun: ClassVar[str] = "count-distinct clue"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "CountDistinct":
        """The clue of ``{"rule": "countdistinct", "clue": cell, "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: the ``clue`` cell and the counted ``cells`` (each once).
        board : Board
            The puzzle's board: the cells lie on it; some count ``1..len(cells)`` must be a value.
        where : str
            How messages name the entry (``rules[3] (countdistinct)``).

        Returns
        -------
        CountDistinct
        """
        check_keys(data, {"clue", "cells"}, where)
        if "clue" not in data:
            raise PuzzleError(f"{where}: missing 'clue' (the cell whose value is the count)")
        clue = parse_cell(data["clue"], board, where)
        cells = parse_cells(data.get("cells"), board, where)
        values = board.value_of
        if not ((values >= 1) & (values <= min(cells.size, values.size))).any():
            raise PuzzleError(f"{where}: count-distinct clue {cell_name(clue, board)}: no value is a count "
                              f"1..{min(cells.size, values.size)} of its {cells.size} cell(s)")
        return cls(clue, tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "clue": cell_name(self.clue, board),
                "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"count-distinct clue {cell_name(self.clue, board)} over {cell_list_text(self.cell_list, board, shown=3)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A ring on the clue cell, a cage round the counted cells."""
        return [Glyph("mark", (self.clue,), style="ring"), Glyph("cage", self.cell_list)]

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_countdistinct_k_d``, ``d = 1..V``: digit ``d`` is in the cells.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's count-distinct clues.
        """
        d = np.arange(1, board.n_values + 1)
        return [AuxColumns("countdistinct", np.stack([np.full(d.size, index), d], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``distinctseen`` (a cell's digit is seen), ``distinctonly`` (a seen digit is in a cell)
        and ``distinctcount`` (the seen digits count to the clue's value).

        Parameters
        ----------
        board : Board
            The puzzle's board (``V`` digits and their values).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        cells, v = self.cells(), board.n_values
        m = cells.size
        d = np.arange(v)
        # distinctseen_k_i_d: x[c_i, d] - aux_d <= 0, one row per (cell, digit)
        seen_cell, seen_digit = np.repeat(cells, v), np.tile(d, m)
        seen_labels = np.stack([np.full(m * v, index), np.repeat(np.arange(1, m + 1), v), seen_digit + 1], axis=1)
        seen = AuxRows("distinctseen", np.arange(m * v), seen_cell, seen_digit, np.ones(m * v, dtype=np.int64),
                       np.zeros(m * v, dtype=np.int64), "L", seen_labels, np.arange(m * v), seen_digit,
                       -np.ones(m * v, dtype=np.int64))
        # distinctonly_k_d: aux_d - sum_i x[c_i, d] <= 0
        only = AuxRows("distinctonly", np.repeat(d, m), np.tile(cells, v), np.repeat(d, m),
                       -np.ones(m * v, dtype=np.int64), np.zeros(v, dtype=np.int64), "L",
                       np.stack([np.full(v, index), d + 1], axis=1), d, d, np.ones(v, dtype=np.int64))
        # distinctcount_k: sum_d aux_d - sum_d value_d x[clue, d] = 0
        count = AuxRows("distinctcount", np.zeros(v, dtype=np.int64), np.full(v, self.clue), d, -board.value_of,
                        np.zeros(1, dtype=np.int64), "E", np.array([[index]]), np.zeros(v, dtype=np.int64), d,
                        np.ones(v, dtype=np.int64))
        return [seen, only, count]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The clue's value below the distinct values shown, or above what the cells can still reach.

        Parameters
        ----------
        grid : numpy.ndarray
            Flat canvas, 0 = empty (a partial grid is judged on what it shows).
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per broken instance.
        """
        if grid[self.clue] <= 0:
            return []
        want = board.value(int(grid[self.clue]))
        entries = grid[self.cells()]
        shown = int(np.unique(entries[entries > 0]).size)
        most = shown + int(np.count_nonzero(entries == 0))
        if not shown <= want <= most:
            what = f"hold {shown} distinct values" if shown == most else f"can hold {shown} to {most} distinct values"
            return [{"message": f"{self.describe(board)}: the clue is {want}, the cells {what}",
                     "cells": [self.clue, *self.cell_list]}]
        return []
