"""Outside clues on value sets and the hidden skyscraper (issue 33).

Each rule's rows are checked exact against a brute-force oracle written from ISS's definitions
(``js/sudoku_constraint.js`` descriptions and ``js/solver/sudoku_builder.js``/``handlers.js``,
read for their meaning; never from the project's rows): every assignment of the clue's line of
a 4x4 (every permutation of distinct values where the rule needs a unit), on the values ``1..4``,
``0..3`` (ISS's 0-indexed grids), ``[-2, 0, 1, 3]`` and the larger sets ``1..6`` / ``0..5``
(ISS ``4x4~6``), every clue value in a range wider than the rule takes (a clue the rule refuses
must have no line); random 6x6 lines by hypothesis; 4x4 puzzles counted by the engines against
all 288 grids; documents round trip.
"""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import parse_puzzle
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from tests.core.test_rule_skyscraper import _grids4, _line


# -- the oracle (ISS's meaning, over values) ---------------------------------------------------
def seen(line) -> int:
    """Skyscrapers seen: taller than every cell before, and above 0 (a 0 is no skyscraper)."""
    top, k = None, 0
    for v in line:
        if top is None or v > top:
            k += v > 0
            top = v
    return k


def hidden(line):
    """The first value not taller than every value before it (None: every one is seen)."""
    for i in range(1, len(line)):
        if line[i] <= max(line[:i]):
            return line[i]
    return None


def numbered(line):
    x = line[0]
    return line[x - 1] if 1 <= x <= len(line) else None


def xsum(line):
    x = line[0]
    return sum(line[:x]) if 1 <= x <= len(line) else None


def sandwich(line, values):
    i, j = sorted((line.index(min(values)), line.index(max(values))))
    return sum(line[i + 1:j])


ORACLE = {"skyscraper": lambda line, vals: seen(line), "hiddenskyscraper": lambda line, vals: hidden(line),
          "numberedroom": lambda line, vals: numbered(line), "xsum": lambda line, vals: xsum(line),
          "sandwich": sandwich}
KEY = {"skyscraper": "count", "hiddenskyscraper": "digit", "numberedroom": "digit", "xsum": "sum", "sandwich": "sum"}
UNIT = {"hiddenskyscraper", "sandwich"}        # the rule needs its line to be one unit
VALUE_SETS = [None, "0-3", [-2, 0, 1, 3], "1-6", "0-5"]


def _values(spec, n: int) -> list[int]:
    if spec is None:
        return list(range(1, n + 1))
    if isinstance(spec, str):
        lo, hi = (int(v) for v in spec.split("-"))
        return list(range(lo, hi + 1))
    return list(spec)


def _doc(n: int, rules: list[dict], values=None) -> str:
    doc: dict = {"size": n, "rules": rules}
    if values is not None:
        doc["values"] = values
    return json.dumps(doc)


def _lines(kind: str, n: int, vals: list[int]) -> np.ndarray:
    """Every assignment of a line, as digits (1-based positions in ``vals``)."""
    digits = range(1, len(vals) + 1)
    if kind in UNIT:
        return np.array(list(itertools.permutations(digits, n)))
    return np.array(list(itertools.product(digits, repeat=n)))


def feasible_lines(model, kind: str, cells: list[int], lines: np.ndarray) -> np.ndarray:
    """For each row of ``lines`` (digits of ``cells``): do some 0-1 auxiliary values satisfy the
    rule's rows (the units' rows of a larger value set left out: a line may repeat values)?"""
    conv, R = model.convention, model.R
    keep = np.char.startswith(R.labels.astype(str), kind)
    matrix = R.matrix.tocsr()[keep].tocsc()
    rhs, eq = R.rhs[keep], (R.sense == "E")[keep]
    cell_part, aux_part = matrix[:, :conv.n_vars], matrix[:, conv.n_vars:].toarray()
    r, c = np.divmod(np.asarray(cells), model.puzzle.cols)
    pos = conv.position(np.broadcast_to(r, lines.shape), np.broadcast_to(c, lines.shape), lines - 1)
    x = np.zeros((lines.shape[0], conv.n_vars))
    np.put_along_axis(x, pos, 1.0, axis=1)
    residual = rhs[None, :] - (cell_part @ x.T).T
    combos = np.array(list(itertools.product((0, 1), repeat=R.n_aux)), dtype=float).reshape(2 ** R.n_aux, R.n_aux)
    lhs = combos @ aux_part.T
    ok_eq = np.abs(lhs[None, :, eq] - residual[:, None, eq]) < 1e-9
    ok_le = lhs[None, :, ~eq] <= residual[:, None, ~eq] + 1e-9
    return (ok_eq.all(axis=2) & ok_le.all(axis=2)).any(axis=1)


