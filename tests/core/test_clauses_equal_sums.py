"""The region-sum lines' and zippers' equal sums (EQUAL_SUMS) and the equal-sum rules' segments
(ISS EqualSum, EQUALSUM_SEGMENTS) as running sums onto a shared total, for the SAT engine
(pipeline/core/clauses_running.py): their rows are replaced and no others, the clauses hold on the
grid the lines came from, they change no count, and a CNF of them reads back."""
from __future__ import annotations

import json

import numpy as np
import pytest
from seed_sweeps import sweep

from formats import cnf
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.clauses import encode
from pipeline.core.puzzle import parse_puzzle
from pipeline.core import clauses_running
from pipeline.core.clauses_running import equal_sum_parts, running_sum_clauses
from sat_equivalence import assert_counts_alike, assert_holds_on, cadical_within, iss_entry
from equal_sum_puzzles import equal_sum_puzzle
from equalsum_rule_puzzles import equalsum_rule_puzzle

pytest.importorskip("pysat.solvers")
from pipeline.solvers import sat, sat_rules  # noqa: E402




LINES = {"size": 9, "rules": [
    {"rule": "regionsum", "cells": ["r1c2", "r1c3", "r1c4", "r2c4", "r2c7"]},
    {"rule": "zipper", "cells": ["r9c1", "r9c2", "r9c3"]},
    {"rule": "zipper", "cells": ["r8c1", "r8c2", "r8c3", "r8c4"]},
    {"rule": "regionsum", "cells": ["r5c5", "r5c6"]},
    {"rule": "cage", "cells": ["r3c1", "r3c2"], "sum": 10}]}


def test_the_lines_rows_are_replaced_and_no_others():
    model = build_model(parse_puzzle(json.dumps(LINES)))
    made = running_sum_clauses(model, 1000, view=True, equal=True)
    labels = np.array(["regionsum_1_1", "regionsum_1_2", "zipper_1_1", "zipper_2_1", "cagesum_1", "arrow_1"])
    assert made.keep_rows(labels).tolist() == [False, False, False, False, True, True]
    # without ``equal`` the rows stay
    assert running_sum_clauses(model, 1000, view=True).clauses == []


def test_region_sum_lines_hard_is_solved_within_twelve_thousand_conflicts():
    # CaDiCaL finds its answer in about 7,800 conflicts with the shared totals; with the rows'
    # pseudo-Boolean encodings it took about 22,000
    model = build_model(parse_puzzle(iss_entry("Region sum lines, hard")))
    assert cadical_within(model, 12_000) is True


def test_zipper_lines_easy_is_solved_within_a_thousand_conflicts():
    # about 420 conflicts with the shared totals, about 2,500 with the rows
    model = build_model(parse_puzzle(iss_entry("Zipper lines - easy")))
    assert cadical_within(model, 1_000) is True


def test_the_parts_are_the_box_segments_the_pairs_and_the_centre():
    puzzle = parse_puzzle(json.dumps(LINES))
    parts = {names: [part.tolist() for part in cuts] for names, cuts in equal_sum_parts(puzzle.rules, puzzle.board)}
    # r1c2 r1c3 | r1c4 r2c4 | r2c7; r9c1 + r9c3 = r9c2; r8c1 + r8c4 = r8c2 + r8c3; r5c5 r5c6 in one box: no rows
    assert parts == {("regionsum_1_1", "regionsum_1_2"): [[1, 2], [3, 12], [15]],
                     ("zipper_1_1",): [[72, 74], [73]],
                     ("zipper_2_1",): [[63, 66], [64, 65]]}


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", range(10))
def test_the_clauses_hold_on_the_grid_the_lines_came_from(seed, clues):
    doc, grid, held = equal_sum_puzzle(seed)
    if not held:
        pytest.skip("this seed adds a line that does not hold: no grid to hold on")
    assert_holds_on(doc, grid, clues)


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", sweep(range(30), 12))
def test_the_clauses_change_no_count(seed, clues, monkeypatch):
    doc, _, _ = equal_sum_puzzle(seed)
    assert_counts_alike(doc, clues, lambda: monkeypatch.setattr(clauses_running, "EQUAL_SUMS", False))


