"""``dfsrules`` on sums whose digits may repeat (issue 34): little killer diagonals beside rows of
other lengths, and the refusal of rule kinds it was not checked on.

The defect: ``_digit_sets`` gave a row the digit sets of a sum of *distinct* digits when its
cells were pairwise in one unit or apart by a pair table, but it read each row's cell pairs in
row order from ``_term_pairs``, which emits them grouped by row length. With rows of mixed
lengths (twelve little killer diagonals of ISS's LITTLE_KILLER_SNIPES#2, of 2 to 8 cells) a
diagonal was judged from another row's pairs and lost every grid with a repeated digit on it:
"infeasible" where the SAT engine finds the published solution.
"""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracles import ISS_COLLECTION

from pipeline.core.build import build_model
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules import RULES
from pipeline.core.rules.auxcols import AuxRule
from pipeline.core.rules.cages import Cage
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.dfsrules import HANDLED_KINDS, KNOWN_KINDS, _build_rule_tables, model_problem

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
COLLECTION = ISS_COLLECTION
#: the entries dfsrules called infeasible before the mend (the first four have no published solution)
ISS_ENTRIES = ("LITTLE_KILLER_SNIPES#2", "LITTLE_KILLER_SNIPES#3", "LITTLE_KILLER_SNIPES#4",
               "LITTLE_KILLER_SNIPES#5", "X-Sum little killer")
#: counts compared up to this many (beyond the uniqueness proof's 2: a lost grid shows more often)
CAP = 12
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _entry(name: str) -> dict:
    if not COLLECTION.is_file():
        pytest.skip(f"{COLLECTION} is absent (../shared is not beside the project)")
    for line in COLLECTION.open(encoding="utf-8"):
        row = json.loads(line)
        if row["name"] == name:
            return row
    pytest.skip(f"{name} is not in {COLLECTION}")


@pytest.mark.parametrize("name", ISS_ENTRIES)
def test_iss_little_killers_are_solved_as_published(name):
    import pipeline

    row = _entry(name)
    puzzle = pipeline.read_puzzle(row["input"])
    model = build_model(puzzle)
    assert model_problem(model) is None
    assert pick_solver("unique", model).name == "dfsrules"
    got = get_solver("dfsrules").solve(model, check_unique=True, time_limit=60)
    assert got.solved, f"dfsrules: {got.status}"
    assert verify_grid(got.grid, puzzle).ok
    assert got.unique
    if row.get("solution"):
        assert "".join(map(str, np.asarray(got.grid).ravel())) == row["solution"]
    else:   # no published solution: the SAT engine's unique grid
        want = get_solver("sat").solve(model, check_unique=True)
        assert want.unique and np.array_equal(got.grid, want.grid)


