"""Puzzle generation: one puzzle (full grid, then clue removal), and the reproducible stream of
:func:`generate`.

What is sampled (no uniformity is claimed): a full grid is the model of a *fresh* CaDiCaL (same
clauses) whose decision phases are random (one random preferred digit per cell), so the grid
depends only on the seed, never on what the cached engine solved before; optionally followed by
the seed-004 transformations (rows within bands, columns within stacks, bands, stacks, digit
relabelling); then clues are removed (:mod:`pipeline.tools.generate.removal`).
"""
from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.options import Bound, time_limit_bound
from pipeline.core.propagate import propagate_puzzle, solved_by_singles
from pipeline.core.puzzle import Puzzle, default_box, parse_box
from pipeline.core.variants import get_variant
from pipeline.solvers.sat_slices import fixed_slices
from pipeline.tools.generate.engine import CountingEngine, engine_for
from pipeline.tools.generate.output import Generated
from pipeline.tools.generate.grids import mixed_pattern_grid, pattern_grid_fits
from pipeline.tools.generate.layouts import grid_first_shape
from pipeline.tools.generate.regions import SYMMETRIES, random_regions, symmetry_orbits, transform_grid
from pipeline.tools.generate.clock import FULL_GRID_STEP, OutOfTime, Report, RunClock
from pipeline.tools.generate.removal import (EXACT_REMOVAL_MAX_CELLS, PROOF_REMOVAL_STEP, REMOVAL_STEP,
                                             SINGLES_FIRST_MIN_CELLS, is_minimal, removal_by_singles, remove_clues)
from pipeline.tools.generate.ruled import generate_ruled_one, split_rule_entries
from pipeline.tools.rate import DIFFICULTIES, rate

__all__ = ["DifficultyNotReached", "EXACT_EASY_TRIES", "FULL_GRID_STEP", "SEED_BOUND", "SHORTFALL_TRIES", "generate", "generate_one", "new_seed",
           "resolve_shape"]

class DifficultyNotReached(PuzzleError):
    """``max_tries`` puzzles were made and none was rated at the ``difficulty`` asked: not bad
    input, a request the seed did not meet (``generate`` ends its stream there, exit 1)."""


#: The seeds a run takes: the range :func:`new_seed` draws from. numpy would take any
#: non-negative int, but a seed is printed and kept in the JSON/CSV output, where a reader's
#: int64 column has to hold it; a negative one is numpy's ValueError deep inside the first puzzle.
SEED_MAX = 2 ** 63 - 1
SEED_BOUND = Bound(0, SEED_MAX, above="refuse", integer=True, what="an integer")
#: The largest side generate makes (the kernels' one-word candidate masks).
MAX_SIDE = 64

#: new full grids tried when ``--clues K`` or a proved-minimal symmetric pattern was not reached
#: (the best one is kept and the shortfall reported).
SHORTFALL_TRIES = 10
#: ``--difficulty easy``: tries whose clues are removed exactly (minimal puzzles, most of them
#: easy at 9x9) before the rest remove clues only while singles (and the rules' eliminations)
#: still solve the puzzle, easy by construction: a minimal 16x16 is almost never easy (none in
#: 27 tries of seed 3), nor a minimal anti-knight 9x9 (none in 200).
EXACT_EASY_TRIES = 5
#: full grids tried, each of a new random jigsaw layout, before the layout is made around a grid
#: (:func:`~pipeline.tools.generate.layouts.grid_first_shape`).
LAYOUT_FIRST_TRIES = 100


