"""pipeline.core.build against the constraint rows of docs/conventions.md, built independently in oracles."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from oracles import (box_regions, latin_grid, oracle_matrix, oracle_name, oracle_position, oracle_units, oracle_vector,
                     shuffled_sudoku, x_solution)
from pipeline.core.build import CLUE_ENCODINGS, build_model, constraint_rows
from pipeline.core.decode import grid_from_vector, vector_from_grid
from pipeline.core.errors import ConventionError, PipelineError
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle
from pipeline.core.variants import VARIANT_TABLE
from pipeline.solvers.highs import solve
from pipeline.tools.spy import solver_matrix

CONVENTIONS = [("ijk", "F"), ("ijk", "C"), ("block", "F"), ("block", "C")]


def dense(m):
    return np.asarray(m.toarray(), dtype=np.int64)


def check_against_oracle(model, puzzle):
    """Aeq (rows encoding) and its labels equal the oracle's [A; B], row for row."""
    conv = model.convention
    want, labels = oracle_matrix(puzzle.n, puzzle.h, puzzle.w, puzzle.variant, conv.scheme, conv.order,
                                 puzzle.regions, puzzle.grid)
    assert model.row_labels.tolist() == labels
    np.testing.assert_array_equal(dense(model.Aeq), want)
    assert np.all(model.Aeq.data == 1)


# ---------------------------------------------------------------------------------------------
# the seed's sizes
# ---------------------------------------------------------------------------------------------
def test_classic_9x9_rules_are_324_by_729_with_2916_ones():
    m = build_model(parse_puzzle("." * 81))
    assert m.A.shape == (324, 729)
    assert m.A.nnz == 2916
    assert np.all(m.A.data == 1.0)
    assert (m.n_rows, m.n_cols, m.nnz) == (324, 729, 2916)
    np.testing.assert_array_equal(np.diff(m.A.indptr), 9)               # N ones per row
    np.testing.assert_array_equal(np.asarray(m.A.sum(axis=0)).ravel(), 4)  # each x in 4 rows
    assert m.B.shape == (0, 729)


def test_seed_000_with_clue_rows_is_347_by_729():
    m = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="rows")
    assert m.Aeq.shape == (347, 729)
    assert m.B.shape == (23, 729)
    assert m.nnz == 2916 + 23
    np.testing.assert_array_equal(m.beq, np.ones(347))
    np.testing.assert_array_equal(m.lb, np.zeros(729))
    np.testing.assert_array_equal(m.ub, np.ones(729))
    np.testing.assert_array_equal(m.cost, np.zeros(729))
    assert m.integrality.all() and m.integrality.size == 729
    assert m.family_counts() == {"cell": 81, "row": 81, "col": 81, "box": 81, "clue": 23}
    s = m.summary()
    assert (s["rows"], s["columns"], s["nonzeros"], s["A"], s["B"]) == (347, 729, 2939, [324, 729], [23, 729])


@pytest.mark.parametrize("scheme,order", CONVENTIONS)
def test_seed_000_rows_and_columns_match_definition(scheme, order):
    p = parse_puzzle(DEFAULT_PUZZLE)
    check_against_oracle(build_model(p, scheme, order), p)


def test_clue_rows_are_labelled_by_row_then_column():
    p = parse_puzzle(DEFAULT_PUZZLE)
    m = build_model(p)
    labels = m.row_labels[324:].tolist()
    g = p.grid
    assert labels == [f"clue_{r + 1}_{c + 1}_{g[r, c]}" for r in range(9) for c in range(9) if g[r, c]]
    assert labels[0] == "clue_1_2_5" and labels[-1] == "clue_9_6_1"
    # each B row: a single 1 at x[r, c, d] (ijk/F: i + N(j-1) + N^2(k-1), 1-based)
    b = m.B.tocsr()
    for k, label in enumerate(labels):
        r, c, d = map(int, label.split("_")[1:])
        assert b[k].indices.tolist() == [r + 9 * (c - 1) + 81 * (d - 1) - 1]


