"""The SAT clause encoding (pipeline.core.clauses): every at-most-one template against a SAT
solver's truth table and pysat.card, and a whole model's clauses against pysat.card row by row."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from random_puzzles import puzzle_documents
from pipeline.core import clauses
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError, PuzzleError
from pipeline.core.presolve import presolve
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle

card = pytest.importorskip("pysat.card", reason="python-sat (the 'sat' extra) is not installed")
solvers = pytest.importorskip("pysat.solvers")

ENCODINGS = clauses.AMO_ENCODINGS


def pysat_clauses(model, amo):
    """Independent oracle: pysat.card called row by row, auxiliaries from a running top id."""
    a = model.Aeq.tocsr()
    var = model.columns + 1
    top = model.convention.n_vars
    out = []
    for i in range(a.shape[0]):
        lits = sorted(var[a.indices[a.indptr[i]:a.indptr[i + 1]]].tolist())
        out.append(lits)
        if len(lits) > 1:
            enc = card.CardEnc.atmost(lits, bound=1, top_id=top, encoding=getattr(card.EncType, amo))
            out.extend(enc.clauses)
            top = max(top, enc.nv)
    out.extend([[int(v)] for v in var[model.lb > 0]])
    return out


# ---------------------------------------------------------------------------------------------
# at-most-one patterns
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("amo", ENCODINGS)
@pytest.mark.parametrize("k", [2, 3, 5, 6])
def test_template_allows_exactly_the_at_most_one_assignments(amo, k):
    t = clauses.amo_template(k, amo)
    ends = np.flatnonzero(t.tokens == 0)
    assert ends.size == t.n_clauses
    found = [c.tolist() for c in np.split(t.tokens, ends + 1)[:-1]]
    found = [c[:-1] for c in found]
    assert all(1 <= abs(lit) <= k + t.n_aux for c in found for lit in c)
    with solvers.Solver(name="minisat22", bootstrap_with=found) as s:
        for bits in itertools.product([0, 1], repeat=k):
            assumptions = [i + 1 if b else -(i + 1) for i, b in enumerate(bits)]
            assert s.solve(assumptions=assumptions) == (sum(bits) <= 1), bits


@pytest.mark.parametrize("k", range(2, 14))
def test_numpy_pairwise_is_pysat_pairwise(k):
    want = card.CardEnc.atmost(list(range(1, k + 1)), bound=1, top_id=k, encoding=card.EncType.pairwise).clauses
    assert clauses.amo_template(k, "pairwise").tokens.tolist() == [lit for c in want for lit in c + [0]]


@pytest.mark.parametrize("amo", ["pairwise", "seqcounter"])
@pytest.mark.parametrize("enc", ["rows", "bounds", "reduce"])
def test_clauses_are_pysat_card_row_by_row(amo, enc):
    """The vectorised writer emits exactly what pysat.card gives for each row, in row order."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), scheme="block", order="C", clues=enc)
    assert clauses.clause_list(clauses.encode(model, amo)) == pysat_clauses(model, amo)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(-50, 50).filter(bool), max_size=6), max_size=30))
def test_token_clauses_splits_any_zero_terminated_run(clause_lists):
    tokens = np.array([lit for c in clause_lists for lit in c + [0]], dtype=np.int64)
    assert clauses.token_clauses(tokens) == clause_lists


