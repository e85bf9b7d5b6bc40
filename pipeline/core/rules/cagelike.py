"""Cage-like counting rules (issue 33): look-and-say cages, rellik cages and equality cages
(ISS ``LookAndSay``, ``RellikCage``, ``EqualityCage``).

Every row is a 0-1 row over ``x[c, d]`` alone (no auxiliary column): a look-and-say pair counts
one value's cells, a rellik cage's distinct values turn "this set of values is in the cage" into
a sum of at most ``|T| - 1`` over each forbidden set ``T``, and an equality cage balances even
against odd and low against high values. Values are the board's values (``Board.value_of``), so
a ``0..N-1`` grid reads its clues and sums as ISS does.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, int_field,
                                      parse_cells, value_span)

__all__ = ["LookAndSay", "Rellik", "EqualityCage", "distinct_rows", "forbidden_sets"]

#: Most value sets a rellik cage may have to look through (sum of C(V, r), r <= cells).
MAX_RELLIK_SETS = 1_000_000
_PAIRS = re.compile(r"([0-9][0-9])+")


def distinct_rows(family: str, cells: np.ndarray, board: Board, index: int) -> Rows:
    """``family_k_d`` (``<= 1``): digit ``d`` at most once in ``cells`` (none when one unit holds them).

    Parameters
    ----------
    family : str
        The rows' family.
    cells : ndarray of int
        The cage's cells.
    board : Board
        The puzzle's board (its digits and units).
    index : int
        The rule's 1-based number: ``k`` in the labels.

    Returns
    -------
    Rows
    """
    n = board.n_values
    if cells.size < 2 or board.share_a_unit(cells[None, :])[0]:
        return Rows.empty(family, "L", 2)
    k = cells.size
    row = np.repeat(np.arange(n), k)
    return Rows(family, row, np.tile(cells, n), row.copy(), np.ones(n * k, dtype=np.int64),
                np.ones(n, dtype=np.int64), "L", np.stack([np.full(n, index), np.arange(1, n + 1)], axis=1))


def _repeat_message(rule: Rule, values: np.ndarray, cells: np.ndarray, board: Board) -> list[dict]:
    """One violation when a filled value repeats among ``cells`` (``values`` their entries)."""
    have = values[values > 0]
    if np.unique(have).size == have.size:
        return []
    twice = int(np.argmax(np.bincount(have)))                      # the digit seen most
    return [{"message": f"{rule.describe(board)}: {board.value(twice)} appears twice", "cells": [int(c) for c in cells]}]


# -- look-and-say ----------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LookAndSay(Rule):
    """A clue of (count, value) digit pairs: ``{"rule": "lookandsay", "clue": "1223", "cells": [...]}``
    means the cells hold exactly one 2 and exactly two 3s (ISS ``LookAndSay``); a count of 0 bans
    the value; values the clue does not name are free, and digits may repeat.

    Rows ``lookandsay_k_p`` (``= count``), pair ``p`` of the clue: ``sum_c x[c, d(value)]``.
    """

    cell_list: tuple[int, ...]
    clue: str

    kind = "lookandsay"
    families = ("lookandsay",)
    description = "look-and-say: the clue's (count, value) pairs say how often each value is in the cells"
    noun = "look-and-say cage"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "LookAndSay":
        """The rule of ``{"rule": "lookandsay", "clue": "1223", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: ``cells`` and the ``clue`` (a string of an even number of
            digits, read as (count, value) pairs; no value twice with different counts).
        board : Board
            The puzzle's board: the cells lie on it, a counted value is one of its values.
        where : str
            How messages name the entry (``rules[3] (lookandsay)``).

        Returns
        -------
        LookAndSay
        """
        check_keys(data, {"cells", "clue"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        clue = data.get("clue")
        if not isinstance(clue, str) or not _PAIRS.fullmatch(clue) or len(clue) > 40:
            raise PuzzleError(f"{where}: 'clue' must be a string of (count, value) digit pairs like \"1223\", "
                              f"found {clip(clue, 40)!r}")
        counts: dict[int, int] = {}
        for count, value in _pairs(clue):
            if value in counts and (counts[value] or count):
                raise PuzzleError(f"{where}: clue {clue} names the value {value} twice")
            counts[value] = count
        known = set(board.value_of.tolist())
        missing = [v for v, c in counts.items() if c and v not in known]
        if missing:
            raise PuzzleError(f"{where}: clue {clue} asks for the value {missing[0]}, not one of {value_span(board)}")
        if sum(counts.values()) > cells.size:
            raise PuzzleError(f"{where}: clue {clue} asks for {sum(counts.values())} values in {cells.size} cells")
        return cls(tuple(int(c) for c in cells), clue)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "clue": self.clue, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"look-and-say {self.clue} {cells_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A cage labelled with the clue."""
        return [Glyph("cage", self.cell_list, label=self.clue)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``lookandsay_k_p`` (``= count``): the cells holding pair ``p``'s value.

        Parameters
        ----------
        board : Board
            The puzzle's board (its values).
        index : int
            The rule's 1-based number among the puzzle's look-and-say cages: ``k``.

        Returns
        -------
        list of Rows
            The one ``lookandsay`` block: a row per pair whose value is in the value set.
        """
        pairs = np.array(_pairs(self.clue), dtype=np.int64)                 # (P, 2) count, value
        digit = board.index_of(pairs[:, 1])
        keep = np.flatnonzero(digit >= 0)                                     # absent values: count 0
        cells = self.cells()
        k, m = cells.size, keep.size
        return [Rows("lookandsay", np.repeat(np.arange(m), k), np.tile(cells, m), np.repeat(digit[keep], k),
                     np.ones(m * k, dtype=np.int64), pairs[keep, 0].copy(), "E",
                     np.stack([np.full(m, index), keep + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A value held more often than the clue says, or too few cells left to reach its count.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its values).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first pair broken).
        """
        entries = grid[self.cells()]
        values = board.grid_values(entries)[entries > 0]
        empty = int((entries == 0).sum())
        for count, value in _pairs(self.clue):
            have = int((values == value).sum())
            if have > count or have + empty < count:
                return [{"message": f"{self.describe(board)}: holds {value} {have} time(s), the clue says {count}",
                         "cells": list(self.cell_list)}]
        return []


def _pairs(clue: str) -> list[tuple[int, int]]:
    """``"1223"`` -> ``[(1, 2), (2, 3)]``: (count, value) pairs."""
    return [(int(clue[i]), int(clue[i + 1])) for i in range(0, len(clue), 2)]


# -- rellik ----------------------------------------------------------------------------------
def forbidden_sets(values: np.ndarray, total: int, most: int) -> list[np.ndarray]:
    """The minimal sets of digits whose values add up to ``total``: every set of 1 to ``most``
    distinct digits adding up to it that holds no smaller such set (a superset's row is implied).

    Parameters
    ----------
    values : ndarray of int
        The value of each digit.
    total : int
        The forbidden sum.
    most : int
        Largest set (the cage's cells).

    Returns
    -------
    list of ndarray of int
        0-based digits of each set, smaller sets first.
    """
    size = values.size
    kept: list[int] = []
    out: list[np.ndarray] = []
    for r in range(1, min(most, size) + 1):
        combos = np.array(list(itertools.combinations(range(size), r)), dtype=np.int64).reshape(-1, r)
        for combo in combos[values[combos].sum(axis=1) == total]:
            mask = sum(1 << int(d) for d in combo)
            if not any(k & mask == k for k in kept):
                kept.append(mask)
                out.append(combo)
    return out


@dataclass(frozen=True, eq=False)
class Rellik(Rule):
    """A rellik cage: distinct values, and no one or more of them add up to the sum:
    ``{"rule": "rellik", "sum": 5, "cells": [...]}`` (ISS ``RellikCage``; sum at least 1).

    Rows ``rellikdistinct_k_d`` (``<= 1``, left out when one unit holds the cage) and
    ``rellik_k_j`` (``<= |T_j| - 1``): ``sum_c sum_{d in T_j} x[c, d]`` for each minimal set
    ``T_j`` of distinct values adding up to the sum (no more values than cells).
    """

    cell_list: tuple[int, ...]
    total: int

    kind = "rellik"
    line_nonzeros = 0.4   # measured: 0.38 L N^2 at N = 16
    families = ("rellikdistinct", "rellik")
    description = "rellik cage: distinct digits, no one or more of which add up to the sum"
    noun = "rellik cage"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Rellik":
        """The rule of ``{"rule": "rellik", "sum": S, "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: ``cells`` and the forbidden ``sum`` (1 to 999; ISS counts no
            empty set, and a sum of 0 would be the empty set's).
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (rellik)``).

        Returns
        -------
        Rellik
        """
        check_keys(data, {"cells", "sum"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        total = int_field(data, "sum", where, low=1, high=999)
        sets = sum(math.comb(board.n_values, r) for r in range(1, min(cells.size, board.n_values) + 1))
        if sets > MAX_RELLIK_SETS:
            raise PuzzleError(f"{where}: a rellik cage of {cells.size} cells over {board.n_values} values has "
                              f"{sets} value sets to look through (at most {MAX_RELLIK_SETS})")
        if cells.size > board.n_values:
            raise PuzzleError(f"{where}: {cells.size} distinct values cannot fit {board.n_values} values")
        return cls(tuple(int(c) for c in cells), total)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "sum": self.total, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"rellik cage {cells_text(self.cell_list, board)} \u2260 {self.total}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A cage labelled ``!=S``."""
        return [Glyph("cage", self.cell_list, label=f"\u2260{self.total}")]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``rellikdistinct_k_d`` and ``rellik_k_j`` (see the class).

        Parameters
        ----------
        board : Board
            The puzzle's board (its values and units).
        index : int
            The rule's 1-based number among the puzzle's rellik cages: ``k``.

        Returns
        -------
        list of Rows
            The ``rellikdistinct`` and ``rellik`` blocks.
        """
        cells = self.cells()
        sets = forbidden_sets(board.value_of, self.total, cells.size)
        k = cells.size
        sizes = np.array([s.size for s in sets], dtype=np.int64)
        m = sizes.size
        digits = np.concatenate(sets) if m else np.zeros(0, dtype=np.int64)
        per_row = sizes * k
        row = np.repeat(np.arange(m), per_row)
        digit = np.repeat(digits, k)
        cell = np.tile(cells, int(sizes.sum()))
        return [distinct_rows("rellikdistinct", cells, board, index),
                Rows("rellik", row, cell, digit, np.ones(row.size, dtype=np.int64), sizes - 1, "L",
                     np.stack([np.full(m, index), np.arange(1, m + 1)], axis=1).reshape(m, 2))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A repeated value, or filled values some of which add up to the sum.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its values).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry.
        """
        cells = self.cells()
        entries = grid[cells]
        repeated = _repeat_message(self, entries, cells, board)
        if repeated:
            return repeated
        have = set((entries[entries > 0] - 1).tolist())
        for digits in forbidden_sets(board.value_of, self.total, cells.size):
            if set(digits.tolist()) <= have:
                shown = "+".join(str(int(v)) for v in board.value_of[digits])
                return [{"message": f"{self.describe(board)}: {shown} = {self.total}", "cells": list(self.cell_list)}]
        return []


# -- equality cages --------------------------------------------------------------------------
def equality_signs(values: np.ndarray) -> np.ndarray:
    """``(3, V)`` coefficients of an equality cage's rows: +1 even / -1 odd values; +1 the lower
    ``V // 2`` / -1 the upper ``V // 2`` values (in the set's order); 1 on the middle value (its
    row ``= 0`` bans it; all zero when ``V`` is even).

    Parameters
    ----------
    values : ndarray of int
        The value of each digit (ascending).

    Returns
    -------
    ndarray of int64
    """
    size = values.size
    half = size // 2
    out = np.zeros((3, size), dtype=np.int64)
    out[0] = np.where(values % 2 == 0, 1, -1)
    out[1, :half] = 1
    out[1, size - half:] = -1
    if size % 2:
        out[2, half] = 1
    return out


@dataclass(frozen=True, eq=False)
class EqualityCage(Rule):
    """An equality cage (ISS ``EqualityCage``): distinct values, as many even as odd and as many
    low (the lower half of the value set) as high (the upper half); the middle value of an odd
    set is not allowed. ``{"rule": "equalitycage", "cells": [...]}``, an even number of cells.

    Rows ``equalitydistinct_k_d`` (``<= 1``, left out when one unit holds the cage) and
    ``equality_k_s`` (``= 0``): ``s = 1`` ``sum_c sum_d (+1 even, -1 odd) x[c,d]``; ``s = 2``
    ``(+1 low, -1 high)``; ``s = 3`` (an odd number of values) ``sum_c x[c, middle]``.
    """

    cell_list: tuple[int, ...]

    kind = "equalitycage"
    families = ("equalitydistinct", "equality")
    description = "equality cage: distinct digits, as many even as odd and as many low as high"
    noun = "equality cage"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "EqualityCage":
        """The rule of ``{"rule": "equalitycage", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: an even number of ``cells``.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (equalitycage)``).

        Returns
        -------
        EqualityCage
        """
        check_keys(data, {"cells"}, where)
        cells = parse_cells(data.get("cells"), board, where, at_least=2)
        if cells.size % 2:
            raise PuzzleError(f"{where}: an equality cage needs an even number of cells, found {cells.size}")
        if cells.size > 2 * (board.n_values // 2):
            raise PuzzleError(f"{where}: {cells.size} cells cannot hold distinct values balanced over "
                              f"{value_span(board)}")
        return cls(tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"equality cage {cells_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A cage labelled ``eq`` (same-values cages are ``=``: both ``=`` were alike in one
        picture); the caption's :meth:`legend` says what it means."""
        return [Glyph("cage", self.cell_list, label="eq")]

    def legend(self, board: Board) -> str:
        """What an ``eq`` cage asks, as the caption says it (once for all of them)."""
        return "distinct, as many even as odd and as many low as high"

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``equalitydistinct_k_d`` and ``equality_k_s`` (see the class).

        Parameters
        ----------
        board : Board
            The puzzle's board (its values and units).
        index : int
            The rule's 1-based number among the puzzle's equality cages: ``k``.

        Returns
        -------
        list of Rows
            The ``equalitydistinct`` and ``equality`` blocks.
        """
        cells = self.cells()
        signs = equality_signs(board.value_of)
        used = np.flatnonzero(signs.any(axis=1))                     # s = 3 only for an odd set
        row, digit = np.nonzero(signs[used])
        coef = signs[used][row, digit]
        k = cells.size
        rows = Rows("equality", np.repeat(row, k), np.tile(cells, row.size), np.repeat(digit, k), np.repeat(coef, k),
                    np.zeros(used.size, dtype=np.int64), "E", np.stack([np.full(used.size, index), used + 1], axis=1))
        return [distinct_rows("equalitydistinct", cells, board, index), rows]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A repeated value, the middle value, or more than half the cells even, odd, low or high.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its values).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry.
        """
        cells = self.cells()
        entries = grid[cells]
        repeated = _repeat_message(self, entries, cells, board)
        if repeated:
            return repeated
        signs = equality_signs(board.value_of)[:, entries[entries > 0] - 1]     # (3, filled)
        half = cells.size // 2
        words = (("even", "odd"), ("low", "high"))
        for s, (plus, minus) in enumerate(words):
            for word, count in ((plus, int((signs[s] > 0).sum())), (minus, int((signs[s] < 0).sum()))):
                if count > half:
                    return [{"message": f"{self.describe(board)}: {count} {word} values in {cells.size} cells",
                             "cells": list(self.cell_list)}]
        if signs[2].any():
            return [{"message": f"{self.describe(board)}: holds the middle value", "cells": list(self.cell_list)}]
        return []
