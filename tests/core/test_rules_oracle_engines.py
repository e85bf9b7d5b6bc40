"""Solution counts of random small puzzles with rules: the SAT engine (unit rows plus the rule
rows' cardinality / pseudo-Boolean clauses, layouts' absent cells fixed false) and CP-SAT (the
rule rows as linear constraints over its Booleans) against the independent oracle (CP-SAT on integer cells, tests/core/rule_oracle.py) and, on single 4x4
grids, brute force.

Both ways of giving the engine clues are held to the oracle: a fresh solver with the clues as
unit clauses (``solve``/``count``), and the shape's shared cached engine with the clues as
assumptions (``engine_for``, what batch and generate use) — the count must not depend on what
that engine counted before. The uniqueness proof of ``solve --unique`` is checked too.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rule_oracle as oracle
from random_puzzles import SINGLE, SHAPES, puzzle_documents
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import cpsat, sat

pytest.importorskip("pysat")

#: SAT counts cheaply (blocking clauses), so the cap is larger than HiGHS's.
CAP = 6
ENGINES = ("sat", "sat-shared", "cpsat")
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def _check_agreement(doc: dict, clues: str, engine: str, cap: int = CAP) -> None:
    """``engine``: ``sat`` (fresh solver, clues as units), ``sat-shared`` (the cached engine,
    clues as assumptions) or ``cpsat``."""
    spec = oracle.spec_from_document(doc)
    want, _ = oracle.count(spec, cap)
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError as e:
        assert want == 0, f"the project refused a puzzle with {want} solution(s): {e}"
        return
    model = build_model(puzzle, clues=clues)
    if engine == "cpsat":
        count, solve = cpsat.count, cpsat.solve
    else:
        reuse = engine == "sat-shared"
        count = lambda m, c: sat.count(m, c, reuse=reuse)  # noqa: E731
        solve = lambda m: sat.solve(m, check_unique=True, reuse=reuse)  # noqa: E731
    got = count(model, cap)
    assert got.count == want, (got.count, want, doc)
    assert got.status == ("limit" if want >= cap else "complete")
    assert len({g.tobytes() for g in got.grids}) == got.count
    ok = oracle.checker(spec)
    for grid in got.grids:
        verdict = verify_grid(grid, puzzle)
        assert verdict.ok, verdict.message
        assert ok(grid), grid
    solved = solve(model)
    assert solved.status == ("optimal" if want else "infeasible")
    if want:
        assert verify_grid(solved.grid, puzzle).ok
        if engine != "cpsat":
            assert solved.unique is (want == 1)
    if doc["size"] == 4 and "layout" not in doc:
        assert oracle.brute_count(spec, cap) == want


@SETTINGS
@given(doc=puzzle_documents(shapes=SINGLE), clues=st.sampled_from(["rows", "bounds", "reduce"]),
       engine=st.sampled_from(ENGINES))
def test_random_puzzles_count_as_the_oracle_with_sat(doc, clues, engine):
    _check_agreement(doc, clues, engine)


@settings(SETTINGS, max_examples=30)
@given(doc=puzzle_documents(shapes=("samurai4", "pair4", "overlap4")), clues=st.sampled_from(["rows", "reduce"]),
       engine=st.sampled_from(ENGINES))
def test_random_gattai_puzzles_count_as_the_oracle_with_sat(doc, clues, engine):
    _check_agreement(doc, clues, engine)


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_alone_counts_as_the_oracle_with_sat(shape, engine):
    """No rules, no givens: many solutions; a layout's absent cells never multiply them."""
    _check_agreement(dict(SHAPES[shape], rules=[], givens=[]), "rows", engine, cap=40)


@pytest.mark.parametrize("doc, cap", [
    ({"size": 4, "box": "2x2", "rules": [{"rule": "antiknight"}]}, 100),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "disjointgroups"}]}, 200),
    ({"size": 4, "box": "2x2", "rules": [{"rule": "windoku"}]}, 200),
    ({"size": 6, "box": "2x3", "rules": [{"rule": "nonconsecutive"}]}, 60),
], ids=lambda v: str(v) if isinstance(v, int) else f"{v['size']}-{v['rules'][0]['rule']}")
@pytest.mark.parametrize("engine", [sat, cpsat], ids=["sat", "cpsat"])
def test_each_global_rule_on_an_empty_grid_counts_in_full_with_sat(doc, cap, engine):
    """Counted in full (24 anti-knight 4x4s, 168 disjoint-group and windoku 4x4s, 48
    non-consecutive 6x6s, per the oracle)."""
    spec = oracle.spec_from_document(doc)
    want = oracle.count(spec, cap)[0]
    assert want < cap
    got = engine.count(build_model(parse_puzzle(doc)), cap)
    assert (got.count, got.status) == (want, "complete")


def test_engine_for_never_shares_an_engine_across_rules_or_layouts():
    """Same givens (none), different cages / layout: different engines, each counting its own
    puzzle; the same rules again: the same engine."""
    base = {"size": 4, "box": "2x2"}
    cage_a = dict(base, rules=[{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}])
    cage_b = dict(base, rules=[{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 7}])
    side = dict(base, layout={"grids": ["r1c1", "r1c5"]})
    over = dict(base, layout={"grids": ["r1c1", "r3c3"]})
    engines = []
    for doc in (cage_a, cage_b, side, over):
        model = build_model(parse_puzzle(doc))
        engine = sat.engine_for(model)
        engines.append(engine)
        want = oracle.count(oracle.spec_from_document(doc), 2000)[0]
        assert engine.count(model, 2000).count == want
    assert len({id(e) for e in engines}) == 4
    assert sat.engine_for(build_model(parse_puzzle(dict(cage_a)))) is engines[0]
