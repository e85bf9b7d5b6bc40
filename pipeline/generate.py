"""Generate puzzles with exactly one solution, for every box shape and variant.

The counting engine is one incremental SAT solver per grid shape (python-sat, CaDiCaL 1.5.3) over
the exactly-one rows of :func:`pipeline.build.build_model` (``clues='bounds'``): clues go in as
assumptions, and solution counting adds blocking clauses guarded by a fresh activation literal that
is switched off afterwards, so the same solver serves every clue set of that shape.

What is sampled: a full grid is the first model CaDiCaL finds with random preferred phases (one
random digit preferred per cell), optionally followed by the seed-004 transformations (rows within
bands, columns within stacks, bands, stacks, digit relabelling). This is *not* a uniform sample of
grids or of puzzles; nothing here claims uniformity.
"""
from __future__ import annotations

import atexit
import json
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .build import build_model
from .errors import PipelineError, PuzzleError
from .puzzle import Puzzle, default_box, format_grid, grid_to_string, parse_box

__version__ = "1"
SYMMETRIES = ("none", "rot180", "rot90", "mirror", "diagonal")
DIFFICULTIES = ("any", "easy", "medium", "hard", "expert")


def _pysat():
    try:
        from pysat.solvers import Solver
    except ImportError:  # pragma: no cover - optional extra
        raise PipelineError("generate/explain need python-sat: pip install '.[sat]'") from None
    return Solver


# ---------------------------------------------------------------------------------------------
# the counting engine: one incremental solver per shape
# ---------------------------------------------------------------------------------------------
class ShapeEngine:
    """Incremental CaDiCaL over the rules of one grid shape; clues are assumptions.

    Variable of (r, c, d) (0-based) is ``(r*N + c)*N + d + 1``.
    """

    def __init__(self, puzzle: Puzzle):
        solver_cls = _pysat()
        n = puzzle.n
        self.n = n
        empty = Puzzle(np.zeros((n, n), dtype=np.int64), puzzle.h, puzzle.w, puzzle.variant, puzzle.regions)
        model = build_model(empty, "ijk", "C", clues="bounds")
        a = model.A.tocsr()
        self.solver = solver_cls("cadical153")
        self.next_var = n ** 3 + 1
        rows = np.split(a.indices.astype(np.int64) + 1, a.indptr[1:-1])
        for lits in rows:
            self.solver.add_clause(lits.tolist())
            i, j = np.triu_indices(len(lits), 1)
            for x, y in zip((-lits[i]).tolist(), (-lits[j]).tolist()):
                self.solver.add_clause([x, y])

    def lit(self, r, c, d) -> np.ndarray:
        return (np.asarray(r) * self.n + np.asarray(c)) * self.n + np.asarray(d) + 1

    def clue_lits(self, grid: np.ndarray) -> list[int]:
        r, c = np.nonzero(grid)
        return self.lit(r, c, grid[r, c] - 1).tolist()

    def new_var(self) -> int:
        self.next_var += 1
        return self.next_var - 1

    def model_grid(self) -> np.ndarray:
        m = np.asarray(self.solver.get_model()[: self.n ** 3])
        return (m.reshape(self.n, self.n, self.n) > 0).argmax(axis=2) + 1

    def solve(self, assumptions, phases=None) -> np.ndarray | None:
        if phases is not None:
            self.solver.set_phases(phases)
        return self.model_grid() if self.solver.solve(assumptions=assumptions) else None

    def count(self, grid: np.ndarray, limit: int, keep: int = 0) -> tuple[int, list[np.ndarray]]:
        """Solutions of the clues of ``grid`` up to ``limit`` (and the first ``keep`` grids)."""
        act = self.new_var()
        assumptions = self.clue_lits(grid) + [act]
        found, grids = 0, []
        while found < limit and self.solver.solve(assumptions=assumptions):
            g = self.model_grid()
            found += 1
            if len(grids) < keep:
                grids.append(g)
            block = (-self.lit(*np.indices(g.shape), g - 1)).ravel().tolist()
            self.solver.add_clause(block + [-act])
        self.solver.add_clause([-act])  # retire this count's blocking clauses
        return found, grids

    def unique_given(self, clue_grid: np.ndarray, act: int) -> bool:
        """True when the clues admit no solution other than the one excluded under ``act``."""
        return not self.solver.solve(assumptions=self.clue_lits(clue_grid) + [act])