# ---------------------------------------------------------------------------------------------
# families and row order for every variant
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("h,w", [(2, 2), (2, 3), (3, 2), (3, 3), (1, 4), (3, 4)])
@pytest.mark.parametrize("scheme,order", CONVENTIONS)
def test_classic_families_match_definition(h, w, scheme, order):
    grid = shuffled_sudoku(h, w, np.random.default_rng(h * w))
    grid[np.random.default_rng(0).random(grid.shape) < 0.7] = 0
    p = Puzzle(grid, h, w)
    check_against_oracle(build_model(p, scheme, order), p)


@pytest.mark.parametrize("scheme,order", CONVENTIONS)
def test_sudoku_x_adds_diag_then_anti(scheme, order):
    p = parse_puzzle("." * 81, variant="x")
    m = build_model(p, scheme, order)
    assert m.n_rows == 324 + 18
    labels = m.row_labels.tolist()
    assert labels[324:] == [f"diag_{d}" for d in range(1, 10)] + [f"anti_{d}" for d in range(1, 10)]
    check_against_oracle(m, p)
    a = m.A.tocsr()
    diag_7 = sorted(oracle_position(scheme, order, 3, 3, np.arange(9), np.arange(9), 6).tolist())
    anti_2 = sorted(oracle_position(scheme, order, 3, 3, np.arange(9), 8 - np.arange(9), 1).tolist())
    assert sorted(a[labels.index("diag_7")].indices.tolist()) == diag_7
    assert sorted(a[labels.index("anti_2")].indices.tolist()) == anti_2
    assert m.family_counts() == {"cell": 81, "row": 81, "col": 81, "box": 81, "diag": 9, "anti": 9}


@pytest.mark.parametrize("variant", ["jigsaw", "jigsaw_x"])
@pytest.mark.parametrize("order", ["F", "C"])
def test_jigsaw_region_family(variant, order):
    # regions: the 3x2 boxes of a 6x6 grid (not the default 2x3 boxes), ids permuted
    regions = box_regions(3, 2, labels=[4, 2, 0, 5, 1, 3])
    p = Puzzle(np.zeros((6, 6), dtype=int), 2, 3, variant, regions)
    m = build_model(p, "ijk", order)
    labels = m.row_labels.tolist()
    assert [lab for lab in labels if lab.startswith("region_")] == \
        [f"region_{g}_{d}" for g in range(1, 7) for d in range(1, 7)]
    assert not any(lab.startswith("box_") for lab in labels)
    assert any(lab.startswith("diag_") for lab in labels) == (variant == "jigsaw_x")
    check_against_oracle(m, p)
    # region 1 is the region with id 0: the third 3x2 box (rows 1-3, columns 5-6)
    a = m.A.tocsr()
    cells = [(r, c) for r in range(0, 3) for c in range(4, 6)]
    r, c = np.array(cells).T
    assert sorted(a[labels.index("region_1_4")].indices.tolist()) == \
        sorted(oracle_position("ijk", order, 2, 3, r, c, 3).tolist())


def test_jigsaw_from_data_style_regions():
    p = parse_puzzle("..43...1.2......", regions="0001011122332233")
    m = build_model(p)
    check_against_oracle(m, p)
    assert m.family_counts() == {"cell": 16, "row": 16, "col": 16, "region": 16, "clue": 4}


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("order", ["F", "C"])
def test_latin_square_has_no_box_family(n, order):
    p = parse_puzzle("." * (n * n), variant="latin")
    m = build_model(p, "ijk", order)
    assert m.A.shape == (3 * n * n, n ** 3)
    assert m.family_counts() == {"cell": n * n, "row": n * n, "col": n * n}
    check_against_oracle(m, p)


@pytest.mark.parametrize("variant,regions", [("jigsaw", "0011001122332233"), ("jigsaw_x", "0011001122332233"),
                                             ("latin", None)])
