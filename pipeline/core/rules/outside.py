"""Clues outside the grid that read a whole row or column from one side: sandwich, X-sum and
numbered room (ISS ``Sandwich``, ``XSum``, ``NumberedRoom``); skyscraper (with auxiliary columns)
is in :mod:`pipeline.core.rules.skyscraper`.

Every one is ``{"rule": kind, "clue": "r0c3", <value key>: v}``: ``clue`` is the place outside
the grid (row or column ``0``, or one past the grid), beside the first cell of a row or column
(not a corner); the rule reads that row or column from the clue inwards, ``c_1 .. c_N``. In a
layout the line runs to the canvas's edge or its first absent cell and must hold ``N`` cells.

The rows are exact over the cell variables, with no auxiliary column: a conditional sum (the
sandwich between the 1 at ``c_p`` and the ``N`` at ``c_q``; the X-sum when ``c_1`` holds ``X``)
is a pair of big-M rows whose constant is stated per row (docs/conventions.md).

Value sets (ISS's semantics on its grids ``1..V`` and ``0..V-1``, any set alike): values are
summed as values; the X-sum's and numbered room's ``X`` is the first cell's value and must name
a cell of the line (``1..N``: a first cell of another value breaks the clue); the sandwich's
ends are the set's smallest and largest values (it needs exactly ``N`` values, so the line holds
both).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.cellnames import cell_position
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, int_field,
                                     value_span)

__all__ = ["OutsideLine", "Sandwich", "XSum", "NumberedRoom", "outside_line"]



def outside_line(text: object, board: Board, where: str) -> tuple[tuple[int, int], tuple[int, int], list[int]]:
    """An outside place ``"r0c3"`` -> ``(clue, step, cells)``: 0-based ``(r, c)`` of the clue, the
    ``(dr, dc)`` step into the grid and the present cells from it to the edge (or an absent cell).

    Parameters
    ----------
    text : object
        The ``clue`` field.
    board : Board
        The puzzle's board.
    where : str
        How messages name the rule.

    Returns
    -------
    tuple
        ``((r, c), (dr, dc), cells)``.
    """
    place = cell_position(text)
    if place is None:
        raise PuzzleError(f"{where}: 'clue' must be an outside place like \"r0c3\", found {clip(text, 40)!r}")
    r, c = place[0] - 1, place[1] - 1
    inside_canvas = 0 <= r < board.rows and 0 <= c < board.cols
    if inside_canvas and board.present[board.cell(r, c)]:
        raise PuzzleError(f"{where}: clue {text} is a cell of the grid, not a place outside it")
    # the step points from the clue into the grid along its row or column
    if r == -1 and 0 <= c < board.cols:
        step = (1, 0)
    elif r == board.rows and 0 <= c < board.cols:
        step = (-1, 0)
    elif c == -1 and 0 <= r < board.rows:
        step = (0, 1)
    elif c == board.cols and 0 <= r < board.rows:
        step = (0, -1)
    else:
        # an absent cell of a layout beside exactly one grid cell
        steps = [(dr, dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                 if 0 <= r + dr < board.rows and 0 <= c + dc < board.cols and board.present[board.cell(r + dr, c + dc)]]
        if not inside_canvas or len(steps) != 1:
            raise PuzzleError(f"{where}: clue {text} is not beside the first cell of a row or column")
        step = steps[0]
    cells = []
    rr, cc = r + step[0], c + step[1]
    while 0 <= rr < board.rows and 0 <= cc < board.cols and board.present[board.cell(rr, cc)]:
        cells.append(board.cell(rr, cc))
        rr, cc = rr + step[0], cc + step[1]
    if len(cells) != board.n and (board.grids or len(cells) not in (board.rows, board.cols)):   # a rectangle's lines
        raise PuzzleError(f"{where}: clue {text} sees {len(cells)} cells, not a row or column of {board.n}")
    return (r, c), step, cells


def _between_terms(cells: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cell, digit, coef)`` of ``sum_c v(c)`` over ``cells`` (digits fastest; a value 0 is left out)."""
    n = values.size
    cell = np.repeat(cells, n)
    digit = np.tile(np.arange(n), cells.size)
    coef = values[digit]
    keep = coef != 0
    return cell[keep], digit[keep], coef[keep]


