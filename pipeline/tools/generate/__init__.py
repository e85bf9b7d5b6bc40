"""Generate puzzles with exactly one solution, for every box shape and variant.

The package by job: :mod:`~pipeline.tools.generate.engine` (the counting engine of a shape),
:mod:`~pipeline.tools.generate.clock` (a run's time budget and progress reports),
:mod:`~pipeline.tools.generate.regions` (jigsaw regions, grid transformations, symmetry orbits),
:mod:`~pipeline.tools.generate.grids` (full grids of large shapes without a solver),
:mod:`~pipeline.tools.generate.removal` (clue removal, minimality),
:mod:`~pipeline.tools.generate.puzzles` (one puzzle, the seeded stream) and
:mod:`~pipeline.tools.generate.output` (the result and its text forms). Every public name is
re-exported here.

Uniqueness is proved by the counting engine, :class:`pipeline.solvers.sat.SatEngine` (python-sat,
CaDiCaL 1.5.3, one incremental solver per grid shape holding the rules; clues are assumptions).
To test whether a clue set still determines the known solution ``S``, the engine gets a
blocking clause "not S" guarded by a fresh activation literal: the clues are unique exactly when
the solver answers UNSAT under (clues, activation). The literal is retired afterwards.

What is sampled (no uniformity is claimed):

* a full grid is the model of a *fresh* CaDiCaL (same clauses) whose decision phases are random
  (one random preferred digit per cell), so the grid depends only on the seed, never on what the
  cached engine solved before; from 36x36 on, classic grids with boxes and Latin squares come
  from the closed-form pattern mixed by unit-keeping exchanges instead
  (:mod:`~pipeline.tools.generate.grids`: the SAT search took minutes there); optionally followed
  by the seed-004 transformations (rows within bands, columns within stacks, bands, stacks, digit
  relabelling);
* clues are removed orbit by orbit (``--symmetry``) in a random order, each kept only if its
  removal would lose uniqueness. Removal is monotone (fewer clues, more solutions), so one pass
  leaves no removable orbit. Runs of orbits are tried together and split on failure, which gives
  the same puzzle as one-by-one removal with fewer engine calls;
* jigsaw regions start from the boxes and take random boundary swaps that keep every region
  connected and of N cells.
"""
from pipeline.tools.generate.clock import OutOfTime, RunClock
from pipeline.tools.generate.engine import ShapeEngine, count_up_to, engine_for
from pipeline.tools.generate.output import CSV_COLUMNS, FORMATS, Generated, __version__, format_results, iter_formatted
from pipeline.tools.generate.puzzles import SEED_BOUND, SHORTFALL_TRIES, DifficultyNotReached, generate, generate_one, new_seed, resolve_shape
from pipeline.tools.generate.regions import SWAPS_PER_CELL, SYMMETRIES, random_regions, symmetry_orbits, transform_grid
from pipeline.tools.generate.removal import EXACT_REMOVAL_MAX_CELLS, is_minimal, removable_clues

__all__ = ["CSV_COLUMNS", "DifficultyNotReached", "EXACT_REMOVAL_MAX_CELLS", "FORMATS", "Generated", "OutOfTime", "RunClock",
           "SEED_BOUND", "SHORTFALL_TRIES", "SWAPS_PER_CELL", "SYMMETRIES", "ShapeEngine", "__version__", "count_up_to", "engine_for", "format_results", "generate",
           "generate_one", "is_minimal", "iter_formatted", "new_seed", "random_regions", "removable_clues", "resolve_shape",
           "symmetry_orbits", "transform_grid"]
