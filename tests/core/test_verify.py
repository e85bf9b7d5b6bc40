"""pipeline.core.verify: the verdict names the first broken row/column/box/region/diagonal or clue; the
verify command lists every violation, with or without a puzzle."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracles import (box_regions, is_valid_solution, latin_grid, oracle_first_violation, oracle_units, pattern_grid,
                     shuffled_sudoku, x_solution)
from pipeline.cli.main import main
from pipeline.core.puzzle import grid_to_string
from pipeline.core.build import build_model
from pipeline.core.decode import vector_from_grid
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle
from pipeline.solvers.highs import solve
from pipeline.core.decode import INTEGRALITY_TOL
from pipeline.core.errors import PuzzleError
from pipeline.core.verify import (MAX_BITMASK_N, RESIDUAL_TOL, grid_violations, residual, rule_conflicts, worst_violation, unit_repeats,
                             digit_array, verify_grid, verify_solutions)


@pytest.fixture(scope="module")
def seed():
    p = parse_puzzle(DEFAULT_PUZZLE)
    grid = solve(build_model(p)).grid
    assert is_valid_solution(grid, 3, 3, clues=p.grid)  # independent check of the solver's answer
    return p, grid


def verdict(grid, puzzle):
    v = verify_grid(grid, puzzle)
    assert bool(v) == v.ok
    return v


def test_valid_solution(seed):
    p, grid = seed
    v = verdict(grid, p)
    assert v.ok and v.message == "valid classic 9x9 solution, all 23 clues kept"


def test_changed_cell_breaks_its_row_first(seed):
    p, grid = seed
    g = grid.copy()
    r, c = 0, 0                      # an empty cell of the seed puzzle
    assert p.grid[r, c] == 0
    new = grid[0, 8]                 # the digit of (1, 9): now twice in row 1
    g[r, c] = new
    v = verdict(g, p)
    assert not v.ok
    assert v.message == f"row 1 has digit {new} twice: cells (1, 1) and (1, 9)"
    assert v.message == oracle_first_violation(g, 3, 3)


def test_swap_in_a_row_breaks_columns(seed):
    p, grid = seed
    g = grid.copy()
    g[4, [3, 5]] = g[4, [5, 3]]      # same row, same box: only columns 4 and 6 break
    v = verdict(g, p)
    assert v.message.startswith("column 4 has digit ")
    assert v.message == oracle_first_violation(g, 3, 3)


def test_swapped_columns_across_stacks_break_a_box(seed):
    p, grid = seed
    g = grid[:, [0, 1, 2, 3, 4, 8, 6, 7, 5]]   # columns 6 and 9 swapped: rows, columns still fine
    v = verdict(g, p)
    assert v.message.startswith("box 2 has digit ")
    assert v.message == oracle_first_violation(g, 3, 3)


def test_broken_clue_is_named(seed):
    p, grid = seed
    relabel = np.array([0, 2, 1, 3, 4, 5, 6, 7, 8, 9])   # digits 1 and 2 swapped: still a valid grid
    g = relabel[grid]
    r, c = np.argwhere((p.grid > 0) & (p.grid != g))[0]  # first clue (row-major) that changed
    v = verdict(g, p)
    assert v.message == f"clue at ({r + 1}, {c + 1}) is {p.grid[r, c]} but the grid has {g[r, c]}"


def test_incomplete_or_bad_grids(seed):
    p, grid = seed
    g = grid.copy()
    g[2, 3] = 0
    assert verdict(g, p).message == "cell (3, 4) is empty"
    g[2, 3] = 12
    assert verdict(g, p).message == "cell (3, 4) is 12, not a digit 1..9"
    assert verdict(grid[:4, :4], p).message == "grid is 4x4, puzzle is 9x9"


def test_region_is_named_for_jigsaw():
    # a Sudoku with 3x2 boxes is a jigsaw 6x6 whose regions are those boxes (ids permuted)
    grid = shuffled_sudoku(3, 2, np.random.default_rng(3))
    regions = box_regions(3, 2, labels=[3, 0, 5, 1, 4, 2])
    p = Puzzle(np.zeros((6, 6), dtype=int), 2, 3, "jigsaw", regions)
    assert verdict(grid, p).message == "valid jigsaw 6x6 solution, no clues to keep"
    g = grid[:, [0, 2, 1, 3, 4, 5]]      # columns 2 and 3 swapped: different regions
    v = verdict(g, p)
    assert v.message.startswith("region ")
    assert v.message == oracle_first_violation(g, 2, 3, "jigsaw", regions)
    # region 1 is id 0: rows 1-3, columns 3-4; the first broken region in number order is named
    broken = [u + 1 for u in range(6) if sorted(g[regions == u].tolist()) != list(range(1, 7))]
    assert v.message.startswith(f"region {broken[0]} has digit ")


@pytest.mark.parametrize("variant", ["x", "jigsaw_x"])
def test_diagonal_is_named(variant):
    grid = x_solution(3, 3)
    regions = box_regions(3, 3) if variant == "jigsaw_x" else None
    p = Puzzle(np.zeros((9, 9), dtype=int), 3, 3, variant, regions)
    assert verdict(grid, p).ok
    for a, b in [(0, 1), (0, 2), (1, 2), (3, 4), (6, 8)]:
        g = grid.copy()
        g[[a, b]] = g[[b, a]]            # rows of one band swapped: rows, columns, boxes still fine
        want = oracle_first_violation(g, 3, 3, variant, regions)
        if want is None:
            continue
        assert want.startswith(("main diagonal", "anti-diagonal"))
        assert verdict(g, p).message == want
        break
    else:
        pytest.fail("no row swap broke a diagonal")


def test_latin_square_is_not_a_sudoku():
    g = latin_grid(4)
    assert verdict(g, Puzzle(np.zeros((4, 4), dtype=int), 2, 2, "latin")).ok
    v = verdict(g, Puzzle(np.zeros((4, 4), dtype=int), 2, 2, "classic"))
    assert v.message == oracle_first_violation(g, 2, 2) == "box 1 has digit 2 twice: cells (1, 2) and (2, 1)"


@pytest.mark.parametrize("h,w", [(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)])
def test_random_swaps_match_oracle(h, w):
    rng = np.random.default_rng(h * 100 + w)
    n = h * w
    p = Puzzle(np.zeros((n, n), dtype=int), h, w)
    for _ in range(30):
        g = shuffled_sudoku(h, w, rng)
        r1, c1, r2, c2 = rng.integers(0, n, 4)
        g[r1, c1], g[r2, c2] = g[r2, c2], g[r1, c1]
        want = oracle_first_violation(g, h, w)
        v = verdict(g, p)
        assert v.ok == (want is None)
        if want is not None:
            assert v.message == want


def test_residual():
    p = parse_puzzle(DEFAULT_PUZZLE)
    for clues in ("rows", "bounds"):
        m = build_model(p, clues=clues)
        sol = solve(m).grid
        x = vector_from_grid(sol, m.convention)
        assert residual(m, x) == 0.0
        bad = vector_from_grid(pattern_grid(3, 3), m.convention)  # valid grid, clues broken
        assert residual(m, bad) == 1.0
        y = x.copy()
        y[np.flatnonzero(x)[0]] = 0.75
        assert residual(m, y) == pytest.approx(0.25)


# -- the rule-check kernel and its bulk forms (pipeline.core.verify.unit_repeats) ------------------
def _stack_of_broken_grids(h, w, count, rng, variant):
    n = h * w
    grids, clues = [], []
    for _ in range(count):
        g = x_solution(h, w) if variant == "x" else shuffled_sudoku(h, w, rng)
        clue = np.where(rng.random((n, n)) < 0.3, g, 0)
        kind = rng.integers(0, 4)
        if kind == 1:                                   # a swap: some units repeat a digit
            r1, c1, r2, c2 = rng.integers(0, n, 4)
            g[r1, c1], g[r2, c2] = g[r2, c2], g[r1, c1]
        elif kind == 2:                                 # out of range or empty
            g[rng.integers(0, n), rng.integers(0, n)] = rng.choice([0, n + 1, -1])
        elif kind == 3:                                 # a clue changed (and a repeat)
            r, c = rng.integers(0, n, 2)
            clue[r, c] = g[r, c] % n + 1
        grids.append(g.ravel())
        clues.append(clue.ravel())
    return np.array(grids), np.array(clues)


@pytest.mark.parametrize("h,w,variant", [(2, 2, "classic"), (3, 3, "x"), (3, 3, "classic"), (3, 3, "latin"),
                                         (4, 4, "x")])
def test_bulk_verify_agrees_with_verify_grid_row_by_row(h, w, variant):
    rng = np.random.default_rng(7 * h + w)
    n = h * w
    grids, clues = _stack_of_broken_grids(h, w, 60, rng, variant)
    template = Puzzle(np.zeros((n, n), dtype=int), h, w, variant)
    ok = verify_solutions(grids, clues, template.unit_families())
    for g, c, got in zip(grids, clues, ok):
        clue_grid = c.reshape(n, n)
        if rule_conflicts(c[None], template.unit_families())[0]:
            continue                                    # not a puzzle: verify_grid needs a valid one
        want = verify_grid(g.reshape(n, n), Puzzle(clue_grid, h, w, variant)).ok
        assert got == want
    assert 0 < ok.sum() < len(ok)                       # both verdicts occur


def test_rule_conflicts_agrees_with_the_puzzle_validator():
    rng = np.random.default_rng(11)
    h, w = 2, 3
    n = h * w
    clue_grids = np.where(rng.random((200, n * n)) < 0.25, rng.integers(1, n + 1, (200, n * n)), 0)
    template = Puzzle(np.zeros((n, n), dtype=int), h, w)
    bad = rule_conflicts(clue_grids, template.unit_families())
    for grid, conflict in zip(clue_grids, bad):
        try:
            Puzzle(grid.reshape(n, n), h, w)
            valid = True
        except PuzzleError as e:
            # the count and every cell holding the digit (it once said "twice" of a triple)
            m = re.search(r"digit (\d+) appears (twice|(\d+) times) in", str(e))
            assert m, str(e)
            said = 2 if m.group(2) == "twice" else int(m.group(3))
            assert said >= 2 and str(e).count("(") == said
            valid = False
        assert conflict == (not valid)
    assert 0 < bad.sum() < len(bad)


def test_unit_repeats_one_grid_and_a_stack_agree():
    rows = np.arange(16).reshape(4, 4)
    stack = np.array([[1, 2, 3, 4] * 4, [1, 1, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 3, 4, 1, 2]])
    both = unit_repeats(stack, rows)
    assert both.tolist() == [[False] * 4, [True, False, True, False]]
    assert [unit_repeats(g, rows).tolist() for g in stack] == both.tolist()


def test_kernel_beyond_the_bitmasks_sorts():
    # N = 65 > MAX_BITMASK_N: the sorting path gives the same answers
    n = 65
    assert n > MAX_BITMASK_N
    g = latin_grid(n)
    p = Puzzle(np.zeros((n, n), dtype=int), 1, n, "latin")
    assert verify_grid(g, p).ok
    g2 = g.copy()
    g2[0, 0] = g2[0, 1]
    assert verify_grid(g2, p).message == (f"row 1 has digit {g[0, 1]} twice: cells (1, 1) and (1, 2)")
    assert verify_solutions(np.stack([g.ravel(), g2.ravel()]), np.zeros((2, n * n), int),
                            p.unit_families()).tolist() == [True, False]


def test_residual_tolerance_is_the_integrality_tolerance():
    assert RESIDUAL_TOL == INTEGRALITY_TOL


# ---------------------------------------------------------------------------------------------
# the verify command (issue 11 item 18): no --puzzle needed, every violation, --format json
# ---------------------------------------------------------------------------------------------
def verify_cli(capsys, *args):
    code = main(["verify", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def oracle_repeats(grid, h, w, variant="classic", regions=None) -> set:
    """``(frozenset of 1-based cells, digit)`` for every digit a unit holds more than once,
    from docs/conventions.md's units (tests/conftest.py), not from pipeline.core.verify."""
    found = set()
    for _, units in oracle_units(grid.shape[0], h, w, variant, regions):
        for cells in units:
            by_digit = {}
            for r, c in cells:
                if grid[r, c]:
                    by_digit.setdefault(int(grid[r, c]), []).append((r + 1, c + 1))
            found |= {(frozenset(at), d) for d, at in by_digit.items() if len(at) > 1}
    return found


