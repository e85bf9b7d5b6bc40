"""Lines judged against their two ends: between lines (the cells between hold digits strictly
between the end circles') and lockout lines (the ends differ by at least ``diff`` and the cells
between stay outside the ends' range, ends included).

Both use threshold rows: ``[v(c) <= d]`` is the sum ``x[c, 1] + ... + x[c, d]`` (0 or 1, as a
cell holds one digit), so "these three things cannot all hold" is a row of three such sums
``<= 2``. One row per middle cell, side and digit (``2 N`` per middle cell) is exact, where a row
per pair of end digits would take ``N^2``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.glyphs import Glyph
from pipeline.core.rules.base import Board, Rows, Rule, cell_name, check_keys, int_field, value_span
from pipeline.core.rules.lineparts import line_cells, line_name, values_text
from pipeline.core.rules.pairlines import exclusion_rows
from pipeline.core.rules.rowblocks import in_rule_order, ragged_positions

__all__ = ["Between", "Lockout", "BETWEEN_COLOUR", "END_COLOUR"]

BETWEEN_COLOUR = "#8fa3e6"      # between and lockout lines: blue
END_COLOUR = "#cdd6f6"          # their end circles (between) and squares (lockout): pale blue
#: A between line's two sides (:func:`_three_rows`): the middle cell not at or below the smaller
#: end, nor at or above the larger (digits in order of value: between in digits is between in values).
_BETWEEN_SIDES = (((None, "le"), ("e1", "ge"), ("e2", "ge")), ((None, "ge"), ("e1", "le"), ("e2", "le")))
#: A lockout line's two sides: the middle cell's digit not within the ends' range, either way round.
_LOCKOUT_SIDES = (((None, "eq"), ("e1", "le"), ("e2", "ge")), ((None, "eq"), ("e2", "le"), ("e1", "ge")))


def _three_rows(family: str, first_index: int, lines: "list[tuple[int, ...]]", n: int, sides: tuple) -> Rows:
    """Rows ``<= 2`` of three 0/1 indicators each (not all three hold), for each line in turn
    (numbered from ``first_index``), one per middle cell ``i``, side ``s`` and digit ``d`` in that
    order, labelled ``(line, i, s, d)`` (1-based).

    ``sides`` holds, per side, three ``(cell, kind)`` parts: ``cell`` ``"e1"`` or ``"e2"`` for the
    line's first or last cell, or None for the middle cell, ``kind`` ``"le"`` (``v(cell) <= d``:
    ``x[cell, 0..d]``), ``"ge"`` (``x[cell, d..n-1]``) or ``"eq"`` (``x[cell, d]``), ``d`` 0-based
    here. Built for all lines at once: the terms of each (side, part) in one numpy step, then
    ordered row by row, part by part.
    """
    lengths = np.array([len(line) - 2 for line in lines], dtype=np.int64)
    flat = np.concatenate([np.asarray(line, dtype=np.int64) for line in lines])
    line_of, within_line = ragged_positions(lengths)            # each middle cell's line and place
    starts = np.cumsum(lengths + 2) - (lengths + 2)
    mids = flat[starts[line_of] + 1 + within_line]
    ends = {"e1": flat[starts][line_of], "e2": flat[starts + lengths + 1][line_of]}
    n_rows = mids.size * 2 * n
    row = np.arange(n_rows, dtype=np.int64)
    middle, side, digit = row // (2 * n), (row // n) % 2, row % n
    rows_, cells_, digits_, keys_ = [], [], [], []
    for s, parts in enumerate(sides):
        on_side = row[side == s]
        for j, (cell, kind) in enumerate(parts):
            d = digit[on_side]
            counts = d + 1 if kind == "le" else n - d if kind == "ge" else np.ones_like(d)
            group, within = ragged_positions(counts)
            r = on_side[group]
            rows_.append(r)
            cells_.append((mids if cell is None else ends[cell])[middle[r]])
            digits_.append(within if kind == "le" else d[group] + within)
            keys_.append(r * 3 + j)
    order = np.argsort(np.concatenate(keys_), kind="stable")
    r = np.concatenate(rows_)[order]
    labels = np.stack([first_index + line_of[middle], within_line[middle] + 1, side + 1, digit + 1],
                      axis=1).astype(np.int64)
    return Rows(family, r, np.concatenate(cells_)[order], np.concatenate(digits_)[order],
                np.ones(r.size, dtype=np.int64), np.full(n_rows, 2, dtype=np.int64), "L", labels)


@dataclass(frozen=True, eq=False)
class Between(Rule):
    """A between line: every cell between the two end circles holds a digit strictly between
    the circles' digits.

    Rows ``between_b_i_s_d`` (``<= 2``) for middle cell ``m`` (the ``i``-th) and digit ``d``: side 1
    ``[v(m) <= d] + [v(e1) >= d] + [v(e2) >= d]`` (``m`` is not above the smaller end), side 2
    ``[v(m) >= d] + [v(e1) <= d] + [v(e2) <= d]`` (not below the larger end).
    """

    cell_list: tuple[int, ...]

    kind = "between"
    line_nonzeros = 3.0   # measured: 2.4-2.9 L N^2 at N = 16, 25, 36
    build_cost = 0.35      # 0.58 CPU s for 2.2 M nonzeros (50 lines of a 25x25)
    families = ("between",)
    description = "between line: the cells between the end circles hold digits strictly between theirs"
    noun = "between line"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Between":
        """The line of ``{"rule": "between", "cells": [circle, between..., circle]}``.

        Parameters
        ----------
        data : dict
            The document entry: at least 3 ``cells`` from one end circle to the other.
        board : Board
            The puzzle's board: the cells lie on it; at least 3 digits (one between two others).
        where : str
            How messages name the entry (``rules[3] (between)``).

        Returns
        -------
        Between
        """
        check_keys(data, {"cells"}, where)
        cells = line_cells(data, board, where, 3)
        if board.n_values < 3:
            raise PuzzleError(f"{where}: {line_name('between line', cells, board)}: no digit lies strictly "
                              f"between two of {value_span(board)}")
        return cls(cells)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("between line", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        ends = (self.cell_list[0], self.cell_list[-1])
        return [Glyph("line", self.cell_list, style="line", colour=BETWEEN_COLOUR), Glyph("mark", ends, style="circle", colour=END_COLOUR)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``between_b_i_s_d`` (``<= 2``): middle cell ``i`` is neither at or below the smaller end
        (side 1) nor at or above the larger (side 2), per digit ``d``.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The line's 1-based number among the puzzle's between lines: ``b`` in the labels.

        Returns
        -------
        list of Rows
            The one ``between`` block.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every between line's rows (:meth:`rows`) in one block, built for all lines at once.

        Parameters
        ----------
        rules : list of Between
            The puzzle's between lines, in order.
        board : Board
            The puzzle's board.
        first_index : int
            The first line's 1-based number.

        Returns
        -------
        list of Rows
        """
        lines = [cast("Between", rule).cell_list for rule in rules]
        return [_three_rows("between", first_index, lines, board.n_values, _BETWEEN_SIDES)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """With both ends filled: ends with no digit between them, or a filled middle cell not strictly between.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        e1, e2 = self.cell_list[0], self.cell_list[-1]
        a, b = int(grid[e1]), int(grid[e2])
        if not (a and b):
            return []
        lo, hi = min(a, b), max(a, b)
        name = self.describe(board)
        if hi - lo < 2:
            return [{"message": f"{name}: no digit lies strictly between {values_text([e1, e2], grid, board)}",
                     "cells": [e1, e2]}]
        for m in self.cell_list[1:-1]:
            if grid[m] and not lo < grid[m] < hi:
                shown = [e1, m, e2]
                return [{"message": f"{name}: {values_text([m], grid, board)} is not strictly between "
                                    f"{board.value(lo)} and {board.value(hi)}", "cells": shown}]
        return []


@dataclass(frozen=True, eq=False)
class Lockout(Rule):
    """A lockout line: the end diamonds differ by at least ``diff`` (by default ``(V - 1) // 2``, ``V`` values:
    4 on 9x9) and no cell between holds a digit from the smaller end to the larger, ends included.

    Rows ``lockoutends_l_1_d`` (``<= 1``): ``x[e1, d] + sum_{|e - d| < diff} x[e2, e]``;
    ``lockout_l_i_s_d`` (``<= 2``) for middle cell ``m`` (the ``i``-th) and digit ``d``: side 1
    ``x[m, d] + [v(e1) <= d] + [v(e2) >= d]``, side 2 ``x[m, d] + [v(e1) >= d] + [v(e2) <= d]``.
    """

    cell_list: tuple[int, ...]
    diff: int

    kind = "lockout"
    line_nonzeros = 2.1   # measured: 1.8-2.0 L N^2 at N = 16, 25, 36
    build_cost = 0.1       # 0.08 CPU s for 1.6 M nonzeros
    families = ("lockoutends", "lockout")
    description = "lockout line: the ends differ by at least 'diff' (4 on 9x9); the cells between avoid their range"
    noun = "lockout line"

    @staticmethod
    def default_diff(n: int) -> int:
        """The standard difference for digits ``1..n`` (4 for 9)."""
        return max(1, (n - 1) // 2)

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Lockout":
        """The line of ``{"rule": "lockout", "cells": [diamond, between..., diamond], "diff": k}`` (``diff`` optional).

        Parameters
        ----------
        data : dict
            The document entry: at least 2 ``cells`` from one end diamond to the other and an
            optional ``diff`` (``1..n-1``, default :meth:`default_diff`).
        board : Board
            The puzzle's board: the cells lie on it; some digit must lie outside the ends' range.
        where : str
            How messages name the entry (``rules[3] (lockout)``).

        Returns
        -------
        Lockout
        """
        check_keys(data, {"cells", "diff"}, where)
        cells = line_cells(data, board, where, 2)
        span = int(np.ptp(board.value_of))
        diff = int_field(data, "diff", where, low=1, high=span, default=cls.default_diff(board.n_values))
        middle = len(cells) - 2
        if middle and span - diff < 1:
            raise PuzzleError(f"{where}: {line_name('lockout line', cells, board)}: ends {diff} or more apart "
                              f"leave no digit of {value_span(board)} outside their range for the cells between")
        return cls(cells, diff)

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}
        if self.diff != self.default_diff(board.n_values):
            out["diff"] = self.diff
        return out

    def describe(self, board: Board) -> str:
        extra = "" if self.diff == self.default_diff(board.n_values) else f" (difference {self.diff})"
        return line_name("lockout line", self.cell_list, board) + extra

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        ends = (self.cell_list[0], self.cell_list[-1])
        out = [Glyph("line", self.cell_list, style="line", colour=BETWEEN_COLOUR), Glyph("mark", ends, style="square", colour=END_COLOUR)]
        if self.diff != self.default_diff(board.n_values):   # the ends' difference, unless the standard one
            out.append(Glyph("mark", self.cell_list[:1], style="text", label=f"\u2265{self.diff}"))
        return out

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``lockoutends_l_1_d`` (the ends at least ``diff`` apart) and ``lockout_l_i_s_d`` (middle cell
        ``i`` outside the ends' range, per side ``s`` and digit ``d``).

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The line's 1-based number among the puzzle's lockout lines: ``l`` in the labels.

        Returns
        -------
        list of Rows
            The ``lockoutends`` and the ``lockout`` block.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every lockout line's rows (:meth:`rows`), line by line, built for all lines of one
        difference at once (lines of several differences: each line alone).

        Parameters
        ----------
        rules : list of Lockout
            The puzzle's lockout lines, in order.
        board : Board
            The puzzle's board.
        first_index : int
            The first line's 1-based number.

        Returns
        -------
        list of Rows
        """
        lines = cast("list[Lockout]", rules)
        if len({line.diff for line in lines}) > 1:
            return [block for k, line in enumerate(lines) for block in cls.rows_of([line], board, first_index + k)]
        d = board.value_of   # the ends' difference is in values; "within the range" in digits (ordered by value)
        close = np.abs(d[:, None] - d[None, :]) < lines[0].diff
        number = np.arange(len(lines), dtype=np.int64)
        ends = exclusion_rows("lockoutends", np.array([line.cell_list[0] for line in lines], dtype=np.int64),
                              np.array([line.cell_list[-1] for line in lines], dtype=np.int64), close,
                              first_index + number, np.ones(len(lines), dtype=np.int64))
        middles = _three_rows("lockout", first_index, [line.cell_list for line in lines], board.n_values,
                              _LOCKOUT_SIDES)
        if len(lines) == 1:
            return [ends, middles]
        return in_rule_order([ends, middles], [ends.labels[:, 0] - first_index, middles.labels[:, 0] - first_index])

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """With both ends filled: ends closer than ``diff``, or a filled middle cell within their range.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        e1, e2 = self.cell_list[0], self.cell_list[-1]
        a, b = int(grid[e1]), int(grid[e2])
        if not (a and b):
            return []
        name = self.describe(board)
        if abs(board.value(a) - board.value(b)) < self.diff:
            return [{"message": f"{name}: the ends {values_text([e1, e2], grid, board)} differ by less than "
                                f"{self.diff}", "cells": [e1, e2]}]
        lo, hi = min(a, b), max(a, b)
        for m in self.cell_list[1:-1]:
            if grid[m] and lo <= grid[m] <= hi:
                return [{"message": f"{name}: {values_text([m], grid, board)} lies within the ends' range "
                                    f"{board.value(lo)}..{board.value(hi)}", "cells": [e1, m, e2]}]
        return []
