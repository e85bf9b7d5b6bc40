"""The little killers' and arrows' sums as running sums for the SAT engine
(pipeline/core/clauses_running.py): they let CaDiCaL solve ISS's LITTLE_KILLER_SNIPES#5 and
"Long sums 1" in a fraction of the conflicts, hold on every solution, and change no count."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from seed_sweeps import sweep

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core import clauses_running
from pipeline.solvers import sat
from sat_equivalence import assert_cnf_before_switch_reads, assert_counts_alike, assert_holds_on, cadical_within, grid_literals, iss_entry
from pipeline.core.clauses_running import running_sum_clauses
from little_killer_puzzles import little_killer_puzzle
from arrow_puzzles import arrow_puzzle, shared_arrow_puzzle

pysat_solvers = pytest.importorskip("pysat.solvers")

COLLECTION = Path(__file__).resolve().parents[1] / "data" / "iss" / "collections.jsonl"




def test_snipes_5_is_solved_within_a_few_thousand_conflicts():
    # CaDiCaL finds its answer in about 2,800 conflicts with the running sums; with the clue rows'
    # pseudo-Boolean encodings it took about 35,000
    model = build_model(parse_puzzle(iss_entry("LITTLE_KILLER_SNIPES#5")))
    assert cadical_within(model, 10_000) is True


def test_no_clauses_without_little_killers():
    plain = build_model(parse_puzzle(".Cage~10~R1C1~R1C2"))
    made = running_sum_clauses(plain, 1000, view=True)
    assert (made.clauses, made.n_aux) == ([], 0)
    assert made.keep_rows(np.array(["littlekiller_1", "cagesum_1"])).tolist() == [True, True]


def test_only_the_little_killers_rows_are_replaced():
    model = build_model(parse_puzzle(".LittleKiller~45~R1C1.Cage~10~R1C1~R1C2.LittleKiller~40~R2C1"))
    made = running_sum_clauses(model, 1000, view=True)
    assert made.n_aux > 0
    assert made.keep_rows(np.array(["littlekiller_1", "cagesum_1", "littlekiller_2"])).tolist() == [False, True, False]


def test_the_arrows_rows_are_replaced_and_no_others():
    model = build_model(parse_puzzle(".Arrow~R1C1~R1C2~R1C3.PillArrow~2~R5C5~R5C6~R6C6~R7C7~R8C8"
                                     ".DoubleArrow~R9C1~R9C2~R9C3.Cage~10~R3C1~R3C2.Zipper~R4C1~R4C2~R4C3"))
    made = running_sum_clauses(model, 1000, view=True)
    labels = np.array(["arrow_1", "pillarrow_1", "doublearrow_1", "cagesum_1", "zipper_1_1"])
    assert made.keep_rows(labels).tolist() == [False, False, False, True, True]


def test_long_sums_1_is_solved_within_a_hundred_thousand_conflicts():
    # a pill arrow of 33 line cells: CaDiCaL counts it to 2 in about 62,000 conflicts with the
    # running sum; with the row's pseudo-Boolean encoding, 3,000,000 were not enough
    model = build_model(parse_puzzle(iss_entry("Long sums 1")))
    assert cadical_within(model, 100_000) is True


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", range(10))
def test_the_arrows_clauses_hold_on_the_grid_the_arrows_came_from(seed, clues):
    doc, grid, held = arrow_puzzle(seed)
    if not held:
        pytest.skip("this seed gives an arrow a wrong head: no grid to hold on")
    assert_holds_on({**doc, "givens": "." * 81}, grid, clues)


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", sweep(range(30), 12))
def test_the_arrows_clauses_change_no_count(seed, clues, monkeypatch):
    doc, _, _ = arrow_puzzle(seed)
    assert_counts_alike(doc, clues, lambda: monkeypatch.setattr(clauses_running, "RUNNING_SUMS", False))


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", range(12))
def test_the_clauses_hold_on_the_grid_the_clues_came_from(seed, clues):
    doc, grid, held = little_killer_puzzle(seed)
    if not held:
        pytest.skip("this seed's first total is off by one: no grid to hold on")
    assert_holds_on(doc, grid, clues)


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", sweep(range(30), 12))
def test_the_clauses_change_no_count(seed, clues, monkeypatch):
    doc, _, _ = little_killer_puzzle(seed)
    assert_counts_alike(doc, clues, lambda: monkeypatch.setattr(clauses_running, "RUNNING_SUMS", False))


def test_a_puzzle_with_cages_and_little_killers_keeps_both_encodings_apart():
    # the cages' combinations and the running sums each leave out their own rows (before, the
    # second mask was taken over rows the first had already dropped: an IndexError)
    model = build_model(parse_puzzle(".LittleKiller~45~R1C1.Cage~10~R1C1~R1C2.Cage~17~R9C8~R9C9"))
    counts = []
    for running in (True, False):
        clauses_running.RUNNING_SUMS = running
        try:
            engine = sat.SatEngine(model, fix_clues=True)
            counts.append(engine.count(model, 2, time_limit=60).count)
            engine.close()
        finally:
            clauses_running.RUNNING_SUMS = True
    assert counts == [2, 2]


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", range(10))
def test_shared_tails_clauses_hold_on_the_grid_the_arrows_came_from(seed, clues):
    doc, grid, held = shared_arrow_puzzle(seed)
    if not held:
        pytest.skip("this seed gives a head a wrong given: no grid to hold on")
    assert_holds_on({**doc, "givens": "." * 81}, grid, clues)


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("off", ["PREFIX_SUMS", "RUNNING_SUMS"])
@pytest.mark.parametrize("seed", sweep(range(20), 8))
def test_shared_tails_change_no_count(seed, off, clues, monkeypatch):
    # arrows and pill arrows on one shared tail: counts 0, 1 and 2 among the seeds; against each
    # sum on its own and against the rows
    doc, _, _ = shared_arrow_puzzle(seed)
    assert_counts_alike(doc, clues, lambda: monkeypatch.setattr(clauses_running, off, False))


def test_shared_tails_share_their_rows(monkeypatch):
    # "Triple digits": ten arrows and pill arrows whose lines all end on the same cells
    model = build_model(parse_puzzle(iss_entry("Triple digits")))
    ours = running_sum_clauses(model, 729, view=False, prefixes=True)
    theirs = running_sum_clauses(model, 729, view=False, prefixes=False)
    assert ours.labels == theirs.labels
    assert 2 * ours.n_aux < theirs.n_aux and 2 * len(ours.clauses) < len(theirs.clauses)


def test_triple_digits_clauses_hold_on_its_solution():
    entry = next(json.loads(line) for line in COLLECTION.read_text(encoding="utf-8").splitlines()
                 if json.loads(line)["name"] == "Triple digits")
    model = build_model(parse_puzzle(entry["input"]))
    grid = np.array([int(ch) for ch in entry["solution"]]).reshape(9, 9)
    engine = sat.SatEngine(model, fix_clues=True)
    try:
        assert engine.solve_assumed(grid_literals(model, grid), time_limit=60).status == "optimal"
    finally:
        engine.close()


def test_a_cnf_written_before_the_prefix_switch_still_reads(tmp_path, monkeypatch):
    """A file written with ``running_sums`` on but before ``prefix_sums`` (no such key: each sum
    on its own) reads; one written with it reads with the switch on."""
    model = build_model(parse_puzzle(json.dumps(shared_arrow_puzzle(1)[0])))
    assert_cnf_before_switch_reads(tmp_path, monkeypatch, model, clauses_running, "PREFIX_SUMS", "prefix_sums")
