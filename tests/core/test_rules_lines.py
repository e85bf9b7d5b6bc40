"""The line rules (issue 33, part 2: arrows, whispers, renban, palindromes, between and lockout
lines, entropic, modular, zipper and region-sum lines).

Their meaning is written here a second time, in plain Python over a grid (:func:`holds`), from
the rules' descriptions and never from the model's rows. Against it: the solution count of the
SAT engine (and HiGHS) on random lines (hypothesis) equals the count of grids that satisfy the
units and :func:`holds` (all 288 4x4 Sudokus, or the completions of a 6x6 with givens), and
``violations`` flags exactly the complete grids :func:`holds` rejects. Plus the rows of each
family, refusals in one line, and export round trips.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from oracles import assert_same_model_data
from rule_models import FORMATS, expected, solution_grid, write_and_read

import rule_oracle as oracle
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import grid_violations, verify_grid
from pipeline.solvers import highs, sat

LINE_KINDS = ("arrow", "pillarrow", "doublearrow", "whisper", "renban", "palindrome", "between", "lockout",
              "entropic", "modular", "zipper", "regionsum")
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# ------------------------------------------------------------------------------------------------
# the rules' plain meaning (cells are (r, c), 0-based)
# ------------------------------------------------------------------------------------------------
def _windows(values: list[int], width: int) -> list[list[int]]:
    width = min(width, len(values))
    return [values[i:i + width] for i in range(len(values) - width + 1)]


def holds(kind: str, p: dict, g: np.ndarray, h: int, w: int) -> bool:
    """Does complete grid ``g`` (n x n) satisfy line rule ``kind`` with parameters ``p``?"""
    n = g.shape[0]
    cells = p["cells"]
    v = [int(g[c]) for c in cells]
    if kind == "arrow":
        return v[0] == sum(v[1:])
    if kind == "pillarrow":
        k = p.get("pill", 2)
        return int("".join(map(str, v[:k]))) == sum(v[k:])
    if kind == "doublearrow":
        return v[0] + v[-1] == sum(v[1:-1])
    if kind == "whisper":
        k = p.get("diff", (n + 1) // 2)
        return all(abs(a - b) >= k for a, b in zip(v, v[1:]))
    if kind == "renban":
        return sorted(v) == list(range(min(v), min(v) + len(v)))
    if kind == "palindrome":
        return v == v[::-1]
    if kind == "between":
        lo, hi = sorted((v[0], v[-1]))
        return all(lo < x < hi for x in v[1:-1])
    if kind == "lockout":
        k = p.get("diff", max(1, (n - 1) // 2))
        lo, hi = sorted((v[0], v[-1]))
        return hi - lo >= k and all(x < lo or x > hi for x in v[1:-1])
    if kind == "entropic":
        third = n // 3
        return all(len({(x - 1) // third for x in win}) == len(win) for win in _windows(v, 3))
    if kind == "modular":
        m = p.get("mod", 3)
        return all(len({x % m for x in win}) == len(win) for win in _windows(v, m))
    if kind == "zipper":
        pairs = [v[i] + v[-1 - i] for i in range(len(v) // 2)]
        if len(v) % 2:
            return all(s == v[len(v) // 2] for s in pairs)
        return len(set(pairs)) == 1
    if kind == "regionsum":
        sums, box = [], None
        for (r, c), x in zip(cells, v):
            here = (r // h, c // w)
            if here != box:
                sums.append(0)
                box = here
            sums[-1] += x
        return len(set(sums)) == 1
    raise AssertionError(kind)


@pytest.fixture(scope="module")
def sudoku4() -> list[np.ndarray]:
    """Every 4x4 Sudoku (2x2 boxes): the Latin squares whose boxes hold 1..4."""
    return [np.array(s) for s in oracle.latin_squares(4)
            if all(len({s[r][c] for r in (br, br + 1) for c in (bc, bc + 1)}) == 4 for br in (0, 2) for bc in (0, 2))]


def completions(grid: np.ndarray, h: int, w: int, cap: int = 5000) -> list[np.ndarray]:
    """Every filling of the 0 cells of ``grid`` with rows, columns and boxes all different
    (plain backtracking)."""
    n = grid.shape[0]
    g = grid.copy()
    empty = [tuple(c) for c in np.argwhere(g == 0)]
    out: list[np.ndarray] = []

    def free(r: int, c: int) -> set[int]:
        br, bc = r - r % h, c - c % w
        used = set(g[r].tolist()) | set(g[:, c].tolist()) | set(g[br:br + h, bc:bc + w].ravel().tolist())
        return set(range(1, n + 1)) - used

    def go(i: int) -> None:
        if len(out) >= cap:
            return
        if i == len(empty):
            out.append(g.copy())
            return
        r, c = empty[i]
        for d in sorted(free(r, c)):
            g[r, c] = d
            go(i + 1)
        g[r, c] = 0

    go(0)
    return out


# ------------------------------------------------------------------------------------------------
# random lines
# ------------------------------------------------------------------------------------------------
LENGTHS = {"arrow": (2, 6), "pillarrow": (4, 8), "doublearrow": (3, 7), "whisper": (2, 6), "renban": (2, 6),
           "palindrome": (2, 7), "between": (3, 6), "lockout": (2, 6), "entropic": (2, 7), "modular": (2, 7),
           "zipper": (3, 7), "regionsum": (2, 8)}


@st.composite
def line_entries(draw, n: int, kinds=LINE_KINDS) -> dict:
    """A document entry of a random line on an n x n grid: a king's walk, or (where the rule
    does not need neighbours) any cells in any order."""
    kind = draw(st.sampled_from(kinds))
    low, high = LENGTHS[kind]
    length = draw(st.integers(low, min(high, n * n)))
    if kind == "pillarrow" or draw(st.booleans()):
        path = [draw(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)))]
        while len(path) < length:
            r, c = path[-1]
            steps = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                     if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr, c + dc) not in path]
            if not steps:
                break
            path.append(draw(st.sampled_from(steps)))
    else:
        order = draw(st.permutations([(r, c) for r in range(n) for c in range(n)]))
        path = list(order[:length])
    entry: dict = {"rule": kind, "cells": [f"r{r + 1}c{c + 1}" for r, c in path]}
    if kind in ("whisper", "lockout") and draw(st.booleans()):
        entry["diff"] = draw(st.integers(1, n - 1))
    if kind == "modular" and draw(st.booleans()):
        entry["mod"] = draw(st.integers(2, n))
    if kind == "pillarrow" and len(path) >= 5 and draw(st.booleans()):
        entry["pill"] = 3
    return entry


def _plain(entry: dict) -> tuple[str, dict]:
    p = {k: v for k, v in entry.items() if k != "rule"}
    p["cells"] = [(int(t[1:t.index("c")]) - 1, int(t[t.index("c") + 1:]) - 1) for t in entry["cells"]]
    return entry["rule"], p


def _event(what: str) -> None:
    """Count what an example came to (``--hypothesis-show-statistics``); nothing outside hypothesis."""
    try:
        event(what)
    except InvalidArgument:
        pass


def _agree(doc: dict, grids: list[np.ndarray], h: int, w: int, engine: str = "sat") -> None:
    """The project's count of ``doc`` equals the grids (of its units and givens) that satisfy
    every line by :func:`holds`; each solution it returns verifies."""
    plain = [_plain(e) for e in doc["rules"]]
    want = sum(all(holds(k, p, g, h, w) for k, p in plain) for g in grids)
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError as e:
        _event("refused")
        assert want == 0, f"refused a puzzle with {want} solution(s): {e}"
        assert "\n" not in str(e)
        return
    model = build_model(puzzle)
    got = (sat.count(model, len(grids) + 1) if engine == "sat" else highs.count_solutions(model, len(grids) + 1))
    assert (got.count, got.status) == (want, "complete"), doc
    _event("no solution" if want == 0 else "solutions")
    for grid in got.grids[:5]:
        assert verify_grid(grid, puzzle).ok and all(holds(k, p, np.asarray(grid), h, w) for k, p in plain)


@SETTINGS
@given(lines=st.lists(line_entries(4, tuple(k for k in LINE_KINDS if k != "entropic")), min_size=1, max_size=2))
def test_random_lines_on_4x4_count_as_brute_force(sudoku4, lines):
    _agree({"size": 4, "box": "2x2", "rules": lines}, sudoku4, 2, 2)


@settings(SETTINGS, max_examples=50)
@given(lines=st.lists(line_entries(6), min_size=1, max_size=2), seed=st.integers(0, 2 ** 16),
       keep=st.floats(0.55, 0.8))
def test_random_lines_on_6x6_count_as_brute_force(lines, seed, keep):
    """6x6 (2x3 boxes) with givens off the lines from a random solution (one the lines hold
    on, when one of 40 tried is): the completions of the givens, filtered by :func:`holds`."""
    rng = np.random.default_rng(seed)
    plain = [_plain(e) for e in lines]
    tries = [solution_grid(2, 3, rng) for _ in range(40)]   # one the lines hold on, when there is one
    solution = next((g for g in tries if all(holds(k, p, g, 2, 3) for k, p in plain)), tries[0])
    on_line = {c for _, p in plain for c in p["cells"]}
    grid = np.where(rng.random((6, 6)) < keep, solution, 0)
    for r, c in on_line:
        grid[r, c] = 0
    doc = {"size": 6, "box": "2x3", "rules": lines,
           "givens": [f"r{r + 1}c{c + 1}={grid[r, c]}" for r, c in np.argwhere(grid > 0)]}
    _agree(doc, completions(grid, 2, 3), 2, 3)


@pytest.mark.parametrize("entry", [
    {"rule": "arrow", "cells": ["r1c1", "r2c2", "r3c3"]},
    {"rule": "pillarrow", "cells": ["r1c1", "r1c2", "r2c3", "r3c3", "r4c4", "r4c3"]},
    {"rule": "doublearrow", "cells": ["r1c1", "r2c1", "r3c2", "r4c4"]},
    {"rule": "whisper", "cells": ["r1c1", "r1c2", "r2c3"]},
    {"rule": "renban", "cells": ["r2c1", "r3c2", "r4c3"]},
    {"rule": "palindrome", "cells": ["r1c1", "r2c2", "r3c3", "r4c4"]},
    {"rule": "between", "cells": ["r1c1", "r2c2", "r3c4"]},
    {"rule": "lockout", "cells": ["r1c1", "r2c3", "r4c2"], "diff": 2},
    {"rule": "modular", "cells": ["r1c1", "r2c2", "r3c3", "r4c1"]},
    {"rule": "zipper", "cells": ["r1c1", "r2c2", "r3c3", "r4c4", "r4c3"]},
    {"rule": "regionsum", "cells": ["r1c1", "r1c2", "r1c3", "r2c4"]},
], ids=lambda e: e["rule"])
def test_each_line_counts_as_brute_force_with_highs(sudoku4, entry):
    _agree({"size": 4, "box": "2x2", "rules": [entry]}, sudoku4, 2, 2, engine="highs")


@settings(SETTINGS, max_examples=40)
@given(entry=line_entries(4, tuple(k for k in LINE_KINDS if k != "entropic")), seed=st.integers(0, 2 ** 16))
def test_violations_match_the_plain_meaning(sudoku4, entry, seed):
    """On every complete 4x4 Sudoku, ``violations`` is non-empty exactly where :func:`holds`
    fails, and names the rule; on a partial grid that some solution completes, it is empty."""
    try:
        puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": [entry]})
    except PuzzleError:
        return
    rule, board = puzzle.rules[0], puzzle.board
    kind, p = _plain(entry)
    rng = np.random.default_rng(seed)
    for g in sudoku4:
        broken = rule.violations(g.ravel(), board)
        ok = holds(kind, p, g, 2, 2)
        assert bool(broken) == (not ok), (g, broken)
        if broken:
            assert len(broken) == 1 and broken[0]["message"].startswith(rule.describe(board))
            assert set(broken[0]["cells"]) <= set(rule.cells().tolist())
        else:
            partial = np.where(rng.random(16) < 0.5, g.ravel(), 0)
            assert rule.violations(partial, board) == []


@pytest.mark.parametrize("entry", [
    {"rule": "entropic", "cells": ["r1c1", "r1c2", "r1c3", "r2c3"]},
    {"rule": "whisper", "cells": ["r1c1", "r1c2"]},
])
def test_a_broken_grid_is_named_by_verify(entry):
    """A 6x6 solution that breaks the line: verify fails and names the line and its cells."""
    rng = np.random.default_rng(5)
    kind, p = _plain(entry)
    for _ in range(200):
        g = solution_grid(2, 3, rng)
        if not holds(kind, p, g, 2, 3):
            break
    puzzle = parse_puzzle({"size": 6, "box": "2x3", "rules": [entry]})
    verdict = verify_grid(g, puzzle)
    assert not verdict.ok and puzzle.rules[0].describe(puzzle.board) in verdict.message
    found = grid_violations(g, puzzle)
    named = {(r + 1, c + 1) for r, c in p["cells"]}
    assert len(found) == 1 and found[0]["kind"] == "rule" and {tuple(c) for c in found[0]["cells"]} <= named


# ------------------------------------------------------------------------------------------------
# rows of each family, written from the rule's meaning
# ------------------------------------------------------------------------------------------------
N4 = {"size": 4, "box": "2x2"}


def model_of(*entries, base=N4):
    return build_model(parse_puzzle(dict(base, rules=list(entries))))


def rows_of(model, family: str) -> list[tuple[str, str, float, dict]]:
    """(label, sense, rhs, {(r, c, d): coef} 1-based) of R's rows of ``family``, in order."""
    R = model.R
    out = []
    for i in np.flatnonzero([label.split("_")[0] == family for label in R.labels]):
        row = R.matrix.getrow(int(i))
        r, c, d = model.convention.cell_digit(row.indices)
        terms = {(int(a) + 1, int(b) + 1, int(e) + 1): float(v) for a, b, e, v in zip(r, c, d, row.data)}
        out.append((str(R.labels[i]), str(R.sense[i]), float(R.rhs[i]), terms))
    return out