def test_block_scheme_refused_without_boxes(variant, regions):
    p = parse_puzzle("." * 16, variant=variant, regions=regions)
    with pytest.raises(ConventionError) as err:
        build_model(p, "block", "F")
    assert str(err.value) == ("scheme: 'block' is defined only for puzzles with rectangular boxes, "
                              f"not for variant {variant!r}")


def test_unknown_clue_encoding_and_bad_objective():
    p = parse_puzzle(DEFAULT_PUZZLE)
    with pytest.raises(PipelineError) as err:
        build_model(p, clues="cuts")
    assert str(err.value) == "clues: unknown clue encoding 'cuts'; expected one of rows, bounds, reduce"
    with pytest.raises(PipelineError) as err:
        build_model(p, objective=np.ones(10))
    assert str(err.value) == "objective: expected 729 costs, found 10"
    with pytest.raises(ConventionError):
        build_model(p, scheme="kji")


def test_custom_objective_follows_columns():
    p = parse_puzzle(DEFAULT_PUZZLE)
    cost = np.arange(729, dtype=float)  # SEEDS.md 2: f = (1:729)'
    m = build_model(p, clues="reduce", objective=cost)
    np.testing.assert_array_equal(m.cost, cost[m.columns])
    assert solve(m).solved


# ---------------------------------------------------------------------------------------------
# clue encodings
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scheme,order", CONVENTIONS)
def test_bounds_encoding_sets_lb_on_clue_variables(scheme, order):
    p = parse_puzzle(DEFAULT_PUZZLE)
    m = build_model(p, scheme, order, clues="bounds")
    assert m.Aeq.shape == (324, 729)
    assert (m.Aeq != m.A).nnz == 0
    assert not any(lab.startswith("clue_") for lab in m.row_labels)
    r, c = np.nonzero(p.grid)
    want = np.zeros(729)
    want[oracle_position(scheme, order, 3, 3, r, c, p.grid[r, c] - 1)] = 1
    np.testing.assert_array_equal(m.lb, want)
    assert m.lb.sum() == 23
    np.testing.assert_array_equal(m.ub, np.ones(729))


def reduce_oracle(puzzle):
    """Kept (r, c, d) and kept rule-row labels of the 'reduce' encoding, from its definition:
    a variable is fixed by the clues when its cell holds a clue or a unit through its cell has
    the digit as a clue; a row is satisfied when it contains a clue variable."""
    n, g = puzzle.n, puzzle.grid
    units = oracle_units(n, puzzle.h, puzzle.w, puzzle.variant, puzzle.regions)
    kept = []
    for r in range(n):
        for c in range(n):
            if g[r, c]:
                continue
            seen = {int(g[rr, cc]) for _, us in units for cells in us if (r, c) in cells for rr, cc in cells}
            kept += [(r, c, d) for d in range(n) if d + 1 not in seen]
    rows = [f"cell_{r + 1}_{c + 1}" for r in range(n) for c in range(n) if not g[r, c]]
    for fam, us in units:
        for u, cells in enumerate(us):
            present = {int(g[r, c]) for r, c in cells}
            for d in range(1, n + 1):
                if d not in present:
                    rows.append(f"{fam}_{d}" if fam in ("diag", "anti") else f"{fam}_{u + 1}_{d}")
    return kept, rows