def test_verify_without_a_puzzle_checks_the_rules_alone(capsys, seed):
    _, grid = seed
    code, out, err = verify_cli(capsys, grid_to_string(grid))
    assert (code, err) == (0, "") and out == "ok: valid classic 9x9 grid (rules only: no --puzzle, no clues checked)\n"
    code, out, _ = verify_cli(capsys, grid_to_string(grid), "--format", "json")
    answer = json.loads(out)
    assert code == 0 and answer["ok"] is True and answer["violations"] == [] and answer["checked_clues"] is False


def test_verify_lists_every_broken_clue(capsys, seed):
    p, grid = seed
    relabelled = np.where(grid == 1, 2, np.where(grid == 2, 1, grid))   # still a valid grid
    code, out, _ = verify_cli(capsys, grid_to_string(relabelled), "--puzzle", grid_to_string(p.grid))
    broken = {(r + 1, c + 1) for r, c in zip(*np.nonzero(p.grid)) if grid[r, c] in (1, 2)}
    assert code == 1 and len(broken) > 1
    assert {line for line in out.splitlines()} == {
        f"invalid: clue at ({r}, {c}) is {p.grid[r - 1, c - 1]} but the grid has {relabelled[r - 1, c - 1]}"
        for r, c in broken}


def test_verify_json_names_shape_and_bad_cells(capsys):
    code, out, _ = verify_cli(capsys, "1" * 16, "--format", "json", "--puzzle", "." * 81)
    answer = json.loads(out)
    assert code == 1 and [v["kind"] for v in answer["violations"]] == ["shape"]
    code, out, _ = verify_cli(capsys, "12.." + "3412" + "2143" + "43.1", "--format", "json")
    kinds = [v["kind"] for v in json.loads(out)["violations"]]
    assert code == 1 and kinds == ["empty"]
    assert json.loads(out)["violations"][0]["cells"] == [[1, 3], [1, 4], [4, 3]]


