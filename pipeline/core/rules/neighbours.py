"""Global rules between neighbouring cells: anti-knight, anti-king and non-consecutive.

In a gattai layout each acts within each grid (as setters mean it): two cells of different
grids that are not both in one grid are never a knight's move, a king's move or neighbours to
these rules, though they sit side by side on the canvas (:meth:`Board.offset_pairs`).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from pipeline.core.rules.base import Board, Rows, Rule, cell_name, check_keys
from pipeline.core.rules.rowblocks import pair_rows

__all__ = ["AntiKnight", "AntiKing", "NonConsecutive"]

KNIGHT = [(1, 2), (2, 1), (1, -2), (2, -1)]
#: A king's diagonal steps (its orthogonal ones share a row or column, which units cover already).
KING_DIAGONAL = [(1, 1), (1, -1)]


def _same_digit_pairs(pairs: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The pairs whose two cells hold the same (nonzero) digit."""
    a, b = grid[pairs[:, 0]], grid[pairs[:, 1]]
    return pairs[(a > 0) & (a == b)]


#: Boards whose rows of these rules are kept: the rows depend on the board alone (its size, boxes,
#: units, layout), so a batch's anti-knight puzzles of one shape build them once (0.1-0.25 ms of
#: each 9x9 puzzle's reading otherwise).
ROWS_KEPT = 16
_KEPT_ROWS: OrderedDict = OrderedDict()
_KEPT_LOCK = threading.Lock()


def _board_key(board: Board) -> tuple:
    """Everything of ``board`` these rules' rows depend on, hashable."""
    units = tuple((name, cells.shape, cells.tobytes()) for name, cells in board.unit_families)
    return (board.rows, board.cols, board.n, board.h, board.w, board.present.tobytes(), units, board.grids,
            board.values, board.extra)


class _Global(Rule):
    global_rule = True

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str):
        check_keys(data, set(), where)
        return cls()

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """The rule's rows (:meth:`rows`), built once per board and kept (read-only) for the
        :data:`ROWS_KEPT` boards used last.

        Parameters
        ----------
        rules : list of Rule
            The one rule of this kind (a global rule comes at most once).
        board : Board
            The puzzle's board.
        first_index : int
            The rule's 1-based number (unused by the labels).

        Returns
        -------
        list of Rows
        """
        key = (cls.kind, len(rules), first_index, _board_key(board))
        with _KEPT_LOCK:
            blocks = _KEPT_ROWS.get(key)
            if blocks is not None:
                _KEPT_ROWS.move_to_end(key)
                return blocks
        blocks = super().rows_of(rules, board, first_index)
        for block in blocks:   # shared by every puzzle of the board from now on
            for array in (block.row, block.cell, block.digit, block.coef, block.rhs, block.labels):
                array.flags.writeable = False
        with _KEPT_LOCK:
            _KEPT_ROWS[key] = blocks
            while len(_KEPT_ROWS) > ROWS_KEPT:
                _KEPT_ROWS.popitem(last=False)
        return blocks

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind}


@dataclass(frozen=True, eq=False)
class AntiKnight(_Global):
    """No digit repeats a knight's move apart.

    Rows ``antiknight_p_d`` (``<= 1``): ``x[a, d] + x[b, d]`` for knight pair ``p`` (pairs of cells
    a knight's move apart that share no unit, ``a < b`` row-major, sorted by ``a`` then ``b``) and
    digit ``d``. The knight's-move graph has no triangles, so a pair is its largest clique: one
    row per pair and digit is already the compact form.
    """

    kind = "antiknight"
    noun = "anti-knight"
    nonzeros_per_variable = 3.0
    families = ("antiknight",)
    description = "anti-knight: no digit repeats a knight's move apart"

    def pairs(self, board: Board) -> np.ndarray:
        pairs = board.offset_pairs(KNIGHT)
        return pairs[~board.share_a_unit(pairs)] if pairs.size else pairs

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``antiknight_p_d`` (``<= 1``): knight pair ``p`` does not hold digit ``d`` twice.

        Parameters
        ----------
        board : Board
            The puzzle's board (its knight pairs within one grid, sharing no unit; ``n``).
        index : int
            Unused: a global rule comes at most once per puzzle, and its labels number the pairs instead.

        Returns
        -------
        list of Rows
            The one ``antiknight`` block.
        """
        pairs = self.pairs(board)
        n = board.n_values
        p, d = np.divmod(np.arange(pairs.shape[0] * n), n)
        return [pair_rows("antiknight", pairs[p, 0], pairs[p, 1], d, d, np.stack([p + 1, d + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Two cells a knight's move apart (sharing no unit) holding the same digit.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its knight pairs, cell names).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per offending pair.
        """
        bad = _same_digit_pairs(self.pairs(board), grid)
        return [{"message": f"{cell_name(a, board)} and {cell_name(b, board)} are a knight's move apart and both "
                            f"hold {board.value(grid[a])}", "cells": [int(a), int(b)]} for a, b in bad.tolist()]