@pytest.mark.parametrize("scheme,order", CONVENTIONS)
@pytest.mark.parametrize("variant", ["classic", "x"])
def test_reduce_kept_columns_and_dropped_rows(scheme, order, variant):
    puzzle_text = DEFAULT_PUZZLE if variant == "classic" else \
        "..1...2....23....44........5.3....6..1......5..6..........78.......9.....7...1.9."  # 9x9_x.txt #1
    p = parse_puzzle(puzzle_text, variant=variant)
    m = build_model(p, scheme, order, clues="reduce")
    kept, rows = reduce_oracle(p)
    r, c, d = np.array(kept).T
    want_cols = np.sort(oracle_position(scheme, order, 3, 3, r, c, d))
    np.testing.assert_array_equal(m.columns, want_cols)     # kept-column map, increasing positions
    assert m.n_cols == len(kept)
    full, labels = oracle_matrix(9, 3, 3, variant, scheme, order)
    assert sorted(m.row_labels.tolist()) == sorted(rows)
    assert m.row_labels.tolist() == [lab for lab in labels if lab in set(rows)]  # order kept
    keep_rows = [labels.index(lab) for lab in m.row_labels]
    np.testing.assert_array_equal(dense(m.Aeq), full[np.ix_(keep_rows, want_cols)])
    np.testing.assert_array_equal(m.lb, 0)
    name_of = {int(oracle_position(scheme, order, 3, 3, *t)): oracle_name(scheme, 3, 3, *t) for t in kept}
    assert m.col_names.tolist() == [name_of[int(j)] for j in want_cols]


@pytest.mark.parametrize("scheme,order", CONVENTIONS)
def test_reduce_solution_expands_to_full_solution(scheme, order):
    p = parse_puzzle(DEFAULT_PUZZLE)
    full = solve(build_model(p, scheme, order, clues="rows"))
    red_model = build_model(p, scheme, order, clues="reduce")
    red = solve(red_model)
    assert full.solved and red.solved
    assert red.x.size == red_model.n_cols < 729
    expanded = red_model.full_vector(red.x)
    assert expanded.shape == (729,)
    np.testing.assert_array_equal(np.rint(expanded), np.rint(full.x))
    np.testing.assert_array_equal(np.rint(expanded), oracle_vector(full.grid, scheme, order, 3, 3))
    np.testing.assert_array_equal(red.grid, full.grid)
    with pytest.raises(PipelineError) as err:
        red_model.full_vector(np.zeros(729))
    assert str(err.value) == f"solution: expected {red_model.n_cols} values, found 729"


def test_reduce_without_clues_keeps_everything():
    p = parse_puzzle("." * 16)
    m = build_model(p, clues="reduce")
    np.testing.assert_array_equal(m.columns, np.arange(64))
    assert (m.Aeq != build_model(p).Aeq).nnz == 0