@pytest.mark.parametrize("variant", ["classic", "x", "jigsaw"])
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_verify_reports_every_repeat_the_oracle_finds(capsys, variant, data):
    """Random swaps in a valid grid: the JSON lists exactly the oracle's repeated digits."""
    h, w = (3, 3) if variant == "x" else data.draw(st.sampled_from([(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)]))
    n = h * w
    grid = x_solution(3, 3) if variant == "x" else shuffled_sudoku(h, w, np.random.default_rng(data.draw(
        st.integers(0, 2**32 - 1))))
    regions = None
    extra = []
    if variant == "jigsaw":
        regions = box_regions(h, w, np.random.default_rng(7).permutation(n))
        extra = ["--regions", "".join("0123456789ABCDEF"[v] for v in regions.ravel())]
    elif variant == "x":
        extra = ["--variant", "x"]
    for _ in range(data.draw(st.integers(1, 4))):
        (r1, c1), (r2, c2) = data.draw(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))), \
            data.draw(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)))
        grid[r1, c1], grid[r2, c2] = grid[r2, c2], grid[r1, c1]
    code, out, err = verify_cli(capsys, grid_to_string(grid), "--box", f"{h}x{w}", "--format", "json", *extra)
    answer = json.loads(out)
    want = oracle_repeats(grid, h, w, variant, regions)
    got = {(frozenset(map(tuple, v["cells"])), v["digit"]) for v in answer["violations"] if v["kind"] == "unit"}
    assert got == want
    assert answer["ok"] == (not want) and code == (0 if not want else 1)
    assert [v for v in answer["violations"] if v["kind"] != "unit"] == []


