"""Sums whose digits may repeat, in the ``dfsrules`` kernel: exclusion groups (a row's cells that
share a house take distinct digits, :func:`pipeline.solvers.dfsrules_rows.exclusion_groups`) and an
``=`` row with two or three cells left made exact (``_few_open`` in
:mod:`pipeline.solvers.dfsrules_linear`). That no solution is lost is checked where counts are
compared with the SAT engine's (``test_dfsrules_sums.py``: little killers, arrows and every kind);
here, what each step removes before any branch."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules import rule_tables
from pipeline.solvers.dfsrules_rows import exclusion_groups


def _groups(doc: dict) -> list[list[int]]:
    """Each linear row's groups of two or more, as cell lists (rows without a group left out)."""
    puzzle = parse_puzzle(doc)
    tables = rule_tables(puzzle)
    assert (tables.rint[tables.rint[35]:tables.rint[35] + tables.n_terms] == -1).all()   # built when a search lasts
    rint = tables.with_groups(tables.rint, shape_tables(puzzle))
    lin_ptr, term_cell, group_at = rint[8], rint[9], rint[35]
    found = []
    for r in range(tables.n_lin):
        start, stop = rint[lin_ptr + r], rint[lin_ptr + r + 1]
        group = rint[group_at + start:group_at + stop]
        cells = rint[term_cell + start:term_cell + stop]
        found += [sorted(cells[group == lead].tolist()) for lead in np.unique(group) if lead >= 0
                  and (group == lead).sum() > 1]
    return found


def _root(doc: dict) -> np.ndarray:
    """The candidate masks after the kernel's propagation at the root (no branch)."""
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    from pipeline.solvers.dfs import start_masks
    from pipeline.solvers.dfsrules_kernel import propagate

    puzzle = parse_puzzle(doc)
    shape, rules = shape_tables(puzzle), rule_tables(puzzle)
    cells = puzzle.n * puzzle.n
    state = start_masks(np.asarray(puzzle.grid).reshape(1, cells), puzzle.n)[0] & rules.allowed
    work = rules.scratch(shape)
    assert propagate(state, np.zeros(cells, dtype=np.bool_), -1, shape.peers, shape.n_peers, shape.units,
                     shape.cell_units, shape.n_cell_units, shape.full, rules.with_groups(rules.rint, shape),
                     rules.compat, work)
    return state


def _digits(mask: np.uint64) -> set[int]:
    return {d + 1 for d in range(64) if int(mask) >> d & 1}


DIAGONAL = ["r1c1", "r2c2", "r3c3", "r4c4", "r5c5", "r6c6", "r7c7", "r8c8", "r9c9"]


def test_a_little_killer_s_cells_group_by_box():
    """The long diagonal crosses three boxes: three groups of three cells (0, 10, 20; 30, 40, 50; ...)."""
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "littlekiller", "sum": 45, "cells": DIAGONAL}]}
    assert sorted(_groups(doc)) == [[0, 10, 20], [30, 40, 50], [60, 70, 80]]


def test_a_sum_of_distinct_digits_keeps_its_digit_sets_instead():
    """With the diagonal a unit, the little killer's nine cells are pairwise distinct: its row gets
    the digit sets of a killer cage (stronger), and no groups."""
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "diagonal"},
                                              {"rule": "littlekiller", "sum": 45, "cells": DIAGONAL}]}
    rint = rule_tables(parse_puzzle(doc)).rint
    assert _groups(doc) == []
    assert rint[rint[15] + 1] > rint[rint[15]]   # the row's digit sets


def test_an_arrow_s_circle_stays_out_of_its_line_s_group():
    """The circle (coefficients -1..-9) shares row 1 with the line's first two cells (+1..+9): the
    two line cells in row 1 are a group, the circle is not in it."""
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "arrow", "cells": ["r1c1", "r1c2", "r1c3", "r2c4"]}]}
    groups = _groups(doc)
    assert [1, 2] in groups
    assert all(0 not in group for group in groups)