# ---------------------------------------------------------------------------------------------
# large grids
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,h", [(16, 4), (25, 5), (36, 6), (100, 10)])
def test_large_grids_build(n, h):
    p = Puzzle(np.zeros((n, n), dtype=int), h, n // h)
    m = build_model(p)
    assert m.A.shape == (4 * n * n, n ** 3)
    assert m.nnz == 4 * n ** 3
    assert (m.n_rows, m.n_cols) == (4 * n * n, n ** 3)
    # spot-check a few rows of each family against the definition
    w = n // h
    families = oracle_units(n, h, w, "classic")
    rng = np.random.default_rng(n)
    for k in rng.choice(4 * n * n, 8, replace=False):
        fam, rest = divmod(int(k), n * n)
        if fam == 0:
            r, c = divmod(rest, n)
            want = oracle_position("ijk", "F", h, w, r, c, np.arange(n))
        else:
            u, d = divmod(rest, n)
            r, c = np.array(families[fam - 1][1][u]).T
            want = oracle_position("ijk", "F", h, w, r, c, d)
        assert sorted(m.A.indices[m.A.indptr[k]:m.A.indptr[k + 1]].tolist()) == sorted(want.tolist()), (n, k)


# ---------------------------------------------------------------------------------------------
# property: any shape, variant, convention, clue encoding
# ---------------------------------------------------------------------------------------------
def solution_for(variant, h, w, rng):
    """(solution grid, regions) for a random valid instance of ``variant``, or None."""
    n = h * w
    if variant == "classic":
        return shuffled_sudoku(h, w, rng), None
    if variant == "latin":
        relabel = np.concatenate([[0], rng.permutation(n) + 1])
        return relabel[latin_grid(n)[np.ix_(rng.permutation(n), rng.permutation(n))]], None
    if variant == "jigsaw":
        # a Sudoku with w x h boxes read as a jigsaw whose regions are those boxes
        return shuffled_sudoku(w, h, rng), box_regions(w, h, labels=rng.permutation(n))
    grid = x_solution(h, w)
    if grid is None:
        return None
    relabel = np.concatenate([[0], rng.permutation(n) + 1])
    grid = relabel[grid]
    if variant == "x":
        return grid, None
    return grid, box_regions(h, w, labels=rng.permutation(n))  # jigsaw_x


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    h=st.integers(1, 4), w=st.integers(1, 4),
    variant=st.sampled_from(["classic", "x", "jigsaw", "jigsaw_x", "latin"]),
    scheme=st.sampled_from(["ijk", "block"]), order=st.sampled_from(["F", "C"]),
    clues=st.sampled_from(CLUE_ENCODINGS), seed=st.integers(0, 2**32 - 1), density=st.floats(0, 1),
)
def test_property_encode_decode_and_feasibility(h, w, variant, scheme, order, clues, seed, density):
    if variant not in ("classic", "x"):
        scheme = "ijk"
    rng = np.random.default_rng(seed)
    assume(h * w >= VARIANT_TABLE[variant].min_n)   # smaller grids are not puzzles (test_small_grids_are_refused)
    found = solution_for(variant, h, w, rng)
    assume(found is not None)  # no Sudoku-X with 1x2, 1x3, 2x1, 3x1 boxes
    solution, regions = found
    n = h * w
    puzzle = Puzzle(np.where(rng.random((n, n)) < density, solution, 0), h, w, variant, regions)
    model = build_model(puzzle, scheme, order, clues)
    conv = model.convention

    x = vector_from_grid(solution, conv)
    np.testing.assert_array_equal(x, oracle_vector(solution, scheme, order, h, w))
    np.testing.assert_array_equal(grid_from_vector(x, conv), solution)
    np.testing.assert_array_equal(grid_from_vector(vector_from_grid(puzzle.grid, conv), conv), puzzle.grid)

    view = x[model.columns]
    np.testing.assert_array_equal(model.Aeq @ view, model.beq)
    assert np.all(model.lb <= view) and np.all(view <= model.ub)
    np.testing.assert_array_equal(model.full_vector(view), x)
    if 1 < n <= 9 and clues == "rows":
        check_against_oracle(model, puzzle)


def test_small_grids_are_refused_and_the_smallest_models_are_labelled():
    """Issue 21 section 5: a 1x1 grid is no puzzle (it had the model cell_1_1, row_1_1, col_1_1,
    box_1_1), nor a 2x2 or 3x3 Sudoku; the smallest are the 4x4 Sudoku and the 2x2 Latin square."""
    for n, h, w, variant in ((1, 1, 1, "classic"), (1, 1, 1, "latin"), (2, 1, 2, "classic"), (3, 1, 3, "x")):
        with pytest.raises(PipelineError, match=f"a {n}x{n} grid is not a puzzle"):
            build_model(Puzzle(np.zeros((n, n), dtype=int), h, w, variant))
    latin = build_model(Puzzle(np.zeros((2, 2), dtype=int), 1, 2, "latin"))
    assert latin.row_labels.tolist() == ["cell_1_1", "cell_1_2", "cell_2_1", "cell_2_2",
                                         "row_1_1", "row_1_2", "row_2_1", "row_2_2",
                                         "col_1_1", "col_1_2", "col_2_1", "col_2_2"]
    four = build_model(Puzzle(np.zeros((4, 4), dtype=int), 2, 2))
    assert four.row_labels[[0, 16, 32, 48, 63]].tolist() == ["cell_1_1", "row_1_1", "col_1_1", "box_1_1", "box_4_4"]


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_the_solver_columns_are_known_without_the_rule_rows(clues):
    # a search that maps its grid back to the columns (dfsrules) must not pay for R's labels
    puzzle = parse_puzzle({"size": 4, "givens": "1...........4..2",
                           "rules": [{"rule": "thermo", "cells": ["r1c2", "r1c3", "r1c4"]}]})
    model = build_model(puzzle, clues=clues)
    columns, kept_rows = model.columns.copy(), model.kept_unit_rows.copy()
    assert "R" not in vars(model)
    fresh = build_model(puzzle, clues=clues)
    fresh.R   # noqa: B018 (built first: the columns must not depend on it)
    assert np.array_equal(fresh.columns, columns) and np.array_equal(fresh._reduction[0], columns)
    assert np.array_equal(fresh._reduction[1], kept_rows)
    assert (columns.size < 64) == (clues == "reduce")