def test_the_first_verdict_counts_the_repeats_as_the_full_list_does():
    """``verify`` of a grid of ones: the verdict said "digit 1 twice" where the list says 9 times."""
    grid = np.ones((9, 9), dtype=int)
    puzzle = Puzzle(np.zeros((9, 9), dtype=int), 3, 3)
    verdict = verify_grid(grid, puzzle)
    assert not verdict.ok and verdict.message == next(
        v["message"] for v in grid_violations(grid, puzzle) if v["kind"] == "unit")
    assert verdict.message.startswith("row 1 has digit 1 9 times: cells (1, 1), (1, 2)")


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.sampled_from([(4, "2x2", None), (6, "2x3", None), (9, "3x3", None), (4, "2x2", [0, 1, 2, 3])]),
       st.data())
def test_the_cages_quick_check_agrees_with_each_cages_violations(shape, data):
    """Cage.all_kept (verify_grid's one pass over a killer's cages): on full grids, True exactly
    when no cage reports a violation; with empty cells, never True while a cage does."""
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.core.rules.cages import Cage

    n, box, values = shape
    grid = np.array(data.draw(st.lists(st.integers(0 if data.draw(st.booleans()) else 1, n),
                                       min_size=n * n, max_size=n * n)))
    cages = []
    for _ in range(data.draw(st.integers(1, 6))):
        cells = data.draw(st.lists(st.integers(0, n * n - 1), min_size=1, max_size=min(n, 5), unique=True))
        names = [f"r{c // n + 1}c{c % n + 1}" for c in cells]
        entry = {"rule": "cage", "cells": names}
        if data.draw(st.booleans()):
            value = np.array(values or list(range(1, n + 1)))
            true = int(value[np.clip(grid[cells], 1, n) - 1].sum())
            entry["sum"] = max(true + data.draw(st.integers(-1, 1)), 0)
        cages.append(entry)
    doc = {"size": n, "box": box, "rules": cages, **({"values": values} if values else {})}
    try:
        puzzle = parse_puzzle(doc)
    except Exception:   # a sum no digits can make, overlapping cages refused: nothing to compare
        return
    rules = [rule for rule in puzzle.rules if isinstance(rule, Cage)]
    broken = any(rule.violations(grid, puzzle.board) for rule in rules)
    kept = Cage.all_kept(rules, grid, puzzle.board)
    if kept:
        assert not broken
    if grid.min() > 0:
        assert kept == (not broken)


