"""Chaos construction's region clues and ISS mapping (issue 33): ``counts``, ``arrows``, ``same``,
``different`` of the ``chaos`` entry; ISS ``ChaosConstruction``, ``ChaosCount``, ``ChaosArrow`` and
``SameValues`` / ``AllDifferent`` over ``CC`` region cells.

The oracle computes each clue from ISS's definitions (chaos_construction.md, section 9) on a
fixed grid and division; the rows must admit exactly the (grid, division) pairs it accepts.
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

from oracles import ISS_COLLECTION
from pipeline import parse_puzzle
from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_write import iss_from_puzzle
from pipeline.core.rules.chaosclues import clue_violations
from pipeline.core.verify import verify_grid
from pipeline.solvers.base import get_solver
from test_rule_chaos import DIVISIONS_4, _feasible, _labels, holds_every_digit, latin_squares

COLLECTION = ISS_COLLECTION


def _name(cell: int, n: int = 4) -> str:
    return f"r{cell // n + 1}c{cell % n + 1}"


# -- the oracle ----------------------------------------------------------------------------------
def count_value(regions: np.ndarray, cells: list[int], offset: int) -> int:
    return sum(regions[c] == regions[cells[0]] for c in cells) - offset


def arrow_value(regions: np.ndarray, arms: list[list[int]], offset: int) -> int:
    arms = [a for a in arms if len(a) > 1] or arms[:1]
    total = 1
    for arm in arms:
        for c in arm[1:]:
            if regions[c] != regions[arm[0]]:
                break
            total += 1
    return total - offset


def oracle(grid: np.ndarray, regions: np.ndarray, clues: dict) -> bool:
    flat = grid.ravel()
    ok = all(flat[c["clue"]] == count_value(regions, c["cells"], c["offset"]) for c in clues["counts"])
    ok &= all(flat[a["clue"]] == arrow_value(regions, a["arms"], a["offset"]) for a in clues["arrows"])
    ok &= all(all(sorted(regions[g]) == sorted(regions[groups[0]]) for g in groups) for groups in clues["same"])
    ok &= all(len(set(regions[cells])) == len(cells) for cells in clues["different"])
    ok &= all(flat[c["clue"]] == len(set(regions[c["cells"]])) for c in clues.get("distinct", []))
    return bool(ok)


def _random_clue(rng: random.Random, grid: np.ndarray, regions: np.ndarray) -> dict | None:
    """One clue of a random kind, made to hold for ``regions`` (the other divisions then decide)."""
    clues: dict = {"counts": [], "arrows": [], "same": [], "different": [], "distinct": []}
    kind = rng.choice(sorted(clues))
    cells = list(range(16))
    flat = grid.ravel()
    if kind in ("counts", "arrows", "distinct"):
        offset = rng.randrange(2)
        if kind == "distinct":
            spec = {"cells": rng.sample(cells, rng.randrange(2, 9))}
            value = len(set(regions[spec["cells"]]))
        elif kind == "counts":
            spec = {"cells": rng.sample(cells, rng.randrange(2, 7)), "offset": offset}
            value = count_value(regions, spec["cells"], offset)
        else:
            row = [4 * rng.randrange(4) + c for c in range(4)]
            i = rng.randrange(4)
            spec = {"arms": [row[i::-1], row[i:]] if rng.random() < 0.5 else [row], "offset": offset}
            value = arrow_value(regions, spec["arms"], offset)
        holders = np.flatnonzero(flat == value).tolist()
        if not holders:
            return None
        clues[kind].append({"clue": rng.choice(holders), **spec})
    elif kind == "same":
        a = rng.choice(cells)
        clues["same"].append([[a], [rng.choice(np.flatnonzero(regions == regions[a]).tolist())]])
    else:
        picked = [rng.choice(np.flatnonzero(regions == k).tolist()) for k in rng.sample(range(4), 3)]
        clues["different"].append(picked)
    return clues


def _entry(clues: dict) -> dict:
    return {"rule": "chaos",
            "counts": [{"clue": _name(c["clue"]), "cells": [_name(x) for x in c["cells"]], "offset": c["offset"]}
                       for c in clues["counts"]],
            "arrows": [{"clue": _name(a["clue"]), "arms": [[_name(x) for x in arm] for arm in a["arms"]],
                        "offset": a["offset"]} for a in clues["arrows"]],
            "same": [[[_name(x) for x in g] for g in groups] for groups in clues["same"]],
            "different": [[_name(x) for x in cells] for cells in clues["different"]],
            "distinct": [{"clue": _name(c["clue"]), "cells": [_name(x) for x in c["cells"]]} for c in clues["distinct"]]}


def test_clue_rows_are_exact_for_fixed_grid_and_division():
    rng = random.Random(11)
    squares = latin_squares(4)
    agreed = accepted = 0
    for _ in range(50):
        grid = squares[rng.randrange(len(squares))]
        fitting = [d for d in DIVISIONS_4 if holds_every_digit(grid, d)]
        clues = _random_clue(rng, grid, _labels(rng.choice(fitting), 4) - 1)
        if clues is None:
            continue
        model = build_model(parse_puzzle(json.dumps({"size": 4, "variant": "latin", "rules": [_entry(clues)]})))
        for division in rng.sample(fitting, min(6, len(fitting))):
            regions = _labels(division, 4) - 1
            want = oracle(grid, regions, clues)
            assert _feasible(model, grid, regions + 1) == want, (clues, division)
            agreed += 1
            accepted += want
    assert agreed > 40 and 5 < accepted < agreed - 5      # both answers were exercised


def _collection(name: str) -> dict:
    if not COLLECTION.is_file():
        pytest.skip(f"{COLLECTION} is absent (../shared is not beside the project)")
    for line in COLLECTION.read_text().splitlines():
        d = json.loads(line)
        if d["name"] == name:
            return d
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["Chaos Construction: 6x6", "Chaos Construction: cell count",
                                  "Chaos Construction: cell count [harder]", "Cavernous Construction: 6x6"])
def test_collection_6x6_solves_to_iss_solution(name):
    d = _collection(name)
    puzzle = parse_puzzle(d["input"])
    result = get_solver("sat").solve(build_model(puzzle), time_limit=60)
    assert result.status == "optimal"
    assert "".join(map(str, result.grid.ravel().tolist())) == d["solution"]
    assert verify_grid(result.grid, puzzle).ok


def test_iss_round_trip_and_forms():
    d = _collection("Chaos Construction: cell count")
    doc = document_from_iss(d["input"])
    chaos = [r for r in doc["rules"] if r["rule"] == "chaos"]
    assert len(chaos) == 1 and chaos[0]["counts"]
    # the control-only form counts the control's own region cell and its neighbours
    assert document_from_iss(".Shape~6x6.NoBoxes.ChaosCount~R1C1.ChaosConstruction")["rules"] == [
        {"rule": "chaos", "counts": [{"clue": "r1c1", "cells": ["r1c1", "r2c1", "r1c2", "r2c2"], "offset": 0}]}]
    arrows = document_from_iss(".Shape~4x4.NoBoxes.ChaosConstruction.ChaosArrow~R2C2~1")["rules"][0]["arrows"]
    assert arrows == [{"clue": "r2c2", "offset": 1, "arms": [["r2c2", "r2c1"], ["r2c2", "r2c3", "r2c4"],
                                                              ["r2c2", "r1c2"], ["r2c2", "r3c2", "r4c2"]]}]
    text = ".Shape~4x4.NoBoxes.ChaosConstruction.SameValues~2~CC1~CC6.AllDifferent~CC1~CC16.AllDifferent~R1C1~R2C2"
    rules = document_from_iss(text)["rules"]
    assert rules[0] == {"rule": "chaos", "same": [[["r1c1"], ["r2c2"]]], "different": [["r1c1", "r4c4"]]}
    assert rules[1]["rule"] != "chaos"                        # grid cells keep their own reader
    distinct = document_from_iss(".Shape~4x4.NoBoxes.ChaosConstruction.CountDistinct~R1C1~CC1~CC2~CC16")["rules"]
    assert distinct == [{"rule": "chaos", "distinct": [{"clue": "r1c1", "cells": ["r1c1", "r1c2", "r4c4"]}]}]
    puzzle = parse_puzzle(d["input"])
    again = parse_puzzle(iss_from_puzzle(puzzle))
    assert again.to_dict() == puzzle.to_dict()
    assert "ChaosConstruction" in iss_from_puzzle(puzzle) and "ChaosCount~" in iss_from_puzzle(puzzle)


@pytest.mark.parametrize("text, word", [
    (".Shape~4x4.NoBoxes.ChaosConstruction~1", "no arguments"),
    (".Shape~4x4.NoBoxes.ChaosConstruction.ChaosCount~R1C1~2~CC1~CC2", "offset"),
    (".Shape~4x4.NoBoxes.ChaosConstruction.AllDifferent~CC1~R1C2", "mixes"),
    (".Shape~4x4.NoBoxes.ChaosConstruction.SameValues~3~CC1~CC2", "groups"),
    (".Shape~4x4.NoBoxes.ChaosConstruction.ChaosCount~R1C1~0~CC17", "region cell"),
])
def test_bad_iss_refused_in_one_line(text, word):
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text)
    assert "\n" not in str(info.value) and word in str(info.value)


@pytest.mark.parametrize("clue, cell, region", [
    ("ChaosCount~R1C1~0~CC1~R1C2", "R1C2", "CC2"),
    ("ChaosCount~R1C1~~R2C1~R2C2", "R2C1", "CC5"),
    ("ChaosArrow~R1C1~0~CC1~CC2~-~CC1~R2C1", "R2C1", "CC5"),
    ("ChaosArrow~R4C4~1~R4C4~R4C3", "R4C4", "CC16"),
])
def test_a_grid_cell_where_iss_takes_a_region_cell_is_refused(clue, cell, region, capsys):
    """ISS's parser takes the cells after a ChaosCount/ChaosArrow control as CC region cells only
    (sudoku_builder: "cells after the control cell must be Chaos Construction region cells"); only
    its UI maps a selection of grid cells. They were read as their region cells."""
    text = f".Shape~4x4.NoBoxes.ChaosConstruction.{clue}"
    kind = clue.split("~")[0]
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text)
    message = str(info.value)
    assert "\n" not in message and f"ISS: {kind} (" in message, message
    assert f"'{cell}' is a grid cell where {kind} takes region cells" in message and f"write {region} for {cell}" in message
    assert main(["solve", text]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"'{cell}' is a grid cell" in err and "Traceback" not in err


def test_verify_names_a_grid_no_division_of_which_keeps_the_clues():
    """A count over the first row, clued at r1c1 (digit 1) or at r1c2 (digit 2): verify agrees with
    the oracle's search over every division, and the two verdicts differ."""
    grid = np.array([[1, 2, 3, 4], [2, 1, 4, 3], [3, 4, 1, 2], [4, 3, 2, 1]])
    verdicts = []
    for clue in (0, 1):
        entry = {"rule": "chaos", "counts": [{"clue": _name(clue), "cells": ["r1c1", "r1c2", "r1c3", "r1c4"],
                                              "offset": 0}]}
        puzzle = parse_puzzle(json.dumps({"size": 4, "variant": "latin", "rules": [entry]}))
        clues = {"counts": [{"clue": clue, "cells": [0, 1, 2, 3], "offset": 0}], "arrows": [], "same": [],
                 "different": []}
        want = any(holds_every_digit(grid, d) and oracle(grid, _labels(d, 4) - 1, clues) for d in DIVISIONS_4)
        verdict = verify_grid(grid, puzzle)
        assert verdict.ok == want
        if not want:
            assert "chaos" in verdict.message
        verdicts.append(want)
    assert verdicts == [True, False]