@pytest.mark.parametrize("clues", ["rows", "bounds"])
def test_a_search_that_maps_its_grid_back_never_builds_the_unit_table(clues):
    # dfs and dfsrules read neither A nor its table: building the model must not pay for it
    puzzle = parse_puzzle({"size": 6, "box": "2x3", "givens": "1" + "." * 35,
                           "rules": [{"rule": "diagonal"}, {"rule": "thermo", "cells": ["r2c2", "r2c3"]}]})
    model = build_model(puzzle, clues=clues)
    columns, kept_rows = model.columns, model.kept_unit_rows
    assert "unit_positions" not in vars(model)
    assert kept_rows.size == model.unit_positions.shape[0] == model.A.shape[0]
    assert np.array_equal(columns, np.arange(model.n_positions))


NONCONSECUTIVE_100 = '{"size": 100, "rules": [{"rule": "nonconsecutive"}]}'


def test_rule_rows_write_their_labels_only_when_a_row_is_named():
    """Building ``R`` and the solver view leaves the labels unwritten (two thirds of building
    the rows of an empty 100x100 non-consecutive); asked for, they are every row's, in order."""
    model = build_model(parse_puzzle('{"size": 6, "rules": [{"rule": "nonconsecutive"}, {"rule": "antiknight"}]}'))
    model.Aeq, model.Aineq, model.bineq   # noqa: B018  (the solver view, as an engine builds it)
    assert "labels" not in vars(model.R) and "_rule_labels" not in vars(model)
    labels = model.R.labels
    assert labels.size == model.R.rhs.size and len(set(labels.tolist())) == labels.size
    assert labels[0] == "antiknight_1_1" and labels[-1].startswith("nonconsecutive_")
    assert model.ineq_labels.tolist() == labels[model.R.sense == "L"].tolist()


def test_rule_rows_that_would_outlast_a_time_limit_are_not_built():
    """An estimate from the rules (non-consecutive: 8 nonzeros a variable) says, before building
    anything, that a 100x100's rule rows need seconds: an engine asked within half a second
    answers ``time_limit`` at once, naming the step and its estimate."""
    from pipeline.core.rulerows import rule_nonzeros, rule_rows_outlast

    model = build_model(parse_puzzle(NONCONSECUTIVE_100))
    assert rule_nonzeros(model.puzzle) == 8 * 100 ** 3
    said = rule_rows_outlast(model, 0.5)
    assert said.startswith("building the rule rows alone takes about") and "8,000,000 nonzeros" in said
    assert "R" not in vars(model)
    assert rule_rows_outlast(model, None) == "" and rule_rows_outlast(build_model(parse_puzzle("." * 81)), 0.5) == ""


