"""What a batch record of a rule puzzle costs outside the engine's search (issue 34): the steps
made quicker keep their answers. The givens of a document read as one compact line
(``document._plain_compact``) are the grid read_puzzle reads, and anything else still goes to
read_puzzle; ``first_duplicate``'s all-families check answers as the family-by-family one; what
is kept per shape (the kernel's unit masks, a puzzle's variant families) is never served to a
puzzle of another shape or other rules."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.batch.rules_shape import rule_shape_key, rules_text
from pipeline.core.document import _givens_grid, _plain_compact
from pipeline.core.errors import PuzzleError
from pipeline.core.parse import literal_text, read_puzzle
from pipeline.core.puzzle import Puzzle, parse_puzzle, with_other_clues
from pipeline.core.verify import _cell_codes, _repeats, first_duplicate
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules_rows import _unit_masks, unit_masks

SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def _read(givens: str, n: int, box) -> np.ndarray | str:
    """read_puzzle's grid of ``givens`` (as the document reader called it before), or its message."""
    try:
        return read_puzzle(literal_text(givens), box=box, size=n, where="puzzle: givens", size_name="'size'").grid
    except PuzzleError as e:
        return str(e)


def _fast(givens: str, n: int, box) -> np.ndarray | str:
    try:
        return _givens_grid(givens, n, box, "puzzle: givens")
    except PuzzleError as e:
        return str(e)


@pytest.mark.parametrize("givens, n, box, plain", [
    (SOLVED, 9, (3, 3), True),
    ("." * 81, 9, (3, 3), True),
    ("0" * 80 + "9", 9, (3, 3), True),
    ("1..." "..3." ".4.." "...2", 4, (2, 2), True),
    ("123456" * 6, 6, (2, 3), True),
    ("5" + "." * 15, 4, (2, 2), False),         # a digit past N: read_puzzle names it
    ("." * 80, 9, (3, 3), False),               # a cell short
    ("." * 80 + "a", 9, (3, 3), False),         # a letter: the general reader's alphabet
    ("." * 80 + " ", 9, (3, 3), False),
    ("." * 80 + "é", 9, (3, 3), False),
    ("." * 81, 9, None, False),                 # no box: read_puzzle draws or picks one
    ("." * 81, 9, (2, 3), False),               # a box that does not tile
    ("A" + "." * 99, 10, (2, 5), False),        # past 9 digits
])
def test_plain_givens_read_as_read_puzzle(givens, n, box, plain):
    assert _plain_compact(givens, n, box) is plain
    fast, general = _fast(givens, n, box), _read(givens, n, box)
    if isinstance(general, str):
        assert fast == general
    else:
        assert fast.dtype == general.dtype and np.array_equal(fast, general)


def _first_duplicate_family_by_family(grid, families, n):
    """The check as it was: each family in turn (the reference of the all-at-once pass)."""
    flat = np.asarray(grid).ravel()
    codes, bitwise = _cell_codes(flat, n)
    for family, units in families:
        broken = np.flatnonzero(_repeats(codes, units, bitwise))
        if broken.size:
            u = int(broken[0])
            values = flat[units[u]]
            kinds, counts = np.unique(values[values != 0], return_counts=True)
            digit = int(kinds[np.argmax(counts > 1)])
            return family, u, digit, units[u][values == digit]
    return None


@pytest.mark.parametrize("variant", ["classic", "x"])
def test_first_duplicate_as_family_by_family(variant):
    rng = np.random.default_rng(34)
    puzzle = Puzzle(np.zeros((9, 9), dtype=np.int64), 3, 3, variant)
    families = puzzle.unit_families()
    solved = np.array([int(c) for c in SOLVED])
    grids = [solved, np.zeros(81, dtype=np.int64)]
    for _ in range(300):   # a few cells changed or emptied: repeats in rows, boxes, diagonals, or none
        grid = solved.copy()
        cells = rng.choice(81, size=int(rng.integers(1, 4)), replace=False)
        grid[cells] = rng.integers(0, 10, size=cells.size)
        grids.append(grid)
    for grid in grids:
        got, want = first_duplicate(grid, families, 9), _first_duplicate_family_by_family(grid, families, 9)
        assert (got is None) == (want is None)
        if want is not None:
            assert got[:3] == want[:3] and np.array_equal(got[3], want[3])


