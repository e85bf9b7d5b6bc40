"""Sums that a puzzle's little killers imply together, for ``dfsrules`` (ISS's optimizer adds the
same kind of sum, ``_makeCombinedSumHandlers``).

A little killer's digits may repeat, so ``dfsrules`` bounds its sum through its **exclusion
groups** (its cells in one house take distinct digits: a group of ``k`` cells adds at least the
``k`` least values and at most the ``k`` greatest). Along one diagonal the groups are small (two
or three cells a box), so the bounds are loose. Two or more diagonals side by side fill most of
the boxes they cross: the sum of their sums over the union of their cells has groups of seven or
eight cells, and its bounds can be tight, sometimes within a digit or two of the total. ISS's
'Zero solution: Little Killer' (eight diagonals of 49, no solution): four diagonals together must
add up to 196 where their groups allow at most 198, which ``dfsrules`` then proves impossible in
6,047 nodes; without the combined rows it had searched more than a million in 20 s.

The merging is ISS's bounded greedy one. Each sum is scored by how much its groups hold against
its slack (``sum over groups of k (N - k) - dof``, with ``dof`` the distance of the total from the
nearer bound); two sums over disjoint cells, six or more of the smaller one's cells sharing a
house with the larger one, merge when the merged score beats both (or their sum); the best such
merge is made first, its two inputs leave, and the merged sum may merge again. Unlike ISS, a merged
sum is kept only with a score above :data:`MIN_SCORE`: a looser one cost ISS's
LITTLE_KILLER_SNIPES#9 half its speed a node. Each row kept is a sum of the puzzle's own ``=``
rows over disjoint cells, so it changes no answer.

Groups are found largest house first (the house holding most of the cells still free is a group,
then the next): on a union of diagonals this finds the boxes they fill, where taking cells in
order made groups of three or four and no row tight enough.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from pipeline.core.propagate import unit_tables
from pipeline.core.rules.littlekiller import LittleKiller

if TYPE_CHECKING:
    from pipeline.core.puzzle import Puzzle

__all__ = ["MIN_RELATED", "MIN_SCORE", "MOST_SUMS", "HouseSource", "HouseTables", "Houses", "combined_sum_rows", "combined_sums", "house_tables"]

#: Two sums merge only when at least this many cells of the smaller share a house with the larger
#: (ISS's ``MIN_OVERLAP_COUNT``): sums far apart bound each other no better together.
MIN_RELATED = 6
#: A combined sum is kept only when its score is above this: one whose slack outweighs what its
#: groups hold propagates at every node and prunes little (ISS's LITTLE_KILLER_SNIPES#9, two such
#: rows of 39 and 15 cells: 11.8 million nodes in 27 s without them, 9.8 million in 43 s with them).
MIN_SCORE = 0
#: Puzzles with more little killers than this get no combined rows (the pairs are compared all
#: against all; a 9x9 has at most 4 x 17 diagonals).
MOST_SUMS = 96


class HouseTables(NamedTuple):
    """A shape's houses: ``units`` the cells of each house (houses x cells), ``cell_units`` each
    cell's houses padded with the house count; :mod:`pipeline.solvers.dfs`' ``ShapeTables`` has
    the same two fields."""

    units: np.ndarray
    cell_units: np.ndarray


class HouseSource(Protocol):
    """What :class:`Houses` reads: :class:`HouseTables` or :mod:`pipeline.solvers.dfs`' ``ShapeTables``."""

    @property
    def units(self) -> np.ndarray: ...

    @property
    def cell_units(self) -> np.ndarray: ...


def house_tables(puzzle: Puzzle) -> HouseTables:
    """``puzzle``'s houses (:class:`HouseTables`), from propagate's tables (cached by shape).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> tables = house_tables(parse_puzzle("." * 81))
    >>> tables.units.shape, tables.cell_units.shape
    ((27, 9), (81, 3))
    """
    _, units_by_position, units_of_cells, _ = unit_tables(puzzle)
    return HouseTables(np.ascontiguousarray(units_by_position.T, dtype=np.int64),
                       np.ascontiguousarray(units_of_cells.T, dtype=np.int64))


