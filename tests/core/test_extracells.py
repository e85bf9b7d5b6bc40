"""Extra cells outside the grid (pipeline/core/extracells.py, ISS ``Var``; issue 33).

The oracle is the meaning: a grid solves the puzzle when some values of the extra cells keep
every rule that names them, judged directly on every 4x4 sudoku grid; ``verify`` must agree with
it, and the SAT, HiGHS and CP-SAT counts, which count solutions as ISS does (a grid with its extra
cells' values: two answers differing only in an extra cell are two), must equal the direct count.
"""
from __future__ import annotations


import numpy as np
import pytest

from oracles import every_4x4_sudoku

from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.extracells import extra_digits, parse_extra
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS


def _grids4() -> list[np.ndarray]:
    return every_4x4_sudoku()


GRIDS = _grids4()
DOC = {"size": 4, "extra": [{"name": "S", "size": 2}, {"name": "T", "label": "top"}],
       "rules": [{"rule": "cage", "cells": ["r1c1", "S1", "S2"], "sum": 8},
                 {"rule": "thermo", "cells": ["T", "r1c2", "r2c2"]}]}


def _direct(g: np.ndarray) -> bool:
    """Some S1, S2, T keep the cage (r1c1 + S1 + S2 = 8, all different) and T < r1c2 < r2c2."""
    cage = any(g[0, 0] + a + b == 8 and len({g[0, 0], a, b}) == 3 for a in range(1, 5) for b in range(1, 5))
    thermo = g[0, 1] < g[1, 1] and g[0, 1] > 1
    return cage and thermo


def _direct_solutions(g: np.ndarray) -> int:
    """How many (S1, S2, T) keep the cage and the thermometer with the grid ``g``."""
    cage = sum(g[0, 0] + a + b == 8 and len({g[0, 0], a, b}) == 3 for a in range(1, 5) for b in range(1, 5))
    thermo = sum(t < g[0, 1] < g[1, 1] for t in range(1, 5))
    return cage * thermo


def test_counts_match_the_direct_check_on_every_4x4_grid():
    expected = sum(_direct(g) for g in GRIDS)
    assert 0 < expected < len(GRIDS)
    assert [g for g in GRIDS if _direct(g)] == [g for g in GRIDS if _direct_solutions(g)]
    solutions = sum(_direct_solutions(g) for g in GRIDS)
    assert solutions > expected   # some grids have several extra values: each is a solution
    model = build_model(parse_puzzle(DOC))
    for engine in ("sat", "highs", "cpsat"):
        if SOLVERS[engine].available():
            continue   # cpsat without ortools
        result = SOLVERS[engine].count(model, solutions + 1)
        assert (result.count, result.status) == (solutions, "complete"), engine


@pytest.mark.parametrize("engine", ["sat", "highs", "cpsat"])
def test_a_solved_grid_with_free_extra_cells_has_one_solution_per_extra_value(engine):
    """Uniqueness is of the whole answer: a full grid whose two extra cells only have to differ
    has 4 x 3 solutions (a count over the grid alone said 1: unique)."""
    if SOLVERS[engine].available():
        pytest.skip(f"{engine}: {SOLVERS[engine].available()}")
    doc = {"size": 4, "givens": "1234341221434321", "extra": [{"name": "S", "size": 2}],
           "rules": [{"rule": "cage", "cells": ["S1", "S2"]}]}
    result = SOLVERS[engine].count(build_model(parse_puzzle(doc)), 100)
    assert (result.count, result.status) == (12, "complete")


def test_verify_judges_the_extra_cells():
    puzzle = parse_puzzle(DOC)
    good = next(g for g in GRIDS if _direct(g))
    s = next((a, b) for a in range(1, 5) for b in range(1, 5) if good[0, 0] + a + b == 8 and len({good[0, 0], a, b}) == 3)
    assert verify_grid(good, puzzle, np.array([s[0], s[1], 1]))
    bad = verify_grid(good, puzzle, np.array([s[0], s[0], 1]))
    assert not bad and "cage" in bad.message
    assert not verify_grid(good, puzzle, np.array([s[0], s[1], 9]))


