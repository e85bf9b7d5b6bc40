"""Rules that tie cells' values together (issue 33): equal-sum segments and value-indexing lines
(ISS ``EqualSum``, ``ValueIndexing``).

Rows over ``x[c, d]`` alone: an equal sum is one ``= 0`` row per further segment; a
value-indexing line is a three-term implication per (position, digit) over the control cell's
digit. Values are the board's values (``Board.value_of``): a ``0..N-1`` grid adds ISS's values
and reads its control cell's value as a distance, as ISS does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_list_text, cell_name, cells_text, check_keys,
                                      parse_cell, parse_cells, value_span)

__all__ = ["EqualSum", "ValueIndexing", "segment_weights"]

#: Most segments an equal-sum rule takes.
MAX_SEGMENTS = 100


def segment_weights(segments: tuple[tuple[int, ...], ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(cells, weights)``: the cells met by any segment and, per further segment ``s = 2..G``,
    each cell's weight in ``sum v(segment s) - sum v(segment 1)`` (a cell in both cancels).

    Parameters
    ----------
    segments : tuple of tuple of int
        The segments' cells.

    Returns
    -------
    tuple of ndarray
        ``(C,)`` cells and ``(G - 1, C)`` integer weights.
    """
    cells = np.unique(np.concatenate([np.array(s, dtype=np.int64) for s in segments]))
    at = [np.searchsorted(cells, np.array(s, dtype=np.int64)) for s in segments]
    weights = np.zeros((len(segments), cells.size), dtype=np.int64)
    for g, where in enumerate(at):
        np.add.at(weights[g], where, 1)
    return cells, weights[1:] - weights[:1]


