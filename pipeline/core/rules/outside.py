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
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, int_field,
                                     value_span)

__all__ = ["OutsideLine", "Sandwich", "XSum", "NumberedRoom", "outside_line"]

_OUTSIDE = re.compile(r"^\s*[rR](\d{1,4})\s*[cC](\d{1,4})\s*$")


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
    m = _OUTSIDE.match(text) if isinstance(text, str) else None
    if m is None:
        raise PuzzleError(f"{where}: 'clue' must be an outside place like \"r0c3\", found {str(text)[:40]!r}")
    r, c = int(m.group(1)) - 1, int(m.group(2)) - 1
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
    if len(cells) != board.n:
        raise PuzzleError(f"{where}: clue {text} sees {len(cells)} cells, not a row or column of {board.n}")
    return (r, c), step, cells


def _between_terms(cells: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cell, digit, coef)`` of ``sum_c v(c)`` over ``cells`` (digits fastest)."""
    cell = np.repeat(cells, n)
    digit = np.tile(np.arange(n), cells.size)
    return cell, digit, digit + 1


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
    #: The rule's rows read a cell's value as its digit index + 1 (the sandwich's 1 and N, the
    #: X-sum's and numbered room's X): such a rule refuses a value set rather than compute
    #: another value (docs/conventions.md, "Value sets").
    values_one_to_n: ClassVar[bool] = True

    @classmethod
    def value_range(cls, n: int) -> tuple[int, int]:
        """Values the clue may take on an ``n``-digit grid."""
        return 1, n

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
        if cls.values_one_to_n and (board.values or board.n_values != board.n):
            raise PuzzleError(f"{where}: a {cls.noun} needs the values 1..{board.n}, not {value_span(board)}")
        low, high = cls.value_range(board.n)
        value = int_field(data, cls.value_key, where, low=low, high=high)
        clue, step, cells = outside_line(data.get("clue"), board, where)
        if cls.needs_unit and not board.share_a_unit(np.array([cells]))[0]:
            raise PuzzleError(f"{where}: the row or column from {data.get('clue')} is not one unit (it must hold "
                              f"each digit once)")
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


def _cond_sum_rows(family: str, index: int, conds: list[tuple[list[tuple[int, int]], np.ndarray, int, list[int]]],
                   n: int) -> tuple[Rows, Rows]:
    """Big-M rows of conditional sums and the ``...not`` rows of impossible conditions.

    Each entry of ``conds`` is ``(condition, cells, total, label)``: when every ``x[c, d]`` of
    ``condition`` is 1, ``sum_{cells} v(c) = total``. With ``K`` condition terms and ``m`` cells
    (sums ``m .. m*N``): upper row ``sum v + M_u sum cond <= total + K M_u`` with ``M_u = m*N -
    total``, lower row ``-sum v + M_l sum cond <= -total + K M_l`` with ``M_l = total - m`` (each
    left out when its constant is 0: it always holds); a total outside ``m .. m*N`` gives
    ``sum cond <= K - 1`` instead."""
    big: dict[str, list] = {k: [] for k in ("row", "cell", "digit", "coef", "rhs", "labels")}
    nots: dict[str, list] = {k: [] for k in ("row", "cell", "digit", "coef", "rhs", "labels")}
    for condition, cells, total, label in conds:
        k, m = len(condition), cells.size
        cond_cell = np.array([c for c, _ in condition], dtype=np.int64)
        cond_digit = np.array([d for _, d in condition], dtype=np.int64)
        if not m <= total <= m * n:
            r = len(nots["rhs"])
            nots["row"].append(np.full(k, r))
            nots["cell"].append(cond_cell)
            nots["digit"].append(cond_digit)
            nots["coef"].append(np.ones(k, dtype=np.int64))
            nots["rhs"].append(k - 1)
            nots["labels"].append(label)
            continue
        cell, digit, coef = _between_terms(cells, n)
        for side, sign, big_m in ((1, 1, m * n - total), (2, -1, total - m)):
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
    one unit, so the 1 and the ``N`` are there once each).

    Rows, for the 1 at ``c_p`` and the ``N`` at ``c_q`` (``p != q``, ``m = |p - q| - 1`` cells
    between): ``sandwich_k_p_q_s`` (``<=``) the big-M pair (``s`` 1: upper, ``M = m*N - S``;
    2: lower, ``M = S - m``) over ``x[c_p, 1] + x[c_q, N]``; ``sandwichnot_k_p_q`` (``<= 1``) when
    ``S`` is outside ``m .. m*N``.
    """

    kind: ClassVar[str] = "sandwich"
    families: ClassVar[tuple[str, ...]] = ("sandwich", "sandwichnot")
    description: ClassVar[str] = "sandwich: the digits between the 1 and the N of a row or column add up to the clue"
    noun: ClassVar[str] = "sandwich clue"
    value_key: ClassVar[str] = "sum"
    needs_unit: ClassVar[bool] = True

    @classmethod
    def value_range(cls, n: int) -> tuple[int, int]:
        return 0, (n - 2) * (n + 1) // 2

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
        conds = []
        for p in range(n):
            for q in range(n):
                if p == q:
                    continue
                lo, hi = min(p, q), max(p, q)
                conds.append(([(int(cells[p]), 0), (int(cells[q]), n - 1)], cells[lo + 1:hi], self.value, [p + 1, q + 1]))
        big, nots = _cond_sum_rows("sandwich", index, conds, n)
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
        total, empty = int(between.sum()), int(np.count_nonzero(between == 0))
        if (not empty and total != self.value) or total + empty > self.value or total + empty * board.n < self.value:
            return [{"message": f"{self.describe(board)}: the digits between the 1 and the {board.n} add up to "
                                f"{total}" + (f" with {empty} empty" if empty else ""), "cells": list(self.cell_list)}]
        return []


