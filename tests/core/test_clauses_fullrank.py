"""The full-rank clues' comparisons as clauses for the SAT engine (pipeline/core/clauses_fullrank.py):
the same solutions as the rows' pseudo-Boolean encoding, grid for grid, on random 4x4 and 6x6
puzzles, in a fraction of the clauses, and a CNF written without the switch reads as before."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.core import clauses_fullrank, clauses_rules
from pipeline.core.build import build_model
from pipeline.core.clauses_fullrank import full_rank_clauses
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import sat
from sat_equivalence import iss_entry

pytest.importorskip("pysat.solvers")





def _solution(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random ``n x n`` sudoku (boxes ``h x n/h``, ``h`` 2), its digits permuted."""
    w = n // 2
    base = np.array([[(w * (r % 2) + r // 2 + c) % n for c in range(n)] for r in range(n)])
    return rng.permutation(n)[base] + 1


def _rank(grid: np.ndarray, clue: str) -> int:
    """The rank of the line read from ``clue``: 1 + the other lines that read strictly lower."""
    n = grid.shape[0]
    r, c = (int(v) for v in clue[1:].split("c"))
    lines = [tuple(row) for g in (grid, grid.T) for row in g] + [tuple(row[::-1]) for g in (grid, grid.T) for row in g]
    line = (grid[r - 1] if c == 0 else grid[r - 1, ::-1] if c == n + 1 else
            grid[:, c - 1] if r == 0 else grid[::-1, c - 1])
    return 1 + int(sum(other < tuple(line) for other in lines))


def _puzzle(n: int, seed: int) -> dict:
    """A random full-rank puzzle: 1-3 clues, ranks read off a random grid (or, one in three,
    random), a random tie mode, a few of the grid's givens."""
    rng = np.random.default_rng(seed)
    grid = _solution(n, rng)
    clues = set()
    for _ in range(int(rng.integers(1, 4))):
        i, side = int(rng.integers(1, n + 1)), int(rng.integers(4))
        clues.add([f"r{i}c0", f"r{i}c{n + 1}", f"r0c{i}", f"r{n + 1}c{i}"][side])
    rules = [{"rule": "fullrank", "clue": c, "rank": int(rng.integers(1, 4 * n + 1)) if rng.random() < 0.3
              else int(_rank(grid, c))} for c in sorted(clues)]
    rules.append({"rule": "fullrankties", "ties": str(rng.choice(["unclued", "any", "none"]))})
    shown = rng.random(n * n) < ((0.0 if seed % 2 == 0 else 0.15) if n == 4 else 0.4)
    givens = "".join(str(v) if s else "." for v, s in zip(grid.ravel(), shown))
    return {"size": n, "givens": givens, "rules": rules, **({"box": "2x3"} if n == 6 else {})}


def _grids(doc: dict, clues: str, on: bool, monkeypatch) -> tuple[int, set]:
    monkeypatch.setattr(clauses_fullrank, "FULL_RANK", on)
    model = build_model(parse_puzzle(json.dumps(doc)), clues=clues)
    engine = sat.SatEngine(model, fix_clues=True)
    try:
        got = engine.count(model, 300, time_limit=120)
    finally:
        engine.close()
    assert got.status != "time_limit"
    return got.count, {np.asarray(g).tobytes() for g in got.grids}


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", range(10))
def test_random_4x4_count_as_the_rows_grid_for_grid(seed, clues, monkeypatch):
    doc = _puzzle(4, seed)
    assert _grids(doc, clues, True, monkeypatch) == _grids(doc, clues, False, monkeypatch)


@pytest.mark.parametrize("seed", range(4))
def test_random_6x6_count_as_the_rows_grid_for_grid(seed, monkeypatch):
    doc = _puzzle(6, 100 + seed)
    assert _grids(doc, "reduce" if seed % 2 else "rows", True, monkeypatch) == \
        _grids(doc, "reduce" if seed % 2 else "rows", False, monkeypatch)


def test_the_comparison_rows_are_replaced_and_no_others():
    model = build_model(parse_puzzle(".Shape~4x4.FullRank~C2~5~.Cage~5~R1C1~R1C2"))
    made = full_rank_clauses(model, view=True)
    labels = np.array(["fullrank_1", "fullrankchain_1_1_1", "fullranksame_1_2_3_1", "fullrankfirst_1_4_1_2",
                       "fullranktie_1_3", "cagesum_1"])
    assert made.clauses
    assert made.keep_rows(labels).tolist() == [True, True, False, False, True, True]
    assert full_rank_clauses(build_model(parse_puzzle(".Cage~5~R1C1~R1C2")), view=True).clauses == []


def test_iss_6x6_full_rank_takes_a_twentieth_of_the_clauses(monkeypatch):
    # ISS "6x6: Full rank": 258,400 rule clauses with the rows' PB encodings, 10,804 with these
    model = build_model(parse_puzzle(iss_entry("6x6: Full rank")))
    on = clauses_rules.rule_clauses(model, model.convention.n_vars, "pairwise", view=True)
    assert on.encodings["full_rank"] and on.n_clauses < 20_000


def test_a_cnf_without_the_key_reads_as_the_rows(monkeypatch):
    model = build_model(parse_puzzle(".Shape~4x4.FullRank~C2~5~"))
    off = clauses_rules.rule_clauses(model, 64, "pairwise", view=True, encodings={})
    monkeypatch.setattr(clauses_fullrank, "FULL_RANK", False)
    assert clauses_rules.current_encodings()["full_rank"] is False
    rows = clauses_rules.rule_clauses(model, 64, "pairwise", view=True)
    assert off.tokens.tolist() == rows.tokens.tolist()
