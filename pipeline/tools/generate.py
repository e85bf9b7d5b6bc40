"""Generate puzzles with exactly one solution, for every box shape and variant.

Uniqueness is proved by the counting engine, :class:`pipeline.solvers.sat.SatEngine` (python-sat,
CaDiCaL 1.5.3, one incremental solver per grid shape holding the rules; clues are assumptions).
To test whether a clue set still determines the known solution ``S``, the engine gets a
blocking clause "not S" guarded by a fresh activation literal: the clues are unique exactly when
the solver answers UNSAT under (clues, activation). The literal is retired afterwards.

What is sampled (no uniformity is claimed):

* a full grid is the model of a *fresh* CaDiCaL (same clauses) whose decision phases are random
  (one random preferred digit per cell), so the grid depends only on the seed, never on what the
  cached engine solved before; optionally followed by the seed-004 transformations (rows within
  bands, columns within stacks, bands, stacks, digit relabelling);
* clues are removed orbit by orbit (``--symmetry``) in a random order, each kept only if its
  removal would lose uniqueness. Removal is monotone (fewer clues, more solutions), so one pass
  leaves no removable orbit. Runs of orbits are tried together and split on failure, which gives
  the same puzzle as one-by-one removal with fewer engine calls;
* jigsaw regions start from the boxes and take random boundary swaps that keep every region
  connected and of N cells.
"""
from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import dataclass, field

import numpy as np

from pipeline.core.clauses import DEFAULT_AMO

from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.propagate import solved_by_singles
from pipeline.core.puzzle import Puzzle, default_box, format_grid, grid_to_string, parse_box
from pipeline.tools.rate import DIFFICULTIES, rate
from pipeline.solvers.sat import engine_for as sat_engine_for
from pipeline.core.variants import get_variant

__version__ = "2"
SYMMETRIES = ("none", "rot180", "rot90", "mirror", "diagonal")
FORMATS = ("line", "grid", "json", "csv")
#: boundary swaps tried per cell when making jigsaw regions (enough to leave the box shapes).
SWAPS_PER_CELL = 6
#: new full grids tried when ``--clues K`` or a proved-minimal symmetric pattern was not reached
#: (the best one is kept and the shortfall reported).
SHORTFALL_TRIES = 10
#: up to this many cells (16x16) clues are removed by exact SAT uniqueness checks (minimal
#: puzzles); above it by singles (unique, fewer clues removed) unless --minimal is asked.
EXACT_REMOVAL_MAX_CELLS = 256