def _grid(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A Sudoku of h x w boxes: the pattern grid with rows in bands, bands, columns in stacks,
    stacks and digits shuffled."""
    n = h * w
    r, c = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    base = (w * (r % h) + r // h + c) % n
    rows = np.concatenate([b * h + rng.permutation(h) for b in rng.permutation(w)])
    cols = np.concatenate([s * w + rng.permutation(w) for s in rng.permutation(h)])
    return (rng.permutation(n) + 1)[base[rows][:, cols]]


def _name(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


@st.composite
def little_killer_documents(draw) -> dict:
    """A 4x4 or 6x6 with two to seven little killers (whole diagonals from an outside clue, or
    runs along one), their sums from one random grid or now and then off by a little, up to two
    killer cages along a row (sums of distinct digits; their rows come first, of other lengths)
    and a few givens."""
    n, h, w = draw(st.sampled_from([(4, 2, 2), (6, 2, 3)]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    grid = _grid(rng, h, w)
    rules: list[dict] = []
    for _ in range(draw(st.integers(2, 7))):
        dr, dc = draw(st.sampled_from([(1, 1), (1, -1), (-1, 1), (-1, -1)]))
        edge = draw(st.integers(0, n - 1))
        r, c = (0 if dr == 1 else n - 1, edge) if draw(st.booleans()) else (edge, 0 if dc == 1 else n - 1)
        clue = _name(r - dr, c - dc)
        cells = []
        while 0 <= r < n and 0 <= c < n:
            cells.append((r, c))
            r, c = r + dr, c + dc
        entry: dict = {"rule": "littlekiller"}
        if draw(st.booleans()):
            entry["clue"] = clue
        else:
            first = draw(st.integers(0, len(cells) - 1))
            cells = cells[first:first + draw(st.integers(1, len(cells) - first))]
        total = int(sum(grid[p] for p in cells)) + draw(st.sampled_from([0, 0, 0, 0, -1, 1, 2]))
        entry.update(sum=min(max(total, len(cells)), n * len(cells)), cells=[_name(*p) for p in cells])
        rules.append(entry)
    for _ in range(draw(st.integers(0, 2))):   # cages in a row: sums of distinct digits, of other lengths
        size, row, start = draw(st.integers(2, n)), draw(st.integers(0, n - 1)), draw(st.integers(0, n - 2))
        cells = [(row, k) for k in range(start, min(start + size, n))]
        rules.append({"rule": "cage", "cells": [_name(*p) for p in cells], "sum": int(sum(grid[p] for p in cells))})
    given = rng.random((n, n)) < draw(st.sampled_from([0.0, 0.1, 0.25]))
    givens = "".join(str(v) if g else "." for v, g in zip(grid.ravel(), given.ravel()))
    return {"size": n, "box": f"{h}x{w}", "givens": givens, "rules": rules}


@SETTINGS
@given(doc=little_killer_documents())
def test_little_killers_count_as_the_sat_engine(doc):
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    model = build_model(puzzle)
    assert model_problem(model) is None
    got, want = get_solver("dfsrules").count(model, CAP), get_solver("sat").count(model, CAP)
    assert (got.count, got.status) == (want.count, want.status), doc
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok, doc


def test_a_diagonal_beside_longer_rows_keeps_its_repeated_digits():
    """A small case of the defect (found by the test above): the diagonal r3c4-r2c3-r1c2 adds up
    to 6 only with a repeated digit (r3c4 and r1c2 share no unit), beside a cage of four cells
    (a row: distinct), whose row is built first; dfsrules counted 0 grids, the SAT engine 1."""
    doc = {"size": 4, "box": "2x2", "rules": [
        {"rule": "littlekiller", "sum": 1, "cells": ["r1c1"]},
        {"rule": "littlekiller", "clue": "r4c5", "sum": 6, "cells": ["r3c4", "r2c3", "r1c2"]},
        {"rule": "cage", "cells": ["r4c3", "r4c4"], "sum": 6},
        {"rule": "cage", "cells": ["r2c1", "r2c2", "r2c3", "r2c4"], "sum": 10}]}
    puzzle = parse_puzzle(doc)
    tables = _build_rule_tables(puzzle, implied=False)   # the rules' rows alone (no innies)
    # the rows of 3 and 4 cells are linear (the one- and two-cell ones are start candidates and
    # a pair table); the cage's row (one unit) has the one digit set {1, 2, 3, 4}, the diagonal's none
    rint = tables.rint
    lin_ptr, term_cell, combo_ptr = rint[8], rint[9], rint[15]
    assert tables.n_lin == 2
    for r in range(2):
        cells = rint[term_cell + rint[lin_ptr + r]:term_cell + rint[lin_ptr + r + 1]]
        sets = rint[combo_ptr + r + 1] - rint[combo_ptr + r]
        assert (len(cells), sets) in ((4, 1), (3, 0)), (cells, sets)
    model = build_model(puzzle)
    everything = 1000   # more than the 288 4x4 grids
    assert get_solver("dfsrules").count(model, everything).count == get_solver("sat").count(model, everything).count


@dataclasses.dataclass(frozen=True, eq=False)
class _NewKind(Cage):
    """A rule kind registered after dfsrules' list was checked (a cage under another name)."""

    kind = "brandnewkind"


def test_a_kind_it_was_not_checked_on_is_refused_and_auto_uses_the_sat_engine(monkeypatch):
    monkeypatch.setitem(RULES, _NewKind.kind, _NewKind)   # registered, as another change would
    base = parse_puzzle({"size": 4, "box": "2x2", "rules": [{"rule": "cage", "cells": ["r1c1", "r2c2"], "sum": 3}]})
    puzzle = dataclasses.replace(base, rules=(_NewKind(*dataclasses.astuple(base.rules[0])),))
    model = build_model(puzzle)
    reason = model_problem(model)
    assert reason == "dfsrules does not take brandnewkind (not among the rule kinds it was checked on)"
    with pytest.raises(PipelineError, match="^solver dfsrules: dfsrules does not take brandnewkind"):
        get_solver("dfsrules").solve(model)
    assert pick_solver("unique", model).name == "sat"
    assert model_problem(build_model(base)) is None


def test_every_kind_it_takes_is_registered_and_adds_no_auxiliary_columns():
    """Its auxiliary columns are the kernel's own handler's to hold (skyscraper) or none."""
    assert KNOWN_KINDS <= set(RULES), sorted(KNOWN_KINDS - set(RULES))
    # auxiliary columns only for the kinds the kernel holds by handlers of their own (skyscraper clues,
    # lunchboxes, counting rules: tests/solvers/test_dfsrules_skyscraper.py, _lunchbox.py, _counting.py)
    assert not [k for k in KNOWN_KINDS - HANDLED_KINDS if issubclass(RULES[k], AuxRule)]


def _samplers():
    """tests/core/test_cpsat_oracle.py's instance samplers (every rule kind on 9x9), or a skip."""
    pytest.importorskip("ortools", reason="the samplers' grids under global rules come from the CP-SAT oracle")
    sys.path.insert(0, str(ROOT / "tests" / "core"))
    import test_cpsat_oracle

    return test_cpsat_oracle


#: kinds whose samplers give one set of instances per grid (a second draw repeats cells)
_ONCE = {"even", "odd", "strictxv", "strictkropki", "pencilmarks"}


#: kinds without a sampler there (tests/core/test_cpsat_oracle.py's UNSAMPLED), held elsewhere
#: (lunchboxes, count-distinct clues, sum lines: tests/solvers/test_dfsrules_lunchbox.py,
#: test_dfsrules_counting.py, test_dfsrules_sumline.py)
_UNSAMPLED = {"countdistinct", "lunchbox", "sumline", "automaton", "regex"}   # automaton, regex: test_dfsrules_automaton.py


@pytest.mark.parametrize("kind", sorted(KNOWN_KINDS - _UNSAMPLED))
@pytest.mark.parametrize("seed", [1, 2])
def test_many_rules_of_one_kind_count_as_the_sat_engine(kind, seed):
    """A 9x9 with many instances of one kind sampled on one grid, with 20-45 of its givens, or
    (seed 2) sampled on another grid, with 3-8 givens of the first (a lie: often no solution):
    dfsrules' count to 2 equals the SAT engine's."""
    samplers = _samplers()
    assert kind in samplers.oracle.KINDS, f"no sampler for {kind}: add one before adding it to KNOWN_KINDS"
    rng = np.random.default_rng(7919 * seed + len(kind))
    lie = seed == 2
    if kind in samplers.GLOBAL:
        rules = samplers.sample(kind, samplers.pattern_grid(rng), rng, list(range(1, 10)))
        grid = samplers.pattern_grid(rng) if lie else samplers.base_grid(kind, rng, seed, rules)
    else:
        grid = samplers.pattern_grid(rng)
        source = samplers.pattern_grid(rng) if lie else grid
        rules = [e for _ in range(1 if kind in _ONCE else 4) for e in samplers.sample(kind, source, rng,
                                                                                   list(range(1, 10)))]
    n_givens = int(rng.integers(3, 9)) if lie else int(rng.integers(20, 46))   # a lie's givens often break it
    picked = [samplers.ALL[int(i)] for i in rng.permutation(len(samplers.ALL))[:n_givens]]
    doc = {"size": 9, "rules": rules, "givens": samplers.givens_text(grid, picked, list(range(1, 10)))}
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        pytest.skip("the sample breaks a rule on its own (refused when read)")
    model = build_model(puzzle)
    assert model_problem(model) is None
    got = get_solver("dfsrules").count(model, 2, time_limit=10)
    if got.status == "time_limit":
        pytest.skip("dfsrules beyond 10 s here")
    want = get_solver("sat").count(model, 2)
    assert got.count == want.count, json.dumps(doc)