@dataclass(frozen=True, eq=False)
class OutsideLine(Rule):
    """Common part of the outside clues over a row or column: the clue's place, its value and the
    line ``c_1 .. c_N`` read from it."""

    clue: tuple[int, int]
    value: int
    cell_list: tuple[int, ...]
    step: tuple[int, int]

    #: The document key of the clue's value (``sum``, ``digit``, ``count``).
    value_key: ClassVar[str] = "value"
    #: The line must be one unit (each digit once): the sandwich's 1 and N
    needs_unit: ClassVar[bool] = False
    #: The rule needs exactly ``N`` values (a unit holds each, the sandwich's smallest and
    #: largest among them); any value set of ``N`` values is taken (docs/conventions.md, "Value sets").
    needs_n_values: ClassVar[bool] = False
    #: The clue is a value of the grid's set (the numbered room's digit).
    value_in_set: ClassVar[bool] = False
    #: The line holds every value (the sandwich's 1 and N are there): a rectangular grid's
    #: shorter lines (a 6x8's columns of 6 cells) are refused.
    needs_every_value: ClassVar[bool] = False

    @classmethod
    def value_range(cls, board: Board) -> tuple[int, int]:
        """Values the clue may take on the board (its value set).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        tuple of (int, int)
            Inclusive bounds: the board's smallest and largest values when the clue is a value
            (:attr:`value_in_set`), else ``1..N``.
        """
        if cls.value_in_set:
            return int(board.value_of[0]), int(board.value_of[-1])
        return 1, board.n

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "OutsideLine":
        """The rule of ``{"rule": kind, "clue": "r0c3", <value key>: v}``.

        Parameters
        ----------
        data : dict
            The document entry.
        board : Board
            The puzzle's board: the clue lies beside it and sees ``N`` cells.
        where : str
            How messages name the entry.

        Returns
        -------
        OutsideLine
        """
        check_keys(data, {"clue", cls.value_key}, where)
        if cls.needs_n_values and board.n_values != board.n:
            raise PuzzleError(f"{where}: a {cls.noun} needs {board.n} values (a unit holds each), not "
                              f"{board.n_values} ({value_span(board)})")
        low, high = cls.value_range(board)
        if high < low:   # an X-sum whose values give no first cell a count 1..N
            raise PuzzleError(f"{where}: no {cls.noun} is possible with the values {value_span(board)}")
        value = int_field(data, cls.value_key, where, low=low, high=high)
        if cls.value_in_set and board.index_of([value])[0] < 0:
            raise PuzzleError(f"{where}: {cls.value_key} {value} is not one of the values {value_span(board)}")
        clue, step, cells = outside_line(data.get("clue"), board, where)
        if cls.needs_unit and not board.share_a_unit(np.array([cells]))[0]:
            raise PuzzleError(f"{where}: the row or column from {data.get('clue')} is not one unit (it must hold "
                              f"each digit once)")
        if cls.needs_every_value and len(cells) != board.n_values:
            raise PuzzleError(f"{where}: the line from {data.get('clue')} has {len(cells)} cells, not one for each of "
                              f"the {board.n_values} values: its {board.value(1)} and {board.value(board.n)} need not "
                              f"both be there (a lunchbox rule over its cells sums between its smallest and largest)")
        return cls(clue, value, tuple(cells), step)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "clue": f"r{self.clue[0] + 1}c{self.clue[1] + 1}", self.value_key: self.value}

    def describe(self, board: Board) -> str:
        return f"{self.noun} {self.value} at r{self.clue[0] + 1}c{self.clue[1] + 1} ({cells_text(self.cell_list, board)})"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """The value in the margin beside the first cell."""
        return [Glyph("outside", (self.cell_list[0],), label=str(self.value), step=self.step)]