@dataclass(frozen=True, eq=False)
class XSum(OutsideLine):
    """The first ``X`` digits of a row or column, read from the clue, add up to ``sum``, ``X``
    the first digit: ``{"rule": "xsum", "clue": "r0c3", "sum": 21}`` (ISS ``XSum``).

    Rows, for each ``X``: ``xsum_k_X_s`` (``<=``), the big-M pair over ``x[c_1, X]`` for the cells
    ``c_2 .. c_X`` adding up to ``S - X`` (``m = X - 1``: ``M = m*N - (S - X)``, ``M = S - X - m``);
    ``xsumnot_k_X`` (``<= 0``) when ``S - X`` is outside ``m .. m*N``.
    """

    kind: ClassVar[str] = "xsum"
    families: ClassVar[tuple[str, ...]] = ("xsum", "xsumnot")
    description: ClassVar[str] = "X-sum: the first X digits from the clue add up to it, X the first digit"
    noun: ClassVar[str] = "X-sum clue"
    value_key: ClassVar[str] = "sum"

    @classmethod
    def value_range(cls, n: int) -> tuple[int, int]:
        return 1, n * n

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
        cells, n = self.cells(), board.n
        conds = [([(int(cells[0]), x - 1)], cells[1:x], self.value - x, [x]) for x in range(1, n + 1)]
        big, nots = _cond_sum_rows("xsum", index, conds, n)
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
        x = int(values[0])
        if not x:
            return []
        first = values[:x]
        total, empty = int(first.sum()), int(np.count_nonzero(first == 0))
        if (not empty and total != self.value) or total + empty > self.value or total + empty * board.n < self.value:
            return [{"message": f"{self.describe(board)}: the first {x} digits add up to {total}"
                                + (f" with {empty} empty" if empty else ""), "cells": list(self.cell_list[:x])}]
        return []


@dataclass(frozen=True, eq=False)
class NumberedRoom(OutsideLine):
    """The ``X``-th digit of a row or column from the clue is ``digit``, ``X`` the first digit:
    ``{"rule": "numberedroom", "clue": "r0c3", "digit": 7}`` (ISS ``NumberedRoom``).

    Rows ``numberedroom_k_X`` (``<= 0``): ``x[c_1, X] - x[c_X, D]`` for ``X = 1..N`` (for ``X = 1``
    the first cell is the ``X``-th: left out when ``D = 1``, else ``x[c_1, 1] <= 0``).
    """

    kind: ClassVar[str] = "numberedroom"
    families: ClassVar[tuple[str, ...]] = ("numberedroom",)
    description: ClassVar[str] = "numbered room: the X-th digit from the clue is the clue, X the first digit"
    noun: ClassVar[str] = "numbered room clue"
    value_key: ClassVar[str] = "digit"

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``numberedroom_k_X``: the first digit ``X`` puts the clue at the ``X``-th cell.

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
        cells, n, target = self.cells(), board.n, self.value - 1
        xs = np.array([x for x in range(n) if not (x == 0 and target == 0)], dtype=np.int64)
        first = np.full(xs.size, cells[0])
        row = np.repeat(np.arange(xs.size), 2)
        cell = np.stack([first, cells[xs]], axis=1).ravel()
        digit = np.stack([xs, np.full(xs.size, target)], axis=1).ravel()
        coef = np.tile([1, -1], xs.size)
        if xs.size and xs[0] == 0:        # X = 1, D != 1: the first cell cannot be 1 (one term, not two)
            keep = np.ones(row.size, dtype=bool)
            keep[1] = False
            row, cell, digit, coef = row[keep], cell[keep], digit[keep], coef[keep]
        labels = np.stack([np.full(xs.size, index), xs + 1], axis=1)
        return [Rows("numberedroom", row, cell, digit, coef, np.zeros(xs.size, dtype=np.int64), "L", labels)]

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
        x = int(values[0])
        if x and values[x - 1] and values[x - 1] != self.value:
            return [{"message": f"{self.describe(board)}: cell {x} from the clue "
                                f"({cell_name(self.cell_list[x - 1], board)}) holds {int(values[x - 1])}",
                     "cells": [self.cell_list[0], self.cell_list[x - 1]]}]
        return []
