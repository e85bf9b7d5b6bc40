"""Quadruples: digits written on a grid corner that the four cells around it must hold."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.parse import whole_number
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_list_text, cell_name, check_keys, parse_cells,
                                      value_words)

__all__ = ["Quadruple"]


@dataclass(frozen=True, eq=False)
class Quadruple(Rule):
    """The four cells of a 2x2 square hold the listed digits (a multiset: a digit listed twice is
    held twice): ``{"rule": "quadruple", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "digits": [1, 2]}``
    (ISS ``Quad``, which names the top-left cell).

    Rows ``quadruple_k_d`` (``<= -m``), one per distinct digit ``d`` listed ``m`` times:
    ``-sum_{c in the square} x[c, d]`` (the ``>= m`` row negated).
    """

    cell_list: tuple[int, ...]   # the square, row-major
    digits: tuple[int, ...]      # 1-based, ascending, repeats kept

    kind = "quadruple"
    families = ("quadruple",)
    description = "quadruple: the four cells around a corner hold the digits written there"
    noun = "quadruple"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Quadruple":
        """The clue of ``{"rule": "quadruple", "cells": [4 cells of a 2x2 square], "digits": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: the square's 4 ``cells`` (any order) and 1 to 4 ``digits``
            (repeats allowed where the square can hold them).
        board : Board
            The puzzle's board: the cells lie on it, the digits are ``1..n``; its units tell
            whether a digit may stand twice.
        where : str
            How messages name the entry (``rules[3] (quadruple)``).

        Returns
        -------
        Quadruple
        """
        check_keys(data, {"cells", "digits"}, where)
        cells = np.sort(parse_cells(data.get("cells"), board, where, at_least=1))   # fewer: the 2x2 message
        r, c = np.divmod(cells, board.cols)
        if cells.size != 4 or not (r[1] == r[0] and r[2] == r[3] == r[0] + 1 and c[2] == c[0] and c[1] == c[3] == c[0] + 1):
            raise PuzzleError(f"{where}: a quadruple takes the 4 cells of a 2x2 square, found "
                              f"{cell_list_text(cells, board)}")
        raw = data.get("digits")
        if not isinstance(raw, (list, tuple)) or not 1 <= len(raw) <= 4:
            raise PuzzleError(f"{where}: 'digits' must list 1 to 4 digits {value_words(board)}, found {clip(raw, 40)!r}")
        digits = []
        for value in raw:
            digit = whole_number(value)
            if digit is None or board.index_of([digit])[0] < 0:
                raise PuzzleError(f"{where}: 'digits' holds {clip(value)!r}, not a digit {value_words(board)}")
            digits.append(int(digit))
        most = 1 if board.share_a_unit(cells[None, :])[0] else 2   # a digit twice: on a diagonal, boxes apart
        again = next((d for d in digits if digits.count(d) > most), None)
        if again is not None:
            raise PuzzleError(f"{where}: digit {again} is listed {digits.count(again)} times; the square "
                              f"{cell_list_text(cells, board)} holds it at most {'once' if most == 1 else 'twice'}")
        return cls(tuple(int(x) for x in cells), tuple(sorted(digits)))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list], "digits": list(self.digits)}

    def describe(self, board: Board) -> str:
        return f"quadruple {','.join(map(str, self.digits))} at {cell_name(self.cell_list[0], board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """The digits in a circle on the square's middle corner, spaced (``1 6``, not a number
        sixteen), three or four in two rows (``1 1`` over ``2 2``)."""
        digits = [str(d) for d in self.digits]
        rows = [digits] if len(digits) <= 2 else [digits[:2], digits[2:]]
        return [Glyph("dot", self.cell_list, colour="white", label="\n".join(" ".join(row) for row in rows))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``quadruple_k_d`` (``<= -m``): the square holds digit ``d`` at least ``m`` times.

        Parameters
        ----------
        board : Board
            The puzzle's board (unused: the rows need only the square and its digits).
        index : int
            The clue's 1-based number among the puzzle's quadruples: ``k`` in the labels.

        Returns
        -------
        list of Rows
            The one ``quadruple`` block, a row per distinct digit.
        """
        values, counts = np.unique(np.array(self.digits, dtype=np.int64), return_counts=True)
        digits = board.index_of(values)   # the document lists values; 0-based digits (value - 1 by default)
        k = digits.size
        return [Rows("quadruple", np.repeat(np.arange(k), 4), np.tile(self.cells(), k), np.repeat(digits, 4),
                     -np.ones(4 * k, dtype=np.int64), -counts.astype(np.int64), "L",
                     np.stack([np.full(k, index), digits + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Listed digits still missing that no longer fit in the square's empty cells.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (used for the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        entries = grid[self.cells()]
        empty = int((entries == 0).sum())
        values = np.where(entries > 0, board.grid_values(entries), np.iinfo(np.int64).min)   # empty: no value
        digits, counts = np.unique(np.array(self.digits), return_counts=True)
        held = np.array([(values == d).sum() for d in digits.tolist()])
        missing = np.maximum(counts - held, 0)
        if missing.sum() > empty:   # what is still missing no longer fits in the empty cells
            lacking = [str(d) for d, m in zip(digits.tolist(), missing.tolist()) if m]
            return [{"message": f"{self.describe(board)}: the square lacks {', '.join(lacking)}"
                                + (f" with {empty} empty cell(s) left" if empty else ""), "cells": list(self.cell_list)}]
        return []