def _cond_sum_rows(family: str, index: int,
                   conds: list[tuple[list[tuple[int, int]], np.ndarray, int | None, list[int]]],
                   values: np.ndarray) -> tuple[Rows, Rows]:
    """Big-M rows of conditional sums and the ``...not`` rows of impossible conditions.

    Each entry of ``conds`` is ``(condition, cells, total, label)``: when every ``x[c, d]`` of
    ``condition`` is 1, ``sum_{cells} v(c) = total`` (``total`` None: the condition is
    impossible). With ``K`` condition terms, ``m`` cells and the values ``lo .. hi`` (sums
    ``m lo .. m hi``; ``1 .. N`` by default): upper row ``sum v + M_u sum cond <= total + K M_u``
    with ``M_u = m hi - total``, lower row ``-sum v + M_l sum cond <= -total + K M_l`` with
    ``M_l = total - m lo`` (each left out when its constant is 0: it always holds); a total
    outside ``m lo .. m hi`` gives ``sum cond <= K - 1`` instead."""
    big: dict[str, list] = {k: [] for k in ("row", "cell", "digit", "coef", "rhs", "labels")}
    nots: dict[str, list] = {k: [] for k in ("row", "cell", "digit", "coef", "rhs", "labels")}
    lo, hi = int(values.min()), int(values.max())
    for condition, cells, total, label in conds:
        k, m = len(condition), cells.size
        cond_cell = np.array([c for c, _ in condition], dtype=np.int64)
        cond_digit = np.array([d for _, d in condition], dtype=np.int64)
        if total is None or not m * lo <= total <= m * hi:
            r = len(nots["rhs"])
            nots["row"].append(np.full(k, r))
            nots["cell"].append(cond_cell)
            nots["digit"].append(cond_digit)
            nots["coef"].append(np.ones(k, dtype=np.int64))
            nots["rhs"].append(k - 1)
            nots["labels"].append(label)
            continue
        cell, digit, coef = _between_terms(cells, values)
        for side, sign, big_m in ((1, 1, m * hi - total), (2, -1, total - m * lo)):
            if big_m <= 0:
                continue
            r = len(big["rhs"])
            big["row"].append(np.full(cell.size + k, r))
            big["cell"].append(np.concatenate([cell, cond_cell]))
            big["digit"].append(np.concatenate([digit, cond_digit]))
            big["coef"].append(np.concatenate([sign * coef, np.full(k, big_m)]))
            big["rhs"].append(sign * total + k * big_m)
            big["labels"].append(label + [side])
    width = len(conds[0][3]) if conds else 1
    return _rows(family, index, big, width + 1), _rows(family + "not", index, nots, width)


def _rows(family: str, index: int, parts: dict, width: int) -> Rows:
    """A Rows block from accumulated per-row pieces (labels prefixed with the rule's index)."""
    if not parts["rhs"]:
        return Rows.empty(family, "L", width + 1)
    labels = np.array([[index] + list(lab) for lab in parts["labels"]], dtype=np.int64)
    return Rows(family, np.concatenate(parts["row"]).astype(np.int64), np.concatenate(parts["cell"]).astype(np.int64),
                np.concatenate(parts["digit"]).astype(np.int64), np.concatenate(parts["coef"]).astype(np.int64),
                np.array(parts["rhs"], dtype=np.int64), "L", labels)


@dataclass(frozen=True, eq=False)
class Sandwich(OutsideLine):
    """The digits between the 1 and the ``N`` of a row or column add up to ``sum`` (0 when they
    touch): ``{"rule": "sandwich", "clue": "r0c3", "sum": 15}`` (ISS ``Sandwich``; the line must be
    one unit, so the 1 and the ``N`` are there once each). With a value set of ``N`` values the
    ends are its smallest and largest values (digits 1 and ``N``) and the values between are
    summed (ISS's Sandwich on ``0..N-1``); a set of more values than ``N`` is refused.

    Rows, for the 1 at ``c_p`` and the ``N`` at ``c_q`` (``p != q``, ``m = |p - q| - 1`` cells
    between): ``sandwich_k_p_q_s`` (``<=``) the big-M pair (``s`` 1: upper, ``M = m*N - S``;
    2: lower, ``M = S - m``; with a value set ``m hi - S`` and ``S - m lo``) over ``x[c_p, 1] +
    x[c_q, N]``; ``sandwichnot_k_p_q`` (``<= 1``) when ``S`` is outside ``m .. m*N``.
    """

    kind: ClassVar[str] = "sandwich"
    families: ClassVar[tuple[str, ...]] = ("sandwich", "sandwichnot")
    description: ClassVar[str] = "sandwich: the digits between the 1 and the N of a row or column add up to the clue"
    noun: ClassVar[str] = "sandwich clue"
    value_key: ClassVar[str] = "sum"

    build_cost: ClassVar[float] = 0.3   # measured: 6.6 s for 30.1 M nonzeros (sandwich 4.5 s, 18.6 M)

    needs_unit: ClassVar[bool] = True
    needs_n_values: ClassVar[bool] = True
    needs_every_value: ClassVar[bool] = True

    def estimated_nonzeros(self, board: Board) -> float:
        """Up to about ``0.6 L^2 N^2`` nonzeros for a line of ``L`` cells, the most for sums from
        about ``N`` to a quarter of the digits' (3,280 at 9x9, 35,788 at 16x16, 225,424 at 25x25;
        fewer below ``N``): a hundred clues on a 25x25 took 10 s to build past a batch record's
        1 s limit when counted 0."""
        # a small sum has few placements of the 1 and the N (a sum of 0: 420 nonzeros at 16x16)
        share = min(1.0, (abs(int(self.value)) + 1) / board.n)
        return 0.6 * share * len(self.cell_list) ** 2 * board.n * board.n_values

    @classmethod
    def value_range(cls, board: Board) -> tuple[int, int]:
        """Sums of some of the values between the smallest and the largest (0: none).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        tuple of (int, int)
        """
        inner = board.value_of[1:-1]
        return int(inner[inner < 0].sum()), int(inner[inner > 0].sum())

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The sandwich's big-M rows and its impossible pairs (class docstring).

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
        cells, n = self.cells(), board.n
        conds: list = []
        for p in range(n):
            for q in range(n):
                if p == q:
                    continue
                lo, hi = min(p, q), max(p, q)
                conds.append(([(int(cells[p]), 0), (int(cells[q]), n - 1)], cells[lo + 1:hi], self.value, [p + 1, q + 1]))
        big, nots = _cond_sum_rows("sandwich", index, conds, board.value_of)
        return [big, nots]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The digits between the 1 and the N add up to another sum.

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
        ones, tops = np.flatnonzero(values == 1), np.flatnonzero(values == board.n)
        if ones.size != 1 or tops.size != 1:
            return []
        lo, hi = sorted((int(ones[0]), int(tops[0])))
        between = values[lo + 1:hi]
        total, empty = int(board.grid_values(between).sum()), int(np.count_nonzero(between == 0))
        if _sum_breaks(total, empty, self.value, board):
            small, large = board.value(1), board.value(board.n)
            return [{"message": f"{self.describe(board)}: the digits between the {small} and the {large} add up "
                                f"to {total}" + (f" with {empty} empty" if empty else ""), "cells": list(self.cell_list)}]
        return []


