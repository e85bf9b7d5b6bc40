"""Marks on the edge between orthogonal neighbours that add up (XV) and the "every mark is given"
rules: strict XV (unmarked neighbours add up to neither 5 nor 10) and strict Kropki (unmarked
neighbours are neither consecutive nor one double the other).

The strict rules are global (``{"rule": "strictxv"}``, ``{"rule": "strictkropki"}``); the pairs
they exempt are the puzzle's own marks (``xv`` entries, ``kropki`` dots), which a puzzle hands them
with :meth:`~pipeline.core.rules.base.Rule.bind` when it is built.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.base import (Board, Glyph, Rows, Rule, adjacent, cell_name, check_keys, parse_cells,
                                      digit_values, value_span)
from pipeline.core.rules.rowblocks import distinct_small_ints, in_rule_order, pair_rows, ragged_positions

__all__ = ["XV", "StrictXV", "StrictKropki", "forbidden_pair_rows", "LETTERS"]

#: The letter of a mark -> the sum of its two digits.
LETTERS = {"x": 10, "v": 5}


def forbidden_pair_rows(family: str, pairs: np.ndarray, shared: np.ndarray, table: np.ndarray,
                        numbers: np.ndarray) -> list[Rows]:
    """Rows forbidding ``(d, e)`` on every pair ``(a, b)`` wherever ``table[d, e]`` (symmetric).

    Pairs whose cells share a unit never hold one digit twice, so one clique row per unordered
    digit pair ``d < e`` forbids both orders: ``x[a,d] + x[a,e] + x[b,d] + x[b,e] <= 1``
    (family ``family``, labels ``p, d, e``). Pairs sharing no unit (between the grids of a layout)
    get one pair row ``x[a,d] + x[b,e] <= 1`` per ordered ``(d, e)``, ``d = e`` included (family
    ``family + "pair"``, labels ``p, d, e``). ``p`` is the pair's number in ``numbers``.

    Parameters
    ----------
    family : str
        The clique rows' family.
    pairs : ndarray of int, shape (P, 2)
        Cells of each pair.
    shared : ndarray of bool, shape (P,)
        Whether each pair's cells share a unit.
    table : ndarray of bool, shape (N, N)
        Forbidden 0-based digit pairs (symmetric).
    numbers : ndarray of int, shape (P,)
        Each pair's number in the labels.

    Returns
    -------
    list of Rows
        The clique rows, then the pair rows.
    """
    d_up, e_up = np.nonzero(np.triu(table, 1))
    clique = np.flatnonzero(shared)
    # pair slowest, digit pair fastest: repeats and tiles, no division per row (2.9 M rows at 100x100)
    k, count = d_up.size, clique.size * d_up.size
    cell = np.empty((clique.size, k, 4), dtype=np.int64)
    cell[:, :, :2] = pairs[clique, 0][:, None, None]
    cell[:, :, 2:] = pairs[clique, 1][:, None, None]
    digit = np.broadcast_to(np.stack([d_up, e_up, d_up, e_up], axis=1).astype(np.int64), (clique.size, k, 4))
    labels = np.empty((clique.size, k, 3), dtype=np.int64)
    labels[:, :, 0] = numbers[clique][:, None]
    labels[:, :, 1], labels[:, :, 2] = d_up + 1, e_up + 1
    main = Rows(family, np.repeat(np.arange(count), 4), cell.ravel(), digit.ravel(), np.ones(4 * count, dtype=np.int64),
                np.ones(count, dtype=np.int64), "L", labels.reshape(count, 3))
    d_all, e_all = np.nonzero(table)
    loose = np.flatnonzero(~shared)
    p2, k2 = np.divmod(np.arange(loose.size * d_all.size), max(d_all.size, 1))
    extra = pair_rows(family + "pair", pairs[loose[p2], 0], pairs[loose[p2], 1], d_all[k2], e_all[k2],
                      np.stack([numbers[loose[p2]], d_all[k2] + 1, e_all[k2] + 1], axis=1))
    return [main, extra]


def _pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True, eq=False)
class XV(Rule):
    """An X (the two digits add up to 10) or a V (to 5) between two orthogonal neighbours:
    ``{"rule": "xv", "letter": "x", "cells": ["r1c1", "r1c2"]}``.

    Rows ``xv_k_d`` (``= 0``): ``x[a, d] - x[b, S - d]`` for each digit ``d`` of the first cell
    ``a`` whose partner ``S - d`` is a digit (``a`` holds ``d`` exactly when ``b`` holds ``S - d``;
    a mark whose cells share a unit and ``d = S - d`` then rules both out). Rows ``xvnot_k_s``
    (``<= 0``): the sum of cell ``s``'s variables (1: ``a``, 2: ``b``) of the digits without a
    partner (left out when every digit has one).
    """

    letter: str
    first: int
    second: int

    kind = "xv"
    families = ("xv", "xvnot")
    description = "XV: an X joins neighbours adding up to 10, a V neighbours adding up to 5"
    noun = "XV mark"

    @property
    def total(self) -> int:
        return LETTERS[self.letter]

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "XV":
        """The mark of ``{"rule": "xv", "letter": "x"|"v", "cells": [a, b]}``.

        Parameters
        ----------
        data : dict
            The document entry: the ``letter`` (any case) and two orthogonally adjacent ``cells``.
        board : Board
            The puzzle's board: the cells lie on it; two of its digits must make the letter's sum.
        where : str
            How messages name the entry (``rules[3] (xv)``).

        Returns
        -------
        XV
        """
        check_keys(data, {"cells", "letter"}, where)
        letter = data.get("letter")
        if not isinstance(letter, str) or letter.lower() not in LETTERS:
            raise PuzzleError(f"{where}: 'letter' must be x (sum 10) or v (sum 5), found {clip(letter)!r}")
        letter = letter.lower()
        cells = parse_cells(data.get("cells"), board, where, at_least=2)
        if cells.size != 2:
            raise PuzzleError(f"{where}: an {letter.upper()} joins 2 cells, found {cells.size}")
        a, b = int(cells[0]), int(cells[1])
        if not adjacent(a, b, board):
            raise PuzzleError(f"{where}: {letter.upper()} joins {cell_name(a, board)} and {cell_name(b, board)}, "
                              "which are not orthogonal neighbours")
        total = LETTERS[letter]
        if not (board.index_of(total - board.value_of) >= 0).any():
            raise PuzzleError(f"{where}: no two digits {value_span(board)} add up to {total} (an {letter.upper()})")
        return cls(letter, a, b)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "letter": self.letter, "cells": [cell_name(self.first, board), cell_name(self.second, board)]}

    def describe(self, board: Board) -> str:
        return f"{self.letter.upper()} {cell_name(self.first, board)}-{cell_name(self.second, board)}"

    def cells(self) -> np.ndarray:
        return np.array([self.first, self.second], dtype=np.int64)

    def glyphs(self, board: Board) -> list[Glyph]:
        """The letter on the shared edge."""
        return [Glyph("dot", (self.first, self.second), colour="white", label=self.letter.upper())]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """``xv_k_d`` (``= 0``): ``a`` holds ``d`` exactly when ``b`` holds its partner; ``xvnot_k_s``
        (``<= 0``): cell ``s`` holds no digit without a partner.

        Parameters
        ----------
        board : Board
            The puzzle's board (its digits, which say each digit's partner).
        index : int
            The mark's 1-based number among the puzzle's XV marks: ``k`` in the labels.

        Returns
        -------
        list of Rows
            The ``xv`` block and the ``xvnot`` block (empty when every digit has a partner).
        """
        total = self.total
        partner = board.index_of(total - board.value_of)   # the digit that tops each digit up, -1: none
        has = partner >= 0
        dd = np.flatnonzero(has)
        m = dd.size
        eq = Rows("xv", np.repeat(np.arange(m), 2), np.tile([self.first, self.second], m),
                  np.stack([dd, partner[has]], axis=1).ravel(), np.tile([1, -1], m), np.zeros(m, dtype=np.int64),
                  "E", np.stack([np.full(m, index), dd + 1], axis=1))
        lone = np.flatnonzero(~has)
        if lone.size:
            k = lone.size
            ineq = Rows("xvnot", np.repeat([0, 1], k), np.repeat([self.first, self.second], k), np.tile(lone, 2),
                        np.ones(2 * k, dtype=np.int64), np.zeros(2, dtype=np.int64), "L", np.array([[index, 1], [index, 2]]))
        else:
            ineq = Rows.empty("xvnot", "L", 2)
        return [eq, ineq]

    @classmethod
    def rows_of(cls, rules: "list[Rule]", board: Board, first_index: int = 1) -> list[Rows]:
        """Every mark's rows (:meth:`rows`) at once: the ``xv`` rows of all marks, the ``xvnot``
        rows of those with lone digits, cut back into mark order.

        Parameters
        ----------
        rules : list of XV
            The puzzle's XV marks, in order.
        board : Board
            The puzzle's board.
        first_index : int
            The first mark's 1-based number.

        Returns
        -------
        list of Rows
        """
        marks = cast("list[XV]", rules)
        n = board.n_values
        first = np.array([mark.first for mark in marks], dtype=np.int64)
        second = np.array([mark.second for mark in marks], dtype=np.int64)
        marked = np.array([mark.total for mark in marks], dtype=np.int64)
        totals = distinct_small_ints(marked)   # not np.unique: it imports numpy.ma (7 ms of a solve)
        kind = np.searchsorted(totals, marked)
        partner = np.stack([board.index_of(total - board.value_of) for total in totals.tolist()])   # (totals, n)
        has = partner >= 0
        # each total's digits with a partner, then its lone ones, padded to n
        order = np.argsort(~has, axis=1, kind="stable")
        paired_count = has.sum(axis=1)[kind.ravel()]
        mark, within = ragged_positions(paired_count)
        digit = order[kind.ravel()[mark], within]
        m = mark.size
        eq = Rows("xv", np.repeat(np.arange(m), 2), np.stack([first[mark], second[mark]], axis=1).ravel(),
                  np.stack([digit, partner[kind.ravel()[mark], digit]], axis=1).ravel(), np.tile([1, -1], m),
                  np.zeros(m, dtype=np.int64), "E", np.stack([first_index + mark, digit + 1], axis=1))
        lone_count = n - paired_count
        lonely = np.flatnonzero(lone_count)
        side_row, within = ragged_positions(np.repeat(lone_count[lonely], 2))
        owner = lonely[side_row // 2]
        side = side_row % 2
        lone_digit = order[kind.ravel()[owner], paired_count[owner] + within]
        ineq = Rows("xvnot", side_row, np.where(side == 0, first[owner], second[owner]), lone_digit,
                    np.ones(side_row.size, dtype=np.int64), np.zeros(2 * lonely.size, dtype=np.int64), "L",
                    np.stack([first_index + np.repeat(lonely, 2), np.tile([1, 2], lonely.size)], axis=1))
        return in_rule_order([eq, ineq], [mark, np.repeat(lonely, 2)])

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Both cells filled off the letter's sum, or one holding a digit that no digit tops up to it.

        Parameters
        ----------
        grid : ndarray of int, shape (rows * cols,)
            The flat canvas, 0 = empty.
        board : Board
            The puzzle's board (its digits' values, cell names in the message).

        Returns
        -------
        list of dict
            At most one ``{"message", "cells"}`` entry (the first break found).
        """
        a, b = int(grid[self.first]), int(grid[self.second])
        va, vb = board.value(a), board.value(b)
        if a and b and va + vb != self.total:
            return [{"message": f"{self.describe(board)}: {va} + {vb} is not {self.total}", "cells": [self.first, self.second]}]
        for cell, held, value in ((self.first, a, va), (self.second, b, vb)):
            if held and board.index_of([self.total - value])[0] < 0:
                return [{"message": f"{self.describe(board)}: {cell_name(cell, board)} holds {value}, which no digit "
                                    f"{value_span(board)} tops up to {self.total}", "cells": [cell]}]
        return []


