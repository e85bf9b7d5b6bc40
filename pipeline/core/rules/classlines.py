"""Lines whose rule is about classes of digits along a window: entropic lines (any 3 consecutive
cells hold one low, one middle and one high digit) and modular lines (any ``mod`` consecutive cells
hold one digit of each remainder). Their rows say a window holds each class at most once
(``<= 1``), so the CNF carries them as at-most-one constraints."""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.glyphs import Glyph
from pipeline.core.rules.base import Board, Rows, Rule, cell_name, check_keys, int_field, value_span
from pipeline.core.rules.lineparts import line_cells, line_name, values_text
from pipeline.core.rules.rowblocks import ragged_positions

__all__ = ["Entropic", "Modular", "class_window_rows", "class_window_rows_of", "ENTROPIC_COLOUR", "MODULAR_COLOUR"]

ENTROPIC_COLOUR = "#f08c28"     # entropic lines: orange
MODULAR_COLOUR = "#e0679a"      # modular lines: pink


def class_window_rows(family: str, cells: np.ndarray, width: int, classes: list[np.ndarray], index: int) -> Rows:
    """``sum_{c in window w} sum_{d in class k} x[c, d] <= 1`` for every run ``w`` of ``width``
    consecutive cells (the whole line when shorter) and class ``k``: a window holds each class at
    most once, so with as many cells as classes, exactly once. Labels ``family_index_w_k``.

    Parameters
    ----------
    family : str
        The rows' family.
    cells : ndarray of int
        The line, in order.
    width : int
        Cells per window.
    classes : list of ndarray
        Each class's 0-based digits.
    index : int
        The rule's number among its kind.

    Returns
    -------
    Rows
    """
    return class_window_rows_of(family, [cells], width, classes, index)


