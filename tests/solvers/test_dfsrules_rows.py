"""The ``dfsrules`` kernel's pair tables and linear rows (pipeline/solvers/dfsrules_rows.py): the
compiled builder (dfsrules_tables_kernel.py, through the kernel's machine code) gives exactly the
numpy builder's arrays, on random rows of every sort (one cell, two cells, at-most-one rows, sums,
terms twice, rows with no term, ``=`` and ``<=``), on every puzzle of the bench set, and keeps
to the layout it reads."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS, dfsrules, dfsrules_kernel, dfsrules_native
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules_automaton_rows import NFA_AT
from pipeline.solvers.dfsrules_counttables import CNT_AT
from pipeline.solvers.dfsrules_decided_rows import DEC_AT
from pipeline.solvers.dfsrules_hidden_rows import HID_AT
from pipeline.solvers.dfsrules_windows_rows import WIN_AT
from pipeline.solvers.dfsrules_rows import (DECIDED_ONLY, LAYOUT, MAX_AMO_TERMS, CoreTables, core_tables, core_tables_numpy,
                                             line_cells, shared_tables)
from pipeline.solvers.dfsrules_sumline_rows import SUM_AT

if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SHAPES = {4: "." * 16, 6: "." * 36, 9: "." * 81}


def assert_same(compiled: CoreTables, reference: CoreTables) -> None:
    """Every field equal, arrays of the same shape and kind."""
    for name in CoreTables.__dataclass_fields__:
        got, want = getattr(compiled, name), getattr(reference, name)
        if isinstance(want, np.ndarray):
            assert got.shape == want.shape, name
            assert got.dtype.kind == want.dtype.kind, name
            assert np.array_equal(got, want), name
        else:
            assert got == want, name


@st.composite
def rule_rows(draw):
    """Random rows over a 4x4, 6x6 or 9x9's cells, sorted as the builders take them."""
    n = draw(st.sampled_from(sorted(SHAPES)))
    n_cells = n * n
    terms, rhs, eq = [], [], []
    for r in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["amo", "one", "two", "sum", "empty", "big"]))
        cells = {"one": 1, "two": 2, "empty": 0, "big": MAX_AMO_TERMS + 2}.get(kind) or draw(st.integers(2, 6))
        chosen = draw(st.lists(st.integers(0, n_cells - 1), min_size=cells, max_size=cells))
        for c in chosen:
            for d in draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True)):
                coef = 1 if kind in ("amo", "big") else draw(st.sampled_from([1, -1, 2, 0, d + 1, -(d + 1)]))
                terms.append((r, c, d, coef))
                if draw(st.integers(0, 20)) == 0:   # a term twice
                    terms.append((r, c, d, coef))
        if kind in ("amo", "big"):
            rhs.append(1)
            eq.append(draw(st.booleans()) and draw(st.booleans()))
        else:
            rhs.append(draw(st.integers(-3, 3 * n)))
            eq.append(draw(st.booleans()))
    terms.sort()
    array = np.array(terms, dtype=np.int64).reshape(-1, 4).T
    return n, array[0], array[1], array[2], array[3], np.array(rhs, dtype=np.int64), np.array(eq, dtype=bool)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                                     HealthCheck.data_too_large])
@given(rule_rows())
def test_compiled_builder_gives_the_numpy_builders_tables_on_random_rows(case):
    n, row, cell, digit, value, rhs, eq = case
    units = shape_tables(parse_puzzle(SHAPES[n]))
    kernel = dfsrules_native.load()
    assert_same(core_tables(row, cell, digit, value, rhs, eq, n, units, kernel),
                core_tables_numpy(row, cell, digit, value, rhs, eq, n, units))


