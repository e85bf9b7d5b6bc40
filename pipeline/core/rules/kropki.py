"""Kropki dots between orthogonal neighbours: white (digits differ by ``value``, 1 by default:
consecutive) and black (one digit is ``value`` times the other, 2 by default: double)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import cast

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, adjacent, cell_name, check_keys, int_field, parse_cells,
                                      digit_values, value_span)

__all__ = ["Kropki", "partner_table"]

COLORS = ("white", "black")


def partner_table(color: str, value: int, n: "int | np.ndarray") -> np.ndarray:
    """``(n, n)`` bool: ``table[d, e]`` when digits ``d + 1`` and ``e + 1`` (the values of
    0-based digits ``d`` and ``e``) may face each other.

    Parameters
    ----------
    color : {"white", "black"}
        Difference or ratio.
    value : int
        The difference (white) or the ratio (black).
    n : int or ndarray of int
        Number of digits (values ``1..n``), or the value of each digit.

    Returns
    -------
    ndarray of bool
    """
    d = digit_values(n)
    if color == "white":
        return np.abs(d[:, None] - d[None, :]) == value
    return (d[:, None] == value * d[None, :]) | (d[None, :] == value * d[:, None])


def _side_terms(color: str, value: int, board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One side's rows of a dot, ``x[a, d] - sum_{e partner of d} x[b, e] <= 0``: ``(row, digit,
    head, coef)`` per term, digit ``d``'s term (``head``, on the near cell) first, then its
    partners' (ascending, on the far cell). Read-only, made once per colour, value and value set."""
    return _side_terms_of(color, value, tuple(board.value_of.tolist()))


