"""Global rules over the whole grid (issue 33, ISS's ``GlobalEntropy``, ``GlobalMod``,
``AntiTaxicab`` and ``DutchFlatmates``): every 2x2 window holds a digit of each class, no digit
``v`` twice at taxicab distance ``v``, a middle digit needs a first digit above or a last one below.

Each is a set of exact rows over the cell variables (no auxiliary column). In a gattai layout
each acts within each grid, as :mod:`pipeline.core.rules.neighbours` does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.rules.base import Board, Rows, Rule, cell_name, check_keys, value_span
from pipeline.core.rules.rowblocks import pair_rows

__all__ = ["GlobalEntropy", "GlobalMod", "AntiTaxicab", "DutchFlatmates", "windows_2x2"]


def windows_2x2(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Every 2x2 window of present cells inside one grid: ``(W,)`` top-left cells (row-major)
    and ``(W, 4)`` cells (top-left, top-right, bottom-left, bottom-right).

    Parameters
    ----------
    board : Board
        The puzzle's board (canvas, present cells, layout).

    Returns
    -------
    tuple of ndarray
    """
    r, c = np.divmod(np.arange(board.n_cells), board.cols)
    top_left = np.flatnonzero((r < board.rows - 1) & (c < board.cols - 1))
    cells = top_left[:, None] + np.array([0, 1, board.cols, board.cols + 1])[None, :]
    keep = board.present[cells].all(axis=1)
    if keep.any():
        keep[keep] = board.in_one_grid(cells[keep])
    return top_left[keep], cells[keep]


class _Global(Rule):
    global_rule = True

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str):
        check_keys(data, set(), where)
        cls._check_board(board, where)
        return cls()

    @classmethod
    def _check_board(cls, board: Board, where: str) -> None:
        """Refuse a board the rule cannot be laid on (default: any board takes it)."""

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind}


class _WindowClasses(_Global):
    """Every 2x2 window holds a digit of each of three classes of digits."""

    #: What messages call the classes.
    class_words = ""

    @staticmethod
    def classes(board: Board) -> np.ndarray:  # pragma: no cover - abstract
        """``(V,)`` the class (0, 1 or 2) of each 0-based digit."""
        raise NotImplementedError

    @staticmethod
    def window_cells(board: Board) -> np.ndarray:
        """``(W, 4)`` the cells of each window (:func:`windows_2x2`), for engines that read the
        windows without importing this module.

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        ndarray of int
        """
        return windows_2x2(board)[1]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``<kind>_r_c_g`` (``<= -1``): ``-sum`` over the window at ``r, c`` of its digits of class ``g``.

        Parameters
        ----------
        board : Board
            The puzzle's board (its windows; its values, which give the classes).
        index : int
            Unused: a global rule comes at most once per puzzle, and its labels name the
            windows by their top-left cell instead.

        Returns
        -------
        list of Rows
            The one block, ``3`` rows per window, the class fastest.
        """
        top_left, cells = windows_2x2(board)
        klass = self.classes(board)
        w_count = top_left.size
        rows, cell_parts, digit_parts = [], [], []
        for g in range(3):
            digits = np.flatnonzero(klass == g)
            k = digits.size
            # terms of row (w, g): the window's 4 cells x the class's k digits, cells slowest
            rows.append(np.repeat(np.arange(w_count) * 3 + g, 4 * k))
            cell_parts.append(np.repeat(cells, k, axis=1).ravel())
            digit_parts.append(np.tile(digits, 4 * w_count))
        row = np.concatenate(rows)
        order = np.argsort(row, kind="stable")
        r, c = np.divmod(np.repeat(top_left, 3), board.cols)
        labels = np.stack([r + 1, c + 1, np.tile(np.arange(1, 4), w_count)], axis=1)
        return [Rows(self.kind, row[order], np.concatenate(cell_parts)[order], np.concatenate(digit_parts)[order],
                     -np.ones(row.size, dtype=np.int64), -np.ones(3 * w_count, dtype=np.int64), "L", labels)]

    def implied_rows(self, board: Board) -> list[Rows]:
        """Rows the rule implies but does not need: at most two digits of each class in a window
        (its four cells hold each of the other two classes at least once). An engine that bounds
        rows one at a time cannot derive them from :meth:`rows` (``dfsrules``: the rule bench's ten
        global entropy puzzles 232,936 -> 115,802 nodes); the model's rows stay :meth:`rows`.

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        list of Rows
            One block, ``3`` rows per window (``<= 2``), as :meth:`rows` orders them.
        """
        (block,) = self.rows(board, 1)
        return [Rows(block.family, block.row, block.cell, block.digit, -block.coef, np.full(block.n_rows, 2, dtype=np.int64),
                     "L", block.labels)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Windows whose empty cells are too few for the classes they still miss.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its windows, values, cell names).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per offending window.
        """
        top_left, cells = windows_2x2(board)
        held = grid[cells]                                           # (W, 4)
        klass = np.concatenate([[-1], self.classes(board)])[held]    # empty -> -1
        present = np.stack([(klass == g).any(axis=1) for g in range(3)], axis=1)
        missing = 3 - present.sum(axis=1)
        bad = np.flatnonzero(missing > (held == 0).sum(axis=1))
        return [{"message": f"the 2x2 window at {cell_name(int(top_left[w]), board)} lacks a digit of each of "
                            f"{self.class_words}", "cells": cells[w].tolist()} for w in bad.tolist()]


