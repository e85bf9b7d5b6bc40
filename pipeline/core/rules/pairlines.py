"""Lines whose rule is about which digits may sit together: German whispers, renban and palindromes
(entropic and modular lines: :mod:`pipeline.core.rules.classlines`). All rows are exclusions over the cell/digit variables (``<= 1``) or
equalities of one digit's variables, so the CNF carries them as at-most-one constraints."""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.glyphs import Glyph
from pipeline.core.rules.base import (Board, Rows, Rule, cell_name, check_keys, digit_values, int_field, parse_cell,
                                      value_span)
from pipeline.core.rules.lineparts import line_cells, line_name, values_text
from pipeline.core.rules.rowblocks import distinct_rows, in_rule_order, pairs_within, ragged_positions, rows_by_owner

__all__ = ["Whisper", "Renban", "Palindrome", "exclusion_rows", "WHISPER_COLOUR", "RENBAN_COLOUR", "PALINDROME_COLOUR"]

# line colours as setters draw them (both renderers read them from the glyphs)
WHISPER_COLOUR = "#3cb043"      # German whispers: green
RENBAN_COLOUR = "#a35ed8"       # renban: purple
PALINDROME_COLOUR = "#9a9a9a"   # palindromes: grey


def exclusion_rows(family: str, a: np.ndarray, b: np.ndarray, forbid: np.ndarray, index: "int | np.ndarray",
                   number: "np.ndarray | None" = None) -> Rows:
    """``x[a_p, d] + sum_{e : forbid[d, e]} x[b_p, e] <= 1`` for every pair ``p`` and every digit
    ``d`` with a forbidden partner: cell ``a_p`` holding ``d`` rules out ``b_p``'s forbidden digits
    (the cell's own ``= 1`` row makes the sum over ``b_p`` at most 1, so the row is exact and
    covers every forbidden ``(d, e)`` of the pair in one row). Labels ``family_index_p_d``.

    Parameters
    ----------
    family : str
        The rows' family.
    a, b : ndarray of int
        The pairs' cells.
    forbid : ndarray of bool, shape (n, n)
        ``forbid[d, e]``: ``a`` holding ``d + 1`` and ``b`` holding ``e + 1`` break the rule.
    index : int or ndarray of int
        The rule's number among its kind, or each pair's rule (several rules' pairs at once).
    number : ndarray of int, optional
        Each pair's 1-based number in its rule (default: ``1 ..`` in order, one rule).

    Returns
    -------
    Rows
    """
    ds = np.flatnonzero(forbid.any(axis=1))
    pairs = a.size
    if not pairs or not ds.size:
        return Rows.empty(family, "L", 3)
    # one pair's rows: for each d in ds, the term (a, d) then (b, e) for its forbidden e
    sub = forbid[ds]
    per_row = 1 + sub.sum(axis=1)
    # each row's terms: its own digit on a (side 0), then b's forbidden digits in order (side 1);
    # built in one step (a Python loop per digit was most of a renban line's rows)
    side = np.ones(int(per_row.sum()), dtype=np.int64)
    side[np.cumsum(per_row) - per_row] = 0
    digit = np.empty(side.size, dtype=np.int64)
    digit[side == 0] = ds
    digit[side == 1] = np.nonzero(sub)[1]
    local_row = np.repeat(np.arange(ds.size), per_row)
    terms = side.size
    row = (np.repeat(np.arange(pairs) * ds.size, terms) + np.tile(local_row, pairs))
    ends = np.stack([a, b], axis=1)
    cell = ends[np.repeat(np.arange(pairs), terms), np.tile(side, pairs)]
    number = np.arange(1, pairs + 1) if number is None else number
    labels = np.stack([np.repeat(np.broadcast_to(index, (pairs,)), ds.size), np.repeat(number, ds.size),
                       np.tile(ds + 1, pairs)], axis=1)
    return Rows(family, row, cell, np.tile(digit, pairs), np.ones(row.size, dtype=np.int64),
                np.ones(pairs * ds.size, dtype=np.int64), "L", labels)


