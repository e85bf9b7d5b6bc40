"""Killer cages: cells whose digits are distinct and, when a sum is given, add up to it."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import cast

import numpy as np

from pipeline.core.errors import PuzzleError, RuleCannotHoldError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, int_field,
                                      parse_cells, value_span, value_terms)
from pipeline.core.rules.rowblocks import distinct_rows, in_rule_order, ragged_positions

__all__ = ["Cage", "disjoint_cages", "sum_range"]


def sum_range(k: int, n: "int | np.ndarray") -> tuple[int, int]:
    """Smallest and largest sum of ``k`` distinct digits ``1..n`` (or of ``k`` distinct values
    of a value set).

    Parameters
    ----------
    k : int
        Cells of the cage.
    n : int or ndarray of int
        Number of digits (values ``1..n``), or the values themselves.

    Returns
    -------
    (int, int)
    """
    if np.ndim(n) == 0:
        return k * (k + 1) // 2, k * (2 * int(n) - k + 1) // 2
    values = np.sort(np.asarray(n, dtype=np.int64))
    return int(values[:k].sum()), int(values[values.size - k:].sum())


def disjoint_cages(cell_lists: "list[np.ndarray]", n_cells: int) -> np.ndarray:
    """Which cages a sum over whole houses may add up: each in order, unless it reaches past the
    grid (an extra cell) or into a cage kept before it. A cell in two cages would be counted
    twice (a cage listed twice made the 45 rule rule out the solution's own digits).

    Parameters
    ----------
    cell_lists : list of ndarray of int
        Each cage's cells (canvas numbers).
    n_cells : int
        The grid's cells: a larger number is an extra cell.

    Returns
    -------
    ndarray of int
        The kept cages' positions in ``cell_lists``, ascending.

    Examples
    --------
    >>> disjoint_cages([np.array([0, 1]), np.array([1, 2]), np.array([3]), np.array([0, 1])], 16).tolist()
    [0, 2]
    """
    if not cell_lists:
        return np.zeros(0, dtype=np.int64)
    cells = np.concatenate(cell_lists).astype(np.int64)
    if (cells < n_cells).all() and np.bincount(cells, minlength=n_cells).max() <= 1:
        return np.arange(len(cell_lists))   # no cell in two cages (the usual killer)
    taken = np.zeros(n_cells, dtype=bool)
    kept = []
    for k, mine in enumerate(cell_lists):
        mine = np.asarray(mine, dtype=np.int64)
        if mine.size and mine.max() < n_cells and not taken[mine].any():
            taken[mine] = True
            kept.append(k)
    return np.array(kept, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Cage(Rule):
    """A killer cage: ``cells`` hold distinct digits adding up to ``total`` (no sum: None).

    Rows: ``cage_g_d`` (``<= 1``: digit ``d`` at most once in cage ``g``; left out when the cage
    lies inside one unit, which already says it) and ``cagesum_g`` (``sum_c v(c) = total``).
    """

    cell_list: tuple[int, ...]
    total: int | None = None

    kind = "cage"
    families = ("cage", "cagesum")
    description = "killer cage: distinct digits, with an optional sum"
    noun = "killer cage"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Cage":
        """The cage of ``{"rule": "cage", "cells": [...], "sum": total}`` (``sum`` optional).

        Parameters
        ----------
        data : dict
            The document entry: ``cells`` (at most ``n``) and an optional ``sum``.
        board : Board
            The puzzle's board: the cells lie on it; the sum must be reachable by distinct ``1..n``.
        where : str
            How messages name the entry (``rules[3] (cage)``).

        Returns
        -------
        Cage
        """
        check_keys(data, {"cells", "sum"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        name = f"cage {cells_text(cells, board)}"
        span = value_span(board)
        if cells.size > board.n_values:
            raise PuzzleError(f"{where}: {name} has {cells.size} cells; distinct digits {span} fill at most "
                              f"{board.n_values}")
        total = int_field(data, "sum", where, default=None)
        if total is not None:
            low, high = sum_range(cells.size, board.value_of if board.values else board.n)
            if not low <= total <= high:
                raise RuleCannotHoldError(f"{where}: {name} sum {total} cannot be made by {cells.size} distinct digits "
                                  f"{span} (possible sums: {low}..{high})")
        return cls(tuple(int(c) for c in cells), total)

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}
        if self.total is not None:
            out["sum"] = self.total
        return out

    def describe(self, board: Board) -> str:
        return f"cage {cells_text(self.cell_list, board)}" + (f" (sum {self.total})" if self.total is not None else "")

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("cage", self.cell_list, label="" if self.total is None else str(self.total))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``cage_g_d`` (digit ``d`` at most once; none when one unit holds the cage) and ``cagesum_g``.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits; its units tell whether ``cage`` rows are implied).
        index : int
            The cage's 1-based number among the puzzle's cages: ``g`` in the labels.

        Returns
        -------
        list of Rows
            The ``cage`` and the ``cagesum`` block (either may be empty).
        """
        cells = self.cells()
        n = board.n_values
        out = []
        if cells.size >= 2 and not board.share_a_unit(cells[None, :])[0]:
            k = cells.size
            row = np.repeat(np.arange(n), k)             # one row per digit, its k cells
            out.append(Rows("cage", row, np.tile(cells, n), row.copy(), np.ones(n * k, dtype=np.int64),
                            np.ones(n, dtype=np.int64), "L",
                            np.stack([np.full(n, index), np.arange(1, n + 1)], axis=1)))
        else:
            out.append(Rows.empty("cage", "L", 2))
        if self.total is not None:
            row, cell, digit, coef = value_terms(cells[None, :], np.ones((1, cells.size), dtype=np.int64), board)
            out.append(Rows("cagesum", row, cell, digit, coef, np.array([self.total]), "E", np.array([[index]])))
        else:
            out.append(Rows.empty("cagesum", "E", 1))
        return out

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every cage's ``cage`` and ``cagesum`` rows, built together and given cage after cage
        as :meth:`rows` gives them (:func:`~pipeline.core.rules.rowblocks.in_rule_order`).

        Parameters
        ----------
        rules : list of Cage
            The puzzle's cages, in order.
        board : Board
            The puzzle's board (values; its units tell which ``cage`` rows are implied).
        first_index : int
            The first cage's 1-based number among the puzzle's cages.

        Returns
        -------
        list of Rows
        """
        cages = cast("list[Cage]", rules)
        n = board.n_values
        size = np.array([len(cage.cell_list) for cage in cages], dtype=np.int64)
        cells = np.fromiter((c for cage in cages for c in cage.cell_list), dtype=np.int64, count=int(size.sum()))
        of_cell, _ = ragged_positions(size)
        start = np.cumsum(size) - size
        shared = np.zeros(size.size, dtype=bool)
        for owner in board.unit_of_cells():
            unit = owner[cells]
            lead = unit[start][of_cell]
            shared |= np.logical_and.reduceat((unit == lead) & (lead >= 0), start) if cells.size else shared
        # cage_g_d: per cage outside one unit, digit d's row over its k cells (digits, then cells)
        apart = np.flatnonzero((size >= 2) & ~shared)
        distinct = distinct_rows("cage", cells, start, size, apart, n, first_index)
        # cagesum_g: sum_c v(c) = total, cells in order and digits fastest (value 0 left out)
        summed = np.flatnonzero([cage.total is not None for cage in cages])
        totals = np.array([cages[at].total for at in summed], dtype=np.int64)
        sum_cell, within = ragged_positions(size[summed])
        sum_cells = cells[start[summed][sum_cell] + within]
        values = board.value_of
        keep = np.tile(values != 0, sum_cells.size)
        sums = Rows("cagesum", np.repeat(sum_cell, n)[keep], np.repeat(sum_cells, n)[keep],
                    np.tile(np.arange(n), sum_cells.size)[keep], np.tile(values, sum_cells.size)[keep], totals, "E",
                    (summed + first_index)[:, None].astype(np.int64))
        return in_rule_order([distinct, sums], [np.repeat(apart, n), summed])

    @classmethod
    def all_kept(cls, rules: "list[Rule]", grid: np.ndarray, board: Board) -> bool:
        """Every cage full, of distinct digits, at its sum: one pass over all cages (verify_grid on
        a killer's solution; any cage short of that goes to :meth:`violations`).

        Parameters
        ----------
        rules : list of Cage
            The puzzle's cages.
        grid : ndarray of int, shape (rows * cols + extra cells,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its values).

        Returns
        -------
        bool
            True when no cage is broken; False when one may be (each cage's :meth:`violations`
            then says).
        """
        if cls is not Cage:   # a kind built on cages may add conditions this pass does not know
            return False
        cages = cast("list[Cage]", rules)
        sizes = np.fromiter((len(cage.cell_list) for cage in cages), dtype=np.int64, count=len(cages))
        cells = np.fromiter(itertools.chain.from_iterable(cage.cell_list for cage in cages), dtype=np.int64,
                            count=int(sizes.sum()))
        digits = grid[cells]
        if digits.size and (digits.min() < 1 or digits.max() > board.n_values):
            return False
        owner = np.repeat(np.arange(len(cages)), sizes)
        key = np.sort(owner * (board.n_values + 1) + digits)
        if (key[1:] == key[:-1]).any():
            return False
        summed = np.fromiter((cage.total is not None for cage in cages), dtype=bool, count=len(cages))
        if not summed.any():
            return True
        totals = np.fromiter((cage.total or 0 for cage in cages), dtype=np.int64, count=len(cages))
        sums = np.bincount(owner, weights=board.value_of[digits - 1], minlength=len(cages))
        return bool((sums[summed] == totals[summed]).all())

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A digit twice in the cage; a full cage off its sum, or a partial one already over it.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (cell names in the messages).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per break.
        """
        cells = self.cells()
        values = grid[cells]
        found = []
        filled = values[values > 0]
        digits, counts = np.unique(filled, return_counts=True)

        def name() -> str:   # named only in a message: naming every cage cost verify_grid a killer's 1 ms
            return f"cage {cells_text(cells, board)}"

        for digit in digits[counts > 1].tolist():
            twice = cells[values == digit]
            found.append({"message": f"{name()} holds {board.value(digit)} twice: "
                                     f"{' and '.join(cell_name(c, board) for c in twice[:2])}",
                          "cells": twice.tolist()})
        if self.total is not None and filled.size:
            total = int(board.grid_values(filled).sum())
            # the empty cells add at least the smallest value each (nothing when it is 0 or more)
            least = (cells.size - filled.size) * min(int(board.value_of.min()), 0)
            if filled.size == cells.size and total != self.total:
                found.append({"message": f"{name()} sums to {total}, not {self.total}", "cells": cells.tolist()})
            elif filled.size < cells.size and total + least > self.total:
                found.append({"message": f"{name()} already sums to {total}, more than {self.total}",
                              "cells": cells[values > 0].tolist()})
        return found
