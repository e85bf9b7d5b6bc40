"""The pencil-marks rule (cells limited to a set of digits): its rows, the document form, verify,
and counts against the independent oracle (CP-SAT) and brute force on 4x4, solved by HiGHS, the
SAT engine and CP-SAT."""
from __future__ import annotations

import numpy as np
import pytest

import rule_oracle as oracle
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations, verify_grid
from pipeline.solvers import highs

N4 = {"size": 4, "box": "2x2"}


def _doc(rules, givens=None):
    return dict(N4, givens=givens or [], rules=rules)


def _family(model, name):
    mask = np.array([label.split("_")[0] == name for label in model.R.labels], dtype=bool)
    return model.R.labels[mask].tolist(), model.R.sense[mask].tolist(), model.R.rhs[mask].tolist()


def test_one_row_per_cell_over_the_digits_not_listed():
    model = build_model(parse_puzzle(_doc([{"rule": "pencilmarks", "cells": ["r1c2", "r3c4"], "digits": [2, 3]},
                                           {"rule": "pencilmarks", "cells": ["r1c2"], "digits": [3, 4]}])))
    labels, senses, rhs = _family(model, "pencilmarks")
    assert labels == ["pencilmarks_1_1_2", "pencilmarks_1_3_4", "pencilmarks_2_1_2"]
    assert set(senses) == {"L"} and set(rhs) == {0.0}
    R = model.R
    row = R.matrix.getrow(int(np.flatnonzero(R.labels == "pencilmarks_1_3_4")[0]))
    r, c, d = model.convention.cell_digit(row.indices)
    assert sorted(zip((r + 1).tolist(), (c + 1).tolist(), (d + 1).tolist())) == [(3, 4, 1), (3, 4, 4)]
    assert set(row.data.tolist()) == {1.0}


def test_every_digit_listed_adds_no_row():
    model = build_model(parse_puzzle(_doc([{"rule": "pencilmarks", "cells": ["r1c1"], "digits": [4, 3, 2, 1]}])))
    assert _family(model, "pencilmarks")[0] == []


def test_the_document_form_reads_back():
    doc = _doc([{"rule": "pencilmarks", "cells": ["r4c3", "r1c1"], "digits": [4, 2]}])
    written = parse_puzzle(doc).to_document()
    assert written["rules"] == [{"rule": "pencilmarks", "cells": ["r4c3", "r1c1"], "digits": [2, 4]}]
    assert parse_puzzle(written).to_document()["rules"] == written["rules"]


@pytest.mark.parametrize("entry, message", [
    ({"cells": ["r1c1"]}, "'digits' must be a non-empty list of digits from 1 to 4, found 'None'"),
    ({"cells": ["r1c1"], "digits": []}, "'digits' must be a non-empty list of digits from 1 to 4, found '[]'"),
    ({"cells": ["r1c1"], "digits": [2, 5]}, "'digits' holds '5', not a digit from 1 to 4"),
    ({"cells": ["r1c1"], "digits": ["2"]}, "'digits' holds '2', not a digit from 1 to 4"),
    ({"cells": ["r1c1"], "digits": [True]}, "'digits' holds 'True', not a digit from 1 to 4"),
    ({"cells": ["r1c1"], "digits": [2, 2]}, "digit 2 is listed twice in 'digits'"),
    ({"cell": "r1c1", "digits": [2]}, "unknown key 'cell' (expected cells, digits)"),
    ({"cells": ["r5c1"], "digits": [2]}, "cell r5c1 is outside the 4x4 grid"),
])
def test_a_bad_entry_is_refused_in_one_line(entry, message):
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(_doc([dict(entry, rule="pencilmarks")]))
    assert str(e.value) == f"puzzle: rules[0] (pencilmarks): {message}"