def value(cells_weights, n=4) -> dict:
    out: dict = {}
    for (r, c), weight in cells_weights:
        for d in range(1, n + 1):
            out[(r, c, d)] = out.get((r, c, d), 0.0) + weight * d
    return out


def test_arrow_rows_are_one_weighted_sum_each():
    m = model_of({"rule": "arrow", "cells": ["r1c1", "r2c2", "r3c2"]},
                 {"rule": "pillarrow", "cells": ["r4c1", "r4c2", "r3c3", "r2c4", "r1c4"]},
                 {"rule": "doublearrow", "cells": ["r1c2", "r2c3", "r3c4"]})
    assert rows_of(m, "arrow") == [("arrow_1", "E", 0.0, value([((1, 1), 1), ((2, 2), -1), ((3, 2), -1)]))]
    assert rows_of(m, "pillarrow") == [("pillarrow_1", "E", 0.0, value(
        [((4, 1), 10), ((4, 2), 1), ((3, 3), -1), ((2, 4), -1), ((1, 4), -1)]))]
    assert rows_of(m, "doublearrow") == [("doublearrow_1", "E", 0.0,
                                          value([((1, 2), 1), ((3, 4), 1), ((2, 3), -1)]))]


def test_whisper_rows_exclude_close_neighbours():
    m = model_of({"rule": "whisper", "cells": ["r1c1", "r2c2", "r3c1"], "diff": 2})
    rows = rows_of(m, "whisper")
    assert [label for label, *_ in rows] == [f"whisper_1_{i}_{d}" for i in (1, 2) for d in range(1, 5)]
    assert {(s, rhs) for _, s, rhs, _ in rows} == {("L", 1.0)}
    cells = [(1, 1), (2, 2), (3, 1)]
    for (label, _, _, terms) in rows:
        i, d = (int(t) for t in label.split("_")[2:])
        a, b = cells[i - 1], cells[i]
        assert terms == {(*a, d): 1.0, **{(*b, e): 1.0 for e in range(1, 5) if abs(e - d) < 2}}