def _full_grid(n: int, h: int, w: int, variant: str, rng: np.random.Generator,
               clock: RunClock | None = None) -> tuple[Puzzle, CountingEngine | None, np.ndarray]:
    """The shape, its counting engine (None for a grid made without one: built when a proof needs
    it) and a full grid."""
    for attempt in range(LAYOUT_FIRST_TRIES):
        if clock is not None:   # a full grid is one solver call: the budget is checked between them
            clock.step(FULL_GRID_STEP, attempt, LAYOUT_FIRST_TRIES)
        regions = (random_regions(n, rng, deadline=None if clock is None else clock.deadline)
                   if get_variant(variant).regions else None)
        shape = Puzzle(np.zeros((n, n), dtype=np.int64), h, w, variant, regions)
        if pattern_grid_fits(n, variant, regions is not None):   # a large grid: no solver search
            return shape, None, mixed_pattern_grid(n, h, w, rng, latin=variant == "latin")
        eng = engine_for(shape, deadline=None if clock is None else clock.deadline)
        solution = eng.random_full_grid(rng, deadline=None if clock is None else clock.deadline)
        if solution is not None:
            return shape, eng, solution
    if get_variant(variant).regions:   # layouts almost all empty (a 6x6 jigsaw_x): regions around a grid
        found = grid_first_shape(lambda regions: Puzzle(np.zeros((n, n), dtype=np.int64), h, w, variant, regions),
                                 n, rng, None if clock is None else clock.deadline)
        if found is not None:
            return found
    raise PuzzleError(f"generate: no full grid of {variant} {n}x{n} found in {LAYOUT_FIRST_TRIES} tries")



def _check_singles_proof(puzzle: Puzzle, solution: np.ndarray, eng: CountingEngine | None,
                         deadline: float | None) -> None:
    """Check what removal by singles left: the engine's count where the shape has one (singles
    already imply uniqueness), else singles again, which must give ``solution`` (a 64x64 made
    without a solver is spared the SAT engine's load: 1.5 GB and seconds)."""
    if eng is not None:
        unique = eng.count(puzzle.grid, 2, deadline=deadline) == 1
    else:
        singles = propagate_puzzle(puzzle)
        unique = singles.solved and bool((singles.grid == solution).all())
    if not unique:
        raise PuzzleError(f"generate: internal error: {puzzle.n}x{puzzle.n} clue set not unique")


