"""Value-dependent exclusions in the ``dfsrules`` kernel (anti-taxicab: a digit ``v`` never at
taxicab distance ``v`` from itself): their pair tables take a digit only for some digits
(:func:`pipeline.solvers.dfsrules_pointing.value_exclusions`), and with them the kernel's locked
candidates join the pointing through pair relations, as ISS's PerfectAllDifferentValueExclusion
takes a digit of two places from every cell both exclude, a shared house too. A hand-made
position shows the deduction; the counts to 2 equal the SAT engine's on generated anti-taxicab
puzzles (as generated, half their givens gone, a given changed); ISS's anti-taxicab entries solve
to their published grid."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS, dfsrules_native
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules import rule_tables
from pipeline.solvers.dfsrules_pointing import value_exclusions
from pipeline.solvers.dfsrules_rows import DECIDED_ONLY
from pipeline.tools.generate.puzzles import generate
from dfsrules_agree import agree_with_sat, iss_entry_params, solves_iss_entry

#: ``rint``'s header slot of the house intersections' count (0: no locked candidates).
N_INTER = 25


def _tables(rules):
    return rules.compat[:2 * rules.n_pairs * rules.n].reshape(-1, rules.n)


@pytest.mark.parametrize("rules, want", [
    ([{"rule": "antitaxicab"}], True),
    ([{"rule": "nonconsecutive"}], False),
    ([{"rule": "antiknight"}], False),
    ([{"rule": "antiking"}, {"rule": "kropki", "color": "white", "cells": ["r1c1", "r2c1"]}], False),
], ids=["antitaxicab", "nonconsecutive", "antiknight", "antiking-kropki"])
def test_only_tables_that_take_the_equal_digit_for_some_digits_are_value_exclusions(rules, want):
    puzzle = parse_puzzle({"size": 9, "box": "3x3", "rules": rules})
    tables = rule_tables(puzzle, shape_tables(puzzle))
    assert value_exclusions(_tables(tables), 9) is want
    assert bool(tables.rint[N_INTER] > 0) is want   # locked candidates with them (no killer here)


def test_anti_taxicab_cells_skip_their_arcs_until_decided_with_and_without_the_support_lookup():
    """Every anti-taxicab arc supports every digit from a cell of two candidates or more, so a
    cell of several such tables is DECIDED_ONLY (the kernel's per-cell table slot); a cell that
    also has a Kropki dot keeps -1 (the dot acts before)."""
    puzzle = parse_puzzle({"size": 9, "box": "3x3", "rules": [
        {"rule": "antitaxicab"}, {"rule": "kropki", "color": "white", "cells": ["r5c5", "r6c5"]}]})
    rules = rule_tables(puzzle, shape_tables(puzzle))
    for rint in (rules.rint, rules.with_support_lookup()[0]):
        shared = rint[rint[36]:rint[36] + 81]
        assert shared[0] == DECIDED_ONLY and shared[40] == -1 and shared[49] == -1
        assert np.count_nonzero(shared == DECIDED_ONLY) == 79


needs_kernel = pytest.mark.skipif(SOLVERS["dfsrules"].available() is not None,
                                  reason=f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")


@needs_kernel
def test_a_digit_locked_in_a_box_by_its_row_leaves_the_box_in_an_anti_taxicab_grid():
    """Anti-taxicab 9x9, every cell open, the 5 of row 1 only in box 1: r2c1-r3c3 lose 5 (locked
    candidates, ISS's value exclusion through the shared box); nothing else changes (no decided
    cell, so no arc takes anything). The old tables left the position as it was."""
    puzzle = parse_puzzle({"size": 9, "box": "3x3", "rules": [{"rule": "antitaxicab"}]})
    shape = shape_tables(puzzle)
    rules = rule_tables(puzzle, shape)
    five = np.uint64(1 << 4)
    start = np.full(81, np.uint64(0x1FF), dtype=np.uint64)
    start[3:9] &= ~five
    want = start.copy()
    want[[9, 10, 11, 18, 19, 20]] &= ~five
    stack = np.zeros((82, 81), dtype=np.uint64)
    flags = np.zeros((82, 81), dtype=np.bool_)
    origins = np.full(82, -1, dtype=np.int64)
    found, tallies = np.zeros((2, 81), dtype=np.uint64), np.zeros(3, dtype=np.int64)
    for rint in (rules.rint, rules.with_pointing(rules.rint, shape)):
        stack[0], stack[1:], flags[:], origins[:], tallies[:] = start, 0, False, -1, 0
        dfsrules_native.load().search(stack, flags, origins, 1, found, tallies, shape, rint, rules.compat, 2, 1,
                                      False, rules.scratch(shape), 0)
        assert tallies[1] == 1
        root = stack[1].copy()   # the propagated root: the child, with the branch cell's digits back
        root[origins[1]] = stack[0][origins[1]] | stack[1][origins[1]]
        assert np.array_equal(root, want), np.flatnonzero(root != want)


def _variants(generated, rng) -> list[dict]:
    """The generated puzzle, the same with half its givens gone, and with one given's digit changed
    (to the first digit its houses' givens leave it: a repeated digit is refused when read)."""
    doc = generated.puzzle.to_document()
    grid = np.asarray(generated.puzzle.grid).reshape(-1)
    n = doc["size"]
    shown = np.flatnonzero(grid)
    fewer, changed = grid.copy(), grid.copy()
    fewer[rng.choice(shown, size=shown.size // 2, replace=False)] = 0
    at = int(rng.choice(shown))
    units = shape_tables(generated.puzzle).units
    seen = set(grid[units[np.any(units == at, axis=1)]].ravel().tolist())
    changed[at] = next(v for v in range(1, n + 1) if v not in seen)
    return [{**json.loads(json.dumps(doc)), "givens": "".join(str(v) if v else "." for v in g)}
            for g in (grid, fewer, changed)]


@needs_kernel
@pytest.mark.parametrize("size, count, seed", [(6, 4, 11), (9, 3, 12)])
def test_generated_anti_taxicab_puzzles_count_as_the_sat_engine(size, count, seed):
    pytest.importorskip("pysat")
    rng = np.random.default_rng(seed)
    seen = set()
    for generated in generate(size=size, count=count, seed=seed, rules=[{"rule": "antitaxicab"}]):
        for doc in _variants(generated, rng):
            seen.add(min(agree_with_sat(parse_puzzle(doc), 2, where=doc), 2))
    assert 1 in seen and len(seen) >= 2   # unique, and several or none


@needs_kernel
@pytest.mark.parametrize("entry", iss_entry_params(".AntiTaxicab"))
def test_iss_anti_taxicab_entries_solve_to_their_solution(entry):
    solves_iss_entry(entry)
