"""Full rank (ISS ``FullRank``): every row read left-to-right and right-to-left and every column
read top-to-bottom and bottom-to-top is an ``N``-digit number; the ``4N`` numbers are ranked
from the lowest (1); a clue beside a row or column gives the rank of the number read from it.

``{"rule": "fullrank", "clue": "r0c3", "rank": 12}``. The rank is one more than the number of
the other ``4N - 1`` lines that read strictly lower. Ties follow the global rule
``{"rule": "fullrankties", "ties": ...}`` (ISS ``FullRankTies``; a clue binds to it): ``unclued``
(the default without that rule, ISS ``only-unclued``): no other line reads the same as a clued
one; ``any``: it may (tied lines share a rank, the next rank is skipped); ``none``: as
``unclued``, and no two of the ``4N`` lines read alike at all.

The rows compare the clued line ``A = (a_0 .. a_{N-1})`` with every other line ``B`` by digit
index ``D(c) = sum_d d x[c, d]`` (``d`` 0-based: values ascend with the digit, so the order is the
values' order) through auxiliary columns (docs/conventions.md, "Auxiliary columns"), exact over
0-1 points: see :class:`FullRank`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import Board, Glyph, Rows, Rule, check_keys, int_field
from pipeline.core.rules.outside import OutsideLine, outside_line

__all__ = ["FullRank", "FullRankTies", "rank_lines", "TIES"]

#: The tie modes (ISS ``FullRankTies`` ``only-unclued``, ``any`` and ``none``).
TIES = ("unclued", "any", "none")


def rank_lines(board: Board, where: str = "fullrank") -> np.ndarray:
    """The ``4N`` lines of the grid in ISS's order: row 1 left-to-right, row 1 right-to-left, row 2
    ..., then column 1 top-to-bottom, column 1 bottom-to-top, ... (``(4N, N)`` canvas cells).

    Parameters
    ----------
    board : Board
        The puzzle's board: one ``N x N`` grid (no layout).
    where : str
        How messages name the rule.

    Returns
    -------
    ndarray of int, shape (4N, N)
    """
    n = board.n
    if board.grids or board.rows != n or board.cols != n or not board.present.all():
        raise PuzzleError(f"{where}: full rank needs one {n}x{n} grid, found {board.shape_text}")
    grid = np.arange(n * n).reshape(n, n)
    rows = np.stack([grid, grid[:, ::-1]], axis=1).reshape(2 * n, n)
    cols = np.stack([grid.T, grid.T[:, ::-1]], axis=1).reshape(2 * n, n)
    return np.concatenate([rows, cols]).astype(np.int64)


def _diff_terms(a: np.ndarray, b: np.ndarray, sign: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """Terms of ``sign_r * (D(a_r) - D(b_r))`` for each row ``r`` (none where ``a_r == b_r``):
    ``(row, cell, digit, coef)``."""
    rows = np.flatnonzero(a != b)
    d = np.arange(1, n)                                          # digit 0 has coefficient 0
    k = d.size
    row = np.repeat(rows, 2 * k)
    cell = np.stack([np.repeat(a[rows][:, None], k, axis=1), np.repeat(b[rows][:, None], k, axis=1)], axis=1)
    digit = np.broadcast_to(d, (rows.size, 2, k))
    coef = sign[rows][:, None, None] * np.array([1, -1])[None, :, None] * d[None, None, :]
    return row, cell.ravel(), digit.ravel().astype(np.int64), coef.ravel().astype(np.int64)


def _line_key(cells: "np.ndarray | tuple[int, ...]") -> tuple[int, ...]:
    return tuple(int(c) for c in cells)


@dataclass(frozen=True, eq=False)
class FullRank(OutsideLine, AuxRule):
    """A full-rank clue: the line read from ``clue`` ranks ``rank`` among the ``4N`` lines.

    Auxiliary columns, per other line ``B`` (``b = 1 .. 4N-1``, ISS's order without the clued
    line): ``aux_fullrank_k_b_p`` for ``p = 1 .. N``: ``z_p`` = ``A`` and ``B`` agree on their
    first ``p`` digits (``z_0 = 1`` is no column); ``aux_fullrank_k_b_(N+1)``: ``t`` = ``B`` reads
    lower than ``A``. ``w_p = z_p - z_{p+1}`` (``p = 0 .. N-1``) is "the first difference is at
    ``p``". Rows (``D`` the digit index, ``0 .. N-1``):

    * ``fullrank_k`` (``= rank - 1``): ``sum_b t_b``;
    * ``fullrankchain_k_b_p`` (``<= 0``, ``p = 1 .. N-1``): ``z_{p+1} - z_p``;
    * ``fullranksame_k_b_p_s`` (``<= N-1``, ``p = 1 .. N``): ``z_p = 1`` forces
      ``D(a_{p-1}) = D(b_{p-1})``: ``s = 1``: ``D(a) - D(b) + (N-1) z_p``, ``s = 2``: ``D(b) -
      D(a) + (N-1) z_p`` (big-M ``M = N - 1``, the largest difference of two digits);
    * ``fullrankfirst_k_b_p_s`` (``p = 1 .. N`` for position ``p - 1``), big-M ``M = N``:
      ``s = 1`` (``<= 2N - 1``): ``D(b) - D(a) + N t + N w`` (``t = w = 1`` forces ``D(a) >
      D(b)``), ``s = 2`` (``<= N - 1``): ``D(a) - D(b) - N t + N w`` (``t = 0, w = 1`` forces
      ``D(b) > D(a)``); the constant ``N`` of ``z_0`` in ``w_0`` moves to the right-hand side;
    * ``fullranktie_k_b`` (``<= 1``): ``t + c z_N``, ``c = 1`` when ties are ``any`` (equal lines:
      not lower), ``c = 2`` otherwise (the lines may not be equal).

    Given the digits, ``z`` is the agreeing prefix (a first difference ``w_p = 1`` needs the digits
    to differ at ``p`` by either ``fullrankfirst`` row, so an agreeing digit keeps ``z``), and
    ``t`` is 1 exactly when ``B`` is lower: the 0-1 points are exactly the grids that agree.
    """

    ties: str = "unclued"

    kind: ClassVar[str] = "fullrank"
    families: ClassVar[tuple[str, ...]] = ("fullrank", "fullrankchain", "fullranksame", "fullrankfirst",
                                           "fullranktie")
    aux_families: ClassVar[tuple[str, ...]] = ("fullrank",)
    description: ClassVar[str] = ("full rank: the 4N rows and columns read both ways as numbers; the clue ranks "
                                  "the one read from it")
    noun: ClassVar[str] = "full-rank clue"
    value_key: ClassVar[str] = "rank"
    build_cost: ClassVar[float] = 0.2   # measured: 0.14 CPU s for 1.0 M nonzeros (two clues, 25x25)

    def estimated_nonzeros(self, board: Board) -> float:
        """A clue compares its line with the ``4N - 1`` others on every place and digit: ``32 N^3``
        nonzeros (31.9 measured at N = 16 and 25). A hundred clues of a 100x100 took 7.9 GB under
        a 1 GB limit when counted 0."""
        return 32.0 * board.n ** 3

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "FullRank":
        """The clue of ``{"rule": "fullrank", "clue": "r0c3", "rank": r}``.

        Parameters
        ----------
        data : dict
            The document entry.
        board : Board
            The puzzle's board: one ``N x N`` grid whose values are ``N`` (any ascending set).
        where : str
            How messages name the entry.

        Returns
        -------
        FullRank
        """
        check_keys(data, {"clue", "rank"}, where)
        if board.n_values != board.n:
            raise PuzzleError(f"{where}: full rank needs {board.n} values, found {board.n_values}")
        rank_lines(board, where)
        rank = int_field(data, "rank", where, low=1, high=4 * board.n)
        clue, step, cells = outside_line(data.get("clue"), board, where)
        return cls(clue, rank, tuple(cells), step)

    def bind(self, rules: "tuple[Rule, ...]") -> "FullRank":
        """This clue under the puzzle's ``fullrankties`` rule (``unclued`` without one).

        Parameters
        ----------
        rules : tuple of Rule
            All the puzzle's rules.

        Returns
        -------
        FullRank
        """
        ties = next((r.ties for r in rules if isinstance(r, FullRankTies)), "unclued")
        return self if ties == self.ties else replace(self, ties=ties)

    def glyphs(self, board: Board) -> list[Glyph]:
        """The rank in the margin beside the first cell, as ``#rank``."""
        return [Glyph("outside", (self.cell_list[0],), label=f"#{self.value}", step=self.step)]

    def others(self, board: Board) -> np.ndarray:
        """The other ``4N - 1`` lines (``(4N-1, N)`` cells), in ISS's order.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        """
        lines = rank_lines(board)
        own = (lines == np.array(self.cell_list)[None, :]).all(axis=1)
        return lines[~own]

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_fullrank_k_b_j``: ``j = 1..N`` the prefix-agreement ``z_j``, ``j = N+1`` the
        "lower" ``t`` of line ``b``.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number among the puzzle's full-rank clues.
        """
        n = board.n
        b, j = np.divmod(np.arange((4 * n - 1) * (n + 1)), n + 1)
        return [AuxColumns("fullrank", np.stack([np.full(b.size, index), b + 1, j + 1], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The rank row, the chain, same-prefix, first-difference and tie rows (class docstring).

        Parameters
        ----------
        board : Board
            The puzzle's board (``n`` digits).
        index : int
            The rule's 1-based number among the puzzle's rules of its kind: ``k`` in the labels.

        Returns
        -------
        list of Rows
        """
        n = board.n
        others = self.others(board)
        m = others.shape[0]
        width = n + 1
        z = lambda b, p: b * width + p - 1  # noqa: E731 - column of z_p (p = 1..n) of line b
        t = np.arange(m) * width + n         # column of t of line b
        empty = np.zeros(0, dtype=np.int64)
        rank = AuxRows("fullrank", empty, empty, empty, empty, np.array([self.value - 1]), "E",
                       np.array([[index]]), np.zeros(m, dtype=np.int64), t, np.ones(m, dtype=np.int64))
        # chain: z_{p+1} - z_p <= 0
        b, p = (a.ravel() for a in np.meshgrid(np.arange(m), np.arange(1, n), indexing="ij"))
        r = np.arange(b.size)
        chain = AuxRows("fullrankchain", empty, empty, empty, empty, np.zeros(b.size, dtype=np.int64), "L",
                        np.stack([np.full(b.size, index), b + 1, p], axis=1), np.repeat(r, 2),
                        np.stack([z(b, p + 1), z(b, p)], axis=1).ravel(), np.tile([1, -1], b.size))
        a_cells = np.array(self.cell_list, dtype=np.int64)
        # same: (s=1) D(a)-D(b) + (n-1) z_p <= n-1, (s=2) the negation; position p-1
        b, p, s = (x.ravel() for x in np.meshgrid(np.arange(m), np.arange(1, n + 1), np.arange(1, 3), indexing="ij"))
        sign = np.where(s == 1, 1, -1)
        row, cell, digit, coef = _diff_terms(a_cells[p - 1], others[b, p - 1], sign, n)
        r = np.arange(b.size)
        same = AuxRows("fullranksame", row, cell, digit, coef, np.full(b.size, n - 1, dtype=np.int64), "L",
                       np.stack([np.full(b.size, index), b + 1, p, s], axis=1), r, z(b, p),
                       np.full(b.size, n - 1, dtype=np.int64))
        # first difference at position q = p - 1: w = z_q - z_{q+1} (z_0 = 1)
        # s=1: D(b)-D(a) + n t + n w <= 2n-1 ; s=2: D(a)-D(b) - n t + n w <= n-1
        coef = -coef    # the same terms negated (built once: 16 M of a 100x100 clue's 32 M nonzeros)
        rhs = np.where(s == 1, 2 * n - 1, n - 1) - np.where(p == 1, n, 0)
        aux_row = np.concatenate([r, r, r[p > 1]])
        aux_col = np.concatenate([t[b], z(b, p), z(b[p > 1], p[p > 1] - 1)])
        aux_coef = np.concatenate([np.where(s == 1, n, -n), np.full(b.size, -n), np.full(int((p > 1).sum()), n)])
        first = AuxRows("fullrankfirst", row, cell, digit, coef, rhs.astype(np.int64), "L",
                        np.stack([np.full(b.size, index), b + 1, p, s], axis=1), aux_row, aux_col.astype(np.int64),
                        aux_coef.astype(np.int64))
        c = 1 if self.ties == "any" else 2
        r = np.arange(m)
        tie = AuxRows("fullranktie", empty, empty, empty, empty, np.ones(m, dtype=np.int64), "L",
                      np.stack([np.full(m, index), r + 1], axis=1), np.repeat(r, 2),
                      np.stack([t, z(r, n)], axis=1).ravel(), np.tile([1, c], m))
        return [rank, chain, same, first, tie]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A full grid in which the clued line ranks otherwise (or, ``unclued``, ties another).

        Parameters
        ----------
        grid : numpy.ndarray
            Flat canvas, 0 = empty (judged only when every cell is filled).
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per broken instance.
        """
        if not grid[: board.n * board.n].all():
            return []
        mine = grid[np.array(self.cell_list)]
        others = grid[self.others(board)]
        lower, equal = _compare(others, mine)
        rank = 1 + int(lower.sum())
        if rank != self.value:
            return [{"message": f"{self.describe(board)}: ranks {rank}", "cells": list(self.cell_list)}]
        if self.ties != "any" and equal.any():
            return [{"message": f"{self.describe(board)}: another line reads the same", "cells": list(self.cell_list)}]
        return []


def _compare(others: np.ndarray, mine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, equal)`` per row of ``others`` against ``mine`` (lexicographic)."""
    diff = others != mine[None, :]
    first = np.argmax(diff, axis=1)
    equal = ~diff.any(axis=1)
    lower = ~equal & (others[np.arange(others.shape[0]), first] < mine[first])
    return lower, equal


