"""A 9x9 puzzle with every rule of issue 33's second batch (little killer, X and V, strict XV,
Kropki dots with strict Kropki, quadruple, weighted sum, same values, pairwise, indexing), read
off one solution so the puzzle is feasible: written and read back exactly in MPS (free and
fixed), LP and CNF (the rule rows re-encoded and matched clause for clause), and the SAT engine's
answer verifies."""
from __future__ import annotations

import numpy as np
import pytest
from oracles import assert_same_model_data
from rule_models import expected, solution_grid, write_and_read

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import sat

pytest.importorskip("pysat")


def _n(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


def batch2_document(seed: int = 5) -> tuple[dict, np.ndarray]:
    """The document and the solution its rules are read from."""
    g = solution_grid(3, 3, np.random.default_rng(seed))
    pairs = [((r, c), (r, c + 1)) for r in range(9) for c in range(8)] + [((r, c), (r + 1, c)) for r in range(8) for c in range(9)]
    rules: list[dict] = []
    diagonal = [(k, 2 + k) for k in range(7)]
    rules.append({"rule": "littlekiller", "sum": int(sum(g[c] for c in diagonal)), "cells": [_n(*c) for c in diagonal],
                  "clue": "r0c2"})
    for a, b in pairs:
        s = int(g[a] + g[b])
        if s in (5, 10):
            rules.append({"rule": "xv", "letter": "v" if s == 5 else "x", "cells": [_n(*a), _n(*b)]})
        lo, hi = sorted((int(g[a]), int(g[b])))
        if hi - lo == 1 or hi == 2 * lo:
            rules.append({"rule": "kropki", "color": "white" if hi - lo == 1 else "black", "cells": [_n(*a), _n(*b)]})
    rules += [{"rule": "strictxv"}, {"rule": "strictkropki"}]
    rules.append({"rule": "quadruple", "cells": ["r4c4", "r4c5", "r5c4", "r5c5"], "digits": [int(g[3, 3]), int(g[4, 4])]})
    rules.append({"rule": "sum", "sum": int(2 * g[0, 0] - 3 * g[8, 8] + g[4, 0]), "cells": ["r1c1", "r9c9", "r5c1"],
                  "weights": [2, -3, 1]})
    low = [[_n(r, int(c)) for c in np.flatnonzero(g[r] <= 2)] for r in (0, 6)]   # where rows 1 and 7 hold 1 and 2
    rules.append({"rule": "samevalues", "groups": low})
    line = [(8, 0), (8, 1), (8, 2)]
    rules.append({"rule": "pair", "cells": [_n(*c) for c in line],
                  "allowed": [[int(g[a]), int(g[b])] for a, b in zip(line, line[1:])] + [[1, 9]]})
    rules.append({"rule": "indexing", "by": "column", "cells": [_n(r, c) for r in range(9) for c in range(9)
                                                               if g[r, int(g[r, c]) - 1] == c + 1][:6]})
    givens = [f"{_n(r, c)}={g[r, c]}" for r, c in [(0, 4), (2, 7), (5, 1), (7, 6)]]
    return {"size": 9, "box": "3x3", "rules": rules, "givens": givens}, g


@pytest.fixture(scope="module")
def model():
    doc, g = batch2_document()
    puzzle = parse_puzzle(doc)
    assert verify_grid(g, puzzle).ok                      # the grid the rules were read from
    assert {r.kind for r in puzzle.rules} >= {"littlekiller", "xv", "strictxv", "strictkropki", "quadruple", "sum",
                                             "samevalues", "pair", "indexing"}
    return build_model(puzzle)


@pytest.mark.parametrize("fmt", ["mps_free", "mps_fixed", "lp", "cnf"])
def test_round_trip_is_exact(tmp_path, model, fmt):
    got = write_and_read(model, fmt, tmp_path)
    assert_same_model_data(got, expected(model, fmt))


def test_the_sat_engine_solves_it_and_the_answer_verifies(model):
    solved = sat.solve(model)
    assert solved.status == "optimal"
    assert verify_grid(solved.grid, model.puzzle).ok
    families = model.rule_family_counts()
    assert {"littlekiller", "xv", "strictxv", "strictkropki", "quadruple", "sum", "samevalues", "pair",
            "indexing"} <= set(families)


def test_each_rule_draws_its_glyphs(model):
    """Little killer: its sum outside, one diagonal step before its first cell; X/V and quadruple:
    labelled dots; weighted sum and same values: cages; pairwise: a line; indexing: shades. The
    strict rules draw nothing (the picture's title names them)."""
    from pipeline.core.glyphs import rule_glyphs

    puzzle = model.puzzle
    glyphs = rule_glyphs(puzzle.rules, puzzle.board)
    kinds = {(g.name, g.kind) for g in glyphs}
    assert {("littlekiller", "outside"), ("xv", "dot"), ("quadruple", "dot"), ("sum", "cage"), ("samevalues", "cage"),
            ("pair", "line"), ("indexing", "shade")} <= kinds
    assert not any(g.name in ("strictxv", "strictkropki") for g in glyphs)
    killer = next(g for g in glyphs if g.name == "littlekiller")
    assert killer.cells == (2,) and killer.step == (1, 1)          # r1c3, from the clue r0c2
    letters = {g.label for g in glyphs if g.name == "xv"}
    assert letters <= {"X", "V"} and letters
    svg = puzzle._repr_svg_()
    assert "strict XV" in svg and "littlekiller" in svg
