"""Connected values (ISS ``ConnectedValues`` over the grid or a group of extra cells): the cells
holding any of the listed values form one non-empty orthogonally connected region, of a given size
when one is given. A group's cells are next to each other as its rows lay them out (ISS's
``Var`` groups: an ``RxC`` group in rows of ``C``, a count in rows of the grid's width).

Connectivity is not a linear condition on ``x``: the rule's rows model it exactly with auxiliary
0-1 distance layers from one root cell (docs/conventions.md, "Connected values"), as the chaos
construction's regions do; :func:`region_parts` is the exact check ``verify`` uses.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import Board, Glyph, Rows, check_keys, optional_field, value_span
from pipeline.core.rules.chaos import layer_edges

__all__ = ["ConnectedValues", "region_parts", "layer_edges"]


def region_parts(inside: np.ndarray) -> tuple[int, np.ndarray]:
    """The orthogonally connected parts of a set of cells of a rectangle of cells.

    Parameters
    ----------
    inside : ndarray of bool, shape (rows, cols)
        The cells of the set.

    Returns
    -------
    tuple of (int, ndarray of int)
        The number of parts and the ``(rows, cols)`` part of each cell (1-based, 0 outside).
    """
    from scipy import ndimage   # lazily: a puzzle read without verifying never imports scipy (issue 18)

    labels, count = ndimage.label(inside)   # the default structure: orthogonal neighbours
    return int(count), labels


@dataclass(frozen=True, eq=False)
class ConnectedValues(AuxRule):
    """The cells holding one of ``values`` form one non-empty orthogonally connected region:
    ``{"rule": "connectedvalues", "values": [1, 3, 5, 7, 9]}``, optionally ``"size": 45`` (the
    region has exactly that many cells). ISS ``ConnectedValues~~1_3_5_7_9~45`` over the whole
    grid (one ``N x N`` grid), or over a group of extra cells with ``"group": "L"`` (the group's
    name in ``"extra"``; ISS ``ConnectedValues~VL~1``): its cells, next to each other as the
    group's rows lay them out (``RxC``: rows of ``C``; a count: rows of the grid's width).

    Auxiliary columns ``aux_connected_k_r_c_t`` (``t = 1..L``): ``r_c`` is in the region and
    within ``t - 1`` steps of the root inside it; ``L`` is the size, else ``N * |values|`` (each
    row holds a value once; the whole grid when rows are not units), capped at ``N^2``; over a
    group, ``r_c`` is the cell's row and column in the group's layout and ``L`` the size, else the
    group's cell count. Rows: ``connectedroot_k`` (``= 1``, one root),
    ``connectedstep_k_r_c_t`` (``<= 0``, a cell is reached at ``t`` only from itself or a
    neighbour at ``t - 1``), ``connectedkeep_k_r_c_t`` (``<= 0``, layers grow),
    ``connectedall_k_r_c`` (``= 0``, the last layer is the region), ``connectedsize_k``
    (``= size``, with a size), ``connectedfirst_k_r_c`` (``<= 0``, the root is the region's first
    cell in layout order: breaks the root's symmetry) and ``connectedneighbour_k_r_c`` (``<= 0``,
    with a size of 2 or more a region cell has a region neighbour).
    """

    values: tuple[int, ...]
    size: int = 0
    group: str = ""   # a group of extra cells ("extra"), "" the grid

    kind: ClassVar[str] = "connectedvalues"
    families: ClassVar[tuple[str, ...]] = ("connectedroot", "connectedstep", "connectedkeep", "connectedall",
                                           "connectedsize", "connectedfirst", "connectedneighbour")
    aux_families: ClassVar[tuple[str, ...]] = ("connected",)
    description: ClassVar[str] = "connected values: the cells holding the listed values form one connected region"
    noun: ClassVar[str] = "connected value set"
    build_cost: ClassVar[float] = 0.6   # measured: 1.45 CPU s for 3.07 M nonzeros (25x25, 25 values)

    def estimated_nonzeros(self, board: Board) -> float:
        """Its steps over every cell for every listed value: about ``7.9 k N^3`` nonzeros for ``k``
        values (7.1-7.9 measured at N = 9, 16, 25), counted as ``8 k N^3`` (a 100x100 with all 100
        values took 6.3 GB under a 1 GB limit when counted 0), plus the ``connectedfirst`` pairs
        (at most ``8 n L`` for ``n`` cells, else none; at most ``n^2 / 2``)."""
        cells = self._layer(board)[0].size
        first = min(cells * cells / 2.0, 8.0 * cells * self._layers(board))
        if self.group:
            return 8.0 * cells * self._layers(board) + first
        return 8.0 * len(self.values) * board.n ** 3 + first

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "ConnectedValues":
        """The rule of ``{"rule": "connectedvalues", "values": [...], "size": k}``.

        Parameters
        ----------
        data : dict
            The document entry: ``values`` (distinct values of the puzzle's set), optional ``size``
            and ``group`` (a group of the puzzle's extra cells).
        board : Board
            The puzzle's board: one ``n x n`` grid without ``group``.
        where : str
            How messages name the entry.

        Returns
        -------
        ConnectedValues
        """
        check_keys(data, {"values", "size", "group"}, where)
        group = optional_field(data, "group", "")
        names = [g.name for g in board.extra]
        if group != "" and (not isinstance(group, str) or group.upper() not in names):
            declared = f"one of {', '.join(names[:8])}" if names else "none declared"
            raise PuzzleError(f"{where}: 'group' must name a group of extra cells ({declared}), found {clip(group)!r}")
        group = group.upper()
        cells = next((g.count for g in board.extra if g.name == group), board.n_cells) if group else board.n_cells
        if not group and not (board.rows == board.cols == board.n and board.present.all()):
            raise PuzzleError(f"{where}: connected values need one {board.n}x{board.n} grid, found {board.shape_text}")
        values = data.get("values")
        if (not isinstance(values, list) or not values
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)):
            raise PuzzleError(f"{where}: 'values' must be a non-empty list of integers, found {clip(values, 30)!r}")
        if len(set(values)) != len(values):
            raise PuzzleError(f"{where}: 'values' lists a value twice: {values[:12]}")
        outside = [v for v in values if v not in board.value_of.tolist()]
        if outside:
            raise PuzzleError(f"{where}: {outside[0]} is not one of the puzzle's values {value_span(board)}")
        size = optional_field(data, "size", 0)
        if size != 0 and (not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= cells):
            raise PuzzleError(f"{where}: 'size' must be a whole number 1..{cells}, found {clip(size)!r}")
        return cls(tuple(sorted(values)), int(size), group)

    def to_dict(self, board: Board) -> dict:
        out: dict = {"rule": self.kind, "values": list(self.values)}
        if self.size:
            out["size"] = self.size
        if self.group:
            out["group"] = self.group
        return out

    def describe(self, board: Board) -> str:
        size = f", {self.size} cells" if self.size else ""
        group = f" in extra cells {self.group}" if self.group else ""
        return f"connected values {','.join(map(str, self.values))}{group}{size}"

    def glyphs(self, board: Board) -> list[Glyph]:
        """None: the rule is named in the picture's title (ISS draws no mark for it either)."""
        return []

    def _digits(self, board: Board) -> np.ndarray:
        return board.index_of(list(self.values))

    def _layer(self, board: Board) -> tuple[np.ndarray, int]:
        """The cells the rule covers (board cell numbers, in layout order) and their cells a row."""
        if not self.group:
            return np.arange(board.n_cells), board.cols
        start = board.n_cells
        for g in board.extra:
            if g.name == self.group:
                return start + np.arange(g.count), g.columns or board.cols
            start += g.count
        raise PuzzleError(f"connected values: no extra cells {self.group!r}")  # pragma: no cover - from_dict checks

    def _layers(self, board: Board) -> int:
        if self.group:
            count = self._layer(board)[0].size
            return min(self.size, count) if self.size else count
        if self.size:
            return min(self.size, board.n_cells)
        if not board.has_lines:   # no unit holds a value once: the region may fill the grid
            return board.n_cells
        return min(board.n * len(self.values), board.n_cells)

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_connected_k_r_c_t``, cell-major, ``t = 1..L`` fastest.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's connected-value rules.

        Returns
        -------
        list of AuxColumns
        """
        layers = self._layers(board)
        cells, columns = self._layer(board)
        cell = np.repeat(np.arange(cells.size), layers)
        r, c = np.divmod(cell, columns)
        t = np.tile(np.arange(1, layers + 1), cells.size)
        return [AuxColumns("connected", np.stack([np.full(cell.size, index), r + 1, c + 1, t], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The seven families of the class docstring (``connectedsize`` empty without a size,
        ``connectedneighbour`` without a size of 2 or more).

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        cells, columns = self._layer(board)
        L, n_cells = self._layers(board), cells.size
        z = np.arange(n_cells * L).reshape(n_cells, L)          # auxiliary column of (cell, layer)
        r, c = np.divmod(np.arange(n_cells), columns)
        none = np.zeros(0, dtype=np.int64)
        k = np.full(n_cells, index)
        digits = self._digits(board)
        out: list[Rows] = []
        # connectedroot: sum_i z[i, 1] = 1
        out.append(AuxRows("connectedroot", none, none, none, none, np.ones(1, dtype=np.int64), "E",
                           np.array([[index]]), np.zeros(n_cells, dtype=np.int64), z[:, 0],
                           np.ones(n_cells, dtype=np.int64)))
        # connectedstep: z[i,t] - z[i,t-1] - sum_{j next to i} z[j,t-1] <= 0, t = 2..L
        edges = layer_edges(n_cells, columns)   # the grid: n*n cells in rows of n
        steps = L - 1
        cell_t = np.repeat(np.arange(n_cells), steps)           # row (i, t): i * steps + t - 1
        t = np.tile(np.arange(1, L), n_cells)                  # 0-based layer of the row
        row_id = np.arange(cell_t.size)
        nb_row = np.repeat(edges[:, 0], steps) * steps + np.tile(np.arange(steps), len(edges))
        nb_col = z[np.repeat(edges[:, 1], steps), np.tile(np.arange(steps), len(edges))]
        a_row = np.concatenate([row_id, row_id, nb_row])
        a_col = np.concatenate([z[cell_t, t], z[cell_t, t - 1], nb_col])
        a_coef = np.concatenate([np.ones(row_id.size, dtype=np.int64),
                                 -np.ones(row_id.size + nb_row.size, dtype=np.int64)])
        rc = np.stack([np.full(row_id.size, index), r[cell_t] + 1, c[cell_t] + 1, t + 1], axis=1)
        out.append(AuxRows("connectedstep", none, none, none, none, np.zeros(row_id.size, dtype=np.int64), "L",
                           rc.reshape(-1, 4), a_row, a_col, a_coef))
        # connectedkeep: z[i,t] - z[i,t+1] <= 0, t = 1..L-1
        keep_t = t - 1                                           # 0-based layer t-1 .. L-2
        out.append(AuxRows("connectedkeep", none, none, none, none, np.zeros(row_id.size, dtype=np.int64), "L",
                           np.stack([np.full(row_id.size, index), r[cell_t] + 1, c[cell_t] + 1, keep_t + 1], axis=1),
                           np.concatenate([row_id, row_id]), np.concatenate([z[cell_t, keep_t], z[cell_t, keep_t + 1]]),
                           np.concatenate([np.ones(row_id.size, dtype=np.int64), -np.ones(row_id.size, dtype=np.int64)])))
        # connectedall: z[i,L] - sum_{d in values} x[i,d] = 0
        m = digits.size
        labels = np.stack([k, r + 1, c + 1], axis=1)            # (k, r, c) of each cell's rows
        out.append(AuxRows("connectedall", np.repeat(np.arange(n_cells), m), np.repeat(cells, m),
                           np.tile(digits, n_cells), -np.ones(n_cells * m, dtype=np.int64),
                           np.zeros(n_cells, dtype=np.int64), "E", labels,
                           np.arange(n_cells), z[:, L - 1], np.ones(n_cells, dtype=np.int64)))
        # connectedsize: sum_i sum_{d in values} x[i,d] = size
        if self.size:
            out.append(Rows("connectedsize", np.zeros(n_cells * m, dtype=np.int64), np.repeat(cells, m),
                            np.tile(digits, n_cells), np.ones(n_cells * m, dtype=np.int64),
                            np.array([self.size]), "E", np.array([[index]])))
        else:
            out.append(Rows.empty("connectedsize", "E"))
        out.append(self._first_rows(cells, digits, labels, self._near_pairs(r, c, columns, L), z))
        out.append(self._neighbour_rows(cells, digits, labels, edges))
        return out

    @staticmethod
    def _near_pairs(r: np.ndarray, c: np.ndarray, columns: int, L: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Pairs ``(i, j)``, ``j`` before ``i`` in layout order and at most ``L - 1`` apart (rows
        plus columns: two cells of one region of at most ``L`` cells are never farther apart), one
        numpy pass; None when they would outnumber ``8 n L`` (the step rows hold about
        ``6 n L`` terms), as on a large grid with a mid-sized region."""
        n_cells = r.size
        rows = -(-n_cells // columns)
        span = min(L - 1, max(rows, columns))
        dr, dc = np.meshgrid(np.arange(-min(span, rows - 1), 1), np.arange(-min(span, columns - 1), columns),
                             indexing="ij")
        keep = (np.abs(dr) + np.abs(dc) <= L - 1) & ((dr < 0) | (dc < 0))
        dr, dc = dr[keep], dc[keep]
        if int(((rows + dr) * (columns - np.abs(dc))).sum()) > 8 * n_cells * L:
            return None
        ok = (r >= -dr[:, None]) & (c + dc[:, None] >= 0) & (c + dc[:, None] < columns)   # (offset, cell)
        o, i = np.nonzero(ok)
        j = i + dr[o] * columns + dc[o]
        return i, j

    @staticmethod
    def _first_rows(cells: np.ndarray, digits: np.ndarray, labels: np.ndarray,
                    near: tuple[np.ndarray, np.ndarray] | None, z: np.ndarray) -> Rows:
        """``connectedfirst``: no region cell comes before the root in layout order, so the root
        is the region's first cell (any region cell may be the root: exact), and a region cell is
        at most ``L - 1`` steps from it: ``y(c) - sum_{c' <= c, near} z[c',1] <= 0``."""
        n_cells, m = cells.size, digits.size
        if near is None:   # too many pairs to list (:meth:`_near_pairs`): the family is left out
            return Rows.empty("connectedfirst", "L", 3)
        i, j = near
        one = np.ones(n_cells * m, dtype=np.int64)
        # connectedfirst: y(c) - sum_{c' <= c, near} z[c',1] <= 0 (no region cell before the root)
        a_row = np.concatenate([np.arange(n_cells), i])
        a_col = z[np.concatenate([np.arange(n_cells), j]), 0]
        first = AuxRows("connectedfirst", np.repeat(np.arange(n_cells), m), np.repeat(cells, m),
                        np.tile(digits, n_cells), one, np.zeros(n_cells, dtype=np.int64), "L", labels,
                        a_row, a_col, -np.ones(a_row.size, dtype=np.int64))
        return first

    def _neighbour_rows(self, cells: np.ndarray, digits: np.ndarray, labels: np.ndarray, edges: np.ndarray) -> Rows:
        """``connectedneighbour``: with a size of 2 or more, a region cell has a region neighbour:
        ``y(c) - sum_{n next to c} y(n) <= 0``."""
        if self.size < 2:
            return Rows.empty("connectedneighbour", "L", 3)
        n_cells, m = cells.size, digits.size
        row = np.concatenate([np.repeat(np.arange(n_cells), m), np.repeat(edges[:, 0], m)])
        cell = np.concatenate([np.repeat(cells, m), np.repeat(cells[edges[:, 1]], m)])
        digit = np.tile(digits, n_cells + len(edges))
        coef = np.concatenate([np.ones(n_cells * m, dtype=np.int64), -np.ones(len(edges) * m, dtype=np.int64)])
        return Rows("connectedneighbour", row, cell, digit, coef, np.zeros(n_cells, dtype=np.int64), "L", labels)

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The region split in parts, empty, or of another size (a full grid; a partial grid is
        judged only on a size already passed).

        Parameters
        ----------
        grid : numpy.ndarray
            Flat canvas, 0 = empty.
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per break.
        """
        layer, columns = self._layer(board)
        values = np.zeros(layer.size, dtype=np.int64)   # the extra cells are 0 (empty) when not given
        known = layer < np.asarray(grid).size
        values[known] = np.asarray(grid).ravel()[layer[known]]
        inside = np.isin(values, self._digits(board) + 1)
        count = int(np.count_nonzero(inside))
        cells = layer[inside].tolist()
        if self.size and count > self.size:
            return [{"message": f"{self.describe(board)}: {count} cells hold them, not {self.size}", "cells": cells}]
        if (values == 0).any():
            return []
        if self.size and count != self.size:
            return [{"message": f"{self.describe(board)}: {count} cells hold them, not {self.size}", "cells": cells}]
        if not count:
            return [{"message": f"{self.describe(board)}: no cell holds them (the region is empty)", "cells": []}]
        rows = -(-layer.size // columns)
        padded = np.zeros(rows * columns, dtype=bool)   # a short last row: padded with cells outside
        padded[:layer.size] = inside
        parts, labels = region_parts(padded.reshape(rows, columns))
        if parts > 1:
            smaller = layer[labels.ravel()[:layer.size] > 1].tolist()
            return [{"message": f"{self.describe(board)}: the cells holding them form {parts} separate parts",
                     "cells": smaller}]
        return []