class _Sum:
    """A sum over disjoint cells: its cells (sorted indices), total, score; ``own`` for a clue's."""

    __slots__ = ("cells", "total", "score", "own")

    def __init__(self, cells: np.ndarray, total: int, score: int, own: bool):
        self.cells, self.total, self.score, self.own = cells, total, score, own


class Houses:
    """Each cell's houses (``cell_units``, padded with the house count), and the bounds of ``k``
    distinct values: ``low[k]`` the ``k`` least added up, ``high[k]`` the ``k`` greatest."""

    def __init__(self, units: HouseSource, values: np.ndarray) -> None:
        self.of_cell, self.count = units.cell_units, units.units.shape[0]
        ordered = np.sort(values)
        self.low = np.concatenate([[0], np.cumsum(ordered)])
        self.high = np.concatenate([[0], np.cumsum(ordered[::-1])])

    def group_sizes(self, cells: np.ndarray) -> np.ndarray:
        """The sizes of ``cells``' exclusion groups (:meth:`groups`)."""
        return np.array([group.size for group in self.groups(cells)], dtype=np.int64)

    def groups(self, cells: np.ndarray) -> list[np.ndarray]:
        """``cells``' exclusion groups, largest house first: the house that holds most of the cells
        not yet in a group is the next group (on a union of diagonals, the boxes they fill; each
        cell joining its own fullest house instead made looser groups, and 'Zero solution: Little
        Killer' took 371,223 nodes where these take 6,047); cells sharing no house with another
        free cell are groups of one."""
        houses = self.of_cell[cells]                                     # (cells, width), padded
        free = np.ones(cells.size, dtype=bool)
        out: list[np.ndarray] = []
        while free.any():
            held = np.bincount(houses[free].ravel(), minlength=self.count + 1)
            held[self.count] = 0                                          # the padding holds nothing
            best = int(np.argmax(held))
            if held[best] <= 1:   # no two free cells share a house: the rest are groups of one
                out.extend(cells[np.flatnonzero(free)][:, None])
                break
            group = free & (houses == best).any(axis=1)
            out.append(cells[group])
            free &= ~group
        return out

    def touching(self, cells: np.ndarray) -> np.ndarray:
        """Whether each house holds one of ``cells`` (booleans, one per house and the padding)."""
        out = np.zeros(self.count + 1, dtype=bool)
        out[self.of_cell[cells].ravel()] = True
        out[self.count] = False
        return out


def _scored(cells: np.ndarray, total: int, houses: Houses, own: bool = False) -> _Sum | None:
    """``cells`` adding up to ``total`` as a scored sum; None when its groups cannot make the total
    (the clue's own row says so in the search)."""
    sizes = houses.group_sizes(cells)
    least, most = int(houses.low[sizes].sum()), int(houses.high[sizes].sum())
    if not least <= total <= most:
        return None
    dof = min(total - least, most - total)
    n = houses.low.size - 1
    return _Sum(cells, total, int((sizes * (n - sizes) - dof).sum()), own)


def _related(a: np.ndarray, b: np.ndarray, houses: Houses) -> bool:
    """Cells ``a`` and ``b`` disjoint, and at least :data:`MIN_RELATED` cells of the smaller share
    a house with the larger."""
    small, big = (a, b) if a.size < b.size else (b, a)
    if small.size < MIN_RELATED or np.intersect1d(a, b).size:
        return False
    near = houses.touching(big)[houses.of_cell[small]].any(axis=1)
    return int(near.sum()) >= MIN_RELATED