def walk_cells(data: dict, board: Board, where: str, at_least_cells: int) -> tuple[int, ...]:
    """The ``"cells"`` of a line whose rule is about neighbours along it, in order: a cell may come
    back (a loop, a line crossing itself: ISS reads such a line as its consecutive pairs), but
    never right after itself.

    Parameters
    ----------
    data : dict
        The entry.
    board : Board
        The puzzle's board.
    where : str
        How messages name the entry.
    at_least_cells : int
        Fewest cells the line takes.

    Returns
    -------
    tuple of int
    """
    value = data.get("cells")
    if not isinstance(value, (list, tuple)) or not value:
        raise PuzzleError(f"{where}: 'cells' must be a non-empty list of cells like \"r1c1\"")
    cells = np.array([parse_cell(v, board, where) for v in value], dtype=np.int64)
    if cells.size < at_least_cells:
        raise PuzzleError(f"{where}: needs at least {at_least_cells} cells, found {cells.size}")
    again = np.flatnonzero(cells[1:] == cells[:-1])
    if again.size:
        raise PuzzleError(f"{where}: the line steps from {cell_name(int(cells[again[0]]), board)} to itself "
                          f"(cells {again[0] + 1} and {again[0] + 2})")
    return tuple(int(c) for c in cells)


@dataclass(frozen=True, eq=False)
class Whisper(Rule):
    """A German whisper line: neighbours along the line differ by at least ``diff`` (by default
    ``(N + 1) // 2``: 5 on 9x9). The line may come back to a cell (a loop): each step is a pair.

    Rows ``whisper_w_i_d`` (``<= 1``): ``x[c_i, d] + sum_{|e - d| < diff} x[c_{i+1}, e]`` for step
    ``i`` and digit ``d``.
    """

    cell_list: tuple[int, ...]
    diff: int

    kind = "whisper"
    line_nonzeros = 0.8   # measured: 0.68-0.76 L N^2 at N = 16, 25, 36
    build_cost = 0.1
    families = ("whisper",)
    description = "German whisper: neighbours on the line differ by at least 'diff' (5 on 9x9)"
    noun = "German whisper"

    @staticmethod
    def default_diff(n: int) -> int:
        """The standard difference for ``n`` values (5 for 9; the board's ``n_values``, which a value
        set may make larger than the side)."""
        return (n + 1) // 2

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Whisper":
        """The line of ``{"rule": "whisper", "cells": [...], "diff": k}`` (``diff`` optional).

        Parameters
        ----------
        data : dict
            The document entry: at least 2 ``cells`` in line order (a cell may come back, as
            on a loop, but not right after itself) and an optional ``diff`` (``1..n-1``, default
            :meth:`default_diff`).
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (whisper)``).

        Returns
        -------
        Whisper
        """
        check_keys(data, {"cells", "diff"}, where)
        cells = walk_cells(data, board, where, 2)   # a cell may come back: the rule is on neighbours
        diff = int_field(data, "diff", where, low=1, high=int(np.ptp(board.value_of)),
                         default=cls.default_diff(board.n_values))
        return cls(cells, diff)

    def to_dict(self, board: Board) -> dict:
        out: dict[str, object] = {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}
        if self.diff != self.default_diff(board.n_values):
            out["diff"] = self.diff
        return out

    def describe(self, board: Board) -> str:
        extra = "" if self.diff == self.default_diff(board.n_values) else f" (difference {self.diff})"
        return line_name("whisper", self.cell_list, board) + extra

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def close(self, n: "int | np.ndarray") -> np.ndarray:
        """``(n, n)``: digits closer than ``diff``.

        Parameters
        ----------
        n : int or ndarray of int
            The number of digits, or the value of each digit.

        Returns
        -------
        ndarray of bool
        """
        d = digit_values(n)
        return np.abs(d[:, None] - d[None, :]) < self.diff

    def glyphs(self, board: Board) -> list[Glyph]:
        """A green line; a difference other than the standard one (Dutch whispers' 4 on 9x9) is
        written on the first cell (``≥4``): the line alone would read as German whispers."""
        out = [Glyph("line", self.cell_list, style="line", colour=WHISPER_COLOUR)]
        if self.diff != self.default_diff(board.n_values):
            out.append(Glyph("mark", self.cell_list[:1], style="text", label=f"\u2265{self.diff}"))
        return out

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``whisper_w_i_d`` (``<= 1``): step ``i``'s first cell holding ``d`` rules out its neighbour's close digits.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The line's 1-based number among the puzzle's whispers: ``w`` in the labels.

        Returns
        -------
        list of Rows
            The one ``whisper`` block.
        """
        cells = self.cells()
        return [exclusion_rows("whisper", cells[:-1], cells[1:], self.close(board.value_of), index)]

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every whisper's rows (:meth:`rows`), one block per run of whispers of one difference.

        Parameters
        ----------
        rules : list of Whisper
            The puzzle's whispers, in order.
        board : Board
            The puzzle's board.
        first_index : int
            The first whisper's 1-based number.

        Returns
        -------
        list of Rows
        """
        lines = cast("list[Whisper]", rules)
        blocks, start = [], 0
        while start < len(lines):
            stop = start + 1
            while stop < len(lines) and lines[stop].diff == lines[start].diff:
                stop += 1
            run = [np.asarray(line.cell_list, dtype=np.int64) for line in lines[start:stop]]
            rule_of, step = ragged_positions(np.array([cells.size - 1 for cells in run]))
            blocks.append(exclusion_rows("whisper", np.concatenate([cells[:-1] for cells in run]),
                                         np.concatenate([cells[1:] for cells in run]),
                                         lines[start].close(board.value_of), first_index + start + rule_of, step + 1))
            start = stop
        return blocks

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Neighbours on the line closer than ``diff``, or a digit with no digit ``1..n`` ``diff`` away.

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
        entries = grid[self.cells()]
        values = board.grid_values(entries)
        both = (entries[:-1] > 0) & (entries[1:] > 0) & (np.abs(values[:-1] - values[1:]) < self.diff)
        if both.any():
            i = int(np.argmax(both))
            shown = [self.cell_list[i], self.cell_list[i + 1]]
            return [{"message": f"{self.describe(board)}: {values_text(shown, grid, board)} differ by less than "
                                f"{self.diff}", "cells": shown}]
        least, most = int(board.value_of.min()), int(board.value_of.max())
        lonely = (entries > 0) & (values - self.diff < least) & (values + self.diff > most)
        if lonely.any():
            c = self.cell_list[int(np.argmax(lonely))]
            return [{"message": f"{self.describe(board)}: {values_text([c], grid, board)} has no digit {value_span(board)} "
                                f"{self.diff} or more away", "cells": [c]}]
        return []


