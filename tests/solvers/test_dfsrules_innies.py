"""The sums a killer's cages imply over houses (pipeline/solvers/dfsrules_innies.py) and the
needed digits a cage keeps out of a unit that holds all their places (the kernel's ``_combos``):
every implied row holds on the solution it was drawn from, dfsrules counts densely caged killers
as the SAT engine does, and both cut the bench's killers to a few dozen nodes."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "core"))   # random_puzzles, rule_oracle

import rule_oracle as oracle  # noqa: E402
from random_puzzles import SHAPES, name  # noqa: E402
from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.errors import PuzzleError  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.core.verify import verify_grid  # noqa: E402
from pipeline.solvers import SOLVERS, dfsrules, get_solver  # noqa: E402
from pipeline.solvers.dfsrules_innies import implied_rule_rows, implied_sum_rows  # noqa: E402
from pipeline.tools.generate.puzzles import generate  # noqa: E402

pytest.importorskip("pysat")

CAP = 6
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def killer_documents(draw, honest: bool = True) -> tuple[dict, np.ndarray]:
    """A killer drawn from a random solution: most cells in cages of up to five cells (each with
    distinct digits there, and its sum), few or no givens; with ``honest=False`` a cage's sum may
    be off by one (no solution, or others). Returns the document and the solution (canvas)."""
    shape = draw(st.sampled_from(["4x4", "6x6", "jigsaw4"]))
    doc = dict(SHAPES[shape])
    n = doc["size"]
    base = oracle.solve_one(oracle.spec_from_document(dict(doc, rules=[])), draw(st.integers(0, 2 ** 20)))
    assume(base is not None)
    cells = draw(st.permutations([(r, c) for r in range(n) for c in range(n)]))
    cage_of: dict = {}
    cages: list[list] = []
    for cell in cells:
        if draw(st.integers(0, 9)) == 0:
            continue   # a cell outside every cage
        near = [cage_of[(cell[0] + dr, cell[1] + dc)] for dr, dc in oracle.ORTHOGONAL
                if (cell[0] + dr, cell[1] + dc) in cage_of]
        near = [k for k in near if len(cages[k]) < 5 and all(base[c] != base[cell] for c in cages[k])]
        if near and draw(st.integers(0, 3)) > 0:
            k = draw(st.sampled_from(near))
        else:
            k = len(cages)
            cages.append([])
        cages[k].append(cell)
        cage_of[cell] = k
    rules = []
    for cage in cages:
        total = sum(int(base[c]) for c in cage)
        if not honest and draw(st.integers(0, 7)) == 0:
            total += draw(st.sampled_from([-1, 1]))
        entry = {"rule": "cage", "cells": [name(c) for c in cage]}
        if draw(st.integers(0, 9)) > 0:
            entry["sum"] = total
        rules.append(entry)
    givens = draw(st.lists(st.sampled_from(cells), max_size=2, unique=True))
    doc.update(rules=rules, givens=[f"{name(c)}={int(base[c])}" for c in givens])
    return doc, base


def _row_values(rows: tuple[np.ndarray, ...], flat: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each implied row's left side on the grid ``flat`` (digit values per cell) and its right side."""
    row, cell, digit, coef, rhs, eq = rows
    on = values[digit] == flat[cell]          # the term of the cell's digit
    return np.bincount(row[on], weights=coef[on], minlength=rhs.size), rhs


@SETTINGS
@given(drawn=killer_documents())
def test_every_implied_sum_holds_on_the_grid_the_cages_came_from(drawn):
    doc, base = drawn
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    rows = implied_sum_rows(puzzle)
    if rows is None:
        return
    left, rhs = _row_values(rows, np.asarray(base).ravel(), np.asarray(puzzle.board.value_of[:puzzle.n]))
    assert np.array_equal(left, rhs), doc
    assert rows[5].all() and np.isin(rows[3], np.r_[-np.arange(1, 7), np.arange(1, 7)]).all()


@SETTINGS
@given(drawn=killer_documents(honest=False))
def test_dfsrules_counts_densely_caged_killers_as_the_sat_engine(drawn):
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    doc, _ = drawn
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    model = build_model(puzzle)
    got = get_solver("dfsrules").count(model, CAP, keep=CAP)
    assert got.count == get_solver("sat").count(model, CAP).count, doc
    assert all(verify_grid(grid, puzzle).ok for grid in got.grids)


