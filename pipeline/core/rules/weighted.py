"""Sums without distinctness, with optional integer weights (ISS ``Sum``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import clip, PuzzleError, RuleCannotHoldError
from pipeline.core.parse import whole_number
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, int_field, parse_cells,
                                      value_span, value_terms)

__all__ = ["WeightedSum"]

#: Largest weight taken (ISS takes -100..100).
MAX_WEIGHT = 100


@dataclass(frozen=True, eq=False)
class WeightedSum(Rule):
    """``sum_i w_i v(c_i) = total`` over the listed cells, digits may repeat:
    ``{"rule": "sum", "sum": 10, "cells": ["r1c1", "r1c2", "r2c1"], "weights": [1, 2, -1]}``
    (``weights`` optional, 1 each by default; nonzero integers of at most 100 in size).

    Rows ``sum_k`` (``=``): the weighted sum of the cells' values.
    """

    cell_list: tuple[int, ...]
    total: int
    weights: tuple[int, ...]

    kind = "sum"
    families = ("sum",)
    description = "sum: the (weighted) digits of the cells add up to the total, repeats allowed"
    noun = "sum"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "WeightedSum":
        """The sum of ``{"rule": "sum", "sum": total, "cells": [...], "weights": [...]}`` (``weights`` optional).

        Parameters
        ----------
        data : dict
            The document entry: ``cells``, their ``sum`` and optional ``weights`` (one nonzero
            integer per cell, at most 100 in size).
        board : Board
            The puzzle's board: the cells lie on it; its digits must be able to make the sum.
        where : str
            How messages name the entry (``rules[3] (sum)``).

        Returns
        -------
        WeightedSum
        """
        check_keys(data, {"cells", "sum", "weights"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        total = int_field(data, "sum", where)
        raw = data.get("weights")
        if raw is None:
            weights = [1] * cells.size
        else:
            if not isinstance(raw, (list, tuple)) or len(raw) != cells.size:
                raise PuzzleError(f"{where}: 'weights' must list one integer per cell ({cells.size}), "
                                  f"found {clip(raw, 40)!r}")
            weights = []
            for value in raw:
                weight = whole_number(value)
                if weight is None or weight == 0 or abs(weight) > MAX_WEIGHT:
                    raise PuzzleError(f"{where}: weight {clip(value)!r} is not a nonzero integer from "
                                      f"-{MAX_WEIGHT} to {MAX_WEIGHT}")
                weights.append(int(weight))
        w = np.array(weights, dtype=np.int64)
        least, most = int(board.value_of.min()), int(board.value_of.max())
        low = int(np.minimum(w * least, w * most).sum())
        high = int(np.maximum(w * least, w * most).sum())
        if not low <= total <= high:
            # a rule no grid keeps: an anyof branch holding it is false (ISS's Or), alone it is refused
            raise RuleCannotHoldError(f"{where}: sum {total} cannot be made by digits {value_span(board)} in these cells "
                              f"(possible: {low}..{high})")
        return cls(tuple(int(c) for c in cells), total, tuple(weights))

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "sum": self.total, "cells": [cell_name(c, board) for c in self.cell_list]}
        if any(w != 1 for w in self.weights):
            out["weights"] = list(self.weights)
        return out

    def describe(self, board: Board) -> str:
        weighted = "" if all(w == 1 for w in self.weights) else " weighted"
        return f"sum{weighted} {cells_text(self.cell_list, board)} = {self.total}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A cage labelled with a sigma and the total (weights other than 1 are written in their cells)."""
        out = [Glyph("cage", self.cell_list, label=f"\u03a3{self.total}")]
        if any(w != 1 for w in self.weights):
            out += [Glyph("mark", (c,), style="text", label=f"\u00d7{w}") for c, w in zip(self.cell_list, self.weights)]
        return out

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``sum_k`` (``=``): the weighted values of the cells add up to the total.

        Parameters
        ----------
        board : Board
            The puzzle's board (its digits).
        index : int
            The rule's 1-based number among the puzzle's sums: ``k`` in the label.

        Returns
        -------
        list of Rows
            The one ``sum`` block, one row.
        """
        cells = self.cells()
        row, cell, digit, coef = value_terms(cells[None, :], np.array(self.weights, dtype=np.int64)[None, :], board)
        return [Rows("sum", row, cell, digit, coef, np.array([self.total]), "E", np.array([[index]]))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """The weighted sum off the total, or out of reach with the empty cells' digits.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its digits' values, for the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        values = grid[self.cells()]
        w = np.array(self.weights, dtype=np.int64)
        have = values > 0
        total = int((w[have] * board.grid_values(values[have])).sum())
        rest = w[~have]
        least, most = int(board.value_of.min()), int(board.value_of.max())
        low = total + int(np.minimum(rest * least, rest * most).sum())
        high = total + int(np.maximum(rest * least, rest * most).sum())
        if low <= self.total <= high:
            return []
        if have.all():
            how = f"comes to {total}"
        else:
            how = f"can only come to {low}..{high} with the digits given"
        return [{"message": f"{self.describe(board)}: {how}", "cells": list(self.cell_list)}]
