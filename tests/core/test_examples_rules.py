"""The puzzle documents of examples/ that have rules beyond units: each has exactly one solution
(the independent oracle and HiGHS agree), it verifies, and for the published ones it is the
solution their source lists."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import rule_oracle as oracle
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers.base import SOLVERS
from pipeline.solvers.highs import count_solutions

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: The solutions listed beside the published puzzles (sigh/Interactive-Sudoku-Solver's collections).
LISTED = {
    "killer.json": "215647398368952174794381652586274931142593867973816425821739546659428713437165289",
    "kropki.json": "167324958542869731839175462674518293395247186281693547723956814458731629916482375",
    "thermo.json": "847632519295471386631598247129743865486259173753816924368924751974185632512367498",
}
DOCUMENTS = ["killer.json", "kropki.json", "thermo.json", "miracle.json", "samurai.json", "futoshiki.json"]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_an_example_has_exactly_one_solution(name):
    path = EXAMPLES / name
    doc = json.loads(path.read_text())
    assert doc.get("source"), "every example says where it comes from"
    want, grids = oracle.count(oracle.spec_from_document(doc), 2)
    assert want == 1
    puzzle = parse_puzzle(str(path))
    got = count_solutions(build_model(puzzle), limit=2)
    assert (got.count, got.status) == (1, "complete")
    assert np.array_equal(got.grids[0], grids[0]) and verify_grid(got.grids[0], puzzle).ok
    if name in LISTED:
        assert "".join(map(str, got.grids[0].ravel())) == LISTED[name]


def test_the_cli_solves_a_rule_example_as_unique(capsys):
    assert main(["solve", str(EXAMPLES / "futoshiki.json"), "--unique", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out.get("unique") is True


def test_count_defaults_to_an_engine_that_reads_the_rules(capsys):
    """``count`` and ``solve``'s uniqueness check default to an engine that reads rule rows (the
    SAT engine once ignored them and answered "2 (at least)" for every unique puzzle with rules)."""
    assert main(["count", str(EXAMPLES / "killer.json")]) == 0
    assert capsys.readouterr().out.strip() == "1 (unique)"


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
@pytest.mark.parametrize("command", ["solve", "count"])
def test_the_in_process_engines_solve_rule_puzzles_by_their_rules(engine, command, capsys):
    """Both engines once returned grids that break the rules (a Futoshiki solved as a bare Latin
    square) with status optimal; they now read the rule rows: one solution, the oracle's."""
    pytest.importorskip("pysat" if engine == "sat" else "ortools")
    path = EXAMPLES / "futoshiki.json"
    assert main([command, str(path), "--solver", engine, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    _, grids = oracle.count(oracle.spec_from_document(json.loads(path.read_text())), 2)
    if command == "count":
        assert (out["count"], out["status"]) == (1, "complete")
    else:
        assert out["status"] == "optimal" and out["verified"] is True
        assert out["line"] == "".join(map(str, grids[0].ravel()))


@pytest.mark.parametrize("command", ["solve", "count"])
def test_an_engine_without_rule_rows_refuses_instead_of_ignoring_them(command, capsys, monkeypatch):
    """An engine that does not declare ``rule_rows`` refuses a rule puzzle with one line (the SAT
    engine, declared without it here, stands for any such engine)."""
    pytest.importorskip("pysat")
    monkeypatch.setitem(SOLVERS, "sat", dataclasses.replace(SOLVERS["sat"], rule_rows=False))
    assert main([command, str(EXAMPLES / "futoshiki.json"), "--solver", "sat"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "solver sat: this puzzle has rules beyond units, which sat does not handle" in err


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_rules_that_only_add_units_still_go_to_every_engine(engine, capsys):
    """Windoku adds units (rows of A), which every engine reads: 168 windoku 4x4s, as brute force says."""
    pytest.importorskip("pysat" if engine == "sat" else "ortools")
    doc = '{"size": 4, "rules": [{"rule": "windoku"}]}'
    want = oracle.brute_count(oracle.spec_from_document(json.loads(doc)))
    assert main(["count", doc, "--solver", engine, "--limit", "300"]) == 0
    assert capsys.readouterr().out.split()[0] == str(want) == "168"
