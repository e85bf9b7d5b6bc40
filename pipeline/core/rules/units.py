"""Rules that add units (cells holding every digit once): windoku windows, a long diagonal, an
extra region, disjoint groups. Their rows are ``= 1`` rows of ``A`` like rows and boxes, and the
unit kernel of :mod:`pipeline.core.verify` checks them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.glyphs import DIAGONAL_SHADE, WINDOW_FILL
from pipeline.core.rules.base import Board, Glyph, Rule, cell_list_text, cell_name, check_keys, optional_field, parse_cells

__all__ = ["Windoku", "DiagonalRule", "ExtraRegion", "DisjointGroups", "window_units"]


def window_units(rows: int, cols: int, h: int, w: int) -> np.ndarray | None:
    """``(W, h*w)`` cells of the windoku windows of an ``N x N`` grid with ``h x w`` boxes: the
    ``h x w`` windows one cell in from each box corner, separated by one line, i.e. at rows
    ``1 + k (h + 1)`` and columns ``1 + k (w + 1)`` (0-based), leaving a line free at every edge
    as the 9x9 windoku does. None where they do not fit so: ``N/h <= h`` and ``N/w <= w`` (4
    windows for 9x9, 1 for 4x4, 9 for 16x16; none for 6x6 with 2x3 boxes, whose second row of
    windows would touch the bottom edge).

    Parameters
    ----------
    rows, cols : int
        The grid's size (a layout's canvas has none).
    h, w : int
        Box shape.

    Returns
    -------
    ndarray of int or None
    """
    n = h * w
    if rows != n or cols != n or n // h > h or n // w > w or n // h < 2 or n // w < 2:
        return None
    tops = 1 + np.arange(n // h - 1) * (h + 1)
    lefts = 1 + np.arange(n // w - 1) * (w + 1)
    inner = (np.arange(h)[:, None] * cols + np.arange(w)[None, :]).ravel()
    corners = (tops[:, None] * cols + lefts[None, :]).ravel()
    return corners[:, None] + inner[None, :]


class _UnitRule(Rule):
    global_rule = True

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str):
        check_keys(data, set(), where)
        rule = cls()
        rule.check(board, where)   # refuse where it does not exist
        return rule

    def check(self, board: Board, where: str) -> None:
        """Refuse the rule where its units do not exist (default: they always do)."""

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind}


@dataclass(frozen=True, eq=False)
class Windoku(_UnitRule):
    """Windoku (hyper): the extra ``h x w`` windows are units (family ``window``, rows ``window_g_d``)."""

    kind = "windoku"
    families = ("window",)
    description = "windoku (hyper): the extra windows between the boxes hold every digit once"
    noun = "windoku"

    def glyphs(self, board: Board) -> list[Glyph]:
        units = window_units(board.rows, board.cols, board.h, board.w)
        return [] if units is None else [Glyph("shade", tuple(units.ravel().tolist()), colour=WINDOW_FILL)]

    def check(self, board: Board, where: str) -> None:
        """Refuse windoku where its windows do not fit the grid and its boxes.

        Parameters
        ----------
        board : Board
            The puzzle's board (its canvas and ``h x w`` boxes).
        where : str
            How the message names the entry (``rules[3] (windoku)``).

        Raises
        ------
        PuzzleError
            The units do not exist on this board.
        """
        if window_units(board.rows, board.cols, board.h, board.w) is None:
            raise PuzzleError(f"{where}: windoku windows do not fit a {board.rows}x{board.cols} grid with "
                              f"{board.h}x{board.w} boxes (they exist when each side has at most as many boxes as a box has cells along it)")

    def units(self, board: Board) -> list[tuple[str, np.ndarray]]:
        units = window_units(board.rows, board.cols, board.h, board.w)
        return [] if units is None else [("window", units)]


@dataclass(frozen=True, eq=False)
class DiagonalRule(Rule):
    """One long diagonal is a unit: ``main`` (r = c, family ``diag``) or ``anti`` (r + c = N + 1,
    family ``anti``), as in Sudoku-X."""

    which: str = "main"

    kind = "diagonal"
    families = ("diag", "anti")
    description = "a long diagonal holds every digit once (which: main or anti)"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "DiagonalRule":
        """The diagonal of ``{"rule": "diagonal", "which": "main"|"anti"}`` (``which`` optional, main).

        Parameters
        ----------
        data : dict
            The document entry: an optional ``which``.
        board : Board
            The puzzle's board: a square ``n x n`` grid.
        where : str
            How messages name the entry (``rules[3] (diagonal)``).

        Returns
        -------
        DiagonalRule
        """
        check_keys(data, {"which"}, where)
        which = optional_field(data, "which", "main")
        if which not in ("main", "anti"):
            raise PuzzleError(f"{where}: 'which' must be main or anti, found {clip(which)!r}")
        if board.rows != board.cols or board.rows != board.n:
            raise PuzzleError(f"{where}: a long diagonal needs a square N x N grid")
        return cls(which)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "which": self.which}

    def describe(self, board: Board) -> str:
        return f"{self.which} diagonal"

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("shade", tuple(self.units(board)[0][1][0].tolist()), colour=DIAGONAL_SHADE)]

    @classmethod
    def title(cls, rules: list) -> str:
        which = sorted({rule.which for rule in rules})
        return "both diagonals" if len(which) == 2 else f"{which[0]} diagonal"

    def units(self, board: Board) -> list[tuple[str, np.ndarray]]:
        n = board.n
        i = np.arange(n)
        cols = i if self.which == "main" else n - 1 - i
        return [("diag" if self.which == "main" else "anti", (i * board.cols + cols)[None, :])]


@dataclass(frozen=True, eq=False)
class ExtraRegion(Rule):
    """N more cells that hold every digit once (family ``extra``, rows ``extra_g_d``); with more
    values than the side (``V > N``) 2 to ``V`` cells holding each value at most once (ISS's
    ``RegionSize`` boxes), all of a puzzle's extra regions of one size."""

    cell_list: tuple[int, ...]

    kind = "extraregion"
    families = ("extra",)
    description = "extra region: N cells that hold every digit once"
    noun = "extra region"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "ExtraRegion":
        """The region of ``{"rule": "extraregion", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: exactly ``n`` ``cells``.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (extraregion)``).

        Returns
        -------
        ExtraRegion
        """
        check_keys(data, {"cells"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        if (cells >= board.n_cells).any():   # the unit kernels (verify, propagation, dfs) hold grid cells
            raise PuzzleError(f"{where}: an extra region is a unit of grid cells; "
                              f"{cell_name(int(cells[cells >= board.n_cells][0]), board)} is an extra cell "
                              "(use a cage without a sum)")
        if board.n_values > board.n:   # units hold each value at most once: regions of 2..V cells
            if not 2 <= cells.size <= board.n_values:
                raise PuzzleError(f"{where}: an extra region on a grid of {board.n_values} values has 2 to "
                                  f"{board.n_values} cells, found {cells.size}")
        elif cells.size != board.n:
            raise PuzzleError(f"{where}: an extra region has {board.n} cells, found {cells.size} "
                              "(use a cage without a sum for fewer distinct cells)")
        return cls(tuple(int(c) for c in cells))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return f"extra region {cell_list_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def units(self, board: Board) -> list[tuple[str, np.ndarray]]:
        return [("extra", np.sort(self.cells())[None, :])]

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("shade", self.cell_list, style="regions")]


@dataclass(frozen=True, eq=False)
class DisjointGroups(_UnitRule):
    """Cells at the same position in every box form a unit (family ``disjoint``, rows
    ``disjoint_g_d`` with ``g`` the position inside the box, row-major). A grid without boxes (a
    Latin square, jigsaw regions) is refused: there tools disagree (ISS lays its ``DisjointSets``
    on its standard boxes, a SudokuSolver version on the regions' positions); the ISS reader
    writes such sets as cages, which name their cells."""

    kind = "disjointgroups"
    families = ("disjoint",)
    description = "disjoint groups: cells at the same position in every box hold every digit once"
    noun = "disjoint groups"

    def check(self, board: Board, where: str) -> None:
        """Refuse disjoint groups on anything but one ``n x n`` grid with boxes.

        Parameters
        ----------
        board : Board
            The puzzle's board (its canvas size).
        where : str
            How the message names the entry (``rules[3] (disjointgroups)``).

        Raises
        ------
        PuzzleError
            The units do not exist on this board.
        """
        if board.rows != board.n or board.cols != board.n:
            raise PuzzleError(f"{where}: disjoint groups need one N x N grid with boxes")
        families = [family for family, _ in board.unit_families]
        if "box" not in families:   # positions of which boxes? Refused rather than laid on boxes the grid lacks
            kind = "jigsaw regions" if "region" in families else "no boxes"
            raise PuzzleError(f"{where}: disjoint groups need boxes, and this grid has {kind} (the {board.h}x"
                              f"{board.w} box positions would be laid on it unseen); give each group as an "
                              "extraregion")

    def units(self, board: Board) -> list[tuple[str, np.ndarray]]:
        n, h, w = board.n, board.h, board.w
        boxes = np.arange(n * n).reshape(n // h, h, n // w, w).transpose(0, 2, 1, 3).reshape(n, n)
        return [("disjoint", boxes.T.copy())]