def test_compiled_builder_gives_the_numpy_builders_tables_on_the_bench_set(monkeypatch):
    kernel = dfsrules_native.load()
    seen = []

    def both(row, cell, digit, value, rhs, eq, n, units, _kernel=None):
        compiled = core_tables(row, cell, digit, value, rhs, eq, n, units, kernel)
        assert_same(compiled, core_tables_numpy(row, cell, digit, value, rhs, eq, n, units))
        seen.append(row.size)
        return compiled

    monkeypatch.setattr(dfsrules, "core_tables", both)
    lines = (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    for line in lines:
        dfsrules._build_rule_tables(parse_puzzle(json.loads(line)["document"]))
    assert len(seen) == len(lines) >= 240 and sum(seen) > 100_000   # every family the bench set holds


def test_the_builders_layout_names_each_slot_once_and_ends_with_the_counts():
    assert len(set(LAYOUT)) == len(LAYOUT)
    assert LAYOUT[:6] == ("T", "R", "n", "cells", "max_pairs", "max_amo")
    assert LAYOUT[-4:] == ("n_pairs", "n_lin", "n_lin_terms", "infeasible")


def test_a_rule_puzzle_with_the_kernel_absent_gets_the_numpy_builders_tables():
    puzzle = parse_puzzle({"size": 9, "givens": "." * 81, "rules": [{"rule": "antiknight"}]})
    units = shape_tables(puzzle)
    row, cell, digit, value, rhs, eq = dfsrules.rule_terms(puzzle)
    order = np.lexsort((digit, cell, row))
    args = (row[order].astype(np.int64), cell[order].astype(np.int64), digit[order].astype(np.int64),
            value[order].astype(np.int64), rhs.astype(np.int64), eq)
    without = core_tables(*args, 9, units, None)
    assert_same(without, core_tables_numpy(*args, 9, units))
    # one table per knight's move between two boxes: 4 (n - 1) (n - 2) moves, less 8 within each box
    assert without.keys.size == 4 * 8 * 7 - 9 * 8
    assert_same(core_tables(*args, 9, units, dfsrules_native.load()), without)


def test_without_the_machine_code_numbas_own_builder_gives_the_same_tables():
    """A kernel object that could not be made (``RulesKernel(None, ...)``: no llvmlite object)
    builds the tables with numba's function of the same source."""
    from pipeline.solvers.dfsrules_native import RulesKernel

    fallback = RulesKernel(None, None, "no object here")
    assert not fallback.native
    puzzle = parse_puzzle({"size": 9, "givens": "." * 81, "rules": [
        {"rule": "antiking"}, {"rule": "cage", "cells": ["r1c1", "r1c2", "r2c1"], "sum": 7},
        {"rule": "thermo", "cells": ["r5c5", "r5c6", "r6c6"]}]})
    units = shape_tables(puzzle)
    row, cell, digit, value, rhs, eq = dfsrules.rule_terms(puzzle)
    order = np.lexsort((digit, cell, row))
    args = (row[order].astype(np.int64), cell[order].astype(np.int64), digit[order].astype(np.int64),
            value[order].astype(np.int64), rhs.astype(np.int64), eq)
    assert_same(core_tables(*args, 9, units, fallback), core_tables_numpy(*args, 9, units))


def test_the_kernels_header_names_every_slot_the_handlers_read_where_they_read_it():
    """Five handlers' slots were appended to ``rint``'s header by hand, each by its own author:
    the kernel's names, dfsrules' header size and each handler's first slot must agree (a slot
    read one off is another table's offset)."""
    header = dfsrules_kernel.HEADER
    assert len(header) == dfsrules._HEADER == len(set(header))
    at = {name: k for k, name in enumerate(header)}
    assert (at["sky_cells"], at["sky_clue"], at["n_sky"]) == (38, 39, 42)        # _skyscraper, the kernel
    assert (at["lunch_ptr"], at["lunch_cells"], at["lunch_sum"], at["n_lunch"]) == (43, 44, 45, 46)   # _lunchbox
    assert (at["n_cnt"], at["n_sum"], at["nfa_ptr"]) == (CNT_AT, SUM_AT, NFA_AT)
    assert (at["n_hid"], at["hid_ptr"], at["hid_cells"], at["hid_target"], at["cell_hid_ptr"], at["cell_hid"],
            at["hid_scratch"]) == tuple(range(HID_AT, HID_AT + 7)) and at["nfa_scratch"] + 1 == HID_AT   # _hidden
    assert (at["n_win"], at["win_cells"], at["win_masks"], at["cell_win_ptr"], at["cell_win"]) == tuple(
        range(WIN_AT, WIN_AT + 5)) and at["hid_scratch"] + 1 == WIN_AT   # _window
    assert (at["dec_ptr"], at["dec_cells"]) == (DEC_AT, DEC_AT + 1) == (WIN_AT + 5, dfsrules._HEADER - 1)   # _decided


def test_line_cells_of_no_line_are_the_tables_of_lines_emptied():
    """No line (the fast path) gives what lines of no cells give, less their pointers' entries."""
    none, empty = line_cells([], 9), line_cells([[]], 9)
    assert [a.dtype for a in none] == [a.dtype for a in empty] == [np.dtype(np.int64)] * 4
    assert none[0].tolist() == [0] and none[2].tolist() == empty[2].tolist() == [0] * 10
    assert none[1].size == none[3].size == 0


def test_shared_tables_against_each_cell_read_alone():
    """shared_tables per cell: its arcs' one table, DECIDED_ONLY when they differ but are all
    decided-only, else -1 (cells without arcs among them, at the start and the end too)."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        count = rng.integers(0, 4, int(rng.integers(1, 20))) * (rng.random(1)[0] < 0.9)
        ptr = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
        table = rng.integers(0, 3, int(ptr[-1])).astype(np.int64)
        decided = rng.random(int(ptr[-1])) < 0.6
        want = []
        for c in range(count.size):
            mine, dec = table[ptr[c]:ptr[c + 1]], decided[ptr[c]:ptr[c + 1]]
            want.append(-1 if not mine.size else int(mine[0]) if (mine == mine[0]).all() else
                        DECIDED_ONLY if dec.all() else -1)
        assert shared_tables(ptr, table, decided).tolist() == want
        assert shared_tables(ptr, table).tolist() == [-1 if w == DECIDED_ONLY else w for w in want]
