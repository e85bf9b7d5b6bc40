"""``containexact`` (ISS ``ContainExact``): each listed value is in the cells exactly as often as
listed, other values free (ISS's strict ``RequiredValues``, js/solver/handlers.js); and
``containatleast`` (ISS ``ContainAtLeast`` over cells other than a 2x2 square): at least as often.

The oracle is written from that definition, never from the rows: every 4x4 sudoku (288, also
with the values 0..3) and every raw 3x3 grid (3^9) is judged in Python, and the SAT and HiGHS
counts and ``verify`` must agree with it.
"""
from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest

from oracles import ISS_COLLECTION, every_4x4_sudoku
from pipeline import api
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.glyphs import rule_caption, rule_glyphs
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules import get_rule
from pipeline.core.verify import verify_grid


def _sudokus4() -> np.ndarray:
    return np.array(every_4x4_sudoku())


SUDOKUS = _sudokus4()
RAW3 = np.array(list(itertools.product(range(1, 4), repeat=9))).reshape(-1, 3, 3)   # every raw 3x3 grid


def _rc(name: str) -> tuple[int, int]:
    r, c = (int(v) for v in name[1:].split("c"))
    return r - 1, c - 1


def holds(vals: np.ndarray, rules: list[dict]) -> bool:
    """ISS's meaning: each listed value is held exactly (at least) as often as listed; others are free."""
    for rule in rules:
        got = Counter(int(vals[_rc(c)]) for c in rule["cells"])
        exact = rule["rule"] == "containexact"
        if any(got[v] < m or (exact and got[v] > m) for v, m in Counter(rule["values"]).items()):
            return False
    return True


