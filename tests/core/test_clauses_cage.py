"""Killer cages' digit-combination clauses (pipeline.core.clauses_cage) in the SAT engine (issues 33/34).

The clauses replace a cage's PB sum row: they must keep every grid and add none. Random killers
(random cage partitions of a random 4x4/6x6 grid, sums from the grid or now and then off by one,
a few givens, value sets 1..N and 0..N-1) are counted with the combinations and with the rows'
own encoding (as before), to a cap, through the one-puzzle engine (with and without presolve:
a presolved model fixes some of a cage's cells) and the shared engine of batch.
"""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from oracles import ISS_COLLECTION
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.core.build import build_model
from pipeline.core.clauses_cage import MAX_COMBINATIONS, cage_combination_clauses, combinations
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

pytest.importorskip("pysat")
import pipeline  # noqa: E402
from pipeline.core import clauses_rules  # noqa: E402
from pipeline.solvers import get_solver, sat  # noqa: E402

CAP = 12
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("values", [np.arange(1, 10), np.arange(0, 9), np.array([3, 1, 4, 15, 9, 2, 6])])
def test_combinations_are_every_set_of_distinct_digits_with_the_sum(values):
    for k in range(0, values.size + 2):
        for total in range(-1, int(values.sum()) + 2):
            want = sorted(c for c in itertools.combinations(range(values.size), k) if values[list(c)].sum() == total)
            got = combinations(values, k, total, most=10 ** 6)
            assert got == want, (k, total)


def test_combinations_give_up_past_the_limit():
    values = np.arange(1, 26)
    many = sum(1 for c in itertools.combinations(range(1, 26), 6) if sum(c) == 78)
    assert many > MAX_COMBINATIONS
    assert combinations(values, 6, 78) is None
    assert len(combinations(values, 6, 78, most=many)) == many