def test_a_row_of_cages_and_a_hidden_cage_give_their_sums():
    # 4x4 (a solution: rows 1 2 3 4 / 3 4 1 2 / ...): row 1 holds the cage r1c1-r1c2 (sum 3) and
    # two of the three cells of r1c3-r1c4-r2c4 (sum 9), so r2c4, its outie, is 3 + 9 - 10 = 2; box
    # 1's cells outside its cage, r2c1-r2c2, are a hidden cage of 10 - 3 = 7
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3},
                                              {"rule": "cage", "cells": ["r1c3", "r1c4", "r2c4"], "sum": 9}]}
    rows = implied_sum_rows(parse_puzzle(doc))
    assert rows is not None
    row, cell, digit, coef, rhs, _ = rows
    sign = coef // (digit + 1)
    found = {(tuple(sorted({(int(c), int(s)) for c, s in zip(cell[row == r], sign[row == r])})), int(rhs[r]))
             for r in range(rhs.size)}
    assert (((7, 1),), 2) in found
    assert (((4, 1), (5, 1)), 7) in found
    assert len(found) == rhs.size                 # once each


def test_a_cage_one_cell_out_of_a_house_gives_the_rest_of_the_house_less_that_cell():
    # row 1 holds four cells of two cages each, the fifth ones in row 2 (ISS's hidden cages'
    # outies): r1c5-r1c9 less r2c1 is 45 - 15 = 30 and r1c1-r1c4, r1c9 less r2c9 is 45 - 30 = 15;
    # the union of row 1 gives only r1c9 against r2c1 and r2c9
    doc = {"size": 9, "box": "3x3",
           "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2", "r1c3", "r1c4", "r2c1"], "sum": 15},
                     {"rule": "cage", "cells": ["r1c5", "r1c6", "r1c7", "r1c8", "r2c9"], "sum": 30}]}
    rows = implied_sum_rows(parse_puzzle(doc))
    assert rows is not None
    row, cell, digit, coef, rhs, _ = rows
    sign = coef // (digit + 1)
    found = {(tuple(sorted({(int(c), int(s)) for c, s in zip(cell[row == r], sign[row == r])})), int(rhs[r]))
             for r in range(rhs.size)}
    assert (((4, 1), (5, 1), (6, 1), (7, 1), (8, 1), (9, -1)), 30) in found
    assert (((0, 1), (1, 1), (2, 1), (3, 1), (8, 1), (17, -1)), 15) in found


def test_the_houses_laid_out_once_are_each_shapes_own():
    # the unions of houses are cached by the houses themselves: the same cages over boxes and over
    # jigsaw regions imply other sums, each the same as from a cold cache
    from pipeline.solvers import dfsrules_innies

    cages = [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3},
             {"rule": "cage", "cells": ["r1c3", "r1c4", "r2c4"], "sum": 9}]
    boxes = parse_puzzle({"size": 4, "box": "2x2", "rules": cages})
    jigsaw = parse_puzzle({"size": 4, "box": "2x2", "regions": "0001021122312333", "rules": cages})
    warm = [implied_sum_rows(boxes), implied_sum_rows(jigsaw)]
    dfsrules_innies._rows_of_houses.cache_clear()
    cold = [implied_sum_rows(jigsaw), implied_sum_rows(boxes)][::-1]
    for a, b in zip(warm, cold):
        assert a is not None and b is not None
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(warm[0], warm[1]))


def test_no_rows_without_a_cage_sum_or_beyond_the_houses_values():
    plain = {"size": 4, "box": "2x2", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"]}]}
    assert implied_sum_rows(parse_puzzle(plain)) is None                       # a cage without a sum
    assert implied_sum_rows(parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "antiknight"}]})) is None
    wide = {"size": 4, "box": "2x2", "values": "1-5", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]}
    try:
        puzzle = parse_puzzle(wide)
    except PuzzleError:
        pytest.skip("this build reads no value set wider than the grid")
    assert implied_sum_rows(puzzle) is None                                    # houses miss a value


