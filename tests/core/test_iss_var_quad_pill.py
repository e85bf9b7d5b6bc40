"""ISS's Quad and PillArrow over extra cells (ISS ``Var``): the square and the pill lie in a Var
group's layout (ISS's cell graph: rows of the declared width, a count in rows of the grid's columns).

Counted over a given 4x4 grid, so that the count is the extra cells' digits alone, by brute force
and by two engines; the counts match ISS's own (its solver run on these strings: 110, 544, 16,
16, 256). Read, written and read again, the document is the same.
"""
from __future__ import annotations

import itertools

import pytest

from pipeline import count
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle

GRID = ("1234", "3412", "2143", "4321")
GIVENS = "".join(f".~R{r + 1}C{c + 1}_{GRID[r][c]}" for r in range(4) for c in range(4))


def _quad(cells, values):
    """At least as many of each listed value in the cells as listed (ISS's RequiredValues)."""
    return lambda v: all(sum(v[c] == x for c in cells) >= values.count(x) for x in values)


def _pill(pill, line_sum):
    return lambda v: int("".join(str(v[c]) for c in pill)) == line_sum


CASES = [   # string body, extra cells, what the extra cells' digits must meet
    (".Var~L~~2x2.Quad~VL1~1~2", 4, _quad((0, 1, 2, 3), [1, 2])),
    (".Var~L~~6.Quad~VL1~4~4~2", 6, _quad((0, 1, 4, 5), [4, 4, 2])),   # a count: rows of the grid's 4
    (".Var~L~~2x2.PillArrow~2~VL1~VL2~R1C1~R1C2~R1C3~R1C4~R2C1", 4, _pill((0, 1), 13)),
    (".Var~L~~2x2.PillArrow~2~VL4~VL1~R1C1~R1C2~R1C3~R1C4~R2C1", 4, _pill((0, 3), 13)),   # read sorted
    (".Var~L~~6.PillArrow~2~VL6~VL2~R1C1~R1C2~R1C3~R1C4~R2C2", 6, _pill((1, 5), 14)),   # VL6 under VL2
]


@pytest.mark.parametrize("body, n_extra, meets", CASES)
def test_quad_and_pill_over_var_cells_count_as_iss(body, n_extra, meets):
    text = ".Shape~4x4" + body + GIVENS
    want = sum(meets(v) for v in itertools.product(range(1, 5), repeat=n_extra))
    assert want > 0
    # HiGHS counts by re-solving with each grid cut off: past a few hundred grids that is most of
    # a minute of the suite (544 for the count-only Quad), so it counts the smaller cases alone
    for solver in ("sat", "highs") if want <= 256 else ("sat",):
        assert count(text, limit=10 ** 4, solver=solver).count == want, solver
    doc = document_from_iss(text)
    assert document_from_iss(iss_from_puzzle(parse_puzzle(text))) == doc


@pytest.mark.parametrize("body, said", [
    (".Var~L~~3.Quad~VL1~1~2", "VL1 is the top-left cell of no 2x2 square of its Var group"),   # one row
    (".Var~L~~2x2.Quad~VL2~1~2", "VL2 is the top-left cell of no 2x2 square of its Var group"),
    (".Var~L~~2x2.Var~M~~2.PillArrow~2~VL2~VM1~R1C1", "pill cells must be adjacent and in reading order"),
    (".Var~L~~2x2.PillArrow~2~R4C4~VL1~R1C1", "pill cells must be adjacent and in reading order"),
    (".Var~L~~2x2.PillArrow~2~VL2~VL3~R1C1", "pill cells must be adjacent and in reading order"),
])
def test_quad_and_pill_iss_refuses_over_var_cells_are_refused(body, said):
    """ISS refuses these too ("Invalid 2x2 square", "Pill cells must be adjacent ...")."""
    with pytest.raises(PuzzleError, match=said):
        document_from_iss(".Shape~4x4" + body)