def test_verify_names_each_broken_cell():
    puzzle = parse_puzzle(_doc([{"rule": "pencilmarks", "cells": ["r1c1", "r1c3", "r2c1"], "digits": [2, 3]}]))
    grid = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
    assert [v["message"] for v in grid_violations(grid, puzzle)] == [
        "r1c1 holds 1, not one of its pencil marks 2, 3"]
    assert verify_grid(grid, puzzle).message == "r1c1 holds 1, not one of its pencil marks 2, 3"
    ok = np.array([[2, 1, 3, 4], [3, 4, 2, 1], [1, 2, 4, 3], [4, 3, 1, 2]])
    assert verify_grid(ok, puzzle).ok and grid_violations(ok, puzzle) == []


def test_a_given_outside_the_marks_is_a_clue_clash():
    with pytest.raises(PuzzleError, match="r1c1 holds 1, not one of its pencil marks 2, 3"):
        parse_puzzle(_doc([{"rule": "pencilmarks", "cells": ["r1c1"], "digits": [2, 3]}], ["r1c1=1"]))


CASES = [
    [{"rule": "pencilmarks", "cells": ["r1c1"], "digits": [2, 3]}],
    [{"rule": "pencilmarks", "cells": ["r1c1", "r2c2", "r3c3"], "digits": [1, 4]}],
    [{"rule": "pencilmarks", "cells": ["r1c1", "r1c2"], "digits": [1, 2]},
     {"rule": "pencilmarks", "cells": ["r2c1", "r3c4"], "digits": [3]}],
    [{"rule": "pencilmarks", "cells": ["r1c1", "r1c2", "r2c1"], "digits": [1, 2]}],   # no solution
]


@pytest.mark.parametrize("rules", CASES, ids=range(len(CASES)))
def test_counts_agree_with_brute_force_and_cp_sat(rules):
    doc = _doc(rules)
    spec = oracle.spec_from_document(doc)
    want = oracle.brute_count(spec)
    assert oracle.count(spec, 300)[0] == want
    model = build_model(parse_puzzle(doc))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(highs, "SPLIT_AT", 4)
        got = highs.count_solutions(model, limit=300)
    assert got.count == want
    ok = oracle.checker(spec)
    for grid in got.grids[:20]:
        assert ok(grid) and verify_grid(grid, parse_puzzle(doc)).ok


@pytest.mark.parametrize("engine", ["highs", "sat", "cpsat"])
def test_each_engine_solves_or_refuses(engine):
    pytest.importorskip("pysat")
    from pipeline.solvers import cpsat, sat
    solve = {"highs": lambda m: highs.solve(m), "sat": lambda m: sat.solve(m), "cpsat": lambda m: cpsat.solve(m)}
    doc = _doc([{"rule": "pencilmarks", "cells": ["r1c1"], "digits": [2, 3]}], ["r1c2=3"])
    puzzle = parse_puzzle(doc)
    solved = solve[engine](build_model(puzzle))
    assert solved.status == "optimal" and verify_grid(solved.grid, puzzle).ok and solved.grid[0, 0] == 2
    none = _doc([{"rule": "pencilmarks", "cells": ["r1c1"], "digits": [2, 3]}], ["r1c2=3", "r2c1=2"])
    assert solve[engine](build_model(parse_puzzle(none))).status == "infeasible"


def test_draw_keeps_only_the_marked_digits_as_candidates():
    pytest.importorskip("matplotlib")
    from pipeline.tools.draw import candidates
    puzzle = parse_puzzle(_doc([{"rule": "pencilmarks", "cells": ["r1c1", "r4c4"], "digits": [2, 3]}], ["r1c2=3"]))
    possible = candidates(puzzle)
    assert np.flatnonzero(possible[0, 0]).tolist() == [1]          # 2 only: 3 is in its row
    assert np.flatnonzero(possible[3, 3]).tolist() == [1, 2]       # 2 or 3
    assert np.flatnonzero(possible[3, 2]).tolist() == [0, 1, 2, 3]