def test_renban_rows_are_distinct_digits_and_a_span():
    m = model_of({"rule": "renban", "cells": ["r1c1", "r2c3", "r4c4"]})
    assert [t for *_, t in rows_of(m, "renban")] == [{(1, 1, d): 1.0, (2, 3, d): 1.0, (4, 4, d): 1.0}
                                                     for d in range(1, 5)]
    span = rows_of(m, "renbanspan")
    # 3 pairs; digit d at the first cell rules out the second's digits 3 or more away (d = 1, 4 only)
    assert [label for label, *_ in span] == [f"renbanspan_1_{p}_{d}" for p in (1, 2, 3) for d in (1, 4)]
    assert span[0][3] == {(1, 1, 1): 1.0, (2, 3, 4): 1.0}
    inside = model_of({"rule": "renban", "cells": ["r1c1", "r1c2", "r1c3"]})   # one row: no digit rows
    assert rows_of(inside, "renban") == [] and len(rows_of(inside, "renbanspan")) == 3 * 2


def test_palindrome_rows_equal_each_digit():
    m = model_of({"rule": "palindrome", "cells": ["r1c1", "r2c3", "r3c2", "r4c4", "r3c4"]})
    rows = rows_of(m, "palindrome")
    assert [label for label, *_ in rows] == [f"palindrome_1_{i}_{d}" for i in (1, 2) for d in range(1, 5)]
    assert rows[0][1:] == ("E", 0.0, {(1, 1, 1): 1.0, (3, 4, 1): -1.0})
    assert rows[5][3] == {(2, 3, 2): 1.0, (4, 4, 2): -1.0}