def test_a_broken_rule_names_its_extra_cells_by_name_not_as_cells_past_the_grid():
    """``import`` said an extra cell was at [5, 1] of a 4x4 grid (its number past the canvas)."""
    from pipeline.core.verify import grid_violations

    puzzle = parse_puzzle(DOC)
    good = next(g for g in GRIDS if _direct(g))
    s = next((a, b) for a in range(1, 5) for b in range(1, 5) if good[0, 0] + a + b == 8 and len({good[0, 0], a, b}) == 3)
    broken = [v for v in grid_violations(good, puzzle, np.array([s[0], s[0], 1])) if v["kind"] == "rule"]
    assert broken
    for v in broken:
        assert all(1 <= r <= 4 and 1 <= c <= 4 for r, c in v["cells"])
        assert v["extra_cells"] and set(v["extra_cells"]) <= {"S1", "S2"}


@pytest.mark.parametrize("engine", ["sat", "highs", "cpsat"])
def test_engines_give_extra_values_that_verify(engine):
    puzzle = parse_puzzle(DOC)
    model = build_model(puzzle)
    result = SOLVERS[engine].solve(model)
    extra = extra_digits(model, result.x)
    assert extra is not None and extra.shape == (3,)
    assert verify_grid(result.grid, puzzle, extra)


def test_model_columns_and_rows():
    model = build_model(parse_puzzle(DOC))
    assert model.aux_names[:5].tolist() == ["aux_extra_1_1_1", "aux_extra_1_1_2", "aux_extra_1_1_3",
                                            "aux_extra_1_1_4", "aux_extra_1_2_1"]
    assert model.aux_names[8:12].tolist() == [f"aux_extra_2_1_{d}" for d in range(1, 5)]
    assert model.R.families[0] == ("extracell", "E", 3)


def test_document_round_trip():
    puzzle = parse_puzzle(DOC)
    doc = puzzle.to_document()
    assert doc["extra"] == [{"name": "S", "size": 2}, {"name": "T", "size": 1, "label": "top"}]
    assert parse_puzzle(doc) == puzzle
    assert Puzzle.from_dict(puzzle.to_dict()) == puzzle
    assert parse_puzzle({**DOC, "extra": [{"name": "S", "size": 2}, {"name": "T", "size": 1}]}) != puzzle


def test_iss_round_trip():
    text = ".Shape~4x4.Var~S~~2.Var~T~top.Cage~8~R1C1~VS1~VS2.Thermo~VT~R1C2~R2C2.~VS1_3_4"
    doc = document_from_iss(text)
    assert doc["extra"] == [{"name": "S", "size": 2}, {"name": "T", "size": 1, "label": "top"}]
    puzzle = parse_puzzle(text)
    again = iss_from_puzzle(puzzle)
    assert "Var~S~~2" in again and "VS1" in again
    assert parse_puzzle(again) == puzzle


def test_every_format_reads_back(tmp_path):
    import json
    import subprocess
    import sys

    source = tmp_path / "p.json"
    source.write_text(json.dumps(DOC))
    run = [sys.executable, "-m", "pipeline"]
    subprocess.run(run + ["export", str(source), "--formats", "all", "--to", str(tmp_path / "x")], check=True,
                   capture_output=True)
    out = subprocess.run(run + ["check", str(tmp_path / "x")], capture_output=True, text=True)
    assert out.returncode == 0 and "read back as its model" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize("extra, message", [
    ([{"name": "S", "size": 2}, {"name": "S"}], "declared twice"),
    ([{"name": "s1", "size": 2}], "capital letters"),
    ([{"name": "S", "size": "0x3"}], "'size'"),
    ([{"name": "S", "size": 2, "colour": 1}], "unknown key"),
    ("S", "must be a list"),
])
def test_bad_extra_is_one_line(extra, message):
    with pytest.raises(PuzzleError, match=message) as e:
        parse_puzzle({**DOC, "extra": extra})
    assert "\n" not in str(e.value)