@dataclass(frozen=True, eq=False)
class AntiKing(_Global):
    """No digit repeats a king's move apart (diagonal neighbours included).

    Rows ``antiking_r_c_d`` (``<= 1``): every king's-move pair lies in a 2x2 window, whose cells
    are pairwise a king's move apart, so one clique row per window (top-left cell ``r, c``) and
    digit covers them all; windows whose cells share a unit (a box) are implied and left out.
    In a gattai layout the rule acts within each grid: only windows inside one grid.
    """

    kind = "antiking"
    noun = "anti-king"
    nonzeros_per_variable = 1.0
    families = ("antiking",)
    needs_lines = True   # 2x2 windows: orthogonal neighbours differ because they share a row or column
    description = "anti-king: no digit repeats a king's move apart"

    def windows(self, board: Board) -> tuple[np.ndarray, np.ndarray]:
        """Top-left cells and ``(W, 4)`` cells of the 2x2 windows that need a row: those inside
        one grid (every king's-move pair of a grid lies in such a window; a layout's windows
        across two grids hold no pair the rule binds) whose cells share no unit."""
        r, c = np.divmod(np.arange(board.n_cells), board.cols)
        top_left = np.flatnonzero((r < board.rows - 1) & (c < board.cols - 1))
        cells = top_left[:, None] + np.array([0, 1, board.cols, board.cols + 1])[None, :]
        keep = board.present[cells].all(axis=1)
        keep[keep] = board.in_one_grid(cells[keep])
        top_left, cells = top_left[keep], cells[keep]
        implied = board.share_a_unit(cells) if top_left.size else np.zeros(0, dtype=bool)
        return top_left[~implied], cells[~implied]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``antiking_r_c_d`` (``<= 1``): the 2x2 window at ``r, c`` holds digit ``d`` at most once.

        Parameters
        ----------
        board : Board
            The puzzle's board (its windows within one grid, sharing no unit; ``n``).
        index : int
            Unused: a global rule comes at most once per puzzle, and its labels number the
            windows by their top-left cell instead.

        Returns
        -------
        list of Rows
            The one ``antiking`` block.
        """
        top_left, cells = self.windows(board)
        n = board.n_values
        w_count = top_left.size
        # rows (window, digit), digit fastest; terms: the window's four cells
        row = np.repeat(np.arange(w_count * n), 4)
        cell = np.repeat(cells, n, axis=0).ravel()
        digit = np.repeat(np.arange(w_count * n) % n, 4)
        r, c = np.divmod(np.repeat(top_left, n), board.cols)
        labels = np.stack([r + 1, c + 1, np.tile(np.arange(1, n + 1), w_count)], axis=1)
        return [Rows("antiking", row, cell.astype(np.int64), digit.astype(np.int64), np.ones(row.size, dtype=np.int64),
                     np.ones(w_count * n, dtype=np.int64), "L", labels)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Two diagonal neighbours (sharing no unit) holding the same digit.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its diagonal pairs, cell names).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per offending pair.
        """
        diagonal = board.offset_pairs(KING_DIAGONAL)   # orthogonal neighbours share a row or column
        bad = _same_digit_pairs(diagonal[~board.share_a_unit(diagonal)] if diagonal.size else diagonal, grid)
        return [{"message": f"{cell_name(a, board)} and {cell_name(b, board)} are a king's move apart and both "
                            f"hold {board.value(grid[a])}", "cells": [int(a), int(b)]} for a, b in bad.tolist()]


@dataclass(frozen=True, eq=False)
class NonConsecutive(_Global):
    """Orthogonal neighbours never hold consecutive digits.

    Rows ``nonconsecutive_p_d`` (``<= 1``): for orthogonal pair ``p`` (sorted as for anti-knight)
    and ``d = 1..N-1``, ``x[a, d] + x[a, d+1] + x[b, d] + x[b, d+1]``: neighbours share a row or a
    column, so they never hold the same digit and this one row forbids both ``(d, d+1)`` and
    ``(d+1, d)``. In a gattai layout the rule acts within each grid, where neighbours always
    share a row or a column (cells side by side in two grids are not neighbours to it).
    """

    kind = "nonconsecutive"
    noun = "non-consecutive"
    nonzeros_per_variable = 8.0
    families = ("nonconsecutive",)
    needs_lines = True   # one row per pair and digit pair: neighbours never hold the same digit
    description = "non-consecutive: orthogonal neighbours never differ by 1"

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``nonconsecutive_p_d`` (``<= 1``): orthogonal pair ``p`` holds neither ``(d, d+1)`` nor ``(d+1, d)``.

        Parameters
        ----------
        board : Board
            The puzzle's board (its orthogonal pairs within one grid; ``n``).
        index : int
            Unused: a global rule comes at most once per puzzle, and its labels number the pairs instead.

        Returns
        -------
        list of Rows
            The one ``nonconsecutive`` block.
        """
        clique = board.orthogonal_pairs()   # within one grid: a row or a column holds both
        # digits d, d+1 whose values are consecutive (all of them for the values 1..N)
        steps = np.flatnonzero(np.diff(board.value_of) == 1)
        p, k = np.divmod(np.arange(clique.shape[0] * steps.size), max(steps.size, 1))
        d = steps[k] if steps.size else k
        a, b = clique[p, 0], clique[p, 1]
        cell = np.stack([a, a, b, b], axis=1).ravel()
        digit = np.stack([d, d + 1, d, d + 1], axis=1).ravel()
        return [Rows("nonconsecutive", np.repeat(np.arange(p.size), 4), cell, digit, np.ones(cell.size, dtype=np.int64),
                     np.ones(p.size, dtype=np.int64), "L", np.stack([p + 1, d + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Two orthogonal neighbours holding consecutive digits.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its orthogonal pairs, cell names).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per offending pair.
        """
        pairs = board.orthogonal_pairs()
        a, b = grid[pairs[:, 0]], grid[pairs[:, 1]]
        bad = pairs[(a > 0) & (b > 0) & (np.abs(board.grid_values(a) - board.grid_values(b)) == 1)]
        return [{"message": f"{cell_name(x, board)} and {cell_name(y, board)} are neighbours holding consecutive "
                            f"digits {board.value(grid[x])} and {board.value(grid[y])}", "cells": [int(x), int(y)]} for x, y in bad.tolist()]