@dataclass(frozen=True, eq=False)
class GlobalEntropy(_WindowClasses):
    """Every 2x2 window holds a low, a middle and a high digit (ISS ``GlobalEntropy``: 1-3, 4-6,
    7-9; the thirds of the digits in order for any number of values divisible by 3).

    Rows ``globalentropy_r_c_g`` (``<= -1``): ``-sum_{c in window} sum_{d in third g} x[c,d]``
    for the window with top-left cell ``(r, c)`` and third ``g = 1..3`` (four cells, three
    thirds: each at least once is the whole rule).
    """

    kind = "globalentropy"
    noun = "global entropy"
    nonzeros_per_variable = 4.0
    families = ("globalentropy",)
    description = "global entropy: every 2x2 window holds a low, a middle and a high digit"
    class_words = "the low, middle and high thirds"

    @classmethod
    def _check_board(cls, board: Board, where: str) -> None:
        if board.n_values % 3:
            raise PuzzleError(f"{where}: global entropy needs a number of values divisible by 3 (low, middle "
                              f"and high thirds), found {board.n_values}")

    @staticmethod
    def classes(board: Board) -> np.ndarray:
        """``(V,)`` the third (0 low, 1 middle, 2 high) of each 0-based digit, in the values' order.

        Parameters
        ----------
        board : Board
            The puzzle's board (``V`` divisible by 3).

        Returns
        -------
        ndarray of int
        """
        v = board.n_values
        return np.arange(v) // max(v // 3, 1)


@dataclass(frozen=True, eq=False)
class GlobalMod(_WindowClasses):
    """Every 2x2 window holds a digit of each remainder mod 3 (ISS ``GlobalMod``: one of 1/4/7,
    one of 2/5/8, one of 3/6/9; by the values' remainders for any value set).

    Rows ``globalmod_r_c_g`` (``<= -1``): ``-sum_{c in window} sum_{value(d) = g mod 3} x[c,d]``
    for the window with top-left cell ``(r, c)`` and ``g = 1..3`` (``3``: remainder 0).
    """

    kind = "globalmod"
    noun = "global mod 3"
    nonzeros_per_variable = 4.0
    families = ("globalmod",)
    description = "global mod 3: every 2x2 window holds a digit of each remainder mod 3"
    class_words = "the remainders mod 3"

    @classmethod
    def _check_board(cls, board: Board, where: str) -> None:
        missing = sorted(set(range(3)) - set((board.value_of % 3).tolist()))
        if missing:
            raise PuzzleError(f"{where}: global mod 3 needs values of every remainder mod 3; the values "
                              f"{value_span(board)} have none of remainder {missing[0]}")

    @staticmethod
    def classes(board: Board) -> np.ndarray:
        """``(V,)`` class ``g - 1`` of each 0-based digit, ``g = 1, 2, 3`` its value's remainder
        mod 3 (``3`` for remainder 0).

        Parameters
        ----------
        board : Board
            The puzzle's board (its values).

        Returns
        -------
        ndarray of int
        """
        return (board.value_of - 1) % 3