@dataclass(frozen=True, eq=False)
class FullRankTies(AuxRule):
    """How full-rank lines may tie (ISS ``FullRankTies``): ``{"rule": "fullrankties", "ties":
    "any"}``; ``ties`` one of ``unclued`` (ISS ``only-unclued``, as without the rule), ``any``,
    ``none``. The clues bind to it (:meth:`FullRank.bind`); only ``none`` adds rows of its own:
    no two of the ``4N`` lines read the same.

    With ``none``, for every pair of lines ``(A, B)`` whose first cells are not two cells of one unit (those
    differ anyway) and that are not the same cells reversed-and-equal by necessity, auxiliary
    columns ``aux_fullrankdistinct_i_j_p`` (``p = 1..N``): ``A`` and ``B`` differ at ``p``. Rows
    ``fullrankdistinct_i_j`` (``>= 1`` written ``-sum_p y_p <= -1``) and
    ``fullrankdiffer_i_j_p_d`` (``<= 2``): ``y_p + x[a_p, d] + x[b_p, d]`` (a difference
    claimed at ``p`` needs different digits there); ``fullrankunlike_i_j_p_d`` (``<= 0``, two
    cells): ``x[a_p, d] - x[b_p, d] - y_p`` (different digits claim the difference), so ``y`` is
    fixed by the digits. Pairs are labelled by their ISS line numbers (1-based).
    """

    ties: str = "unclued"

    kind: ClassVar[str] = "fullrankties"
    families: ClassVar[tuple[str, ...]] = ("fullrankdistinct", "fullrankdiffer", "fullrankunlike")
    aux_families: ClassVar[tuple[str, ...]] = ("fullrankdistinct",)
    description: ClassVar[str] = "full-rank ties: unclued (clued lines tie nothing), any, or none (no two lines alike)"
    noun: ClassVar[str] = "full-rank ties"
    global_rule: ClassVar[bool] = True
    build_cost: ClassVar[float] = 0.3   # measured: 12.8 CPU s for 57.2 M nonzeros (36x36)

    def estimated_nonzeros(self, board: Board) -> float:
        """``none``'s rows pair every two of the ``4N`` lines on every place and digit: about
        ``34 N^4`` nonzeros (29 N^4 at 9x9, 34 at 36x36), counted as ``35 N`` a cell-digit
        variable; the other ties add none. A 100x100's took 5.7 GB under a 1 GB limit when
        counted 0."""
        if self.ties != "none":
            return 0.0
        return 35.0 * board.n * board.rows * board.cols * board.n_values

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "FullRankTies":
        """The rule of ``{"rule": "fullrankties", "ties": "any"}``.

        Parameters
        ----------
        data : dict
            The document entry (``ties`` required).
        board : Board
            The puzzle's board: one ``N x N`` grid.
        where : str
            How messages name the entry.

        Returns
        -------
        FullRankTies
        """
        check_keys(data, {"ties"}, where)
        ties = data.get("ties")
        if ties is None:   # no default: the rule without it would be the puzzle without the rule
            raise PuzzleError(f"{where}: 'ties' is required, one of {', '.join(TIES)} "
                              f"(e.g. {{\"rule\": \"fullrankties\", \"ties\": \"any\"}})")
        if ties not in TIES:
            raise PuzzleError(f"{where}: 'ties' must be one of {', '.join(TIES)}, found {clip(ties, 40)!r}")
        rank_lines(board, where)
        return cls(str(ties))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, "ties": self.ties}

    def describe(self, board: Board) -> str:
        return f"full-rank ties {self.ties}"

    def pairs(self, board: Board) -> np.ndarray:
        """``(P, 2)`` 0-based line numbers of the pairs that could read alike.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        """
        lines = rank_lines(board)
        if self.ties != "none":
            return np.zeros((0, 2), dtype=np.int64)
        i, j = np.triu_indices(lines.shape[0], k=1)
        firsts = np.stack([lines[i, 0], lines[j, 0]], axis=1)
        apart = (firsts[:, 0] != firsts[:, 1]) & board.share_a_unit(firsts)
        return np.stack([i[~apart], j[~apart]], axis=1)

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """``aux_fullrankdistinct_i_j_p``: lines ``i`` and ``j`` differ at position ``p``.

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number (there is one).
        """
        pairs, n = self.pairs(board), board.n
        q = np.repeat(pairs, n, axis=0)
        p = np.tile(np.arange(1, n + 1), pairs.shape[0])
        return [AuxColumns("fullrankdistinct", np.stack([q[:, 0] + 1, q[:, 1] + 1, p], axis=1))]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """The at-least-one-difference rows and the difference rows (class docstring).

        Parameters
        ----------
        board : Board
            The puzzle's board.
        index : int
            The rule's 1-based number.

        Returns
        -------
        list of Rows
        """
        lines, pairs, n = rank_lines(board), self.pairs(board), board.n
        m = pairs.shape[0]
        empty = np.zeros(0, dtype=np.int64)
        some = AuxRows("fullrankdistinct", empty, empty, empty, empty, -np.ones(m, dtype=np.int64), "L",
                       pairs + 1, np.repeat(np.arange(m), n), np.arange(m * n), -np.ones(m * n, dtype=np.int64))
        pr, p, d = (x.ravel() for x in np.meshgrid(np.arange(m), np.arange(n), np.arange(n), indexing="ij"))
        a, b = lines[pairs[pr, 0], p], lines[pairs[pr, 1], p]
        # one cell at p (a line and its reverse cross at the middle): one term of coefficient 2
        rows = np.arange(pr.size)
        coef = np.stack([np.where(a == b, 2, 1), np.where(a == b, 0, 1)], axis=1).ravel()
        keep = coef != 0
        differ = AuxRows("fullrankdiffer", np.repeat(rows, 2)[keep], np.stack([a, b], axis=1).ravel()[keep],
                         np.repeat(d, 2)[keep], coef[keep].astype(np.int64), np.full(rows.size, 2, dtype=np.int64),
                         "L", np.stack([pairs[pr, 0] + 1, pairs[pr, 1] + 1, p + 1, d + 1], axis=1), rows,
                         pr * n + p, np.ones(rows.size, dtype=np.int64))
        two = np.flatnonzero(a != b)
        unlike = AuxRows("fullrankunlike", np.repeat(np.arange(two.size), 2), np.stack([a[two], b[two]], axis=1).ravel(),
                         np.repeat(d[two], 2), np.tile([1, -1], two.size), np.zeros(two.size, dtype=np.int64), "L",
                         np.stack([pairs[pr[two], 0] + 1, pairs[pr[two], 1] + 1, p[two] + 1, d[two] + 1], axis=1),
                         np.arange(two.size), pr[two] * n + p[two], -np.ones(two.size, dtype=np.int64))
        return [some, differ, unlike]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """Two full lines that read alike.

        Parameters
        ----------
        grid : numpy.ndarray
            Flat canvas, 0 = empty.
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}`` per broken instance.
        """
        lines = rank_lines(board)
        values = grid[lines]
        full = values.all(axis=1)
        pairs = self.pairs(board)
        alike = full[pairs[:, 0]] & full[pairs[:, 1]] & (values[pairs[:, 0]] == values[pairs[:, 1]]).all(axis=1)
        out = []
        for i, j in pairs[alike][:3]:
            out.append({"message": f"full rank without ties: lines {i + 1} and {j + 1} read alike",
                        "cells": sorted(set(lines[i].tolist()) | set(lines[j].tolist()))})
        return out