def _sum_breaks(total: int, empty: int, want: int, board: Board) -> bool:
    """Can ``empty`` more cells (any values of the board) not bring ``total`` to ``want``?"""
    lo, hi = int(board.value_of.min()), int(board.value_of.max())
    return (not empty and total != want) or total + empty * lo > want or total + empty * hi < want


@dataclass(frozen=True, eq=False)
class XSum(OutsideLine):
    """The first ``X`` digits of a row or column, read from the clue, add up to ``sum``, ``X``
    the first digit: ``{"rule": "xsum", "clue": "r0c3", "sum": 21}`` (ISS ``XSum``). With a
    value set ``X`` is the first cell's value and the values are summed; a first value outside
    ``1..N`` names no cell and breaks the clue (ISS's XSum on ``0..V-1`` and ``1..V``).

    Rows, for each digit ``d`` of the first cell (``X`` its value; ``d = X`` for ``1..N``):
    ``xsum_k_d_s`` (``<=``), the big-M pair over ``x[c_1, d]`` for the cells ``c_2 .. c_X``
    adding up to ``S - X`` (``m = X - 1``: ``M = m*N - (S - X)``, ``M = S - X - m``; with a value
    set ``m hi - (S - X)`` and ``S - X - m lo``); ``xsumnot_k_d`` (``<= 0``) when ``S - X`` is
    outside ``m .. m*N`` (``m lo .. m hi``) or ``X`` outside ``1..L``, ``L`` the line's cells
    (``N``, fewer on a rectangular grid's shorter lines).
    """

    kind: ClassVar[str] = "xsum"
    line_nonzeros: ClassVar[float] = 0.95   # measured: 0.90-0.92 L N^2 (L = N) at N = 16, 25, 36
    build_cost: ClassVar[float] = 0.1
    families: ClassVar[tuple[str, ...]] = ("xsum", "xsumnot")
    description: ClassVar[str] = "X-sum: the first X digits from the clue add up to it, X the first digit"
    noun: ClassVar[str] = "X-sum clue"
    value_key: ClassVar[str] = "sum"

    @classmethod
    def value_range(cls, board: Board) -> tuple[int, int]:
        """``X + (X - 1) lo .. X + (X - 1) hi`` over the first values ``X`` in ``1..N`` (``1 .. N^2``).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        tuple of (int, int)
        """
        values = board.value_of
        xs = values[(values >= 1) & (values <= board.n)]
        if not xs.size:
            return 1, 0
        return int((xs + (xs - 1) * values.min()).min()), int((xs + (xs - 1) * values.max()).max())

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The X-sum's big-M rows per first digit and its impossible first digits.

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
        # X names a cell only up to the line's length: N, fewer on a rectangular grid's shorter
        # lines (a 4x6's columns: X = 5 summed the 4 cells there are and took the clue as met)
        cells = self.cells()
        conds: list = [([(int(cells[0]), d)], cells[1:x], self.value - x if 1 <= x <= cells.size else None, [d + 1])
                       for d, x in enumerate(board.value_of.tolist())]
        big, nots = _cond_sum_rows("xsum", index, conds, board.value_of)
        return [big, nots]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The first X digits add up to another sum.

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
        if not values[0]:
            return []
        x = board.value(int(values[0]))
        if not 1 <= x <= values.size:
            return [{"message": f"{self.describe(board)}: the first digit {x} names no cell of the line",
                     "cells": [self.cell_list[0]]}]
        first = values[:x]
        total, empty = int(board.grid_values(first).sum()), int(np.count_nonzero(first == 0))
        if _sum_breaks(total, empty, self.value, board):
            return [{"message": f"{self.describe(board)}: the first {x} digits add up to {total}"
                                + (f" with {empty} empty" if empty else ""), "cells": list(self.cell_list[:x])}]
        return []


