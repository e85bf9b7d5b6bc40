"""Rules with auxiliary 0-1 columns: skyscraper (ISS ``Skyscraper``) and counting circles (ISS
``CountingCircles``). Their rows reach the auxiliary columns they declare
(:mod:`pipeline.core.rules.auxcols`; docs/conventions.md, "Auxiliary columns")."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import Board, Glyph, Rows, cell_list_text, cell_name, check_keys, parse_cells
from pipeline.core.rules.outside import OutsideLine

__all__ = ["Skyscraper", "CountingCircles"]


@dataclass(frozen=True, eq=False)
class Skyscraper(OutsideLine, AuxRule):
    """Digits are heights; a taller one hides every one behind it; the clue counts the heights
    seen from it along its row or column: ``{"rule": "skyscraper", "clue": "r0c3", "count": 4}``
    (ISS ``Skyscraper``). ``c_i`` is seen when it is taller than every ``c_j``, ``j < i`` (a
    repeated height hides).

    Auxiliary columns ``aux_skyscraper_k_i``, ``i = 2..N``: ``c_i`` is seen (``c_1`` always is).
    Rows: ``skyscraper_k`` (``= count - 1``): ``sum_i aux_i``; ``skyscraperseen_k_i_d`` (``<= 0``):
    ``x[c_i, d] - sum_{j<i} sum_{e>=d} x[c_j, e] - aux_i`` (``c_i`` holds ``d`` and nothing before
    it reaches ``d``: seen); ``skyscraperhidden_k_i_j_d`` (``<= 2``): ``aux_i + sum_{e<=d}
    x[c_i, e] + sum_{e>=d} x[c_j, e]`` for ``j < i`` (``c_j`` at least as tall as ``c_i``:
    hidden). With each cell's ``= 1`` row the 0-1 points are exactly the grids that agree.
    """

    kind: ClassVar[str] = "skyscraper"
    families: ClassVar[tuple[str, ...]] = ("skyscraper", "skyscraperseen", "skyscraperhidden")
    aux_families: ClassVar[tuple[str, ...]] = ("skyscraper",)
    description: ClassVar[str] = "skyscraper: the clue counts the digits seen from it, taller ones hiding shorter"
    noun: ClassVar[str] = "skyscraper clue"
    value_key: ClassVar[str] = "count"
    #: Heights compare by digit index, which orders the values of any (ascending) value set.
    values_one_to_n: ClassVar[bool] = False

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_skyscraper_k_i``, ``i = 2..L``: cell ``i`` from the clue is seen.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's skyscraper clues.
        """
        i = np.arange(2, len(self.cell_list) + 1)
        return [AuxColumns("skyscraper", np.stack([np.full(i.size, index), i], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The count row, the seen rows and the hidden rows (class docstring).

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        cells, n = self.cells(), board.n_values      # heights: every digit index, in value order
        length = cells.size
        seen = np.arange(1, length)                         # 0-based line positions with a column: aux k = i - 1
        count = AuxRows("skyscraper", np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.array([self.value - 1]), "E",
                        np.array([[index]]), np.zeros(seen.size, dtype=np.int64), seen - 1,
                        np.ones(seen.size, dtype=np.int64))
        return [count, _seen_rows(cells, n, index), _hidden_rows(cells, n, index)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A full line from which another number of digits is seen.

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
        values = grid[self.cells()]
        if not values.all():
            return []
        before = np.concatenate([[0], np.maximum.accumulate(values)[:-1]])
        count = int(np.count_nonzero(values > before))
        if count != self.value:
            return [{"message": f"{self.describe(board)}: {count} seen", "cells": list(self.cell_list)}]
        return []


def _seen_rows(cells: np.ndarray, n: int, index: int) -> AuxRows:
    """``skyscraperseen_k_i_d``: ``x[c_i, d] - sum_{j<i, e>=d} x[c_j, e] - aux_i <= 0``."""
    rows_c, rows_d, term_row, term_cell, term_digit, term_coef = [], [], [], [], [], []
    r = 0
    for i in range(1, cells.size):
        for d in range(n):
            earlier = np.repeat(cells[:i], n - d)
            heights = np.tile(np.arange(d, n), i)
            term_row.append(np.full(1 + earlier.size, r))
            term_cell.append(np.concatenate([[cells[i]], earlier]))
            term_digit.append(np.concatenate([[d], heights]))
            term_coef.append(np.concatenate([[1], -np.ones(earlier.size, dtype=np.int64)]))
            rows_c.append(i - 1)
            rows_d.append(d + 1)
            r += 1
    aux_col = np.array(rows_c, dtype=np.int64)
    labels = np.stack([np.full(r, index), aux_col + 2, np.array(rows_d)], axis=1)
    return AuxRows("skyscraperseen", np.concatenate(term_row), np.concatenate(term_cell).astype(np.int64),
                   np.concatenate(term_digit).astype(np.int64), np.concatenate(term_coef).astype(np.int64),
                   np.zeros(r, dtype=np.int64), "L", labels, np.arange(r), aux_col, -np.ones(r, dtype=np.int64))


def _hidden_rows(cells: np.ndarray, n: int, index: int) -> AuxRows:
    """``skyscraperhidden_k_i_j_d``: ``aux_i + sum_{e<=d} x[c_i, e] + sum_{e>=d} x[c_j, e] <= 2``."""
    i, j, d = (a.ravel() for a in np.meshgrid(np.arange(cells.size), np.arange(cells.size), np.arange(n), indexing="ij"))
    keep = j < i
    i, j, d = i[keep], j[keep], d[keep]
    m = i.size
    # row r: digits 0..d of c_i, then d..n-1 of c_j: n + 1 terms each
    e = np.arange(n + 1)[None, :]
    digit = np.where(e <= d[:, None], e, e - 1)
    cell = np.where(e <= d[:, None], cells[i][:, None], cells[j][:, None])
    row = np.repeat(np.arange(m), n + 1)
    labels = np.stack([np.full(m, index), i + 1, j + 1, d + 1], axis=1)
    return AuxRows("skyscraperhidden", row, cell.ravel().astype(np.int64), digit.ravel().astype(np.int64),
                   np.ones(row.size, dtype=np.int64), np.full(m, 2, dtype=np.int64), "L", labels,
                   np.arange(m), (i - 1).astype(np.int64), np.ones(m, dtype=np.int64))


@dataclass(frozen=True, eq=False)
class CountingCircles(AuxRule):
    """A digit in a circle counts the circles holding it: ``{"rule": "countingcircles", "cells":
    [...]}`` (ISS ``CountingCircles``; each rule's circles count among themselves).

    Auxiliary columns ``aux_countingcircles_k_d``: digit ``d`` is in the circles. Rows
    ``countingcircles_k_d`` (``= 0``): ``sum_{c in circles} x[c, d] - v_d * aux_d``, ``v_d`` the
    digit's value (``d`` for the values ``1..N``), so each value ``v`` is in none or in exactly
    ``v`` circles; a value below 1 (a value set's) has ``+aux_d`` instead: in no circle, its
    column 0.
    """

    cell_list: tuple[int, ...]

    kind: ClassVar[str] = "countingcircles"
    families: ClassVar[tuple[str, ...]] = ("countingcircles",)
    aux_families: ClassVar[tuple[str, ...]] = ("countingcircles",)
    description: ClassVar[str] = "counting circles: a digit in a circle is how many circles hold it"
    noun: ClassVar[str] = "set of counting circles"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "CountingCircles":
        """The rule of ``{"rule": "countingcircles", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry.
        board : Board
            The puzzle's board.
        where : str
            How messages name the entry.

        Returns
        -------
        CountingCircles
        """
        check_keys(data, {"cells"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        return cls(tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"counting circles {cell_list_text(self.cell_list, board, shown=3)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A circle in each cell."""
        return [Glyph("mark", self.cell_list, style="circle")]

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_countingcircles_k_d``, ``d = 1..N``: digit ``d`` is in the circles.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's counting-circle sets.
        """
        d = np.arange(1, board.n_values + 1)
        return [AuxColumns("countingcircles", np.stack([np.full(d.size, index), d], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``countingcircles_k_d``: each digit in none or exactly ``d`` circles.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        cells, n = self.cells(), board.n_values
        row = np.repeat(np.arange(n), cells.size)
        cell = np.tile(cells, n)
        digit = np.repeat(np.arange(n), cells.size)
        labels = np.stack([np.full(n, index), np.arange(1, n + 1)], axis=1)
        return [AuxRows("countingcircles", row, cell, digit, np.ones(row.size, dtype=np.int64),
                        np.zeros(n, dtype=np.int64), "E", labels, np.arange(n), np.arange(n),
                        np.where(board.value_of > 0, -board.value_of, 1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A digit in more circles than itself (or, all filled, in another number).

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
        values = grid[self.cells()]
        digits, counts = np.unique(values[values > 0], return_counts=True)
        empty = int(np.count_nonzero(values == 0))
        shown = board.grid_values(digits)
        bad = [(int(d), int(v), int(k)) for d, v, k in zip(digits, shown, counts) if k > v or (not empty and k != v)]
        if bad:
            d, v, k = bad[0]
            return [{"message": f"{self.describe(board)}: {k} circle(s) hold {v}",
                     "cells": [c for c, v in zip(self.cell_list, values) if v == d]}]
        return []