def test_between_rows_are_thresholds_against_both_ends():
    m = model_of({"rule": "between", "cells": ["r1c1", "r2c3", "r1c4"]})
    rows = rows_of(m, "between")
    assert len(rows) == 1 * 2 * 4 and {(s, rhs) for _, s, rhs, _ in rows} == {("L", 2.0)}
    # side 1, d = 2: [m <= 2] + [e1 >= 2] + [e2 >= 2]
    assert rows[1][0] == "between_1_1_1_2"
    assert rows[1][3] == {(2, 3, 1): 1.0, (2, 3, 2): 1.0, **{(1, 1, e): 1.0 for e in (2, 3, 4)},
                          **{(1, 4, e): 1.0 for e in (2, 3, 4)}}
    # side 2, d = 3: [m >= 3] + [e1 <= 3] + [e2 <= 3]
    assert rows[6][0] == "between_1_1_2_3"
    assert rows[6][3] == {(2, 3, 3): 1.0, (2, 3, 4): 1.0, **{(1, 1, e): 1.0 for e in (1, 2, 3)},
                          **{(1, 4, e): 1.0 for e in (1, 2, 3)}}


def test_lockout_rows_keep_the_ends_apart_and_the_middle_out():
    m = model_of({"rule": "lockout", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"], "diff": 2})
    ends = rows_of(m, "lockoutends")
    assert [label for label, *_ in ends] == [f"lockoutends_1_1_{d}" for d in range(1, 5)]
    assert ends[0][3] == {(1, 1, 1): 1.0, (4, 4, 1): 1.0, (4, 4, 2): 1.0}
    mids = rows_of(m, "lockout")
    assert len(mids) == 2 * 2 * 4 and {rhs for *_, rhs, _ in mids} == {2.0}
    # middle 1, side 1 (e1 low), d = 3: x[m, 3] + [e1 <= 3] + [e2 >= 3]
    assert mids[2][0] == "lockout_1_1_1_3"
    assert mids[2][3] == {(2, 3, 3): 1.0, **{(1, 1, e): 1.0 for e in (1, 2, 3)}, **{(4, 4, e): 1.0 for e in (3, 4)}}


def test_class_lines_hold_each_class_once_per_window():
    m = model_of({"rule": "modular", "cells": ["r1c1", "r2c2", "r3c3", "r4c4"]})
    rows = rows_of(m, "modular")
    assert [label for label, *_ in rows] == [f"modular_1_{w}_{k}" for w in (1, 2) for k in (1, 2, 3)]
    assert rows[0][3] == {(r, r, d): 1.0 for r in (1, 2, 3) for d in (1, 4)}       # digits = 1 mod 3
    assert rows[5][3] == {(r, r, 3): 1.0 for r in (2, 3, 4)}                        # = 0 mod 3
    six = model_of({"rule": "entropic", "cells": ["r1c1", "r1c2", "r1c3"]}, base={"size": 6, "box": "2x3"})
    assert [t for *_, t in rows_of(six, "entropic")] == [{(1, c, d): 1.0 for c in (1, 2, 3) for d in (2 * g - 1, 2 * g)}
                                                         for g in (1, 2, 3)]


def test_zipper_and_region_sum_rows_are_equal_sums():
    odd = model_of({"rule": "zipper", "cells": ["r1c1", "r2c2", "r3c3", "r4c4", "r4c3"]})
    assert [r[3] for r in rows_of(odd, "zipper")] == [value([((1, 1), 1), ((4, 3), 1), ((3, 3), -1)]),
                                                      value([((2, 2), 1), ((4, 4), 1), ((3, 3), -1)])]
    even = model_of({"rule": "zipper", "cells": ["r1c1", "r2c2", "r3c3", "r4c4"]})
    assert [r[3] for r in rows_of(even, "zipper")] == [value([((1, 1), 1), ((4, 4), 1), ((2, 2), -1), ((3, 3), -1)])]
    line = model_of({"rule": "regionsum", "cells": ["r1c1", "r2c2", "r2c3", "r1c3", "r3c4"]})
    # boxes: r1c1 r2c2 | r2c3 r1c3 | r3c4
    assert rows_of(line, "regionsum") == [
        ("regionsum_1_1", "E", 0.0, value([((1, 1), 1), ((2, 2), 1), ((2, 3), -1), ((1, 3), -1)])),
        ("regionsum_1_2", "E", 0.0, value([((2, 3), 1), ((1, 3), 1), ((3, 4), -1)]))]


def test_new_kinds_come_after_every_earlier_kind():
    """Appended to the registry: an earlier rule's rows stay first, whatever the document order."""
    m = model_of({"rule": "whisper", "cells": ["r1c1", "r1c2"]}, {"rule": "thermo", "cells": ["r3c1", "r3c2"]})
    assert [f for f, _, _ in m.R.families] == ["thermo", "whisper"]


# ------------------------------------------------------------------------------------------------
# refusals and round trips
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("entry, base, words", [
    ({"rule": "arrow", "cells": ["r1c1", "r1c2", "r2c1", "r2c2", "r3c1", "r3c2"]}, N4, "exceeds any circle digit"),
    ({"rule": "arrow", "cells": ["r1c1"]}, N4, "at least 2 cells"),
    ({"rule": "pillarrow", "cells": ["r1c1", "r3c3", "r2c2", "r4c4"]}, N4, "do not touch"),
    ({"rule": "pillarrow", "cells": ["r1c1", "r1c2", "r2c2"]}, N4, "less than any 2-digit pill"),
    ({"rule": "pillarrow", "cells": ["r1c1", "r1c2", "r2c2", "r3c3"], "pill": 4}, N4, "'pill' must be from 2 to 3"),
    ({"rule": "whisper", "cells": ["r1c1", "r1c2"], "diff": 4}, N4, "'diff' must be from 1 to 3"),
    ({"rule": "whisper", "cells": ["r1c1", "r1c2"], "dif": 2}, N4, "unknown key 'dif'"),
    ({"rule": "renban", "cells": ["r1c1", "r1c2", "r2c1", "r2c2", "r3c1"]}, N4, "fill at most 4"),
    ({"rule": "palindrome", "cells": ["r1c1", "r2c2", "r1c3"]}, N4, "share a unit"),
    ({"rule": "between", "cells": ["r1c1", "r9c9"]}, N4, "outside the 4x4 grid"),
    ({"rule": "lockout", "cells": ["r1c1", "r2c3", "r4c4"], "diff": 3}, N4, "leave no digit"),
    ({"rule": "entropic", "cells": ["r1c1", "r1c2", "r1c3"]}, N4, "three equal thirds"),
    ({"rule": "modular", "cells": ["r1c1", "r1c2"], "mod": 1}, N4, "'mod' must be from 2 to 4"),
    ({"rule": "zipper", "cells": ["r1c1", "r1c1", "r1c2"]}, N4, "listed twice"),
    ({"rule": "regionsum", "cells": ["r1c1", "r1c2"]}, {"size": 4, "box": "2x2", "variant": "latin"}, "no boxes"),
], ids=lambda v: v["rule"] if isinstance(v, dict) and "rule" in v else None)
def test_bad_entries_are_refused_in_one_line(entry, base, words):
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(dict(base, rules=[entry]))
    text = str(info.value)
    assert words in text and "\n" not in text and "rules[0]" in text


NINE = {"size": 9, "box": "3x3", "givens": "1" + "." * 80, "rules": [
    {"rule": "arrow", "cells": ["r2c2", "r2c3", "r2c4"]},
    {"rule": "pillarrow", "cells": ["r9c1", "r9c2", "r8c3", "r7c4", "r6c5"], "pill": 2},
    {"rule": "doublearrow", "cells": ["r5c1", "r5c2", "r5c3", "r5c4"]},
    {"rule": "whisper", "cells": ["r1c5", "r1c6", "r2c7"]},
    {"rule": "whisper", "cells": ["r3c5", "r3c6"], "diff": 3},
    {"rule": "renban", "cells": ["r4c6", "r5c7", "r6c8"]},
    {"rule": "palindrome", "cells": ["r6c6", "r7c7", "r8c9"]},
    {"rule": "between", "cells": ["r1c9", "r2c9", "r3c8"]},
    {"rule": "lockout", "cells": ["r4c1", "r4c2", "r4c3", "r3c3"]},
    {"rule": "entropic", "cells": ["r6c1", "r7c1", "r8c1", "r8c2"]},
    {"rule": "modular", "cells": ["r6c2", "r7c2", "r7c3"]},
    {"rule": "zipper", "cells": ["r1c1", "r1c2", "r1c3", "r1c4"]},
    {"rule": "regionsum", "cells": ["r5c5", "r5c6", "r4c7", "r4c8"]},
]}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_puzzle_with_every_line_round_trips(tmp_path, fmt):
    pytest.importorskip("pysat.pb")
    model = build_model(parse_puzzle(json.dumps(NINE)))
    assert {f for f, _, _ in model.R.families} == set(LINE_KINDS) | {"renbanspan", "lockoutends"}
    got = write_and_read(model, fmt, tmp_path)
    assert_same_model_data(got, expected(model, fmt))


def test_the_nine_solves_and_verifies():
    puzzle = parse_puzzle(json.dumps(NINE))
    result = sat.solve(build_model(puzzle))
    assert result.grid is not None
    assert verify_grid(result.grid, puzzle).ok
    g = np.asarray(result.grid).reshape(9, 9)
    for entry in NINE["rules"]:
        assert holds(*_plain(entry), g, 3, 3), entry


# ------------------------------------------------------------------------------------------------
# ISS constraint strings
# ------------------------------------------------------------------------------------------------
ISS_LINES = (".Arrow~R1C1~R1C2~R2C3.PillArrow~2~R9C2~R9C1~R8C3~R7C4.DoubleArrow~R5C1~R5C2~R5C3"
             ".Whisper~R1C5~R1C6.Whisper~3~R3C5~R3C6.Renban~R4C6~R5C7.Palindrome~R6C6~R7C7~R8C9"
             ".Between~R1C9~R2C9~R3C8.Lockout~4~R4C1~R4C2~R3C3.Entropic~R6C1~R7C1~R8C1"
             ".Modular~3~R6C2~R7C2~R7C3.Zipper~R1C1~R1C2~R1C3.RegionSumLine~R5C5~R5C6~R4C7")


def test_iss_lines_read_as_the_rules_and_write_back():
    doc = document_from_iss(ISS_LINES)
    kinds = [e["rule"] for e in doc["rules"]]
    assert kinds == ["arrow", "pillarrow", "doublearrow", "whisper", "whisper", "renban", "palindrome", "between",
                     "lockout", "entropic", "modular", "zipper", "regionsum"]
    by_kind = {e["rule"]: e for e in doc["rules"]}
    assert by_kind["pillarrow"]["cells"][:2] == ["r9c1", "r9c2"]          # the pill in reading order
    assert [e.get("diff") for e in doc["rules"] if e["rule"] == "whisper"] == [5, 3]   # ISS's default: 5
    assert by_kind["lockout"]["diff"] == 4 and by_kind["modular"]["mod"] == 3
    puzzle = parse_puzzle(doc)
    again = parse_puzzle(document_from_iss(iss_from_puzzle(puzzle)))
    assert [r.to_dict(again.board) for r in again.rules] == [r.to_dict(puzzle.board) for r in puzzle.rules]


@pytest.mark.parametrize("text, words", [
    (".PillArrow~2~R1C1~R2C3~R3C3~R4C4", "reading order"),
    (".PillArrow~4~R1C1~R1C2~R2C2", "pill size"),
    (".Lockout~R1C1~R2C2", "not a whole number"),
    (".Between~R1C1~R2C2", "at least 3"),
])
def test_bad_iss_lines_are_refused_in_one_line(text, words):
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(document_from_iss(text))
    assert words in str(info.value) and "\n" not in str(info.value)