def generate_one(n: int, h: int, w: int, variant: str, rng: np.random.Generator, *, symmetry: str = "none",
                 clues: int | None = None, minimal: bool = False, transform: bool = False,
                 seed: int = 0, index: int = 0, clock: RunClock | None = None,
                 singles: bool = False) -> Generated:
    """One puzzle with exactly one solution, proved by the SAT engine, or by singles alone when
    the full grid came without a solver (36x36 and up) and its clues were removed by singles.

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
    clock : RunClock, optional
        Where the steps report progress, and the run's deadline.
    singles : bool
        Remove a clue only while naked and hidden singles still solve the puzzle (an ``easy``
        puzzle by construction; ``--difficulty easy``), as grids above 16x16 always do;
        ``minimal`` overrides it.

    Returns
    -------
    Generated

    Raises
    ------
    PuzzleError
        ``transform`` for a variant the transformations do not preserve.
    OutOfTime
        ``clock``'s deadline passed before the puzzle was finished.
    """
    t0 = time.perf_counter()
    deadline = clock.deadline if clock is not None else None
    shape, eng, solution = _full_grid(n, h, w, variant, rng, clock)
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
    exact = minimal or (n * n <= EXACT_REMOVAL_MAX_CELLS and not singles)
    singles_first = not exact or n * n >= SINGLES_FIRST_MIN_CELLS
    if singles_first:
        grid, tried_all = remove_clues(solution, orbits, order, target,
                                        lambda g: solved_by_singles(Puzzle(g, h, w, variant, shape.regions)), clock)
        _check_singles_proof(Puzzle(grid, h, w, variant, shape.regions), solution, eng, deadline)
    else:
        grid = solution
    others: list[np.ndarray] = []   # the second solutions removals ran into: witnesses for --minimal's check
    if exact:   # the orbits singles did not remove, each kept only if the engine proves it needed
        left = order[[bool(grid.flat[orbits[k]].any()) for k in order]]
        if eng is None:
            eng = engine_for(shape, deadline=deadline)
        act = eng.exclude(solution)

        def proved(trial: np.ndarray) -> bool:
            if eng.determines(trial, act, deadline=deadline):
                return True
            if eng.last_other is not None:   # 1-based digits up to 64: int16 keeps a 64x64 run's grids small
                others.append(eng.last_other.astype(np.int16))
            return False

        try:
            grid, tried_all = remove_clues(grid, orbits, left, target, proved, clock,
                                           PROOF_REMOVAL_STEP if singles_first else REMOVAL_STEP)
        finally:
            eng.retire(act)
    puzzle = Puzzle(grid, h, w, variant, shape.regions)
    is_min: bool | None
    if minimal:  # one pass is already minimal by monotonicity; --minimal checks every clue anyway,
        # by a verified second solution where removal found one, else by the engine
        is_min = is_minimal(puzzle, solution, clock, others)
    else:
        is_min = True if exact and tried_all and symmetry == "none" else None
    return Generated(puzzle, solution, seed, index, time.perf_counter() - t0, minimal=is_min, target=clues,
                     held_by_target=clues is not None and not tried_all)


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
        A box that does not tile, a side outside the variant's range (its least to 64), or an unknown variant.
    """
    spec = get_variant(variant)
    least = spec.min_n
    if box is not None:
        try:
            h, w = parse_box(box, size)
        except PuzzleError as e:   # about the keyword: the command line names it as typed (--box)
            raise PuzzleError.for_option("box", str(e).removeprefix("box: ")) from None
        n = h * w
        if n > MAX_SIDE:   # --box 9x9 ran on without end
            raise PuzzleError.for_option("box", f"{h}x{w} boxes make a grid of side {n}; {variant} puzzles are "
                                         f"{least}x{least} to {MAX_SIDE}x{MAX_SIDE}")
    else:
        n = 9 if size is None else size
    if not least <= n <= MAX_SIDE:   # one range for every side refused, as a puzzle of the variant would say it
        found = f"{n}x{n}" if n > 0 else str(n)
        hint = " (a Latin square from 2x2: --variant latin)" if variant != "latin" and 2 <= n < least else ""
        raise PuzzleError.for_option("size" if box is None else "box",
                                     f"{variant} puzzles are {least}x{least} to {MAX_SIDE}x{MAX_SIDE}, found {found}{hint}")
    if box is None or not spec.boxes:
        h, w = default_box(n)
    return n, h, w


def new_seed() -> int:
    """A fresh random seed (printed so the run can be repeated)."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)   # drawn from the OS: never a given sequence
    return int(entropy % (SEED_MAX + 1))


#: ``--rule-count`` at most this many times the cells: the families with the most instances mark
#: pairs of neighbours (under two a cell); more asked for only made the samplers loop.
MAX_RULE_COUNT_PER_CELL = 2