def test_a_value_set_puzzle_is_judged_and_named_in_its_values():
    """6x6 with the nine values 0-8: digits 7..9 are allowed cells (never "not a digit 1..6"), and
    a repeat or a changed clue is named by the value the grid shows, not the digit's index."""
    puzzle = parse_puzzle({"size": 6, "values": "0-8", "givens": "." * 36})
    values = np.array(puzzle.values)
    solved = values[pattern_grid(2, 3) + 2]                  # values 3..8: digits 4..9
    digits = np.searchsorted(values, solved) + 1
    assert verify_grid(digits, puzzle)
    assert grid_violations(digits, puzzle) == []
    digits[5, 5] = digits[5, 4]                               # a repeat in row 6
    shown = int(values[digits[5, 4] - 1])
    messages = [v["message"] for v in grid_violations(digits, puzzle)]
    assert messages and all("not a digit" not in m for m in messages)
    assert f"row 6 has value {shown} twice: cells (6, 5) and (6, 6)" in messages
    assert verify_grid(digits, puzzle).message == f"row 6 has value {shown} twice: cells (6, 5) and (6, 6)"
    clued = parse_puzzle({"size": 6, "values": "0-8", "givens": "0" + "." * 35})
    grid = np.searchsorted(values, values[pattern_grid(2, 3)]) + 1   # r1c1 holds value 1, the clue says 0
    assert verify_grid(grid, clued).message == "clue at (1, 1) is 0 but the grid has 1"
    grid[0, 0] = 0   # an empty clue cell: 0 is a value here, so it shows as nothing (it showed value 8)
    assert "clue at (1, 1) is 0 but the grid has nothing" in [v["message"] for v in grid_violations(grid, clued)]


def test_one_clue_kept_is_said_in_the_singular():
    """An outside check: verify and import said "all 1 clues kept"."""
    solved = "1234341221434321"
    assert verdict(np.array([int(c) for c in solved]).reshape(4, 4), parse_puzzle("1" + "." * 15)).message \
        == "valid classic 4x4 solution, the 1 clue kept"


def test_worst_violation_names_the_row_the_residual_measured():
    p = parse_puzzle(DEFAULT_PUZZLE)
    m = build_model(p)
    x = vector_from_grid(solve(m).grid, m.convention)
    assert worst_violation(m, x) == ""
    bad = vector_from_grid(pattern_grid(3, 3), m.convention)  # a valid grid that breaks the clues
    text = worst_violation(m, bad)
    assert text.startswith("row clue_") and text.endswith("(Aeq x = beq): 0 where 1")
    y = x.copy()
    y[np.flatnonzero(x == 0)[0]] = 2.0   # its cell's rows hold 3 (2 off), its bound is passed by 1
    assert worst_violation(m, y).endswith("(Aeq x = beq): 3 where 1") and residual(m, y) == 2.0


@pytest.mark.parametrize("grid, words", [
    (np.full((4, 4), 1e30), "grid: cell (1, 1) is 1e+30, not a digit index"),
    (np.full((4, 4), -1e300), "grid: cell (1, 1) is -1e+300, not a digit index"),
    (np.full((4, 4), 2.5), "grid: an array of digit indices 1..V, rows x columns (as solve's result.grid), found 2-d float64"),
    (5, "grid: an array of digit indices 1..V, rows x columns (as solve's result.grid), found 0-d int64"),
])
def test_digit_array_refuses_what_is_no_integer_grid_in_one_line(grid, words):
    """A whole float past int64 was cast with a RuntimeWarning, and the verdict named the cell
    -9223372036854775808; whole floats of a CSV or a solver's vector are still digits."""
    with pytest.raises(PuzzleError) as err:
        digit_array(grid)
    assert str(err.value) == words
    assert digit_array(np.array([[1.0, 2.0], [2.0, 1.0]])).tolist() == [[1, 2], [2, 1]]