ONE_TO_4 = [1, 2, 3, 4]
CASES = {
    # fewer values than cells: the other cells hold anything else
    "repeats": ({"size": 4}, [{"rule": "containexact", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"], "values": [1, 1]}]),
    "mixed": ({"size": 4}, [{"rule": "containexact", "cells": ["r1c1", "r2c3", "r3c2", "r4c4", "r1c3"],
                             "values": [4, 2, 2]}]),
    "as many as cells": ({"size": 4}, [{"rule": "containexact", "cells": ["r1c1", "r2c3", "r3c2"],
                                        "values": [3, 3, 1]}]),
    "0..3": ({"size": 4, "values": [0, 1, 2, 3]},
             [{"rule": "containexact", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"], "values": [0, 0, 3]}]),
    "raw 3x3": ({"size": 3, "variant": "raw"},
                [{"rule": "containexact", "cells": ["r1c1", "r1c2", "r1c3", "r2c2"], "values": [2, 2, 2]},
                 {"rule": "containexact", "cells": ["r3c1", "r3c2", "r3c3", "r2c3", "r2c1"], "values": [1, 3, 3]},
                 {"rule": "containexact", "cells": ["r1c1", "r2c1", "r3c1", "r2c2"], "values": [3, 1]}]),
}
CASES.update({f"at least, {name}": (head, [{**rule, "rule": "containatleast"} for rule in rules])
              for name, (head, rules) in list(CASES.items())})
CASES["at least and exactly, raw 3x3"] = (
    {"size": 3, "variant": "raw"},
    [{"rule": "containatleast", "cells": ["r1c1", "r1c2", "r1c3", "r2c2"], "values": [2, 2]},
     {"rule": "containexact", "cells": ["r3c1", "r3c2", "r3c3", "r2c3", "r2c1"], "values": [1, 3]},
     {"rule": "containatleast", "cells": ["r1c1", "r2c1", "r3c1", "r2c2", "r3c3"], "values": [3, 1, 1]}])


@pytest.mark.parametrize("name", sorted(CASES))
def test_counts_match_brute_force(name):
    head, rules = CASES[name]
    grids = RAW3 if head.get("variant") == "raw" else SUDOKUS
    value_set = head.get("values", list(range(1, head["size"] + 1)))
    judged = np.array([holds(np.array(value_set)[g - 1], rules) for g in grids])
    assert 0 < judged.sum() < len(grids), name
    puzzle = parse_puzzle({**head, "rules": rules})
    for solver in ("sat", "highs"):
        got = api.count(puzzle, limit=len(grids) + 1, solver=solver)
        assert (got.count, got.status) == (int(judged.sum()), "complete"), (name, solver)
    for g, ok in zip(grids[::7], judged[::7]):
        assert bool(verify_grid(g, puzzle)) == ok, (name, g.tolist())


def test_a_rectangle_counts_the_grids_that_keep_it():
    """On a 3x4 latin rectangle: the engine's own grids without the rule, judged by the oracle."""
    rules = [{"rule": "containexact", "cells": ["r1c1", "r2c2", "r3c3", "r3c4", "r1c4"], "values": [4, 4, 1]}]
    base = api.count(parse_puzzle({"size": "3x4", "variant": "latin"}), limit=10_000, solver="sat")
    assert base.status == "complete" and len(base.grids) == base.count
    want = sum(holds(np.asarray(g), rules) for g in base.grids)
    assert 0 < want < base.count
    got = api.count(parse_puzzle({"size": "3x4", "variant": "latin", "rules": rules}), limit=10_000, solver="sat")
    assert (got.count, got.status) == (want, "complete")


def test_rows_are_one_equality_per_distinct_value():
    puzzle = parse_puzzle({"size": 4, "rules": [{"rule": "containexact", "cells": ["r1c1", "r2c3", "r3c2"],
                                                 "values": [3, 1, 3]}]})
    assert puzzle.rules[0].to_dict(puzzle.board)["values"] == [1, 3, 3]
    model = build_model(puzzle)
    labels = [str(label) for label in model.row_labels if label.startswith("containexact")]
    assert labels == ["containexact_1_1", "containexact_1_3"]


def test_a_broken_grid_is_named_by_verify():
    rules = [{"rule": "containexact", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"], "values": [1, 1]}]
    puzzle = parse_puzzle({"size": 4, "rules": rules})
    over = next(g for g in SUDOKUS if (g[[0, 1, 2, 3], [0, 2, 1, 3]] == 1).sum() == 4)
    report = verify_grid(over, puzzle)
    assert not report and "contain exactly 1,1" in report.message and "holds 1 4 time(s)" in report.message
    partial = np.zeros(16, dtype=np.int64)
    partial[[0, 6, 9]] = [1, 2, 3]   # r1c1 r2c3 r3c2: one 1, only r4c4 empty, but one more 1 is needed: fits
    rule = puzzle.rules[0]
    assert rule.violations(partial, puzzle.board) == []
    partial[15] = 4                  # no room left for the second 1
    (broken,) = rule.violations(partial, puzzle.board)
    assert broken["message"].endswith(": lacks 1") and broken["cells"] == [0, 6, 9, 15]


def test_the_glyph_is_a_cage_labelled_with_the_values():
    puzzle = parse_puzzle({"size": 4, "rules": [{"rule": "containexact", "cells": ["r1c1", "r1c2"], "values": [2, 1]}]})
    (glyph,) = puzzle.rules[0].glyphs(puzzle.board)
    assert (glyph.kind, glyph.label, tuple(glyph.cells)) == ("cage", "=1,2", (0, 1))


@pytest.mark.parametrize("entry,message", [
    ({"rule": "containexact", "cells": ["r1c1"], "values": []}, "'values' must be a non-empty list"),
    ({"rule": "containexact", "cells": ["r1c1"], "values": "12"}, "'values' must be a non-empty list"),
    ({"rule": "containexact", "cells": ["r1c1"], "values": [5]}, "'values' holds '5', not one of 1..4"),
    ({"rule": "containexact", "cells": ["r1c1"], "values": ["x"]}, "'values' holds 'x'"),
    ({"rule": "containexact", "cells": ["r1c1", "r1c2"], "values": [1, 2, 3]}, "lists 3 values for 2 cells"),
    ({"rule": "containexact", "values": [1]}, "cells"),
])
def test_a_bad_entry_is_refused_in_one_line(entry, message):
    with pytest.raises(PuzzleError, match=message) as err:
        parse_puzzle({"size": 4, "rules": [entry]})
    assert "\n" not in str(err.value) and "rules[0]" in str(err.value)


# -- ISS ---------------------------------------------------------------------------------------
def test_iss_items_read_and_write_back():
    text = ".Shape~4x4~0-3.ContainExact~2_0_0~R1C1~R1C2~R2C2~R4C4.ContainExact~3~R3C3"
    doc = document_from_iss(text)
    assert doc["rules"] == [{"rule": "containexact", "cells": ["r1c1", "r1c2", "r2c2", "r4c4"], "values": [0, 0, 2]},
                            {"rule": "containexact", "cells": ["r3c3"], "values": [3]}]
    written = iss_from_puzzle(parse_puzzle(doc))
    assert ".ContainExact~0_0_2~R1C1~R1C2~R2C2~R4C4" in written
    assert document_from_iss(written)["rules"] == doc["rules"]


@pytest.mark.parametrize("text", [".Shape~4x4.ContainExact~1", ".Shape~4x4.ContainExact~x~R1C1",
                                  ".Shape~4x4.ContainExact~1_2_3~R1C1~R1C2", ".Shape~4x4.ContainExact~7~R1C1"])
def test_bad_iss_items_are_refused_in_one_line(text):
    with pytest.raises(PuzzleError) as err:
        parse_puzzle(text)
    assert "\n" not in str(err.value) and "unsupported constraint type" not in str(err.value)


def test_the_published_250_reads_and_its_solution_verifies():
    """ISS's "250!" (a raw 9x9 of the values 0, 2 and 5, each row, column and box ContainExact
    0_0_0_2_2_2_5_5_5) stopped at "unsupported constraint type 'ContainExact'"."""
    entry = next(json.loads(line) for line in ISS_COLLECTION.open(encoding="utf-8")
                 if json.loads(line)["name"] == "250!")
    puzzle = parse_puzzle(entry["input"])
    assert sum(rule.kind == "containexact" for rule in puzzle.rules) == entry["input"].count(".ContainExact~")
    solution = np.array([int(ch) for ch in entry["solution"]])
    grid = (puzzle.board.index_of(solution) + 1).reshape(9, 9)
    assert verify_grid(grid, puzzle)
    broken = grid.copy()
    j = np.flatnonzero(grid[0] != grid[0, 0])[0]
    broken[0, j] = grid[0, 0]   # row 1 now holds r1c1's value 4 times
    report = verify_grid(broken, puzzle)
    assert not report and "contain exactly 0,0,0,2,2,2,5,5,5" in report.message


def test_the_kind_is_registered():
    assert get_rule("containexact").kind == "containexact"


# -- containatleast ----------------------------------------------------------------------------
def test_at_least_rows_are_one_negated_inequality_per_distinct_value():
    puzzle = parse_puzzle({"size": 4, "rules": [{"rule": "containatleast", "cells": ["r1c1", "r2c3", "r3c2"],
                                                 "values": [3, 1, 3]}]})
    assert puzzle.rules[0].to_dict(puzzle.board) == {"rule": "containatleast", "cells": ["r1c1", "r2c3", "r3c2"],
                                                     "values": [1, 3, 3]}
    model = build_model(puzzle)
    assert not any(str(label).startswith("containatleast") for label in model.row_labels)
    labels = [str(label) for label in model.ineq_labels if label.startswith("containatleast")]
    assert labels == ["containatleast_1_1", "containatleast_1_3"]


def test_at_least_verify_names_only_what_is_missing():
    rules = [{"rule": "containatleast", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"], "values": [1, 1]}]
    puzzle = parse_puzzle({"size": 4, "rules": rules})
    rule = puzzle.rules[0]
    four = next(g for g in SUDOKUS if (g[[0, 1, 2, 3], [0, 2, 1, 3]] == 1).sum() == 4)
    assert verify_grid(four, puzzle)   # four 1s: at least two
    partial = np.zeros(16, dtype=np.int64)
    partial[[0, 6, 9]] = [1, 1, 1]     # three 1s, one empty cell: kept
    assert rule.violations(partial, puzzle.board) == []
    partial[[6, 9]] = [2, 3]           # one 1, one empty cell left for the second: fits
    assert rule.violations(partial, puzzle.board) == []
    partial[15] = 4                    # no room left
    (broken,) = rule.violations(partial, puzzle.board)
    assert broken["message"].startswith("contain at least 1,1") and broken["message"].endswith(": lacks 1")
    assert broken["cells"] == [0, 6, 9, 15]


def test_iss_contain_at_least_reads_as_the_rule_off_a_square_and_a_quadruple_on_one():
    text = ".Shape~4x4~0-3.ContainAtLeast~2_0~R1C1~R1C3~R2C2.ContainAtLeast~1_2~R3C3~R3C4~R4C3~R4C4"
    doc = document_from_iss(text)
    assert doc["rules"] == [{"rule": "containatleast", "cells": ["r1c1", "r1c3", "r2c2"], "values": [0, 2]},
                            {"rule": "quadruple", "cells": ["r3c3", "r3c4", "r4c3", "r4c4"], "digits": [1, 2]}]
    written = iss_from_puzzle(parse_puzzle(doc))
    assert ".ContainAtLeast~0_2~R1C1~R1C3~R2C2" in written
    assert document_from_iss(written)["rules"] == doc["rules"]
    # a whole row, and five values over a 2x2 square (refused by the rule: more values than cells)
    assert document_from_iss(".ContainAtLeast~5_5~R1C1~R1C2~R1C3~R1C4~R1C5~R1C6~R1C7~R1C8~R1C9")["rules"] == [
        {"rule": "containatleast", "cells": [f"r1c{c}" for c in range(1, 10)], "values": [5, 5]}]
    with pytest.raises(PuzzleError, match="lists 5 values for 4 cells"):
        parse_puzzle(".ContainAtLeast~1_1_1_2_2~R1C1~R1C2~R2C1~R2C2")


def test_at_least_on_a_rectangle_counts_the_grids_that_keep_it():
    rules = [{"rule": "containatleast", "cells": ["r1c1", "r2c2", "r3c3", "r3c4", "r1c4"], "values": [4, 4]}]
    base = api.count(parse_puzzle({"size": "3x4", "variant": "latin"}), limit=10_000, solver="sat")
    want = sum(holds(np.asarray(g), rules) for g in base.grids)
    assert 0 < want < base.count
    got = api.count(parse_puzzle({"size": "3x4", "variant": "latin", "rules": rules}), limit=10_000, solver="sat")
    assert (got.count, got.status) == (want, "complete")


def test_the_at_least_kind_is_registered():
    assert get_rule("containatleast").kind == "containatleast"
    assert get_rule("containatleast").__name__ == "ContainAtLeast"


# -- pictures ----------------------------------------------------------------------------------
def test_250_draws_its_long_lists_once_in_the_caption():
    """'250!' labelled each of its 27 regions '=0,0,0,2,2,2,5,5,5' in a corner: the labels ran
    over each other and past the grid. The cages are tagged '≡' and the caption says the list once."""
    pytest.importorskip("matplotlib")
    from pipeline.tools.draw import draw_grid

    entry = next(json.loads(line) for line in ISS_COLLECTION.open(encoding="utf-8")
                 if json.loads(line)["name"] == "250!")
    puzzle = parse_puzzle(entry["input"])
    contains = [rule for rule in puzzle.rules if rule.kind == "containexact"]
    assert {g.label for rule in contains for g in rule.glyphs(puzzle.board)} == {"≡"}
    assert rule_caption(puzzle.rules, puzzle.board).count("0,0,0,2,2,2,5,5,5") == 1
    fig = draw_grid(puzzle)
    texts = [t.get_text().replace("\n", " ") for t in fig.axes[0].texts]
    assert sum("0,0,0,2,2,2,5,5,5" in text for text in texts) == 1
    assert "≡: exactly 0,0,0,2,2,2,5,5,5" in " ".join(texts)


def test_lists_that_differ_are_numbered_and_short_ones_stay_on_their_cage():
    rules = [{"rule": "containexact", "cells": ["r1c1", "r1c2", "r1c3", "r1c4"], "values": [1, 1, 2, 2]},
             {"rule": "containexact", "cells": ["r2c1", "r2c2", "r2c3", "r2c4"], "values": [1, 1, 2, 2]},
             {"rule": "containexact", "cells": ["r3c1", "r3c2", "r3c3", "r3c4"], "values": [3, 3, 4, 4]},
             {"rule": "containatleast", "cells": ["r4c1", "r4c2", "r4c3", "r4c4"], "values": [1, 2, 3]},
             {"rule": "containexact", "cells": ["r1c1", "r2c1"], "values": [1, 2]},
             {"rule": "containatleast", "cells": ["r3c4", "r4c4"], "values": [4]}]
    puzzle = parse_puzzle({"size": 4, "rules": rules})
    labels = [g.label for g in rule_glyphs(puzzle.rules, puzzle.board)]
    assert labels == ["≡1", "≡1", "≡2", "=1,2", "≥", "≥4"]   # drawn kind by kind
    assert rule_caption(puzzle.rules, puzzle.board).split(" · ") == [
        "≡1: exactly 1,1,2,2", "≡2: exactly 3,3,4,4", "≥: at least 1,2,3"]


# -- extra cells (ISS Var) ---------------------------------------------------------------------
EXTRA_GIVENS = "12..34..2......."   # six 4x4 Sudoku grids keep these
EXTRA_RULES = [{"rule": "containatleast", "cells": ["S1", "S2", "r1c3"], "values": [2, 4]},   # a mix
               {"rule": "containexact", "cells": ["S2", "S3", "S4"], "values": [1, 1]}]       # extra cells alone


def _held(grid: np.ndarray, extra: tuple[int, ...], name: str) -> int:
    return int(extra[int(name[1:]) - 1]) if name.startswith("S") else int(grid[_rc(name)])


def test_rules_over_extra_cells_count_as_brute_force():
    """Every (grid, extra digits) pair that keeps the givens and both rules, enumerated, against
    the engines' counts (solutions differ in the grid or the extra cells)."""
    grids = [g for g in SUDOKUS if all(ch == "." or int(ch) == v for ch, v in zip(EXTRA_GIVENS, g.ravel()))]
    pairs = []
    for g, extra in itertools.product(grids, itertools.product(range(1, 5), repeat=4)):
        counts = [Counter(_held(g, extra, c) for c in rule["cells"]) for rule in EXTRA_RULES]
        if all(got[v] >= m and (rule["rule"] == "containatleast" or got[v] == m)
               for rule, got in zip(EXTRA_RULES, counts) for v, m in Counter(rule["values"]).items()):
            pairs.append((g, extra))
    assert len(grids) == 6 and 0 < len(pairs) < len(grids) * 4 ** 4
    puzzle = parse_puzzle({"size": 4, "givens": EXTRA_GIVENS, "extra": [{"name": "S", "size": 4}],
                           "rules": EXTRA_RULES})
    for solver in ("sat", "highs"):
        got = api.count(puzzle, limit=len(pairs) + 1, solver=solver)
        assert (got.count, got.status) == (len(pairs), "complete"), solver
    g, extra = pairs[0]
    assert verify_grid(g, puzzle, np.array(extra))
    wrong = np.array(extra)
    wrong[1:] = 4   # S2..S4 hold no 1: the containexact rule is broken
    report = verify_grid(g, puzzle, wrong)
    assert not report and "contain exactly 1,1" in report.message


def test_iss_contain_over_var_cells_reads_and_writes_back():
    """ContainAtLeast over Var cells (ISS's "Xin Yang v2") was refused: "'VS1' is an extra cell
    (ISS Var), not a cell of the 9x9 grid, and this constraint takes grid cells only". Over a 2x2
    Var it is no quadruple (that takes grid cells)."""
    text = ".Shape~4x4.Var~S~shade~2x2.ContainAtLeast~1_2~VS1~VS2~VS3~VS4.ContainExact~3~VS1~R1C1"
    doc = document_from_iss(text)
    assert doc["rules"] == [{"rule": "containatleast", "cells": ["S1", "S2", "S3", "S4"], "values": [1, 2]},
                            {"rule": "containexact", "cells": ["S1", "r1c1"], "values": [3]}]
    written = iss_from_puzzle(parse_puzzle(doc))
    assert ".ContainAtLeast~1_2~VS1~VS2~VS3~VS4" in written and ".ContainExact~3~VS1~R1C1" in written
    assert document_from_iss(written)["rules"] == doc["rules"]


def _xin_yang() -> dict:
    return next(json.loads(line) for line in ISS_COLLECTION.open(encoding="utf-8")
                if json.loads(line)["name"] == "Xin Yang v2")


def test_xin_yang_v2_reads():
    puzzle = parse_puzzle(_xin_yang()["input"])
    on_extra = [rule for rule in puzzle.rules if rule.kind == "containatleast"
                and min(rule.cell_list) >= puzzle.board.n_cells]
    assert len(on_extra) == 81 - 9 - 9 + 1   # Replicate's 2x2 windows of the 9x9 Var, 8 by 8


@pytest.mark.slow
def test_xin_yang_v2_s_solution_verifies():
    """11 s: each verify solves for the shading (extra cells) that goes with the grid."""
    entry = _xin_yang()
    puzzle = parse_puzzle(entry["input"])
    grid = np.array([int(ch) for ch in entry["solution"]]).reshape(9, 9)
    assert api.verify(puzzle, grid)
    broken = grid.copy()
    broken[0, [0, 1]] = broken[0, [1, 0]]
    assert not api.verify(puzzle, broken)


@pytest.mark.slow
def test_xin_yang_v2_solves_to_its_published_solution():
    """cpsat (auto) in about 40 s with the uniqueness proof on a shared 2-core machine."""
    entry = _xin_yang()
    result = api.solve(parse_puzzle(entry["input"]), time_limit=120)
    assert result.grid is not None and "".join(map(str, result.grid.ravel())) == entry["solution"]
