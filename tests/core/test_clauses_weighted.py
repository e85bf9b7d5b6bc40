"""Weighted sums (ISS ``Sum``) and sums over extra cells as running sums for the SAT engine
(pipeline/core/clauses_running.py, ``WEIGHTED_SUMS``): ISS's 'Letter Little Killer' (little
killers adding up to ``10 A + C`` of extra cells) in a few thousand conflicts, the same counts as
the rows' own encodings, and CNF files written before the switch still read."""
from __future__ import annotations

import json

import numpy as np
import pytest
from seed_sweeps import sweep

from pipeline.core import clauses_running
from pipeline.core.build import build_model
from pipeline.core.clauses import value_literals
from pipeline.core.clauses_running import running_sum_clauses
from pipeline.core.puzzle import parse_puzzle
from sat_equivalence import assert_cnf_before_switch_reads, assert_counts_alike, cadical_within, iss_entry
from weighted_sum_puzzles import weighted_sum_puzzle

pytest.importorskip("pysat.solvers")





def test_letter_little_killer_is_solved_within_a_few_thousand_conflicts():
    # CaDiCaL finds its answer in under 5,000 conflicts with the running sums; with the weighted
    # rows' pseudo-Boolean encodings 300,000 were not enough
    model = build_model(parse_puzzle(iss_entry("Letter Little Killer")))
    assert cadical_within(model, 20_000) is True


def test_extra_cells_read_their_digit_columns():
    model = build_model(parse_puzzle(json.dumps(weighted_sum_puzzle(0)[0])))
    literals = value_literals(model, np.array([0, 81, 83]))
    names = model.col_names   # every position: the model is not reduced
    assert names[literals[1] - 1].tolist() == [f"aux_extra_1_1_{d}" for d in range(1, 10)]
    assert names[literals[2] - 1].tolist() == [f"aux_extra_1_3_{d}" for d in range(1, 10)]
    assert literals[0].tolist() == (model.convention.position(0, 0, np.arange(9)) + 1).tolist()


def test_the_weighted_rows_and_the_extra_cells_arrow_are_replaced():
    doc = weighted_sum_puzzle(3)[0]
    model = build_model(parse_puzzle(json.dumps(doc)))
    labels = np.array(["arrow_1"] + [f"sum_{k}" for k in range(1, len(doc["rules"]))] + ["cagesum_1"])
    assert running_sum_clauses(model, 1000, view=True, weighted=True).keep_rows(labels).tolist() == \
        [False] * (len(labels) - 1) + [True]
    assert running_sum_clauses(model, 1000, view=True).clauses == []


def test_a_sum_too_wide_for_its_table_keeps_its_row(monkeypatch):
    doc = weighted_sum_puzzle(3)[0]
    model = build_model(parse_puzzle(json.dumps(doc)))
    monkeypatch.setattr(clauses_running, "WEIGHTED_TABLE_CELLS", 0)
    assert running_sum_clauses(model, 1000, view=True, weighted=True).clauses == []


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", sweep(range(30), 12))
def test_the_weighted_sums_change_no_count(seed, clues, monkeypatch):
    doc, _, _ = weighted_sum_puzzle(seed)
    assert_counts_alike(doc, clues, lambda: monkeypatch.setattr(clauses_running, "WEIGHTED_SUMS", False))


def test_a_cnf_written_before_the_weighted_switch_still_reads(tmp_path, monkeypatch):
    """A file written before ``weighted_sums`` (no such key: the weighted rows by their PB
    encodings) reads; one written with it reads with the switch on."""
    model = build_model(parse_puzzle(iss_entry("Letter Little Killer")))
    assert_cnf_before_switch_reads(tmp_path, monkeypatch, model, clauses_running, "WEIGHTED_SUMS", "weighted_sums")