@dataclass(frozen=True, eq=False)
class _Strict(Rule):
    """Orthogonal neighbours without a mark of ``marks_kind`` may not hold a forbidden pair."""

    marked: tuple[tuple[int, int], ...] | None = None   # the puzzle's marks (bind), a < b

    global_rule = True
    marks_kind = ""

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str):
        check_keys(data, set(), where)
        return cls()

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind}

    def bind(self, rules) -> "_Strict":
        marked = sorted({_pair_key(int(r.cells()[0]), int(r.cells()[1])) for r in rules if r.kind == self.marks_kind})
        return replace(self, marked=tuple(marked))

    def bound_text(self, board: Board) -> str:
        """The pairs the puzzle's marks exempt, named (the first six): ``the 2 pairs with a dot
        exempt: r3c3-r3c4, r4c1-r4c2``; ``""`` when the puzzle has no mark."""
        if not self.marked:
            return ""
        names = [f"{cell_name(a, board)}-{cell_name(b, board)}" for a, b in self.marked[:6]]
        more = ", ..." if len(self.marked) > 6 else ""
        count = len(self.marked)
        which = f"the pair with a {self.mark_word}" if count == 1 else f"the {count} pairs with {self.mark_word}s"
        return f"{which} exempt: {', '.join(names)}{more}"

    @staticmethod
    def forbidden(n: "int | np.ndarray") -> np.ndarray:  # pragma: no cover - abstract
        """``(n, n)`` bool: 0-based digit pairs unmarked neighbours may not hold (``n``: the number
        of digits, values ``1..n``, or the value of each digit)."""
        raise NotImplementedError

    def numbered_pairs(self, board: Board) -> tuple[np.ndarray, np.ndarray]:
        """Orthogonal neighbours without a mark, ``(P, 2)`` sorted, and their 1-based numbers
        among all orthogonal pairs (labels do not move when a mark is added)."""
        pairs = board.orthogonal_pairs()
        numbers = np.arange(1, pairs.shape[0] + 1)
        if not self.marked or not pairs.size:
            return pairs, numbers
        marked = np.array(self.marked, dtype=np.int64)
        key = pairs[:, 0] * board.n_cells + pairs[:, 1]
        free = ~np.isin(key, marked[:, 0] * board.n_cells + marked[:, 1])
        return pairs[free], numbers[free]

    def pairs(self, board: Board) -> np.ndarray:
        """Orthogonal neighbours without a mark, ``(P, 2)`` sorted."""
        return self.numbered_pairs(board)[0]

    def rows(self, board: Board, index: int) -> list[Rows]:
        pairs, numbers = self.numbered_pairs(board)
        shared = board.share_a_unit(pairs) if pairs.size else np.zeros(0, dtype=bool)
        return forbidden_pair_rows(self.kind, pairs, shared, self.forbidden(board.value_of), numbers)

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        pairs = self.pairs(board)
        a, b = grid[pairs[:, 0]], grid[pairs[:, 1]]
        table = self.forbidden(board.value_of)
        filled = (a > 0) & (b > 0)
        bad = np.zeros(a.size, dtype=bool)
        bad[filled] = table[a[filled] - 1, b[filled] - 1]
        return [{"message": f"{cell_name(x, board)} and {cell_name(y, board)} hold {board.value(grid[x])} and "
                            f"{board.value(grid[y])} {self.why} "
                            f"but no {self.mark_word} joins them ({self.kind})", "cells": [int(x), int(y)]}
                for x, y in pairs[bad].tolist()]

    why = ""
    mark_word = ""


