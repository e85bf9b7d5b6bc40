"""The ``dfsrules`` kernel's counting handlers (pipeline/solvers/dfsrules_counting.py): counting
circles and count-distinct clues are held without their rows (which need auxiliary columns), so
the handlers alone must hold the rules. Counts to 2 equal the SAT engine's (which reads the rows)
on generated puzzles of both kinds, 4x4 to 9x9, as generated (one solution), with clues removed
(several) and with a wrong digit given on a rule's cell (none); ISS's published puzzles of
these kinds that dfsrules takes give ISS's solutions; other value sets stay refused."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from oracles import ISS_COLLECTION
from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import residual, verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers import dfsrules
from pipeline.tools.generate.puzzles import generate
from dfsrules_agree import agree_with_sat as _agree

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

KINDS = ("countingcircles", "countdistinct")


def _wrong_digit(puzzle, solution):
    """The unique ``puzzle`` with an open cell of its rules given a digit other than the solution's
    (so no solution), the first such that breaks no rule visibly (the build would refuse it)."""
    for rule in puzzle.rules:
        for cell in (getattr(rule, "clue", None), *rule.cell_list):
            if cell is None or puzzle.grid.flat[cell]:
                continue
            for digit in range(1, puzzle.n + 1):
                if digit == solution.flat[cell]:
                    continue
                grid = puzzle.grid.copy()
                grid.flat[cell] = digit
                try:
                    wrong = dataclasses.replace(puzzle, grid=grid)
                    build_model(wrong)
                except PipelineError:
                    continue
                return wrong
    raise AssertionError("no wrong digit fits")



@pytest.mark.parametrize("size", [4, 6, 9])
@pytest.mark.parametrize("kind", KINDS)
def test_generated_puzzles_count_as_the_sat_engine(kind, size):
    counts = []
    for k, made in enumerate(generate(size=size, count=4, seed=size, rules=[{"rule": kind}])):
        puzzle = made.puzzle
        counts.append(_agree(puzzle))
        rng = np.random.default_rng(k)
        fewer = np.where(rng.random(puzzle.grid.shape) < 0.4, puzzle.grid, 0)   # several solutions
        counts.append(_agree(dataclasses.replace(puzzle, grid=fewer)))
        assert _agree(_wrong_digit(puzzle, made.solution)) == 0
    assert {1, 2} <= set(counts), counts


def _iss_entries() -> list[dict]:
    if not ISS_COLLECTION.is_file():
        pytest.skip(f"{ISS_COLLECTION} is absent (../shared is not beside the project)")
    entries = [json.loads(line) for line in ISS_COLLECTION.read_text().splitlines()]
    return [e for e in entries if "CountingCircles" in e["input"] or "CountDistinct" in e["input"]]


def test_iss_counting_puzzles_dfsrules_takes_give_their_solutions():
    taken = 0
    for entry in _iss_entries():
        model = build_model(parse_puzzle(entry["input"]))
        if dfsrules.model_problem(model) is not None:
            continue
        result = get_solver("dfsrules").solve(model, check_unique=True)
        assert result.status == "optimal" and result.unique, entry["name"]
        assert "".join(str(d) for d in result.grid.ravel()) == entry["solution"], entry["name"]
        assert residual(model, result.x) == 0, entry["name"]   # the rows' auxiliary columns filled in
        taken += 1
    assert taken >= 4


@pytest.mark.parametrize("kind", KINDS)
def test_other_value_sets_stay_refused(kind):
    rule = {"rule": kind, "cells": ["r1c1", "r2c3", "r3c2"]}
    if kind == "countdistinct":
        rule["clue"] = "r1c1"
    model = build_model(parse_puzzle({"size": 4, "box": "2x2", "values": "0-3", "rules": [rule]}))
    problem = dfsrules.model_problem(model)
    assert problem is not None and "values 1..4 only" in problem
    standard = build_model(parse_puzzle({"size": 4, "box": "2x2", "rules": [rule]}))
    assert dfsrules.model_problem(standard) is None


@pytest.mark.parametrize("size", [4, 6])
@pytest.mark.parametrize("kind", KINDS)
def test_rules_without_givens_count_as_the_sat_engine_to_twenty(kind, size):
    """The generated rules on an empty grid: many solutions (4x4: all of them, fewer than twenty
    for some), each of the handlers' removals held to the rows' answer twenty solutions deep."""
    for made in generate(size=size, count=3, seed=size + 1, rules=[{"rule": kind}]):
        puzzle = dataclasses.replace(made.puzzle, grid=np.zeros_like(made.puzzle.grid))
        model = build_model(puzzle)
        got, want = get_solver("dfsrules").count(model, 20), get_solver("sat").count(model, 20)
        assert (got.count, got.status) == (want.count, want.status)
        assert len({g.tobytes() for g in got.grids}) == got.count
        for grid in got.grids:
            assert verify_grid(grid, puzzle).ok
