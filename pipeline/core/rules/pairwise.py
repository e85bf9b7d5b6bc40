"""Custom pairwise rules: a table of the digit pairs cells may hold (ISS ``Pair`` and ``PairX``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.parse import whole_number
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, optional_field, parse_cells,
                                      value_words)
from pipeline.core.rules.rowblocks import pair_rows, pairs_within

__all__ = ["Pair"]

PAIR_COLOUR = "#c27c2a"   # an amber line: not a whisper's green nor a renban's purple


@dataclass(frozen=True, eq=False)
class Pair(Rule):
    """Cells whose pairs hold only allowed digit pairs:
    ``{"rule": "pair", "cells": ["r1c1", "r1c2", "r1c3"], "allowed": [[1, 2], [2, 3], [3, 4]]}``.

    Without ``"all"`` (ISS ``Pair``) the pairs are consecutive cells of the list, in order: cell
    ``i`` holds ``a`` and cell ``i+1`` holds ``b`` only for an allowed ``[a, b]``. With
    ``"all": true`` (ISS ``PairX``) every two cells of the list, and a pair of digits is allowed
    only when both of its orders are listed. ``"name"`` (optional) is kept for pictures.

    Rows ``pair_k_p_d_e`` (``<= 1``): ``x[a, d] + x[b, e]`` for pair ``p`` (consecutive pairs in
    list order; with ``all``, ``i < j`` by ``i`` then ``j``) and each forbidden ``(d, e)``, digits
    fastest; ``d = e`` is left out when the two cells share a unit (which says it already).
    """

    cell_list: tuple[int, ...]
    allowed: tuple[tuple[int, int], ...]   # 1-based, sorted, as listed
    every_pair: bool = False
    name: str = ""

    kind = "pair"
    families = ("pair",)
    description = "pairwise: consecutive cells (or every two, with 'all') hold only allowed digit pairs"
    noun = "pairwise rule"
    numbered_glyphs = True   # two pairwise rules: P1 and P2, each with its pairs in the caption

    #: The caption lists at most this many allowed pairs of a rule, then says how many more.
    LEGEND_PAIRS = 12

    def estimated_nonzeros(self, board: Board) -> float:
        """Two nonzeros a forbidden digit pair of each cell pair: at most ``2 P (V^2 - A)`` for ``P``
        cell pairs (``L - 1`` consecutive, ``L (L - 1) / 2`` with ``all``), ``V`` values and ``A``
        allowed pairs (pairs in one unit lose the equal digits). Counted 0, 200 cells of a 100x100
        with ``all`` built 6.5 GB under a 1 GB limit, and a line over its 10,000 cells 14.8 GB."""
        length, v = len(self.cells()), board.n_values
        pairs = length * (length - 1) / 2 if self.every_pair else max(length - 1, 0)
        return 2.0 * pairs * max(v * v - len(self.allowed), 0)

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Pair":
        """The rule of ``{"rule": "pair", "cells": [...], "allowed": [[a, b], ...], "all": bool, "name": str}``.

        Parameters
        ----------
        data : dict
            The document entry: at least 2 ``cells``, the ``allowed`` digit pairs, optional ``all``
            (every two cells, both orders) and ``name`` (at most 60 characters).
        board : Board
            The puzzle's board: the cells lie on it, the digits are ``1..n``.
        where : str
            How messages name the entry (``rules[3] (pair)``).

        Returns
        -------
        Pair
        """
        check_keys(data, {"cells", "allowed", "all", "name"}, where)
        cells = parse_cells(data.get("cells"), board, where, at_least=2)
        every = optional_field(data, "all", False)
        if not isinstance(every, bool):
            raise PuzzleError(f"{where}: 'all' must be true or false, found {clip(every)!r}")
        name = optional_field(data, "name", "")
        if not isinstance(name, str) or len(name) > 60:
            raise PuzzleError(f"{where}: 'name' must be a string of at most 60 characters")
        raw = data.get("allowed")
        if not isinstance(raw, (list, tuple)) or not raw:
            raise PuzzleError(f"{where}: 'allowed' must be a non-empty list of digit pairs like [1, 2]")
        pairs = set()
        for item in raw:
            digits = [whole_number(v) for v in item] if isinstance(item, (list, tuple)) else []
            if len(digits) != 2 or any(d is None or board.index_of([d])[0] < 0 for d in digits):
                raise PuzzleError(f"{where}: 'allowed' holds {clip(item)!r}, not a pair of digits {value_words(board)}")
            first, second = digits
            assert first is not None and second is not None   # checked above
            pairs.add((int(first), int(second)))
        rule = cls(tuple(int(c) for c in cells), tuple(sorted(pairs)), every, name)
        if not rule.table(board).any():
            raise PuzzleError(f"{where}: no allowed pair holds in both orders, which 'all' asks for")
        return rule

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list],
                                  "allowed": [list(p) for p in self.allowed]}
        if self.every_pair:
            out["all"] = True
        if self.name:
            out["name"] = self.name
        return out

    def describe(self, board: Board) -> str:
        what = f"pairwise {self.name!r}" if self.name else "pairwise"
        return f"{what} {cells_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def table(self, n: "int | Board") -> np.ndarray:
        """``(n, n)`` bool: ``table[d, e]`` when 0-based digits ``d``, ``e`` may stand in a pair.

        Parameters
        ----------
        n : int or Board
            The number of digits (the values ``1..n``), or the board (its value set: the pairs
            list values).

        Returns
        -------
        ndarray of bool
        """
        a = np.array(self.allowed, dtype=np.int64)
        if isinstance(n, Board):
            a, n = n.index_of(a), n.n_values
        else:
            a = a - 1
        table = np.zeros((n, n), dtype=bool)
        table[a[:, 0], a[:, 1]] = True
        return table & table.T if self.every_pair else table

    def pairs(self) -> np.ndarray:
        """``(P, 2)`` the cell pairs the table applies to, first cell first."""
        cells = self.cells()
        if self.every_pair:
            i, j = pairs_within(cells.size)
            return np.stack([cells[i], cells[j]], axis=1)
        return np.stack([cells[:-1], cells[1:]], axis=1)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A line through the cells with a ring on each (ISS's custom line; odd cells are grey
        discs), and ``P`` on the first cell: the caption's :meth:`legend` follows that label."""
        return [Glyph("line", self.cell_list, style="line", colour=PAIR_COLOUR), Glyph("mark", self.cell_list, style="ring"),
                Glyph("mark", self.cell_list[:1], style="text", label="P")]   # grey: amber on the amber line hid it

    def legend(self, board: Board) -> str:
        """The allowed pairs, as the caption lists them: ``'odd' 1-3, 3-5 (either order)``.

        Parameters
        ----------
        board : Board
            The puzzle's board (the pairs are its values).

        Returns
        -------
        str
        """
        shown = [f"{a}-{b}" for a, b in self.allowed[:self.LEGEND_PAIRS]]
        more = len(self.allowed) - len(shown)
        text = ", ".join(shown) + (f" and {more} more" if more else "")
        if self.every_pair:
            text += " (every two cells, both orders)"
        return f"{self.name!r} {text}" if self.name else text

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``pair_k_p_d_e`` (``<= 1``): cell pair ``p`` does not hold the forbidden ``(d, e)``.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n``; its units make ``d = e`` rows implied).
        index : int
            The rule's 1-based number among the puzzle's pairwise rules: ``k`` in the labels.

        Returns
        -------
        list of Rows
            The one ``pair`` block.
        """
        pairs = self.pairs()
        d, e = np.nonzero(~self.table(board))                    # forbidden, d then e
        shared = board.share_a_unit(pairs)
        keep = ~(shared[:, None] & (d == e)[None, :])               # (P, F)
        p, f = np.nonzero(keep)
        return [pair_rows("pair", pairs[p, 0], pairs[p, 1], d[f], e[f],
                          np.stack([np.full(p.size, index), p + 1, d[f] + 1, e[f] + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Every filled cell pair holding digits that are not an allowed pair.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (``n``, cell names in the messages).

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per offending pair.
        """
        pairs = self.pairs()
        a, b = grid[pairs[:, 0]], grid[pairs[:, 1]]
        table = self.table(board)
        filled = (a > 0) & (b > 0)
        bad = np.zeros(a.size, dtype=bool)
        bad[filled] = ~table[a[filled] - 1, b[filled] - 1]
        return [{"message": f"{self.describe(board)}: {cell_name(x, board)} and {cell_name(y, board)} hold "
                            f"{board.value(grid[x])} and {board.value(grid[y])}, not an allowed pair", "cells": [int(x), int(y)]}
                for x, y in pairs[bad].tolist()]
