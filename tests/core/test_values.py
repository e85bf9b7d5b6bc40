"""Value sets other than 1..N (issue 33): a 4x4 with the values 0..3 counted against brute force,
rule by rule; a 0..8 killer solved and verified; documents, manifests and formats in values.

The brute force here is written from the rules' plain meaning over the values 0..3 (never from
the model's rows): every 4x4 Sudoku grid (288), its digits 1..4 read as the values 0..3.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from pipeline import api
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.verify import verify_grid


def _latin_sudoku_4x4() -> list[np.ndarray]:
    perms = [np.array(p) for p in itertools.permutations(range(4))]
    out = []
    for rows in itertools.product(perms, repeat=4):
        g = np.stack(rows)
        if all(len(set(g[:, j])) == 4 for j in range(4)) and \
                all(len(set(g[r:r + 2, c:c + 2].ravel())) == 4 for r in (0, 2) for c in (0, 2)):
            out.append(g)
    return out


GRIDS = _latin_sudoku_4x4()   # values 0..3


def _v(g, cell: str) -> int:
    r, c = cell[1:].lower().split("c")
    return int(g[int(r) - 1, int(c) - 1])


def _cells(g, cells):
    return [_v(g, c) for c in cells]


def _ortho(r, c):
    return [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0)) if r + dr < 4 and c + dc < 4]


# (rule entry, plain predicate over a value grid)
CASES = {
    "cage": ({"rule": "cage", "cells": ["r1c1", "r2c2", "r3c3"], "sum": 3},
             lambda g: len(set(_cells(g, ["r1c1", "r2c2", "r3c3"]))) == 3 and sum(_cells(g, ["r1c1", "r2c2", "r3c3"])) == 3),
    "thermo": ({"rule": "thermo", "cells": ["r1c1", "r2c2", "r3c2"]},
               lambda g: _v(g, "r1c1") < _v(g, "r2c2") < _v(g, "r3c2")),
    "greater": ({"rule": "greater", "cells": ["r2c2", "r2c3"]}, lambda g: _v(g, "r2c2") > _v(g, "r2c3")),
    "kropki white": ({"rule": "kropki", "color": "white", "cells": ["r1c1", "r1c2"]},
                     lambda g: abs(_v(g, "r1c1") - _v(g, "r1c2")) == 1),
    "kropki black": ({"rule": "kropki", "color": "black", "cells": ["r1c2", "r1c3"]},
                     lambda g: _v(g, "r1c2") == 2 * _v(g, "r1c3") or _v(g, "r1c3") == 2 * _v(g, "r1c2")),
    "even": ({"rule": "even", "cells": ["r1c1", "r4c4"]}, lambda g: _v(g, "r1c1") % 2 == 0 and _v(g, "r4c4") % 2 == 0),
    "odd": ({"rule": "odd", "cells": ["r2c3"]}, lambda g: _v(g, "r2c3") % 2 == 1),
    "pencilmarks": ({"rule": "pencilmarks", "cells": ["r1c1", "r3c2"], "digits": [0, 3]},
                    lambda g: _v(g, "r1c1") in (0, 3) and _v(g, "r3c2") in (0, 3)),
    # the value set 0, 2, 3, 5: 2 and 3 are its one consecutive pair (none on 0..3 keeps these rules)
    "nonconsecutive": ({"rule": "nonconsecutive"},
                       lambda g: all(abs(int(g[r, c]) - int(g[a, b])) != 1 for r in range(4) for c in range(4)
                                     for a, b in _ortho(r, c)), [0, 2, 3, 5]),
    "arrow": ({"rule": "arrow", "cells": ["r1c1", "r1c2", "r2c1"]},
              lambda g: _v(g, "r1c1") == _v(g, "r1c2") + _v(g, "r2c1")),
    "pillarrow": ({"rule": "pillarrow", "cells": ["r1c1", "r1c2", "r2c3", "r3c4", "r4c1"]},
                  lambda g: 10 * _v(g, "r1c1") + _v(g, "r1c2") == sum(_cells(g, ["r2c3", "r3c4", "r4c1"]))),
    "doublearrow": ({"rule": "doublearrow", "cells": ["r1c1", "r2c2", "r3c3"]},
                    lambda g: _v(g, "r1c1") + _v(g, "r3c3") == _v(g, "r2c2")),
    "whisper": ({"rule": "whisper", "cells": ["r1c1", "r2c2", "r3c1"]},     # default diff (4 + 1) // 2 = 2
                lambda g: abs(_v(g, "r1c1") - _v(g, "r2c2")) >= 2 and abs(_v(g, "r2c2") - _v(g, "r3c1")) >= 2),
    "renban": ({"rule": "renban", "cells": ["r1c1", "r2c3"]}, lambda g: abs(_v(g, "r1c1") - _v(g, "r2c3")) == 1),
    "between": ({"rule": "between", "cells": ["r1c1", "r2c2", "r3c3"]},
                lambda g: min(_v(g, "r1c1"), _v(g, "r3c3")) < _v(g, "r2c2") < max(_v(g, "r1c1"), _v(g, "r3c3"))),
    "lockout": ({"rule": "lockout", "cells": ["r1c1", "r2c3", "r4c4"], "diff": 2},
                lambda g: abs(_v(g, "r1c1") - _v(g, "r4c4")) >= 2 and all(
                    not (min(_v(g, "r1c1"), _v(g, "r4c4")) <= x <= max(_v(g, "r1c1"), _v(g, "r4c4")))
                    for x in _cells(g, ["r2c3"]))),
    "modular": ({"rule": "modular", "cells": ["r1c1", "r2c2", "r3c3", "r4c4"], "mod": 2},
                lambda g: all(_v(g, a) % 2 != _v(g, b) % 2 for a, b in (("r1c1", "r2c2"), ("r2c2", "r3c3"),
                                                                          ("r3c3", "r4c4")))),
    "zipper": ({"rule": "zipper", "cells": ["r1c1", "r1c2", "r2c3", "r2c4", "r3c4"]},
               lambda g: _v(g, "r1c1") + _v(g, "r3c4") == _v(g, "r2c3") and _v(g, "r1c2") + _v(g, "r2c4") == _v(g, "r2c3")),
    "regionsum": ({"rule": "regionsum", "cells": ["r1c1", "r2c2", "r2c3"]},
                  lambda g: _v(g, "r1c1") + _v(g, "r2c2") == _v(g, "r2c3")),
    "littlekiller": ({"rule": "littlekiller", "sum": 4, "cells": ["r1c2", "r2c3", "r3c4"]},
                     lambda g: sum(_cells(g, ["r1c2", "r2c3", "r3c4"])) == 4),
    "xv": ({"rule": "xv", "letter": "v", "cells": ["r3c1", "r3c2"]}, lambda g: _v(g, "r3c1") + _v(g, "r3c2") == 5),
    "strictkropki": ({"rule": "strictkropki"},
                     lambda g: all(not (abs(x - y) == 1 or x == 2 * y or y == 2 * x)
                                   for r in range(4) for c in range(4) for a, b in _ortho(r, c)
                                   for x, y in [(int(g[r, c]), int(g[a, b]))]), [0, 2, 3, 5]),
    "quadruple": ({"rule": "quadruple", "cells": ["r2c2", "r2c3", "r3c2", "r3c3"], "digits": [0, 3]},
                  lambda g: {0, 3} <= set(_cells(g, ["r2c2", "r2c3", "r3c2", "r3c3"]))),
    "sum": ({"rule": "sum", "sum": 2, "cells": ["r1c1", "r2c3", "r4c2"], "weights": [2, -1, 1]},
            lambda g: 2 * _v(g, "r1c1") - _v(g, "r2c3") + _v(g, "r4c2") == 2),
    "pair": ({"rule": "pair", "cells": ["r1c1", "r2c3"], "allowed": [[0, 1], [3, 0], [2, 2]]},
             lambda g: (_v(g, "r1c1"), _v(g, "r2c3")) in {(0, 1), (3, 0), (2, 2)}),
}


def _doc(entry: dict, givens: str = "", values: "str | list[int]" = "0-3") -> dict:
    return {"size": 4, "values": values, "givens": givens, "rules": [entry]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_rule_on_values_0_to_3_counts_as_brute_force(name):
    entry, plain, *values = CASES[name]
    table = np.array(values[0] if values else [0, 1, 2, 3])
    puzzle = parse_puzzle(_doc(entry, values=table.tolist()))
    want = [g for g in GRIDS if plain(table[g])]
    assert 0 < len(want) < len(GRIDS), name   # the case constrains, and can be met
    got = api.count(puzzle, limit=1000, solver="sat")
    assert (got.count, got.status) == (len(want), "complete"), name
    # the rule's own check of a full grid agrees with the plain meaning on every grid
    for g in GRIDS:
        assert bool(verify_grid(g + 1, puzzle)) == plain(table[g]), (name, g.tolist())


def test_values_0_to_3_without_rules_count_288_and_the_givens_are_values():
    assert len(GRIDS) == 288
    assert api.count(parse_puzzle({"size": 4, "values": "0-3"}), limit=1000, solver="sat").count == 288
    p = parse_puzzle({"size": 4, "values": "0-3", "givens": "0..." + "." * 11 + "0"})
    assert p.n_clues == 2 and p.grid[0, 0] == 1 and p.grid[3, 3] == 1   # the value 0 is digit 1
    want = sum(1 for g in GRIDS if g[0, 0] == 0 and g[3, 3] == 0)
    assert api.count(p, limit=1000, solver="sat").count == want
    # the same givens in every form of the document
    for givens in (["r1c1=0", "r4c4=0"], [[0, None, None, None], [None] * 4, [None] * 4, [None, None, None, 0]],
                   ["0 . . .", ". . . .", ". . . .", ". . . 0"]):
        assert parse_puzzle({"size": 4, "values": "0-3", "givens": givens}) == p


@pytest.mark.parametrize("solver", ["sat", "highs", "cpsat", "dfsrules"])
def test_engines_agree_on_a_0_to_3_killer(solver):
    entry, plain = CASES["cage"]
    puzzle = parse_puzzle(_doc(entry, "...." "...." "..1." "...."))
    want = sum(1 for g in GRIDS if plain(g) and g[2, 2] == 1)
    got = api.count(puzzle, limit=1000, solver=solver)
    assert got.count == want


def test_a_0_to_8_killer_is_solved_and_verified():
    # a classic killer shifted to 0..8: every cage sum less its size
    solution = np.array([[(3 * (r % 3) + r // 3 + c) % 9 for c in range(9)] for r in range(9)])   # values 0..8
    cages, seen = [], np.zeros((9, 9), bool)
    for r in range(9):
        for c in range(0, 9, 3):
            cells = [(r, c), (r, c + 1)] if c < 6 else [(r, c), (r, c + 1), (r, c + 2)]
            cages.append({"rule": "cage", "cells": [f"r{a + 1}c{b + 1}" for a, b in cells],
                          "sum": int(sum(solution[a, b] for a, b in cells))})
            for a, b in cells:
                seen[a, b] = True
    givens = [f"r{r + 1}c{c + 1}={solution[r, c]}" for r, c in zip(*np.nonzero(~seen)) if (r + c) % 2 == 0]
    puzzle = parse_puzzle({"size": 9, "values": "0-8", "givens": givens, "rules": cages})
    result = api.solve(puzzle, solver="sat", unique=False)
    assert verify_grid(result.grid, puzzle)
    assert (puzzle.shown(result.grid) >= 0).all() and puzzle.shown(result.grid).max() == 8
    assert all(sum(int(puzzle.shown(result.grid)[int(x[1:].split("c")[0]) - 1, int(x.split("c")[1]) - 1])
                   for x in cage["cells"]) == cage["sum"] for cage in cages)


def test_a_value_set_round_trips_through_the_document_and_the_manifest():
    p = parse_puzzle(_doc(CASES["cage"][0], "0..." + "." * 12))
    doc = p.to_document()
    assert doc["values"] == "0-3" and doc["givens"].startswith("0...")
    assert parse_puzzle(doc) == p
    assert Puzzle.from_dict(p.to_dict()) == p
    assert parse_puzzle({"size": 4, "values": [1, 2, 3, 4]}) == parse_puzzle({"size": 4})   # the default is no set
    assert parse_puzzle({"size": 4, "values": "1-4"}).to_document() == parse_puzzle({"size": 4}).to_document()


@pytest.mark.parametrize("bad, words", [
    ({"values": "3-0"}, "backwards"),
    ({"values": [0, 2, 1, 3]}, "ascend"),
    ({"values": "0-2"}, "at least 4"),
    ({"values": "x"}, "not a range"),
    ({"values": "0-3", "givens": "4..." + "." * 12}, "not one of the values"),
    ({"values": "0-3", "layout": "samurai"}, "layout"),
])
def test_bad_value_sets_are_refused_in_one_line(bad, words):
    with pytest.raises(PuzzleError, match=words) as info:
        parse_puzzle({"size": 4, **bad})
    assert "\n" not in str(info.value)


def test_an_iss_string_with_the_values_0_to_3_reads_as_a_value_set():
    puzzle = parse_puzzle(".Shape~4x4~0-3.Cage~3~R1C1~R2C2~R3C3.~R1C1_0~R4C4_3")
    assert puzzle.values == (0, 1, 2, 3) and puzzle.to_document()["values"] == "0-3"
    plain = CASES["cage"][1]
    want = sum(1 for g in GRIDS if plain(g) and g[0, 0] == 0 and g[3, 3] == 3)
    assert api.count(puzzle, limit=1000, solver="sat").count == want
    assert parse_puzzle(".Shape~6x6~9.~R1C1_9").values == tuple(range(1, 10))   # more values: test_values_wide
    with pytest.raises(PuzzleError, match="needs at least 6"):
        parse_puzzle(".Shape~6x6~5.~R1C1_5")


def test_every_format_round_trips_a_0_to_3_model(tmp_path):
    from formats.base import FORMATS, ModelData, read_model, write_model
    from pipeline.core.build import build_model

    puzzle = parse_puzzle(_doc(CASES["thermo"][0], "0..............3"))
    model = build_model(puzzle)
    want = ModelData.from_model(model)
    assert want.metadata["values"] == "0-3"
    written = 0
    for name, fmt in FORMATS.items():
        if fmt.read is None or fmt.write is None or name == "iss":
            continue
        got = read_model(write_model(model, tmp_path / f"{name}.{name}", name), name)
        assert (got.Aeq != want.Aeq).nnz == 0, name
        np.testing.assert_array_equal(got.row_lower, want.row_lower, err_msg=name)
        np.testing.assert_array_equal(got.row_upper, want.row_upper, err_msg=name)
        if "puzzle" in got.metadata:
            assert Puzzle.from_dict(got.metadata) == puzzle, name
        written += 1
    assert written >= 6


@pytest.mark.parametrize("size, givens, words", [
    (4, "12..34..5...", "givens: a compact line of 12 characters; a 4x4 grid has 16 cells (one character each"),
    (4, "1", "givens: a compact line of 1 character; a 4x4 grid has 16 cells"),
    (4, "12 . . 34", "givens: 4 entries; a 4x4 grid has 16 cells"),
    ("4x6", "12..34", "givens: a compact line of 6 characters; a 4x6 grid has 24 cells"),
])
def test_givens_of_the_wrong_length_are_counted_as_written(size, givens, words):
    """A compact line was counted as one entry ("givens: 1 cells; a 4x4 grid has 16")."""
    values = "1-5" if size == 4 else "1-6"
    with pytest.raises(PuzzleError) as info:
        parse_puzzle({"size": size, "values": values, "givens": givens})
    assert str(info.value).startswith(f"puzzle: {words}"), str(info.value)


def test_a_range_too_wide_is_said_as_too_many_values_not_as_no_range():
    """'0-100000' is a range, only too wide: the message says how many values, not 'not a range'."""
    from pipeline.core.values import MAX_VALUES, parse_values

    with pytest.raises(PuzzleError, match=rf"^doc: 'values' 0-100000 has 100001 values; at most {MAX_VALUES}$"):
        parse_values("0-100000", 9, "doc")
    with pytest.raises(PuzzleError, match=r"is not a range like"):
        parse_values("0-1234567890123456789012", 9, "doc")
