"""The SAT clause encoding (pipeline.core.clauses): every at-most-one template against a SAT
solver's truth table and pysat.card, and a whole model's clauses against pysat.card row by row."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from pipeline.core import clauses
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
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


def test_auto_picks_pairwise_for_small_grids_and_the_counter_for_large():
    assert clauses.resolve_amo("auto", 9) == "pairwise"
    assert clauses.resolve_amo(None, 25) == "pairwise"
    assert clauses.resolve_amo(None, 26) == clauses.resolve_amo(None, 100) == "ladder"
    with pytest.raises(FormatError, match="unknown at-most-one encoding 'nope'"):
        clauses.resolve_amo("nope", 9)
