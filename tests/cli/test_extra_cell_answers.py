"""Answers told apart by extra cells (docs/conventions.md, "Extra cells"): every engine counts a
grid once per set of its extra cells' values, as ISS counts its ``Var`` cells. ``count --list``
prints grids only, so it says when a grid repeats, and ``explain`` says when the solutions differ
in the extra cells alone (it said "cells where they differ (0)" and offered no clue to add)."""
from __future__ import annotations

import json

import pytest

from pipeline.cli.main import main

# three grids; the two extra cells hold any two distinct digits (12 ordered pairs): 36 answers
FREE_PAIR = {"size": 4, "givens": "12..34....1.....", "extra": [{"name": "S", "size": 2}],
             "rules": [{"rule": "cage", "cells": ["S1", "S2"]}]}
# every grid cell given; S differs from r1c1 (a cage of two): three answers, one grid
FULL_GRID = {"size": 4, "givens": "1234341221434321", "extra": [{"name": "S", "size": 1}],
             "rules": [{"rule": "cage", "cells": ["S", "r1c1"]}]}


def call(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("solver", ["sat", "highs"])
def test_count_list_says_when_grids_repeat_for_their_extra_cells(capsys, solver):
    code, out, err = call(capsys, "count", json.dumps(FREE_PAIR), "--list", "--limit", 60, "--solver", solver)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "36 (solutions)"
    assert len(lines[1:]) == 36 and len(set(lines[1:])) == 3
    assert err.strip() == ("note: 33 of the grids listed repeat: solutions are told apart by the extra cells (S) "
                           "too, which --list does not print")


def test_no_note_when_each_listed_grid_is_its_own(capsys):
    one_each = {**FREE_PAIR, "rules": [{"rule": "cage", "cells": ["S1", "S2"], "sum": 3}, {"rule": "cage", "cells": ["S1", "r1c1"]}]}
    code, out, err = call(capsys, "count", json.dumps({**one_each, "givens": "1234341221434321"}), "--list")
    assert (code, out.splitlines(), err) == (0, ["1 (unique)", "1234341221434321"], "")


def test_explain_says_the_solutions_differ_in_the_extra_cells_only(capsys):
    code, out, err = call(capsys, "explain", json.dumps(FULL_GRID))
    assert code == 0 and err == ""
    assert out.splitlines() == ["3 solutions.", "the grids are the same: the solutions differ in the extra cells only, "
                                "so no clue in the grid makes the answer unique"]
    code, out, _ = call(capsys, "explain", json.dumps(FULL_GRID), "--format", "json")
    record = json.loads(out)
    assert (record["status"], record["count"], record["differing_cells"], record["add"]) == ("multiple", 3, [], [])
