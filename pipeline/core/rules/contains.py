"""Cells that hold listed values exactly, or at least, as often as listed (ISS ``ContainExact``,
``ContainAtLeast``).

ISS's ``ContainExact~v_v_v~cells`` is its ``RequiredValues`` handler, strict: each listed value
is in the cells exactly as many times as it is listed, and values the list does not name are
free (with as many values as cells, the cells hold the list and nothing else).
``ContainAtLeast~v_v~cells`` is the same handler, not strict: each listed value at least as many
times as it is listed (:class:`ContainAtLeast`; over a 2x2 square ISS's reader makes it a
:class:`~pipeline.core.rules.quadruple.Quadruple`, which means the same).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.parse import whole_number
from pipeline.core.rules.base import Board, Glyph, Rows, Rule, cell_name, cells_text, check_keys, parse_cells, value_span

__all__ = ["ContainExact", "ContainAtLeast"]

#: Most values one entry may list.
MAX_VALUES = 4096
#: Longest cage label (sign and values, ``=1,2``) drawn on the cage; a longer list is said once in
#: the picture's caption (:meth:`ContainExact.legend`) and the cage labelled with the tag alone:
#: ISS's "250!" has 27 regions (every row, column and box) of 0,0,0,2,2,2,5,5,5, whose labels
#: ran over each other and past the grid.
LABEL_CHARS = 5


@dataclass(frozen=True, eq=False)
class ContainExact(Rule):
    """Each listed value is in the cells exactly as often as it is listed; other values are free:
    ``{"rule": "containexact", "cells": [...], "values": [0, 0, 2]}`` (two 0s and one 2; ISS
    ``ContainExact~0_0_2~cells``).

    Rows ``containexact_k_d`` (``= m``), one per distinct value (digit ``d``) listed ``m`` times:
    ``sum_c x[c, d]``.
    """

    cell_list: tuple[int, ...]
    values: tuple[int, ...]   # the board's values, ascending, repeats kept

    kind = "containexact"
    families = ("containexact",)
    description = "contain exactly: each listed value is in the cells exactly as often as listed"
    noun = "exact-contents region"
    #: How often each listed value is held, as :meth:`describe` says it.
    how: ClassVar[str] = "exactly"
    #: The sign before the values on the cage (``=0,2``).
    sign: ClassVar[str] = "="
    #: The cage's label when the values go to the caption (:data:`LABEL_CHARS`).
    tag: ClassVar[str] = "≡"
    #: The rows' sign: ``1`` for ``sum = m`` (exactly), ``-1`` for ``-sum <= -m`` (at least: the
    #: model has no ``>=`` rows); the one difference between the two kinds' rows.
    row_sign: ClassVar[int] = 1
    numbered_glyphs = True   # long lists: ≡1 and ≡2 cages, each list said once in the caption

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "ContainExact":
        """The rule of ``{"rule": "containexact", "cells": [...], "values": [...]}`` (or
        ``containatleast``).

        Parameters
        ----------
        data : dict
            The document entry: ``cells`` and ``values`` (a non-empty list of the board's
            values, repeats counted, no more than there are cells).
        board : Board
            The puzzle's board: the cells lie on it, the values are its values.
        where : str
            How messages name the entry (``rules[3] (containexact)``).

        Returns
        -------
        ContainExact
            Or :class:`ContainAtLeast`, as ``cls`` is.
        """
        check_keys(data, {"cells", "values"}, where)
        cells = parse_cells(data.get("cells"), board, where)
        raw = data.get("values")
        if not isinstance(raw, (list, tuple)) or not 1 <= len(raw) <= MAX_VALUES:
            raise PuzzleError(f"{where}: 'values' must be a non-empty list of values {value_span(board)}, "
                              f"found {clip(raw, 40)!r}")
        values = []
        for value in raw:
            number = whole_number(value)
            if number is None or board.index_of([number])[0] < 0:
                raise PuzzleError(f"{where}: 'values' holds {clip(value)!r}, not one of {value_span(board)}")
            values.append(int(number))
        if len(values) > cells.size:
            raise PuzzleError(f"{where}: lists {len(values)} values for {cells.size} cells")
        return cls(tuple(int(c) for c in cells), tuple(sorted(values)))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list], "values": list(self.values)}

    def describe(self, board: Board) -> str:
        return f"contain {self.how} {','.join(map(str, self.values))} {cells_text(self.cell_list, board)}"

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """A cage labelled ``=`` (``≥`` at least) and the values (ISS's label, commas between them);
        past :data:`LABEL_CHARS` characters the tag alone (``≡``, ``≥``), the caption's
        :meth:`legend` saying the values."""
        return [Glyph("cage", self.cell_list, label=self.tag if self.number_key() else self._label())]

    def _label(self) -> str:
        return self.sign + ",".join(map(str, self.values))

    def number_key(self) -> object:
        """The values when the cage is labelled with the tag (rules listing the same values share
        a number); None when the cage shows its values."""
        return self.values if len(self._label()) > LABEL_CHARS else None

    def legend(self, board: Board) -> str:
        """What a tagged cage asks (``exactly 0,0,0,2,2,2,5,5,5``), said once in the caption for
        the rules that list the same values; ``""`` when the cage shows its values."""
        return f"{self.how} {','.join(map(str, self.values))}" if self.number_key() else ""

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``<kind>_k_d``, a row per distinct listed value (digit ``d``, listed ``m`` times):
        ``row_sign * sum_c x[c, d]`` against ``row_sign * m``, ``=`` (exactly) or ``<=`` (at least:
        ``>= m`` negated), as :attr:`row_sign` is.

        Parameters
        ----------
        board : Board
            The puzzle's board (its values).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k``.

        Returns
        -------
        list of Rows
            The one block of the rule's family, a row per distinct value.
        """
        sign = self.row_sign
        values, counts = np.unique(np.array(self.values, dtype=np.int64), return_counts=True)
        digits = board.index_of(values)
        cells = self.cells()
        k, m = cells.size, digits.size
        return [Rows(self.families[0], np.repeat(np.arange(m), k), np.tile(cells, m), np.repeat(digits, k),
                     np.full(m * k, sign, dtype=np.int64), sign * counts.astype(np.int64), "E" if sign > 0 else "L",
                     np.stack([np.full(m, index), digits + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A listed value held more often than listed (exactly only), or too few empty cells left
        for the listed values still missing.

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
        entries = grid[self.cells()]
        held_values = board.grid_values(entries)[entries > 0]
        empty = int((entries == 0).sum())
        values, counts = np.unique(np.array(self.values, dtype=np.int64), return_counts=True)
        held = (held_values[None, :] == values[:, None]).sum(axis=1)
        over = np.flatnonzero(held > counts) if self.how == "exactly" else np.zeros(0, dtype=np.int64)
        if over.size:
            v = int(values[over[0]])
            return [{"message": f"{self.describe(board)}: holds {v} {int(held[over[0]])} time(s), listed "
                                f"{int(counts[over[0]])}", "cells": list(self.cell_list)}]
        missing = np.maximum(counts - held, 0)   # at least: a value held more often lacks nothing
        if missing.sum() > empty:
            lacking = ", ".join(str(int(v)) for v in values[missing > 0])
            return [{"message": f"{self.describe(board)}: lacks {lacking}"
                                + (f" with {empty} empty cell(s) left" if empty else ""), "cells": list(self.cell_list)}]
        return []


@dataclass(frozen=True, eq=False)
class ContainAtLeast(ContainExact):
    """Each listed value is in the cells at least as often as it is listed; other values are free:
    ``{"rule": "containatleast", "cells": [...], "values": [1, 1, 3]}`` (two 1s or more and a 3
    or more; ISS ``ContainAtLeast~1_1_3~cells``, its non-strict ``RequiredValues``).

    Rows ``containatleast_k_d`` (``<= -m``: ``>= m`` negated), one per distinct value (digit
    ``d``) listed ``m`` times: ``-sum_c x[c, d]``.
    """

    kind = "containatleast"
    families = ("containatleast",)
    description = "contain at least: each listed value is in the cells at least as often as listed"
    noun = "at-least-contents region"
    how = "at least"
    sign = "≥"
    tag = "≥"
    row_sign = -1
