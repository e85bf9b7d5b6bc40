"""Puzzles with rules beyond units: ``generate --rule KIND`` and the killer modes.

* ``--rule windoku|antiknight|nonconsecutive|...`` (any rule without cells, composable): a full
  grid of the shape *with* its rules (:meth:`ShapeEngine.random_full_grid` or
  :func:`~pipeline.tools.generate.highs_engine.sampled_full_grid`), then clues removed as for
  every puzzle (:func:`~pipeline.tools.generate.removal.remove_clues`), each removal proved by
  the shape's counting engine (:func:`~pipeline.tools.generate.engine.counting_engine`: the SAT
  engine, which encodes rule rows; the learning engine where it does not).
* ``--rule whisper|thermo|kropki|skyscraper|...`` (a family of rules with cells, composable with
  the above): the full grid is drawn with the rules without cells only; then each family's
  sampler (:mod:`~pipeline.tools.generate.samplers`) draws instances true of that grid
  (``rule_count`` each, default per family) and clues are removed with them in place, as for
  ``--killer``. Strict Kropki / XV mark every pair of the grid that has a dot.
* ``--killer``: the same full grid, random cages (:func:`~pipeline.tools.generate.killer.random_cages`)
  with their sums, then clues removed with the cages in place.
* ``--cages-only``: the cages refined until they alone determine the grid
  (:func:`~pipeline.tools.generate.killer.refine_cages`); givens only as a last resort. One
  learning engine (:class:`~pipeline.tools.generate.lazy_engine.RuleSwitchEngine`) serves every
  round: what it learnt about the cages that stay is kept (the SAT engine would be a new engine
  per set of cages: 3 cages-only 9x9s, seed 1, took it 10.2 CPU s against this engine's 2.1 s).

Every result is proved unique once more at the end by :func:`~pipeline.tools.generate.engine.count_up_to`.
"""
from __future__ import annotations

import time

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, entry_names, with_rules
from pipeline.core.rules import RULES, rule_from_dict
from pipeline.core.variants import get_variant
from pipeline.tools.generate.clock import FULL_GRID_STEP, RunClock
from pipeline.tools.generate.engine import count_up_to, engine_for

from pipeline.tools.generate.killer import random_cages, refine_cages, with_cages
from pipeline.tools.generate.lazy_engine import RuleSwitchEngine
from pipeline.tools.generate.output import Generated
from pipeline.tools.generate.layouts import grid_first_shape
from pipeline.tools.generate.regions import random_regions, symmetry_orbits
from pipeline.tools.generate.removal import remove_clues
from pipeline.tools.generate.samplers import SAMPLERS, sample_entries, sampler_for
from pipeline.tools.rate import solved_by_easy_steps

__all__ = ["FULL_GRID_TRIES", "generate_ruled_one", "rule_shape", "split_rule_entries", "with_sampled"]

#: full grids tried before giving up (a HiGHS shape's lazy sampler may run out of rounds).
FULL_GRID_TRIES = 20


def rule_shape(n: int, h: int, w: int, variant: str, rule_entries: list, rng: np.random.Generator,
               names: list[str] | None = None, deadline: float | None = None) -> Puzzle:
    """The empty puzzle of the shape: variant (jigsaw regions drawn from ``rng``) and rules.

    Parameters
    ----------
    n, h, w, variant
        Grid side, box shape and variant.
    rule_entries : list of dict
        Puzzle-document rule entries (``{"rule": "antiknight"}``); cages are drawn by the killer modes.
    rng : numpy.random.Generator
        For jigsaw regions.
    names : list of str, optional
        How messages name each entry (default ``rules[k]``).
    deadline : float, optional
        The run's deadline (a ``time.perf_counter()`` value): it bounds the drawing of jigsaw
        regions, as :func:`~pipeline.tools.generate.puzzles.generate_one` bounds its own.

    Returns
    -------
    Puzzle

    Raises
    ------
    PuzzleError
        A rule the shape does not take (named, with where).
    OutOfTime
        ``deadline`` passed while the jigsaw regions were drawn.
    """
    regions = random_regions(n, rng, deadline=deadline) if get_variant(variant).regions else None
    return _shape_with_regions(n, h, w, variant, rule_entries, regions, names)


def _shape_with_regions(n: int, h: int, w: int, variant: str, rule_entries: list,
                        regions: np.ndarray | None, names: list[str] | None = None) -> Puzzle:
    # each entry named as the caller gave it: "--rule 1 (windoku)", "rules[0] (windoku)"
    return with_rules(np.zeros((n, n), dtype=np.int64), h, w, variant, regions, None, list(rule_entries),
                      names=names or entry_names("rules", len(rule_entries)))


