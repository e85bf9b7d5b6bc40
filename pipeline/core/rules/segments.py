"""Rules over a run of cells with auxiliary 0-1 columns: the sum line (ISS ``SumLine``: the line
splits into segments of one sum) and the lunchbox (ISS ``Lunchbox``: the cells between the
smallest and the largest digit add up to the clue). Their rows reach the auxiliary columns they
declare (:mod:`pipeline.core.rules.auxcols`; docs/conventions.md, "Auxiliary columns").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import (Board, Glyph, Rows, cell_list_text, cell_name, check_keys, int_field, optional_field,
                                      parse_cells, ragged_value_terms, value_span, value_terms)

__all__ = ["SumLine", "Lunchbox", "sumline_ok", "lunchbox_sum"]

#: ISS's largest sum of a sum line.
MAX_SUMLINE = 30


def sumline_ok(values: "list[int] | np.ndarray", total: int, loop: bool) -> bool:
    """Does the line split into consecutive segments each adding up to ``total`` (a loop: from
    some starting point)?

    Parameters
    ----------
    values : sequence of int
        The line's values in order.
    total : int
        The segments' sum.
    loop : bool
        The line closes on itself.

    Returns
    -------
    bool
    """
    values = [int(v) for v in values]
    starts = range(len(values)) if loop else range(1)
    for start in starts:
        run = 0
        for v in values[start:] + values[:start]:
            run += v
            if run == total:
                run = 0
            elif run > total:
                break
        else:
            if run == 0:
                return True
    return False


def lunchbox_sum(values: "list[int] | np.ndarray") -> int:
    """The sum of the values strictly between the smallest and the largest one.

    Parameters
    ----------
    values : sequence of int
        The lunchbox's values in order (distinct).

    Returns
    -------
    int
    """
    values = np.asarray(values)
    i, j = sorted((int(np.argmin(values)), int(np.argmax(values))))
    return int(values[i + 1:j].sum())


@dataclass(frozen=True, eq=False)
class SumLine(AuxRule):
    """The line splits into consecutive segments each adding up to ``sum``: ``{"rule": "sumline",
    "cells": [...], "sum": 10, "loop": false}`` (ISS ``SumLine``; a loop may start anywhere).

    An automaton over the running sum ``t`` of the open segment, one column per state and
    boundary (boundary ``i`` is before cell ``i``, ``i = 1 .. L + 1``). A line runs one automaton
    (``c = 1``) on the states ``t = 0 .. K-1`` (``K = sum``) from ``t = 0`` to ``t = 0``. A loop runs
    one automaton per start ``c = 1 .. K`` (running sum ``c - 1`` at boundary 1) on the states
    ``0 .. K-1`` and a dead state ``K`` (a segment passed the sum), and holds when some automaton
    ends where it started; so every column is fixed by the digits (counting by no-good cuts sees
    one point per grid).

    Auxiliary columns ``aux_sumline_k_c_i_t``: automaton ``c`` is in state ``t - 1`` at boundary
    ``i``. Rows: ``sumlinestate_k_c_i`` (``= 1``): ``sum_t s_{c,i,t}``; ``sumlineends_k_j``
    (``= 1``): a line's ``s_{1,1,0}`` (``j = 1``) and ``s_{1,L+1,0}`` (``j = 2``), a loop's starts
    ``s_{c,1,c-1}`` (``j = c``); ``sumlinestep_k_c_i_t_d`` (``<= 1``): ``s_{c,i,t} + x[c_i, d] -
    s_{c,i+1,t'}`` with ``t' = t + v(d)``, 0 when that is ``sum``, dead (a loop) when it passes
    it (a line: ``s_{c,i,t} + x[c_i, d] <= 1``), dead again from dead; ``sumlineloop_k`` (``<=
    -1``, a loop only): ``-sum_c s_{c,L+1,c-1}`` (some start comes back to itself).
    """

    cell_list: tuple[int, ...]
    total: int
    loop: bool = False

    kind: ClassVar[str] = "sumline"
    families: ClassVar[tuple[str, ...]] = ("sumlinestate", "sumlineends", "sumlinestep", "sumlineloop")

    aux_families: ClassVar[tuple[str, ...]] = ("sumline",)
    description: ClassVar[str] = "sum line: the line splits into segments that each add up to the sum"
    noun: ClassVar[str] = "sum line"

    def estimated_nonzeros(self, board: Board) -> float:
        """Its state rows over every cell, digit and partial sum: about ``3 L V S`` nonzeros for
        ``L`` cells and sum ``S`` (2.4-2.8 measured at N = 16, 25; a line over a 100x100's 10,000
        cells took 7.3 GB under a 1 GB limit when counted 0)."""
        return 3.0 * len(self.cell_list) * self.total * board.n_values

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "SumLine":
        """The rule of ``{"rule": "sumline", "cells": [...], "sum": k, "loop": false}``.

        Parameters
        ----------
        data : dict
            The document entry (``loop`` optional, a boolean).
        board : Board
            The puzzle's board: values not negative.
        where : str
            How messages name the entry.

        Returns
        -------
        SumLine
        """
        check_keys(data, {"cells", "sum", "loop"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        total = int_field(data, "sum", where, low=1, high=MAX_SUMLINE)
        loop = optional_field(data, "loop", False)
        if not isinstance(loop, bool):
            raise PuzzleError(f"{where}: 'loop' must be true or false, found {clip(loop, 40)!r}")
        if int(board.value_of.min()) < 0:
            raise PuzzleError(f"{where}: a sum line needs values of 0 or more, not {value_span(board)}")
        return cls(tuple(int(c) for c in cells), total, loop)

    def to_dict(self, board: Board) -> dict:
        out = {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list], "sum": self.total}
        if self.loop:
            out["loop"] = True
        return out

    def describe(self, board: Board) -> str:
        return f"sum line {self.total} {cell_list_text(self.cell_list, board, shown=3)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A green line through the cells (closed for a loop), the sum on its first cell."""
        cells = self.cell_list + (self.cell_list[:1] if self.loop else ())
        return [Glyph("line", cells, style="line", colour="#64c864"),
                Glyph("mark", self.cell_list[:1], style="text", label=str(self.total))]

    def _shape(self) -> tuple[int, int, int]:
        """``(automata, boundaries, states)``."""
        k, length = self.total, len(self.cell_list)
        return (k, length + 1, k + 1) if self.loop else (1, length + 1, k)

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_sumline_k_c_i_t``: automaton ``c`` is in state ``t - 1`` at boundary ``i``.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's sum lines.
        """
        a, nb, ns = self._shape()
        c, i, t = (x.ravel() for x in np.meshgrid(np.arange(a), np.arange(nb), np.arange(ns), indexing="ij"))
        return [AuxColumns("sumline", np.stack([np.full(c.size, index), c + 1, i + 1, t + 1], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The state, end, step and loop rows (class docstring).

        Parameters
        ----------
        board : Board
            The puzzle's board (its values).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        k, length = self.total, len(self.cell_list)
        a, nb, ns = self._shape()
        col = lambda c, i, t: (c * nb + i) * ns + t  # noqa: E731 - auxiliary column of s_{c,i,t} (0-based)
        empty = np.zeros(0, dtype=np.int64)
        c, i = (x.ravel() for x in np.meshgrid(np.arange(a), np.arange(nb), indexing="ij"))
        state = AuxRows("sumlinestate", empty, empty, empty, empty, np.ones(c.size, dtype=np.int64), "E",
                        np.stack([np.full(c.size, index), c + 1, i + 1], axis=1),
                        np.repeat(np.arange(c.size), ns), np.arange(c.size * ns), np.ones(c.size * ns, dtype=np.int64))
        if self.loop:
            starts = np.arange(k)
            ends = AuxRows("sumlineends", empty, empty, empty, empty, np.ones(k, dtype=np.int64), "E",
                           np.stack([np.full(k, index), starts + 1], axis=1), starts, col(starts, 0, starts),
                           np.ones(k, dtype=np.int64))
            closing = AuxRows("sumlineloop", empty, empty, empty, empty, np.array([-1]), "L", np.array([[index]]),
                              np.zeros(k, dtype=np.int64), col(starts, nb - 1, starts), -np.ones(k, dtype=np.int64))
        else:
            ends = AuxRows("sumlineends", empty, empty, empty, empty, np.ones(2, dtype=np.int64), "E",
                           np.array([[index, 1], [index, 2]]), np.arange(2), np.array([col(0, 0, 0), col(0, nb - 1, 0)]),
                           np.ones(2, dtype=np.int64))
            closing = AuxRows("sumlineloop", empty, empty, empty, empty, empty, "L", np.zeros((0, 1), dtype=np.int64))
        values = board.value_of
        c, i, t, d = (x.ravel() for x in np.meshgrid(np.arange(a), np.arange(length), np.arange(ns),
                                                     np.arange(values.size), indexing="ij"))
        reach = t + values[d]
        nxt = np.where(reach == k, 0, np.where(reach > k, k, reach))
        nxt = np.where(t == k, k, nxt)                   # dead stays dead (a loop's state k)
        goes = (reach <= k) | bool(self.loop)
        m = i.size
        r = np.arange(m)
        cells = self.cells()
        step = AuxRows("sumlinestep", r, cells[i], d, np.ones(m, dtype=np.int64), np.ones(m, dtype=np.int64), "L",
                       np.stack([np.full(m, index), c + 1, i + 1, t + 1, d + 1], axis=1),
                       np.concatenate([r, r[goes]]), np.concatenate([col(c, i, t), col(c, i + 1, nxt)[goes]]),
                       np.concatenate([np.ones(m, dtype=np.int64), -np.ones(int(goes.sum()), dtype=np.int64)]))
        return [state, ends, step, closing]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A full line that does not split into segments of the sum.

        Parameters
        ----------
        grid : numpy.ndarray
            Flat canvas, 0 = empty (judged only when the line is full).
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per broken instance.
        """
        entries = grid[self.cells()]
        if not entries.all():
            return []
        if not sumline_ok(board.grid_values(entries), self.total, self.loop):
            return [{"message": f"{self.describe(board)}: does not split into segments of {self.total}",
                     "cells": list(self.cell_list)}]
        return []


#: a lunchbox's shade (a killer cage has none)
LUNCHBOX_SHADE = "#e4e4e4"


@dataclass(frozen=True, eq=False)
class Lunchbox(AuxRule):
    """Distinct digits whose cells between the smallest and the largest add up to ``sum`` (0
    when they touch): ``{"rule": "lunchbox", "cells": [...], "sum": 7}`` (ISS ``Lunchbox``; the
    cells in the order given).

    Auxiliary columns ``aux_lunchbox_k_1_i`` (cell ``i`` holds the smallest value) and
    ``aux_lunchbox_k_2_i`` (the largest). ``R`` = largest minus smallest value of the board.
    Rows: ``lunchboxdistinct_k_d`` (``<= 1``, left out when the cells share a unit);
    ``lunchboxends_k_s`` (``= 1``): one smallest (``s = 1``), one largest (``s = 2``);
    ``lunchboxmin_k_i_j`` (``<= R``): ``v(c_i) - v(c_j) + R lo_i``; ``lunchboxmax_k_i_j``
    (``<= R``): ``v(c_j) - v(c_i) + R hi_i``; for the smallest at ``p`` and the largest at ``q``
    (``p != q``, ``m`` cells between, their sums from ``S_lo`` (the ``m`` smallest values) to
    ``S_hi`` (the ``m`` largest)): ``lunchboxsum_k_p_q_s`` (``<=``) the big-M pair over ``lo_p +
    hi_q`` (``s = 1``: ``sum v + M(lo_p + hi_q) <= S + 2M``, ``M = S_hi - S``; ``s = 2``: ``-sum v
    + M(lo_p + hi_q) <= -S + 2M``, ``M = S - S_lo``; left out when ``M = 0``) and
    ``lunchboxnot_k_p_q`` (``lo_p + hi_q <= 1``) when ``S`` is outside ``S_lo .. S_hi``.
    """

    cell_list: tuple[int, ...]
    total: int

    kind: ClassVar[str] = "lunchbox"
    families: ClassVar[tuple[str, ...]] = ("lunchboxdistinct", "lunchboxends", "lunchboxmin", "lunchboxmax",
                                           "lunchboxsum", "lunchboxnot")
    aux_families: ClassVar[tuple[str, ...]] = ("lunchbox",)
    description: ClassVar[str] = "lunchbox: the digits between the smallest and the largest add up to the sum"
    noun: ClassVar[str] = "lunchbox"

    def estimated_nonzeros(self, board: Board) -> float:
        """Its big-M pairs over every two places of the smallest and largest digit: about
        ``7.5 L^2 V`` nonzeros for ``L`` cells (6.6-7.6 measured at N = 16, 25; one per row of a
        100x100 took 7.8 GB under a 1 GB limit when counted 0)."""
        cells = len(self.cell_list)
        return 7.5 * cells * cells * board.n_values

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Lunchbox":
        """The rule of ``{"rule": "lunchbox", "cells": [...], "sum": S}``.

        Parameters
        ----------
        data : dict
            The document entry: two or more cells, at most one per value.
        board : Board
            The puzzle's board.
        where : str
            How messages name the entry.

        Returns
        -------
        Lunchbox
        """
        check_keys(data, {"cells", "sum"}, where)
        cells = parse_cells(data.get("cells"), board, where, at_least=2)
        if cells.size > board.n_values or len(set(cells.tolist())) != cells.size:
            raise PuzzleError(f"{where}: a lunchbox holds distinct cells, at most {board.n_values}")
        values = np.sort(board.value_of)
        high = int(values[-cells.size + 1:-1].sum()) if cells.size > 2 else 0
        total = int_field(data, "sum", where, low=min(0, int(values[0]) * (cells.size - 2)), high=max(high, 0))
        return cls(tuple(int(c) for c in cells), total)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list], "sum": self.total}

    def describe(self, board: Board) -> str:
        return f"lunchbox {self.total} {cell_list_text(self.cell_list, board, shown=3)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A shaded cage with the sum (ISS shades a lunchbox): a killer cage is not shaded."""
        return [Glyph("shade", self.cell_list, colour=LUNCHBOX_SHADE), Glyph("cage", self.cell_list, label=str(self.total))]

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_lunchbox_k_1_i`` (smallest at ``i``), ``aux_lunchbox_k_2_i`` (largest).

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's lunchboxes.
        """
        s, i = np.divmod(np.arange(2 * len(self.cell_list)), len(self.cell_list))
        return [AuxColumns("lunchbox", np.stack([np.full(s.size, index), s + 1, i + 1], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The distinct, end, min, max, sum and impossible-pair rows (class docstring).

        Parameters
        ----------
        board : Board
            The puzzle's board (its values).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        cells, L, nv = self.cells(), len(self.cell_list), board.n_values
        values = np.sort(board.value_of)
        spread = int(values[-1] - values[0])
        empty = np.zeros(0, dtype=np.int64)
        if board.share_a_unit(cells[None, :])[0]:
            distinct = AuxRows("lunchboxdistinct", empty, empty, empty, empty, empty, "L",
                               np.zeros((0, 2), dtype=np.int64))
        else:
            distinct = AuxRows("lunchboxdistinct", np.repeat(np.arange(nv), L), np.tile(cells, nv),
                               np.repeat(np.arange(nv), L), np.ones(nv * L, dtype=np.int64), np.ones(nv, dtype=np.int64),
                               "L", np.stack([np.full(nv, index), np.arange(1, nv + 1)], axis=1))
        ends = AuxRows("lunchboxends", empty, empty, empty, empty, np.ones(2, dtype=np.int64), "E",
                       np.array([[index, 1], [index, 2]]), np.repeat(np.arange(2), L), np.arange(2 * L),
                       np.ones(2 * L, dtype=np.int64))
        i, j = np.nonzero(~np.eye(L, dtype=bool))
        order = []
        for family, sign, offset in (("lunchboxmin", 1, 0), ("lunchboxmax", -1, L)):
            row, cell, digit, coef = value_terms(np.stack([cells[i], cells[j]], axis=1),
                                                 np.stack([np.full(i.size, sign), np.full(i.size, -sign)], axis=1), board)
            order.append(AuxRows(family, row, cell, digit, coef, np.full(i.size, spread, dtype=np.int64), "L",
                                 np.stack([np.full(i.size, index), i + 1, j + 1], axis=1), np.arange(i.size),
                                 i + offset, np.full(i.size, spread, dtype=np.int64)))
        return [distinct, ends, *order, *self._sum_rows(board, index, values)]

    def _sum_rows(self, board: Board, index: int, values: np.ndarray) -> list[AuxRows]:
        """``lunchboxsum`` and ``lunchboxnot``, every end pair ``(p, q)`` (``q`` fastest) at once."""
        cells, L, total = self.cells(), len(self.cell_list), self.total
        p, q = np.nonzero(~np.eye(L, dtype=bool))
        start = np.minimum(p, q) + 1                          # the first cell between the ends
        m = np.maximum(p, q) - start                          # cells between
        prefix = np.concatenate([[0], np.cumsum(values)])
        low, high = prefix[m], prefix[-1] - prefix[values.size - m]   # the m smallest, the m largest values
        fits = (low <= total) & (total <= high)
        # the big-M pair: side 1 (sign +1, M = S_hi - S), side 2 (sign -1, M = S - S_lo), each where M > 0
        big_m = np.stack([high - total, total - low], axis=1)
        pair, side = np.nonzero(fits[:, None] & (big_m > 0))
        sign = 1 - 2 * side
        big_m = big_m[pair, side]
        rows = pair.size
        sizes = m[pair]
        row_of = np.repeat(np.arange(rows), sizes)
        within = np.arange(row_of.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        row, cell, digit, coef = ragged_value_terms(row_of, cells[start[pair][row_of] + within], sign[row_of], board)
        sums = AuxRows("lunchboxsum", row, cell, digit, coef.astype(np.int64), sign * total + 2 * big_m, "L",
                       np.stack([np.full(rows, index), p[pair] + 1, q[pair] + 1, side + 1], axis=1).astype(np.int64),
                       np.repeat(np.arange(rows), 2), np.stack([p[pair], L + q[pair]], axis=1).ravel(),
                       np.repeat(big_m, 2))
        bad = np.flatnonzero(~fits)
        empty = np.zeros(0, dtype=np.int64)
        impossible = AuxRows("lunchboxnot", empty, empty, empty, empty, np.ones(bad.size, dtype=np.int64), "L",
                             np.stack([np.full(bad.size, index), p[bad] + 1, q[bad] + 1], axis=1).astype(np.int64),
                             np.repeat(np.arange(bad.size), 2), np.stack([p[bad], L + q[bad]], axis=1).ravel(),
                             np.ones(2 * bad.size, dtype=np.int64))
        return [sums, impossible]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A repeated value, or (all filled) another sum between the smallest and the largest.

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
        entries = grid[self.cells()]
        shown = entries[entries > 0]
        if np.unique(shown).size != shown.size:
            return [{"message": f"{self.describe(board)}: a repeated digit", "cells": list(self.cell_list)}]
        if not entries.all():
            return []
        got = lunchbox_sum(board.grid_values(entries))
        if got != self.total:
            return [{"message": f"{self.describe(board)}: {got} between the smallest and the largest",
                     "cells": list(self.cell_list)}]
        return []