@dataclass(frozen=True, eq=False)
class Renban(Rule):
    """A renban line: its digits are distinct and form a run of consecutive digits, in any order.

    Rows ``renban_r_d`` (``<= 1``): digit ``d`` at most once on line ``r`` (left out when the line
    lies inside one unit); ``renbanspan_r_p_d`` (``<= 1``): for the ``p``-th pair ``(c_i, c_j)``,
    ``i < j``, ``x[c_i, d] + sum_{|e - d| >= L} x[c_j, e]``. Distinct digits whose pairwise
    differences are all below ``L`` are ``L`` consecutive digits, so the rows are exact.
    """

    cell_list: tuple[int, ...]

    kind = "renban"
    build_cost = 0.1
    families = ("renban", "renbanspan")
    description = "renban line: distinct consecutive digits in any order"
    noun = "renban line"

    def estimated_nonzeros(self, board: Board) -> float:
        """The span rows: every pair of the line's ``L`` cells on every digit, ``1 + (V - L)(V - L + 1) / V``
        nonzeros a digit on average (the digits ``L`` or more apart): ``L (L - 1) / 2 (V + (V - L)(V - L + 1))``
        (exact at 16x16 and 36x36; 41,976 for 12 cells of a 36x36)."""
        n, length = board.n_values, len(self.cell_list)   # V with a value set: 400 values built 24 GB
        spread = max(n - length, 0)
        return length * (length - 1) / 2 * (n + spread * (spread + 1))

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Renban":
        """The line of ``{"rule": "renban", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: 2 to ``n`` ``cells``.
        board : Board
            The puzzle's board: the cells lie on it.
        where : str
            How messages name the entry (``rules[3] (renban)``).

        Returns
        -------
        Renban
        """
        check_keys(data, {"cells"}, where)
        cells = line_cells(data, board, where, 2)
        if len(cells) > board.n_values:
            raise PuzzleError(f"{where}: {line_name('renban', cells, board)} has {len(cells)} cells; distinct "
                              f"digits {value_span(board)} fill at most {board.n_values}")
        return cls(cells)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("renban", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="line", colour=RENBAN_COLOUR)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``renban_r_d`` (digit ``d`` at most once; none when one unit holds the line) and ``renbanspan_r_p_d``.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n``; its units tell whether ``renban`` rows are implied).
        index : int
            The line's 1-based number among the puzzle's renban lines: ``r`` in the labels.

        Returns
        -------
        list of Rows
            The ``renban`` block (may be empty) and the ``renbanspan`` block.
        """
        cells, n = self.cells(), board.n_values
        k = cells.size
        if board.share_a_unit(cells[None, :])[0]:
            distinct = Rows.empty("renban", "L", 2)
        else:
            row = np.repeat(np.arange(n), k)
            distinct = Rows("renban", row, np.tile(cells, n), row.copy(), np.ones(n * k, dtype=np.int64),
                            np.ones(n, dtype=np.int64), "L", np.stack([np.full(n, index), np.arange(1, n + 1)], axis=1))
        i, j = pairs_within(k)
        d = board.value_of
        far = np.abs(d[:, None] - d[None, :]) >= k
        return [distinct, exclusion_rows("renbanspan", cells[i], cells[j], far, index)]

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every line's rows (:meth:`rows`) built together, given line after line as :meth:`rows`
        gives them: the ``renban`` rows of all lines outside one unit in one step, the spans of
        each line length in one :func:`exclusion_rows` (a line at a time was most of a renban
        puzzle's reading).

        Parameters
        ----------
        rules : list of Renban
            The puzzle's renban lines, in order.
        board : Board
            The puzzle's board (``n``; its units tell whether ``renban`` rows are implied).
        first_index : int
            The first line's 1-based number among the puzzle's renban lines.

        Returns
        -------
        list of Rows
        """
        lines = cast("list[Renban]", rules)
        n, values = board.n_values, board.value_of
        size = np.array([len(line.cell_list) for line in lines], dtype=np.int64)
        cells = np.fromiter((c for line in lines for c in line.cell_list), dtype=np.int64, count=int(size.sum()))
        start = np.cumsum(size) - size
        # per line length at once: whether each line lies in one unit (share_a_unit takes groups of
        # one length), and renbanspan_r_p_d, its pairs too far apart (put back in line order below)
        shared = np.zeros(size.size, dtype=bool)
        spans, owners = [], []
        for k in np.flatnonzero(np.bincount(size)):
            of_k = np.flatnonzero(size == k)
            at = start[of_k][:, None]
            shared[of_k] = board.share_a_unit(cells[at + np.arange(k)[None, :]])
            i, j = pairs_within(int(k))
            far = np.abs(values[:, None] - values[None, :]) >= k
            block = exclusion_rows("renbanspan", cells[at + i[None, :]].ravel(), cells[at + j[None, :]].ravel(), far,
                                   np.repeat(of_k + first_index, i.size), np.tile(np.arange(1, i.size + 1), of_k.size))
            spans.append(block)
            owners.append(block.labels[:, 0] - first_index)
        # renban_r_d: per line outside one unit, digit d's row over its k cells (digits, then cells)
        apart = np.flatnonzero(~shared)
        distinct = distinct_rows("renban", cells, start, size, apart, n, first_index)
        span, span_owner = rows_by_owner(spans, owners)
        return in_rule_order([distinct, span], [np.repeat(apart, n), span_owner])

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A repeated digit on the line, or two digits too far apart for its length.

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
        values = grid[cells]
        at = np.flatnonzero(values > 0)
        filled = board.grid_values(values[at])
        name = self.describe(board)
        digits, counts = np.unique(values[at], return_counts=True)
        if (counts > 1).any():
            shown = cells[values == digits[np.argmax(counts > 1)]].tolist()
            return [{"message": f"{name}: {values_text(shown, grid, board)} repeat a digit", "cells": shown}]
        if filled.size and int(filled.max() - filled.min()) >= cells.size:
            shown = [int(cells[at[np.argmin(filled)]]), int(cells[at[np.argmax(filled)]])]
            return [{"message": f"{name}: {values_text(shown, grid, board)} are too far apart for "
                                f"{cells.size} consecutive digits", "cells": shown}]
        return []