# r3c3 alone (1..4) and the whole box r1c3 r1c4 r2c3 r2c4 (4..16 by bounds alone) meet at the one
# total 4: the shared total had no literal and building its clauses raised ValueError
ONE_TOTAL = {"size": 4, "rules": [{"rule": "regionsum", "cells": ["r3c3", "r2c3", "r1c4", "r1c3", "r2c4"]}]}


@pytest.mark.parametrize("clues", ["rows", "reduce"])
def test_parts_meeting_at_one_total_change_no_count(clues, monkeypatch):
    assert_counts_alike(ONE_TOTAL, clues, lambda: monkeypatch.setattr(clauses_running, "EQUAL_SUMS", False))


# ISS EqualSum (rule ``equalsum``, rows ``equalsum_k_s`` = segment s less segment 1, s = 2..G):
# its segments on the grid share a total too (EQUALSUM_SEGMENTS)
SEGMENTS = {"size": 9, "rules": [
    {"rule": "equalsum", "segments": [["r1c1", "r1c2"], ["r2c2", "r1c2"], ["r9c9"]]},
    {"rule": "equalsum", "segments": [["r5c5"]]},
    {"rule": "equalsum", "segments": [["r3c3", "r3c4"], ["r4c4", "r4c5", "r4c6"]]},
    {"rule": "zipper", "cells": ["r7c1", "r7c2", "r7c3"]}]}


def _segments_off(monkeypatch):
    return lambda: monkeypatch.setattr(clauses_running, "EQUALSUM_SEGMENTS", False)


def test_the_equal_sum_rows_are_replaced_and_no_others():
    model = build_model(parse_puzzle(json.dumps(SEGMENTS)))
    labels = np.array(["equalsum_1_2", "equalsum_1_3", "equalsum_3_2", "zipper_1_1", "equalsum_1_1", "cagesum_1"])
    made = running_sum_clauses(model, 1000, view=True, segments=True)
    assert made.keep_rows(labels).tolist() == [False, False, False, True, True, True]
    both = running_sum_clauses(model, 1000, view=True, equal=True, segments=True)
    assert both.keep_rows(labels).tolist() == [False, False, False, False, True, True]
    # without ``segments`` the rows stay
    assert running_sum_clauses(model, 1000, view=True, equal=True).keep_rows(labels).tolist() == \
        [True, True, True, False, True, True]


def test_segments_over_extra_cells_keep_their_rows():
    # House of Cards: segments 1-4 on the 6x6 grid, 5-8 over its skyscraper counts (extra cells)
    model = build_model(parse_puzzle(iss_entry("House of Cards")))
    labels = np.array([f"equalsum_1_{s}" for s in range(2, 9)])
    made = running_sum_clauses(model, 10_000, view=True, segments=True)
    assert made.keep_rows(labels).tolist() == [False, False, False, True, True, True, True]


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", range(10))
def test_the_segments_clauses_hold_on_the_grid_they_came_from(seed, clues):
    doc, grid, held = equalsum_rule_puzzle(seed)
    if not held:
        pytest.skip("this seed adds a rule that does not hold: no grid to hold on")
    assert_holds_on(doc, grid, clues)


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", sweep(range(30), 12))
def test_the_segments_clauses_change_no_count(seed, clues, monkeypatch):
    doc, _, _ = equalsum_rule_puzzle(seed)
    assert_counts_alike(doc, clues, _segments_off(monkeypatch))


def test_the_random_equal_sum_puzzles_have_none_one_and_two_solutions():
    # the generator covers every count the tests above compare
    counts = set()
    for seed in range(30):
        model = build_model(parse_puzzle(json.dumps(equalsum_rule_puzzle(seed)[0])))
        counts.add(sat.count(model, 2, time_limit=60).count)
    assert counts == {0, 1, 2}


