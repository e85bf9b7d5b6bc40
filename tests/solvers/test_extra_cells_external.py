"""Extra cells (digits outside the grid, the first auxiliary columns) come back from every external
program: its answer file names them (a SAT/PB program by variable number, a MIP one by name), so
``solve`` prints and verifies their digits and ``import`` does too. Before, every external engine
ended with "gave no digits of the extra cells" (exit 1)."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from interop_helpers import registry_solver_or_skip

from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.extracells import extra_digits
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS

pytestmark = pytest.mark.interop
#: A cage over r1c1 and two extra cells (S1, S2), a thermometer from an extra cell T.
DOC = {"size": 4, "givens": "1.3.............", "extra": [{"name": "S", "size": 2}, {"name": "T", "label": "top"}],
       "rules": [{"rule": "cage", "cells": ["r1c1", "S1", "S2"], "sum": 8},
                 {"rule": "thermo", "cells": ["T", "r1c2", "r2c2"]}]}
EXTERNAL = ["minisat", "picosat", "cadical", "cryptominisat", "clasp", "minisat+", "sat4j", "cbc", "glpk", "scip"]


_available = registry_solver_or_skip


def _extras_hold(grid: np.ndarray, s: list[int], t: list[int]) -> bool:
    """The rules on the extra cells, checked here: r1c1 + S1 + S2 = 8 all different, T < r1c2 < r2c2."""
    return (grid[0, 0] + sum(s) == 8 and len({int(grid[0, 0]), *s}) == 3
            and t[0] < grid[0, 1] < grid[1, 1])


@pytest.mark.parametrize("name", EXTERNAL)
def test_solve_prints_the_extra_cells_of_an_external_answer(name, capsys, tmp_path):
    _available(name)
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(DOC))
    assert main(["solve", str(path), "--solver", name, "--format", "json", "--no-unique-check",
                 "--time-limit", "60"]) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    grid = np.array(out["grid"])
    assert out["verified"] and _extras_hold(grid, out["extra"]["S"], out["extra"]["T"])


@pytest.mark.parametrize("name, fmt", [(name, fmt) for name in EXTERNAL[:7] for fmt in SOLVERS[name].reads])
def test_the_engine_result_carries_the_answer_over_every_column(name, fmt, tmp_path):
    solver = _available(name)
    puzzle = parse_puzzle(DOC)
    for scheme, order, clues in itertools.product(("ijk", "block"), ("F", "C"), ("rows", "reduce")):
        model = build_model(puzzle, scheme, order, clues)
        result = solver.solve(model, file_format=fmt, time_limit=60, workdir=tmp_path / f"{scheme}{order}{clues}")
        assert result.x is not None and result.x.size == model.n_cols, (scheme, order, clues)
        extra = extra_digits(model, result.x)
        assert extra is not None and verify_grid(result.grid, puzzle, extra), (scheme, order, clues)


def test_import_judges_the_extra_cells_an_answer_names(tmp_path, capsys):
    """A CBC answer whose thermometer bulb T is moved to 4 verifies no more: the extra cells are
    held to the rules, not dropped."""
    _available("cbc")
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(DOC))
    assert main(["solve", str(path), "--solver", "cbc", "--workdir", str(tmp_path / "cbc"),
                 "--no-unique-check", "--format", "json"]) == 0
    capsys.readouterr()
    answer = tmp_path / "cbc" / "cbc_solution.txt"
    text = answer.read_text()
    line = next(line for line in text.splitlines() if "aux_extra_2_1_" in line)
    bulb = int(line.split()[1].rsplit("_", 1)[1])
    assert main(["import", str(answer), "--manifest", str(tmp_path / "cbc")]) == 0
    good = capsys.readouterr().out
    assert f"T: {bulb}\n" in good and "S: " in good
    moved = tmp_path / "moved.sol"
    moved.write_text(text.replace(f"aux_extra_2_1_{bulb} ", "aux_extra_2_1_4 " if bulb != 4 else "aux_extra_2_1_3 "))
    assert main(["import", str(moved), "--manifest", str(tmp_path / "cbc")]) == 1
    assert "invalid: thermometer T" in capsys.readouterr().err


def test_octave_whose_answer_is_a_grid_gets_extra_cells_that_go_with_it(capsys, tmp_path):
    """Octave's answer is the grid alone (sudoku.csv): solve finds extra cells' digits that go with
    it, as import does, and judges them with the rules. It refused such a puzzle before the run."""
    _available("octave")
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(DOC))
    assert main(["solve", str(path), "--solver", "octave", "--format", "json", "--no-unique-check"]) == 0, \
        capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    grid = np.array(out["grid"])
    assert out["solver"] == "octave" and out["verified"]
    assert _extras_hold(grid, out["extra"]["S"], out["extra"]["T"])
