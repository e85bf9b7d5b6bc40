"""Chaos construction (ISS ``ChaosConstruction``): the solver draws the regions.

The grid (``N x N``, digits ``1..N``) is divided into ``N`` orthogonally connected regions of ``N``
cells each, every region holding each digit once; the division is not given. The rule's rows
model the division with auxiliary 0-1 columns (docs/conventions.md, "Auxiliary columns" and
"Chaos construction"); :func:`find_division` is the exact check ``verify`` uses on a full grid.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar, Iterator, Sequence

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.glyphs import CHAOS_COLOUR, CHAOS_FILL, Glyph
from pipeline.core.rules.auxcols import AuxColumns, AuxRows, AuxRule
from pipeline.core.rules.base import Board, Rows, check_keys
from pipeline.core.rules.chaosnfa import automata_glyphs, automata_legend, automata_nonzeros
from pipeline.core.rules.chaosclues import (KEYS, ChaosClues, active_arms, clue_blocks, clue_rows,
                                            clue_tests, clues_to_dict, parse_clues, relation_glyphs,
                                            relation_legend)

__all__ = ["Chaos", "find_division", "layer_edges", "orthogonal_edges"]

#: The largest side the rule takes (ISS's grids go to 16x16; the model grows as ``N^4``).
MAX_SIDE = 16
#: Regions :func:`find_division` tries before it gives up (a verdict then says so).
SEARCH_LIMIT = 2_000_000


def layer_edges(count: int, columns: int) -> np.ndarray:
    """Directed orthogonal neighbour pairs ``(i, j)`` of ``count`` cells laid out row-major in rows
    of ``columns`` (the last row possibly short), as ISS lays out a var-cell group.

    Parameters
    ----------
    count : int
        Cells of the layer.
    columns : int
        Cells a row.

    Returns
    -------
    ndarray of int, shape (E, 2)
        Each unordered pair twice (both directions), sorted by cell then neighbour.
    """
    i = np.arange(count)
    right = i[(i % columns < columns - 1) & (i + 1 < count)]
    down = i[i + columns < count]
    pairs = np.concatenate([np.stack([right, right + 1], axis=1), np.stack([down, down + columns], axis=1)])
    pairs = np.concatenate([pairs, pairs[:, ::-1]])
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def orthogonal_edges(n: int) -> np.ndarray:
    """Directed orthogonal neighbour pairs ``(cell, neighbour)`` of an ``n x n`` grid, row-major
    (:func:`layer_edges` of its ``n * n`` cells in rows of ``n``).

    Parameters
    ----------
    n : int
        Grid side.

    Returns
    -------
    ndarray of int, shape (E, 2)
        Each unordered pair twice (both directions), sorted by cell then neighbour.
    """
    return layer_edges(n * n, n)


def find_division(grid: np.ndarray, limit: int = SEARCH_LIMIT,
                  tests: Sequence[tuple[Sequence[int], Callable[[np.ndarray], bool]]] = ()) -> np.ndarray | None:
    """A division of a full ``N x N`` grid into ``N`` connected regions of ``N`` cells, each
    holding ``N`` different digits, or None when there is none.

    Depth-first: the first cell (row-major) not yet in a region roots the next region; the
    connected sets of ``N`` cells through it are enumerated once each (Redelmeier's method:
    each cell is tried in or out once per branch), skipping a cell whose digit the set already
    holds, and a choice is dropped at once when it leaves a free component whose size is not a
    multiple of ``N``, or when one of ``tests`` over its cells fails. A drawn region is final, so a
    clue is judged as soon as the regions drawn decide it: judged on whole divisions only, one
    clued published puzzle's search went through 57,081 of them (31 s) before one passed.

    Parameters
    ----------
    grid : numpy.ndarray
        ``(N, N)`` digits ``1..N`` (no empty cell).
    limit : int
        Regions tried at most; past it the search stops.
    tests : sequence of (cells, holds)
        ``holds(flat regions) -> bool`` (0: a cell not drawn yet), asked whenever a region is drawn
        over one of ``cells``: False when no way of drawing the rest can pass, and the final
        verdict once ``cells`` are drawn (the region clues,
        :func:`~pipeline.core.rules.chaosclues.clue_tests`).

    Returns
    -------
    ndarray of int or None
        ``(N, N)`` region numbers ``1..N`` (ordered by their first cell), or None.

    Raises
    ------
    TimeoutError
        The search tried ``limit`` regions without an answer.
    """
    n = int(grid.shape[0])
    values = np.asarray(grid, dtype=np.int64).ravel().tolist()
    edges = orthogonal_edges(n)
    nbrs: list[list[int]] = [[] for _ in range(n * n)]
    for a, b in edges.tolist():
        nbrs[a].append(b)
    region = [0] * (n * n)
    tried = [0]
    tests_of: list[list[int]] = [[] for _ in range(n * n)]   # per cell the tests asked when it is drawn
    for t, (cells, _) in enumerate(tests):
        for c in set(cells):
            tests_of[c].append(t)

    def draw(cells: list[int], label: int) -> bool:
        """Label ``cells``: do the tests over them still pass?"""
        asked = set()
        for c in cells:
            region[c] = label
            asked.update(tests_of[c])
        if not asked:
            return True
        drawn = np.array(region, dtype=np.int64)
        return all(tests[t][1](drawn) for t in asked)

    def components_ok() -> bool:
        seen = [r != 0 for r in region]
        for start in range(n * n):
            if seen[start]:
                continue
            stack, size = [start], 0
            seen[start] = True
            while stack:
                v = stack.pop()
                size += 1
                for w in nbrs[v]:
                    if not seen[w]:
                        seen[w] = True
                        stack.append(w)
            if size % n:
                return False
        return True

    def sets(sub: list[int], mask: int, ext: list[int], closed: set[int]) -> Iterator[list[int]]:
        if len(sub) == n:
            yield sub
            return
        ext = list(ext)
        while ext:
            v = ext.pop()
            bit = 1 << values[v]
            if mask & bit:
                continue
            new = [w for w in nbrs[v] if w not in closed and region[w] == 0]
            yield from sets(sub + [v], mask | bit, ext + new, closed | set(new))

    def solve(label: int) -> bool:
        if label > n:
            return True
        root = region.index(0)
        start = [w for w in nbrs[root] if region[w] == 0]
        for cells in sets([root], 1 << values[root], start, {root, *start}):
            tried[0] += 1
            if tried[0] > limit:
                raise TimeoutError(f"no division found in {limit:,} regions tried")
            if draw(cells, label) and components_ok() and solve(label + 1):
                return True
            for c in cells:
                region[c] = 0
        return False

    return np.array(region, dtype=np.int64).reshape(n, n) if solve(1) else None


@dataclass(frozen=True, eq=False)
class Chaos(AuxRule):
    """Chaos construction: ``{"rule": "chaos"}`` (ISS ``ChaosConstruction``). The grid is divided
    into ``N`` orthogonally connected regions of ``N`` cells, each holding every digit once; the
    division is the solver's to find. Region clues (``counts``, ``arrows``, ``same``,
    ``different``, ``distinct``: :mod:`pipeline.core.rules.chaosclues`) are optional keys of the entry.

    Auxiliary columns (``c`` = cell ``r_c``, ``k`` = region, ``t`` = step, ``d`` = digit; docs/
    conventions.md "Chaos construction" has the rows): ``aux_chaosregion_r_c_k`` (``c`` is in
    region ``k``), ``aux_chaosseen_r_c_k`` (some cell up to ``c`` in row-major order is in ``k``),
    ``aux_chaosreach_r_c_k_t`` (``c`` is at most ``t`` steps from ``k``'s first cell inside ``k``,
    ``t = 0..N-1``), ``aux_chaospair_r_c_k_d`` (``c`` is in ``k`` and holds ``d``). Regions are
    numbered by their first cell (the symmetry of their names is broken).
    """

    clues: ChaosClues = field(default_factory=ChaosClues)

    kind: ClassVar[str] = "chaos"
    global_rule: ClassVar[bool] = True
    families: ClassVar[tuple[str, ...]] = ("chaosdigit", "chaoscell", "chaospair", "chaosseen", "chaosgrow",
                                           "chaosfirst", "chaosorder", "chaosroot", "chaosstep", "chaosinside",
                                           "chaosconnected", "chaosequal", "chaosapart", "chaoscount",
                                           "chaosrunprev", "chaosrunsame", "chaosrunon", "chaosarrow", "chaossame",
                                           "chaosdifferent", "chaosamong", "chaosnone", "chaosdistinct",
                                           "chaosnfa", "chaosnfain", "chaosnfaout", "chaosnfaread")
    aux_families: ClassVar[tuple[str, ...]] = ("chaosregion", "chaosseen", "chaosreach", "chaospair", "chaossame",
                                               "chaosrun", "chaosdistinct", "chaosnfa", "chaosnfastate")
    description: ClassVar[str] = ("chaos construction: N connected regions of N cells, each holding every digit "
                                  "once, drawn by the solver")
    noun: ClassVar[str] = "chaos construction"
    #: Measured at N = 16 (the largest side taken); it grows about linearly with N.
    nonzeros_per_variable: ClassVar[float] = 180.0

    def estimated_nonzeros(self, board: Board) -> float:
        """:attr:`nonzeros_per_variable` over the board's variables, and the region clues' rows:
        at most ``6 N`` nonzeros a cell they list (a count's cell pairs its reference cell over the
        ``N`` regions in two rows of three terms; measured 54, 27 and 9 a listed cell at 9x9 for
        counts, distinct and different clues), counted as ``8 N``: rows of three terms hold more
        than a nonzero's share of memory (256 count clues over a 16x16's cells, 7.07 M nonzeros in
        2.24 M rows, peaked at 1.2 GB). Counted as the construction alone, with 210 distinct clues
        they built 1.6 GB under a 1 GB limit. Automaton lines over regions: as the ``automaton`` rule
        counts its own."""
        return (self.nonzeros_per_variable * board.rows * board.cols + 8.0 * self.clues.listed_cells()) \
            * board.n_values + automata_nonzeros(self.clues.automata, board)

    @classmethod
    def from_dict(cls, data: dict, board: Board, where: str) -> "Chaos":
        """The rule of ``{"rule": "chaos"}``, on one square grid of up to 16x16 whose digits are
        as many as its side.

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
        Chaos
        """
        check_keys(data, set(KEYS), where)
        if board.grids or board.rows != board.cols or board.rows != board.n or board.n_values != board.n:
            raise PuzzleError(f"{where}: chaos construction needs one square grid with as many digits as its side")
        if not 2 <= board.n <= MAX_SIDE:
            raise PuzzleError(f"{where}: chaos construction takes grids of 2x2 to {MAX_SIDE}x{MAX_SIDE}, "
                              f"not {board.n}x{board.n}")
        return cls(parse_clues(data, board, where))

    def to_dict(self, board: Board) -> dict:
        return {"rule": self.kind, **clues_to_dict(self.clues, board)}

    def describe(self, board: Board) -> str:
        return "chaos construction"

    caption_named: ClassVar[bool] = True   # "chaos construction" stays in the caption beside the drawn clues

    def glyphs(self, board: Board) -> list[Glyph]:
        """The region clues pictures draw, in :data:`~pipeline.core.glyphs.CHAOS_COLOUR`:
        an arrow's arms of two or more cells as arrows from its start (a ring on the clue cell
        when it is not the start); a count's clue cell shaded :data:`~pipeline.core.glyphs.CHAOS_FILL`,
        its counted cells outlined unless they are the clue cell and its neighbours (ISS's
        default); ``-1`` on the clue cell of an offset of 1. Same-, different- and
        distinct-region sets as :func:`~pipeline.core.rules.chaosclues.relation_glyphs` marks them
        (they were once only tallied in the caption); the automata as
        :func:`~pipeline.core.rules.chaosnfa.automata_glyphs` draws them (they were once not drawn).

        Parameters
        ----------
        board : Board
            The puzzle's board.

        Returns
        -------
        list of Glyph
        """
        n = board.cols
        out: list[Glyph] = []
        for clue, arms, offset in self.clues.arrows:
            drawn = [arm for arm in active_arms(arms) if len(arm) > 1]
            out += [Glyph("line", arm, style="arrow", colour=CHAOS_COLOUR) for arm in drawn]
            if not drawn or any(arm[0] != clue for arm in drawn):
                out.append(Glyph("mark", (clue,), style="ring", colour=CHAOS_COLOUR))
            if offset:
                out.append(Glyph("mark", (clue,), style="text", label="-1", colour=CHAOS_COLOUR))
        for clue, cells, offset in self.clues.counts:
            out.append(Glyph("mark", (clue,), style="square", colour=CHAOS_FILL))
            r, c = divmod(clue, n)
            around = {(r + dr) * n + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                      if 0 <= r + dr < board.rows and 0 <= c + dc < n}
            if not (cells and cells[0] == clue and set(cells) == around and len(cells) == len(around)):
                out.append(Glyph("cage", tuple(sorted(set(cells)))))
            if offset:
                out.append(Glyph("mark", (clue,), style="text", label="-1", colour=CHAOS_COLOUR))
        return out + relation_glyphs(self.clues, n) + automata_glyphs(self.clues.automata, board)

    def legend(self, board: Board) -> str:
        """What the drawn region clues mean ("chaos construction" alone hid them; same-, different-
        and distinct-region sets were once tallied as ``not drawn: 2 same-region sets``)."""
        words = []
        if self.clues.arrows:
            words.append("orange arrows: the circled digit counts the cells from the circle along them that stay "
                         "in its region")
        if self.clues.counts:
            words.append("orange cells: the digit counts the cells around it (or outlined) in its region")
        if any(offset for _, _, offset in (*self.clues.arrows, *self.clues.counts)):
            words.append("-1: the start not counted")
        words += relation_legend(self.clues, board.cols) + automata_legend(self.clues.automata, board)
        return "; ".join(words)

    def cells(self) -> np.ndarray:
        return np.zeros(0, dtype=np.int64)

    def aux_columns(self, board: Board, index: int) -> list[AuxColumns]:
        """The region, seen, reach and pair blocks (class docstring), ``2 N^3 (N + 1)`` columns.

        Parameters
        ----------
        board : Board
            The puzzle's board (``N x N``).
        index : int
            Unused: a global rule comes at most once per puzzle.
        """
        n = board.n
        rc = np.stack(np.divmod(np.arange(n * n), n), axis=1) + 1
        ck = np.concatenate([np.repeat(rc, n, axis=0), np.tile(np.arange(1, n + 1), n * n)[:, None]], axis=1)
        ckt = np.concatenate([np.repeat(ck, n, axis=0), np.tile(np.arange(n), n ** 3)[:, None]], axis=1)
        ckd = ckt.copy()
        ckd[:, 3] += 1
        return [AuxColumns("chaosregion", ck), AuxColumns("chaosseen", ck), AuxColumns("chaosreach", ckt),
                AuxColumns("chaospair", ckd), *clue_blocks(self.clues, board)]

    def rows(self, board: Board, index: int) -> list[Rows]:
        """Every family of the rule, in :attr:`families` order (docs/conventions.md).

        Parameters
        ----------
        board : Board
            The puzzle's board (``N x N``).
        index : int
            Unused: a global rule comes at most once per puzzle.

        Returns
        -------
        list of Rows
        """
        n = board.n
        return [*_ChaosRows(n).all(), *clue_rows(self.clues, board, lambda c, k: c * n + k, 2 * n ** 3 * (n + 1))]

    def violations(self, grid: np.ndarray, board: Board) -> list[dict]:
        """A full grid that no division into connected regions fits (:func:`find_division`).

        Parameters
        ----------
        grid : numpy.ndarray
            Flat canvas, then any extra cells, 0 = empty (a partial grid is not judged: its regions
            are open; a clue in an empty extra cell is not judged either).
        board : Board
            The puzzle's board.

        Returns
        -------
        list of dict
            ``{"message", "cells"}``: one when the grid is full and no division exists.
        """
        n = board.n
        flat = np.asarray(grid, dtype=np.int64).ravel()
        values = flat[: n * n]
        if values.size != n * n or not values.all():
            return []
        # the clues read the extra cells after the canvas too (a count's clue in an ISS Var cell)
        tests = [(cells, holds) for cells, holds, _ in clue_tests(self.clues, flat)]
        try:
            found = find_division(values.reshape(n, n), tests=tests)
        except TimeoutError as e:
            return [{"message": f"chaos construction: {e}", "cells": list(range(n * n))}]
        if found is None:
            clued = " that keeps the region clues" if self.clues else ""
            return [{"message": f"chaos construction: no division into {n} connected regions of {n} cells "
                                f"each holding every digit once{clued}", "cells": list(range(n * n))}]
        return []


class _ChaosRows:
    """The rule's rows for side ``n`` (column numbering of :meth:`Chaos.aux_columns`)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.m = n * n
        self.block = self.m * n                     # columns of the region and of the seen block

    # column numbers (0-based within the rule), broadcasting over arrays
    def reg(self, c, k):
        return c * self.n + k

    def seen(self, c, k):
        return self.block + c * self.n + k

    def reach(self, c, k, t):
        return 2 * self.block + (c * self.n + k) * self.n + t

    def pair(self, c, k, d):
        return 2 * self.block + self.block * self.n + (c * self.n + k) * self.n + d

    def _labels(self, c: np.ndarray, *rest: np.ndarray) -> np.ndarray:
        r, col = np.divmod(c, self.n)
        return np.stack([r + 1, col + 1, *[a + 1 for a in rest]], axis=1).astype(np.int64)

    @staticmethod
    def _aux(family: str, sense: str, rhs: np.ndarray, labels: np.ndarray, aux_row: np.ndarray,
             aux_col: np.ndarray, aux_coef: np.ndarray, x_row: np.ndarray | None = None,
             x_cell: np.ndarray | None = None, x_digit: np.ndarray | None = None) -> AuxRows:
        empty = np.zeros(0, dtype=np.int64)
        x_row = empty if x_row is None else x_row.astype(np.int64)
        return AuxRows(family, x_row, empty if x_cell is None else x_cell.astype(np.int64),
                       empty if x_digit is None else x_digit.astype(np.int64), np.ones(x_row.size, dtype=np.int64),
                       rhs.astype(np.int64), sense, labels, aux_row.astype(np.int64), aux_col.astype(np.int64),
                       aux_coef.astype(np.int64))

    def all(self) -> list[Rows]:
        n, m = self.n, self.m
        c, k = (a.ravel() for a in np.meshgrid(np.arange(m), np.arange(n), indexing="ij"))   # (c, k) pairs, k fastest
        ck_row = np.arange(m * n)
        out: list[Rows] = [self._digit(), self._cell(), self._pair()]
        # chaosseen: r[c,k] - p[c,k] <= 0
        out.append(self._aux("chaosseen", "L", np.zeros(m * n), self._labels(c, k), np.repeat(ck_row, 2),
                             np.stack([self.reg(c, k), self.seen(c, k)], axis=1).ravel(), np.tile([1, -1], m * n)))
        # chaosgrow: p[c-1,k] - p[c,k] <= 0, c >= 1
        g = c >= 1
        cg, kg = c[g], k[g]
        out.append(self._aux("chaosgrow", "L", np.zeros(cg.size), self._labels(cg, kg), np.repeat(np.arange(cg.size), 2),
                             np.stack([self.seen(cg - 1, kg), self.seen(cg, kg)], axis=1).ravel(),
                             np.tile([1, -1], cg.size)))
        # chaosfirst: p[c,k] - p[c-1,k] - r[c,k] <= 0 (no p[-1])
        out.append(self._prefix_rows("chaosfirst", c, k, [(self.seen(c, k), 1), (self.reg(c, k), -1)],
                                     (c - 1, k, -1)))
        # chaosorder: p[c,k+1] - p[c-1,k] <= 0, k = 1..N-1
        o = k < n - 1
        out.append(self._prefix_rows("chaosorder", c[o], k[o] + 1, [(self.seen(c[o], k[o] + 1), 1)],
                                     (c[o] - 1, k[o], -1)))
        # chaosroot: reach[c,k,0] - p[c,k] + p[c-1,k] = 0
        out.append(self._prefix_rows("chaosroot", c, k, [(self.reach(c, k, 0), 1), (self.seen(c, k), -1)],
                                     (c - 1, k, 1), sense="E"))
        out.append(self._step())
        # chaosinside: reach[c,k,t] - r[c,k] <= 0, t = 1..N-2
        ci, ki, ti = (a.ravel() for a in np.meshgrid(np.arange(m), np.arange(n), np.arange(1, n - 1), indexing="ij"))
        out.append(self._aux("chaosinside", "L", np.zeros(ci.size), self._labels(ci, ki, ti - 1),
                             np.repeat(np.arange(ci.size), 2),
                             np.stack([self.reach(ci, ki, ti), self.reg(ci, ki)], axis=1).ravel(),
                             np.tile([1, -1], ci.size)))
        # chaosconnected: r[c,k] - reach[c,k,N-1] <= 0
        out.append(self._aux("chaosconnected", "L", np.zeros(m * n), self._labels(c, k), np.repeat(ck_row, 2),
                             np.stack([self.reg(c, k), self.reach(c, k, n - 1)], axis=1).ravel(),
                             np.tile([1, -1], m * n)))
        return out

    def _prefix_rows(self, family: str, c: np.ndarray, k: np.ndarray, terms: list, before: tuple,
                     sense: str = "L") -> AuxRows:
        """Rows of ``terms`` (``(columns, coef)``, one per row) plus ``coef * p[c-1, k]`` where ``c >= 1``."""
        rows = np.arange(c.size)
        cb, kb, coef = before
        has = cb >= 0
        aux_row = np.concatenate([rows] * len(terms) + [rows[has]])
        aux_col = np.concatenate([col for col, _ in terms] + [self.seen(cb[has], kb[has])])
        aux_coef = np.concatenate([np.full(c.size, v) for _, v in terms] + [np.full(int(has.sum()), coef)])
        return self._aux(family, sense, np.zeros(c.size), self._labels(c, k), aux_row, aux_col, aux_coef)

    def _digit(self) -> AuxRows:
        """chaosdigit_r_c_d (= 0): x[c,d] - sum_k z[c,k,d]."""
        n, m = self.n, self.m
        c, d = (a.ravel() for a in np.meshgrid(np.arange(m), np.arange(n), indexing="ij"))
        rows = np.arange(m * n)
        kk = np.tile(np.arange(n), m * n)
        return self._aux("chaosdigit", "E", np.zeros(m * n), self._labels(c, d), np.repeat(rows, n),
                         self.pair(np.repeat(c, n), kk, np.repeat(d, n)), -np.ones(m * n * n), rows, c, d)

    def _cell(self) -> AuxRows:
        """chaoscell_r_c_k (= 0): r[c,k] - sum_d z[c,k,d]."""
        n, m = self.n, self.m
        c, k = (a.ravel() for a in np.meshgrid(np.arange(m), np.arange(n), indexing="ij"))
        rows = np.arange(m * n)
        dd = np.tile(np.arange(n), m * n)
        aux_row = np.concatenate([rows, np.repeat(rows, n)])
        aux_col = np.concatenate([self.reg(c, k), self.pair(np.repeat(c, n), np.repeat(k, n), dd)])
        aux_coef = np.concatenate([np.ones(m * n), -np.ones(m * n * n)])
        return self._aux("chaoscell", "E", np.zeros(m * n), self._labels(c, k), aux_row, aux_col, aux_coef)

    def _pair(self) -> AuxRows:
        """chaospair_k_d (= 1): sum_c z[c,k,d]."""
        n, m = self.n, self.m
        k, d = (a.ravel() for a in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
        rows = np.arange(n * n)
        cc = np.tile(np.arange(m), n * n)
        return self._aux("chaospair", "E", np.ones(n * n), np.stack([k + 1, d + 1], axis=1), np.repeat(rows, m),
                         self.pair(cc, np.repeat(k, m), np.repeat(d, m)), np.ones(n * n * m))

    def _step(self) -> AuxRows:
        """chaosstep_r_c_k_t (<= 0): reach[c,k,t] - reach[c,k,t-1] - sum_{nb} reach[nb,k,t-1], t = 1..N-1."""
        n, m = self.n, self.m
        c, k, t = (a.ravel() for a in np.meshgrid(np.arange(m), np.arange(n), np.arange(1, n), indexing="ij"))
        rows = np.arange(c.size)
        edges = orthogonal_edges(n)
        # rows of cell c are c*n*(n-1) .. : each edge (a, b) adds -reach[b,k,t-1] to every row of a
        e, kk, tt = (a.ravel() for a in np.meshgrid(np.arange(edges.shape[0]), np.arange(n), np.arange(1, n),
                                                     indexing="ij"))
        a, b = edges[e, 0], edges[e, 1]
        edge_row = (a * n + kk) * (n - 1) + (tt - 1)
        aux_row = np.concatenate([rows, rows, edge_row])
        aux_col = np.concatenate([self.reach(c, k, t), self.reach(c, k, t - 1), self.reach(b, kk, tt - 1)])
        aux_coef = np.concatenate([np.ones(c.size), -np.ones(c.size), -np.ones(edge_row.size)])
        order = np.argsort(aux_row, kind="stable")
        return self._aux("chaosstep", "L", np.zeros(c.size), self._labels(c, k, t - 1), aux_row[order],
                         aux_col[order], aux_coef[order])