def test_groups_are_cliques_of_one_coefficient_vector():
    """Every group the greedy pass makes: its cells share a unit pairwise, its terms one vector."""
    doc = {"size": 9, "box": "3x3", "rules": [
        {"rule": "littlekiller", "sum": 30, "cells": ["r2c1", "r3c2", "r4c3", "r5c4", "r6c5", "r7c6", "r8c7"]},
        {"rule": "arrow", "cells": ["r5c5", "r5c6", "r6c6", "r6c7"]}]}
    puzzle = parse_puzzle(doc)
    shape, tables = shape_tables(puzzle), rule_tables(puzzle)
    rint = tables.rint
    lin_ptr, term_cell, term_coef = (rint[rint[8]:rint[8] + tables.n_lin + 1], rint[rint[9]:rint[9] + tables.n_terms],
                                     rint[rint[10]:rint[10] + tables.n_terms * 9].reshape(-1, 9))
    group = exclusion_groups(shape, lin_ptr, term_cell, term_coef, np.zeros(tables.n_lin, dtype=bool))
    built = tables.with_groups(rint, shape)
    assert np.array_equal(group, built[built[35]:built[35] + tables.n_terms])
    for lead in np.unique(group[group >= 0]):
        members = np.flatnonzero(group == lead)
        assert group[lead] == lead
        for a in members:
            assert np.array_equal(term_coef[a], term_coef[lead])
            for b in members:
                assert a == b or shape.share_unit(np.array([term_cell[a]]), np.array([term_cell[b]]))[0]


def test_a_group_s_distinct_digits_bound_the_sum():
    """r1c1, r2c2, r3c3 (box 1) add up to 24: only 7, 8 and 9 do it. Cell by cell bounds leave
    6 in each (6 + 9 + 9 = 24); the group's two partners make at most 9 + 8 = 17, so 6 goes."""
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "littlekiller", "sum": 24, "cells": ["r1c1", "r2c2", "r3c3"]},
                                              {"rule": "littlekiller", "sum": 9, "cells": ["r4c4", "r5c5"]}]}
    state = _root(doc)
    for cell in (0, 10, 20):
        assert _digits(state[cell]) == {7, 8, 9}


def test_a_group_s_decided_cell_leaves_its_digit_to_no_partner():
    """r1c1 + r1c2 + r1c3 + r1c4 + r5c5 = 32, r1c1 decided to 1 by a second sum (r1c1 + r2c1 = 3,
    r2c1 given 2): row 1's group makes at most 1 + 9 + 8 + 7 = 25 (its open cells take three other
    digits), so r5c5 is 7 or more; the group's union over all four cells (9 + 8 + 7 + 6) and the
    cells one by one (1 + 9 + 9 + 9) left 4."""
    doc = {"size": 9, "box": "3x3", "givens": "." * 9 + "2" + "." * 71,
           "rules": [{"rule": "sum", "sum": 32, "cells": ["r1c1", "r1c2", "r1c3", "r1c4", "r5c5"]},
                     {"rule": "sum", "sum": 3, "cells": ["r1c1", "r2c1"]}]}
    state = _root(doc)
    assert _digits(state[0]) == {1}
    assert _digits(state[40]) == {7, 8, 9}


def test_a_cage_s_last_three_cells_take_distinct_digits_that_make_its_sum():
    """A cage of 31 over r6c5-r6c7, r7c4 and r7c5, these two given 5 and 9: the three in row 6 add
    up to 17 (digit sets 2 7 8, 3 6 8, 4 6 7). The givens (from a grid where they are 3 8 6) leave
    r6c6 4, 6 or 8 and r6c7 4, 6 or 7; r6c5 at 8 would need r6c6 + r6c7 = 9 of two digits other
    than 8 (4 + 5, 6 + 3 and 7 + 2 each take a digit its cell lacks), so 8 goes, which each digit
    set alone keeps (3 6 8 has a cell for every digit)."""
    doc = {"size": 9, "box": "3x3",
           "givens": "..............12.......38................2...............5971........3...........",
           "rules": [{"rule": "cage", "sum": 31, "cells": ["r6c5", "r6c6", "r6c7", "r7c4", "r7c5"]}]}
    state = _root(doc)
    assert _digits(state[50]) == {4, 6, 8} and _digits(state[51]) == {4, 6, 7}
    assert _digits(state[49]) == {3, 4, 6, 7}


