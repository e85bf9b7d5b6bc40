"""The ``dfsrules`` kernel's sum line handler (pipeline/solvers/dfsrules_sumline.py): the rule's
rows over its automaton columns are left out of the engine's tables, so the handler alone must
hold it. Its counts to 2, and its grids, equal the SAT engine's (which reads the rule's rows) on
generated sum line puzzles of 4x4, 6x6 and 9x9: as generated (one solution), with givens removed
(several) and with a total changed (often none); its whole count equals the SAT engine's on 4x4s
with hand-made lines and loops and no givens; the answer's vector fills the automaton columns so
that every row of the model holds; and ISS's published sum line puzzles that it takes solve to
their published grid. A sum line on other values than 1..N is still refused (the SAT engine takes it)."""
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
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules import model_problem, rule_tables
from pipeline.solvers.dfsrules_sumline_rows import SUM_AT, sumline_problem
from pipeline.tools.generate.puzzles import generate
from dfsrules_agree import agree_with_sat as _agree

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)



def _variants(generated, rng) -> list[dict]:
    """The generated puzzle, the same with half its givens gone, and with one total changed."""
    doc = generated.puzzle.to_document()
    grid = np.asarray(generated.puzzle.grid).reshape(-1)
    fewer = json.loads(json.dumps(doc))
    shown = np.flatnonzero(grid)
    gone = rng.choice(shown, size=shown.size // 2, replace=False) if shown.size else shown
    kept = grid.copy()
    kept[gone] = 0
    fewer["givens"] = "".join(str(v) if v else "." for v in kept)
    changed = json.loads(json.dumps(doc))
    lines = [r for r in changed["rules"] if r["rule"] == "sumline"]
    rule = lines[int(rng.integers(len(lines)))]
    rule["sum"] = int(rule["sum"]) % 30 + 1
    return [doc, fewer, changed]


@pytest.mark.parametrize("size,count", [(4, 6), (6, 5), (9, 4)])
def test_generated_sumline_puzzles_count_as_the_sat_engine(size, count):
    rng = np.random.default_rng(size)
    counts = []
    for generated in generate(size=size, count=count, seed=size, rules=[{"rule": "sumline"}]):
        doc, fewer, changed = _variants(generated, rng)
        puzzle = parse_puzzle(doc)
        assert any(rule.kind == "sumline" for rule in puzzle.rules)
        assert _agree(puzzle) == 1
        model = build_model(puzzle)
        result = get_solver("dfsrules").solve(model)
        assert np.array_equal(np.asarray(result.grid).reshape(-1), np.asarray(generated.solution).reshape(-1))
        assert residual(model, result.x) <= 1e-9
        counts += [_agree(parse_puzzle(fewer)), _agree(parse_puzzle(changed))]
    assert 2 in counts and 0 in counts   # several solutions, and contradictions, were reached


#: Hand-made 4x4 lines and loops (no givens): a loop across the boxes, one along the grid's rim
#: (every start), a short loop whose total is the sum itself, a line that passes the sum twice.
_HAND_MADE = [
    [{"rule": "sumline", "cells": ["r1c1", "r1c2", "r2c2", "r2c1"], "sum": 5, "loop": True}],
    [{"rule": "sumline", "cells": ["r1c1", "r1c2", "r1c3", "r1c4", "r2c4", "r3c4", "r4c4", "r4c3", "r4c2", "r4c1",
                                   "r3c1", "r2c1"], "sum": 5, "loop": True}],
    [{"rule": "sumline", "cells": ["r2c2", "r2c3", "r3c3"], "sum": 7, "loop": True},
     {"rule": "sumline", "cells": ["r1c1", "r2c1", "r3c2", "r4c3", "r4c4"], "sum": 4}],
    [{"rule": "sumline", "cells": ["r1c4", "r2c3", "r3c2", "r4c1"], "sum": 3},
     {"rule": "sumline", "cells": ["r3c3", "r3c4", "r4c4", "r4c3"], "sum": 5, "loop": True}],
]


@pytest.mark.parametrize("rules", _HAND_MADE)
def test_every_grid_of_a_4x4_with_hand_made_lines_and_loops_is_counted(rules):
    """No givens: the whole count equals the SAT engine's (cap above every count here), and each
    grid's vector keeps every row of the model (the automaton columns from the grid)."""
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": rules})
    assert 0 < _agree(puzzle, cap=300) < 300
    model = build_model(puzzle)
    result = get_solver("dfsrules").solve(model)
    assert residual(model, result.x) <= 1e-9


def test_a_loop_that_cannot_close_has_no_grid():
    # 4x4 values add to 10 per row: a loop over one row with sum 3 would need 10 = 3k
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "sumline", "cells": ["r1c1", "r1c2", "r1c3", "r1c4"], "sum": 3, "loop": True}]})
    assert _agree(puzzle) == 0