@dataclass(frozen=True, eq=False)
class StrictXV(_Strict):
    """Every X and V is given: orthogonal neighbours without an ``xv`` mark add up to neither 5 nor
    10 (ISS ``StrictXV``).

    Rows ``strictxv_p_d_e`` (``<= 1``): for unmarked pair ``p`` (numbered among all orthogonal
    pairs, sorted as for non-consecutive: the marked ones leave gaps) and digits ``d < e`` with
    ``d + e`` 5 or 10, ``x[a,d] + x[a,e] + x[b,d] + x[b,e]``; pairs that share no unit (between the
    grids of a layout) get ``strictxvpair_p_d_e`` rows ``x[a,d] + x[b,e]`` per ordered pair instead
    (``5 + 5`` included).
    """

    kind = "strictxv"
    marks_kind = "xv"
    families = ("strictxv", "strictxvpair")
    description = "strict XV: neighbours without an X or V add up to neither 10 nor 5"
    noun = "strict XV"
    nonzeros_per_variable = 1.3   # measured: 1.3 at N = 36, 0.74 at 64
    why = "(adding up to 5 or 10)"
    mark_word = "X or V"

    @staticmethod
    def forbidden(n: "int | np.ndarray") -> np.ndarray:
        d = digit_values(n)
        s = d[:, None] + d[None, :]
        return (s == 5) | (s == 10)