def _merged(a: _Sum, b: _Sum, houses: Houses) -> _Sum | None:
    """``a`` and ``b`` as one sum when related and better so (ISS's rule), else None."""
    if not _related(a.cells, b.cells, houses):
        return None
    both = _scored(np.union1d(a.cells, b.cells), a.total + b.total, houses)
    if both is None or (both.score <= max(a.score, b.score) and both.score <= a.score + b.score):
        return None
    return both


def combined_sums(puzzle: Puzzle, units: HouseSource) -> list[tuple[np.ndarray, int]]:
    """The combined sums of ``puzzle``'s little killers (module docstring): each a union of clues'
    cells (sorted indices) and the sum of their totals; empty when no merge is made.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle: its little killers over grid cells, its values.
    units : HouseSource
        Its shape's houses (every unit holds each value once).

    Returns
    -------
    list of (numpy.ndarray, int)
    """
    n, n_cells = puzzle.n, puzzle.n * puzzle.n
    # both sums of a merge have MIN_RELATED cells or more (the smaller one has): shorter clues never merge
    clues = [rule for rule in puzzle.rules if isinstance(rule, LittleKiller) and len(rule.cell_list) >= MIN_RELATED]
    if len(clues) < 2 or len(clues) > MOST_SUMS or puzzle.n_values != n:
        return []
    houses = Houses(units, np.asarray(puzzle.board.value_of[:n], dtype=np.int64))
    sums: list[tuple[np.ndarray, int]] = []
    for rule in clues:
        cells = np.unique(np.asarray(rule.cell_list, dtype=np.int64))
        if cells.size == len(rule.cell_list) and cells[-1] < n_cells and not any(np.array_equal(cells, c) for c, _ in sums):
            sums.append((cells, int(rule.total)))   # not a cell counted twice, nor an extra cell
    # only clues related to another can merge: the rest are not scored (most puzzles stop here)
    pairs = [(i, j) for i in range(len(sums)) for j in range(i + 1, len(sums)) if _related(sums[i][0], sums[j][0], houses)]
    paired = sorted({k for pair in pairs for k in pair})
    active = [s for s in (_scored(*sums[k], houses, own=True) for k in paired) if s is not None]
    candidates = [(m, a, b) for i, a in enumerate(active) for b in active[i + 1:]
                  if (m := _merged(a, b, houses)) is not None]
    while candidates:
        best, a, b = max(candidates, key=lambda c: c[0].score)
        active = [s for s in active if s is not a and s is not b]
        candidates = [c for c in candidates if all(x is not a and x is not b for x in c[1:])]
        candidates += [(m, best, s) for s in active if (m := _merged(best, s, houses)) is not None]
        active.append(best)
    return [(s.cells, s.total) for s in active if not s.own and s.score > MIN_SCORE]


def combined_sum_rows(puzzle: Puzzle, units: HouseSource) -> tuple[np.ndarray, ...] | None:
    """The combined sums of ``puzzle``'s little killers (:func:`combined_sums`), as rule rows in
    :func:`pipeline.solvers.dfsrules_innies.implied_sum_rows`' form: ``(row, cell, digit, coef)``
    per term and ``(rhs, is_equal)`` per row; None when no merge is made.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle: its little killers over grid cells, its values.
    units : HouseSource
        Its shape's houses (every unit holds each value once).

    Returns
    -------
    tuple of numpy.ndarray or None
    """
    made = combined_sums(puzzle, units)
    if not made:
        return None
    n = puzzle.n
    sizes = np.array([cells.size for cells, _ in made])
    row_of, cell = np.repeat(np.arange(len(made)), sizes), np.concatenate([cells for cells, _ in made])
    digit = np.tile(np.arange(n, dtype=np.int64), row_of.size)
    coef = np.tile(np.asarray(puzzle.board.value_of[:n], dtype=np.int64), row_of.size)
    return (np.repeat(row_of, n).astype(np.int64), np.repeat(cell, n).astype(np.int64), digit, coef,
            np.array([total for _, total in made], dtype=np.int64), np.ones(len(made), dtype=bool))