def test_unknown_extra_cell_is_one_line():
    with pytest.raises(PuzzleError, match="'S3' is not a cell") as e:
        parse_puzzle({**DOC, "rules": [{"rule": "cage", "cells": ["r1c1", "S3"], "sum": 5}]})
    assert "\n" not in str(e.value)


def test_parse_extra_sizes():
    groups = parse_extra([{"name": "L", "size": "2x3"}, {"name": "Q"}], "doc")
    assert [(g.count, g.columns) for g in groups] == [(6, 3), (1, 0)]
    assert groups[0].cell_names()[-1] == "L6" and groups[1].cell_names() == ["Q"]


def test_dfsrules_refuses():
    model = build_model(parse_puzzle(DOC))
    assert "extra cells" in SOLVERS["dfsrules"].problem_with(model)


def test_an_anyof_branch_over_extra_cells_counts_as_its_meaning():
    """An Or whose branches name extra cells (ISS Rectangle Sums): their digits are cells, not the
    branch's auxiliary columns (they once collided: a matrix built past its columns)."""
    doc = {"size": 4, "givens": "1234341221434321", "extra": [{"name": "S", "size": 1}],
           "rules": [{"rule": "anyof", "branches": [[{"rule": "cage", "cells": ["r1c1", "S"], "sum": 4}],
                                                    [{"rule": "thermo", "cells": ["r4c4", "S"]}]]}]}
    want = sum((1 + s == 4 and s != 1) or (1 < s) for s in range(1, 5))   # r1c1 = 1, r4c4 = 1
    model = build_model(parse_puzzle(doc))
    for engine in ("sat", "highs", "cpsat"):
        if SOLVERS[engine].available():
            continue
        result = SOLVERS[engine].count(model, 10)
        assert (result.count, result.status) == (want, "complete"), engine


def test_a_unit_of_extra_cells_is_refused_and_iss_alldifferent_with_one_is_a_cage():
    """Units are grid cells (the unit kernels index the grid): an extra region naming an extra cell
    is one line, and ISS's AllDifferent of N cells with a Var cell (Bates Motel) reads as a cage
    without a sum (it once went to the unit check and raised an IndexError)."""
    doc = {"size": 4, "extra": [{"name": "S", "size": 1}],
           "rules": [{"rule": "extraregion", "cells": ["r1c1", "r2c3", "r3c2", "S"]}]}
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(doc)
    assert "\n" not in str(e.value) and "S is an extra cell (use a cage without a sum)" in str(e.value)
    puzzle = parse_puzzle(".Shape~4x4.Var~A~~1.AllDifferent~VA~R1C1~R2C3~R3C2")
    assert [r["rule"] for r in puzzle.to_document()["rules"]] == ["cage"]
    # the three grid cells differ, and A takes the one value left
    want = sum(len({int(g[0, 0]), int(g[1, 2]), int(g[2, 1])}) == 3 for g in GRIDS)
    assert 0 < want < 288 and SOLVERS["sat"].count(build_model(puzzle), 1000).count == want


def test_rule_terms_lay_a_cage_over_grid_and_extra_cells():
    """``rule_terms`` (the rows the lazy and rule-switching engines learn from) keeps the extra
    cells on each rule's board: a cage whose grid cells share a row and that names an extra cell
    raised IndexError there. Its sum row holds every cell, the extra one included."""
    import json
    from pipeline.core.rules.bounds import rule_terms
    p = parse_puzzle(json.dumps({"size": 4, "extra": [{"name": "S", "size": 2}],
                                 "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2", "S2"], "sum": 6}]}))
    terms = rule_terms(p.rules, p.base_board)
    sum_row = int(np.flatnonzero(terms.equal)[0])
    cells = set(terms.term_cell[terms.term_row == sum_row].tolist())
    assert cells == {0, 1, 16 + 1}


@pytest.mark.parametrize("source", [".Var", ".Var.Var", ".Var.~V1~1-9.Sum~V1~R1C1"])
def test_an_iss_var_with_its_arguments_left_out_is_one_line(source):
    # '.Var' alone raised IndexError (a probe)
    with pytest.raises(PuzzleError, match=r"^puzzle: ISS: Var prefix must be 1 to 7 capital letters, found ''$"):
        parse_puzzle(source)