@dataclass(frozen=True, eq=False)
class NumberedRoom(OutsideLine):
    """The ``X``-th digit of a row or column from the clue is ``digit``, ``X`` the first digit:
    ``{"rule": "numberedroom", "clue": "r0c3", "digit": 7}`` (ISS ``NumberedRoom``). With a value
    set ``X`` is the first cell's value (a first value outside ``1..N`` names no cell and breaks
    the clue) and ``digit`` is a value of the set (ISS's NumberedRoom on ``0..V-1`` and ``1..V``).

    Rows ``numberedroom_k_d`` (``<= 0``), ``d`` a digit of the first cell (``X`` its value,
    ``d = X`` for ``1..N``): ``x[c_1, d] - x[c_X, D]`` (for ``X = 1`` the first cell is the
    ``X``-th: left out when ``D`` is ``d``, else ``x[c_1, d] <= 0``; ``X`` outside ``1..L``, ``L``
    the line's cells (``N``, fewer on a rectangular grid's shorter lines): ``x[c_1, d] <= 0``).
    """

    kind: ClassVar[str] = "numberedroom"
    families: ClassVar[tuple[str, ...]] = ("numberedroom",)
    description: ClassVar[str] = "numbered room: the X-th digit from the clue is the clue, X the first digit"
    noun: ClassVar[str] = "numbered room clue"
    value_key: ClassVar[str] = "digit"
    value_in_set: ClassVar[bool] = True

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``numberedroom_k_d``: the first value ``X`` puts the clue at the ``X``-th cell.

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
        cells, target = self.cells(), int(board.index_of([self.value])[0])
        xv = board.value_of                                   # X of each digit of the first cell
        ds = np.flatnonzero(~((xv == 1) & (np.arange(xv.size) == target)))   # X = 1 at D itself: no row
        x = xv[ds]
        # two terms x[c_1, d] - x[c_X, D], or one (x[c_1, d] <= 0) when X = 1 or X names no cell
        two = (x >= 2) & (x <= cells.size)    # (a rectangular grid's shorter line: fewer than n cells)
        row = np.concatenate([np.arange(ds.size), np.flatnonzero(two)])
        cell = np.concatenate([np.full(ds.size, cells[0]), cells[x[two] - 1]])
        digit = np.concatenate([ds, np.full(int(two.sum()), target)])
        coef = np.concatenate([np.ones(ds.size, dtype=np.int64), -np.ones(int(two.sum()), dtype=np.int64)])
        order = np.argsort(row, kind="stable")
        labels = np.stack([np.full(ds.size, index), ds + 1], axis=1)
        return [Rows("numberedroom", row[order], cell[order], digit[order], coef[order],
                     np.zeros(ds.size, dtype=np.int64), "L", labels)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The X-th cell holds another digit.

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
        if not values[0]:
            return []
        x = board.value(int(values[0]))
        if not 1 <= x <= values.size:
            return [{"message": f"{self.describe(board)}: the first digit {x} names no cell of the line",
                     "cells": [self.cell_list[0]]}]
        if values[x - 1] and board.value(int(values[x - 1])) != self.value:
            return [{"message": f"{self.describe(board)}: cell {x} from the clue "
                                f"({cell_name(self.cell_list[x - 1], board)}) holds {board.value(int(values[x - 1]))}",
                     "cells": [self.cell_list[0], self.cell_list[x - 1]]}]
        return []
