"""Auxiliary 0-1 columns (issue 33): their place after the cell-digit block, names, manifest,
every format's round trip, every engine's grid, and the CNF through an external SAT binary."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from pipeline import parse_puzzle
from pipeline.core.build import build_model
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.solvers.base import get_solver

from formats.agree import model_difference
from formats.base import FORMATS, ModelData, read_model, write_model
from formats.check import check_export
from formats.directory import export_model, import_solution

# a 4x4 with a skyscraper and counting circles (auxiliary columns) and a sandwich (big-M rows)
DOC = {"size": 4, "givens": "1........1......",
       "rules": [{"rule": "skyscraper", "clue": "r0c2", "count": 2}, {"rule": "sandwich", "clue": "r2c0", "sum": 2},
                 {"rule": "countingcircles", "cells": ["r2c2", "r3c3"]}]}


def _model(clues: str = "rows", scheme: str = "ijk", order: str = "F"):
    return build_model(parse_puzzle(json.dumps(DOC)), scheme, order, clues)


def test_aux_columns_follow_the_cell_digit_block_in_rule_order():
    model = _model()
    n_vars = model.convention.n_vars
    assert model.n_aux == 3 + 4 and model.n_cols == n_vars + model.n_aux
    np.testing.assert_array_equal(model.columns[n_vars:], n_vars + np.arange(model.n_aux))
    assert model.col_names[n_vars:].tolist() == ["aux_skyscraper_1_2", "aux_skyscraper_1_3", "aux_skyscraper_1_4",
                                                 "aux_countingcircles_1_1", "aux_countingcircles_1_2",
                                                 "aux_countingcircles_1_3", "aux_countingcircles_1_4"]
    # only rule rows reach them; A and B are zero there
    assert model.A[:, n_vars:].nnz == 0 and model.B[:, n_vars:].nnz == 0
    assert model.Aineq[:, n_vars:].nnz > 0
    meta = model_metadata(model)
    assert meta["aux_columns"] == {"first": n_vars, "count": 7, "families": {"skyscraper": 3, "countingcircles": 4},
                                   "names": "aux_<family>_<i>_<j>..., in rule order"}
    man = manifest_from_dict(meta)
    np.testing.assert_array_equal(man.columns, model.columns)
    assert man.col_names().tolist() == model.col_names.tolist()


def test_the_aux_count_is_the_names_count_without_writing_them():
    """``n_aux`` counts the blocks (a million names took 1.3 s to write); the names, when built,
    are as many. Extra cells' digit columns count too."""
    from pipeline.core.rulerows import aux_column_count, aux_column_names
    extra = {"size": 4, "extra": [{"name": "S", "size": 2}, {"name": "T", "label": "top"}], "rules": DOC["rules"]}
    for doc in (DOC, extra, {"size": 4}, {"size": 9, "rules": [{"rule": "chaos"}]}):
        puzzle = parse_puzzle(json.dumps(doc))
        assert aux_column_count(puzzle) == aux_column_names(puzzle)[0].size
        fresh = build_model(puzzle)
        assert fresh.n_aux == aux_column_count(puzzle) and "aux_names" not in vars(fresh)
    assert aux_column_count(parse_puzzle(json.dumps({"size": 9, "rules": [{"rule": "chaos"}]}))) == 2 * 9 ** 3 * 10
    assert aux_column_count(parse_puzzle(json.dumps(extra))) == 3 * 4 + 7   # three extra cells' digits, then DOC's


def test_reduce_keeps_every_aux_column_and_decode_ignores_them():
    model = _model("reduce")
    n_vars = model.convention.n_vars
    assert (model.columns >= n_vars).sum() == 7 and model.columns[-1] == n_vars + 6
    result = get_solver("highs").solve(model)
    assert result.status == "optimal"
    np.testing.assert_array_equal(model.decode(result.x), result.grid)
    assert model.full_vector(result.x).size == n_vars


def test_models_without_aux_columns_are_unchanged():
    model = build_model(parse_puzzle(json.dumps({"size": 4, "rules": [{"rule": "antiknight"}]})))
    assert model.n_aux == 0 and model.n_cols == 64 and "aux_columns" not in model_metadata(model)


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_every_format_reads_back_the_identical_model(tmp_path, clues):
    model = _model(clues, "block", "C") if clues == "rows" else _model(clues)
    want = ModelData.from_model(model)
    for name, fmt in FORMATS.items():
        if fmt.write is None or fmt.read is None:
            continue
        path = tmp_path / f"model_{name}{fmt.extensions[0]}"
        write_model(model, path, name)
        got = read_model(path, name)
        difference = model_difference(got, want)
        if name == "csv" and clues == "bounds":    # one CSV file carries no lb (the export's lb.csv does)
            difference = model_difference(got, want, vectors=False)
        assert difference is None, (name, difference)
    out = tmp_path / "export"
    export_model(model, out)
    result = check_export(out)
    assert result, result.problems
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["aux_columns"]["count"] == 7
    assert "#variable= 71 " in (out / "model.opb").read_text().splitlines()[0]


def test_engines_agree_on_the_grid():
    model = _model()
    grids = []
    names = ["highs", "sat"] + (["cpsat"] if get_solver("cpsat", check_available=False).available() is None else [])
    for name in names:
        result = get_solver(name).solve(model)
        assert result.status == "optimal", name
        assert result.x.size == model.n_cols
        grids.append(result.grid)
    counted = get_solver("highs").count(model, 5)
    assert counted.count == 1          # the puzzle is unique: every engine gives the one grid
    assert grids[0].tolist() == [[1, 3, 4, 2], [4, 2, 1, 3], [3, 1, 2, 4], [2, 4, 3, 1]]
    assert all(np.array_equal(g, grids[0]) for g in grids)


def test_dfs_refuses_and_auto_takes_them():
    model = _model()
    from pipeline.solvers.base import model_needs_rule_rows

    assert model_needs_rule_rows(model)
    assert not get_solver("dfs", check_available=False).rule_rows
    assert get_solver("auto").solve(model).status == "optimal"


@pytest.mark.parametrize("binary", ["minisat", "cadical", "kissat"])
def test_cnf_solved_by_an_external_sat_binary(tmp_path, binary):
    exe = shutil.which(binary)
    if exe is None:
        pytest.skip(f"{binary} is not on PATH")
    model = _model()
    export_model(model, tmp_path, "cnf")
    answer = tmp_path / "answer.txt"
    if binary == "minisat":
        subprocess.run([exe, str(tmp_path / "model.cnf"), str(answer)], capture_output=True, timeout=60)
    else:
        done = subprocess.run([exe, str(tmp_path / "model.cnf")], capture_output=True, text=True, timeout=60)
        answer.write_text(done.stdout)
    imported = import_solution(answer, tmp_path / "manifest.json")
    np.testing.assert_array_equal(imported.grid, get_solver("highs").solve(model).grid)
    assert imported.verdict and imported.residual == 0.0