# ---------------------------------------------------------------------------------------------
# the counting engine of a shape
# ---------------------------------------------------------------------------------------------
class ShapeEngine:
    """The rules of one grid shape in the SAT engine: generate's and explain's view of the shape's
    cached :class:`SatEngine` (:func:`pipeline.solvers.sat.engine_for`, the one engine cache).

    Parameters
    ----------
    shape : Puzzle
        Any puzzle of the shape (size, box, variant, regions); its clues are ignored.

    Examples
    --------
    >>> eng = ShapeEngine(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    >>> eng.count(np.zeros((4, 4), dtype=int), 1000)
    288
    """

    def __init__(self, shape: Puzzle):
        n = self.n = shape.n
        empty = Puzzle(np.zeros((n, n), dtype=np.int64), shape.h, shape.w, shape.variant, shape.regions)
        self.model = build_model(empty, "ijk", "C", clues="bounds")
        self.convention = self.model.convention
        self.sat = sat_engine_for(self.model, DEFAULT_AMO, keep_clauses=True)
        self.solver = self.sat.solver

    @property
    def clauses(self) -> list[list[int]]:
        """The rules' clauses (e.g. the hard part of a MaxSAT formula)."""
        return self.sat.rule_clauses

    def literals(self, r, c, d) -> np.ndarray:
        """Engine literals of 0-based (row, column, digit) (convention position + 1)."""
        return self.convention.position(r, c, d) + 1

    def clue_literals(self, grid: np.ndarray) -> list[int]:
        """Positive literals of the clues of ``grid`` (0 = empty)."""
        r, c = np.nonzero(grid)
        return self.literals(r, c, grid[r, c] - 1).tolist()

    def grid_of(self, model_lits) -> np.ndarray:
        """Grid of a solver model (list of signed literals over at least the cell variables)."""
        lits = np.asarray(model_lits[: self.n ** 3], dtype=np.int64)
        r, c, d = self.convention.cell_digit(lits[lits > 0] - 1)
        grid = np.zeros((self.n, self.n), dtype=np.int64)
        grid[r, c] = d + 1
        return grid

    def random_full_grid(self, rng: np.random.Generator) -> np.ndarray | None:
        """A full grid from a fresh solver with random decision phases (None: the rules have none).

        A fresh solver makes the grid a function of ``rng`` alone (the cached engine's learnt
        clauses would make it depend on earlier calls)."""
        n = self.n
        preferred = rng.integers(0, n, size=(n, n))
        phases = -np.arange(1, n ** 3 + 1, dtype=np.int64)
        r, c = np.indices((n, n))
        chosen = self.literals(r, c, preferred).ravel() - 1
        phases[chosen] = -phases[chosen]
        solver = self.sat.fresh_solver()
        try:
            solver.set_phases(phases.tolist())
            return self.grid_of(solver.get_model()) if solver.solve() else None
        finally:
            solver.delete()

    def exclude(self, solution: np.ndarray) -> int:
        """Add "not ``solution``" guarded by a new activation literal; return the literal."""
        act = self.sat.new_var()
        block = (-self.literals(*np.indices(solution.shape), solution - 1)).ravel().tolist()
        self.solver.add_clause(block + [-act])
        return act

    def retire(self, act: int) -> None:
        """Switch an activation literal off for good (its blocking clause is then satisfied)."""
        self.sat.retire(act)

    def determines(self, clue_grid: np.ndarray, act: int, budget: int | None = None) -> bool:
        """True when the clues are proved to admit no solution besides the one excluded under
        ``act``; with a conflict ``budget``, an undecided call counts as False (not proved)."""
        assumptions = self.clue_literals(clue_grid) + [act]
        if budget is None:
            return not self.solver.solve(assumptions=assumptions)
        self.solver.conf_budget(budget)
        return self.solver.solve_limited(assumptions=assumptions) is False

    def count(self, grid: np.ndarray, limit: int, keep: bool = False):
        """Solutions of the clues of ``grid`` up to ``limit`` (the engine's ``count_assumed``);
        with ``keep`` return ``(count, grids)``."""
        clues = self.clue_literals(grid)
        result = self.sat.count_assumed(clues, limit, clues)
        return (result.count, result.grids) if keep else result.count


def engine_for(puzzle: Puzzle) -> ShapeEngine:
    """The :class:`ShapeEngine` of ``puzzle``'s shape (size, box, variant, regions), around the
    shape's cached SAT engine (the cache is :func:`pipeline.solvers.sat.engine_for`'s)."""
    return ShapeEngine(puzzle)


def count_up_to(puzzle: Puzzle, limit: int) -> int:
    """Number of solutions of ``puzzle``, counted up to ``limit`` by the SAT engine.

    Parameters
    ----------
    puzzle : Puzzle
    limit : int
        Stop counting here (at least 1).

    Returns
    -------
    int

    Raises
    ------
    SolveError
        ``limit < 1``.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> count_up_to(parse_puzzle("1..." + "." * 12), 1000)
    72
    """
    return engine_for(puzzle).count(np.asarray(puzzle.grid), limit)


# ---------------------------------------------------------------------------------------------
# regions, transformations, symmetry
# ---------------------------------------------------------------------------------------------
def _is_connected(mask: np.ndarray) -> bool:
    from scipy import ndimage  # only jigsaw generation needs it: kept off every command's start-up

    return ndimage.label(mask)[1] == 1


