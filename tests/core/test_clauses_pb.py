"""Clauses of the rule rows (pipeline.core.clauses_pb): every row shape in every encoding allows
exactly the assignments the row allows (checked against the inequality itself, input by
input), and the CNF file of a random 4x4 puzzle with rules has exactly the solutions that
brute force over all 288 4x4 Sudoku grids finds (verify_grid judging the rules)."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats import cnf
from pipeline.core.build import build_model
from pipeline.core.decode import grid_from_vector
from pipeline.core.clauses_pb import (CARD_ENCODINGS, PB_ENCODINGS, EncodingOutlasts, encode_rule_rows,
                                      rule_row_range, rule_rows, shape_clauses)
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

solvers = pytest.importorskip("pysat.solvers", reason="python-sat (the 'sat' extra) is not installed")
pytest.importorskip("pysat.pb", reason="python-sat's pb extra (pindakaas) is not installed")

from rule_models import random_document  # noqa: E402


def allowed(shape, k: int) -> list[tuple[int, ...]]:
    """Input assignments (bits of literals 1..k) that some auxiliary assignment extends to a model."""
    clauses = [c.tolist() for c in np.split(shape.tokens, np.flatnonzero(shape.tokens == 0) + 1)[:-1]]
    clauses = [c[:-1] for c in clauses]
    assert len(clauses) == shape.n_clauses
    assert all(1 <= abs(lit) <= k + shape.n_aux for c in clauses for lit in c)
    out = []
    with solvers.Solver(name="minisat22", bootstrap_with=clauses) as s:
        for bits in itertools.product([0, 1], repeat=k):
            if s.solve(assumptions=[i + 1 if b else -(i + 1) for i, b in enumerate(bits)]):
                out.append(bits)
    return out


def holds(sense, weights, bound, bits) -> bool:
    total = sum(w * b for w, b in zip(weights, bits))
    return total <= bound if sense == "L" else total == bound


SHAPES = [("L", (1, 1), 1), ("L", (1, 1, 1, 1), 1), ("L", (1, 1, 1), 2), ("E", (1, 1, 1, 1), 2),
          ("L", (1, 1, 1), 0), ("E", (1, 1, 1), 3), ("L", (1, 2), -1), ("L", (2, 3), 5),
          ("E", (1, 2, 3, 4), 5), ("L", (1, 1, 2, 2, 3, 3), 4), ("E", (1, 2, 3, 4, 5, 6), 7), ("E", (3, 3), 7)]


@pytest.mark.parametrize("card", CARD_ENCODINGS)
@pytest.mark.parametrize("sense,weights,bound", SHAPES)
def test_card_shapes_allow_exactly_the_row(card, sense, weights, bound):
    shape = shape_clauses(sense, weights, bound, card, "bdd", "seqcounter")
    want = [bits for bits in itertools.product([0, 1], repeat=len(weights)) if holds(sense, weights, bound, bits)]
    assert allowed(shape, len(weights)) == want


@pytest.mark.parametrize("pb", PB_ENCODINGS)
@pytest.mark.parametrize("sense,weights,bound", SHAPES)
def test_pb_shapes_allow_exactly_the_row(pb, sense, weights, bound):
    shape = shape_clauses(sense, weights, bound, "seqcounter", pb, "pairwise")
    want = [bits for bits in itertools.product([0, 1], repeat=len(weights)) if holds(sense, weights, bound, bits)]
    assert allowed(shape, len(weights)) == want


def test_unknown_encoding_is_one_line():
    model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "antiknight"}]}'))
    with pytest.raises(PipelineError, match="unknown pb encoding 'fast'; expected one of best, bdd"):
        encode_rule_rows(model, top=64, pb="fast")


def test_an_encoding_past_its_deadline_stops_between_row_shapes():
    """A deadline that has passed stops the encoding before its first shape (the SAT engine then
    answers time_limit at once: a published puzzle's 11 shapes took 7.7 s of a 3 s limit)."""
    import time

    from pipeline.solvers import sat
    model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3},'
                                     ' {"rule": "thermo", "cells": ["r2c1", "r2c2", "r2c3"]}]}'))
    with pytest.raises(EncodingOutlasts, match=r"ran past the time limit \(0 of [1-9]\d* row shapes encoded\)"):
        encode_rule_rows(model, top=64, deadline=time.perf_counter() - 1.0)
    assert encode_rule_rows(model, top=64, deadline=time.perf_counter() + 60.0).n_clauses > 0
    with pytest.raises(sat.SetupOutlasts, match="ran past the time limit"):
        sat.rules_beyond_units(model, 64, "pairwise", view=True, cage_combinations=False,
                               deadline=time.perf_counter() - 1.0)