@dataclass(frozen=True, eq=False)
class AntiTaxicab(_Global):
    """A digit of value ``v`` never sees the same digit at taxicab distance exactly ``v``
    (``|dr| + |dc| = v``; ISS ``AntiTaxicab``; values below 1 bind nothing).

    Rows ``antitaxicab_d_p`` (``<= 1``): ``x[a,d] + x[b,d]`` for the ``p``-th pair of cells at
    distance ``value(d)`` (in one grid, sharing no unit, ``a < b`` row-major, sorted by ``a``
    then ``b``).
    """

    kind = "antitaxicab"
    noun = "anti-taxicab"
    nonzeros_per_variable = 50.0   # grows with N: 27.7 measured at N = 36, about 0.77 N
    families = ("antitaxicab",)
    description = "anti-taxicab: a digit v never repeats at taxicab distance v"

    def estimated_nonzeros(self, board: Board) -> float:
        """Two nonzeros per pair of cells at taxicab distance ``v``, summed over the values ``v``
        (the pairs sharing a unit, which add no row, are counted too: an upper bound; 27.7 a
        variable at N = 36, 77 at N = 100, where a fixed 50 let a 10 GiB build past a 6.5 GiB
        limit), scaled from the board's cells and digits to its canvas and values."""
        rows, cols = board.rows, board.cols
        total = 0
        for v in {int(v) for v in board.value_of.tolist() if v >= 1}:
            dr = np.arange(min(v, rows - 1) + 1)
            dc = v - dr
            keep = dc < cols
            dr, dc = dr[keep], dc[keep]
            sides = np.where((dr > 0) & (dc > 0), 2, 1)    # (dr, dc) and (dr, -dc); one for a straight line
            total += int((sides * (rows - dr) * (cols - dc)).sum()) * int((board.value_of == v).sum())
        return 2.0 * total * rows * cols * board.n_values / max(1, board.n_cells * board.n)

    @staticmethod
    def pairs(board: Board, value: int) -> np.ndarray:
        """``(P, 2)`` pairs of cells at taxicab distance ``value`` that share no unit.

        Parameters
        ----------
        board : Board
            The puzzle's board (its canvas, units and layout).
        value : int
            The distance (a digit's value; below 1: no pair).

        Returns
        -------
        ndarray of int
        """
        value = int(value)
        if value < 1 or value > board.rows + board.cols - 2:
            return np.zeros((0, 2), dtype=np.int64)
        # one offset of each pair: dr > 0, or dr = 0 and dc > 0
        offsets = [(dr, s * (value - dr)) for dr in range(value + 1) for s in ((1, -1) if 0 < dr < value else (1,))]
        pairs = board.offset_pairs(offsets)
        return pairs[~board.share_a_unit(pairs)] if pairs.size else pairs

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``antitaxicab_d_p`` (``<= 1``): the ``p``-th pair at distance ``value(d)`` does not hold ``d`` twice.

        Parameters
        ----------
        board : Board
            The puzzle's board (canvas, units, values).
        index : int
            Unused: a global rule comes at most once per puzzle; its labels number digits and pairs.

        Returns
        -------
        list of Rows
            The one ``antitaxicab`` block, digits slowest.
        """
        parts = [(d, self.pairs(board, v)) for d, v in enumerate(board.value_of.tolist())]
        parts = [(d, p) for d, p in parts if p.size]
        if not parts:
            return [Rows.empty("antitaxicab", "L", 2)]
        a = np.concatenate([p[:, 0] for _, p in parts])
        b = np.concatenate([p[:, 1] for _, p in parts])
        digit = np.concatenate([np.full(p.shape[0], d) for d, p in parts])
        number = np.concatenate([np.arange(1, p.shape[0] + 1) for _, p in parts])
        return [pair_rows("antitaxicab", a, b, digit, digit, np.stack([digit + 1, number], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Two cells at taxicab distance ``v`` both holding the value ``v``.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (canvas, units, values, cell names).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per offending pair.
        """
        out = []
        for d, v in enumerate(board.value_of.tolist()):
            bad = self._pairs_holding(grid, board, d, int(v))
            out += [{"message": f"{cell_name(x, board)} and {cell_name(y, board)} both hold {v} at taxicab "
                                f"distance {v}", "cells": [int(x), int(y)]} for x, y in bad.tolist()]
        return out

    def _pairs_holding(self, grid: np.ndarray, board: Board, digit: int, value: int) -> np.ndarray:
        """The pairs of :meth:`pairs` whose cells both hold ``digit`` (0-based): from the cells that
        hold it (a few clues: no work; a full 100x100: 100 cells, 4,950 pairs) rather than from
        every pair of the grid (60 million at 100x100: 21 s to check a puzzle's clues)."""
        cells = np.flatnonzero(grid[:board.n_cells] == digit + 1)
        if value < 1 or cells.size < 2:
            return np.zeros((0, 2), dtype=np.int64)
        if cells.size > 2000:   # an odd grid (a digit everywhere): the pairs' own bound
            pairs = self.pairs(board, value)
            return pairs[(grid[pairs[:, 0]] == digit + 1) & (grid[pairs[:, 1]] == digit + 1)] if pairs.size else pairs
        a, b = np.triu_indices(cells.size, 1)
        a, b = cells[a], cells[b]                        # a < b, by a then b (cells ascend)
        (ra, ca), (rb, cb) = np.divmod(a, board.cols), np.divmod(b, board.cols)
        pairs = np.stack([a, b], axis=1)[np.abs(ra - rb) + np.abs(ca - cb) == value]
        if pairs.size:
            pairs = pairs[board.in_one_grid(pairs)]
        return pairs[~board.share_a_unit(pairs)] if pairs.size else pairs


