"""Pointing through pair relations in the ``dfsrules`` kernel (pipeline/solvers/dfsrules_pointing.py
and its handler): the tables list exactly the cells related to both places of every house
position pair, the kernel takes what both places take (and nothing without the tables), and the
bench's non-consecutive puzzles need far fewer nodes with it, to the same unique answers. The
counts against the SAT engine on random puzzles (tests/solvers/test_dfsrules.py) run with it."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers import SOLVERS, dfsrules_native
from pipeline.solvers.dfs import shape_tables, start_masks
from pipeline.solvers.dfsrules import rule_tables
from pipeline.solvers.dfsrules_pointing import MAX_POINTING_CELLS, PEER, SELF, packed_pointing, pointing, pointing_tables

ROOT = Path(__file__).resolve().parents[2]
#: ``rint``'s header slot of the pointing entries' count (0: the kernel skips the rule).
N_POINTING = 34


def _relation(shape, arc_ptr, arc_other, p, c):
    """How cell ``p`` bears on cell ``c``, cell by cell: its arc's number, PEER, or None."""
    for arc in range(arc_ptr[p], arc_ptr[p + 1]):
        if arc_other[arc] == c:
            return arc
    return PEER if c in shape.peers[p, :shape.n_peers[p]] else None


def _plain_arcs(puzzle, rules):
    """Per arc: does its table allow every digit of the partner but the equal one?"""
    n, rint = puzzle.n, rules.rint
    plain = []
    for table in rint[rint[7]:rint[7] + rint[4]].tolist():
        rows = rules.compat[table * n:table * n + n].tolist()
        plain.append(all(row == (1 << n) - 1 - (1 << d) for d, row in enumerate(rows)))
    return np.array(plain, dtype=bool)


@pytest.mark.parametrize("doc", [
    {"size": 6, "box": "2x3", "rules": [{"rule": "nonconsecutive"}]},
    {"size": 6, "box": "2x3", "rules": [{"rule": "antiknight"}, {"rule": "kropki", "color": "white",
                                                                  "cells": ["r1c1", "r2c1"]},
                                         {"rule": "xv", "letter": "v", "cells": ["r3c3", "r3c4"]}]},
    {"size": 9, "box": "3x3", "rules": [{"rule": "antiking"}, {"rule": "diagonal"}, {"rule": "nonconsecutive"}]},
], ids=["nonconsecutive", "antiknight-kropki-xv", "antiking-diagonal-nonconsecutive"])
@pytest.mark.parametrize("houses", [False, True], ids=["arcs", "houses"])
def test_the_tables_list_every_cell_related_to_both_places_and_how(doc, houses):
    """With ``houses``, a cell outside the house related to both places by shared houses alone is
    listed too (locked candidates of two places)."""
    puzzle = parse_puzzle(doc)
    shape = shape_tables(puzzle)
    rules = rule_tables(puzzle, shape)
    rint = rules.rint
    assert rint[N_POINTING] == 0   # added for searches that last (RuleTables.with_pointing)
    arc_ptr = rint[rint[5]:rint[5] + puzzle.n * puzzle.n + 1]
    arc_other = rint[rint[6]:rint[6] + rint[4]]
    plain = _plain_arcs(puzzle, rules)
    assert 0 < plain.sum() < plain.size or "antiknight" not in str(doc)
    ptr, entries = pointing_tables(shape, arc_ptr, arc_other, plain, houses=houses)
    entries = entries.reshape(-1, 3)
    assert entries.shape[0] > 0
    n_units, size = shape.units.shape
    for u in range(n_units):
        for i in range(size):
            for j in range(i + 1, size):
                p, q = shape.units[u, i], shape.units[u, j]
                key = (u * size + i) * size + j
                got = {tuple(e) for e in entries[ptr[key]:ptr[key + 1]].tolist()}
                want = set()
                for c in range(puzzle.n * puzzle.n):
                    by_p = SELF if c == p else _relation(shape, arc_ptr, arc_other, p, c)
                    by_q = SELF if c == q else _relation(shape, arc_ptr, arc_other, q, c)
                    if by_p is None or by_q is None:
                        continue   # unrelated to one place
                    if houses and by_p == by_q == PEER and c not in shape.units[u]:
                        want.add((c, PEER, PEER))   # houses alone: locked candidates of two places
                        continue
                    if not any(how >= 0 and not plain[how] for how in (by_p, by_q)):
                        continue   # houses and plain inequalities alone: locked candidates
                    if c in shape.units[u] and c not in (p, q) and not all(
                            how >= 0 and not plain[how] for how in (by_p, by_q)):
                        continue   # a cell of the house is without d: only two such arcs take from it
                    want.add((c, by_p, by_q))
                assert got == want, (u, i, j)


