"""pipeline.core.decode: grids <-> 0/1 vectors in every convention, and the refusals with exact messages."""
from __future__ import annotations

import re

import numpy as np
import pytest

from oracles import oracle_position, oracle_vector, shuffled_sudoku
from formats.solutions import RawSolution
from pipeline.core.build import build_model
from pipeline.core.conventions import Convention
from pipeline.core.decode import INTEGRALITY_TOL, _grid_positions, grid_from_vector, solution_vector, vector_from_grid
from pipeline.core.errors import FormatError, PipelineError
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

CONVENTIONS = [("ijk", "F"), ("ijk", "C"), ("block", "F"), ("block", "C")]


@pytest.mark.parametrize("scheme,order", CONVENTIONS)
@pytest.mark.parametrize("h,w", [(2, 2), (2, 3), (3, 2), (3, 3), (4, 4)])
def test_round_trip_solved_and_partial(scheme, order, h, w):
    conv = Convention(scheme, order, h, w)
    grid = shuffled_sudoku(h, w, np.random.default_rng(7))
    x = vector_from_grid(grid, conv)
    np.testing.assert_array_equal(x, oracle_vector(grid, scheme, order, h, w))
    assert x.sum() == conv.n ** 2
    np.testing.assert_array_equal(grid_from_vector(x, conv), grid)
    partial = np.where(np.random.default_rng(8).random(grid.shape) < 0.5, grid, 0)
    np.testing.assert_array_equal(grid_from_vector(vector_from_grid(partial, conv), conv), partial)


def test_matlab_decoding_of_ijk_f():
    """SEEDS.md 1: reshape(sol, 9, 9, 9) then sum_k k * X(i, j, k) gives the grid (MATLAB order)."""
    grid = shuffled_sudoku(3, 3, np.random.default_rng(0))
    x = vector_from_grid(grid, Convention("ijk", "F", 3, 3))
    deciders = x.reshape((9, 9, 9), order="F")
    np.testing.assert_array_equal(deciders @ np.arange(1, 10), grid)
    # and the NumPy order reads x.reshape(N, N, N)[i, j, k]
    y = vector_from_grid(grid, Convention("ijk", "C", 3, 3))
    np.testing.assert_array_equal(y.reshape(9, 9, 9) @ np.arange(1, 10), grid)


def test_near_integral_values_are_rounded():
    conv = Convention("ijk", "F", 2, 2)
    grid = shuffled_sudoku(2, 2, np.random.default_rng(1))
    x = vector_from_grid(grid, conv)
    noisy = x + np.where(x > 0, -INTEGRALITY_TOL / 2, INTEGRALITY_TOL / 2)
    np.testing.assert_array_equal(grid_from_vector(noisy, conv), grid)


def err(x, conv, **kw):
    with pytest.raises(PipelineError) as e:
        grid_from_vector(x, conv, **kw)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_refusals_name_the_variable():
    conv = Convention("ijk", "F", 2, 2)
    x = np.zeros(64)
    pos = int(oracle_position("ijk", "F", 2, 2, 1, 1, 0))  # x_2_2_1, position 6 (1-based)
    assert pos == 5
    assert err(np.zeros(10), conv) == \
        "solution: expected 64 values for a 4x4 grid (ijk/F (4x4, boxes 2x2)), found 10"
    for value, text in [(0.5, "0.5"), (2.0, "2"), (-1.0, "-1")]:
        y = x.copy()
        y[pos] = value
        assert err(y, conv) == f"solution: value {text} of x_2_2_1 (position 6) is not 0 or 1"
    y = x.copy()
    y[pos] = np.nan
    assert err(y, conv, where="sol.txt") == "sol.txt: value nan at position 6 (x_2_2_1) is not finite"
    y = x.copy()
    y[oracle_position("ijk", "F", 2, 2, [0, 0], [0, 0], [1, 3])] = 1
    assert err(y, conv) == "solution: cell (1, 1) holds several digits [2, 4]"


def test_block_names_in_messages():
    conv = Convention("block", "C", 2, 3)
    x = np.zeros(216)
    pos = int(oracle_position("block", "C", 2, 3, 3, 4, 5))  # cell (4, 5), digit 6
    x[pos] = 0.25
    assert err(x, conv) == f"solution: value 0.25 of x_2_2_2_2_6 (position {pos + 1}) is not 0 or 1"


def test_vector_from_grid_checks_shape():
    with pytest.raises(PipelineError) as e:
        vector_from_grid(np.zeros((3, 3), dtype=int), Convention("ijk", "F", 2, 2))
    assert str(e.value) == "grid: expected 4x4, found 3x3"


# ----------------------------------------------------------------------------------------------
# solution_vector: a parsed answer (names / positions / grid) -> all N^3 positions
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reduce_export():
    model = build_model(parse_puzzle("1...........3...", box="2x2"), "block", "C", "reduce")
    manifest = manifest_from_dict(model_metadata(model))
    grid = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [2, 1, 4, 3], [3, 4, 1, 2]])
    assert verify_grid(grid, model.puzzle).ok  # completes the clues of the puzzle above
    return model, manifest, grid


