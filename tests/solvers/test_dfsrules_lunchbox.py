"""The ``dfsrules`` kernel's lunchbox handler (pipeline/solvers/dfsrules_lunchbox.py): the
lunchbox's rows over auxiliary columns are left out of the engine's tables, so the handler (with
the line's distinct digits as pair relations) alone must hold the rule. Its counts to 2, and its
grids, equal the SAT engine's (which reads the rule's rows) on generated lunchbox puzzles of 4x4,
6x6 and 9x9: as generated (one solution), with clues removed (several) and with a total changed
(often none); its whole count equals the SAT engine's on a 4x4 with lunchboxes and no givens; and
ISS's published lunchbox puzzles that it takes solve to their published grid. A lunchbox on
other values than 1..N is still refused (the SAT engine takes it)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from oracles import ISS_COLLECTION

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import residual
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.dfsrules import model_problem, rule_tables
from pipeline.tools.generate.puzzles import generate
from dfsrules_agree import agree_with_sat as _agree

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)



def _rows_hold(model, x) -> None:
    """The solution vector (the auxiliary columns: where each lunchbox's ends are) keeps every
    rule row of the model, the lunchbox's own included."""
    full = np.zeros(model.n_positions)
    full[model.columns] = x
    R = model.R
    activity = R.csr.matvec(full)
    assert np.all(np.where(R.equal, np.abs(activity - R.rhs) < 0.5, activity <= R.rhs + 0.5))


def _variants(generated, rng) -> list[dict]:
    """The generated puzzle, the same with half its givens gone, and with one total changed."""
    doc = generated.puzzle.to_document()
    grid = np.asarray(generated.puzzle.grid).reshape(-1)
    n = generated.puzzle.n
    fewer = json.loads(json.dumps(doc))
    shown = np.flatnonzero(grid)
    gone = rng.choice(shown, size=shown.size // 2, replace=False) if shown.size else shown
    kept = grid.copy()
    kept[gone] = 0
    fewer["givens"] = "".join(str(v) if v else "." for v in kept) if n <= 9 else fewer.get("givens")
    changed = json.loads(json.dumps(doc))
    lunch = [r for r in changed["rules"] if r["rule"] == "lunchbox"]
    rule = lunch[int(rng.integers(len(lunch)))]
    high = sum(range(n - len(rule["cells"]) + 2, n)) if len(rule["cells"]) > 2 else 0
    rule["sum"] = int((rule["sum"] + 1 + rng.integers(max(high, 1))) % (high + 1))
    return [doc, fewer, changed]


@pytest.mark.parametrize("size,count", [(4, 6), (6, 5), (9, 4)])
def test_generated_lunchbox_puzzles_count_as_the_sat_engine(size, count):
    rng = np.random.default_rng(size)
    counts = []
    for generated in generate(size=size, count=count, seed=size, rules=[{"rule": "lunchbox"}]):
        doc, fewer, changed = _variants(generated, rng)
        puzzle = parse_puzzle(doc)
        assert any(rule.kind == "lunchbox" for rule in puzzle.rules)
        assert _agree(puzzle) == 1
        model = build_model(puzzle)
        result = get_solver("dfsrules").solve(model)
        assert np.array_equal(np.asarray(result.grid).reshape(-1), np.asarray(generated.solution).reshape(-1))
        _rows_hold(model, result.x)
        counts += [_agree(parse_puzzle(fewer)), _agree(parse_puzzle(changed))]
    assert 2 in counts   # removing givens reached puzzles of several solutions


def test_every_grid_of_a_4x4_with_lunchboxes_is_counted():
    """No givens: the whole count (every grid of a 4x4 that the lunchboxes leave) equals the SAT
    engine's, lines along a row (one unit) and across boxes (distinct digits by the rule alone)."""
    for rules, seen in (([{"rule": "lunchbox", "cells": ["r1c1", "r2c2", "r3c3", "r4c4"], "sum": 5}], 0),
                        ([{"rule": "lunchbox", "cells": ["r1c1", "r1c2", "r1c3", "r1c4"], "sum": 0},
                          {"rule": "lunchbox", "cells": ["r2c1", "r3c2", "r4c1"], "sum": 2}], 0)):
        puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": rules})
        assert _agree(puzzle, cap=300) > seen


def test_the_handler_takes_the_rows_place_and_a_value_set_is_refused():
    """A lunchbox's lines are in the kernel's tables and its distinct digits are pair relations
    (no linear row); on values 0..3 it is refused as before, and auto sends it to the SAT engine."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "lunchbox", "cells": ["r1c1", "r2c2", "r3c1"], "sum": 2}]}
    tables = rule_tables(parse_puzzle(doc))
    rint = tables.rint
    assert tables.n_lin == 0 and rint[46] == 1
    assert rint[rint[44]:rint[44] + 3].tolist() == [0, 5, 8] and rint[rint[45]] == 2
    assert tables.n_pairs > 0   # r2c2 and r3c1 share no unit: the line's distinct digits relate them
    in_a_row = {**doc, "rules": [{"rule": "lunchbox", "cells": ["r1c1", "r1c2", "r1c3"], "sum": 2}]}
    assert rule_tables(parse_puzzle(in_a_row)).n_pairs == 0   # the row holds them distinct
    odd = build_model(parse_puzzle({**doc, "values": [0, 1, 2, 3]}))
    reason = model_problem(odd)
    assert reason is not None and "lunchbox" in reason
    assert pick_solver("unique", odd).name == "sat"


def _iss_lunchboxes() -> list[dict]:
    if not ISS_COLLECTION.is_file():
        pytest.skip(f"{ISS_COLLECTION} is absent (../shared is not beside the project)")
    return [json.loads(line) for line in ISS_COLLECTION.read_text().splitlines() if "Lunchbox~" in line]


def test_iss_lunchbox_puzzles_it_takes_solve_to_the_published_grid():
    taken = 0
    for entry in _iss_lunchboxes():
        puzzle = parse_puzzle(entry["input"])
        model = build_model(puzzle)
        if model_problem(model) is not None:
            continue
        taken += 1
        result = get_solver("dfsrules").solve(model, check_unique=True, time_limit=60)
        want = get_solver("sat").count(model, 2)
        assert (1 if result.unique else 2 if result.grid is not None else 0) == want.count, entry["name"]
        if entry.get("solution"):
            assert "".join(str(int(v)) for v in np.asarray(result.grid).reshape(-1)) == entry["solution"], entry["name"]
    assert taken >= 4


def test_a_puzzle_with_skyscrapers_and_lunchboxes_gets_each_kinds_columns_from_its_grid():
    # both kinds' rows are replaced by handlers, and the answer's vector fills each kind's own
    # auxiliary columns by name: every row of the model holds, and the grid is the SAT engine's
    for made in generate(size=6, count=3, seed=3, rules=[{"rule": "skyscraper"}, {"rule": "lunchbox"}]):
        model = build_model(made.puzzle)
        kinds = {rule.kind for rule in made.puzzle.rules}
        assert kinds == {"skyscraper", "lunchbox"} and get_solver("dfsrules").problem_with(model) is None
        got, want = get_solver("dfsrules").solve(model, check_unique=True), get_solver("sat").solve(model, check_unique=True)
        assert got.unique == want.unique and np.array_equal(got.grid, want.grid)
        assert residual(model, got.x) <= 1e-9
