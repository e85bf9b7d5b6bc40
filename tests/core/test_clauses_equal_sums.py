"""The region-sum lines' and zippers' equal sums as running sums onto a shared total, for the SAT
engine (pipeline/core/clauses_running.py, EQUAL_SUMS): their rows are replaced and no others, the
clauses hold on the grid the lines came from, and they change no count."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core import clauses_running
from pipeline.core.clauses_running import equal_sum_parts, running_sum_clauses
from sat_equivalence import assert_counts_alike, assert_holds_on, cadical_within
from equal_sum_puzzles import equal_sum_puzzle

pytest.importorskip("pysat.solvers")

COLLECTION = Path(__file__).resolve().parents[1] / "data" / "iss" / "collections.jsonl"


def _entry(name: str) -> str:
    for line in COLLECTION.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["name"] == name:
            return entry["input"]
    raise LookupError(name)

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
    model = build_model(parse_puzzle(_entry("Region sum lines, hard")))
    assert cadical_within(model, 12_000) is True


def test_zipper_lines_easy_is_solved_within_a_thousand_conflicts():
    # about 420 conflicts with the shared totals, about 2,500 with the rows
    model = build_model(parse_puzzle(_entry("Zipper lines - easy")))
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
@pytest.mark.parametrize("seed", range(30))
def test_the_clauses_change_no_count(seed, clues, monkeypatch):
    doc, _, _ = equal_sum_puzzle(seed)
    assert_counts_alike(doc, clues, lambda: monkeypatch.setattr(clauses_running, "EQUAL_SUMS", False))


# r3c3 alone (1..4) and the whole box r1c3 r1c4 r2c3 r2c4 (4..16 by bounds alone) meet at the one
# total 4: the shared total had no literal and building its clauses raised ValueError
ONE_TOTAL = {"size": 4, "rules": [{"rule": "regionsum", "cells": ["r3c3", "r2c3", "r1c4", "r1c3", "r2c4"]}]}


@pytest.mark.parametrize("clues", ["rows", "reduce"])
def test_parts_meeting_at_one_total_change_no_count(clues, monkeypatch):
    assert_counts_alike(ONE_TOTAL, clues, lambda: monkeypatch.setattr(clauses_running, "EQUAL_SUMS", False))