def test_solution_vector_by_names_shuffled_and_sparse(reduce_export):
    model, man, grid = reduce_export
    full = vector_from_grid(grid, man.convention)
    kept = full[man.columns]
    order = np.random.default_rng(3).permutation(man.columns.size)
    nonzero = order[kept[order] == 1]
    raw = RawSolution("names", kept[nonzero], names=np.asarray(model.col_names)[nonzero], dense=False)
    values, conv, aux = solution_vector(raw, man, "f", "test")
    assert conv == man.convention and aux is None   # a model without auxiliary columns
    assert np.array_equal(values, full)  # the clue variables the export dropped are set to 1
    dense = RawSolution("names", kept[nonzero], names=np.asarray(model.col_names)[nonzero], dense=True)
    with pytest.raises(FormatError, match="variables missing"):
        solution_vector(dense, man, "f", "test")


def test_solution_vector_short_names_and_positions(reduce_export):
    model, man, grid = reduce_export
    full = vector_from_grid(grid, man.convention)
    kept = full[man.columns]
    short = np.array([f"C{j}" for j in range(man.columns.size)])
    values, _, _ = solution_vector(RawSolution("names", kept, names=short), man, "f", "test")
    assert np.array_equal(values, full)
    values, _, _ = solution_vector(RawSolution("positions", kept), man, "f", "test")
    assert np.array_equal(values, full)
    with pytest.raises(FormatError, match="expected 44 values"):
        solution_vector(RawSolution("positions", kept[:-1]), man, "f", "test")
    with pytest.raises(FormatError, match="pass the export's manifest"):
        solution_vector(RawSolution("positions", kept), None, "f", "test")


def test_solution_vector_grid_and_bad_values(reduce_export):
    model, man, grid = reduce_export
    values, _, _ = solution_vector(RawSolution("grid", np.zeros(0), grid=grid), man, "f", "test")
    assert np.array_equal(grid_from_vector(values, man.convention), grid)
    kept = vector_from_grid(grid, man.convention)[man.columns]
    for bad in (np.inf, np.nan, 0.5, 2.0, -1.0):
        x = kept.copy()
        x[0] = bad
        with pytest.raises(FormatError, match="is not 0 or 1"):
            solution_vector(RawSolution("positions", x), man, "f", "test")


@pytest.mark.parametrize("version", [999, 0, "1", True, None])
def test_a_manifest_of_a_format_version_this_one_does_not_read_is_refused(version):
    # a probe: format_version 999 was read as if it were 1
    meta = model_metadata(build_model(parse_puzzle("." * 16)))
    assert meta["format_version"] == 1 and manifest_from_dict(meta).convention.n == 4
    meta["format_version"] = version
    with pytest.raises(FormatError, match=rf"^manifest: format_version {re.escape(repr(version))} is not one this "
                                          r"version reads \(1 to 1\)"):
        manifest_from_dict(meta)
    del meta["format_version"]   # older manifests have no such field
    assert manifest_from_dict(meta).convention.n == 4


def test_position_table_is_keyed_by_the_whole_convention():
    """vector_from_grid reads a cached position table per convention: conventions of one grid
    shape but other positions (2x3 against 3x2 boxes, F against C, ijk against block), asked in
    turn, each get their own positions (the oracle's), and the table cannot be written to."""
    rng = np.random.default_rng(11)
    grids = {box: shuffled_sudoku(*box, rng) for box in [(2, 3), (3, 2)]}
    for _ in range(2):   # the second round reads the tables the first made
        for (h, w), grid in grids.items():
            for scheme, order in CONVENTIONS:
                conv = Convention(scheme, order, h, w)
                np.testing.assert_array_equal(vector_from_grid(grid, conv), oracle_vector(grid, scheme, order, h, w))
                partial = np.where(rng.random(grid.shape) < 0.5, grid, 0)
                np.testing.assert_array_equal(vector_from_grid(partial, conv), _vector_by_positions(partial, conv))
    table = _grid_positions(Convention("block", "F", 2, 3))
    assert not table.flags.writeable
    assert not np.array_equal(table, _grid_positions(Convention("block", "F", 3, 2)))


def _vector_by_positions(grid: np.ndarray, conv: Convention) -> np.ndarray:
    """The vector of ``grid`` from :meth:`Convention.position` itself, cell by cell."""
    x = np.zeros(conv.n_vars)
    for (r, c), value in np.ndenumerate(grid):
        if value:
            x[int(conv.position(r, c, value - 1))] = 1.0
    return x


@pytest.mark.parametrize("bad", [5, -1])
def test_a_digit_out_of_range_is_refused_as_position_refuses_it(bad):
    conv = Convention("ijk", "F", 2, 2)
    grid = np.zeros((4, 4), dtype=np.int64)
    grid[1, 2] = bad
    with pytest.raises(Exception) as expected:
        conv.position(1, 2, bad - 1)
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        vector_from_grid(grid, conv)