def _refuse_combinations(rules: bool, killer: bool, cages_only: bool, transform: bool, minimal: bool,
                         full: bool, *, symmetry: str = "none", clues: int | None = None,
                         rule_count: int | None = None) -> None:
    """One line naming the two options that do not go together (the first such pair), as the API
    spells them (``minimal=True``); the command line says them as typed (``--minimal``)."""
    beyond = [(name, value) for name, value, on in (("rules", ..., rules), ("killer", True, killer),
                                                    ("cages_only", True, cages_only)) if on]
    refuse = PuzzleError.for_options
    if minimal and full:
        raise refuse("generate: {minimal} cannot be combined with {full}: a full grid keeps every clue",
                     minimal=True, full=True)
    if full and symmetry != "none":
        raise refuse("generate: {symmetry} cannot be combined with {full}: the symmetry is the pattern of the "
                     "clues removed, and a full grid removes none", symmetry=symmetry, full=True)
    if full and clues is not None:
        raise refuse("generate: {clues} cannot be combined with {full}: a full grid keeps every clue",
                     clues=clues, full=True)
    if killer and cages_only:
        raise refuse("generate: {killer} cannot be combined with {cages_only}: {killer} keeps givens beside its "
                     "cages, {cages_only} none (choose one)", killer=True, cages_only=True)
    if cages_only and clues is not None:
        raise refuse("generate: {clues} cannot be combined with {cages_only}: its puzzles have no givens",
                     clues=clues, cages_only=True)
    if cages_only and symmetry != "none":   # it was ignored without a word
        raise refuse("generate: {symmetry} cannot be combined with {cages_only}: the symmetry is the pattern of "
                     "the givens, and its puzzles have none", symmetry=symmetry, cages_only=True)
    if rule_count is not None and not rules:
        raise refuse("generate: {rule_count} needs {rules}: it is how many instances of each {rules} family are "
                     "drawn", rule_count=rule_count, rules=...)
    if cages_only and full:
        raise refuse("generate: {cages_only} cannot be combined with {full}: a full grid has no givens for cages "
                     "to replace", cages_only=True, full=True)
    if not beyond:
        return
    other, value = beyond[0]
    if transform:
        raise refuse(f"generate: {{transform}} cannot be combined with {{{other}}}: it transforms grids of units "
                     "only (classic, latin)", transform=True, **{other: value})
    if minimal:
        left = "" if other == "cages_only" else " (without it, clues are still removed while the puzzle stays unique)"
        raise refuse(f"generate: {{minimal}} cannot be combined with {{{other}}}: it proves minimality for puzzles "
                     f"of units only{left}", minimal=True, **{other: value})


