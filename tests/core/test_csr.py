"""pipeline/core/csr.py: numpy CSR arrays against scipy's, operation by operation."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.core.csr import Csr, as_csr, leading_rows, trailing_rows


@st.composite
def entries(draw):
    """(row, col, value, shape): repeated pairs, values that cancel, empty rows and columns."""
    n_rows, n_cols = draw(st.integers(0, 7)), draw(st.integers(1, 9))
    count = draw(st.integers(0, 30)) if n_rows else 0
    row = np.array(draw(st.lists(st.integers(0, max(n_rows - 1, 0)), min_size=count, max_size=count)), dtype=np.int64)
    col = np.array(draw(st.lists(st.integers(0, n_cols - 1), min_size=count, max_size=count)), dtype=np.int64)
    value = np.array(draw(st.lists(st.sampled_from([-3.0, -1.0, 1.0, 2.0, 5.0]), min_size=count, max_size=count)))
    return row, col, value, (n_rows, n_cols)


def _scipy(row, col, value, shape):
    matrix = sp.csr_matrix((value, (row, col)), shape=shape)
    matrix.sum_duplicates()
    matrix.sort_indices()
    return matrix


def _same(ours: Csr, theirs) -> None:
    theirs = sp.csr_matrix(theirs)
    assert ours.shape == theirs.shape
    assert np.array_equal(ours.indptr, theirs.indptr)
    assert np.array_equal(ours.indices, theirs.indices)
    assert np.array_equal(ours.data, theirs.data)


@settings(max_examples=200, deadline=None)
@given(entries())
def test_entries_sum_and_sort_as_scipy(case):
    row, col, value, shape = case
    ours = Csr.from_entries(row, col, value, shape)
    _same(ours, _scipy(row, col, value, shape))
    assert ours.data.dtype == value.dtype
    _same(as_csr(ours.to_scipy()), ours.to_scipy())
    assert (ours.to_scipy() != _scipy(row, col, value, shape)).nnz == 0


@settings(max_examples=200, deadline=None)
@given(entries(), st.data())
def test_rows_columns_and_products_as_scipy(case, data):
    row, col, value, shape = case
    ours, theirs = Csr.from_entries(row, col, value, shape), _scipy(row, col, value, shape)
    rows = np.array(data.draw(st.lists(st.integers(0, max(shape[0] - 1, 0)), max_size=8 if shape[0] else 0)),
                    dtype=np.int64)
    _same(ours.take_rows(rows), theirs[rows])
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=shape[0], max_size=shape[0])), dtype=bool)
    _same(ours.take_rows(mask), theirs[mask])
    columns = np.flatnonzero(data.draw(st.lists(st.booleans(), min_size=shape[1], max_size=shape[1])))
    # a sum of 0 stays stored, as scipy keeps it: a row with one is still "live" in Model._reduction
    _same(ours.take_columns(columns), theirs[:, columns].tocsr())
    x = np.array(data.draw(st.lists(st.integers(0, 1), min_size=shape[1], max_size=shape[1])), dtype=float)
    assert np.array_equal(ours.matvec(x), theirs @ x)


def test_a_sum_of_zero_stays_stored():
    ours = Csr.from_entries(np.array([0, 0, 1]), np.array([2, 2, 0]), np.array([1.0, -1.0, 4.0]), (2, 3))
    assert ours.nnz == 2 and ours.data.tolist() == [0.0, 4.0]
    assert np.diff(ours.take_columns(np.array([2])).indptr).tolist() == [1, 0]


def test_as_csr_sums_a_scipy_matrix_with_repeated_entries():
    coo = sp.coo_matrix((np.array([1, 2, 3]), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 2))
    ours = as_csr(coo)
    assert ours.indptr.tolist() == [0, 1, 2] and ours.indices.tolist() == [1, 0] and ours.data.tolist() == [3, 3]
    assert as_csr(ours) is ours


@pytest.mark.parametrize("example", ["killer.json", "thermo.json", "kropki.json", "miracle.json"])
def test_a_models_rule_rows_are_the_same_read_without_scipy(example):
    """``Model.rule_csr`` and ``rule_rows_csr`` (the SAT engine's rows) hold what ``Aeq`` and
    ``Aineq`` hold, before and after singles."""
    from pathlib import Path

    from pipeline.core.build import build_model
    from pipeline.core.clauses_pb import rule_row_range, rule_rows, rule_rows_csr
    from pipeline.core.presolve import presolve
    from pipeline.core.puzzle import parse_puzzle

    root = Path(__file__).resolve().parents[2]
    model = build_model(parse_puzzle((root / "examples" / example).read_text()))
    for view in (model, presolve(model, "singles").model):
        matrix, rhs, sense = rule_rows_csr(view)
        start, stop = rule_row_range(view)
        expected = sp.vstack([view.Aeq[start:stop], view.Aineq], format="csr")
        _same(matrix, expected)
        assert np.array_equal(rhs, np.concatenate([view.beq[start:stop], view.bineq]))
        assert sense.tolist() == ["E"] * (stop - start) + ["L"] * view.Aineq.shape[0]
        assert view.n_ineq == view.Aineq.shape[0]
        _same(as_csr(rule_rows(view)[0]), expected)


def test_without_zeros_drops_stored_zeros_as_scipy_eliminate_zeros():
    ours = Csr.from_entries(np.array([0, 0, 1, 2]), np.array([2, 2, 0, 1]), np.array([1, -1, 4, 0]), (3, 3))
    theirs = ours.to_scipy().copy()
    theirs.eliminate_zeros()
    _same(ours.without_zeros(), theirs)
    assert ours.without_zeros().nnz == 1
    clean = Csr.from_entries(np.array([0]), np.array([1]), np.array([3]), (1, 2))
    assert clean.without_zeros() is clean


@pytest.mark.parametrize("split", [0, 1, 5, 9, 10])
def test_leading_and_trailing_rows_are_views_however_small(split):
    """scipy's constructor copied a slice under half its array (it prunes such views): a view
    of Aeq's or Aineq's few rows was a copy. Both parts now share the whole matrix's arrays."""
    matrix = sp.random(10, 8, density=0.5, format="csr", random_state=7)
    matrix.sort_indices()
    head, tail = leading_rows(matrix, split), trailing_rows(matrix, split)
    assert (head != matrix[:split]).nnz == 0 and (tail != matrix[split:]).nnz == 0
    assert head.shape == (split, 8) and tail.shape == (10 - split, 8)
    for part in (head, tail):
        if part.nnz:
            assert np.shares_memory(part.data, matrix.data) and np.shares_memory(part.indices, matrix.indices)
