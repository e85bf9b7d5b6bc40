"""Global rules between neighbouring cells: anti-knight, anti-king and non-consecutive."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.rules.base import Board, Rows, Rule, cell_name, check_keys, pair_rows

__all__ = ["AntiKnight", "AntiKing", "NonConsecutive"]

KNIGHT = [(1, 2), (2, 1), (1, -2), (2, -1)]
#: A king's diagonal steps (its orthogonal ones share a row or column, which units cover already).
KING_DIAGONAL = [(1, 1), (1, -1)]


def _same_digit_pairs(pairs: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The pairs whose two cells hold the same (nonzero) digit."""
    a, b = grid[pairs[:, 0]], grid[pairs[:, 1]]
    return pairs[(a > 0) & (a == b)]


class _Global(Rule):
    global_rule = True

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str):
        check_keys(data, set(), where)
        return cls()

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
        pairs = self.pairs(board)
        n = board.n
        p, d = np.divmod(np.arange(pairs.shape[0] * n), n)
        return [pair_rows("antiknight", pairs[p, 0], pairs[p, 1], d, d, np.stack([p + 1, d + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        bad = _same_digit_pairs(self.pairs(board), grid)
        return [{"message": f"{cell_name(a, board)} and {cell_name(b, board)} are a knight's move apart and both "
                            f"hold {grid[a]}", "cells": [int(a), int(b)]} for a, b in bad.tolist()]


@dataclass(frozen=True, eq=False)
class AntiKing(_Global):
    """No digit repeats a king's move apart (diagonal neighbours included).

    Rows ``antiking_r_c_d`` (``<= 1``): every king's-move pair lies in a 2x2 window, whose cells
    are pairwise a king's move apart, so one clique row per window (top-left cell ``r, c``) and
    digit covers them all; windows whose cells share a unit (a box) are implied and left out.
    """

    kind = "antiking"
    noun = "anti-king"
    nonzeros_per_variable = 1.0
    families = ("antiking",)
    description = "anti-king: no digit repeats a king's move apart"

    def windows(self, board: Board) -> tuple[np.ndarray, np.ndarray]:
        """Top-left cells and ``(W, 4)`` cells of the 2x2 windows that need a row; absent cells of
        a gattai layout are -1 (left out of the row)."""
        r, c = np.divmod(np.arange(board.n_cells), board.cols)
        top_left = np.flatnonzero((r < board.rows - 1) & (c < board.cols - 1))
        cells = top_left[:, None] + np.array([0, 1, board.cols, board.cols + 1])[None, :]
        present = board.present[cells]
        keep = present.sum(axis=1) >= 2
        top_left, cells, present = top_left[keep], cells[keep], present[keep]
        full = present.all(axis=1)
        # a window is implied when its present cells lie in one unit (full windows: checked as a group)
        implied = np.zeros(top_left.size, dtype=bool)
        implied[full] = board.share_a_unit(cells[full])
        for k in np.flatnonzero(~full).tolist():   # gattai edges only: few windows
            implied[k] = board.share_a_unit(cells[k][present[k]][None, :])[0]
        cells = np.where(present, cells, -1)
        return top_left[~implied], cells[~implied]

    def rows(self, board: Board, index: int) -> list[Rows]:
        top_left, cells = self.windows(board)
        n = board.n
        w_count = top_left.size
        present = cells >= 0
        per_window = present.sum(axis=1)
        # rows (window, digit), digit fastest; terms: the window's present cells
        row = np.repeat(np.arange(w_count * n), np.repeat(per_window, n))
        cell = np.concatenate([np.tile(cells[k][present[k]], n) for k in range(w_count)]) if w_count else \
            np.zeros(0, dtype=np.int64)
        digit = np.concatenate([np.repeat(np.arange(n), per_window[k]) for k in range(w_count)]) if w_count else \
            np.zeros(0, dtype=np.int64)
        r, c = np.divmod(np.repeat(top_left, n), board.cols)
        labels = np.stack([r + 1, c + 1, np.tile(np.arange(1, n + 1), w_count)], axis=1)
        return [Rows("antiking", row, cell.astype(np.int64), digit.astype(np.int64), np.ones(row.size, dtype=np.int64),
                     np.ones(w_count * n, dtype=np.int64), "L", labels)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        diagonal = board.offset_pairs(KING_DIAGONAL)   # orthogonal neighbours share a row or column
        bad = _same_digit_pairs(diagonal[~board.share_a_unit(diagonal)] if diagonal.size else diagonal, grid)
        return [{"message": f"{cell_name(a, board)} and {cell_name(b, board)} are a king's move apart and both "
                            f"hold {grid[a]}", "cells": [int(a), int(b)]} for a, b in bad.tolist()]


@dataclass(frozen=True, eq=False)
class NonConsecutive(_Global):
    """Orthogonal neighbours never hold consecutive digits.

    Rows ``nonconsecutive_p_d`` (``<= 1``): for orthogonal pair ``p`` (sorted as for anti-knight)
    and ``d = 1..N-1``, ``x[a, d] + x[a, d+1] + x[b, d] + x[b, d+1]``: neighbours share a row or a
    column, so they never hold the same digit and this one row forbids both ``(d, d+1)`` and
    ``(d+1, d)``. Neighbours that share no unit (possible only between grids of a gattai layout)
    get the two pair rows ``nonconsecutivepair_p_d_s`` instead.
    """

    kind = "nonconsecutive"
    noun = "non-consecutive"
    nonzeros_per_variable = 8.0
    families = ("nonconsecutive", "nonconsecutivepair")
    description = "non-consecutive: orthogonal neighbours never differ by 1"

    def rows(self, board: Board, index: int) -> list[Rows]:
        pairs = board.orthogonal_pairs()
        n = board.n
        shared = board.share_a_unit(pairs) if pairs.size else np.zeros(0, dtype=bool)
        clique = pairs[shared]
        p, d = np.divmod(np.arange(clique.shape[0] * (n - 1)), n - 1)
        a, b = clique[p, 0], clique[p, 1]
        cell = np.stack([a, a, b, b], axis=1).ravel()
        digit = np.stack([d, d + 1, d, d + 1], axis=1).ravel()
        main = Rows("nonconsecutive", np.repeat(np.arange(p.size), 4), cell, digit, np.ones(cell.size, dtype=np.int64),
                    np.ones(p.size, dtype=np.int64), "L", np.stack([p + 1, d + 1], axis=1))
        loose = pairs[~shared]
        p2, rest = np.divmod(np.arange(loose.shape[0] * (n - 1) * 2), (n - 1) * 2)
        d2, side = np.divmod(rest, 2)
        extra = pair_rows("nonconsecutivepair", loose[p2, 0], loose[p2, 1], d2 + side, d2 + 1 - side,
                          np.stack([p2 + 1, d2 + 1, side + 1], axis=1))
        return [main, extra]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        pairs = board.orthogonal_pairs()
        a, b = grid[pairs[:, 0]], grid[pairs[:, 1]]
        bad = pairs[(a > 0) & (b > 0) & (np.abs(a - b) == 1)]
        return [{"message": f"{cell_name(x, board)} and {cell_name(y, board)} are neighbours holding consecutive "
                            f"digits {grid[x]} and {grid[y]}", "cells": [int(x), int(y)]} for x, y in bad.tolist()]
