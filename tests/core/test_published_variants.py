"""Published variant puzzles (tests/data/published/variants.jsonl, from sigh/Interactive-Sudoku-
Solver's collections; see tests/data/README.md): each is read through the f-puzzles reader (its
payload decompressed for the oracle by the independent ``lzstring`` package), counted by HiGHS up
to 2 and by the oracle, both equal to the count recorded with the file; a unique solution is the
one the collection lists and verifies; the puzzle-document form of the same puzzle accepts it too.

Puzzles marked ``slow`` run through HiGHS and the oracle only with ``SUDOKU_TEST_SLOW=1``: HiGHS
needs more than about 1.5 s to count them up to 2 (10 to over 100 seconds for the hard killers of
the forum lists, the thermometer puzzles, Sudoku-X: proving there is no second solution is the
slow part). The SAT engine counts every puzzle, slow ones included, by default (0.05-3 s each):
its counts are held to the ones recorded with the file (the oracle's, checked by the first test
for the fast ones and with ``SUDOKU_TEST_SLOW=1`` for all).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import rule_oracle as oracle
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import cpsat, sat
from pipeline.solvers.highs import count_solutions

lzstring = pytest.importorskip("lzstring")

DATA = Path(__file__).resolve().parents[1] / "data" / "published" / "variants.jsonl"
ENTRIES = [json.loads(line) for line in DATA.read_text().splitlines()]
RUN_SLOW = bool(os.environ.get("SUDOKU_TEST_SLOW"))


def _id(entry: dict) -> str:
    return f"{entry['collection']}:{entry['name'][:40]}"


def test_the_set_is_the_size_the_readme_says():
    assert 30 <= len(ENTRIES) <= 60
    assert all(e["fpuzzles"] is not None for e in ENTRIES)
    kinds = {kind for e in ENTRIES for kind in e["rules"]}
    assert {"cage", "thermo", "kropki", "antiknight", "antiking", "nonconsecutive", "diagonal", "windoku",
            "even", "odd"} <= kinds
    assert sum(not e["slow"] for e in ENTRIES) >= 10


@pytest.mark.parametrize("entry", ENTRIES, ids=[_id(e) for e in ENTRIES])
def test_a_published_puzzle_counts_as_the_oracle(entry):
    if entry.get("slow") and not RUN_SLOW:
        pytest.skip("slow (SUDOKU_TEST_SLOW=1 runs it)")
    if entry["fpuzzles"] is not None:
        puzzle = parse_puzzle("https://www.f-puzzles.com/?load=" + entry["fpuzzles"])
        data = json.loads(lzstring.LZString().decompressFromBase64(entry["fpuzzles"]))
        spec = oracle.spec_from_fpuzzles(data)
    else:
        puzzle = parse_puzzle(entry["document"])
        spec = oracle.spec_from_document(entry["document"])
    want, oracle_grids = oracle.count(spec, 2)
    assert want == entry["solutions"]
    got = count_solutions(build_model(puzzle), limit=2)
    assert got.count == want and got.status == ("limit" if want == 2 else "complete")
    as_document = parse_puzzle(entry["document"])
    ok = oracle.checker(spec)
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok and verify_grid(grid, as_document).ok and ok(grid)
    if want == 1:
        assert np.array_equal(got.grids[0], oracle_grids[0])
        if entry["solution"]:
            assert "".join(map(str, got.grids[0].ravel())) == entry["solution"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[_id(e) for e in ENTRIES])
def test_a_published_puzzle_counts_with_the_sat_engine(entry):
    """Every published puzzle (slow ones too): the SAT engine's count up to 2 is the recorded one
    and a unique solution is the listed one; on the fast ones the solve proves the same
    uniqueness on its own solver and CP-SAT counts the same."""
    puzzle = parse_puzzle("https://www.f-puzzles.com/?load=" + entry["fpuzzles"])
    model = build_model(puzzle)
    got = sat.count(model, 2)
    want = entry["solutions"]
    assert got.count == want and got.status == ("limit" if want == 2 else "complete")
    assert len({g.tobytes() for g in got.grids}) == got.count
    as_document = parse_puzzle(entry["document"])
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok and verify_grid(grid, as_document).ok
    if not entry["slow"]:   # the slow ones' proofs take seconds each: the count above is that proof
        solved = sat.solve(model, check_unique=True)
        assert solved.status == "optimal" and solved.unique is (want == 1)
        assert verify_grid(solved.grid, puzzle).ok
        by_cpsat = cpsat.count(model, 2)   # CP-SAT with the rule rows as linear constraints
        assert (by_cpsat.count, by_cpsat.status) == (got.count, got.status)
        assert all(np.array_equal(a, b) for a, b in zip(by_cpsat.grids, got.grids)) or want == 2
    if want == 1 and entry["solution"]:
        assert "".join(map(str, got.grids[0].ravel())) == entry["solution"]