def test_magic_square_is_solved_with_a_tenth_of_the_rule_clauses(monkeypatch):
    # 5,888 rule clauses with the segments' shared total, 60,581 with the rows' encodings
    model = build_model(parse_puzzle(iss_entry("Magic square")))
    units = encode(model, "pairwise")
    ours, _ = sat_rules.rules_beyond_units(model, units.n_vars, units.amo, view=True)
    _segments_off(monkeypatch)()
    theirs, _ = sat_rules.rules_beyond_units(model, units.n_vars, units.amo, view=True)
    assert 10 * len(ours) < len(theirs)


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_an_equal_sum_cnf_exports_and_reads_back(tmp_path, seed):
    doc = equalsum_rule_puzzle(seed)[0]
    source = tmp_path / "puzzle.json"
    source.write_text(json.dumps(doc))
    assert main(["export", str(source), "--to", str(tmp_path / "out"), "--formats", "cnf", "--quiet"]) == 0
    path = next((tmp_path / "out").glob("*.cnf"))
    facts = cnf.read_cnf(path).facts["rule_rows"]
    assert facts["encodings"]["equalsum_segments"] is True
    model = build_model(parse_puzzle(json.dumps(doc)))
    engine = sat.SatEngine(model, fix_clues=True)
    try:
        assert facts["clauses"] == len(engine._extra)
    finally:
        engine.close()
    cnf.read(path)   # the rule clauses encoded again are the file's


def test_an_equal_sum_cnf_written_before_the_switch_still_reads(tmp_path, monkeypatch):
    """A file written with ``equal_sums`` on but before ``equalsum_segments`` (no such key: the
    equal-sum rows by their own encodings) reads; one written with it reads with the switch off."""
    model = build_model(parse_puzzle(json.dumps(SEGMENTS)))
    old, new = tmp_path / "old.cnf", tmp_path / "new.cnf"
    cnf.write(model, new)
    monkeypatch.setattr(clauses_running, "EQUALSUM_SEGMENTS", False)
    cnf.write(model, old)
    text = old.read_text()
    facts = json.loads(text.split(cnf.CNF_TAG, 1)[1].split("\n", 1)[0])
    assert facts["rule_rows"]["encodings"].pop("equalsum_segments") is False
    assert facts["rule_rows"]["encodings"]["equal_sums"] is True
    line = f"c {cnf.CNF_TAG} {json.dumps(facts, separators=(',', ':'))}"
    old.write_text("\n".join(line if cnf.CNF_TAG in row else row for row in text.split("\n")))
    assert cnf.read_cnf(old).facts["rule_rows"]["clauses"] > cnf.read_cnf(new).facts["rule_rows"]["clauses"]
    cnf.read(old)
    cnf.read(new)


# values 0..3 (a segment's least sum is 0): counts 2, 0 (r1c1 alone against its whole row cannot
# meet: the other three add up to at least 0 + 1 + 2) and 2
ZERO_BASED = [{"size": 4, "values": "0-3", "rules": [
                  {"rule": "equalsum", "segments": [["r1c1", "r1c2"], ["r2c3"], ["r3c3", "r4c4", "r4c1"]]}]},
              {"size": 4, "values": "0-3", "rules": [
                  {"rule": "equalsum", "segments": [["r1c1"], ["r1c1", "r1c2", "r1c3", "r1c4"]]}]},
              {"size": 4, "values": "0-3", "givens": "3...............", "rules": [
                  {"rule": "equalsum", "segments": [["r1c1"], ["r2c1", "r2c2"], ["r3c3", "r4c4"]]}]}]


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("k", range(len(ZERO_BASED)))
def test_segments_of_values_from_zero_change_no_count(k, clues, monkeypatch):
    model = build_model(parse_puzzle(json.dumps(ZERO_BASED[k])))
    assert running_sum_clauses(model, 1000, view=True, segments=True).clauses
    assert_counts_alike(ZERO_BASED[k], clues, _segments_off(monkeypatch))