@pytest.mark.parametrize("amo", ["pairwise", "ladder"])
def test_clauses_fed_in_chunks_are_the_clause_list_in_order(amo, monkeypatch):
    """The SAT engine loads a model chunk by chunk (a 100x100's 15.8 million clauses as one list
    took gigabytes and could not be stopped at the time limit): the same clauses, the same order."""
    monkeypatch.setattr(clauses, "_CHUNK_TOKENS", 500)   # many chunks of a 9x9
    enc = clauses.encode(build_model(parse_puzzle(DEFAULT_PUZZLE)), amo)
    fed: list[list[list[int]]] = []
    assert clauses.feed_clauses(fed.append, enc) is True
    assert len(fed) > 10 and [c for chunk in fed for c in chunk] == clauses.clause_list(enc)
    stopped: list[list[list[int]]] = []
    assert clauses.feed_clauses(stopped.append, enc, deadline=0.0) is False and len(stopped) == 1


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
UNIT_ONLY = {"9x9": (DEFAULT_PUZZLE, {}), "x": (DEFAULT_PUZZLE, {"variant": "x"}),
             "jigsaw": ((EXAMPLES / "jigsaw.txt").read_text(), {"regions": (EXAMPLES / "jigsaw_regions.txt").read_text()}),
             "samurai": ((EXAMPLES / "samurai.json").read_text(), {})}


def _rows_of_the_matrix(model):
    """The oracle: the solver view's ``= 1`` rows read from the matrix, variables ascending."""
    a = clauses.exactly_one_rows(model)
    a.sort_indices()
    return a.indptr, (model.columns.astype(np.int64) + 1)[a.indices]


def _assert_rows_read_off_the_tables(model):
    enc = clauses.encode(model, "pairwise")
    indptr, cells = _rows_of_the_matrix(model)
    assert np.array_equal(enc.indptr, indptr) and np.array_equal(enc.cells, cells)
    shared = clauses.encode(model, "pairwise", rows=model.unit_positions)   # the SAT engine's rows
    assert np.array_equal(shared.indptr, model.A.indptr)
    assert np.array_equal(shared.cells, model.A.indices + 1)


@pytest.mark.parametrize("enc", ["rows", "bounds", "reduce"])
@pytest.mark.parametrize("name,scheme", [(name, "ijk") for name in sorted(UNIT_ONLY)]
                         + [("9x9", "block"), ("x", "block")])   # block positions need boxes on one grid
def test_unit_rows_read_off_the_tables_are_the_matrix_rows(name, enc, scheme):
    """A model without rule rows is encoded from its position tables (no scipy); the rows are
    those of ``Aeq`` as a matrix, for every clue encoding, a variant, regions and a layout."""
    text, options = UNIT_ONLY[name]
    puzzle = parse_puzzle(text, **options)
    model = build_model(puzzle, scheme=scheme, order="F", clues=enc)
    assert not model.has_rules
    _assert_rows_read_off_the_tables(model)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=puzzle_documents(), enc=st.sampled_from(["rows", "bounds", "reduce"]))
def test_random_unit_shapes_read_off_the_tables_as_the_matrix(doc, enc):
    doc = {key: value for key, value in doc.items() if key != "rules"}
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:   # givens that break a unit ("lies" of the strategy)
        return
    model = build_model(puzzle, clues=enc)
    _assert_rows_read_off_the_tables(model)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=puzzle_documents(), enc=st.sampled_from(["rows", "bounds", "reduce"]))
def test_random_rule_puzzles_read_their_unit_rows_off_the_tables_as_the_matrix(doc, enc):
    """With rule rows (cages, thermometers, Kropki, ... on layouts and jigsaws) the exactly-one
    rows are read off the tables too (a killer's SAT solve imports no scipy): the same rows as
    ``Aeq``'s without the rules' own, for every clue encoding and after singles."""
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    model = build_model(puzzle, clues=enc)
    _assert_rows_read_off_the_tables(model)
    reduced = presolve(model, "singles")
    if not reduced.contradiction:
        _assert_rows_read_off_the_tables(reduced.model)


def test_auto_picks_pairwise_for_small_grids_and_the_counter_for_large():
    assert clauses.resolve_amo("auto", 9) == "pairwise"
    assert clauses.resolve_amo(None, 25) == "pairwise"
    assert clauses.resolve_amo(None, 26) == clauses.resolve_amo(None, 100) == "ladder"
    with pytest.raises(FormatError, match="unknown at-most-one encoding 'nope'"):
        clauses.resolve_amo("nope", 9)