def _neighbours(mask: np.ndarray) -> np.ndarray:
    """Cells orthogonally adjacent to ``mask`` (outside it)."""
    nb = np.zeros_like(mask)
    nb[1:] |= mask[:-1]
    nb[:-1] |= mask[1:]
    nb[:, 1:] |= mask[:, :-1]
    nb[:, :-1] |= mask[:, 1:]
    return nb & ~mask


def random_regions(n: int, rng: np.random.Generator, moves_per_cell: int = SWAPS_PER_CELL) -> np.ndarray:
    """N connected regions of N cells: the boxes of :func:`default_box` after random exchanges.

    An exchange moves a cell ``a`` of region A into an adjacent region B and a cell ``b`` of B,
    adjacent to what is left of A, into A; it is kept only when both regions stay connected, so
    sizes and connectivity hold throughout. (Swapping two adjacent cells alone never keeps a
    rectangle connected, which is why ``b`` is chosen separately.)

    Parameters
    ----------
    n : int
        Grid side.
    rng : numpy.random.Generator
        The only source of randomness (same generator state, same regions).
    moves_per_cell : int
        Exchange attempts per cell.

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` region numbers ``0..n-1``.

    Examples
    --------
    >>> r = random_regions(9, np.random.default_rng(0))
    >>> sorted(np.bincount(r.ravel()).tolist()) == [9] * 9
    True
    """
    h, w = default_box(n)
    regions = (np.arange(n)[:, None] // h) * (n // w) + np.arange(n)[None, :] // w
    if n < 3:
        return regions
    cells = np.arange(n * n).reshape(n, n)
    pairs = np.concatenate([np.stack([cells[:, :-1].ravel(), cells[:, 1:].ravel()], 1),
                            np.stack([cells[:-1].ravel(), cells[1:].ravel()], 1)])
    pairs = np.concatenate([pairs, pairs[:, ::-1]])
    flat = regions.ravel()  # a view: writes go to ``regions``
    for a, other in pairs[rng.integers(0, len(pairs), size=moves_per_cell * n * n)]:
        ra, rb = flat[a], flat[other]
        if ra == rb:
            continue
        flat[a] = rb
        options = np.flatnonzero((_neighbours(regions == ra) & (regions == rb)).ravel() & (cells.ravel() != a))
        if options.size:
            b = options[rng.integers(options.size)]
            flat[b] = ra
            if _is_connected(regions == ra) and _is_connected(regions == rb):
                continue
            flat[b] = rb
        flat[a] = ra
    return regions


def transform_grid(grid: np.ndarray, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Seed-004 transformations: rows within bands, columns within stacks, bands, stacks, digits.

    Examples
    --------
    >>> g = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    >>> t = transform_grid(g, 2, 2, np.random.default_rng(1))
    >>> sorted(set(map(tuple, np.sort(t, axis=1).tolist())))
    [(1, 2, 3, 4)]
    """
    n = grid.shape[0]
    bands = rng.permutation(n // h)
    rows = np.concatenate([b * h + rng.permutation(h) for b in bands])
    stacks = rng.permutation(n // w)
    cols = np.concatenate([s * w + rng.permutation(w) for s in stacks])
    relabel = np.concatenate([[0], rng.permutation(n) + 1])
    return relabel[grid[np.ix_(rows, cols)]]


def symmetry_orbits(n: int, symmetry: str) -> list[np.ndarray]:
    """Cell orbits (row-major cell numbers) under ``symmetry``; clues go orbit by orbit.

    Parameters
    ----------
    n : int
        Grid side.
    symmetry : str
        One of :data:`SYMMETRIES`.

    Returns
    -------
    list of numpy.ndarray
        A partition of ``0..n*n-1``.

    Raises
    ------
    PuzzleError
        Unknown symmetry.
    """
    idx = np.arange(n * n).reshape(n, n)
    images = {"none": [], "rot180": [idx[::-1, ::-1]], "rot90": [np.rot90(idx, k) for k in (1, 2, 3)],
              "mirror": [idx[:, ::-1]], "diagonal": [idx.T]}
    if symmetry not in images:
        raise PuzzleError(f"symmetry: unknown {symmetry!r}; expected one of {', '.join(SYMMETRIES)}")
    stacked = np.sort(np.stack([idx.ravel()] + [im.ravel() for im in images[symmetry]], axis=1), axis=1)
    return [np.unique(row) for row in np.unique(stacked, axis=0)]


# ---------------------------------------------------------------------------------------------
# puzzle generation
# ---------------------------------------------------------------------------------------------
@dataclass
class Generated:
    """A generated puzzle with its solution and how it was made (``to_dict`` for JSON/CSV)."""

    puzzle: Puzzle
    solution: np.ndarray
    seed: int
    index: int
    seconds: float
    minimal: bool | None
    target: int | None = None
    rating: dict | None = field(default=None)

    def to_dict(self) -> dict:
        d = {"puzzle": grid_to_string(self.puzzle.grid), "regions": self.puzzle.regions_string(),
             "variant": self.puzzle.variant, "size": self.puzzle.n, "box": f"{self.puzzle.h}x{self.puzzle.w}",
             "solution": grid_to_string(self.solution), "clues": self.puzzle.n_clues,
             "target_clues": self.target, "minimal": self.minimal, "unique": True, "seed": self.seed,
             "index": self.index, "version": __version__, "seconds": round(self.seconds, 6)}
        if self.rating is not None:
            d["rating"] = self.rating
        return d


def _remove_clues(solution: np.ndarray, orbits: list[np.ndarray], order: np.ndarray, target: int,
                  keeps_unique) -> tuple[np.ndarray, bool]:
    """One pass of orbit removal in ``order`` while ``keeps_unique(grid)`` proves uniqueness;
    returns (clue grid, every orbit was tried)."""
    grid = solution.copy()
    i, run = 0, 1
    while i < len(order):
        left = np.count_nonzero(grid) - target
        if left <= 0:
            return grid, False
        # a run of orbits removed together; never below the target
        sizes = np.cumsum([len(orbits[k]) for k in order[i:i + run]])
        run = max(1, int(np.searchsorted(sizes, left, side="right")))
        cells = np.concatenate([orbits[k] for k in order[i:i + run]])
        trial = grid.copy()
        trial.flat[cells] = 0
        if keeps_unique(trial):
            grid, i, run = trial, i + run, run * 2
        elif run == 1:
            i += 1
        else:
            run //= 2
    return grid, True


def removable_clues(puzzle: Puzzle, solution: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Cells whose clue can be removed with the puzzle staying unique (empty: minimal).

    One engine call per clue: with the solution excluded, the clues minus one are SAT exactly
    when that clue is needed. ``solution`` is found by the engine when not given.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle with exactly one solution.
    solution : numpy.ndarray, optional
        Its solution, if known.

    Returns
    -------
    list of (int, int)
        0-based (row, column) of the removable clues.

    Raises
    ------
    PuzzleError
        ``puzzle`` does not have exactly one solution.
    """
    eng = engine_for(puzzle)
    grid = np.asarray(puzzle.grid)
    if solution is None:
        count, grids = eng.count(grid, 2, keep=True)
        if count != 1:
            raise PuzzleError(f"minimal: the puzzle has {count if count < 2 else 'several'} solutions, not one")
        solution = grids[0]
    act = eng.exclude(solution)
    try:
        out = []
        for cell in np.flatnonzero(grid):
            trial = grid.copy()
            trial.flat[cell] = 0
            if eng.determines(trial, act):
                out.append((int(cell) // puzzle.n, int(cell) % puzzle.n))
        return out
    finally:
        eng.retire(act)


def is_minimal(puzzle: Puzzle) -> bool:
    """True when removing any single clue of the (unique) ``puzzle`` gives more than one solution.

    Parameters
    ----------
    puzzle : Puzzle

    Returns
    -------
    bool

    Raises
    ------
    PuzzleError
        ``puzzle`` does not have exactly one solution.
    """
    return not removable_clues(puzzle)


def _full_grid(n: int, h: int, w: int, variant: str, rng: np.random.Generator):
    for _ in range(100):
        regions = random_regions(n, rng) if get_variant(variant).regions else None
        shape = Puzzle(np.zeros((n, n), dtype=np.int64), h, w, variant, regions)
        eng = engine_for(shape)
        solution = eng.random_full_grid(rng)
        if solution is not None:
            return shape, eng, solution
    raise PuzzleError(f"generate: no full grid of {variant} {n}x{n} found in 100 tries")


def generate_one(n: int, h: int, w: int, variant: str, rng: np.random.Generator, *, symmetry: str = "none",
                 clues: int | None = None, minimal: bool = False, transform: bool = False,
                 seed: int = 0, index: int = 0) -> Generated:
    """One puzzle with exactly one solution (proved by the SAT engine).

    Parameters
    ----------
    n, h, w, variant
        Grid side, box shape and variant (``jigsaw*`` get new random regions).
    rng : numpy.random.Generator
        The only source of randomness.
    symmetry : str
        One of :data:`SYMMETRIES`; clues are removed orbit by orbit.
    clues : int, optional
        Stop removing at this many clues (the result may have more: see ``puzzle.n_clues``).
    minimal : bool
        Prove minimality (one engine call per clue): ``minimal`` is then True or False. Without it
        ``minimal`` is True when one exact pass tried every clue (removal is monotone: a clue
        needed once is needed with fewer clues), else None (not checked).
    transform : bool
        Apply :func:`transform_grid` to the full grid (classic and latin only).
    seed, index
        Recorded in the result.

    Returns
    -------
    Generated

    Raises
    ------
    PuzzleError
        ``transform`` for a variant the transformations do not preserve.
    """
    t0 = time.perf_counter()
    shape, eng, solution = _full_grid(n, h, w, variant, rng)
    if transform:
        if variant == "latin":
            solution = transform_grid(solution, 1, 1, rng)
        elif variant == "classic":
            solution = transform_grid(solution, h, w, rng)
        else:
            raise PuzzleError(f"transform: the seed-004 transformations keep only classic and latin grids, "
                              f"not {variant}")
    orbits = symmetry_orbits(n, symmetry)
    order = rng.permutation(len(orbits))
    target = clues if clues is not None else 0
    exact = minimal or n * n <= EXACT_REMOVAL_MAX_CELLS
    if exact:
        act = eng.exclude(solution)
        try:
            grid, tried_all = _remove_clues(solution, orbits, order, target, lambda g: eng.determines(g, act))
        finally:
            eng.retire(act)
    else:
        grid, tried_all = _remove_clues(solution, orbits, order, target,
                                        lambda g: solved_by_singles(Puzzle(g, h, w, variant, shape.regions)))
        if eng.count(grid, 2) != 1:  # the engine's proof (singles already imply it)
            raise PuzzleError(f"generate: internal error: {n}x{n} clue set not unique")
    puzzle = Puzzle(grid, h, w, variant, shape.regions)
    if minimal:  # one pass is already minimal by monotonicity; --minimal checks every clue anyway
        is_min = is_minimal(puzzle)
    else:
        is_min = True if exact and tried_all and symmetry == "none" else None
    return Generated(puzzle, solution, seed, index, time.perf_counter() - t0, minimal=is_min, target=clues)


def resolve_shape(size: int | None, box: str | None, variant: str) -> tuple[int, int, int]:
    """(N, h, w) from ``--size``/``--box`` (default 9x9; jigsaw and latin ignore boxes).

    Parameters
    ----------
    size : int, optional
    box : str, optional
        ``HxW``.
    variant : str

    Returns
    -------
    (int, int, int)

    Raises
    ------
    PuzzleError
        A box that does not tile, a size outside 1..64 or an unknown variant.
    """
    if box is not None:
        h, w = parse_box(box, size)
        n = h * w
    else:
        n = size or 9
        if n < 1 or n > 64:
            raise PuzzleError(f"size: generate handles 1..64, found {n}")
        h, w = default_box(n)
    if not get_variant(variant).boxes:
        h, w = default_box(n)
    return n, h, w


def new_seed() -> int:
    """A fresh random seed (printed so the run can be repeated)."""
    return int(np.random.SeedSequence().entropy % (2 ** 63))


def generate(*, size: int | None = None, box: str | None = None, variant: str = "classic", count: int = 1,
             seed: int | None = None, symmetry: str = "none", clues: int | None = None, minimal: bool = False,
             difficulty: str = "any", transform: bool = False, full: bool = False, max_tries: int = 200):
    """Yield ``count`` :class:`Generated` puzzles, each with exactly one solution.

    Puzzle ``i`` comes from ``numpy.random.default_rng([seed, i])`` alone, so a seed reproduces
    every puzzle (and any one of them by index). ``seed`` None chooses one (see ``.seed``).

    Parameters
    ----------
    size, box, variant
        Shape (see :func:`resolve_shape`).
    count : int
        How many puzzles.
    seed : int, optional
        Reproducible run.
    symmetry, clues, minimal, transform
        See :func:`generate_one`.
    difficulty : str
        ``any`` or a label of :data:`pipeline.tools.rate.DIFFICULTIES`: regenerate until the rating agrees.
    full : bool
        Full grids (no clue removed).
    max_tries : int
        Puzzles made per result when aiming at a difficulty.

    Yields
    ------
    Generated

    Raises
    ------
    PuzzleError
        Bad shape or option, or no puzzle of that difficulty in ``max_tries``.

    Examples
    --------
    >>> g = next(generate(box="2x3", seed=1))
    >>> g.minimal, count_up_to(g.puzzle, 2)
    (True, 1)
    """
    n, h, w = resolve_shape(size, box, variant)
    seed = new_seed() if seed is None else seed
    if count < 1:
        raise PuzzleError(f"-n: must be at least 1, found {count}")
    if difficulty not in ("any",) + DIFFICULTIES:
        raise PuzzleError(f"difficulty: unknown {difficulty!r}; expected any, {', '.join(DIFFICULTIES)}")
    if clues is not None and not 0 <= clues <= n * n:
        raise PuzzleError(f"clues: must be 0..{n * n}, found {clues}")
    target = n * n if full else clues
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        best, best_key, shortfalls = None, None, 0
        for _ in range(max_tries):
            g = generate_one(n, h, w, variant, rng, symmetry=symmetry, clues=target, minimal=minimal,
                             transform=transform, seed=seed, index=i)
            if difficulty != "any":
                rating = rate(g.puzzle)
                g.rating = rating.to_dict(brief=True)
                if rating.label != difficulty:
                    continue
            # what was asked but not reached: proved minimality, the clue target
            key = (minimal and g.minimal is False, target is not None and g.puzzle.n_clues > target,
                   g.puzzle.n_clues)
            if best is None or key < best_key:
                best, best_key = g, key
            if not (key[0] or key[1]):
                break
            shortfalls += 1
            if shortfalls >= SHORTFALL_TRIES:
                break
        if best is None:
            raise PuzzleError(f"difficulty: no {difficulty} puzzle in {max_tries} tries (seed {seed})")
        yield best


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------
CSV_COLUMNS = ("puzzle", "regions", "variant", "solution", "clues", "minimal", "seed", "index")


def format_results(results: list[Generated], fmt: str) -> str:
    """Text of ``results`` in ``fmt`` (line, grid, json lines, csv with a header)."""
    if fmt == "json":
        return "".join(json.dumps(g.to_dict()) + "\n" for g in results)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for g in results:
            d = g.to_dict()
            writer.writerow(["" if d[k] is None else d[k] for k in CSV_COLUMNS])
        return buf.getvalue()
    if fmt == "grid":
        return "\n".join(format_grid(g.puzzle.grid, g.puzzle.h if g.puzzle.has_boxes else None,
                                     g.puzzle.w if g.puzzle.has_boxes else None) + "\n" for g in results)
    return "".join(grid_to_string(g.puzzle.grid) + "\n" for g in results)
