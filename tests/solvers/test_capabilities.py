"""Engines are checked against the model's rows and the installed packages, not assumed (issue 32):
auto skips an engine that cannot take the model here, a named engine says why in one line, the
uniqueness check runs on the named engine when it counts, and get_solver("auto") picks per model."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from pipeline.cli.main import main
from pipeline.core import clauses_pb
from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError, SolveError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.auto import pick_solver

KILLER = '{"size": 4, "rules": [{"rule": "cage", "sum": 3, "cells": ["r1c1", "r1c2"]}, ' \
         '{"rule": "cage", "sum": 7, "cells": ["r4c3", "r4c4"]}], "givens": "...4............"}'
ANTIKING = '{"size": 4, "givens": "1...............", "rules": [{"rule": "antiking"}]}'


@pytest.fixture
def no_pindakaas(monkeypatch):
    """The PB encoder cannot load (what a machine without pindakaas shows)."""
    def missing():
        raise PipelineError("rule rows: pseudo-Boolean encodings need python-sat with pindakaas, core dependencies "
                            "that are missing: pip install -e '.'")
    monkeypatch.setattr(clauses_pb, "_pb_module", missing)
    # dfsrules takes these rule puzzles before sat (auto's rule rows): the tests here are about sat's fallback
    monkeypatch.delitem(SOLVERS, "dfsrules", raising=False)


def test_the_sat_engine_takes_a_weighted_model_when_its_encoders_load():
    assert SOLVERS["sat"].problem_with(build_model(parse_puzzle(KILLER))) is None


def test_without_the_pb_encoder_auto_skips_sat_for_weighted_rows_and_says_why(no_pindakaas):
    model = build_model(parse_puzzle(KILLER))
    assert "pindakaas" in SOLVERS["sat"].problem_with(model)
    pick = pick_solver("unique", model)
    assert pick.name != "sat" and "pindakaas" in pick.note
    result = get_solver("auto").solve(model, check_unique=True)
    assert result.status == "optimal" and result.solver != "sat" and verify_grid(result.grid, model.puzzle)


def test_without_the_pb_encoder_unit_weight_rules_still_go_to_sat(no_pindakaas):
    # anti-king rows have weights 1: cardinality encodings, no PB encoder needed
    assert pick_solver("unique", build_model(parse_puzzle(ANTIKING))).name == "sat"


def test_a_named_engine_that_cannot_take_the_model_is_one_line(no_pindakaas, capsys):
    assert main(["solve", KILLER, "--solver", "sat"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: solver sat: rule rows: pseudo-Boolean") and err.count("\n") == 1


def test_without_the_pb_encoder_the_cli_still_solves_with_auto(no_pindakaas, capsys):
    assert main(["solve", KILLER, "--format", "line", "-v"]) == 0
    out, err = capsys.readouterr()
    assert len(out.strip()) == 16 and "pindakaas" in err


def test_highs_named_counts_the_uniqueness_itself(capsys):
    assert main(["solve", KILLER, "--solver", "highs", "-v", "--format", "line"]) == 0
    assert "the uniqueness check counts to 2 with highs" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("pyscipopt") is None, reason="scip needs pyscipopt (the test extra)")
def test_an_engine_that_cannot_count_hands_the_check_to_auto_and_says_so(capsys, tmp_path):
    assert main(["solve", KILLER, "--solver", "scip", "-v", "--format", "line", "--workdir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "the uniqueness check uses" in err and "scip: it cannot count" in err


def test_get_solver_auto_solves_and_counts_per_model():
    auto = get_solver("auto")
    model = build_model(parse_puzzle(KILLER))
    result = auto.solve(model, check_unique=False)
    assert result.solved and result.solver in SOLVERS and result.unique is None
    counted = auto.count(model, 1000)
    brute = get_solver("highs").count(model, 1000)
    assert counted.count == brute.count and counted.status == "complete"
    assert "auto" not in SOLVERS   # not an engine of its own: the CLI and batch choices stay engines


def test_unknown_solver_lists_auto():
    with pytest.raises(SolveError, match="expected one of auto, highs"):
        get_solver("nosuch")


def test_reprs_are_short_and_say_what_matters():
    puzzle = parse_puzzle(KILLER)
    text = repr(puzzle)
    assert text.splitlines()[0] == "<Puzzle 4x4 classic, 1 clue; 2 killer cages>" and len(text) < 200
    model = build_model(puzzle)
    assert repr(model).startswith("<Model of 4x4 classic, 1 clue; 2 killer cages: ijk/F, clues as rows;")
    result = get_solver("auto").solve(model, check_unique=True)
    head, *grid = repr(result).splitlines()
    assert head.startswith(f"<SolveResult optimal by {result.solver} in ") and head.endswith("unique: False>")
    assert len(grid) == 5 and "x" not in repr(result)   # the grid with its box line, never the vector
    assert repr(get_solver("auto").count(model, 3)).startswith("<CountResult 3 (limit) in ")


def test_model_decode_takes_solver_columns_or_every_position():
    puzzle = parse_puzzle(KILLER)
    for clues in ("rows", "bounds", "reduce"):
        model = build_model(puzzle, clues=clues)
        result = get_solver("highs").solve(model)
        assert np.array_equal(model.decode(result.x), result.grid), clues
        assert np.array_equal(model.decode(model.full_vector(result.x)), result.grid), clues
    with pytest.raises(PipelineError, match="decode: expected"):
        model.decode(np.zeros(5))