_ENGINES: dict = {}


def close_engines() -> None:
    """Delete the cached solvers (also at exit, before pysat's module teardown)."""
    for eng in _ENGINES.values():
        eng.solver.delete()
    _ENGINES.clear()


atexit.register(close_engines)


def engine_for(puzzle: Puzzle) -> ShapeEngine:
    """The cached :class:`ShapeEngine` of ``puzzle``'s shape (size, box, variant, regions)."""
    key = (puzzle.n, puzzle.h, puzzle.w, puzzle.variant,
           None if puzzle.regions is None else puzzle.regions.tobytes())
    if key not in _ENGINES:
        if len(_ENGINES) > 8:
            close_engines()
        _ENGINES[key] = ShapeEngine(puzzle)
    return _ENGINES[key]


def count_up_to(puzzle: Puzzle, limit: int) -> int:
    """Number of solutions of ``puzzle``, counted up to ``limit``.

    Examples
    --------
    >>> from pipeline.puzzle import parse_puzzle
    >>> count_up_to(parse_puzzle("1..." + "." * 12), 1000)
    72
    """
    return engine_for(puzzle).count(np.asarray(puzzle.grid), limit)[0]


# ---------------------------------------------------------------------------------------------
# regions, full grids, transformations
# ---------------------------------------------------------------------------------------------
def random_regions(n: int, rng: np.random.Generator, attempts: int = 10_000) -> np.ndarray:
    """N connected regions of N cells each, grown from random seeds (restart when stuck).

    Raises
    ------
    PuzzleError
        If no partition was found in ``attempts`` tries.
    """
    for _ in range(attempts):
        regions = np.full((n, n), -1, dtype=np.int64)
        seeds = rng.choice(n * n, size=n, replace=False)
        regions.flat[seeds] = np.arange(n)
        sizes = np.ones(n, dtype=np.int64)
        stuck = False
        while sizes.min() < n:
            order = np.argsort(sizes + rng.random(n))  # smallest region grows first
            grew = False
            for reg in order:
                if sizes[reg] >= n:
                    continue
                mask = regions == reg
                nb = np.zeros_like(mask)
                nb[1:] |= mask[:-1]; nb[:-1] |= mask[1:]; nb[:, 1:] |= mask[:, :-1]; nb[:, :-1] |= mask[:, 1:]
                free = np.flatnonzero(nb & (regions < 0))
                if free.size:
                    regions.flat[rng.choice(free)] = reg
                    sizes[reg] += 1
                    grew = True
                    break
            if not grew:
                stuck = True
                break
        if not stuck and _connected(regions, n):
            return regions
    raise PuzzleError(f"regions: no partition of a {n}x{n} grid found in {attempts} attempts")


def _connected(regions: np.ndarray, n: int) -> bool:
    for reg in range(n):
        mask = regions == reg
        seen = np.zeros_like(mask)
        seen.flat[np.flatnonzero(mask)[0]] = True
        while True:
            grow = seen.copy()
            grow[1:] |= seen[:-1]; grow[:-1] |= seen[1:]; grow[:, 1:] |= seen[:, :-1]; grow[:, :-1] |= seen[:, 1:]
            grow &= mask
            if (grow == seen).all():
                break
            seen = grow
        if not (seen == mask).all():
            return False
    return True


def random_full_grid(shape: Puzzle, rng: np.random.Generator) -> np.ndarray | None:
    """A full grid of ``shape``'s rules from the engine with random preferred phases (None: none)."""
    eng = engine_for(shape)
    n = shape.n
    pref = rng.integers(0, n, size=(n, n))
    phases = -eng.lit(*np.indices((n, n, n))).ravel()
    phases[(np.indices((n, n))[0] * n + np.indices((n, n))[1]).ravel() * n + pref.ravel()] *= -1
    return eng.solve([], phases=phases.tolist())