def test_clauses_that_would_not_load_in_time_stop_before_they_are_written_out():
    """With what each clause costs the caller (the SAT engine's load), the encoding stops as soon
    as the shapes say how many clauses there are: 12.5 million of ISS's "Full rank 2" were written
    out for 5 s under a 1 s limit before the check after them refused them."""
    import time

    from pipeline.core.clauses_pb import encode_rows, rule_rows_csr
    model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "thermo", "cells": ["r2c1", "r2c2", "r2c3"]}]}'))
    matrix, rhs, sense = rule_rows_csr(model)
    columns = model.columns.astype(np.int64) + 1
    n = encode_rows(matrix, rhs, sense, columns, top=64).n_clauses
    with pytest.raises(EncodingOutlasts, match=rf"^loading the rule rows' {n:,} clauses into the SAT solver alone "
                                               r"takes about .* here, past the time limit$"):
        encode_rows(matrix, rhs, sense, columns, top=64, deadline=time.perf_counter() + 5.0, seconds_per_clause=60.0)
    assert encode_rows(matrix, rhs, sense, columns, top=64, deadline=time.perf_counter() + 5.0,
                       seconds_per_clause=1e-9).n_clauses == n


def test_rule_rows_are_the_rules_rows_of_the_solver_view():
    model = build_model(parse_puzzle('{"size": 4, "givens": ["r1c1=1"], "rules": [{"rule": "cage", '
                                     '"cells": ["r2c1", "r3c2"], "sum": 5}, {"rule": "antiknight"}]}'))
    start, stop = rule_row_range(model)
    assert (start, stop) == (64, 65) and str(model.row_labels[start]) == "cagesum_1"
    matrix, rhs, sense = rule_rows(model)
    assert matrix.shape[0] == 1 + model.n_ineq and rhs[0] == 5 and "".join(sense[:2]) == "EL"


# ---------------------------------------------------------------------------------------------
# whole models: the CNF file has the puzzle's solutions, no more, no fewer
# ---------------------------------------------------------------------------------------------
def all_4x4_grids() -> np.ndarray:
    """Every valid 4x4 Sudoku grid (2x2 boxes), by backtracking: 288 of them."""
    out, grid = [], np.zeros(16, dtype=np.int64)

    def place(k):
        if k == 16:
            out.append(grid.reshape(4, 4).copy())
            return
        r, c = divmod(k, 4)
        for d in range(1, 5):
            row, col = grid[r * 4:r * 4 + c], grid[c:k:4]
            box = [grid[rr * 4 + cc] for rr in range(r - r % 2, r + 1) for cc in range(c - c % 2, c - c % 2 + 2)
                   if rr * 4 + cc < k]
            if d not in row and d not in col and d not in box:
                grid[k] = d
                place(k + 1)
                grid[k] = 0

    place(0)
    return np.array(out)


GRIDS = all_4x4_grids()


def cnf_solutions(path, model, limit: int = 400) -> set[bytes]:
    """Grids of every model of the CNF file (blocking on the cell variables)."""
    clauses = cnf.read_cnf(path).clauses()
    cells = (model.columns + 1).tolist()
    found = set()
    with solvers.Solver(name="cadical195", bootstrap_with=clauses) as s:
        while len(found) < limit and s.solve():
            true = set(s.get_model())
            x = np.zeros(model.convention.n_vars)
            x[[v - 1 for v in cells if v in true]] = 1
            if model.is_reduced:
                x[model.B.indices] = 1
            found.add(grid_from_vector(x, model.convention).tobytes())
            s.add_clause([-v for v in cells if v in true])
    return found


def test_there_are_288_grids():
    assert len(GRIDS) == 288 and len({g.tobytes() for g in GRIDS}) == 288


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), clues=st.sampled_from(["rows", "bounds", "reduce"]),
       card=st.sampled_from(CARD_ENCODINGS), pb=st.sampled_from(PB_ENCODINGS),
       amo=st.sampled_from(["pairwise", "seqcounter", "ladder"]))
def test_cnf_has_exactly_the_solutions_brute_force_finds(tmp_path_factory, seed, clues, card, pb, amo):
    doc = random_document(np.random.default_rng(seed), 4)
    puzzle = parse_puzzle(json.dumps(doc))
    want = {g.tobytes() for g in GRIDS if verify_grid(g, puzzle).ok}
    model = build_model(puzzle, "ijk", "C", clues)
    path = tmp_path_factory.mktemp("cnf") / "m.cnf"
    cnf.write(model, path, amo=amo, card=card, pb=pb)
    assert cnf_solutions(path, model) == want