def test_first_duplicate_of_a_rectangle():
    """Families of two widths (a 2x3 grid's rows and columns) are checked one by one, as ever."""
    puzzle = parse_puzzle({"size": "2x3", "givens": "1.." "..1", "variant": "latin"})
    families = puzzle.unit_families()
    assert len({units.shape[-1] for _, units in families}) > 1
    for grid in (np.array([1, 2, 3, 2, 3, 1]), np.array([1, 2, 3, 1, 3, 2]), np.array([1, 1, 3, 2, 3, 1])):
        got, want = first_duplicate(grid, families, 3), _first_duplicate_family_by_family(grid, families, 3)
        assert (got is None) == (want is None)
        if want is not None:
            assert got[:3] == want[:3] and np.array_equal(got[3], want[3])


def test_unit_masks_kept_per_shape():
    """Two shapes of one side (9x9 classic, 9x9 windoku: more units) and another side each get
    their own masks, asked in turns; a shape asked again gets the masks it was given."""
    tables = [shape_tables(parse_puzzle(document)) for document in (
        {"size": 9, "givens": "." * 81},
        {"size": 9, "givens": "." * 81, "rules": [{"rule": "windoku"}]},
        {"size": 4, "givens": "." * 16},
        {"size": 9, "givens": "." * 81, "variant": "x"})]
    assert len({id(t) for t in tables}) == len(tables)
    for _ in range(2):
        for t in tables:
            masks = unit_masks(t)
            assert np.array_equal(masks, _unit_masks(t))
            assert not masks.flags.writeable
            assert unit_masks(t) is masks
    assert not np.array_equal(unit_masks(tables[0]), unit_masks(tables[1]))
    assert not np.array_equal(unit_masks(tables[0]), unit_masks(tables[3]))


def test_rule_puzzle_keeps_the_variant_families_only():
    """A puzzle read with rules shares its bare puzzle's variant families; its rules' own units
    (a diagonal, windows) are in its unit families, never in those; one with other clues keeps both."""
    for rules, own in (([{"rule": "diagonal"}], "diag"), ([{"rule": "windoku"}], "window")):
        puzzle = parse_puzzle({"size": 9, "givens": "." * 81, "rules": rules})
        bare = Puzzle(np.zeros((9, 9), dtype=np.int64), 3, 3)
        base = [name for name, _ in puzzle._base_family_parts]
        assert base == [name for name, _ in bare._base_family_parts]
        assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(puzzle._base_family_parts, bare._base_family_parts))
        assert own not in base
        assert own in [name for name, _ in puzzle.unit_families()]
        other = with_other_clues(puzzle, np.array([int(c) for c in SOLVED[:9]] + [0] * 72))
        assert [name for name, _ in other.unit_families()] == [name for name, _ in puzzle.unit_families()]
        assert [name for name, _ in other._base_family_parts] == base
    jigsaw = parse_puzzle({"size": 4, "givens": "." * 16, "variant": "jigsaw", "regions": "0011" "0011" "2233" "2233"})
    other = parse_puzzle({"size": 4, "givens": "." * 16, "variant": "jigsaw", "regions": "0001" "0111" "2223" "2333"})
    assert not np.array_equal(dict(jigsaw._base_family_parts)["region"], dict(other._base_family_parts)["region"])


def test_rules_entries_made_once_say_the_same():
    """The worker makes a record's rule entries once for its group key and its rules column: the
    same key and text as each made alone."""
    puzzle = parse_puzzle({"size": 9, "givens": "." * 81, "rules": [
        {"rule": "thermo", "cells": ["r1c1", "r1c2", "r1c3"]}, {"rule": "antiknight"}]})
    entries = puzzle.rules_dicts()
    assert rule_shape_key(puzzle, entries) == rule_shape_key(puzzle)
    assert rules_text(puzzle, entries) == rules_text(puzzle)
    bare = parse_puzzle("." * 81)
    assert rules_text(bare, []) is None and rule_shape_key(bare, []) == rule_shape_key(bare)
