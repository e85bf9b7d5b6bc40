"""Batch with rules beyond units (issue 15): the rules travel with each record (a JSON document
per text line or ``puzzle`` cell, or a CSV/Parquet ``rules`` column), records group into shapes by
their rules too (two killers with different cages never share a model), each answer equals what
``solve`` gives the same puzzle, a bad rule is that record's error row only, an engine that does
not read rule rows refuses those records in one line, and a layout is refused per record."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from pipeline.batch import run_batch
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers.highs import solve as highs_solve
from pipeline.core.build import build_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PLAIN = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def _document(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text())


def _line(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"))


def _own_solution(text: str) -> str:
    """What solving the record on its own gives (HiGHS, the puzzle with its rules)."""
    result = highs_solve(build_model(parse_puzzle(text + "\n")))
    assert result.status == "optimal"
    return "".join(str(v) for v in result.grid.ravel())


def _results(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out).sort_values("index").reset_index(drop=True)


def test_documents_per_line_each_solved_with_their_own_rules(tmp_path):
    killer, thermo = _document("killer.json"), _document("thermo.json")
    other_killer = dict(killer, rules=killer["rules"][1:] + [dict(killer["rules"][0])])  # same cages, reordered
    records = [_line(killer), PLAIN, _line(thermo), _line(other_killer)]
    (tmp_path / "in.txt").write_text("\n".join(records) + "\n")
    summary = run_batch(tmp_path / "in.txt", tmp_path / "out", workers=1, solver="highs", count=2)
    assert summary.complete
    got = _results(tmp_path / "out")
    assert got["status"].tolist() == ["optimal"] * 4
    assert got["n_solutions"].tolist() == [1, 1, 1, 1]
    for record, solution in zip(records, got["solution"]):
        assert solution == _own_solution(record)
        grid = parse_puzzle(solution)
        assert verify_grid(grid.grid, parse_puzzle(record + "\n")).ok
    # the plain Sudoku's answer breaks the killer's cages: sharing a shape would have shown
    assert got["solution"][0] != got["solution"][1]


def test_a_rules_column_joins_each_row_and_a_bad_rule_is_that_rows_error(tmp_path):
    rows = [
        {"puzzle": PLAIN, "rules": ""},
        {"puzzle": "." * 81, "rules": json.dumps(_document("killer.json")["rules"])},
        {"puzzle": PLAIN, "rules": '[{"rule": "cage", "cells": ["r10c1", "r1c2"], "sum": 3}]'},
        {"puzzle": PLAIN, "rules": "[not json"},
        {"puzzle": "." * 81, "rules": json.dumps(_document("miracle.json")["rules"])},
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "in.csv", index=False)
    run_batch(tmp_path / "in.csv", tmp_path / "out", workers=1, solver="highs", count=2)
    got = _results(tmp_path / "out")
    assert got["status"].tolist()[:2] == ["optimal", "optimal"]
    assert got["solution"][1] == _own_solution(got["puzzle"][1])
    assert json.loads(got["puzzle"][1])["rules"] == _document("killer.json")["rules"]   # the result says what was solved
    assert got["status"][2] == "error" and "r10c1" in got["error"][2] and "\n" not in got["error"][2]
    assert got["status"][3] == "error" and "JSON" in got["error"][3]
    # the miracle's givens are not in this row: anti-knight + anti-king + non-consecutive alone
    assert got["status"][4] == "optimal" and got["n_solutions"][4] == 2


@pytest.mark.parametrize("solver", ["sat", "cpsat"])
def test_an_engine_without_rule_rows_refuses_those_records_only(tmp_path, solver):
    from pipeline.solvers import SOLVERS

    pytest.importorskip("pysat" if solver == "sat" else "ortools")
    if SOLVERS[solver].rule_rows or SOLVERS[solver].batch_kernel is None:
        pytest.skip(f"{solver} reads rule rows now, or has no batch kernel")
    (tmp_path / "in.txt").write_text(_line(_document("killer.json")) + "\n" + PLAIN + "\n")
    run_batch(tmp_path / "in.txt", tmp_path / "out", workers=1, solver=solver)
    got = _results(tmp_path / "out")
    assert got["status"].tolist() == ["error", "optimal"]
    assert got["error"][0] == (f"batch: solver {solver} does not handle rules beyond units "
                               "(batch engines that do: highs)")


def test_windoku_adds_units_only_so_every_engine_takes_it(tmp_path):
    pytest.importorskip("pysat")
    doc = {"size": 4, "givens": "1...............", "rules": [{"rule": "windoku"}]}
    (tmp_path / "in.txt").write_text(_line(doc) + "\n")
    run_batch(tmp_path / "in.txt", tmp_path / "out", workers=1, solver="sat")
    assert _results(tmp_path / "out")["status"].tolist() == ["optimal"]


def test_a_layout_is_refused_per_record_and_a_rerun_resumes(tmp_path):
    samurai = _line(_document("samurai.json"))
    (tmp_path / "in.txt").write_text(samurai + "\n" + PLAIN + "\n")
    first = run_batch(tmp_path / "in.txt", tmp_path / "out", workers=1, solver="highs")
    got = _results(tmp_path / "out")
    assert got["status"].tolist() == ["error", "optimal"]
    assert got["error"][0] == "batch: a samurai layout is not solved in batch; solve it with the solve command"
    again = run_batch(tmp_path / "in.txt", tmp_path / "out", workers=1, solver="highs")
    assert again.complete and first.complete
    assert len(_results(tmp_path / "out")) == 2
