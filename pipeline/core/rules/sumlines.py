"""Sum lines over cell values ``v(c) = sum_d d * x[c, d]``: arrows (one circle, a 2- or 3-cell
pill read as a number, a circle at each end), zippers and region-sum lines. Each instance is
equality rows of weighted values; digits may repeat along a line unless a unit forbids it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.glyphs import LINE_COLOUR, Glyph
from pipeline.core.rules.base import (Board, Rows, Rule, cell_name, check_keys, int_field, king_step, ragged_value_terms,
                                      value_span, value_terms)
from pipeline.core.rules.lineparts import line_cells, line_name, values_text

__all__ = ["Arrow", "PillArrow", "DoubleArrow", "Zipper", "RegionSum", "line_segments", "ZIPPER_COLOUR",
           "REGIONSUM_COLOUR"]

ZIPPER_COLOUR = "#8a8af0"       # zipper lines: lavender
REGIONSUM_COLOUR = "#2f8fd8"    # region-sum lines: blue


def _sum_row(family: str, cells: np.ndarray, weights: np.ndarray, labels: np.ndarray, n: "int | Board") -> Rows:
    """``sum_i weights[r, i] * v(cells[r, i]) = 0`` per row ``r`` (``(R, k)`` cells and weights)."""
    row, cell, digit, coef = value_terms(cells, weights, n)
    return Rows(family, row, cell, digit, coef, np.zeros(np.atleast_2d(cells).shape[0], dtype=np.int64), "E", labels)


def _group_rows(family: str, groups: list[tuple[np.ndarray, np.ndarray]], labels: np.ndarray,
                n: "int | Board") -> Rows:
    """One ``= 0`` row per ``(cells, weights)`` group (groups of any length), in one numpy pass,
    with ``labels`` (a row each)."""
    if not groups:
        return Rows.empty(family, "E", labels.shape[1] if labels.ndim == 2 else 2)
    lengths = np.fromiter((len(cells) for cells, _ in groups), dtype=np.int64, count=len(groups))
    row, cell, digit, coef = ragged_value_terms(np.repeat(np.arange(len(groups)), lengths),
                                                np.concatenate([cells for cells, _ in groups]),
                                                np.concatenate([weights for _, weights in groups]), n)
    return Rows(family, row, cell, digit, coef, np.zeros(len(groups), dtype=np.int64), "E", labels)


def _sum_rows_of(family: str, rules: "list[Rule]", groups_of, board: Board, first_index: int) -> list[Rows]:
    """The rows of several sum lines of one kind at once: each rule's groups (``groups_of(rule)``,
    a list of ``(cells, weights)``) in rule order, labels ``family_index_i``."""
    groups: list[tuple[np.ndarray, np.ndarray]] = []
    owner: list[int] = []
    within: list[int] = []
    for index, rule in enumerate(rules, start=first_index):
        mine = groups_of(rule)
        groups += mine
        owner += [index] * len(mine)
        within += range(1, len(mine) + 1)
    return [_group_rows(family, groups, np.stack([np.array(owner, dtype=np.int64),
                                                  np.array(within, dtype=np.int64)], axis=1), board)]


def _head_violation(name: str, head: np.ndarray, weights: np.ndarray, line: np.ndarray, grid: np.ndarray,
                    board: Board) -> list[dict]:
    """The message of a sum line whose head (circle cells, weighted) is filled and whose line sum
    differs (complete) or already exceeds it (one per empty cell counted as 1)."""
    hv = grid[head]
    if (hv == 0).any():
        return []
    target = int((board.grid_values(hv) * weights).sum())
    values = grid[line]
    total, empty = int(board.grid_values(values).sum()), int(np.count_nonzero(values == 0))
    cells = np.concatenate([head, line]).tolist()
    if empty == 0 and total != target:
        return [{"message": f"{name}: the line sums to {total}, not {target} ({values_text(cells, grid, board)})",
                 "cells": cells}]
    if empty and total + empty * min(int(board.value_of.min()), 1) > target:
        return [{"message": f"{name}: the line already needs more than {target} "
                            f"({total} filled, {empty} cell(s) empty)", "cells": cells}]
    return []


@dataclass(frozen=True, eq=False)
class Arrow(Rule):
    """An arrow: the digits along the line add up to the digit in the circle (the first cell).

    Rows ``arrow_a`` (``= 0``): ``v(circle) - sum_{c on the line} v(c)``.
    """

    cell_list: tuple[int, ...]

    kind = "arrow"
    families = ("arrow",)
    description = "arrow: the line's digits add up to the circle's (the first cell)"
    noun = "arrow"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Arrow":
        """The arrow of ``{"rule": "arrow", "cells": [circle, line...]}``.

        Parameters
        ----------
        data : dict
            The document entry: ``cells``, the circle first, then 1 to ``n`` line cells.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (arrow)``).

        Returns
        -------
        Arrow
        """
        check_keys(data, {"cells"}, where)
        cells = line_cells(data, board, where, 2)
        if (len(cells) - 1) * int(board.value_of.min()) > int(board.value_of.max()):
            raise PuzzleError(f"{where}: {line_name('arrow', cells, board)} has {len(cells) - 1} line cells; "
                              f"their sum exceeds any circle digit {value_span(board)}")
        return cls(cells)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("arrow", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="arrow")]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``arrow_a`` (``= 0``): the circle's value minus the line's.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The arrow's 1-based number among the puzzle's arrows: ``a`` in the label.

        Returns
        -------
        list of Rows
            The one ``arrow`` block, one row.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every arrow's row (:meth:`rows`) in one block, arrow after arrow.

        Parameters
        ----------
        rules : list of Arrow
            The puzzle's arrows, in order.
        board : Board
            The puzzle's board (``n`` digits).
        first_index : int
            The first arrow's 1-based number.

        Returns
        -------
        list of Rows
        """
        cells = [np.array(cast("Arrow", rule).cell_list, dtype=np.int64) for rule in rules]
        lengths = np.fromiter((c.size for c in cells), dtype=np.int64, count=len(cells))
        flat = np.concatenate(cells)
        signs = np.where(np.arange(flat.size) == np.repeat(np.cumsum(lengths) - lengths, lengths), 1, -1)
        row, cell, digit, coef = ragged_value_terms(np.repeat(np.arange(len(cells)), lengths), flat, signs, board)
        labels = np.arange(first_index, first_index + len(cells), dtype=np.int64)[:, None]
        return [Rows("arrow", row, cell, digit, coef, np.zeros(len(cells), dtype=np.int64), "E", labels)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """With the circle filled: a full line off its sum, or a partial one already over it (empty cells counted as 1).

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
        cells = self.cells()
        return _head_violation(self.describe(board), cells[:1], np.ones(1, dtype=np.int64), cells[1:], grid, board)


@dataclass(frozen=True, eq=False)
class PillArrow(Rule):
    """A pill arrow: the first ``pill`` cells (2 or 3, touching, in reading order) form a number
    in base 10; the digits along the rest of the line add up to it.

    Rows ``pillarrow_a`` (``= 0``): ``sum_i 10^(pill-1-i) v(p_i) - sum_{c on the line} v(c)``.
    """

    cell_list: tuple[int, ...]
    pill: int = 2

    kind = "pillarrow"
    families = ("pillarrow",)
    description = "pill arrow: the line's digits add up to the 2- or 3-digit number in the pill (the first cells)"
    noun = "pill arrow"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "PillArrow":
        """The arrow of ``{"rule": "pillarrow", "cells": [pill..., line...], "pill": 2|3}`` (``pill`` optional, 2).

        Parameters
        ----------
        data : dict
            The document entry: ``cells``, the ``pill`` touching pill cells first (reading order),
            then at least one line cell.
        board : Board
            The puzzle's board: the cells lie on it; ``n <= 9`` (a pill reads decimal digits).
        where : str
            How messages name the entry (``rules[3] (pillarrow)``).

        Returns
        -------
        PillArrow
        """
        check_keys(data, {"cells", "pill"}, where)
        pill = int_field(data, "pill", where, low=2, high=3, default=2)
        cells = line_cells(data, board, where, pill + 1)
        name = line_name("pill arrow", cells, board)
        least, most = int(board.value_of.min()), int(board.value_of.max())
        if most > 9 or least < 0:
            raise PuzzleError(f"{where}: {name}: a pill reads decimal digits, so it needs digits 1..9 at most "
                              f"(this grid has {value_span(board)})")
        for a, b in zip(cells[:pill - 1], cells[1:pill]):
            if not king_step(a, b, board):
                raise PuzzleError(f"{where}: {name}: pill cells {cell_name(a, board)} and {cell_name(b, board)} "
                                  "do not touch (a pill is one circle over neighbouring cells)")
        smallest = int(str(least) * pill)
        if (len(cells) - pill) * most < smallest:
            raise PuzzleError(f"{where}: {name}: {len(cells) - pill} line cell(s) sum to at most "
                              f"{(len(cells) - pill) * most}, less than any {pill}-digit pill ({smallest})")
        return cls(cells, pill)

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}
        if self.pill != 2:
            out["pill"] = self.pill
        return out

    def describe(self, board: Board) -> str:
        return line_name("pill arrow", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def weights(self) -> np.ndarray:
        """The pill cells' place values (``10^(pill-1) .. 1``)."""
        return 10 ** np.arange(self.pill - 1, -1, -1, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        pill = self.cell_list[:self.pill]
        return [Glyph("line", self.cell_list[self.pill - 1:], style="arrow"), Glyph("line", pill, style="line", colour=LINE_COLOUR),
                Glyph("mark", pill, style="ring")]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``pillarrow_a`` (``= 0``): the pill's number minus the line's sum.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The arrow's 1-based number among the puzzle's pill arrows: ``a`` in the label.

        Returns
        -------
        list of Rows
            The one ``pillarrow`` block, one row.
        """
        cells = self.cells()
        signs = np.concatenate([self.weights(), -np.ones(cells.size - self.pill, dtype=np.int64)])
        return [_sum_row("pillarrow", cells[None, :], signs[None, :], np.array([[index]]), board)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """With the whole pill filled: a full line off the pill's number, or a partial one already over it (empty cells counted as 1).

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
        cells = self.cells()
        return _head_violation(self.describe(board), cells[:self.pill], self.weights(), cells[self.pill:], grid, board)


@dataclass(frozen=True, eq=False)
class DoubleArrow(Rule):
    """A double arrow: a circle at each end; the digits between add up to the two circles' sum.

    Rows ``doublearrow_a`` (``= 0``): ``v(first) + v(last) - sum_{c between} v(c)``.
    """

    cell_list: tuple[int, ...]

    kind = "doublearrow"
    families = ("doublearrow",)
    description = "double arrow: the digits between the end circles add up to the circles' sum"
    noun = "double arrow"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "DoubleArrow":
        """The arrow of ``{"rule": "doublearrow", "cells": [circle, between..., circle]}``.

        Parameters
        ----------
        data : dict
            The document entry: ``cells`` from one circle to the other, at least 3, at most
            ``2 n`` between.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (doublearrow)``).

        Returns
        -------
        DoubleArrow
        """
        check_keys(data, {"cells"}, where)
        cells = line_cells(data, board, where, 3)
        if (len(cells) - 2) * int(board.value_of.min()) > 2 * int(board.value_of.max()):
            raise PuzzleError(f"{where}: {line_name('double arrow', cells, board)} has {len(cells) - 2} cells "
                              f"between its circles; their sum exceeds any two digits {value_span(board)}")
        return cls(cells)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("double arrow", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="line", colour=LINE_COLOUR),
                Glyph("mark", (self.cell_list[0], self.cell_list[-1]), style="ring")]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``doublearrow_a`` (``= 0``): the two circles' values minus the cells' between.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The arrow's 1-based number among the puzzle's double arrows: ``a`` in the label.

        Returns
        -------
        list of Rows
            The one ``doublearrow`` block, one row.
        """
        cells = self.cells()
        signs = -np.ones(cells.size, dtype=np.int64)
        signs[[0, -1]] = 1
        return [_sum_row("doublearrow", cells[None, :], signs[None, :], np.array([[index]]), board)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """With the two circles filled: a full line off their sum, or a partial one already over it (empty cells counted as 1).

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
        cells = self.cells()
        return _head_violation(self.describe(board), cells[[0, -1]], np.ones(2, dtype=np.int64), cells[1:-1], grid,
                               board)


@dataclass(frozen=True, eq=False)
class Zipper(Rule):
    """A zipper line: cells the same distance from the centre add up to the same total; on a line
    of odd length that total is the centre cell's digit.

    Rows ``zipper_z_i`` (``= 0``): odd length, ``v(c_i) + v(c_{L-1-i}) - v(centre)`` for each pair
    ``i``; even length, ``v(c_i) + v(c_{L-1-i}) - v(c_{i+1}) - v(c_{L-2-i})`` for consecutive pairs.
    """

    cell_list: tuple[int, ...]

    kind = "zipper"
    families = ("zipper",)
    description = "zipper line: cells equidistant from the centre share one sum (the centre digit on odd lines)"
    noun = "zipper line"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Zipper":
        """The line of ``{"rule": "zipper", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: at least 3 ``cells`` in line order.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (zipper)``).

        Returns
        -------
        Zipper
        """
        check_keys(data, {"cells"}, where)
        return cls(line_cells(data, board, where, 3))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("zipper", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def pairs(self) -> np.ndarray:
        """``(P, 2)`` the mirrored pairs, outermost first."""
        cells = self.cells()
        half = cells.size // 2
        return np.stack([cells[:half], cells[::-1][:half]], axis=1)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="line", colour=ZIPPER_COLOUR)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``zipper_z_i`` (``= 0``): pair ``i`` adds up to the centre (odd length) or to the next pair in.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The line's 1-based number among the puzzle's zipper lines: ``z`` in the labels.

        Returns
        -------
        list of Rows
            The one ``zipper`` block.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every zipper line's rows (:meth:`rows`) in one block, line after line.

        Parameters
        ----------
        rules : list of Zipper
            The puzzle's zipper lines, in order.
        board : Board
            The puzzle's board (``n`` digits).
        first_index : int
            The first line's 1-based number.

        Returns
        -------
        list of Rows
        """
        return _sum_rows_of("zipper", rules, lambda rule: cast("Zipper", rule).groups(), board, first_index)

    def groups(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each row's ``(cells, signs)``: a pair and the centre (odd length), or a pair and the next
        pair in (even length)."""
        cells, pairs = self.cells(), self.pairs()
        if cells.size % 2:
            centre = cells[cells.size // 2]
            return [(np.array([a, b, centre]), np.array([1, 1, -1])) for a, b in pairs.tolist()]
        return [(np.array([*outer, *inner]), np.array([1, 1, -1, -1]))
                for outer, inner in zip(pairs[:-1].tolist(), pairs[1:].tolist())]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A pair off the filled centre's digit (a half-filled pair already at or over it), or two full pairs
        with different sums (even length).

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
        cells, pairs = self.cells(), self.pairs()
        values = grid[pairs]
        full = (values > 0).all(axis=1)
        sums = board.grid_values(values).sum(axis=1)
        name = self.describe(board)
        if cells.size % 2:
            centre = int(cells[cells.size // 2])
            target = board.value(grid[centre])
            if grid[centre]:
                # a pair with an empty cell: that cell adds at least the least value (1 at most here)
                bad = (full & (sums != target)) | (~full & (sums + min(int(board.value_of.min()), 1) > target))
                if bad.any():
                    k = int(np.argmax(bad))
                    shown = [int(c) for c in pairs[k] if grid[c]] + [centre]
                    return [{"message": f"{name}: {values_text(shown, grid, board)}: the pair does not add up to "
                                        f"the centre's {target}", "cells": shown}]
            return []
        done = np.flatnonzero(full)
        if done.size >= 2 and (sums[done] != sums[done[0]]).any():
            k = int(done[np.argmax(sums[done] != sums[done[0]])])
            shown = pairs[[int(done[0]), k]].ravel().tolist()
            return [{"message": f"{name}: pairs sum to {int(sums[done[0]])} and {int(sums[k])} "
                                f"({values_text(shown, grid, board)})", "cells": shown}]
        return []


def line_segments(cells: np.ndarray, board: Board) -> list[np.ndarray] | None:
    """The line cut where it leaves a box (a jigsaw region when the puzzle has no boxes): the
    runs of consecutive cells in one box, in order (a line may enter a box twice: two runs).
    None when the puzzle has neither boxes nor regions.

    Parameters
    ----------
    cells : ndarray of int
        The line, in order.
    board : Board
        The puzzle's board (its unit families).

    Returns
    -------
    list of ndarray or None
    """
    names = [name for name, _ in board.unit_families]
    family = "box" if "box" in names else "region" if "region" in names else None
    if family is None:
        return None
    owner = board.unit_of_cells()[names.index(family)][cells]
    cuts = np.flatnonzero(owner[1:] != owner[:-1]) + 1
    return np.split(cells, cuts)


@dataclass(frozen=True, eq=False)
class RegionSum(Rule):
    """A region-sum line: each run of the line inside one box (a jigsaw region when the puzzle
    has no boxes) adds up to the same total.

    Rows ``regionsum_l_s`` (``= 0``): ``sum v(segment s) - sum v(segment s+1)`` for consecutive
    segments; a line inside one box has none.
    """

    cell_list: tuple[int, ...]

    kind = "regionsum"
    families = ("regionsum",)
    description = "region-sum line: the line's run in each box adds up to the same total"
    noun = "region-sum line"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "RegionSum":
        """The line of ``{"rule": "regionsum", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: at least 2 ``cells`` in line order.
        board : Board
            The puzzle's board: the cells lie on it; it has boxes or regions to cut the line by.
        where : str
            How messages name the entry (``rules[3] (regionsum)``).

        Returns
        -------
        RegionSum
        """
        check_keys(data, {"cells"}, where)
        cells = line_cells(data, board, where, 2)
        if line_segments(np.array(cells, dtype=np.int64), board) is None:
            raise PuzzleError(f"{where}: {line_name('region-sum line', cells, board)}: the puzzle has no boxes "
                              "or regions to cut the line by")
        return cls(cells)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("region-sum line", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def segments(self, board: Board) -> list[np.ndarray]:
        """The line's runs inside one box each, in order."""
        return line_segments(self.cells(), board) or [self.cells()]

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="line", colour=REGIONSUM_COLOUR)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``regionsum_l_s`` (``= 0``): segment ``s`` sums to the same as segment ``s + 1``.

        Parameters
        ----------
        board : Board
            The puzzle's board (its boxes or regions cut the line; ``n``).
        index : int
            The line's 1-based number among the puzzle's region-sum lines: ``l`` in the labels.

        Returns
        -------
        list of Rows
            The one ``regionsum`` block (empty for a line inside one box).
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every region-sum line's rows (:meth:`rows`) in one block, line after line.

        Parameters
        ----------
        rules : list of RegionSum
            The puzzle's region-sum lines, in order.
        board : Board
            The puzzle's board (its boxes or regions cut the lines; ``n``).
        first_index : int
            The first line's 1-based number.

        Returns
        -------
        list of Rows
        """
        return _sum_rows_of("regionsum", rules, lambda rule: cast("RegionSum", rule).groups(board), board,
                            first_index)

    def groups(self, board: Board) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each row's ``(cells, signs)``: a segment (+1) and the next one (-1)."""
        segs = self.segments(board)
        return [(np.concatenate([a, b]), np.concatenate([np.ones(a.size, dtype=np.int64), -np.ones(b.size, dtype=np.int64)]))
                for a, b in zip(segs[:-1], segs[1:])]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Two full segments with different sums.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its boxes or regions, cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        done = [s for s in self.segments(board) if (grid[s] > 0).all()]
        sums = [int(board.grid_values(grid[s]).sum()) for s in done]
        if len(set(sums)) > 1:
            k = next(i for i, t in enumerate(sums) if t != sums[0])
            shown = np.concatenate([done[0], done[k]]).tolist()
            return [{"message": f"{self.describe(board)}: box segments sum to {sums[0]} and {sums[k]} "
                                f"({values_text(shown, grid, board)})", "cells": shown}]
        return []