@pytest.mark.parametrize("scheme", ["ijk", "block"])
def test_a_model_without_clues_shares_its_unit_rows_as_aeq_not_a_copy(scheme):
    """vstack([A, B]) with B of no rows copied A: 48 MB more at 100x100 while the MPS writer
    (which writes Aeq) ran; the rows, right-hand side and values are the same."""
    model = build_model(parse_puzzle("." * 81), scheme=scheme)
    assert model.B.shape[0] == 0 and model.Aeq is model.A
    assert model.beq.size == model.Aeq.shape[0] and (model.beq == 1).all()
    clued = build_model(parse_puzzle("1" + "." * 80), scheme=scheme)
    assert clued.Aeq.shape[0] == clued.A.shape[0] + 1
    assert (clued.Aeq[:clued.A.shape[0]] != clued.A).nnz == 0


def _arrays(matrix):
    return [(a.dtype.str, a.tobytes()) for a in (matrix.data, matrix.indices, matrix.indptr)] + [matrix.shape]


@pytest.mark.parametrize("encoding", CLUE_ENCODINGS)
@pytest.mark.parametrize("document", [
    "1" + "." * 79 + "9",
    {"size": 4, "givens": "1..............2", "rules": [{"rule": "cage", "cells": ["r1c2", "r1c3"], "sum": 5},
                                                         {"rule": "antiknight"}]},
    {"size": 9, "layout": "samurai", "givens": " ".join(["3"] + ["."] * 440)},
])
def test_aeq_is_built_once_and_a_is_a_view_of_it_not_a_second_copy(document, encoding):
    """Aeq = vstack([A, rule rows, B]) kept A beside it: 48 MB twice while a 100x100 with clues
    was written. Now A is never cached beside Aeq's rows: read after it, a view of its first rows
    (no layout, no reduce); Aeq the same arrays as when stacked from A."""
    model = build_model(parse_puzzle(document), clues=encoding)
    aeq = model.Aeq
    leads = model.puzzle.layout is None and encoding != "reduce"
    assert "A" not in vars(model) or aeq is model.A   # nothing below A: Aeq is A
    old = build_model(parse_puzzle(document), clues=encoding)
    table = old.A   # asked first: Aeq stacks it, then lets it go
    assert _arrays(old.Aeq) == _arrays(aeq)
    assert _arrays(model.A) == _arrays(table) and _arrays(old.A) == _arrays(table)
    if leads:
        assert np.shares_memory(model.A.indices, aeq.indices) and np.shares_memory(old.A.data, old.Aeq.data)


_RULES = {"size": 4, "givens": "1..............2", "rules": [{"rule": "cage", "cells": ["r1c2", "r1c3"], "sum": 5},
                                                           {"rule": "antiknight"}]}


@pytest.mark.parametrize("encoding", CLUE_ENCODINGS)
@pytest.mark.parametrize("first", ["A", "Aeq", "Aineq", "constraint_matrix"])
def test_the_rows_writers_write_are_one_matrix_aeq_and_aineq_views_of_it(first, encoding):
    """constraint_rows and spy stacked vstack([Aeq, Aineq]): a second copy of every row of a
    rule puzzle while each writer rendered it. Now the model builds [Aeq; Aineq] once, Aeq and
    Aineq are views of its rows and the writers are given that matrix itself, whichever of them
    is asked first; the same rows as the stack."""
    model = build_model(parse_puzzle(_RULES), clues=encoding)
    getattr(model, first)
    rows = constraint_rows(model)
    aeq, aineq = model.Aeq, model.Aineq
    assert rows.matrix is model.constraint_matrix and solver_matrix(model) is rows.matrix
    assert np.shares_memory(rows.matrix.indices, aeq.indices) and np.shares_memory(rows.matrix.data, aineq.data)
    assert aeq.shape[0] == model.n_rows == rows.n_eq and aineq.shape[0] == model.n_ineq == rows.n_ineq > 0
    assert _arrays(rows.matrix) == _arrays(sp.vstack([aeq, aineq], format="csr"))
    plain = build_model(parse_puzzle(_RULES), clues=encoding)   # the = rows as built without <= rows below
    assert (aeq != plain._rows_above([])).nnz == 0 and aeq.has_sorted_indices and aineq.has_sorted_indices