def split_rule_entries(rule_entries: list, n: int, h: int, w: int,
                       where: str = "rules") -> tuple[list, list[str], list[str]]:
    """``--rule`` entries as the shape's fixed rules and the families to draw from the grid.

    A bare kind (``{"rule": "whisper"}``) with a sampler (:data:`~pipeline.tools.generate.samplers.SAMPLERS`)
    is drawn; a bare kind that reads without cells (``antiknight``, ``diagonal``) and every entry
    with fields (a JSON ``--rule``) is a rule of the shape, as before.

    Parameters
    ----------
    rule_entries : list of dict
        The ``--rule`` entries.
    n, h, w : int
        Grid side and box shape (a bare kind is read on a classic board of them, a Latin one below 4x4).
    where : str, default "rules"
        How messages name the list (``--rule`` on the command line: ``--rule 2``).

    Returns
    -------
    (list of dict, list of str, list of str)
        The fixed entries and the sampled families, each in the order given, and how messages
        name each fixed entry (its place in the list given).

    Raises
    ------
    PuzzleError
        A bare kind that needs cells and has no sampler (one line naming it).
    """
    fixed, kinds, fixed_names = [], [], []
    # a classic board; below its least side (a 3x3 Latin square with cages) a Latin one, as the grid is
    small = n < get_variant("classic").min_n
    board = Puzzle(np.zeros((n, n), dtype=np.int64), h, w, "latin" if small else "classic").base_board
    for name, entry in zip(entry_names(where, len(rule_entries)), rule_entries):
        if isinstance(entry, dict) and entry.get("rule") == "chaos":   # it ran minutes to make a classic puzzle
            raise PuzzleError(f"generate: {name} (chaos): the chaos rule alone changes no grid (its regions are free, "
                              "docs/conventions.md) and generate draws no clues of its regions; write a chaos "
                              "puzzle's region clues in a puzzle document")
        if isinstance(entry, dict) and entry.get("rule") == "doppelganger":   # its own message asked for a "values" key
            raise PuzzleError(f"generate: {name} (doppelganger): its grid holds the values 0-{n}, and generate makes "
                              f"grids of the values 1-{n} only; write a Doppelganger puzzle in a puzzle document "
                              f"with \"values\": \"0-{n}\"")
        kind = entry.get("rule") if isinstance(entry, dict) and len(entry) == 1 else None
        if not isinstance(kind, str) or kind not in RULES or (RULES[kind].global_rule and kind not in SAMPLERS):
            fixed.append(entry)   # read with the shape, as before (windoku on 2x3 refused there, by name)
            fixed_names.append(name)
        elif kind in SAMPLERS:
            kinds.append(kind)
        else:
            try:
                rule_from_dict(entry, board, name)
            except PuzzleError:
                sampler_for(kind)   # refuses in one line naming the family
                raise
            fixed.append(entry)
            fixed_names.append(name)
    return fixed, kinds, fixed_names


def with_sampled(shape: Puzzle, entries: list[dict]) -> Puzzle:
    """``shape`` (no clues) with the sampled rule ``entries`` added to its rules.

    Parameters
    ----------
    shape : Puzzle
        Size, box, variant, regions, layout and the fixed rules.
    entries : list of dict
        Rule entries drawn from the full grid.

    Returns
    -------
    Puzzle
    """
    board = shape.base_board
    drawn = tuple(rule_from_dict(e, board, f"sampled {e.get('rule')}") for e in entries)
    return Puzzle(np.zeros_like(np.asarray(shape.grid)), shape.h, shape.w, shape.variant, shape.regions,
                  tuple(shape.rules) + drawn, shape.layout, shape.values)