def generate(*, size: int | None = None, box: str | None = None, variant: str = "classic", count: int = 1,
             seed: int | None = None, symmetry: str = "none", clues: int | None = None, minimal: bool = False,
             difficulty: str = "any", transform: bool = False, full: bool = False,
             max_tries: int = 200, time_limit: float | None = None,
             progress: Report | None = None, rules: list | None = None, killer: bool = False,
             cages_only: bool = False, rule_count: int | None = None,
             rules_where: str = "rules") -> Iterator[Generated]:
    """An iterator of ``count`` :class:`Generated` puzzles, each with exactly one solution; the
    options are checked when it is called (a bad one raises before any puzzle is asked for).

    Puzzle ``i`` comes from ``numpy.random.default_rng([seed, i])`` alone, so a seed reproduces
    every puzzle (and any one of them by index). ``seed`` None chooses one (see ``.seed``).
    With a ``time_limit`` the stream ends early, after the puzzles finished within it (the one
    being made when it runs out is dropped): fewer than ``count`` puzzles means it ran out.

    Parameters
    ----------
    size, box, variant
        Shape (see :func:`resolve_shape`).
    count : int
        How many puzzles.
    seed : int, optional
        Reproducible run: an integer in :data:`SEED_BOUND` (0 to 2**63 - 1).
    symmetry, clues, minimal, transform
        See :func:`generate_one`.
    difficulty : str
        ``any`` or a label of :data:`pipeline.tools.rate.DIFFICULTIES`: regenerate until the rating agrees.
    full : bool
        Full grids (no clue removed).
    max_tries : int
        Puzzles made per result when aiming at a difficulty.
    time_limit : float, optional
        Seconds for the whole run (finite, > 0); default none.
    progress : callable, optional
        ``progress(index, step, done, total)``: puzzle ``index`` (0-based) is at ``done`` of
        ``total`` in ``step`` (the full grid's attempts, clue removal's orbits, the minimality
        proof's clues); called often, so it should be cheap.
    rules : list of dict, optional
        Rules beyond units (``[{"rule": "antiknight"}]``, composable), puzzle-document entries; a
        bare family with cells (``{"rule": "whisper"}``) is drawn from the full grid
        (:mod:`pipeline.tools.generate.samplers`).
    rules_where : str, default "rules"
        How messages name the ``rules`` entries: ``rules[0]``, or ``--rule 1`` when ``"--rule"``
        (the command line's options, counted from 1).
    killer, cages_only : bool
        Killer cages with sums (then clues removed), or cages alone with no givens
        (:mod:`pipeline.tools.generate.ruled`).
    rule_count : int, optional
        Instances drawn of each sampled family (at least 1; default per family).

    Returns
    -------
    iterator of Generated

    Raises
    ------
    PuzzleError
        Bad shape or option (a ``time_limit`` that is not a finite number above 0, a ``seed``
        outside :data:`SEED_BOUND`), or no puzzle
        of that difficulty in ``max_tries``.

    Examples
    --------
    >>> from pipeline.tools.generate import count_up_to
    >>> g = next(generate(box="2x3", seed=1))
    >>> g.minimal, count_up_to(g.puzzle, 2)
    (True, 1)
    """
    for option, value in (("size", size), ("count", count), ("clues", clues), ("rule_count", rule_count)):
        # the API's own check: a string or float here was a TypeError from deep inside
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
            raise PuzzleError.for_option(option, f"must be an integer, found {value!r}")
    for option, flag in (("minimal", minimal), ("transform", transform), ("full", full), ("killer", killer),
                         ("cages_only", cages_only)):
        if not isinstance(flag, (bool, np.bool_)):   # "no" is truthy: killer="no" drew cages
            raise PuzzleError.for_option(option, f"must be True or False, found {flag!r}")
    if progress is not None and not callable(progress):   # else a TypeError at the first report, mid-run
        raise PuzzleError.for_option("progress", f"must be a function (index, step, done, total), found {progress!r:.40}")
    if isinstance(max_tries, bool) or not isinstance(max_tries, (int, np.integer)) or max_tries < 1:
        raise PuzzleError.for_option("max_tries", f"must be an integer of at least 1, found {max_tries!r}")
    n, h, w = resolve_shape(size, box, variant)
    seed = new_seed() if seed is None else SEED_BOUND.apply("seed", seed, "", PuzzleError)
    if count < 1:
        raise PuzzleError.for_option("count", f"must be at least 1, found {count}")
    if difficulty not in ("any",) + DIFFICULTIES:
        raise PuzzleError(f"difficulty: unknown {difficulty!r}; expected any, {', '.join(DIFFICULTIES)}")
    if symmetry not in SYMMETRIES:   # symmetry_orbits' own message, now at the call, not the first puzzle
        raise PuzzleError(f"symmetry: unknown {symmetry!r}; expected one of {', '.join(SYMMETRIES)}")
    if clues is not None and not 0 <= clues <= n * n:
        raise PuzzleError.for_option("clues", f"must be 0..{n * n}, found {clues}")
    if full and difficulty != "any":
        raise PuzzleError.for_options("generate: {difficulty} rates a puzzle's clues; a {full} grid has every "
                                      "cell filled (leave one of them out)", difficulty=difficulty, full=True)
    if difficulty not in ("any", "easy") and removal_by_singles(n, minimal, bool(rules or killer or cages_only)):
        # removal by singles can only make easy puzzles: 200 tries would be hours at 64x64
        raise PuzzleError.for_options("generate: {difficulty} above 16x16 needs {minimal} (without it clues are "
                                      "removed only while singles solve the puzzle, so every puzzle rates easy)",
                                      difficulty=difficulty, minimal=True)
    target = n * n if full else clues
    if (killer or cages_only) and any(isinstance(e, dict) and e.get("rule") == "cage" for e in rules or []):
        raise PuzzleError.for_options("generate: {killer} and {cages_only} draw their own cages; give no cage "
                                      "with {rules}", killer=True, cages_only=True, rules=...)
    _refuse_combinations(bool(rules), killer, cages_only, transform, minimal, full, symmetry=symmetry,
                         clues=clues, rule_count=rule_count)
    if rule_count is not None and not 1 <= rule_count <= MAX_RULE_COUNT_PER_CELL * n * n:
        raise PuzzleError.for_option("rule_count", f"must be from 1 to {MAX_RULE_COUNT_PER_CELL * n * n} on a "
                                     f"{n}x{n} grid (no family has more instances there), found {rule_count}")
    if rules:   # a family no sampler draws is refused now, not at the first puzzle (after the seed line)
        split_rule_entries(list(rules), n, h, w, rules_where)
    ruled = dict(rules=list(rules or []), killer=killer, cages_only=cages_only, rule_count=rule_count,
                 rules_where=rules_where) if rules or killer or cages_only else None
    time_limit = time_limit_bound().apply("time_limit", time_limit, "", PuzzleError)
    # every option is checked above, when generate is called, not at the first puzzle asked for
    return _generated(n, h, w, variant, seed, count, max_tries, time_limit, progress, symmetry=symmetry,
                      clues=target, minimal=minimal, transform=transform, difficulty=difficulty, ruled=ruled)