@dataclass(frozen=True, eq=False)
class DutchFlatmates(_Global):
    """Every middle digit has the first digit directly above it or the last directly below
    (ISS ``DutchFlatmates``: a 5 has a 1 above or a 9 below; the middle digit is number
    ``ceil(V/2)`` of the ``V`` in order, the first and last the smallest and largest values).

    Rows ``dutchflatmates_r_c`` (``<= 0``): ``x[c,m] - x[above,1] - x[below,V]`` for every cell
    ``c = (r, c)``, ``m = ceil(V/2)``, a term left out where the cell has no neighbour above or
    below in its grid.
    """

    kind = "dutchflatmates"
    noun = "Dutch flatmates"
    nonzeros_per_variable = 0.5
    families = ("dutchflatmates",)
    description = "Dutch flatmates: a middle digit has the first digit above it or the last below it"

    @staticmethod
    def middle(board: Board) -> int:
        """The 0-based middle digit, ``ceil(V/2) - 1``.

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        int
        """
        return (board.n_values + 1) // 2 - 1

    @staticmethod
    def neighbours(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Present cells and the cell above and below each in one grid (-1: none).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        tuple of ndarray
            ``(cells, above, below)``, cells row-major.
        """
        cells = np.flatnonzero(board.present)
        above = np.full(board.n_cells, -1, dtype=np.int64)
        below = np.full(board.n_cells, -1, dtype=np.int64)
        pairs = board.offset_pairs([(1, 0)])        # (upper, lower), within one grid
        if pairs.size:
            above[pairs[:, 1]] = pairs[:, 0]
            below[pairs[:, 0]] = pairs[:, 1]
        return cells, above[cells], below[cells]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``dutchflatmates_r_c`` (``<= 0``): cell ``(r, c)`` holds the middle digit only with a
        first digit above or a last digit below.

        Parameters
        ----------
        board : Board
            The puzzle's board (canvas, values).
        index : int
            Unused: a global rule comes at most once per puzzle; its labels name the cells.

        Returns
        -------
        list of Rows
            The one ``dutchflatmates`` block.
        """
        cells, above, below = self.neighbours(board)
        k = cells.size
        last = board.n_values - 1
        cell = np.stack([cells, above, below], axis=1)
        digit = np.broadcast_to(np.array([self.middle(board), 0, last]), (k, 3))
        coef = np.broadcast_to(np.array([1, -1, -1]), (k, 3))
        row = np.broadcast_to(np.arange(k)[:, None], (k, 3))
        keep = cell >= 0
        r, c = np.divmod(cells, board.cols)
        return [Rows("dutchflatmates", row[keep], cell[keep], digit[keep].astype(np.int64), coef[keep].astype(np.int64),
                     np.zeros(k, dtype=np.int64), "L", np.stack([r + 1, c + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Middle digits whose cell above is not empty nor the first digit and whose cell below is
        not empty nor the last digit.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (canvas, values, cell names).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per offending cell.
        """
        cells, above, below = self.neighbours(board)
        held = np.concatenate([grid, [-1]])     # index -1: no neighbour, never a possible flatmate
        up, down = held[above], held[below]
        up_ok = (up == 0) | (up == 1)
        down_ok = (down == 0) | (down == board.n_values)
        bad = cells[(grid[cells] == self.middle(board) + 1) & ~up_ok & ~down_ok]
        first, mid, last = (board.value(d) for d in (1, self.middle(board) + 1, board.n_values))
        return [{"message": f"{cell_name(x, board)} holds {mid} without {first} above it or {last} below it",
                 "cells": [int(x)]} for x in bad.tolist()]
