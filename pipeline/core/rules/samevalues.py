"""Same values: groups of cells of one size that hold the same multiset of digits (ISS ``SameValues``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.base import Board, Glyph, Rows, Rule, cell_list_text, cell_name, check_keys, parse_cells

__all__ = ["SameValues"]


@dataclass(frozen=True, eq=False)
class SameValues(Rule):
    """Two or more groups of as many cells each hold the same digits, as often each:
    ``{"rule": "samevalues", "groups": [["r1c1", "r1c2"], ["r5c5", "r6c5"]]}`` (no cell in two groups).

    Rows ``samevalues_k_g_d`` (``= 0``), for each group ``g = 2..G`` and digit ``d``:
    ``sum_{c in group 1} x[c, d] - sum_{c in group g} x[c, d]``.
    """

    groups: tuple[tuple[int, ...], ...]

    kind = "samevalues"
    families = ("samevalues",)
    description = "same values: the groups hold the same digits (as often each)"
    noun = "same-values set"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "SameValues":
        """The rule of ``{"rule": "samevalues", "groups": [[cells], [cells], ...]}``.

        Parameters
        ----------
        data : dict
            The document entry: 2 or more ``groups`` of as many cells each, no cell in two.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (samevalues)``).

        Returns
        -------
        SameValues
        """
        check_keys(data, {"groups"}, where)
        raw = data.get("groups")
        if not isinstance(raw, (list, tuple)) or len(raw) < 2:
            raise PuzzleError(f"{where}: 'groups' must be a list of 2 or more lists of cells, found {clip(raw, 40)!r}")
        groups = [parse_cells(g, board, f"{where} group {k}") for k, g in enumerate(raw, start=1)]
        sizes = {g.size for g in groups}
        if len(sizes) > 1:
            raise PuzzleError(f"{where}: the groups must be of one size, found sizes "
                              f"{', '.join(str(g.size) for g in groups)}")
        every = np.concatenate(groups)
        values, counts = np.unique(every, return_counts=True)
        if (counts > 1).any():
            raise PuzzleError(f"{where}: cell {cell_name(int(values[counts > 1][0]), board)} is in two groups")
        return cls(tuple(tuple(int(c) for c in g) for g in groups))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "groups": [[cell_name(c, board) for c in g] for g in self.groups]}

    def describe(self, board: Board) -> str:
        return f"same values {' / '.join(cell_list_text(g, board, shown=3) for g in self.groups)}"

    def cells(self) -> np.ndarray:
        return np.array([c for g in self.groups for c in g], dtype=np.int64)

    numbered_glyphs = True   # two same-values rules: "=1" and "=2" cages say which go together

    def glyphs(self, board: Board) -> list[Glyph]:
        """Each group a cage labelled ``=``."""
        return [Glyph("cage", g, label="=") for g in self.groups]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``samevalues_k_g_d`` (``= 0``): group ``g`` holds digit ``d`` as often as group 1.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The rule's 1-based number among the puzzle's same-values rules: ``k`` in the labels.

        Returns
        -------
        list of Rows
            The one ``samevalues`` block, ``(G - 1) n`` rows.
        """
        n = board.n_values
        first = np.array(self.groups[0], dtype=np.int64)
        others = np.array(self.groups[1:], dtype=np.int64)           # (G - 1, k)
        g_count, k = others.shape
        m = g_count * n                                               # rows (g, d), digit fastest
        g, d = np.divmod(np.arange(m), n)
        cell = np.concatenate([np.broadcast_to(first, (m, k)), others[g]], axis=1)
        coef = np.concatenate([np.ones((m, k), dtype=np.int64), -np.ones((m, k), dtype=np.int64)], axis=1)
        return [Rows("samevalues", np.repeat(np.arange(m), 2 * k), cell.ravel(), np.repeat(d, 2 * k), coef.ravel(),
                     np.zeros(m, dtype=np.int64), "E", np.stack([np.full(m, index), g + 2, d + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The first group whose empty cells cannot make up the digits the other groups hold.

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
        values = [grid[np.array(g)] for g in self.groups]
        counts = np.array([np.bincount(v[v > 0], minlength=board.n_values + 1)[1:] for v in values])   # (G, N)
        empty = np.array([int((v == 0).sum()) for v in values])
        # every group ends with the same counts: group g still needs max_h counts[h] - counts[g] more
        need = (counts.max(axis=0)[None, :] - counts).sum(axis=1)
        bad = np.flatnonzero(need > empty)
        if not bad.size:
            return []
        g = int(bad[0])
        return [{"message": f"{self.describe(board)}: group {g + 1} ({cell_list_text(self.groups[g], board, shown=3)}) "
                            "cannot hold the digits the other groups hold", "cells": [int(c) for c in self.cells()]}]