def test_asking_whether_the_rows_can_be_encoded_builds_no_solver_view():
    """``encoding_problem`` (what the SAT engine's ``problem_with`` asks) reads ``R``'s weights,
    not the solver view's: asking about a large model cost seconds more of building ``Aeq``."""
    from pipeline.core.clauses_pb import encoding_problem

    model = build_model(parse_puzzle('{"size": 9, "rules": [{"rule": "nonconsecutive"}, '
                                     '{"rule": "cage", "sum": 10, "cells": ["r1c1", "r1c2"]}]}'))
    assert encoding_problem(model) is None
    assert "R" in vars(model) and not {"Aeq", "Aineq", "_rule_matrix"} & set(vars(model))


def test_rows_of_many_partial_sums_get_a_compact_encoding_or_a_refusal():
    """pindakaas' encodings by sums grow with a row's partial sums (a 10-cell weighted ``sum`` rule:
    698,000 of them; ``best`` passed 6 GB). Past PB_BEST_MAX_SUMS ``best`` writes PB_COMPACT's
    clauses, still exactly the row; an encoding by sums named past PB_NAMED_MAX_SUMS is one line."""
    from pipeline.core.clauses_pb import (PB_BEST_MAX_SUMS, PB_COMPACT, PB_NAMED_MAX_SUMS, EncodingTooLarge,
                                          reachable_sums)

    # the terms of sum10: weights -100..100 times each digit 1..9 of ten cells, normalised
    cell_weights = (100, 53, 100, 53, 53, 89, 100, 100, 53, 53)
    weights = tuple(sorted(w * d for w in cell_weights for d in range(1, 10)))
    bound = 15_885
    assert reachable_sums(weights, bound) > PB_BEST_MAX_SUMS
    assert reachable_sums(weights, bound, stop=1_000) > 1_000
    assert reachable_sums(weights[:5], 50, stop=PB_BEST_MAX_SUMS) <= PB_BEST_MAX_SUMS   # bounded at once
    best = shape_clauses("E", weights, bound, "seqcounter", "best", "pairwise")
    compact = shape_clauses("E", weights, bound, "seqcounter", PB_COMPACT, "pairwise")
    assert best.n_clauses == compact.n_clauses < 100_000 and np.array_equal(best.tokens, compact.tokens)
    huge = tuple(range(1, 400))
    assert reachable_sums(huge, 40_000, stop=PB_NAMED_MAX_SUMS) > PB_NAMED_MAX_SUMS
    with pytest.raises(EncodingTooLarge, match=r"^the pb encoding seqcounter of a rule row of 399 terms"):
        shape_clauses("L", huge, 40_000, "seqcounter", "seqcounter", "pairwise")
    # a small row keeps best, and the compact encoding is exact where best gives way to it
    small = ("E", (1, 2, 3, 4, 5, 6), 7)
    assert reachable_sums(small[1], small[2]) < PB_BEST_MAX_SUMS
    shape = shape_clauses(small[0], small[1], small[2], "seqcounter", PB_COMPACT, "pairwise")
    want = [bits for bits in itertools.product([0, 1], repeat=6) if holds(*small, bits)]
    assert allowed(shape, 6) == want


def test_a_weighted_sum_rule_is_solved_by_the_sat_engine_in_bounded_memory():
    """The 10-cell sum rule that took the SAT engine past 6 GB (python-sat's pb encoding 'best'):
    solved, verified, with the rule rows' clauses few."""
    from pipeline.solvers import get_solver

    doc = {"size": 9, "rules": [{"rule": "sum", "cells": ["r2c9", "r9c1", "r1c9", "r4c6", "r2c7", "r8c1", "r7c4",
                                                          "r7c7", "r6c4", "r3c9"],
                                 "weights": [-100, 53, -100, 53, 53, 89, -100, 100, 53, -53], "sum": 0}]}
    puzzle = parse_puzzle(json.dumps(doc))
    model = build_model(puzzle)
    assert encode_rule_rows(model, top=729).n_clauses < 100_000
    result = get_solver("sat").solve(model, time_limit=60)
    assert result.solved and verify_grid(result.grid, puzzle).ok


