"""Chaos clues with an extra cell (ISS ``Var``) as the clue cell: ``ChaosCount~VA~...``,
``ChaosArrow~VA~...``, ``CountDistinct~VA~CC...`` (the clue's value is the extra cell's digit).

They once stopped ``count`` and ``verify`` with an internal IndexError: the verification read the
clue's digit from the canvas alone. The oracle is ISS's meaning on every tiling of the 4x4 square
(:data:`test_rule_chaos.DIVISIONS_4`) that fits a fixed grid: the extra cell can hold exactly the
clue values those divisions give. ISS's own solver (run under node, 2026-12-07) counted 23
solutions of each full-grid string below, one per fitting division (it counts divisions; the
project counts grids with their extra cells): the oracle's division count is checked against it.
An extra cell has no region, so region cells that name one are refused.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from pipeline import api
from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules.chaosclues import ChaosClues, clue_tests
from pipeline.core.verify import grid_violations
from test_chaos_clues import arrow_value, count_value
from test_rule_chaos import DIVISIONS_4, _labels, holds_every_digit

GRID = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]])
GIVENS = "".join(f".~R{c // 4 + 1}C{c % 4 + 1}_{d}" for c, d in enumerate(GRID.ravel().tolist()))
HEAD = ".Shape~4x4.NoBoxes.ChaosConstruction.Var~A"
ISS_COUNT = 23   # ISS's countSolutions of each CASES string with GIVENS (node, 2026-12-07)
FITTING = [_labels(d, 4) for d in DIVISIONS_4 if holds_every_digit(GRID, d)]

CASES = {   # ISS clue over VA: the clue's value on a division (region labels per cell)
    "count": (".ChaosCount~VA~0~CC1~CC2~CC5~CC6", lambda r: count_value(r, [0, 1, 4, 5], 0)),
    "count offset 1": (".ChaosCount~VA~1~CC1~CC2~CC5~CC6", lambda r: count_value(r, [0, 1, 4, 5], 1)),
    "arrow": (".ChaosArrow~VA~0~CC1~CC2", lambda r: arrow_value(r, [[0, 1]], 0)),
    "arrow two arms": (".ChaosArrow~VA~0~CC6~CC7~CC8~-~CC6~CC10~CC14", lambda r: arrow_value(r, [[5, 6, 7], [5, 9, 13]], 0)),
    "distinct": (".CountDistinct~VA~CC1~CC2~CC6~CC16", lambda r: len({r[0], r[1], r[5], r[15]})),
}


def _values(name: str) -> set[int]:
    """The digits the extra cell can hold: the clue's values over the fitting divisions."""
    return {int(CASES[name][1](r)) for r in FITTING} & {1, 2, 3, 4}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_oracle_counts_what_iss_counted(name):
    assert sum(1 <= CASES[name][1](r) <= 4 for r in FITTING) == ISS_COUNT


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("solver", ["sat", "highs"])
def test_the_extra_cell_holds_the_clues_value(name, solver):
    clue, _ = CASES[name]
    values = _values(name)
    assert 0 < len(values) < 4                       # the clue decides something
    assert api.count(HEAD + clue + GIVENS, limit=10, solver=solver).count == len(values)
    for v in range(1, 5):
        assert api.count(f"{HEAD}{clue}{GIVENS}.~VA_{v}", limit=10, solver=solver).count == (v in values), v


@pytest.mark.parametrize("name", sorted(CASES))
def test_verify_reads_the_extra_cell(name):
    puzzle = parse_puzzle(document_from_iss(HEAD + CASES[name][0] + GIVENS))
    values = _values(name)
    for v in range(1, 5):
        broken = grid_violations(GRID, puzzle, extra=np.array([v]))
        assert (broken == []) == (v in values), (v, broken)
        assert all("chaos construction" in b["message"] for b in broken)
    assert grid_violations(GRID, puzzle) == []       # the extra cell not given: the clue is not judged


def test_clue_tests_leave_out_a_clue_past_the_grid():
    clues = ChaosClues(counts=((16, (0, 1), 0),), arrows=((16, ((0, 1),), 0),), distinct=((16, (0, 1)),))
    assert clue_tests(clues, GRID.ravel()) == []
    kept = clue_tests(clues, np.append(GRID.ravel(), 2))
    assert [m for _, _, m in kept] == ["count clue at cell 16", "arrow clue at cell 16", "distinct-region clue at cell 16"]
    same, apart = np.array([1, 1] + [2] * 14), np.array([1, 2] + [2] * 14)
    assert [holds(same) for _, holds, _ in kept] == [True, True, False]
    assert [holds(apart) for _, holds, _ in kept] == [False, False, True]


@pytest.mark.parametrize("clue", [".ChaosCount~R1C1~0~CC1~VA", ".ChaosArrow~R1C1~0~CC1~VA", ".ChaosCount~VA~0~VA~CC1",
                                  ".ChaosArrow~VA~0~CC1~-~VA~CC2"])
def test_a_var_cell_as_a_region_cell_is_refused(clue):
    # it was read as cell 16's region: rows over another block's columns (no solution, silently)
    with pytest.raises(PuzzleError, match="'VA' is an extra cell"):
        document_from_iss(HEAD + clue + GIVENS)


@pytest.mark.parametrize("key, value", [
    ("counts", [{"clue": "r1c1", "cells": ["r1c1", "A"]}]),
    ("arrows", [{"clue": "A", "arms": [["r1c1", "A"]]}]),
    ("same", [[["r1c1"], ["A"]]]),
    ("different", [["r1c1", "A"]]),
    ("distinct", [{"clue": "A", "cells": ["A", "r1c2"]}]),
])
def test_a_document_naming_an_extra_cell_as_a_region_cell_is_refused(key, value):
    doc = {"size": 4, "variant": "latin", "extra": [{"name": "A", "size": 1}], "rules": [{"rule": "chaos", key: value}]}
    with pytest.raises(PuzzleError, match=f"chaos.*{key}.*A is an extra cell, which has no region"):
        parse_puzzle(doc)


def _random_string(rng: random.Random) -> str:
    """Chaos clues over grid, region and Var cells in random mixes (many are refused)."""
    cells = [f"CC{k}" for k in range(1, 17)] * 3 + ["VA", "VB", "R2C2", "CC17", "-"]
    items = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["ChaosCount", "ChaosArrow", "SameValues", "AllDifferent", "CountDistinct"])
        head = {"SameValues": ["2"], "AllDifferent": []}.get(kind, [rng.choice(["VA", "VB", "R1C1"])])
        if kind in ("ChaosCount", "ChaosArrow"):
            head.append(rng.choice(["0", "1", ""]))
        items.append("~".join([kind, *head, *rng.sample(cells, rng.randint(0, 5))]))
    givens = GIVENS if rng.random() < 0.5 else "".join("." + g for g in GIVENS.split(".")[1:7])
    return f"{HEAD}.Var~B.{'.'.join(items)}{givens}" + (f".~VA_{rng.randint(1, 4)}" if rng.random() < 0.3 else "")


def test_random_var_cells_in_chaos_clues_never_break_the_pipeline():
    rng = random.Random(20261207)
    answered = 0
    for _ in range(12):
        text = _random_string(rng)
        try:
            result = api.count(text, limit=5, solver="sat")
            assert api.count(text, limit=5, solver="highs").count == result.count, text
        except PipelineError:
            continue
        answered += 1
        verdicts = [api.verify(text, grid).ok for grid in result.grids[:2]]
        assert all(verdicts), text
    assert answered