def _generated(n: int, h: int, w: int, variant: str, seed: int, count: int, max_tries: int,
               time_limit: float | None, progress: Report | None, *, symmetry: str, clues: int | None,
               minimal: bool, transform: bool, difficulty: str, ruled: dict | None) -> Iterator[Generated]:
    """:func:`generate`'s puzzles, its options checked."""
    clock = RunClock.start(time_limit, progress)
    for i in range(count):
        clock.index = i
        try:
            # what a seed makes does not depend on --time-limit; a long proof still shows progress
            with fixed_slices(between=clock.remind):
                best = _best_of_tries(n, h, w, variant, seed, i, max_tries, clock, symmetry=symmetry, clues=clues,
                                      minimal=minimal, transform=transform, difficulty=difficulty, ruled=ruled)
        except OutOfTime:
            return   # the budget ran out: the stream ends after the finished puzzles
        yield best


def _best_of_tries(n: int, h: int, w: int, variant: str, seed: int, i: int, max_tries: int, clock: RunClock, *,
                   symmetry: str, clues: int | None, minimal: bool, transform: bool, difficulty: str,
                   ruled: dict | None = None) -> Generated:
    """Puzzle ``i`` of the stream: the first try that meets what was asked, else the best of them
    (:class:`OutOfTime` when ``clock``'s deadline passes first). ``ruled``: the rules and killer
    options of :func:`~pipeline.tools.generate.ruled.generate_ruled_one`."""
    rng = np.random.default_rng([seed, i])
    best, best_key, shortfalls = None, None, 0
    for attempt in range(1, max_tries + 1):
        clock.check()
        if difficulty != "any":   # the progress line says which try this is
            clock.attempt, clock.tries = attempt, max_tries
        singles = difficulty == "easy" and attempt > EXACT_EASY_TRIES
        if ruled is not None:
            g = generate_ruled_one(n, h, w, variant, ruled["rules"], rng, killer=ruled["killer"],
                                   cages_only=ruled["cages_only"], symmetry=symmetry, clues=clues, seed=seed, index=i,
                                   easy=singles, clock=clock, rule_count=ruled.get("rule_count"),
                                   rules_where=ruled.get("rules_where", "rules"))
        else:
            g = generate_one(n, h, w, variant, rng, symmetry=symmetry, clues=clues, minimal=minimal,
                             transform=transform, seed=seed, index=i, clock=clock, singles=singles)
        if difficulty != "any":
            rating = rate(g.puzzle, g.solution, unique=True)
            g.rating = rating.to_dict(brief=True)
            if rating.label != difficulty:
                continue
        # what was asked but not reached: proved minimality, the clue target
        key = (minimal and g.minimal is False and not g.stopped_at_target,
               clues is not None and g.puzzle.n_clues > clues and not g.stopped_at_target, g.puzzle.n_clues)
        if best is None or best_key is None or key < best_key:
            best, best_key = g, key
        if not (key[0] or key[1]):
            break
        shortfalls += 1
        if shortfalls >= SHORTFALL_TRIES:
            break
    if best is None:
        raise DifficultyNotReached(f"difficulty: no {difficulty} puzzle in {max_tries} tries (seed {seed})")
    return best