def test_a_stored_zero_coefficient_is_no_literal():
    """A row ``x1 + 0 x2 <= 0`` stored with its zero (scipy keeps one until ``eliminate_zeros``):
    the clauses name x1 alone, never the literal 0 that would end a clause early."""
    import scipy.sparse as sp

    from pipeline.core.clauses_pb import encode_rows

    matrix = sp.csr_matrix((np.array([1, 0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    assert matrix.nnz == 2
    clauses = encode_rows(matrix, np.array([0]), np.array(["L"]), np.array([1, 2]), top=2).clauses()
    assert clauses == [[-1]]


def test_listing_the_clauses_a_slice_at_a_time_gives_the_same_lists_and_stops_at_the_deadline(monkeypatch):
    """Listing 6.8 million clauses took seconds with no look at the time limit: the set-up's
    estimate had to refuse in advance, and at 5.5 us a clause it refused ISS's "Circus Maximus"
    under a 20 s limit that it meets in 11 s."""
    import time

    from pipeline.core import clauses_pb
    from pipeline.core.clauses_pb import encode_rows, rule_rows_csr
    model = build_model(parse_puzzle('{"size": 4, "rules": [{"rule": "thermo", "cells": ["r2c1", "r2c2", "r2c3"]}]}'))
    matrix, rhs, sense = rule_rows_csr(model)
    enc = encode_rows(matrix, rhs, sense, model.columns.astype(np.int64) + 1, top=64)
    tokens = enc.tokens.tolist()
    expected, clause = [], []
    for token in tokens:
        if token == 0:
            expected.append(clause)
            clause = []
        else:
            clause.append(token)
    for size in (1, 3, 7, 1 << 16):
        monkeypatch.setattr(clauses_pb, "LIST_SLICE", size)
        assert enc.clauses() == expected and enc.clauses(time.perf_counter() + 60) == expected
    monkeypatch.setattr(clauses_pb, "LIST_SLICE", 3)
    with pytest.raises(EncodingOutlasts, match=rf"^listing the rule rows' {len(expected):,} clauses ran past the time "
                                               r"limit \(0 listed\)$"):
        enc.clauses(time.perf_counter() - 1)


def per_row_tokens(model, top: int, card: str, pb: str, amo: str) -> list[int]:
    """The rule rows' clauses built one row at a time (each row's literals by weight, then
    variable; its shape's auxiliaries after those of the rows before it): what encode_rows
    groups by shape must come out the same, token for token."""
    from pipeline.core.clauses_pb import rule_rows_csr
    matrix, rhs, sense = rule_rows_csr(model)
    var = model.columns.astype(np.int64) + 1
    out, aux = [], top + 1
    for r in range(rhs.size):
        span = slice(matrix.indptr[r], matrix.indptr[r + 1])
        terms = [(abs(int(c)), int(var[j]) * (1 if c > 0 else -1)) for j, c in zip(matrix.indices[span], matrix.data[span])
                 if c != 0]
        terms.sort(key=lambda t: (t[0], abs(t[1])))
        bound = int(rhs[r]) + sum(w for w, lit in terms if lit < 0)
        shape = shape_clauses(str(sense[r]), tuple(w for w, _ in terms), bound, card, pb, amo)
        for token in shape.tokens.tolist():
            m = abs(token)
            value = 0 if m == 0 else terms[m - 1][1] if m <= len(terms) else aux + m - len(terms) - 1
            out.append(value if token >= 0 else -value)
        aux += shape.n_aux
    return out


AUTOMATON = {"rule": "automaton", "cells": ["r1c1", "r2c1", "r3c2", "r4c2", "r4c3"], "states": 3, "start": [0],
             "accept": [1, 2], "transitions": [[0, 1, 1], [0, 3, 1], [0, 2, 2], [0, 4, 2], [1, 2, 2], [1, 4, 2],
                                               [2, 1, 1], [2, 3, 1]]}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("card,pb,amo", [("seqcounter", "bdd", "ladder"), ("totalizer", "adder", "pairwise"),
                                         ("sortnetwrk", "binmerge", "seqcounter")])
def test_rows_grouped_by_shape_give_the_clauses_of_each_row_in_order(seed, card, pb, amo):
    doc = random_document(np.random.default_rng(seed), 4 if seed < 3 else 6)
    doc["rules"] = doc.get("rules", []) + [AUTOMATON]
    model = build_model(parse_puzzle(json.dumps(doc)), "ijk", "C", "rows")
    enc = encode_rule_rows(model, top=500, card=card, pb=pb, amo=amo)
    assert enc.tokens.tolist() == per_row_tokens(model, 500, card, pb, amo)


def test_listing_the_clauses_runs_no_garbage_collection_and_leaves_it_as_it_was():
    """Listing 1.8 million clauses spent two thirds of its time in the collector's passes over
    the lists it had made (lists of ints: nothing for it to find)."""
    import gc
    model = build_model(parse_puzzle(json.dumps({"size": 4, "rules": [AUTOMATON]})))
    enc = encode_rule_rows(model, top=64, amo="pairwise")
    passes = []

    def seen(phase, info):
        if phase == "start":
            passes.append(info["generation"])

    threshold = gc.get_threshold()
    gc.callbacks.append(seen)
    try:
        gc.set_threshold(2)
        listed = enc.clauses()
        assert gc.isenabled()
        gc.disable()
        assert enc.clauses() == listed and not gc.isenabled()
    finally:
        gc.enable()
        gc.set_threshold(*threshold)
        gc.callbacks.remove(seen)
    assert len(listed) == enc.n_clauses > 2 and passes == []