@dataclass(frozen=True, eq=False)
class EqualSum(Rule):
    """Segments of cells that add up to the same sum (ISS ``EqualSum``):
    ``{"rule": "equalsum", "segments": [["r1c1", "r1c2"], ["r3c3"]]}`` (a cell may lie in several
    segments; values may repeat).

    Rows ``equalsum_k_s`` (``= 0``), ``s = 2..G``: ``sum v(segment s) - sum v(segment 1)``, a cell
    of both segments cancelled.
    """

    segments: tuple[tuple[int, ...], ...]

    kind = "equalsum"
    families = ("equalsum",)
    description = "equal sum: every segment of cells adds up to the same sum"
    noun = "equal-sum set"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "EqualSum":
        """The rule of ``{"rule": "equalsum", "segments": [[cells], [cells], ...]}``.

        Parameters
        ----------
        data : dict
            The document entry: 1 to 100 non-empty ``segments``, each a list of distinct cells.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (equalsum)``).

        Returns
        -------
        EqualSum
        """
        check_keys(data, {"segments"}, where)
        raw = data.get("segments")
        if not isinstance(raw, (list, tuple)) or not raw or len(raw) > MAX_SEGMENTS:
            raise PuzzleError(f"{where}: 'segments' must be a list of 1 to {MAX_SEGMENTS} lists of cells, "
                              f"found {clip(raw, 40)!r}")
        segments = [parse_cells(s, board, f"{where} segment {k}") for k, s in enumerate(raw, start=1)]
        return cls(tuple(tuple(int(c) for c in s) for s in segments))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "segments": [[cell_name(c, board) for c in s] for s in self.segments]}

    def describe(self, board: Board) -> str:
        return f"equal sum {' / '.join(cell_list_text(s, board, shown=3) for s in self.segments)}"

    def cells(self) -> np.ndarray:
        return np.unique(np.concatenate([np.array(s, dtype=np.int64) for s in self.segments]))

    def glyphs(self, board: Board) -> list[Glyph]:
        """Each segment a cage labelled ``=\u03a3`` (a single cell: a ring)."""
        return [Glyph("cage", s, label="=\u03a3") if len(s) > 1 else Glyph("mark", s, style="ring")
                for s in self.segments]

    def estimated_nonzeros(self, board: Board) -> float:
        """At most ``(|S_1| + |S_s|) V`` nonzeros a row ``s = 2..G`` (segment 1's cells and its
        own, a shared cell cancelled): 99 segments against a 5,000-cell first one built 5 GB under
        a 1 GB limit when counted 0."""
        first = len(self.segments[0])
        return sum(first + len(segment) for segment in self.segments[1:]) * board.n_values

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``equalsum_k_s`` (``= 0``): segment ``s`` adds up to what segment 1 does.

        Parameters
        ----------
        board : Board
            The puzzle's board (its values).
        index : int
            The rule's 1-based number among the puzzle's equal-sum rules: ``k``.

        Returns
        -------
        list of Rows
            The one ``equalsum`` block, ``G - 1`` rows.
        """
        cells, weights = segment_weights(self.segments)
        values = board.value_of
        m, v_count = weights.shape[0], values.size
        # only the cells a row weighs (a dense rows x cells x values table of 99 segments over a
        # 100x100 took 5 GB)
        at_row, at_cell = np.nonzero(weights)                               # row, then cell
        coef = (weights[at_row, at_cell][:, None] * values[None, :]).ravel()  # digit fastest
        row = np.repeat(at_row, v_count)
        cell = np.repeat(cells[at_cell], v_count)
        digit = np.tile(np.arange(v_count), at_row.size)
        keep = coef != 0
        return [Rows("equalsum", row[keep], cell[keep], digit[keep], coef[keep], np.zeros(m, dtype=np.int64), "E",
                     np.stack([np.full(m, index), np.arange(2, m + 2)], axis=1).reshape(m, 2))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Segments whose possible sums (filled values plus the empty cells' extremes) share none.

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
        least, most = int(board.value_of.min()), int(board.value_of.max())
        low, high = [], []
        for seg in self.segments:
            entries = grid[np.array(seg, dtype=np.int64)]
            have = int(board.grid_values(entries[entries > 0]).sum())
            empty = int((entries == 0).sum())
            low.append(have + empty * least)
            high.append(have + empty * most)
        if max(low) <= min(high):
            return []
        shown = ", ".join(str(lo) if lo == hi else f"{lo}..{hi}" for lo, hi in zip(low, high))
        return [{"message": f"{self.describe(board)}: the segments add up to {shown}",
                 "cells": [int(c) for c in self.cells()]}]


#: the arrow of a value-indexing line (a sum arrow is grey)
VALUE_INDEXING_COLOUR = "#2a7f7f"


@dataclass(frozen=True, eq=False)
class ValueIndexing(Rule):
    """A value-indexing line (ISS ``ValueIndexing``): ``{"rule": "valueindexing", "cells": [a, b,
    c_1, ..., c_n]}``. The second cell ``b`` holds a value ``i`` from 1 to ``n``, and ``c_i``, the
    cell ``i`` steps along the line from ``b``, holds the value of the first cell ``a``.

    Rows ``valueindexrange_k`` (``<= 0``): ``b``'s digits whose values are not ``1..n`` (left out
    when there are none); ``valueindexing_k_i_d`` (``<= 1``): ``x[b, d(i)] + x[a, d] - x[c_i, d]``
    for each ``i`` among the values and each digit ``d`` (``b = i`` forces ``c_i`` to ``a``'s digit).
    """

    cell_list: tuple[int, ...]

    kind = "valueindexing"
    families = ("valueindexrange", "valueindexing")
    description = "value indexing: the second cell's value says how far along the line the first cell's value is"
    noun = "value-indexing line"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "ValueIndexing":
        """The rule of ``{"rule": "valueindexing", "cells": [a, b, c_1, ...]}``.

        Parameters
        ----------
        data : dict
            The document entry: 3 or more distinct ``cells``.
        board : Board
            The puzzle's board: the cells lie on it, some value ``1..n`` can index them.
        where : str
            How messages name the entry (``rules[3] (valueindexing)``).

        Returns
        -------
        ValueIndexing
        """
        check_keys(data, {"cells"}, where)
        raw = data.get("cells")
        if not isinstance(raw, (list, tuple)) or len(raw) < 3:
            raise PuzzleError(f"{where}: 'cells' must list at least 3 cells like \"r1c1\" (the value, the index, "
                              "the line)")
        # a cell may come back along the line (ISS Bates Motel): each position is its own term
        cells = np.array([parse_cell(v, board, where) for v in raw], dtype=np.int64)
        if not (board.index_of(np.arange(1, cells.size - 1)) >= 0).any():
            raise PuzzleError(f"{where}: none of the values {value_span(board)} is a position 1..{cells.size - 2} "
                              f"along the line")
        return cls(tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"value indexing {cells_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """An arrow from the first cell along the line, teal: a sum arrow's is grey."""
        return [Glyph("line", self.cell_list, style="arrow", colour=VALUE_INDEXING_COLOUR)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``valueindexrange_k`` and ``valueindexing_k_i_d`` (see the class).

        Parameters
        ----------
        board : Board
            The puzzle's board (its values).
        index : int
            The rule's 1-based number among the puzzle's value-indexing lines: ``k``.

        Returns
        -------
        list of Rows
            The ``valueindexrange`` and ``valueindexing`` blocks.
        """
        cells = self.cells()
        a, b, line = int(cells[0]), int(cells[1]), cells[2:]
        n, v_count = line.size, board.n_values
        values = board.value_of
        outside = np.flatnonzero((values < 1) | (values > n))
        if outside.size:
            out = [Rows("valueindexrange", np.zeros(outside.size, dtype=np.int64), np.full(outside.size, b),
                        outside, np.ones(outside.size, dtype=np.int64), np.zeros(1, dtype=np.int64), "L",
                        np.array([[index]]))]
        else:
            out = [Rows.empty("valueindexrange", "L", 1)]
        steps = np.flatnonzero((values >= 1) & (values <= n))            # digits of b that index
        position = values[steps]                                          # i = 1..n
        m = steps.size * v_count
        i_of, d = np.divmod(np.arange(m), v_count)                        # rows (i, d), digit fastest
        cell = np.stack([np.full(m, b), np.full(m, a), line[position[i_of] - 1]], axis=1).ravel()
        digit = np.stack([steps[i_of], d, d], axis=1).ravel()
        coef = np.tile(np.array([1, 1, -1], dtype=np.int64), m)
        out.append(Rows("valueindexing", np.repeat(np.arange(m), 3), cell, digit, coef, np.ones(m, dtype=np.int64),
                        "L", np.stack([np.full(m, index), position[i_of], d + 1], axis=1)))
        return out

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The second cell's value is no position on the line, or the cell it points at holds
        another value than the first cell.

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
        a, b = self.cell_list[0], self.cell_list[1]
        line = self.cell_list[2:]
        if grid[b] == 0:
            return []
        i = board.value(int(grid[b]))
        if not 1 <= i <= len(line):
            return [{"message": f"{self.describe(board)}: {cell_name(b, board)} = {i} is no position 1..{len(line)}",
                     "cells": [b]}]
        target = line[i - 1]
        if grid[a] and grid[target] and grid[a] != grid[target]:
            return [{"message": f"{self.describe(board)}: {cell_name(target, board)} = {board.value(int(grid[target]))}, "
                                f"{cell_name(a, board)} = {board.value(int(grid[a]))}", "cells": [a, b, target]}]
        return []
