"""Global rules about which values the units hold on a grid of more values than its side
(issue 33): Doppelganger (ISS ``Doppelganger``) and same values in every largest region (ISS
``RegionSameValues``).

Both are exact rows over the cell variables, no auxiliary column: a unit's "missing digit
``d``" is ``1 - sum_{c in unit} x[c,d]``, 0 or 1 because a unit holds each value at most once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.rules.base import Board, Rows, Rule, cell_list_text, cell_name, check_keys, value_span

__all__ = ["Doppelganger", "RegionSameValues"]

#: Unit families that are regions to ``regionsamevalues`` (ISS: rows, columns, boxes, jigsaw pieces).
REGION_FAMILIES = ("row", "col", "box", "region", "extra")


class _Global(Rule):
    global_rule = True

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind}


@dataclass(frozen=True, eq=False)
class Doppelganger(_Global):
    """ISS ``Doppelganger`` on an ``N x N`` grid of the values ``0..N``: every row, column and box
    holds a 0 and all but one of ``1..N``; no two rows (columns, boxes) miss the same digit; at
    every 0 the digits its row, its column and its box miss are three different ones (two when
    the grid has no boxes).

    Rows (``U_d`` = ``sum_{c in unit U} x[c,d]``, digit ``d`` the value ``d``):

    * ``doppelzero_f_u`` (``= 1``): unit ``u`` of family ``f`` (1 rows, 2 columns, 3 boxes)
      holds a 0 (``U_0``);
    * ``doppelcount_d`` (``= N - 1``): the grid holds ``d = 1..N`` ``N - 1`` times (each unit
      misses one digit, so a digit is missed by exactly one row, one column and one box);
    * ``doppelmiss_r_c_d`` (``<= 0``): ``2 x[c,0] - R_d - C_d - B_d`` for cell ``c = (r, c)``
      and ``d = 1..N``, ``R``, ``C``, ``B`` its row, column and box without ``c`` itself
      (without boxes ``x[c,0] - R_d - C_d``): a 0 there leaves at most one of the three
      missing ``d``. A cell in two of them (a row and a box) has coefficient ``-2``.
    """

    kind = "doppelganger"
    noun = "Doppelganger"
    nonzeros_per_variable = 170.0   # grows with N (estimated_nonzeros): 100.2 at N = 36
    families = ("doppelzero", "doppelcount", "doppelmiss")
    description = "Doppelganger: units hold 0 and miss one digit each, distinct per family and at each 0"

    def estimated_nonzeros(self, board: Board) -> float:
        """``doppelmiss`` puts a cell's row, column and box on each of its digits: about 2.8 N
        nonzeros a cell-digit variable (44.4 at N = 16, 100.2 at 36), counted as 2.9 N (a fixed
        170 undercounted past N = 60)."""
        return 2.9 * board.n * board.rows * board.cols * board.n_values

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Doppelganger":
        """The rule of ``{"rule": "doppelganger"}``.

        Parameters
        ----------
        data : dict
            The document entry (no key but ``rule``).
        board : Board
            The puzzle's board: one square grid of the values ``0..N``.
        where : str
            How messages name the entry.

        Returns
        -------
        Doppelganger
        """
        check_keys(data, set(), where)
        if board.grids or board.rows != board.cols or board.rows != board.n:
            raise PuzzleError(f"{where}: Doppelganger takes one square grid, found {board.shape_text}")
        if board.value_of.tolist() != list(range(board.n + 1)):
            raise PuzzleError(f"{where}: Doppelganger needs the values 0-{board.n} on a {board.n}x{board.n} grid "
                              f"(\"values\": \"0-{board.n}\"), found {value_span(board)}")
        return cls()

    @staticmethod
    def unit_sets(board: Board) -> list[np.ndarray]:
        """``[(N, N) rows, (N, N) columns, (N, N) boxes]`` (boxes only when the grid has them).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        list of ndarray
        """
        n = board.n
        grid = np.arange(n * n).reshape(n, n)
        out = [grid, grid.T.copy()]
        boxes = dict(board.unit_families).get("box")
        if boxes is not None and boxes.shape[1] == n:
            out.append(np.asarray(boxes, dtype=np.int64))
        return out

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The ``doppelzero``, ``doppelcount`` and ``doppelmiss`` blocks.

        Parameters
        ----------
        board : Board
            The puzzle's board (``N x N``, values ``0..N``, its boxes).
        index : int
            Unused: a global rule comes at most once per puzzle.

        Returns
        -------
        list of Rows
        """
        n = board.n
        units = self.unit_sets(board)
        f_count = len(units)
        # doppelzero: every unit holds a 0 (digit 0)
        every = np.concatenate(units)                                        # (F N, N)
        m = every.shape[0]
        zero = Rows("doppelzero", np.repeat(np.arange(m), n), every.ravel(), np.zeros(m * n, dtype=np.int64),
                    np.ones(m * n, dtype=np.int64), np.ones(m, dtype=np.int64), "E",
                    np.stack([np.repeat(np.arange(1, f_count + 1), n), np.tile(np.arange(1, n + 1), f_count)], axis=1))
        # doppelcount: digit d = 1..N in N - 1 cells of the grid
        cells = np.arange(n * n)
        count = Rows("doppelcount", np.repeat(np.arange(n), n * n), np.tile(cells, n), np.repeat(np.arange(1, n + 1), n * n),
                     np.ones(n * n * n, dtype=np.int64), np.full(n, n - 1, dtype=np.int64), "E",
                     np.arange(1, n + 1)[:, None])
        # doppelmiss: rows (cell, d), d fastest; terms: (F - 1) x[c,0], then -x over each unit of the cell
        owner = np.zeros((f_count, n * n), dtype=np.int64)
        for f, u in enumerate(units):
            owner[f, u.ravel()] = np.repeat(np.arange(n), n)
        rows_count = n * n * n
        cell_of_row, d = np.divmod(np.arange(rows_count), n)
        d = d + 1
        unit_cells = np.concatenate([units[f][owner[f, cell_of_row]] for f in range(f_count)], axis=1)   # (R, F N)
        term_cell = np.concatenate([cell_of_row[:, None], unit_cells], axis=1)
        term_digit = np.concatenate([np.zeros((rows_count, 1), dtype=np.int64),
                                     np.broadcast_to(d[:, None], unit_cells.shape)], axis=1)
        term_coef = np.concatenate([np.full((rows_count, 1), f_count - 1, dtype=np.int64),
                                    -np.ones(unit_cells.shape, dtype=np.int64)], axis=1)
        # the cell's own x[c,d] is left out of its units' sums (a 0 there makes it 0); a cell in
        # two of the units (a row and a box) adds up to coefficient -2
        keep = term_cell != cell_of_row[:, None]
        keep[:, 0] = True
        r, c = np.divmod(cell_of_row, n)
        miss = Rows("doppelmiss", np.broadcast_to(np.arange(rows_count)[:, None], keep.shape)[keep], term_cell[keep],
                    term_digit[keep], term_coef[keep], np.zeros(rows_count, dtype=np.int64), "L",
                    np.stack([r + 1, c + 1, d], axis=1))
        return [zero, count, miss]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A full unit without a 0, two units of one family missing the same digit, or a 0 whose
        units miss one digit twice (judged on full units only).

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, digits ``1..N+1`` (the values ``0..N``), 0 = empty.
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per break.
        """
        n = board.n
        names = ("row", "column", "box")
        out: list[dict] = []
        missing_of = []                                          # per family, (N,) the missing value or -1
        for f, units in enumerate(self.unit_sets(board)):
            held = grid[units]                                   # (N, N) digits, value + 1
            full = (held > 0).all(axis=1)
            present = np.zeros((n, n + 2), dtype=bool)
            present[np.repeat(np.arange(n), n), held.ravel()] = True
            missing = np.where(full & present[:, 1], np.argmin(present[:, 2:], axis=1) + 1, -1)
            missing_of.append(missing)
            for u in np.flatnonzero(full & ~present[:, 1]).tolist():
                out.append({"message": f"{names[f]} {u + 1} of the Doppelganger holds no 0",
                            "cells": units[u].tolist()})
            values, counts = np.unique(missing[missing > 0], return_counts=True)
            for v in values[counts > 1].tolist():
                twice = np.flatnonzero(missing == v)
                out.append({"message": f"{names[f]}s {int(twice[0]) + 1} and {int(twice[1]) + 1} both miss {v}",
                            "cells": np.concatenate([units[t] for t in twice[:2]]).tolist()})
        owners = []
        for units in self.unit_sets(board):
            owner = np.zeros(n * n, dtype=np.int64)
            owner[units.ravel()] = np.repeat(np.arange(n), n)
            owners.append(owner)
        for cell in np.flatnonzero(grid[: n * n] == 1).tolist():
            seen = [int(missing_of[f][owners[f][cell]]) for f in range(len(owners))]
            known = [v for v in seen if v > 0]
            if len(set(known)) < len(known):
                out.append({"message": f"the 0 at {cell_name(cell, board)} has units missing the same digit "
                                       f"({', '.join(map(str, seen))})", "cells": [cell]})
        return out


@dataclass(frozen=True, eq=False)
class RegionSameValues(_Global):
    """ISS ``RegionSameValues``: the largest regions (rows, columns, boxes, jigsaw regions and
    extra regions of the puzzle: ``row``, ``col``, ``box``, ``region``, ``extra`` units) hold
    the same set of values. Regions holding every value (``V`` cells) make it hold already, and
    then it adds no row.

    Rows ``regionsamevalues_u_d`` (``= 0``): ``sum_{c in region 1} x[c,d] - sum_{c in region u}
    x[c,d]`` for the largest regions ``u = 2..U`` (in the unit families' order) and every digit.
    """

    kind = "regionsamevalues"
    noun = "same values in every region"
    nonzeros_per_variable = 6.0
    families = ("regionsamevalues",)
    description = "region same values: the largest regions hold the same set of values"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "RegionSameValues":
        """The rule of ``{"rule": "regionsamevalues"}``.

        Parameters
        ----------
        data : dict
            The document entry (no key but ``rule``).
        board : Board
            The puzzle's board.
        where : str
            How messages name the entry.

        Returns
        -------
        RegionSameValues
        """
        check_keys(data, set(), where)
        return cls()

    @staticmethod
    def regions(board: Board) -> np.ndarray:
        """``(U, k)`` the largest regions, none when there are fewer than 2 or they hold ``V`` cells.

        Parameters
        ----------
        board : Board
            The puzzle's board (its unit families, those of its rules included).

        Returns
        -------
        ndarray of int
        """
        found = [np.asarray(u, dtype=np.int64) for name, u in board.unit_families if name in REGION_FAMILIES]
        if not found:
            return np.zeros((0, 0), dtype=np.int64)
        size = max(u.shape[1] for u in found)
        largest = np.concatenate([u for u in found if u.shape[1] == size])
        if size == board.n_values or largest.shape[0] < 2:
            return np.zeros((0, size), dtype=np.int64)
        return largest

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``regionsamevalues_u_d`` (``= 0``): region ``u`` holds digit ``d`` as often as region 1.

        Parameters
        ----------
        board : Board
            The puzzle's board (its units, ``V`` values).
        index : int
            Unused: a global rule comes at most once per puzzle.

        Returns
        -------
        list of Rows
            The one ``regionsamevalues`` block, ``(U - 1) V`` rows, the digit fastest.
        """
        regions = self.regions(board)
        if regions.shape[0] < 2:
            return [Rows.empty("regionsamevalues", "E", 2)]
        v = board.n_values
        u_count, k = regions.shape[0] - 1, regions.shape[1]
        m = u_count * v
        u, d = np.divmod(np.arange(m), v)
        cell = np.concatenate([np.broadcast_to(regions[0], (m, k)), regions[1:][u]], axis=1)
        coef = np.concatenate([np.ones((m, k), dtype=np.int64), -np.ones((m, k), dtype=np.int64)], axis=1)
        return [Rows("regionsamevalues", np.repeat(np.arange(m), 2 * k), cell.ravel(), np.repeat(d, 2 * k), coef.ravel(),
                     np.zeros(m, dtype=np.int64), "E", np.stack([u + 2, d + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Values that a full largest region holds and another region cannot hold (it is full
        without it, or another region's full set lacks it).

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        regions = self.regions(board)
        if regions.shape[0] < 2:
            return []
        held = grid[regions]                                         # (U, k)
        present = np.zeros((regions.shape[0], board.n_values + 1), dtype=bool)
        present[np.repeat(np.arange(regions.shape[0]), regions.shape[1]), held.ravel()] = True
        present = present[:, 1:]
        full = (held > 0).all(axis=1)
        if not full.any():
            return []
        target = present[np.argmax(full)]                            # the first full region's set
        # a region breaks the rule when it holds a value outside the set, or when it is full
        # (then it must equal the set)
        bad = np.flatnonzero((present & ~target).any(axis=1) | (full & (present != target).any(axis=1)))
        if not bad.size:
            return []
        u = int(bad[0])
        return [{"message": f"the region {cell_list_text(regions[u], board, shown=3)} holds other values than "
                            f"{cell_list_text(regions[int(np.argmax(full))], board, shown=3)}",
                 "cells": regions[u].tolist()}]
