"""Outside clues and counting circles (issue 33): skyscraper and counting circles (auxiliary
columns), sandwich, X-sum and numbered room (big-M and plain rows over ``x``).

Each rule's rows are checked exact against a brute-force oracle written from ISS's definitions
(never from the rows): every digit assignment of the clue's line (4x4: all ``4^4``, 6x6: every
permutation), every clue value, the auxiliary columns enumerated; then 4x4 puzzles counted by
the engines against all 288 grids, and a 9x9 solved and judged.
"""
from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest

from oracles import every_4x4_sudoku

from pipeline import parse_puzzle
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError


# -- the oracle (ISS's definitions) ------------------------------------------------------------
def seen(line) -> int:
    top, k = 0, 0
    for v in line:
        if v > top:
            k, top = k + 1, v
    return k


def sandwich(line, n) -> int | None:
    line = list(line)
    if line.count(1) != 1 or line.count(n) != 1:
        return None
    i, j = sorted((line.index(1), line.index(n)))
    return sum(line[i + 1:j])


def xsum(line) -> int:
    return sum(line[:line[0]])


def numbered(line) -> int:
    return line[line[0] - 1]


def counting(values) -> bool:
    return all(k == d for d, k in Counter(values).items())


ORACLE = {"skyscraper": lambda line, n, v: seen(line) == v,
          "sandwich": lambda line, n, v: sandwich(line, n) == v,
          "xsum": lambda line, n, v: xsum(line) == v,
          "numberedroom": lambda line, n, v: numbered(line) == v}
KEY = {"skyscraper": "count", "sandwich": "sum", "xsum": "sum", "numberedroom": "digit"}