def test_a_cage_in_a_box_keeps_its_needed_digits_out_of_the_rest_of_the_box():
    """9x9, the cage r1c1-r2c2 of sum 10 in four cells needs 1, 2, 3 and 4 (the only set): every
    other cell of box 1 loses them before any branch, and so do the rest of the cage's rows once
    two of its cells are known to hold the same digit's places (here, none: the box only)."""
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    from pipeline.solvers.dfs import shape_tables, start_masks
    from pipeline.solvers.dfsrules import rule_tables
    from pipeline.solvers.dfsrules_kernel import propagate

    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "sum": 10}]}
    puzzle = parse_puzzle(doc)
    shape, rules = shape_tables(puzzle), rule_tables(puzzle)
    state = start_masks(np.zeros((1, 81), dtype=np.int64), 9)[0] & rules.allowed
    work = rules.scratch(shape)
    assert propagate(state, np.zeros(81, dtype=np.bool_), -1, shape.peers, shape.n_peers, shape.units,
                     shape.cell_units, shape.n_cell_units, shape.full, rules.rint, rules.compat, work)
    low = np.uint64(0b1111)
    for cell in (0, 1, 9, 10):
        assert state[cell] == low
    for cell in (2, 11, 18, 19, 20):          # the rest of box 1
        assert state[cell] & low == 0, cell
    assert state[3] & low == low              # row 1 beyond the box keeps them (two of four places there)


def test_the_bench_killers_need_a_few_dozen_nodes():
    """The bench's ten killers and ten killer + anti-knight + X puzzles: each unique, in fewer
    than 1,000 nodes together (14,450 and 11,306 before the implied sums, 120 and 156 with them,
    50 and 132 with the needed digits kept out of units too)."""
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    from pipeline.solvers.dfsrules import search_model

    lines = (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    docs = [json.loads(line)["document"] for line in lines
            if json.loads(line)["family"] in ("killer", "killer+anti-knight+X")]
    assert len(docs) == 20
    nodes = 0
    for doc in docs:
        found = search_model(build_model(parse_puzzle(doc)), 2)
        assert found.count == 1
        nodes += found.nodes
    assert nodes < 1_000, nodes


@pytest.mark.parametrize("kind", ["globalentropy", "globalmod"])
def test_a_window_rules_implied_rows_hold_on_its_solutions_and_its_handler_makes_them_redundant(kind):
    """A global entropy's (or global mod's) window holds at most two digits of a class: rows the
    rule implies (its four cells hold the other two classes too) that dfsrules cannot derive from the
    rule's "at least one" rows one at a time. Each holds on every generated solution and dfsrules
    counts as the SAT engine does; its window handler keeps each window's classes consistent, so
    it leaves them out: its search on the rule bench's ten puzzles of the kind visits as many nodes
    with them put in as without (they cut it 232,936 -> 115,802 nodes before the handler)."""
    for made in generate(size=6, count=3, seed=11, rules=[{"rule": kind}]):
        rows = implied_rule_rows(made.puzzle)
        assert rows is not None and rows[4].tolist() == [2] * rows[4].size and not rows[5].any()
        row, cell, digit, coef, rhs, _ = rows
        held = np.asarray(made.solution).ravel()[cell] == np.asarray(made.puzzle.board.value_of)[digit]
        assert (np.bincount(row, weights=coef * held, minlength=rhs.size) <= rhs).all()
        model = build_model(made.puzzle)
        for cut in (made.puzzle, parse_puzzle({**made.puzzle.to_document(), "givens": None})):
            m = build_model(cut)
            assert get_solver("dfsrules").count(m, CAP).count == get_solver("sat").count(m, CAP).count
        assert get_solver("dfsrules").solve(model, check_unique=True).unique
    lines = [json.loads(line) for line in (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()]
    documents = [line["document"] for line in lines if line["family"] == kind]
    nodes = {}
    for with_them in (True, False):
        original = dfsrules.implied_rule_rows
        try:
            if with_them:   # the engine leaves the window rules' out: put them in
                dfsrules.implied_rule_rows = lambda puzzle, skip: implied_rule_rows(puzzle)
            # puzzles read afresh: the rule tables are kept in each puzzle's shape cache
            nodes[with_them] = sum(get_solver("dfsrules").solve(build_model(parse_puzzle(d)), check_unique=True).nodes
                                   for d in documents)
        finally:
            dfsrules.implied_rule_rows = original
    assert nodes[True] == nodes[False]
