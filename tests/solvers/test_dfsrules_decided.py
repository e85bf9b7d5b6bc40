"""A decided anti-taxicab cell's partners per digit (:mod:`pipeline.solvers.dfsrules_decided_rows`,
read by the kernel's :mod:`pipeline.solvers.dfsrules_decided`) and the support lookup they make unread."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import get_solver
from pipeline.solvers.dfs import shape_tables
from pipeline.solvers.dfsrules import rule_tables
from pipeline.solvers.dfsrules_decided_rows import DEC_AT, only_decided
from pipeline.solvers.dfsrules_rows import DECIDED_ONLY

SET = Path(__file__).resolve().parents[2] / "bench" / "dfsrules_set.jsonl"


def _bench(family: str, count: int) -> list[dict]:
    rows = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    return [row["document"] for row in rows if row["family"] == family][:count]


def test_each_decided_digit_lists_the_partners_whose_tables_take_it_in_arc_order():
    """Against the arcs read one by one, as the kernel did: cell ``c`` holding ``d`` takes ``d``
    from partner ``b`` exactly when the arc's table at ``d`` lacks ``d``."""
    puzzle = parse_puzzle(_bench("antitaxicab", 1)[0])
    rules = rule_tables(puzzle, shape_tables(puzzle))
    rint, n, n_cells = rules.rint, rules.n, int(rules.rint[0])
    arc_ptr, arc_other, arc_table = (rint[int(rint[k]):] for k in (5, 6, 7))
    cell_table = rint[int(rint[36]):int(rint[36]) + n_cells]
    ptr, cells = rint[int(rint[DEC_AT]):], rint[int(rint[DEC_AT + 1]):]
    tables = rules.compat[:2 * rules.n_pairs * n].reshape(-1, n)
    assert np.all(cell_table[np.diff(arc_ptr[:n_cells + 1]) > 0] == DECIDED_ONLY)
    for c in range(n_cells):
        arcs = range(int(arc_ptr[c]), int(arc_ptr[c + 1]))
        for d in range(n):
            want = [int(arc_other[a]) for a in arcs if not int(tables[arc_table[a], d]) >> d & 1]
            assert cells[ptr[c * n + d]:ptr[c * n + d + 1]].tolist() == want


def test_anti_taxicab_goes_without_the_support_lookup_that_nothing_reads():
    """Every cell with arcs decided-only: ``with_support_lookup`` keeps the tables as they are
    (the lookup cost about 2.3 ms a record); anti-knight's cells share one table and keep theirs."""
    taxicab = parse_puzzle(_bench("antitaxicab", 1)[0])
    rules = rule_tables(taxicab, shape_tables(taxicab))
    assert only_decided(rules.rint)
    rint, compat = rules.with_support_lookup()
    assert rint is rules.rint and compat is rules.compat and rint[24] == 0
    knight = parse_puzzle(_bench("anti-knight", 1)[0])
    other = rule_tables(knight, shape_tables(knight))
    assert not only_decided(other.rint) and other.with_support_lookup()[0][24] == 1


def test_anti_taxicab_answers_as_the_sat_engine():
    """The bench's anti-taxicab puzzles: the same unique answer as ``sat``."""
    for document in _bench("antitaxicab", 4):
        model = build_model(parse_puzzle(document))
        ours, sat = get_solver("dfsrules").solve(model, check_unique=True), get_solver("sat").solve(
            model, check_unique=True)
        assert ours.status == sat.status and ours.unique and sat.unique
        assert np.array_equal(np.asarray(ours.grid), np.asarray(sat.grid))