def _check(kind: str, n: int, spec, clue: str, value: int, lines: np.ndarray) -> None:
    vals = _values(spec, n)
    as_values = np.array(vals)[lines - 1]
    want = np.array([ORACLE[kind](list(map(int, line)), vals) == value for line in as_values])
    try:
        puzzle = parse_puzzle(_doc(n, [{"rule": kind, "clue": clue, KEY[kind]: value}], spec))
    except PuzzleError:
        assert not want.any(), (kind, spec, value, "refused, yet a line agrees")
        return
    rule = puzzle.rules[0]
    got = feasible_lines(build_model(puzzle), kind, list(rule.cell_list), lines)
    bad = np.flatnonzero(got != want)
    assert not bad.size, (kind, spec, clue, value, as_values[bad[0]].tolist(), bool(want[bad[0]]))
    grid = np.zeros(puzzle.rows * puzzle.cols, dtype=np.int64)
    step = max(1, len(lines) // 60)
    for line, ok in zip(lines[::step], want[::step]):
        grid[list(rule.cell_list)] = line
        assert (not rule.violations(grid, puzzle.board)) == ok, (kind, spec, value, line)


@pytest.mark.parametrize("spec", VALUE_SETS, ids=str)
@pytest.mark.parametrize("kind", sorted(ORACLE))
def test_line_rows_are_exact_on_value_sets(kind, spec):
    n = 4
    vals = _values(spec, n)
    if kind == "sandwich" and len(vals) != n:
        with pytest.raises(PuzzleError, match="needs 4 values"):
            parse_puzzle(_doc(n, [{"rule": kind, "clue": "r0c1", "sum": 0}], spec))
        return
    lines = _lines(kind, n, vals)
    as_values = np.array(vals)[lines - 1]
    clues = sorted({ORACLE[kind](list(map(int, line)), vals) for line in as_values} - {None})
    extra = [min(clues) - 1, max(clues) + 1] + ([0] if kind != "hiddenskyscraper" else [])
    for clue in ("r0c2", "r5c1", "r3c0", "r2c5"):
        for value in sorted(set(clues) | set(extra)):
            _check(kind, n, spec, clue, value, lines)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_6x6_lines_agree_with_the_oracle(data):
    n = 6
    kind = data.draw(st.sampled_from(sorted(ORACLE)))
    spec = data.draw(st.sampled_from([None, "0-5", [-3, -1, 0, 2, 4, 7]] + ([] if kind == "sandwich" else ["1-8"])))
    vals = _values(spec, n)
    perm = data.draw(st.permutations(range(1, len(vals) + 1)))
    lines = np.array([perm[:n]] + [data.draw(st.permutations(range(1, len(vals) + 1)))[:n] for _ in range(30)])
    if kind not in UNIT:   # repeats too
        lines = np.concatenate([lines, np.array(data.draw(st.lists(
            st.lists(st.integers(1, len(vals)), min_size=n, max_size=n), min_size=1, max_size=20)))])
    value = ORACLE[kind](list(np.array(vals)[lines[0] - 1].tolist()), vals)
    if value is None:
        value = vals[1]
    clue = data.draw(st.sampled_from(["r0c3", "r7c2", "r4c0", "r1c7"]))
    _check(kind, n, spec, clue, int(value), lines)


FOUR = [
    [{"rule": "hiddenskyscraper", "clue": "r0c1", "digit": 2}],
    [{"rule": "hiddenskyscraper", "clue": "r5c3", "digit": 1}, {"rule": "hiddenskyscraper", "clue": "r2c0", "digit": 3}],
    [{"rule": "hiddenskyscraper", "clue": "r4c5", "digit": 2}, {"rule": "skyscraper", "clue": "r0c4", "count": 2}],
]


def _holds(g: np.ndarray, rules: list[dict], vals: list[int]) -> bool:
    return all(ORACLE[r["rule"]]([vals[d - 1] for d in _line(g, r["clue"])], vals) == r[KEY[r["rule"]]]
               for r in rules)


@pytest.mark.parametrize("rules", FOUR)
@pytest.mark.parametrize("spec", [None, "0-3"], ids=str)
def test_4x4_counts_match_brute_force(rules, spec):
    from pipeline.solvers.base import get_solver

    vals = _values(spec, 4)
    rules = [dict(r, digit=vals[r["digit"] - 1]) if r["rule"] == "hiddenskyscraper" else r for r in rules]
    want = sum(_holds(g, rules, vals) for g in _grids4())
    assert 0 < want < 288
    model = build_model(parse_puzzle(_doc(4, rules, spec)))
    for name in ("highs", "sat"):
        assert get_solver(name).count(model, 300).count == want, name


def test_hidden_skyscraper_document_and_refusals():
    doc = _doc(6, [{"rule": "hiddenskyscraper", "clue": "r7c2", "digit": 0}], "0-5")
    puzzle = parse_puzzle(doc)
    again = parse_puzzle(json.dumps(puzzle.to_document()))
    assert [r.to_dict(again.board) for r in again.rules] == [{"rule": "hiddenskyscraper", "clue": "r7c2", "digit": 0}]
    assert "hidden skyscraper clue 0" in puzzle.rules[0].describe(puzzle.board)
    assert puzzle.rules[0].glyphs(puzzle.board)[0].kind == "outside"
    with pytest.raises(PuzzleError, match="from 1 to 6, found 0"):
        parse_puzzle(_doc(6, [{"rule": "hiddenskyscraper", "clue": "r7c2", "digit": 0}]))
    with pytest.raises(PuzzleError, match="digit"):
        parse_puzzle(_doc(6, [{"rule": "hiddenskyscraper", "clue": "r7c2", "count": 2}]))
    with pytest.raises(PuzzleError, match="not one of the values"):
        parse_puzzle(_doc(4, [{"rule": "numberedroom", "clue": "r0c2", "digit": 2}], [-2, 0, 1, 3]))


@pytest.mark.parametrize("kind", ["xsum", "numberedroom", "skyscraper"])
def test_a_rectangles_short_lines_rows_are_exact(kind):
    """On a 4x6 grid a column has 4 cells and the digits go to 6: an X-sum whose first digit was 5
    or 6 summed the 4 cells there are and met its clue (every engine counted a puzzle ISS and
    verify find no solution to); a first digit past the line names no cell."""
    vals = list(range(1, 7))
    lines = np.array(list(itertools.product(range(1, 7), repeat=4)))   # a column's cells, any digits
    for clue in ("r0c1", "r5c4"):
        found = sorted({v for line in lines.tolist() if (v := ORACLE[kind](line, vals)) is not None})
        for value in found + [max(found) + 1]:
            try:
                puzzle = parse_puzzle({"size": "4x6", "box": "2x3", "rules": [{"rule": kind, "clue": clue,
                                                                               KEY[kind]: value}]})
            except PuzzleError:
                continue   # a value outside the rule's range: no line meets it
            rule = puzzle.rules[0]
            ordered = lines if rule.cell_list[0] < rule.cell_list[-1] else lines[:, ::-1]   # from the clue
            want = np.array([ORACLE[kind](line, vals) == value for line in ordered.tolist()])
            got = feasible_lines(build_model(puzzle), kind, sorted(rule.cell_list), lines)
            bad = np.flatnonzero(got != want)
            assert not bad.size, (kind, clue, value, ordered[bad[0]].tolist(), bool(want[bad[0]]))