def _grid(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    n = h * w
    r, c = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    base = (w * (r % h) + r // h + c) % n
    rows = np.concatenate([b * h + rng.permutation(h) for b in rng.permutation(w)])
    cols = np.concatenate([s * w + rng.permutation(w) for s in rng.permutation(h)])
    return (rng.permutation(n) + 1)[base[rows][:, cols]]


def _cages(rng: np.random.Generator, grid: np.ndarray, most: int) -> list[list[tuple[int, int]]]:
    """A random partition of ``grid`` into orthogonally connected pieces of 1..most cells with
    distinct digits."""
    n = grid.shape[0]
    owner = -np.ones((n, n), dtype=np.int64)
    pieces = []
    for start in rng.permutation(n * n).tolist():
        r, c = divmod(start, n)
        if owner[r, c] >= 0:
            continue
        piece, size = [(r, c)], int(rng.integers(1, most + 1))
        owner[r, c] = len(pieces)
        while len(piece) < size:
            free = [(a + dr, b + dc) for a, b in piece for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                    if 0 <= a + dr < n and 0 <= b + dc < n and owner[a + dr, b + dc] < 0
                    and grid[a + dr, b + dc] not in [grid[p] for p in piece]]
            if not free:
                break
            a, b = free[int(rng.integers(len(free)))]
            owner[a, b] = len(pieces)
            piece.append((a, b))
        pieces.append(piece)
    return pieces


@st.composite
def killer_documents(draw) -> dict:
    n, h, w = draw(st.sampled_from([(4, 2, 2), (6, 2, 3), (6, 3, 2)]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    grid = _grid(rng, h, w)
    zero = draw(st.booleans())   # the values 0..N-1 (ISS's 0-indexed grids)
    rules = []
    off = draw(st.sampled_from([0, 0, 0, -1, 1]))   # now and then one sum off by one (no grid, or others)
    for piece in _cages(rng, grid, draw(st.integers(2, n))):
        if draw(st.integers(0, 5)) == 0:
            continue    # a cell in no cage
        entry: dict = {"rule": "cage", "cells": [f"r{a + 1}c{b + 1}" for a, b in piece]}
        if draw(st.integers(0, 6)):
            entry["sum"] = int(sum(grid[p] - zero for p in piece)) + off
            off = 0
        rules.append(entry)
    given = rng.random((n, n)) < draw(st.sampled_from([0.0, 0.0, 0.1, 0.3]))
    givens = "".join(str(v - zero) if g else "." for v, g in zip(grid.ravel(), given.ravel()))
    doc = {"size": n, "box": f"{h}x{w}", "givens": givens, "rules": rules}
    if zero:
        doc["values"] = list(range(n))
    return doc


def _count(model, combinations_on: bool, monkeypatch, **options):
    monkeypatch.setattr(clauses_rules, "CAGE_COMBINATIONS", combinations_on)
    sat.close_engines()
    try:
        return sat.count(model, CAP, **options)
    finally:
        sat.close_engines()


@SETTINGS
@given(doc=killer_documents())
def test_random_killers_count_as_with_the_sum_rows(doc):
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return      # a sum off by one that distinct digits cannot make
    model = build_model(puzzle)
    with pytest.MonkeyPatch.context() as monkeypatch:
        want = _count(model, False, monkeypatch, presolve="none")
        assert want.status in ("complete", "limit")
        for options in ({"presolve": "none"}, {"presolve": "singles"}, {"reuse": True}):
            got = _count(model, True, monkeypatch, **options)
            assert (got.count, got.status) == (want.count, want.status), (doc, options)
            if want.status == "complete":
                key = sorted(np.asarray(g).tobytes() for g in got.grids)
                assert key == sorted(np.asarray(g).tobytes() for g in want.grids), (doc, options)
            for grid in got.grids:
                assert verify_grid(grid, puzzle).ok, doc


def test_the_sum_rows_are_left_out_and_the_selectors_numbered_after_top():
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "cage", "cells": ["r1c1", "r2c2"], "sum": 3},
        {"rule": "cage", "cells": ["r3c3", "r4c4"]},
        {"rule": "cage", "cells": ["r1c3", "r1c4", "r2c4"], "sum": 9}]})
    model = build_model(puzzle)
    enc = cage_combination_clauses(model, 100, view=False)
    assert enc.labels == ("cagesum_1", "cagesum_3")       # the cage without a sum keeps no sum row
    # one selector each ({1, 2} and {2, 3, 4}) and a "digit d is in the cage" variable per digit
    assert (enc.first_aux, enc.n_aux) == (101, 2 * (1 + 4))
    keep = enc.keep_rows(model.R.labels)
    assert set(model.R.labels[~keep]) == {"cagesum_1", "cagesum_3"}
    used = {abs(v) for clause in enc.clauses for v in clause}
    assert max(used) == 110 and all(v <= 64 or v > 100 for v in used)


def test_a_cage_no_combination_fits_makes_the_puzzle_infeasible(monkeypatch):
    # r1c1 = 1 is given; the cage r1c1 r1c2 r2c1 (one box) sums to 9: only {2, 3, 4} makes it
    doc = {"size": 4, "box": "2x2", "givens": "1" + "." * 15,
           "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2", "r2c1"], "sum": 9}]}
    model = build_model(parse_puzzle(doc))
    for options in ({"presolve": "none"}, {"presolve": "singles"}):
        assert _count(model, True, monkeypatch, **options).count == 0
        assert _count(model, False, monkeypatch, **options).count == 0


def test_a_mathemagic_killer_is_solved_with_its_proof_by_the_default_engine():
    """ISS's MATHEMAGIC_KILLERS#7 (no givens, sixteen 5-cell cages) ran past 60 s with every
    engine before the combinations; ``auto`` (dfsrules, then sat) now proves it in about 4 s."""
    collection = ISS_COLLECTION
    if not collection.is_file():
        pytest.skip(f"{collection} is absent (../shared is not beside the project)")
    rows = [json.loads(line) for line in collection.open(encoding="utf-8")]
    row = next((r for r in rows if r["name"] == "MATHEMAGIC_KILLERS#7"), None)
    if row is None:
        pytest.skip("MATHEMAGIC_KILLERS#7 is not in the collection")
    puzzle = pipeline.read_puzzle(row["input"])
    got = get_solver("auto").solve(build_model(puzzle), check_unique=True, time_limit=60)
    assert got.solved and got.unique, got.status
    assert verify_grid(got.grid, puzzle).ok
