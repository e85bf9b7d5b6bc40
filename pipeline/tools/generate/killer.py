"""Killer puzzles: cages with sums drawn on a full grid, and cages refined until they alone (no
givens) determine the grid, the classic form.

Partition (:func:`random_cages`): cells in random order; each cell not yet caged starts a cage of a
random size in :data:`CAGE_SIZES` (at most N), grown by random orthogonal neighbours not yet caged
whose digit the cage lacks (a cage holds distinct digits). A cell left alone joins the smallest
adjacent cage that lacks its digit; it stays a cage of one cell only when every neighbouring cage
holds its digit already. Each cage gets the sum of its digits.

Refinement (:func:`refine_cages`, ``generate --cages-only``): while the counting engine finds a
second solution ``s2`` of the cages besides the grid ``s1``, the cages near the cells where the two
differ change so that ``s2`` breaks the new ones. The moves, all of which ``s2`` breaks:

* **split** a cage of 4 or more cells into two connected cages of 2 or more whose sums differ
  under ``s2``;
* **re-cut** a cage holding a differing cell together with an adjacent cage: their union split
  into two other connected cages of 2 to the largest size, each with distinct digits in ``s1``,
  one of which ``s2`` sums differently or repeats a digit in;
* **merge** two adjacent cages (distinct digits in ``s1``, at most the largest size) into one in
  which ``s2`` repeats a digit.

One move is chosen at random among all. A move always removes ``s2`` but may let other grids in (a
split drops the distinctness between its parts), so the loop is not monotone: after
:data:`REFINE_ROUNDS` rounds, or when no move exists, a given is added as a last resort (the
``s1`` digit of a random cell where ``s1`` and ``s2`` differ) and the loop goes on until unique.
How often that happens and how long the refinement takes: ``bench/generate_bench.py``
(``make bench``) and docs/tools.md.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pipeline.core.puzzle import Puzzle
from pipeline.core.rules import Cage

__all__ = ["CAGE_SIZES", "REFINE_ROUNDS", "KillerReport", "random_cages", "refine_cages", "with_cages"]

#: smallest and largest cage drawn by the partition (the largest is also capped at N).
CAGE_SIZES = (2, 5)
#: refinement rounds before givens are added as a last resort.
REFINE_ROUNDS = 60


@dataclass
class KillerReport:
    """What :func:`refine_cages` did: rounds (second solutions found), moves of each kind, givens added."""

    rounds: int = 0
    splits: int = 0
    recuts: int = 0
    merges: int = 0
    givens: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def _neighbours(cell: int, rows: int, cols: int) -> list[int]:
    r, c = divmod(cell, cols)
    return [(r + dr) * cols + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < rows and 0 <= c + dc < cols]


def _connected(cells: tuple[int, ...] | list[int], rows: int, cols: int) -> bool:
    members = set(cells)
    seen, todo = {cells[0]}, [cells[0]]
    while todo:
        for nb in _neighbours(todo.pop(), rows, cols):
            if nb in members and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return len(seen) == len(members)


def random_cages(solution: np.ndarray, rng: np.random.Generator, present: np.ndarray | None = None,
                 sizes: tuple[int, int] = CAGE_SIZES) -> list[tuple[int, ...]]:
    """A random partition of the (present) cells into connected cages with distinct digits.

    Parameters
    ----------
    solution : numpy.ndarray
        The full grid ``(rows, cols)``.
    rng : numpy.random.Generator
        The only source of randomness.
    present : numpy.ndarray, optional
        ``(rows * cols,)`` cells to cage (default all).
    sizes : (int, int)
        Smallest and largest size drawn (the largest capped at the number of digits).

    Returns
    -------
    list of tuple of int
        Cages as sorted canvas cell numbers, ordered by their first cell.

    Examples
    --------
    >>> grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    >>> cages = random_cages(grid, np.random.default_rng(0))
    >>> sorted(c for cage in cages for c in cage) == list(range(16))
    True
    """
    rows, cols = solution.shape
    flat = solution.ravel()
    n = int(flat.max())
    low, high = sizes[0], min(sizes[1], n)
    owner = np.full(flat.size, -1)
    if present is not None:
        owner[~present] = -2
    cages: list[list[int]] = []
    for start in rng.permutation(flat.size).tolist():
        if owner[start] != -1:
            continue
        target = int(rng.integers(low, high + 1))
        cage, digits = [start], {int(flat[start])}
        owner[start] = len(cages)
        while len(cage) < target:
            options = sorted({nb for cell in cage for nb in _neighbours(cell, rows, cols)
                              if owner[nb] == -1 and int(flat[nb]) not in digits})
            if not options:
                break
            pick = options[int(rng.integers(len(options)))]
            cage.append(pick)
            digits.add(int(flat[pick]))
            owner[pick] = len(cages)
        cages.append(cage)
    # a cell left alone joins the smallest adjacent cage that lacks its digit
    for k, cage in enumerate(cages):
        if len(cage) != 1:
            continue
        cell = cage[0]
        joins = sorted((len(cages[owner[nb]]), int(owner[nb])) for nb in _neighbours(cell, rows, cols)
                         if owner[nb] >= 0 and owner[nb] != k and len(cages[owner[nb]]) < n
                         and int(flat[cell]) not in {int(flat[c]) for c in cages[owner[nb]]})
        if joins:
            fewest = [j for size, j in joins if size == joins[0][0]]
            j = fewest[int(rng.integers(len(fewest)))]
            cages[j].append(cell)
            owner[cell] = j
            cage.clear()
    return sorted(tuple(sorted(cage)) for cage in cages if cage)


def with_cages(shape: Puzzle, cages: list[tuple[int, ...]], solution: np.ndarray,
               grid: np.ndarray | None = None) -> Puzzle:
    """``shape``'s rules plus one cage rule per cage, summed on ``solution``, with ``grid``'s clues.

    Parameters
    ----------
    shape : Puzzle
        Size, box, variant, regions and rules (other than these cages).
    cages : list of tuple of int
        Canvas cells of each cage.
    solution : numpy.ndarray
        The full grid the sums come from.
    grid : numpy.ndarray, optional
        The clues (default none).
    """
    flat = solution.ravel()
    rules = tuple(r for r in shape.rules if not isinstance(r, Cage)) + tuple(
        Cage(cage, int(flat[list(cage)].sum())) for cage in cages)
    clues = np.zeros_like(solution) if grid is None else grid
    return Puzzle(clues, shape.h, shape.w, shape.variant, shape.regions, rules, shape.layout)


def _moves(cages: list[tuple[int, ...]], s1: np.ndarray, s2: np.ndarray, rows: int, cols: int,
           high: int) -> list[tuple[str, tuple[int, ...], tuple[tuple[int, ...], ...]]]:
    """Every move that ``s2`` breaks: ``(kind, cages removed (indices), cages added)``."""
    a, b = s1.ravel(), s2.ravel()
    owner = {cell: k for k, cage in enumerate(cages) for cell in cage}
    differ = set(np.flatnonzero(a != b).tolist())

    def distinct(cells, g) -> bool:
        return len({int(g[c]) for c in cells}) == len(cells)

    def breaks(parts) -> bool:   # s2 breaks at least one part: another sum or a repeated digit
        return any(int(a[list(p)].sum()) != int(b[list(p)].sum()) or not distinct(p, b) for p in parts)

    def cuts(cells: tuple[int, ...], low: int):
        """Splits of ``cells`` into two connected parts of ``low..high`` cells with distinct s1 digits."""
        first, rest = cells[0], cells[1:]
        for size in range(len(rest) + 1):
            for chosen in itertools.combinations(rest, size):
                p = (first,) + chosen
                q = tuple(c for c in rest if c not in chosen)
                if low <= len(p) <= high and low <= len(q) <= high and distinct(p, a) and distinct(q, a) \
                        and _connected(p, rows, cols) and _connected(q, rows, cols):
                    yield tuple(sorted(p)), tuple(sorted(q))

    moves: list[tuple[str, tuple[int, ...], tuple[tuple[int, ...], ...]]] = []
    touched = sorted({owner[c] for c in differ})
    for k in touched:
        if len(cages[k]) >= 4:
            moves += [("split", (k,), parts) for parts in cuts(cages[k], 2) if breaks(parts)]
    pairs = sorted({(min(k, j), max(k, j)) for k in touched for cell in cages[k]
                    for nb in _neighbours(cell, rows, cols) if nb in owner and (j := owner[nb]) != k})
    for k, j in pairs:
        union = tuple(sorted(cages[k] + cages[j]))
        if len(union) <= 2 * high:
            old = {cages[k], cages[j]}
            moves += [("recut", (k, j), parts) for parts in cuts(union, 2) if set(parts) != old and breaks(parts)]
        if len(union) <= high and distinct(union, a) and not distinct(union, b):
            moves.append(("merge", (k, j), (union,)))
    return moves


def refine_cages(shape: Puzzle, cages: list[tuple[int, ...]], solution: np.ndarray, rng: np.random.Generator,
                 another: Callable[[Puzzle], np.ndarray | None],
                 rounds: int = REFINE_ROUNDS, *,
                 on_round: Callable[[int, int], None] | None = None) -> tuple[Puzzle, KillerReport]:
    """Change the cages until they alone determine ``solution`` (module docstring).

    Parameters
    ----------
    shape : Puzzle
        Size, box, variant, regions and other rules.
    cages : list of tuple of int
        The starting partition (:func:`random_cages`).
    solution : numpy.ndarray
        The full grid.
    rng : numpy.random.Generator
        The only source of randomness.
    another : callable
        ``another(puzzle) -> grid or None``: a solution of ``puzzle`` other than ``solution``
        (the counting engine's ``another``), None when ``solution`` is the only one.
    rounds : int
        Rounds of cage moves before givens are added.
    on_round : callable, optional
        ``on_round(rounds done, rounds of moves)`` before each round (generate's progress and
        time limit: it may raise to stop).

    Returns
    -------
    (Puzzle, KillerReport)
        The unique puzzle (cages, and givens only if the last resort was needed).
    """
    rows, cols = solution.shape
    high = min(CAGE_SIZES[1], int(solution.max()))
    cages = list(cages)
    givens = np.zeros_like(solution)
    report = KillerReport()
    while True:
        if on_round is not None:
            on_round(report.rounds, rounds)
        puzzle = with_cages(shape, cages, solution, givens)
        other = another(puzzle)
        if other is None:
            return puzzle, report
        report.rounds += 1
        moves = _moves(cages, solution, other, rows, cols, high) if report.rounds <= rounds else []
        if not moves:
            differ = np.flatnonzero(solution.ravel() != other.ravel())
            cell = int(differ[rng.integers(differ.size)])
            givens.flat[cell] = solution.flat[cell]
            report.givens += 1
            continue
        kind, gone, added = moves[int(rng.integers(len(moves)))]
        setattr(report, kind + "s", getattr(report, kind + "s") + 1)
        cages = sorted([c for k, c in enumerate(cages) if k not in gone] + list(added))