def test_indexing_over_a_var_cell_is_still_refused():
    """ISS's Indexing takes the control cell's row or column, which a Var cell has not (its
    builder gets NaN cells and ISS counts no solution): refused when the model is built."""
    with pytest.raises(PuzzleError, match="indexing cells are grid cells; L1 is an extra cell"):
        count(".Shape~4x4.Var~L~~2x2.Indexing~C~VL1", solver="sat")


TALL = ("1423", "2516", "3645", "4132", "5261", "6354")   # a 6x4 grid (6 rows of 4 cells, values 1..6)
TALL_GIVENS = "".join(f".~R{r + 1}C{c + 1}_{TALL[r][c]}" for r in range(6) for c in range(4))
ARROW = "~R1C1~R1C2~R1C3~R1C4~R2C1~R2C2~R2C3~R2C4"   # sums to 24 on TALL


@pytest.mark.parametrize("body, n_extra, given, meets", [
    # a count-only group of 8 lies in rows of the grid's 4 columns, not its 6 values: the square
    # at VL1 is VL1 VL2 VL5 VL6 (in rows of 6 it would be VL1 VL2 VL7 VL8: 1 2 5 5, no solution)
    (".Var~L~~8.Quad~VL1~1~2~3~4", 8, {0: 1, 1: 2, 6: 5, 7: 5}, _quad((0, 1, 4, 5), [1, 2, 3, 4])),
    # VL6 is under VL2 (in rows of 6 they are apart and the pill is refused); either order
    (".Var~L~~6.PillArrow~2~VL2~VL6" + ARROW, 6, {0: 1, 2: 1, 3: 1}, _pill((1, 5), 24)),
    (".Var~L~~6.PillArrow~2~VL6~VL2" + ARROW, 6, {0: 1, 2: 1, 3: 1}, _pill((1, 5), 24)),
])
def test_count_only_var_group_on_a_tall_grid_lies_in_rows_of_its_columns(body, n_extra, given, meets):
    """ISS lays a Var group declared by a count in rows of the grid's columns (its VarCellRegistry
    takes ``numCols``), which on a grid taller than wide is fewer than the values. Counts by brute
    force over that layout and by two engines; ISS's own solver counted these strings (plus the
    givens of the extra cells, ``.~VL1_1``...) 72, 6 and 6 on 2026-12-07."""
    givens = "".join(f".~VL{k + 1}_{v}" for k, v in given.items())
    text = ".Shape~6x4" + body + givens + TALL_GIVENS
    free = [k for k in range(n_extra) if k not in given]
    want = 0
    for values in itertools.product(range(1, 7), repeat=len(free)):
        v = dict(given) | dict(zip(free, values))
        want += meets([v[k] for k in range(n_extra)])
    assert want > 0
    for solver in ("sat", "highs"):
        assert count(text, limit=10 ** 4, solver=solver).count == want, solver
    doc = document_from_iss(text)
    assert document_from_iss(iss_from_puzzle(parse_puzzle(text))) == doc


def test_quad_over_doppelganger_box_cells_lies_in_rows_of_the_box_width():
    """ISS lays Doppelganger's DGB cells in rows of its default boxes' width (2 on a 4x4 grid),
    so DGB1 is the top-left cell of the square DGB1 DGB2 DGB3 DGB4 (in rows of 4 there is no
    square: refused). ISS's solver counted this string 48 on 2026-12-07; two engines agree on it."""
    text = ".Shape~4x4~0-4.Doppelganger.Quad~DGB1~1~2~3~4.~R1C1_0.~R1C2_1"
    doc = document_from_iss(text)
    quads = [r for r in doc["rules"] if set(r.get("cells", ())) == {"DGB1", "DGB2", "DGB3", "DGB4"}]
    assert len(quads) == 1
    counts = {solver: count(text, limit=10 ** 4, solver=solver).count for solver in ("sat", "highs")}
    assert counts == {"sat": 48, "highs": 48}
    assert document_from_iss(iss_from_puzzle(parse_puzzle(text))) == doc