def test_two_open_cells_keep_only_the_digits_that_complete_the_sum():
    """A sum rule r1c1 + r2c9 + r9c5 = 12 (three boxes, digits may repeat) with r9c5 given 2: the two open
    cells add up to 10. Row 1's givens leave r1c1 1 or 9, so r2c9 keeps 9 or 1 only; bounds alone
    (1 + 9) keep all its digits."""
    doc = {"size": 9, "box": "3x3", "givens": ".2345678." + "." * 67 + "2" + "." * 4,
           "rules": [{"rule": "sum", "sum": 12, "cells": ["r1c1", "r2c9", "r9c5"]}]}
    state = _root(doc)
    assert _digits(state[0]) == {1, 9}
    assert _digits(state[17]) == {1, 9}


def test_two_open_cells_of_one_group_take_distinct_digits():
    """r1c1 + r1c2 + r5c5 = 14 with r5c5 given 4: r1c1 and r1c2 (row 1, one group) add up to 10,
    so 5 goes (5 + 5 repeats a digit); every other digit has its partner."""
    doc = {"size": 9, "box": "3x3", "givens": "." * 40 + "4" + "." * 40,
           "rules": [{"rule": "sum", "sum": 14, "cells": ["r1c1", "r1c2", "r5c5"]}]}
    state = _root(doc)
    assert _digits(state[0]) == _digits(state[1]) == {1, 2, 3, 4, 6, 7, 8, 9}


def test_a_search_that_lasts_gets_the_groups(monkeypatch):
    """The bench's ten zipper puzzles (sums along lines whose digits may repeat), counted to 2:
    19,850 nodes with the rows bounded cell by cell, 8,142 with two or three open cells made exact,
    7,020 with the exclusion groups too (search_model adds them after its first slice)."""
    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    import json
    from pathlib import Path

    from pipeline.core.build import build_model
    from pipeline.solvers.dfsrules import search_model

    lines = (Path(__file__).resolve().parents[2] / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    docs = [json.loads(line)["document"] for line in lines if json.loads(line)["family"] == "zipper"]
    found = [search_model(build_model(parse_puzzle(doc)), 2) for doc in docs]
    assert len(docs) == 10 and all(f.count == 1 for f in found)
    nodes = sum(f.nodes for f in found)
    assert nodes < 12_000, nodes
    from pipeline.solvers.dfsrules import RuleTables

    monkeypatch.setattr(RuleTables, "with_groups", lambda self, rint, units: rint)
    assert sum(search_model(build_model(parse_puzzle(doc)), 2).nodes for doc in docs) > nodes


def test_a_cage_s_last_three_cells_past_64_triples_are_made_exact():
    """A cage of 17 over r1c1-r1c3 with pencil marks 2 3 4 6 7, 3 4 6 8 and 2 4 6 7 (80 triples, past
    the cap that leaves three open cells to bounds where each cell's coefficients do not step by
    one): r1c2 at 3 would need r1c1 + r1c3 = 14 of two digits other than 3 (7 + 7 repeats, 6 + 8
    and 8 + 6 take a digit its cell lacks), so 3 goes, which the digit sets (3 6 8) and the bounds
    (3 + 7 + 7) keep. Every other digit has its partners."""
    doc = {"size": 9, "box": "3x3", "rules": [
        {"rule": "cage", "sum": 17, "cells": ["r1c1", "r1c2", "r1c3"]},
        {"rule": "pencilmarks", "cells": ["r1c1"], "digits": [2, 3, 4, 6, 7]},
        {"rule": "pencilmarks", "cells": ["r1c2"], "digits": [3, 4, 6, 8]},
        {"rule": "pencilmarks", "cells": ["r1c3"], "digits": [2, 4, 6, 7]}]}
    state = _root(doc)
    assert _digits(state[1]) == {4, 6, 8}
    assert _digits(state[0]) == {2, 3, 4, 6, 7} and _digits(state[2]) == {2, 4, 6, 7}