@pytest.mark.parametrize("doc", [
    {"size": 6, "box": "2x3", "rules": [{"rule": "nonconsecutive"}]},
    {"size": 6, "box": "2x3", "rules": [{"rule": "antitaxicab"}]},
    {"size": 6, "box": "2x3", "rules": [{"rule": "antiknight"}, {"rule": "kropki", "color": "white",
                                                                  "cells": ["r1c1", "r2c1"]}]},
], ids=["nonconsecutive", "antitaxicab", "antiknight-kropki"])
def test_the_kernel_reads_per_pair_and_digit_the_cells_both_places_take_from(doc):
    """Each pair's entries are listed again under each digit ``d`` whose placement at both places
    takes something from the cell, with that (anti-taxicab: an arc at distance ``v`` only under
    ``v``), one ``int64`` each: the cell, then the mask."""
    puzzle = parse_puzzle(doc)
    shape = shape_tables(puzzle)
    rules = rule_tables(puzzle, shape)
    n, rint = puzzle.n, rules.rint
    arc_ptr = rint[rint[5]:rint[5] + n * n + 1]
    arc_other, arc_table = rint[rint[6]:rint[6] + rint[4]], rint[rint[7]:rint[7] + rint[4]]
    ptr, entries = pointing_tables(shape, arc_ptr, arc_other, _plain_arcs(puzzle, rules))
    tables = rules.compat[:2 * rules.n_pairs * n].reshape(-1, n)
    by_digit, packed = packed_pointing(ptr, entries.reshape(-1, 3), arc_table, tables, n)
    full = (1 << n) - 1

    def takes(how, d):
        return full & ~(1 << d) if how == SELF else 1 << d if how == PEER else full & ~int(tables[arc_table[how], d])

    entries = entries.reshape(-1, 3).tolist()
    for key in range(ptr.size - 1):
        for d in range(n):
            want = {(c, takes(a, d) & takes(b, d)) for c, a, b in entries[ptr[key]:ptr[key + 1]]} - {
                (c, 0) for c in range(n * n)}
            got = [(x & 0xFFFF, x >> 16) for x in packed[by_digit[key * n + d]:by_digit[key * n + d + 1]].tolist()]
            assert len(got) == len(want) and set(got) == want, (key, d)
    if "antitaxicab" in str(doc):   # a look reads the one digit's few entries
        assert packed.size < 2 * len(entries)


@pytest.mark.parametrize("doc", [
    {"size": 9, "box": "3x3", "rules": [{"rule": "nonconsecutive"}]},
    {"size": 9, "box": "3x3", "rules": [{"rule": "antitaxicab"}]},
    {"size": 6, "box": "2x3", "rules": [{"rule": "antiknight"}, {"rule": "kropki", "color": "white",
                                                                  "cells": ["r1c1", "r2c1"]}]},
], ids=["nonconsecutive", "antitaxicab", "antiknight-kropki"])
def test_the_solver_s_tables_are_the_packed_entries_without_those_nothing_is_taken_through(doc):
    """:func:`pointing` (what the solver builds) gives the same arrays as packing every entry,
    the entries no digit takes anything through left out before (the anti-taxicab 9x9's are most
    of them), and a second puzzle of the rule set gets them from the cache."""
    puzzle = parse_puzzle(doc)
    shape = shape_tables(puzzle)
    rules = rule_tables(puzzle, shape)
    n, rint = puzzle.n, rules.rint
    arc_ptr = rint[rint[5]:rint[5] + n * n + 1]
    arc_other, arc_table = rint[rint[6]:rint[6] + rint[4]], rint[rint[7]:rint[7] + rint[4]]
    plain = _plain_arcs(puzzle, rules)
    tables = rules.compat[:2 * rules.n_pairs * n].reshape(-1, n)
    for houses in (True, False):   # the locked candidates of two places too, as the kernel reads them
        ptr, entries = pointing_tables(shape, arc_ptr, arc_other, plain, houses=houses)
        want = packed_pointing(ptr, entries.reshape(-1, 3), arc_table, tables, n)
        got = pointing(shape, arc_ptr, arc_other, plain, arc_table, tables, n, houses=houses)
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(got, want))
    assert got[1].size
    again = parse_puzzle(doc)
    rules_again = rule_tables(again)
    assert rules_again is not rules
    assert pointing(shape_tables(again), arc_ptr.copy(), arc_other.copy(), plain.copy(), arc_table.copy(),
                    tables.copy(), n)[1] is got[1]


def _pointing_rint(puzzle):
    rules = rule_tables(puzzle)
    return rules, rules.with_pointing(rules.rint, shape_tables(puzzle))