def transform_grid(grid: np.ndarray, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Seed-004 transformations: rows within bands, columns within stacks, bands, stacks, digits."""
    n = grid.shape[0]
    bands = rng.permutation(n // h)
    rows = np.concatenate([b * h + rng.permutation(h) for b in bands])
    stacks = rng.permutation(n // w)
    cols = np.concatenate([s * w + rng.permutation(w) for s in stacks])
    relabel = np.concatenate([[0], rng.permutation(n) + 1])
    return relabel[grid[np.ix_(rows, cols)]]


def symmetry_orbits(n: int, symmetry: str) -> list[np.ndarray]:
    """Cell orbits (row-major cell numbers) under ``symmetry``; removal goes orbit by orbit."""
    idx = np.arange(n * n).reshape(n, n)
    images = [idx]
    if symmetry == "rot180":
        images.append(idx[::-1, ::-1])
    elif symmetry == "rot90":
        images += [np.rot90(idx, 1), np.rot90(idx, 2), np.rot90(idx, 3)]
    elif symmetry == "mirror":
        images.append(idx[:, ::-1])
    elif symmetry == "diagonal":
        images.append(idx.T)
    elif symmetry != "none":
        raise PuzzleError(f"symmetry: unknown {symmetry!r}; expected one of {', '.join(SYMMETRIES)}")
    stacked = np.sort(np.stack([im.ravel() for im in images], axis=1), axis=1)
    uniq = np.unique(stacked, axis=0)
    return [np.unique(row) for row in uniq]


# ---------------------------------------------------------------------------------------------
# puzzle generation
# ---------------------------------------------------------------------------------------------
@dataclass
class Generated:
    puzzle: Puzzle
    solution: np.ndarray
    seed: int
    index: int
    seconds: float
    minimal: bool
    target: int | None = None
    rating: dict | None = field(default=None)

    def to_dict(self) -> dict:
        d = {"puzzle": grid_to_string(self.puzzle.grid), "solution": grid_to_string(self.solution),
             "size": self.puzzle.n, "box": f"{self.puzzle.h}x{self.puzzle.w}", "variant": self.puzzle.variant,
             "clues": self.puzzle.n_clues, "target_clues": self.target, "minimal": self.minimal,
             "unique": True, "seed": self.seed, "index": self.index, "version": __version__,
             "seconds": round(self.seconds, 6)}
        if self.puzzle.regions is not None:
            d["regions"] = self.puzzle.regions_string()
        if self.rating is not None:
            d["rating"] = self.rating
        return d


def generate_one(n: int, h: int, w: int, variant: str, rng: np.random.Generator, *, symmetry: str = "none",
                 clues: int | None = None, minimal: bool = False, transform: bool = False,
                 seed: int = 0, index: int = 0) -> Generated:
    """One puzzle with exactly one solution (proved by the engine).

    Parameters
    ----------
    n, h, w, variant : grid shape and variant (``jigsaw*`` get new random regions).
    rng : numpy random generator (the only source of randomness).
    symmetry : one of :data:`SYMMETRIES`; clues are removed orbit by orbit.
    clues : stop removing at this many clues (the result may have more: see ``n_clues``).
    minimal : keep trying every orbit, so no orbit is removable (with ``none``: no clue).
    transform : apply :func:`transform_grid` to the engine's grid (boxed variants without diagonals).

    Returns
    -------
    Generated
    """
    t0 = time.perf_counter()
    for _ in range(100):
        regions = random_regions(n, rng) if variant.startswith("jigsaw") else None
        shape = Puzzle(np.zeros((n, n), dtype=np.int64), h, w, variant, regions)
        solution = random_full_grid(shape, rng)
        if solution is not None:
            break
    else:
        raise PuzzleError(f"generate: no full grid found for {variant} {n}x{n}")
    if transform and shape.has_boxes and not shape.has_diagonals and regions is None:
        solution = transform_grid(solution, h, w, rng)
    eng = engine_for(shape)
    act = eng.new_var()
    eng.solver.add_clause((-eng.lit(*np.indices((n, n)), solution - 1)).ravel().tolist() + [-act])
    grid = solution.copy()
    orbits = symmetry_orbits(n, symmetry)
    order = rng.permutation(len(orbits))
    target = clues if clues is not None else 0
    tried_all = True
    for k in order:
        if np.count_nonzero(grid) <= target:
            tried_all = False
            break
        trial = grid.copy()
        trial.flat[orbits[k]] = 0
        if eng.unique_given(trial, act):
            grid = trial
    eng.solver.add_clause([-act])
    puzzle = Puzzle(grid, h, w, variant, regions)
    is_min = tried_all and (symmetry == "none" or (minimal and is_minimal(puzzle)))
    return Generated(puzzle, solution, seed, index, time.perf_counter() - t0,
                     minimal=bool(is_min),
                     target=clues)


def is_minimal(puzzle: Puzzle) -> bool:
    """True when removing any single clue gives more than one solution."""
    eng = engine_for(puzzle)
    g = np.asarray(puzzle.grid)
    for cell in np.flatnonzero(g):
        trial = g.copy()
        trial.flat[cell] = 0
        if eng.count(trial, 2)[0] < 2:
            return False
    return True


def generate(*, size: int | None = None, box: str | None = None, variant: str = "classic", count: int = 1,
             seed: int | None = None, symmetry: str = "none", clues: int | None = None, minimal: bool = False,
             difficulty: str = "any", transform: bool = False, max_tries: int = 200):
    """Yield ``count`` :class:`Generated` puzzles; ``seed`` None chooses one (in each result)."""
    from .rate import rate  # same layer (app); rate imports nothing from here

    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2 ** 63))
    if box is not None:
        h, w = parse_box(box, size)
        n = h * w
    else:
        n = size or 9
        h, w = default_box(n)
    if variant in ("latin", "jigsaw", "jigsaw_x"):
        h, w = default_box(n)
    if difficulty not in DIFFICULTIES:
        raise PuzzleError(f"difficulty: unknown {difficulty!r}; expected one of {', '.join(DIFFICULTIES)}")
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        for _ in range(max_tries):
            g = generate_one(n, h, w, variant, rng, symmetry=symmetry, clues=clues, minimal=minimal,
                             transform=transform, seed=seed, index=i)
            if difficulty != "any" or n <= 16:
                r = rate(g.puzzle)
                g.rating = r.to_dict(brief=True)
                if difficulty != "any" and r.label != difficulty:
                    continue
            break
        else:
            raise PuzzleError(f"difficulty: no {difficulty} puzzle in {max_tries} tries")
        yield g


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------
def _format(g: Generated, fmt: str) -> str:
    p = g.puzzle
    if fmt == "json":
        return json.dumps(g.to_dict())
    if fmt == "grid":
        return format_grid(p.grid, p.h if p.has_boxes else None, p.w if p.has_boxes else None) + "\n"
    return grid_to_string(p.grid)


def cmd_generate(args) -> int:
    out_lines = []
    seed = args.seed
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        print(f"seed: {seed}", file=sys.stderr)
    variant = args.variant or "classic"
    results = list(generate(size=args.size, box=args.box, variant=variant, count=args.n, seed=seed,
                            symmetry=args.symmetry, clues=args.target_clues, minimal=args.minimal,
                            difficulty=args.difficulty, transform=args.transform))
    for g in results:
        out_lines.append(_format(g, args.format))
        if args.target_clues is not None and g.puzzle.n_clues > args.target_clues:
            print(f"puzzle {g.index}: reached {g.puzzle.n_clues} clues (target {args.target_clues})",
                  file=sys.stderr)
        if args.format == "line" and g.puzzle.regions is not None:
            out_lines[-1] += f",{g.puzzle.regions_string()}"
    text = "\n".join(out_lines) + "\n"
    if args.out:
        from formats.base import atomic_open

        with atomic_open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def add_command(subparsers) -> None:
    from .variants import VARIANTS

    p = subparsers.add_parser("generate", help="generate puzzles with exactly one solution")
    p.add_argument("--box", metavar="HxW", help="box shape (default sqrt(N)xsqrt(N))")
    p.add_argument("--size", type=int, metavar="N", help="grid side (default 9, or from --box)")
    p.add_argument("--variant", choices=list(VARIANTS), help="puzzle family (default classic)")
    p.add_argument("-n", type=int, default=1, metavar="COUNT", help="how many puzzles (default 1)")
    p.add_argument("--seed", type=int, help="reproducible run (default: chosen and printed on stderr)")
    p.add_argument("--symmetry", choices=SYMMETRIES, default="none")
    p.add_argument("--clues", dest="target_clues", type=int, metavar="K", help="aim for K clues")
    p.add_argument("--minimal", action="store_true", help="no clue removable without losing uniqueness")
    p.add_argument("--difficulty", choices=DIFFICULTIES, default="any")
    p.add_argument("--transform", action="store_true",
                   help="apply the seed-004 transformations to the engine's full grid")
    p.add_argument("--format", choices=("line", "grid", "json"), default="line")
    p.add_argument("--out", metavar="FILE", help="write here (atomically) instead of stdout")
    p.set_defaults(func=cmd_generate)