@functools.lru_cache(maxsize=64)
def _side_terms_of(color: str, value: int, values: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = len(values)
    partner_row, partner = np.nonzero(partner_table(color, value, np.array(values, dtype=np.int64)))
    row = np.concatenate([np.arange(n), partner_row])
    order = np.argsort(row, kind="stable")
    head = np.concatenate([np.ones(n, dtype=bool), np.zeros(partner.size, dtype=bool)])[order]
    out = (row[order], np.concatenate([np.arange(n), partner])[order], head, np.where(head, 1, -1).astype(np.int64))
    for array in out:   # shared by every dot of this colour and value
        array.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class Kropki(Rule):
    """A dot between two orthogonally adjacent cells.

    Rows ``kropki_k_s_d`` (``<= 0``): side ``s`` = 1 reads "if the first cell holds ``d``, the second
    holds a partner of ``d``": ``x[a, d] - sum_{e partner of d} x[b, e] <= 0``; side 2 the same from
    the second cell. (A ratio is not linear in the values ``v(c)``, so both colours use these
    implication rows, which are also the tighter form for a white dot.)
    """

    color: str
    first: int
    second: int
    value: int

    kind = "kropki"
    families = ("kropki",)
    description = "Kropki dot: white = digits differ by 1 (or 'value'), black = one is double (or 'value' times)"
    noun = "Kropki dot"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Kropki":
        """The dot of ``{"rule": "kropki", "color": "white"|"black", "cells": [a, b], "value": k}``.

        Parameters
        ----------
        data : dict
            The document entry: ``color``, two orthogonally adjacent ``cells`` and an optional
            ``value`` (difference, default 1; ratio, default 2).
        board : Board
            The puzzle's board: the cells lie on it; some two digits ``1..n`` must fit the dot.
        where : str
            How messages name the entry (``rules[3] (kropki)``).

        Returns
        -------
        Kropki
        """
        check_keys(data, {"cells", "color", "value"}, where)
        color = data.get("color")
        # the cells before the colour: a dot of 3 cells and no colour was refused for the colour
        # alone, and refused again for its cells once a colour was added
        cells = parse_cells(data.get("cells"), board, where, at_least=2)
        if cells.size != 2:
            raise PuzzleError(f"{where}: a Kropki dot joins 2 cells, found {cells.size}")
        a, b = int(cells[0]), int(cells[1])
        if not adjacent(a, b, board):
            dot = f"{color} dot" if color in COLORS else "a dot"
            raise PuzzleError(f"{where}: {dot} joins {cell_name(a, board)} and {cell_name(b, board)}, "
                              "which are not orthogonal neighbours")
        if color is None:
            raise PuzzleError(f"{where}: missing 'color' (white or black)")
        if color not in COLORS:
            raise PuzzleError(f"{where}: 'color' must be white or black, found {clip(color)!r}")
        value = int_field(data, "value", where, low=1 if color == "white" else 2,
                          high=max(board.n, int(np.ptp(board.value_of)), int(np.abs(board.value_of).max())),
                          default=1 if color == "white" else 2)
        if not partner_table(color, value, board.value_of).any():
            raise PuzzleError(f"{where}: no two digits {value_span(board)} fit a {color} dot of value {value}")
        return cls(color, a, b, value)

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "color": self.color, "cells": [cell_name(self.first, board), cell_name(self.second, board)]}
        if self.value != (1 if self.color == "white" else 2):
            out["value"] = self.value
        return out

    def describe(self, board: Board) -> str:
        standard = self.value == (1 if self.color == "white" else 2)
        what = "difference" if self.color == "white" else "ratio"
        return f"{self.color} dot {cell_name(self.first, board)}-{cell_name(self.second, board)}" + \
            ("" if standard else f" ({what} {self.value})")

    def cells(self) -> np.ndarray:
        return np.array([self.first, self.second], dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        standard = self.value == (1 if self.color == "white" else 2)
        return [Glyph("dot", (self.first, self.second), colour=self.color, label="" if standard else str(self.value))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``kropki_k_s_d`` (``<= 0``): each side's digit ``d`` needs a partner across the dot.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The dot's 1-based number among the puzzle's Kropki dots: ``k`` in the labels.

        Returns
        -------
        list of Rows
            The one ``kropki`` block, ``2 n`` rows.
        """
        n = board.n_values
        row, digit, head, coef = _side_terms(self.color, self.value, board)
        cells = [np.where(head, a, b) for a, b in ((self.first, self.second), (self.second, self.first))]
        labels = np.column_stack([np.full(2 * n, index), np.repeat([1, 2], n), np.tile(np.arange(1, n + 1), 2)])
        return [Rows("kropki", np.concatenate([row, row + n]), np.concatenate(cells).astype(np.int64),
                     np.tile(digit, 2).astype(np.int64), np.tile(coef, 2), np.zeros(2 * n, dtype=np.int64), "L",
                     labels.astype(np.int64))]

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every dot's ``kropki`` rows in one block (as :meth:`rows` dot after dot): one partner
        table per colour and value, laid over all the dots that share it.

        Parameters
        ----------
        rules : list of Kropki
            The puzzle's dots, in order.
        board : Board
            The puzzle's board.
        first_index : int
            The first dot's 1-based number among the puzzle's dots.

        Returns
        -------
        list of Rows
            The one ``kropki`` block.
        """
        dots_in_order = cast("list[Kropki]", rules)
        n, count = board.n_values, len(rules)
        groups: dict[tuple[str, int], list[int]] = {}
        for at, dot in enumerate(dots_in_order):
            groups.setdefault((dot.color, dot.value), []).append(at)
        ends = np.array([[dot.first, dot.second] for dot in dots_in_order], dtype=np.int64).reshape(-1, 2)
        sides = {key: _side_terms(*key, board) for key in groups}
        per_dot = np.zeros(count, dtype=np.int64)
        for key, members in groups.items():
            per_dot[members] = 2 * sides[key][0].size
        start = np.cumsum(per_dot) - per_dot
        total = int(per_dot.sum())
        row, cell, digit, coef = (np.zeros(total, dtype=np.int64) for _ in range(4))
        for key, members in groups.items():
            side_row, side_digit, head, side_coef = sides[key]
            dots = np.array(members, dtype=np.int64)
            place = start[dots][:, None] + np.arange(2 * side_row.size)[None, :]
            row[place] = np.concatenate([side_row, side_row + n])[None, :] + 2 * n * dots[:, None]
            cell[place] = np.where(np.concatenate([head, ~head])[None, :], ends[dots, :1], ends[dots, 1:])
            digit[place] = np.tile(side_digit, 2)[None, :]
            coef[place] = np.tile(side_coef, 2)[None, :]
        labels = np.column_stack([np.repeat(np.arange(first_index, first_index + count), 2 * n),
                                  np.tile(np.repeat([1, 2], n), count), np.tile(np.arange(1, n + 1), 2 * count)])
        return [Rows("kropki", row, cell, digit, coef, np.zeros(2 * n * count, dtype=np.int64), "L",
                     labels.astype(np.int64))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Both cells filled with digits that do not fit the dot's colour and value.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (``n``, cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry.
        """
        a, b = int(grid[self.first]), int(grid[self.second])
        if not (a and b) or partner_table(self.color, self.value, board.value_of)[a - 1, b - 1]:
            return []
        a, b = board.value(a), board.value(b)
        if self.color == "white":
            want = "consecutive" if self.value == 1 else f"{self.value} apart"
            how = f"{a} and {b} are not {want}"
        else:
            want = "double" if self.value == 2 else f"{self.value} times"
            how = f"{a} and {b}: neither is {want} the other"
        return [{"message": f"{self.describe(board)}: {how}", "cells": [self.first, self.second]}]