def test_verify_judging_clues_mid_search_agrees_with_every_division():
    """verify's division search judges each clue as soon as the regions drawn decide it (a count
    or an arrow by its first cell's region, a distinct-region clue by bounds, same-region groups
    by each drawn region's share): its verdict must equal the oracle's over all 4x4 divisions, for
    clues of mixed kinds that one division keeps and others may break."""
    rng = random.Random(5)
    squares = latin_squares(4)
    verdicts = []
    for _ in range(60):
        grid = squares[rng.randrange(len(squares))]
        fitting = [d for d in DIVISIONS_4 if holds_every_digit(grid, d)]
        clues: dict = {"counts": [], "arrows": [], "same": [], "different": [], "distinct": []}
        for _ in range(rng.randrange(1, 5)):   # each made to hold for its own division: together maybe none
            one = _random_clue(rng, grid, _labels(rng.choice(rng.choice([fitting, DIVISIONS_4])), 4) - 1)
            for kind, items in (one or {}).items():
                clues[kind].extend(items)
        if not any(clues.values()):
            continue
        want = any(oracle(grid, _labels(d, 4) - 1, clues) for d in fitting)
        puzzle = parse_puzzle(json.dumps({"size": 4, "variant": "latin", "rules": [_entry(clues)]}))
        assert verify_grid(grid, puzzle).ok == want, clues
        rule = next(r for r in puzzle.rules if r.kind == "chaos")
        for d in fitting[:3]:   # a whole division, its regions numbered from 0 or from 1
            kept = oracle(grid, _labels(d, 4) - 1, clues)
            for base in (0, 1):
                assert (not clue_violations(rule.clues, grid.ravel(), _labels(d, 4) - 1 + base)) == kept
        verdicts.append(want)
    assert len(verdicts) > 40 and 5 < sum(verdicts) < len(verdicts) - 5   # both verdicts were exercised


@pytest.mark.parametrize("same", [[["r1c1"], ["r1c1"]], [["r1c1", "r1c2"], ["r1c2", "r1c1"]], [["r1c1", "r1c2"], ["r1c2", "r2c2"]]])
def test_same_groups_sharing_cells_cancel_them(same):
    """A helper's check: ``same`` groups holding the same cells gave stored zero coefficients
    (1 - 1), which the SAT engine read as a literal 0: a 4x4 chaos square with a group compared
    with itself had no solution for ``sat`` (so ``auto``), against several for ``cpsat``."""
    puzzle = parse_puzzle(json.dumps({"size": 4, "variant": "latin", "rules": [{"rule": "chaos", "same": [same]}]}))
    model = build_model(puzzle)
    assert not (model.Aeq.tocsr().data == 0).any() and not (model.Aineq.tocsr().data == 0).any()
    counts = {name: get_solver(name).count(model, 5).count for name in ("sat", "cpsat")}
    assert counts["sat"] == counts["cpsat"] == 5, counts
    answer = get_solver("sat").solve(model)
    assert answer.status == "optimal" and verify_grid(answer.grid, puzzle)