@dataclass(frozen=True, eq=False)
class Palindrome(Rule):
    """A palindrome line: it reads the same from either end.

    Rows ``palindrome_p_i_d`` (``= 0``): ``x[c_i, d] - x[c_{L-1-i}, d]`` for pair ``i`` (from the
    ends in) and digit ``d``.
    """

    cell_list: tuple[int, ...]

    kind = "palindrome"
    families = ("palindrome",)
    description = "palindrome line: reads the same from either end"
    noun = "palindrome"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Palindrome":
        """The line of ``{"rule": "palindrome", "cells": [...]}``.

        Parameters
        ----------
        data : dict
            The document entry: at least 2 ``cells`` in line order.
        board : Board
            The puzzle's board: the cells lie on it, and no two mirrored cells share a unit.
        where : str
            How messages name the entry (``rules[3] (palindrome)``).

        Returns
        -------
        Palindrome
        """
        check_keys(data, {"cells"}, where)
        cells = line_cells(data, board, where, 2)
        half = len(cells) // 2
        pairs = np.stack([np.array(cells[:half]), np.array(cells[::-1][:half])], axis=1)
        clash = board.share_a_unit(pairs)
        if clash.any():
            a, b = (int(c) for c in pairs[int(np.argmax(clash))])
            raise PuzzleError(f"{where}: {line_name('palindrome', cells, board)}: {cell_name(a, board)} and "
                              f"{cell_name(b, board)} must hold one digit but share a unit")
        return cls(cells)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "cells": [cell_name(c, board) for c in self.cell_list]}

    def describe(self, board: Board) -> str:
        return line_name("palindrome", self.cell_list, board)

    def cells(self) -> np.ndarray:
        return np.array(self.cell_list, dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        return [Glyph("line", self.cell_list, style="line", colour=PALINDROME_COLOUR)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``palindrome_p_i_d`` (``= 0``): mirrored pair ``i`` holds digit ``d`` in both cells or neither.

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The line's 1-based number among the puzzle's palindromes: ``p`` in the labels.

        Returns
        -------
        list of Rows
            The one ``palindrome`` block.
        """
        cells, n = self.cells(), board.n_values
        half = cells.size // 2
        a, b = np.repeat(cells[:half], n), np.repeat(cells[::-1][:half], n)
        d = np.tile(np.arange(n), half)
        m = a.size
        return [Rows("palindrome", np.repeat(np.arange(m), 2), np.stack([a, b], axis=1).ravel(),
                     np.repeat(d, 2), np.tile(np.array([1, -1]), m), np.zeros(m, dtype=np.int64), "E",
                     np.stack([np.full(m, index), np.repeat(np.arange(1, half + 1), n), d + 1], axis=1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Two filled mirrored cells holding different digits.

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
        half = cells.size // 2
        a, b = grid[cells[:half]], grid[cells[::-1][:half]]
        bad = (a > 0) & (b > 0) & (a != b)
        if bad.any():
            i = int(np.argmax(bad))
            shown = [int(cells[i]), int(cells[-1 - i])]
            return [{"message": f"{self.describe(board)}: {values_text(shown, grid, board)} differ", "cells": shown}]
        return []