def generate_ruled_one(n: int, h: int, w: int, variant: str, rule_entries: list, rng: np.random.Generator, *,
                       killer: bool = False, cages_only: bool = False, symmetry: str = "none",
                       clues: int | None = None, seed: int = 0, index: int = 0, easy: bool = False,
                       clock: RunClock | None = None, rule_count: int | None = None,
                       rules_where: str = "rules") -> Generated:
    """One puzzle with rules beyond units and exactly one solution (module docstring).

    Parameters
    ----------
    n, h, w, variant
        Grid side, box shape and variant.
    rule_entries : list of dict
        Rules of the shape (puzzle-document entries).
    rng : numpy.random.Generator
        The only source of randomness.
    killer : bool
        Add random killer cages with their sums, then remove clues.
    cages_only : bool
        Killer with no givens: refine the cages until unique (implies ``killer``).
    symmetry, clues
        As :func:`~pipeline.tools.generate.puzzles.generate_one`.
    seed, index
        Recorded in the result.
    easy : bool
        Remove a clue only while the easy techniques still solve the puzzle
        (:func:`~pipeline.tools.rate.solved_by_easy_steps`: easy by construction, not minimal);
        not for ``cages_only``, which has no clues to remove.
    clock : RunClock, optional
        The run's budget and progress reports: asked before each full-grid try and each orbit
        of clue removal, and its deadline bounds the full-grid search and each uniqueness check.
    rule_count : int, optional
        Instances drawn of each sampled family (default
        :func:`~pipeline.tools.generate.samplers.default_count`).
    rules_where : str, default "rules"
        How messages name ``rule_entries`` (``--rule``: ``--rule 2``; else ``rules[1]``).

    Returns
    -------
    Generated
        ``minimal`` True when every clue was tried and every check decided (no cages-only
        puzzle: it has no clue), else None; ``killer`` the refinement's report.

    Raises
    ------
    PuzzleError
        No full grid in :data:`FULL_GRID_TRIES` tries, or (internal) a result that is not unique.
    OutOfTime
        ``clock``'s deadline passed before the puzzle was finished.
    """
    t0 = time.perf_counter()
    deadline = clock.deadline if clock is not None else None
    rule_entries, sampled, names = split_rule_entries(rule_entries, n, h, w, rules_where)
    for attempt in range(FULL_GRID_TRIES):
        if clock is not None:   # one search may be long (random jigsaw regions with anti-knight)
            clock.step(FULL_GRID_STEP, attempt, FULL_GRID_TRIES)
        shape = rule_shape(n, h, w, variant, rule_entries, rng, names, deadline=deadline)
        solution = engine_for(shape, deadline=deadline).random_full_grid(rng, deadline=deadline)
        if solution is not None:
            break
        if shape.regions is None:   # a complete search found none, and no other shape to try: say so at once
            kinds = ", ".join(rule.kind for rule in shape.rules)
            raise PuzzleError(f"generate: no {n}x{n} {variant} grid obeys {kinds}")
    else:   # random layouts all empty: regions made around a grid of the boxes, if they have one
        found = grid_first_shape(lambda regions: _shape_with_regions(n, h, w, variant, rule_entries, regions, names),
                                 n, rng, deadline)
        if found is None:
            kinds = ", ".join(e.get("rule", "?") for e in rule_entries) or "no rules"
            raise PuzzleError(f"generate: no full grid of {variant} {n}x{n} with {kinds} in {FULL_GRID_TRIES} tries")
        shape, _, solution = found
    if sampled:   # rules with cells, drawn from the grid (module docstring)
        shape = with_sampled(shape, sample_entries(sampled, solution, shape.base_board, rng, rule_count))
    report = None
    if cages_only:
        cages = random_cages(solution, rng, shape.present.ravel())
        switch = RuleSwitchEngine(shape)   # one engine for every round (module docstring)

        def another(p: Puzzle) -> np.ndarray | None:
            return switch.another_under(p, solution, deadline=deadline)

        def each_round(done: int, total: int) -> None:
            if clock is not None:
                clock.step("refining cages", done, total)

        puzzle, report = refine_cages(shape, cages, solution, rng, another, on_round=each_round)
        is_min = None
    else:
        if killer:
            shape = with_cages(shape, random_cages(solution, rng, shape.present.ravel()), solution)
        eng = engine_for(shape, deadline=deadline)   # SAT or the learning engine: each check is decided, no budget
        orbits = symmetry_orbits(n, symmetry)
        order = rng.permutation(len(orbits))
        if easy:
            grid, tried_all = remove_clues(solution, orbits, order, clues or 0, solved_by_easy_steps(shape), clock)
        else:
            act = eng.exclude(solution)
            try:
                grid, tried_all = remove_clues(solution, orbits, order, clues or 0,
                                               lambda g: eng.determines(g, act, deadline=deadline), clock)
            finally:
                eng.retire(act)
        puzzle = Puzzle(grid, shape.h, shape.w, shape.variant, shape.regions, shape.rules, shape.layout)
        is_min = True if not easy and tried_all and symmetry == "none" and not eng.undecided else None
    if count_up_to(puzzle, 2) != 1:   # the engine's proof, once more on the finished puzzle
        raise PuzzleError(f"generate: internal error: {n}x{n} puzzle with rules not unique")
    g = Generated(puzzle, solution, seed, index, time.perf_counter() - t0, minimal=is_min, target=clues,
                  held_by_target=clues is not None and not cages_only and not tried_all)
    g.killer = None if report is None else report.to_dict()
    return g
