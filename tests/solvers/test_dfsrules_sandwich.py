"""The ``dfsrules`` kernel's sandwich handler (pipeline/solvers/dfsrules_kernel.py ``_sandwich``):
the sandwich rule's big-M rows are left out of its tables, so the handler alone must hold the
rule. Its counts equal the SAT engine's (which reads the rows) on random sandwich puzzles: true
clues and lies, 4x4 to 9x9, by digit sets and (with the sets switched off) by sum bounds alone,
and on a value set; every grid it returns verifies."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers import dfsrules

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

SETTINGS = settings(max_examples=50, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SMALL = [(4, 2, 2), (6, 2, 3)]


def _sandwich(line: list[int], n: int) -> int:
    a, b = sorted((line.index(1), line.index(n)))
    return sum(line[a + 1:b])


@st.composite
def sandwich_documents(draw, shapes=tuple(SMALL), lies: bool = True, least_givens: int = 0) -> dict:
    """A solution grid (a pattern shuffled), sandwich clues on some of its rows and columns (one
    of them a lie now and then) and some of its digits as givens. A 9x9 lie on an empty grid can
    take the SAT engine half a minute to refute: those stay on 4x4 and 6x6."""
    n, br, bc = draw(st.sampled_from(shapes))
    relabel = draw(st.permutations(range(1, n + 1)))
    bands = draw(st.permutations(range(n // br)))
    rows = [band * br + r for band in bands for r in draw(st.permutations(range(br)))]
    stacks = draw(st.permutations(range(n // bc)))
    cols = [stack * bc + c for stack in stacks for c in draw(st.permutations(range(bc)))]
    grid = [[relabel[(bc * (r % br) + r // br + c) % n] for c in cols] for r in rows]
    rules = []
    for r in draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)):
        rules.append({"rule": "sandwich", "clue": f"r{r + 1}c0", "sum": _sandwich(grid[r], n)})
    for c in draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)):
        rules.append({"rule": "sandwich", "clue": f"r0c{c + 1}", "sum": _sandwich([grid[r][c] for r in range(n)], n)})
    if lies and rules and draw(st.booleans()):
        lie = draw(st.integers(0, len(rules) - 1))
        rules[lie]["sum"] = draw(st.integers(0, n * (n - 1) // 2 - 1))
    cells = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=least_givens,
                          max_size=max(2 * n, least_givens), unique=True))
    givens = [f"r{r + 1}c{c + 1}={grid[r][c]}" for r, c in cells]
    return {"size": n, "box": f"{br}x{bc}", "rules": rules, "givens": givens}


def _agree(doc: dict, cap: int = 4) -> None:
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    model = build_model(puzzle)
    got, want = get_solver("dfsrules").count(model, cap), get_solver("sat").count(model, cap)
    assert (got.count, got.status) == (want.count, want.status), doc
    assert len({g.tobytes() for g in got.grids}) == got.count
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok, doc


@SETTINGS
@given(doc=sandwich_documents())
def test_sandwich_puzzles_count_as_the_sat_engine(doc):
    _agree(doc)


@settings(SETTINGS, max_examples=10)
@given(doc=sandwich_documents(shapes=((9, 3, 3),), lies=False, least_givens=28))
def test_9x9_sandwich_puzzles_count_as_the_sat_engine(doc):
    _agree(doc)


@settings(SETTINGS, max_examples=25)
@given(doc=sandwich_documents())
def test_sandwich_by_sum_bounds_alone_counts_as_the_sat_engine(doc):
    """Above :data:`~pipeline.solvers.dfsrules.MAX_SET_DIGITS` digits the handler judges a
    placement by the sums' bounds: the same puzzles with the digit sets switched off."""
    saved = dfsrules.MAX_SET_DIGITS
    dfsrules.MAX_SET_DIGITS = 0
    try:
        _agree(doc)
    finally:
        dfsrules.MAX_SET_DIGITS = saved


def test_the_handler_takes_the_rows_place():
    """The sandwich's rows are not in the kernel's linear rows; its lines and digit sets are."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "sandwich", "clue": "r1c0", "sum": 5},
                                              {"rule": "sandwich", "clue": "r0c2", "sum": 0}]}
    tables = dfsrules.rule_tables(parse_puzzle(doc))
    assert tables.n_lin == 0 and tables.n_sand == 2
    rint, compat = tables.rint, tables.compat
    cells, sums, sets_ptr = rint[rint[16]:rint[16] + 8], rint[rint[17]:rint[17] + 2], rint[22]
    assert cells.tolist() == [0, 1, 2, 3, 1, 5, 9, 13] and sums.tolist() == [5, 0]
    ptr = rint[sets_ptr:sets_ptr + 2 * 3 + 1]
    sets = [compat[ptr[k]:ptr[k + 1]].tolist() for k in range(6)]
    # sum 5 between 1 and 4 of a 4x4: 2+3 (two cells between); sum 0: nothing between
    assert sets == [[], [], [0b0110], [0], [], []]


def test_a_sandwich_on_a_value_set():
    """Values 0..5 on a 6x6 (ISS's Sandwich on 0..N-1): the ends are 0 and 5, the values between
    are summed."""
    grid = [[0, 1, 2, 3, 4, 5], [3, 4, 5, 0, 1, 2], [1, 2, 0, 4, 5, 3], [4, 5, 3, 1, 2, 0],
            [2, 0, 1, 5, 3, 4], [5, 3, 4, 2, 0, 1]]
    rules = [{"rule": "sandwich", "clue": f"r{r + 1}c0",
              "sum": sum(grid[r][min(grid[r].index(0), grid[r].index(5)) + 1:max(grid[r].index(0), grid[r].index(5))])}
             for r in range(6)]
    doc = {"size": 6, "box": "2x3", "values": list(range(6)), "rules": rules,
           "givens": [f"r{r + 1}c{c + 1}={grid[r][c]}" for r, c in [(0, 0), (2, 2), (4, 4), (1, 3)]]}
    _agree(doc, cap=3)