def class_window_rows_of(family: str, lines: list[np.ndarray], width: int, classes: list[np.ndarray],
                         first_index: int) -> Rows:
    """:func:`class_window_rows` of several lines at once, line after line, numbered from
    ``first_index``: the same rows in the same order, in one numpy pass.

    Parameters
    ----------
    family : str
        The rows' family.
    lines : list of ndarray of int
        Each line's cells, in order.
    width : int
        Cells per window.
    classes : list of ndarray
        Each class's 0-based digits.
    first_index : int
        The first line's number among its kind.

    Returns
    -------
    Rows
    """
    length = np.array([len(cells) for cells in lines], dtype=np.int64)
    size = np.minimum(width, length)                 # cells per window of each line
    n_windows = np.where(length > 0, length - size + 1, 0)
    n_classes = len(classes)
    if not n_classes or not n_windows.sum():
        return Rows.empty(family, "L", 3)
    flat_cells = np.concatenate([np.asarray(cells, dtype=np.int64) for cells in lines])
    lens = np.array([digits.size for digits in classes], dtype=np.int64)
    flat = np.concatenate([np.asarray(digits, dtype=np.int64) for digits in classes])
    # rows: line, then window, then class; a row's terms: the window's cells in order, each with the class's digits
    line, in_line = ragged_positions(n_windows * n_classes)
    w, k = in_line // n_classes, in_line % n_classes
    row, within = ragged_positions(size[line] * lens[k])
    term_k = k[row]
    cell = flat_cells[(np.cumsum(length) - length)[line[row]] + w[row] + within // lens[term_k]]
    digit = flat[(np.cumsum(lens) - lens)[term_k] + within % lens[term_k]]
    labels = np.stack([first_index + line, w + 1, k + 1], axis=1)
    return Rows(family, row, cell, digit, np.ones(row.size, dtype=np.int64), np.ones(line.size, dtype=np.int64), "L",
                labels)


def _class_clash(name: str, cells: np.ndarray, width: int, grid: np.ndarray, board: Board, cls_of, what: str) -> list[dict]:
    """The first window of a class line holding two digits of one class."""
    size = min(width, cells.size)
    for window in np.lib.stride_tricks.sliding_window_view(cells, size):
        filled = [int(c) for c in window if grid[c]]
        seen: dict[int, int] = {}
        for c in filled:
            k = cls_of(int(grid[c]))
            if k in seen:
                shown = [seen[k], c]
                return [{"message": f"{name}: {values_text(shown, grid, board)} are both {what} "
                                    f"within {size} consecutive cells", "cells": shown}]
            seen[k] = c
    return []


@dataclass(frozen=True, eq=False)
class Entropic(Rule):
    """An entropic line: any 3 consecutive cells hold one low, one middle and one high digit
    (1-3, 4-6, 7-9 on 9x9; thirds of ``1..N`` for ``N`` divisible by 3). A 2-cell line holds
    two different thirds.

    Rows ``entropic_l_w_g`` (``<= 1``): the window ``w`` of 3 cells holds a digit of third ``g`` at
    most once (three cells, three thirds: exactly once).
    """

    cell_list: tuple[int, ...]

    kind = "entropic"
    families = ("entropic",)
    description = "entropic line: any 3 consecutive cells hold one low, one middle and one high digit"
    noun = "entropic line"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Entropic":
        """The line of ``{"rule": "entropic", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: at least 2 ``cells`` in line order.
        board : Board
            The puzzle's board: the cells lie on it; ``n`` must split into three thirds.
        where : str
            How messages name the entry (``rules[3] (entropic)``).

        Returns
        -------
        Entropic
        """
        check_keys(data, {"cells"}, where)
        cells = line_cells(data, board, where, 2)
        if board.n_values % 3:
            raise PuzzleError(f"{where}: {line_name('entropic line', cells, board)}: digits {value_span(board)} do not "
                              "split into three equal thirds (low, middle, high)")
        return cls(cells)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("entropic line", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="line", colour=ENTROPIC_COLOUR)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``entropic_l_w_g`` (``<= 1``): window ``w`` of 3 cells holds third ``g`` at most once.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n``, split into thirds).
        index : int
            The line's 1-based number among the puzzle's entropic lines: ``l`` in the labels.

        Returns
        -------
        list of Rows
            The one ``entropic`` block.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every entropic line's rows (:meth:`rows`) in one block, line after line.

        Parameters
        ----------
        rules : list of Entropic
            The puzzle's entropic lines, in order.
        board : Board
            The puzzle's board (``n``, split into thirds).
        first_index : int
            The first line's 1-based number.

        Returns
        -------
        list of Rows
        """
        third = board.n_values // 3   # thirds of the digits in order of value
        classes = [np.arange(g * third, (g + 1) * third) for g in range(3)]
        lines = [cast("Entropic", line).cells() for line in rules]
        return [class_window_rows_of("entropic", lines, 3, classes, first_index)]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The first window of 3 cells holding two digits of one third.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (``n``, cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        third = board.n_values // 3
        return _class_clash(self.describe(board), self.cells(), 3, grid, board, lambda v: (v - 1) // third,
                            "in one third")


@dataclass(frozen=True, eq=False)
class Modular(Rule):
    """A modular line: any ``mod`` consecutive cells (3 by default) hold one digit of each
    remainder modulo ``mod``; a shorter line holds distinct remainders.

    Rows ``modular_l_w_k`` (``<= 1``): the window ``w`` of ``mod`` cells holds a digit ``= k`` modulo
    ``mod`` at most once (``k = 1..mod``, ``mod`` standing for remainder 0).
    """

    cell_list: tuple[int, ...]
    mod: int = 3

    kind = "modular"
    families = ("modular",)
    description = "modular line: any 'mod' (3) consecutive cells hold one digit of each remainder"
    noun = "modular line"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Modular":
        """The line of ``{"rule": "modular", "cells": [...], "mod": m}`` (``mod`` optional, 3 by default).

        Parameters
        ----------
        data : dict
            The document entry: at least 2 ``cells`` in line order and an optional ``mod`` (``2..n``).
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (modular)``).

        Returns
        -------
        Modular
        """
        check_keys(data, {"cells", "mod"}, where)
        cells = line_cells(data, board, where, 2)
        mod = int_field(data, "mod", where, low=2, high=board.n_values, default=3)
        return cls(cells, mod)

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}
        if self.mod != 3:
            out["mod"] = self.mod
        return out

    def describe(self, board: Board) -> str:
        return line_name("modular line", self.cell_list, board) + ("" if self.mod == 3 else f" (mod {self.mod})")

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A line; a modulus other than 3 is written on the first cell (``mod 4``)."""
        out = [Glyph("line", self.cell_list, style="line", colour=MODULAR_COLOUR)]
        if self.mod != 3:
            out.append(Glyph("mark", self.cell_list[:1], style="text", label=f"mod {self.mod}"))
        return out

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``modular_l_w_k`` (``<= 1``): window ``w`` of ``mod`` cells holds remainder class ``k`` at most once.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The line's 1-based number among the puzzle's modular lines: ``l`` in the labels.

        Returns
        -------
        list of Rows
            The one ``modular`` block.
        """
        return type(self).rows_of([self], board, index)

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every modular line's rows (:meth:`rows`), one block per run of lines of one modulus.

        Parameters
        ----------
        rules : list of Modular
            The puzzle's modular lines, in order.
        board : Board
            The puzzle's board (``n`` digits).
        first_index : int
            The first line's 1-based number.

        Returns
        -------
        list of Rows
        """
        lines = cast("list[Modular]", rules)
        d, v = np.arange(board.n_values), board.value_of
        blocks, start = [], 0
        while start < len(lines):
            mod, stop = lines[start].mod, start + 1
            while stop < len(lines) and lines[stop].mod == mod:
                stop += 1
            classes = [d[v % mod == k % mod] for k in range(1, mod + 1)]
            blocks.append(class_window_rows_of("modular", [line.cells() for line in lines[start:stop]], mod, classes,
                                               first_index + start))
            start = stop
        return blocks

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The first window of ``mod`` cells holding two digits of one remainder.

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
        return _class_clash(self.describe(board), self.cells(), self.mod, grid, board, lambda v: board.value(v) % self.mod,
                            f"of one remainder mod {self.mod}")
