"""Skyscrapers and counting circles: skyscraper (ISS ``Skyscraper``) and counting circles (ISS
``CountingCircles``), whose rows reach the auxiliary 0-1 columns they declare
(:mod:`pipeline.core.rules.auxcols`; docs/conventions.md, "Auxiliary columns"), and hidden
skyscraper (ISS ``HiddenSkyscraper``), rows over the cells only."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import Board, Glyph, Rows, cell_list_text, cell_name, check_keys, parse_cells
from pipeline.core.rules.outside import OutsideLine

__all__ = ["Skyscraper", "HiddenSkyscraper", "CountingCircles"]


@dataclass(frozen=True, eq=False)
class Skyscraper(OutsideLine, AuxRule):
    """Digits are heights; a taller one hides every one behind it; the clue counts the heights
    seen from it along its row or column: ``{"rule": "skyscraper", "clue": "r0c3", "count": 4}``
    (ISS ``Skyscraper``). ``c_i`` is seen when it is taller than every ``c_j``, ``j < i`` (a
    repeated height hides), and its value is above 0: a value of 0 or less is no skyscraper
    (ISS: "0-valued cells do not count"; on ``1..V`` every cell may be seen, on ``0..V-1`` a 0
    first in the line is not counted). Heights compare by digit index, the values' order.

    Auxiliary columns ``aux_skyscraper_k_i``, ``i = 2..N``: ``c_i`` is seen (``c_1`` is when its
    value is above 0). ``Z`` is the digits of values ``<= 0`` (none for ``1..V``). Rows:
    ``skyscraper_k`` (``= count - 1``): ``sum_i aux_i - sum_{d in Z} x[c_1, d]``;
    ``skyscraperseen_k_i_d`` (``<= 0``, ``d`` not in ``Z``): ``x[c_i, d] - sum_{j<i} sum_{e>=d}
    x[c_j, e] - aux_i`` (``c_i`` holds ``d`` and nothing before it reaches ``d``: seen);
    ``skyscraperhidden_k_i_j_d`` (``<= 2``): ``aux_i + sum_{e<=d} x[c_i, e] + sum_{e>=d}
    x[c_j, e]`` for ``j < i`` (``c_j`` at least as tall as ``c_i``: hidden);
    ``skyscraperlow_k_i`` (``<= 1``, only when ``Z`` is not empty): ``aux_i + sum_{d in Z}
    x[c_i, d]`` (no skyscraper: not seen). With each cell's ``= 1`` row the 0-1 points are
    exactly the grids that agree.
    """

    kind: ClassVar[str] = "skyscraper"
    families: ClassVar[tuple[str, ...]] = ("skyscraper", "skyscraperseen", "skyscraperhidden", "skyscraperlow")
    aux_families: ClassVar[tuple[str, ...]] = ("skyscraper",)
    description: ClassVar[str] = "skyscraper: the clue counts the digits seen from it, taller ones hiding shorter"
    noun: ClassVar[str] = "skyscraper clue"
    value_key: ClassVar[str] = "count"

    build_cost: ClassVar[float] = 0.3   # measured: 6.6 s for 30.1 M nonzeros (sandwich 4.5 s, 18.6 M)

    def estimated_nonzeros(self, board: Board) -> float:
        """The hidden rows pair every two cells of the line on every digit, ``N + 2`` nonzeros
        each: about ``0.75 L^2 N^2`` nonzeros for a line of ``L`` cells (5,336 at 9x9, 51,375 at
        16x16), counted as ``0.75 L^2 N V``: a rule over one line is no 0 to the memory and time
        limits (a hundred clues on a 25x25 built 3.4 GB under a 1 GB limit)."""
        return 0.75 * len(self.cell_list) ** 2 * board.n * board.n_values

    @classmethod
    def value_range(cls, board: Board) -> tuple[int, int]:
        """``1..N`` (``0..N`` when a value is 0 or less: a line may hold no skyscraper).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        tuple of (int, int)
        """
        return (0 if board.value_of[0] <= 0 else 1), board.n

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
        low = np.flatnonzero(board.value_of <= 0)           # Z: the digits that are no skyscraper
        length = cells.size
        seen = np.arange(1, length)                         # 0-based line positions with a column: aux k = i - 1
        count = AuxRows("skyscraper", np.zeros(low.size, dtype=np.int64), np.full(low.size, cells[0]),
                        low, -np.ones(low.size, dtype=np.int64), np.array([self.value - 1]), "E",
                        np.array([[index]]), np.zeros(seen.size, dtype=np.int64), seen - 1,
                        np.ones(seen.size, dtype=np.int64))
        return [count, _seen_rows(cells, n, index, low.size), _hidden_rows(cells, n, index),
                _low_rows(cells, low, index)]

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
        count = int(np.count_nonzero((values > before) & (board.grid_values(values) > 0)))
        if count != self.value:
            return [{"message": f"{self.describe(board)}: {count} seen", "cells": list(self.cell_list)}]
        return []


def _seen_rows(cells: np.ndarray, n: int, index: int, start: int = 0) -> AuxRows:
    """``skyscraperseen_k_i_d``: ``x[c_i, d] - sum_{j<i, e>=d} x[c_j, e] - aux_i <= 0``, ``d >= start``.

    Rows ``(i, d)``, ``i = 1..L-1`` (0-based), ``d`` fastest; each row's terms are ``x[c_i, d]``
    then ``x[c_j, e]`` for ``j < i``, ``e = d..n-1`` (``e`` fastest), all built at once."""
    i, d = (a.ravel() for a in np.meshgrid(np.arange(1, cells.size), np.arange(start, n), indexing="ij"))
    r = i.size
    tall = n - d                                          # heights e >= d: terms per earlier cell
    sizes = 1 + i * tall
    row = np.repeat(np.arange(r), sizes)
    k = np.arange(row.size) - np.repeat(np.cumsum(sizes) - sizes, sizes) - 1   # -1: the x[c_i, d] term
    first = k < 0
    q = np.maximum(k, 0)
    j, e = np.divmod(q, tall[row])
    cell = np.where(first, cells[i][row], cells[j])
    digit = np.where(first, d[row], d[row] + e)
    coef = np.where(first, 1, -1)
    labels = np.stack([np.full(r, index), i + 1, d + 1], axis=1)
    return AuxRows("skyscraperseen", row, cell.astype(np.int64), digit.astype(np.int64), coef.astype(np.int64),
                   np.zeros(r, dtype=np.int64), "L", labels, np.arange(r), (i - 1).astype(np.int64),
                   -np.ones(r, dtype=np.int64))


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


def _low_rows(cells: np.ndarray, low: np.ndarray, index: int) -> AuxRows:
    """``skyscraperlow_k_i``: ``aux_i + sum_{d in Z} x[c_i, d] <= 1``, ``i = 2..L`` (none when ``Z`` is empty)."""
    i = np.arange(1, cells.size) if low.size else np.zeros(0, dtype=np.int64)
    m = i.size
    row = np.repeat(np.arange(m), low.size)
    labels = np.stack([np.full(m, index), i + 1], axis=1)
    return AuxRows("skyscraperlow", row, np.repeat(cells[i], low.size).astype(np.int64), np.tile(low, m).astype(np.int64),
                   np.ones(row.size, dtype=np.int64), np.ones(m, dtype=np.int64), "L", labels,
                   np.arange(m), (i - 1).astype(np.int64), np.ones(m, dtype=np.int64))


@dataclass(frozen=True, eq=False)
class HiddenSkyscraper(OutsideLine):
    """Digits are heights; the clue is the first skyscraper hidden from it along its row or
    column: ``{"rule": "hiddenskyscraper", "clue": "r0c3", "digit": 4}`` (ISS
    ``HiddenSkyscraper``). Read from the clue, ``c_t`` is the first cell not taller than every
    cell before it; the clue says ``c_t`` holds ``digit`` (a value of the set). The line must be
    one unit (its values distinct), so ``digit`` is in it once, not first, lower than the cell
    before it, and every cell before it is taller than the one before that. Heights compare by
    digit index (the values' order; a 0 is as much a height as any other value, as in ISS).

    ``D`` is the clue's digit. Rows: ``hiddenskyscraper_k`` (``= 1``): ``sum_{p>=2} x[c_p, D]``
    (``D`` is in the line, not first); ``hiddenskyscrapertaller_k_p`` (``<= 0``), ``p = 2..L``:
    ``x[c_p, D] - sum_{e>D} x[c_{p-1}, e]`` (the cell before ``D`` is taller);
    ``hiddenskyscraperrise_k_j_e`` (``<= 2``), ``j = 1..L-2``: ``sum_{p>=j+2} x[c_p, D] +
    x[c_j, e] + sum_{f<=e} x[c_{j+1}, f]`` (with ``D`` beyond ``c_{j+1}``, ``c_{j+1}`` is taller
    than ``c_j``). With each cell's ``= 1`` row the 0-1 points are exactly the grids that agree.
    """

    kind: ClassVar[str] = "hiddenskyscraper"
    line_nonzeros: ClassVar[float] = 1.0   # measured: 0.94-0.97 L N^2 (L = N) at N = 16, 25, 36
    build_cost: ClassVar[float] = 0.1
    families: ClassVar[tuple[str, ...]] = ("hiddenskyscraper", "hiddenskyscrapertaller", "hiddenskyscraperrise")
    description: ClassVar[str] = "hidden skyscraper: the clue is the first digit hidden from it by a taller one"
    noun: ClassVar[str] = "hidden skyscraper clue"
    value_key: ClassVar[str] = "digit"
    needs_unit: ClassVar[bool] = True
    value_in_set: ClassVar[bool] = True

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The one-place row, the taller rows and the rise rows (class docstring).

        Parameters
        ----------
        board : Board
            The puzzle's board (``V`` digits).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        cells, n = self.cells(), board.n_values
        target = int(board.index_of([self.value])[0])
        length = cells.size
        one = Rows("hiddenskyscraper", np.zeros(length - 1, dtype=np.int64), cells[1:],
                   np.full(length - 1, target), np.ones(length - 1, dtype=np.int64), np.array([1]), "E",
                   np.array([[index]]))
        # taller: row p-2 for p = 2..L (1-based): x[c_p, D] then -x[c_{p-1}, e], e > D
        taller_e = np.arange(target + 1, n)
        p = np.arange(1, length)                                    # 0-based positions 1..L-1
        k = taller_e.size
        t_row = np.concatenate([np.arange(p.size)[:, None], np.repeat(np.arange(p.size)[:, None], k, axis=1)], axis=1)
        t_cell = np.concatenate([cells[p][:, None], np.repeat(cells[p - 1][:, None], k, axis=1)], axis=1)
        t_digit = np.concatenate([np.full((p.size, 1), target), np.tile(taller_e, (p.size, 1))], axis=1)
        t_coef = np.concatenate([np.ones((p.size, 1), dtype=np.int64), -np.ones((p.size, k), dtype=np.int64)], axis=1)
        taller = Rows("hiddenskyscrapertaller", t_row.ravel(), t_cell.ravel().astype(np.int64),
                      t_digit.ravel().astype(np.int64), t_coef.ravel(), np.zeros(p.size, dtype=np.int64), "L",
                      np.stack([np.full(p.size, index), p + 1], axis=1))
        return [one, taller, _rise_rows(cells, n, target, index)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The first hidden cell, when the cells up to it are filled, holds another value.

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
        filled = int(np.argmin(values > 0)) if not values.all() else values.size   # the filled prefix
        head = values[:filled]
        before = np.concatenate([[0], np.maximum.accumulate(head)[:-1]])
        hidden = np.flatnonzero(head <= before)
        if hidden.size:
            t = int(hidden[0])
            got = board.value(int(head[t]))
            if got != self.value:
                return [{"message": f"{self.describe(board)}: the first hidden digit is {got} "
                                    f"({cell_name(self.cell_list[t], board)})", "cells": list(self.cell_list[:t + 1])}]
        elif filled == values.size:
            return [{"message": f"{self.describe(board)}: no digit is hidden", "cells": list(self.cell_list)}]
        return []


def _rise_rows(cells: np.ndarray, n: int, target: int, index: int) -> Rows:
    """``hiddenskyscraperrise_k_j_e``: ``sum_{p>=j+2} x[c_p, D] + x[c_j, e] + sum_{f<=e} x[c_{j+1}, f] <= 2``."""
    length = cells.size
    j, e = (a.ravel() for a in np.meshgrid(np.arange(length - 2), np.arange(n), indexing="ij"))
    m = j.size
    # terms per row: D beyond c_{j+1} (length - j - 2), x[c_j, e] (1), digits 0..e of c_{j+1} (e + 1)
    beyond = length - j - 2
    sizes = beyond + 1 + e + 1
    row = np.repeat(np.arange(m), sizes)
    k = np.arange(row.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)      # term index within its row
    jj, ee, bb = j[row], e[row], beyond[row]
    first = k < bb
    mid = k == bb
    cell = np.where(first, cells[np.minimum(jj + 2 + k, length - 1)], np.where(mid, cells[jj], cells[jj + 1]))
    digit = np.where(first, target, np.where(mid, ee, k - bb - 1))
    labels = np.stack([np.full(m, index), j + 1, e + 1], axis=1)
    return Rows("hiddenskyscraperrise", row, cell.astype(np.int64), digit.astype(np.int64),
                np.ones(row.size, dtype=np.int64), np.full(m, 2, dtype=np.int64), "L", labels)


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
        """A ring in each cell (hollow: odd cells are grey discs)."""
        return [Glyph("mark", self.cell_list, style="ring")]

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