def test_no_tables_without_arcs_that_take_more_than_the_equal_digit_or_above_the_size_limit():
    for doc in ({"size": 9, "box": "3x3", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2", "r1c3"], "sum": 24},
                                                     {"rule": "diagonal"}]},
                {"size": 9, "box": "3x3", "rules": [{"rule": "antiknight"}, {"rule": "antiking"}]},
                {"size": 25, "box": "5x5", "rules": [{"rule": "nonconsecutive"}]}):
        rules, rint = _pointing_rint(parse_puzzle(doc))
        assert rint is rules.rint, doc
    assert MAX_POINTING_CELLS >= 256
    rules, rint = _pointing_rint(parse_puzzle({"size": 16, "box": "4x4", "rules": [{"rule": "nonconsecutive"}]}))
    assert rint[N_POINTING] > 0 and rint[32] == rules.rint.size   # after the tables, which stay
    assert np.array_equal(rint[:32], rules.rint[:32]) and np.array_equal(rint[35:rules.rint.size], rules.rint[35:])
    rules, rint = _pointing_rint(parse_puzzle({"size": 9, "box": "3x3", "rules": [{"rule": "nonconsecutive"}]}))
    lookup, _ = rules.with_support_lookup()
    both = rules.with_pointing(lookup, shape_tables(parse_puzzle({"size": 9, "box": "3x3"})))
    assert both[24] == 1 and both[N_POINTING] == rint[N_POINTING]


def _search(puzzle, rules, rint, compat, start=None, budget=1 << 40, limit=2):
    """The kernel's search from ``start`` (the puzzle's start masks by default): tallies and the
    stack after it."""
    shape = shape_tables(puzzle)
    n_cells = puzzle.n * puzzle.n
    stack = np.zeros((n_cells + 1, n_cells), dtype=np.uint64)
    stack[0] = start if start is not None else (
        start_masks(np.asarray(puzzle.grid).reshape(1, n_cells), puzzle.n)[0] & rules.allowed)
    flags = np.zeros((n_cells + 1, n_cells), dtype=np.bool_)
    origins = np.full(n_cells + 1, -1, dtype=np.int64)
    found, tallies = np.zeros((limit, n_cells), dtype=np.uint64), np.zeros(3, dtype=np.int64)
    work = rules.scratch(shape)
    dfsrules_native.load().search(stack, flags, origins, 1, found, tallies, shape, rint, compat, limit, budget,
                                  False, work, 0)
    return tallies, stack, origins, found


needs_kernel = pytest.mark.skipif(SOLVERS["dfsrules"].available() is not None,
                                  reason=f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")


@needs_kernel
def test_a_digit_with_two_neighbouring_places_takes_its_neighbours_from_both():
    """Non-consecutive 9x9, every cell open, the 5 of row 1 only at r1c1 and r1c2: both places lose
    4 and 6 (the other place would be 5 beside them), and r2c1 and r2c2 lose 5 (a neighbour of one
    place, in a box with the other), and so do the box's other cells off row 1 (r2c3, r3c1-r3c3:
    locked candidates, in a box with both places). Nothing else changes; without the tables nothing
    does."""
    puzzle = parse_puzzle({"size": 9, "box": "3x3", "rules": [{"rule": "nonconsecutive"}]})
    rules, pointing = _pointing_rint(puzzle)
    full = np.uint64(0x1FF)
    five, four_six = np.uint64(1 << 4), np.uint64((1 << 3) | (1 << 5))
    start = np.full(81, full, dtype=np.uint64)
    start[2:9] &= ~five
    want = start.copy()
    want[[0, 1]] &= ~four_six
    want[[9, 10, 11, 18, 19, 20]] &= ~five
    for rint, expected in ((pointing, want), (rules.rint, start)):
        tallies, stack, origins, _ = _search(puzzle, rules, rint, rules.compat, start, budget=1)
        assert tallies[1] == 1
        root = stack[1].copy()   # the propagated root: the child, with the branch cell's digits back
        branch = origins[1]
        root[branch] = stack[0][branch] | stack[1][branch]
        assert np.array_equal(root, expected), np.flatnonzero(root != expected)


@needs_kernel
def test_the_bench_non_consecutive_puzzles_need_far_fewer_nodes_to_the_same_answers():
    lines = (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    docs = [json.loads(line)["document"] for line in lines if json.loads(line)["family"] == "non-consecutive"]
    nodes = {"with": 0, "without": 0}
    for doc in docs:
        puzzle = parse_puzzle(doc)
        rules, pointing = _pointing_rint(puzzle)
        runs = {name: _search(puzzle, rules, rint, rules.compat)
                for name, rint in (("with", pointing), ("without", rules.rint))}
        for name, (tallies, _, _, _) in runs.items():
            assert tallies[0] == 1, (name, doc)
            nodes[name] += int(tallies[1])
        assert np.array_equal(runs["with"][3][0], runs["without"][3][0])
    assert nodes["with"] * 3 < nodes["without"] * 2, nodes   # measured: 130,382 against 268,154