@dataclass(frozen=True, eq=False)
class StrictKropki(_Strict):
    """Every Kropki dot is given: orthogonal neighbours without a ``kropki`` dot are neither
    consecutive nor one double the other (ISS ``StrictKropki``; the standard 1 and 2, whatever
    values the given dots have). With ``"color": "white"`` only the white dots are all given
    (unmarked neighbours are not consecutive: f-puzzles' non-consecutive beside dots, or its
    negative difference constraint), with ``"black"`` only the black ones (f-puzzles' negative
    ratio constraint); a dot of either colour exempts its pair.

    Rows ``strictkropki_p_d_e`` and ``strictkropkipair_p_d_e`` as for strict XV, over the digit
    pairs ``|d - e| = 1`` or ``d = 2e`` or ``e = 2d`` (only the first with ``white``, only the
    others with ``black``).
    """

    color: str | None = None   # None: every dot is given; "white" or "black": those of that colour

    kind = "strictkropki"
    marks_kind = "kropki"
    families = ("strictkropki", "strictkropkipair")
    description = "strict Kropki: neighbours without a dot are neither consecutive nor double"
    noun = "strict Kropki"
    nonzeros_per_variable = 11.6   # measured: 11.2 at N = 36, 11.6 at 64
    mark_word = "dot"

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "StrictKropki":
        """``{"rule": "strictkropki"}``, or with ``"color": "white"`` or ``"black"`` (only the dots of
        that colour are all given).

        Parameters
        ----------
        data : dict
            The document entry.
        board : Board
            The puzzle's board.
        where : str
            How messages name the entry.

        Returns
        -------
        StrictKropki
        """
        check_keys(data, {"color"}, where)
        color = data.get("color")
        if color is not None and color not in ("white", "black"):
            raise PuzzleError(f"{where}: 'color' must be white or black (or left out: every dot), found {clip(color)!r}")
        return cls(color=color)

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind} if self.color is None else {"rule": self.kind, "color": self.color}

    @classmethod
    def title(cls, rules: list) -> str:
        color = getattr(rules[0], "color", None) if rules else None
        return cls.noun if color is None else f"{cls.noun} ({color} dots)"

    @property
    def why(self) -> str:   # type: ignore[override]
        return {None: "(consecutive or double)", "white": "(consecutive)", "black": "(one double the other)"}[self.color]

    def forbidden(self, n: "int | np.ndarray") -> np.ndarray:   # type: ignore[override]
        d = digit_values(n)
        a, b = d[:, None], d[None, :]
        consecutive = np.abs(a - b) == 1
        double = (a == 2 * b) | (b == 2 * a)
        return {None: consecutive | double, "white": consecutive, "black": double}[self.color]