def values_of(kind: str, n: int) -> range:
    return {"skyscraper": range(1, n + 1), "sandwich": range(0, (n - 2) * (n + 1) // 2 + 1),
            "xsum": range(1, n * n + 1), "numberedroom": range(1, n + 1)}[kind]


# -- feasibility of the rows for one assignment of the line, the auxiliary columns enumerated --
def feasible_lines(model, cells: list[int], lines: np.ndarray) -> np.ndarray:
    """For each row of ``lines`` (digits of ``cells``): do some 0-1 auxiliary values satisfy R?"""
    conv, R = model.convention, model.R
    n_vars = conv.n_vars
    matrix = R.matrix.tocsc()
    cell_part, aux_part = matrix[:, :n_vars], matrix[:, n_vars:].toarray()
    r, c = np.divmod(np.asarray(cells), model.puzzle.cols)
    pos = conv.position(np.broadcast_to(r, lines.shape), np.broadcast_to(c, lines.shape), lines - 1)
    x = np.zeros((lines.shape[0], n_vars))
    np.put_along_axis(x, pos, 1.0, axis=1)
    residual = R.rhs[None, :] - (cell_part @ x.T).T                   # (L, rows)
    combos = np.array(list(itertools.product((0, 1), repeat=R.n_aux)), dtype=float).reshape(2 ** R.n_aux, R.n_aux)
    lhs = combos @ aux_part.T                                          # (K, rows)
    eq = R.sense == "E"
    ok_eq = np.abs(lhs[None, :, eq] - residual[:, None, eq]) < 1e-9
    ok_le = lhs[None, :, ~eq] <= residual[:, None, ~eq] + 1e-9
    return (ok_eq.all(axis=2) & ok_le.all(axis=2)).any(axis=1)


def _doc(n: int, rules: list[dict], givens: str | None = None) -> str:
    doc: dict = {"size": n, "rules": rules}
    if givens is not None:
        doc["givens"] = givens
    return json.dumps(doc)


@pytest.mark.parametrize("kind", sorted(ORACLE))
@pytest.mark.parametrize("n", [4, 6])
def test_line_rows_are_exact(kind, n):
    """The rows admit an assignment of the line exactly when the oracle does, for every value."""
    if n == 4 and kind != "sandwich":   # every assignment, repeats included (the rows need no unit)
        lines = np.array(list(itertools.product(range(1, n + 1), repeat=n)))
    else:                               # a unit's permutations (sandwich needs its 1 and N once)
        lines = np.array(list(itertools.permutations(range(1, n + 1))))
    for clue in ("r0c2", f"r{n + 1}c1", "r3c0", f"r2c{n + 1}"):
        for value in values_of(kind, n):
            puzzle = parse_puzzle(_doc(n, [{"rule": kind, "clue": clue, KEY[kind]: value}]))
            rule = puzzle.rules[0]
            model = build_model(puzzle)
            got = feasible_lines(model, list(rule.cell_list), lines)
            want = np.array([ORACLE[kind](list(line), n, value) for line in lines])
            assert np.array_equal(got, want), (kind, clue, value, lines[np.flatnonzero(got != want)[0]])
            # violations agree with the oracle on full lines
            grid = np.zeros(puzzle.rows * puzzle.cols, dtype=np.int64)
            for line, ok in zip(lines[:: max(1, len(lines) // 40)], want[:: max(1, len(lines) // 40)]):
                grid[list(rule.cell_list)] = line
                assert (not rule.violations(grid, puzzle.board)) == ok


def test_counting_circles_rows_are_exact():
    n = 4
    cells = ["r1c1", "r2c3", "r3c2", "r4c4"]
    puzzle = parse_puzzle(_doc(n, [{"rule": "countingcircles", "cells": cells}]))
    rule = puzzle.rules[0]
    model = build_model(puzzle)
    assert model.n_aux == n and model.aux_names[0] == "aux_countingcircles_1_1"
    lines = np.array(list(itertools.product(range(1, n + 1), repeat=len(cells))))
    got = feasible_lines(model, list(rule.cell_list), lines)
    want = np.array([counting(list(line)) for line in lines])
    assert np.array_equal(got, want)
    grid = np.zeros(n * n, dtype=np.int64)
    for line, ok in zip(lines, want):
        grid[list(rule.cell_list)] = line
        assert (not rule.violations(grid, puzzle.board)) == ok


def _grids4() -> list[np.ndarray]:
    return every_4x4_sudoku()


def _line(g: np.ndarray, clue: str) -> list[int]:
    r, c = (int(v) for v in clue[1:].split("c"))
    n = g.shape[0]
    if r == 0:
        return list(g[:, c - 1])
    if r == n + 1:
        return list(g[::-1, c - 1])
    if c == 0:
        return list(g[r - 1, :])
    return list(g[r - 1, ::-1])


FOUR = [
    [{"rule": "skyscraper", "clue": "r0c1", "count": 3}, {"rule": "sandwich", "clue": "r2c0", "sum": 5}],
    [{"rule": "skyscraper", "clue": "r3c5", "count": 2}, {"rule": "xsum", "clue": "r0c4", "sum": 6},
     {"rule": "countingcircles", "cells": ["r1c1", "r2c2", "r4c4"]}],
    [{"rule": "numberedroom", "clue": "r5c2", "digit": 3}, {"rule": "skyscraper", "clue": "r1c0", "count": 1},
     {"rule": "countingcircles", "cells": ["r3c3", "r4c1"]}],
]


def _oracle_ok(g: np.ndarray, rules: list[dict]) -> bool:
    n = g.shape[0]
    for rule in rules:
        if rule["rule"] == "countingcircles":
            vals = [g[int(c[1:].split("c")[0]) - 1, int(c.split("c")[1]) - 1] for c in rule["cells"]]
            if not counting(vals):
                return False
        elif not ORACLE[rule["rule"]](_line(g, rule["clue"]), n, rule[KEY[rule["rule"]]]):
            return False
    return True


@pytest.mark.parametrize("rules", FOUR)
def test_4x4_counts_match_brute_force(rules):
    from pipeline.solvers.base import get_solver

    want = sum(_oracle_ok(g, rules) for g in _grids4())
    model = build_model(parse_puzzle(_doc(4, rules)))
    for name in ("highs", "sat"):
        result = get_solver(name).count(model, 300)
        assert result.count == want, name


def _solution9() -> np.ndarray:
    base = np.array([[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)])
    rng = np.random.default_rng(7)
    digits = rng.permutation(9) + 1
    return digits[base - 1]


def nine_by_nine() -> tuple[str, np.ndarray]:
    """A 9x9 with skyscraper, sandwich and X-sum clues read off a known grid, and a few givens."""
    g = _solution9()
    rules = []
    for clue in ["r0c2", "r10c5", "r4c0", "r7c10"]:
        rules.append({"rule": "skyscraper", "clue": clue, "count": int(seen(_line(g, clue)))})
    for clue in ["r0c7", "r2c0", "r9c0"]:
        rules.append({"rule": "sandwich", "clue": clue, "sum": int(sandwich(_line(g, clue), 9))})
    for clue in ["r0c9", "r6c10"]:
        rules.append({"rule": "xsum", "clue": clue, "sum": int(xsum(_line(g, clue)))})
    rules.append({"rule": "numberedroom", "clue": "r10c1", "digit": int(numbered(_line(g, "r10c1")))})
    givens = np.where(np.random.default_rng(3).random((9, 9)) < 0.3, g, 0)
    return _doc(9, rules, "".join(str(v) if v else "." for v in givens.ravel())), g


def test_9x9_solves_to_a_grid_the_oracle_accepts():
    from pipeline.core.verify import verify_grid
    from pipeline.solvers.base import get_solver

    text, _ = nine_by_nine()
    rules = json.loads(text)["rules"]
    puzzle = parse_puzzle(text)
    model = build_model(puzzle)
    assert model.n_aux == 4 * 8
    grids = {}
    names = ["highs", "sat"] + (["cpsat"] if get_solver("cpsat", check_available=False).available() is None else [])
    for name in names:
        result = get_solver(name).solve(model)
        assert result.status == "optimal", name
        assert _oracle_ok(result.grid, rules)
        assert verify_grid(result.grid, puzzle)
        grids[name] = result.grid
    assert all(g.shape == (9, 9) for g in grids.values())


def test_outside_clues_refuse_bad_places():
    for clue in ("r1c1", "r0c0", "r11c3", "x"):
        with pytest.raises(PuzzleError):
            parse_puzzle(_doc(9, [{"rule": "skyscraper", "clue": clue, "count": 3}]))
    with pytest.raises(PuzzleError):
        parse_puzzle(_doc(9, [{"rule": "skyscraper", "clue": "r0c3", "count": 10}]))
    with pytest.raises(PuzzleError):
        parse_puzzle(_doc(9, [{"rule": "sandwich", "clue": "r0c3", "sum": 36}]))


def test_document_round_trip_and_glyphs():
    text, _ = nine_by_nine()
    puzzle = parse_puzzle(text)
    again = parse_puzzle(json.dumps(puzzle.to_document()))
    assert [r.to_dict(puzzle.board) for r in again.rules] == [r.to_dict(puzzle.board) for r in puzzle.rules]
    glyphs = [g for r in puzzle.rules for g in r.glyphs(puzzle.board)]
    assert all(g.kind == "outside" for g in glyphs) and glyphs[0].step == (1, 0)


# -- rectangular grids: a line of fewer cells than values (an outside check's IndexError) ---------
def _rectangles(rows: int, cols: int) -> list[np.ndarray]:
    """Every ``rows x cols`` grid (rows < cols) whose rows hold 1..cols and columns no repeat."""
    perms = list(itertools.permutations(range(1, cols + 1)))
    out = []
    for choice in itertools.product(perms, repeat=rows):
        g = np.array(choice)
        if all(len(set(g[:, c])) == rows for c in range(cols)):
            out.append(g)
    return out


def _numbered_room_holds(g: np.ndarray, clue: str, digit: int) -> bool:
    r, c = (int(part) for part in clue[1:].split("c"))
    line = g[:, c - 1] if r == 0 else g[r - 1, :]
    x = line[0]
    return x <= line.size and line[x - 1] == digit     # X past the line's end names no cell


@pytest.mark.parametrize("clue", ["r0c2", "r1c0"])       # a column of 3 cells, a row of 4
def test_numbered_room_on_a_rectangular_grid_matches_brute_force(clue):
    from pipeline.solvers.base import get_solver

    grids = _rectangles(3, 4)
    for digit in range(1, 5):
        doc = json.dumps({"size": "3x4", "variant": "latin", "rules": [{"rule": "numberedroom", "clue": clue, "digit": digit}]})
        puzzle = parse_puzzle(doc)
        want = sum(_numbered_room_holds(g, clue, digit) for g in grids)
        assert get_solver("sat").count(build_model(puzzle), 10_000).count == want, (clue, digit)
        for g in grids[::37]:
            broken = bool(puzzle.rules[0].violations((g.ravel()).astype(np.int64), puzzle.board))
            assert broken == (not _numbered_room_holds(g, clue, digit))


def test_a_sandwich_on_a_line_shorter_than_the_values_is_refused():
    with pytest.raises(PuzzleError, match=r"the line from r0c2 has 3 cells, not one for each of the 4 values: "
                                          r"its 1 and 4 need not both be there"):
        parse_puzzle(json.dumps({"size": "3x4", "variant": "latin", "rules": [{"rule": "sandwich", "clue": "r0c2", "sum": 2}]}))
    # a row holds every value: taken
    assert parse_puzzle(json.dumps({"size": "3x4", "variant": "latin", "rules": [{"rule": "sandwich", "clue": "r1c0", "sum": 2}]}))