def test_the_handler_takes_the_rows_place_and_a_value_set_is_refused():
    """A sum line is in the kernel's tables (no linear row); on values 0..3 it is refused as
    before, and auto sends it to the SAT engine; so is a sum above 63 (one bit a running sum)."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "sumline", "cells": ["r1c1", "r2c2", "r3c1"], "sum": 4,
                                               "loop": True}]}
    tables = rule_tables(parse_puzzle(doc))
    rint = tables.rint
    assert tables.n_lin == 0 and rint[SUM_AT] == 1
    assert rint[rint[SUM_AT + 2]:rint[SUM_AT + 2] + 3].tolist() == [0, 5, 8]
    assert rint[rint[SUM_AT + 3]] == 4 and rint[rint[SUM_AT + 4]] == 1
    odd = build_model(parse_puzzle({**doc, "values": [0, 1, 2, 3]}))
    reason = model_problem(odd)
    assert reason is not None and "sum lines over the values 1..N only" in reason
    assert pick_solver("unique", odd).name == "sat"
    wide = type("P", (), {"n": 9, "board": parse_puzzle({"size": 9}).board,
                          "rules": (type("R", (), {"kind": "sumline", "cell_list": (0, 1), "total": 64, "loop": False})(),)})()
    assert sumline_problem(wide) == ("dfsrules propagates sum lines up to a sum of 63 (one running sum a bit), found 64, "
                                     "and sumline adds auxiliary columns")


def _iss_sumlines() -> list[dict]:
    if not ISS_COLLECTION.is_file():
        pytest.skip(f"{ISS_COLLECTION} is absent (../shared is not beside the project)")
    return [json.loads(line) for line in ISS_COLLECTION.read_text().splitlines() if ".SumLine~" in line]


def test_iss_sumline_puzzles_it_takes_solve_to_the_published_grid():
    taken = 0
    for entry in _iss_sumlines():
        puzzle = parse_puzzle(entry["input"])
        model = build_model(puzzle)
        if model_problem(model) is not None:
            continue
        taken += 1
        result = get_solver("dfsrules").solve(model, check_unique=True, time_limit=60)
        assert result.unique, entry["name"]
        assert residual(model, result.x) <= 1e-9, entry["name"]
        if entry.get("solution"):
            assert "".join(str(int(v)) for v in np.asarray(result.grid).reshape(-1)) == entry["solution"], entry["name"]
    assert taken >= 5


#: The bench's slowest sum-line puzzle (bench/dfsrules_set.jsonl, line 439 from 0): 44,309 nodes
#: when its conflict scores started at zero, 13,897 from its lines' lengths.
_SLOWEST = {"size": 9, "box": "3x3",
            "givens": ".1.....8...47...................2..4......5.....1..................4..3....5..4..",
            "rules": [{"rule": "sumline", "cells": ["r5c3", "r6c3", "r7c2", "r7c1", "r8c1"], "sum": 11},
                      {"rule": "sumline", "cells": ["r8c2", "r9c1", "r9c2", "r8c3", "r7c4", "r8c5"], "sum": 17},
                      {"rule": "sumline", "cells": ["r3c2", "r2c2", "r1c1", "r1c2"], "sum": 9},
                      {"rule": "sumline", "cells": ["r4c8", "r3c7", "r2c7", "r3c8", "r2c8", "r1c7"], "sum": 12},
                      {"rule": "sumline", "cells": ["r9c7", "r8c6", "r7c6", "r6c5"], "sum": 8},
                      {"rule": "sumline", "cells": ["r9c5", "r9c4", "r9c3", "r8c4", "r7c5"], "sum": 16}]}


def test_a_search_with_sum_lines_starts_its_conflict_scores_at_the_lines_lengths():
    """Each cell's sum lines' lengths are its first conflict score (ISS starts its scores at its
    handlers' sizes): the slowest sum-line puzzle of the bench is proved unique in under half its
    former nodes, to the SAT engine's grid; a puzzle without sum lines starts at zero."""
    puzzle = parse_puzzle(_SLOWEST)
    scores = rule_tables(puzzle).scratch(shape_tables(puzzle))[-82:-1].reshape(9, 9)
    assert scores[4, 2] == 5 and scores[7, 1] == 6 and scores[0, 0] == 4 and scores[4, 4] == 0
    result = get_solver("dfsrules").solve(build_model(puzzle), check_unique=True)
    assert result.unique and result.nodes < 22_000
    assert "".join(str(int(v)) for v in np.asarray(result.grid).reshape(-1)) == _sat_grid(puzzle)
    plain = parse_puzzle({"size": 9, "box": "3x3", "rules": [{"rule": "antiknight"}]})
    assert not rule_tables(plain).scratch(shape_tables(plain))[-82:-1].any()


def _sat_grid(puzzle) -> str:
    result = get_solver("sat").solve(build_model(puzzle), check_unique=True)
    assert result.unique
    return "".join(str(int(v)) for v in np.asarray(result.grid).reshape(-1))
