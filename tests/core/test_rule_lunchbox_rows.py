"""The lunchbox's rows (auxiliary columns: where the smallest and the largest digit are) checked
exact against a brute-force oracle written from ISS's definition, never from the rows: every
assignment of the cells, every sum, the auxiliary columns enumerated. The rows are built with a
few numpy calls for every end pair at once; this pins them to the rule's meaning."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from pipeline import parse_puzzle
from pipeline.core.build import build_model


def lunchbox_holds(line, total: int) -> bool:
    """ISS: distinct digits; the cells strictly between the smallest and the largest add up to ``total``."""
    line = list(line)
    if len(set(line)) != len(line):
        return False
    i, j = sorted((line.index(min(line)), line.index(max(line))))
    return sum(line[i + 1:j]) == total


def feasible(model, cells: list[int], lines: np.ndarray) -> np.ndarray:
    """For each row of ``lines`` (digits of ``cells``): do some 0-1 auxiliary values satisfy R?"""
    conv, R = model.convention, model.R
    matrix = R.matrix.tocsc()
    cell_part, aux_part = matrix[:, :conv.n_vars], matrix[:, conv.n_vars:].toarray()
    r, c = np.divmod(np.asarray(cells), model.puzzle.cols)
    pos = conv.position(np.broadcast_to(r, lines.shape), np.broadcast_to(c, lines.shape), lines - 1)
    x = np.zeros((lines.shape[0], conv.n_vars))
    np.put_along_axis(x, pos, 1.0, axis=1)
    residual = R.rhs[None, :] - (cell_part @ x.T).T
    combos = np.array(list(itertools.product((0, 1), repeat=R.n_aux)), dtype=float)
    lhs = combos @ aux_part.T
    eq = R.sense == "E"
    ok_eq = np.abs(lhs[None, :, eq] - residual[:, None, eq]) < 1e-9
    ok_le = lhs[None, :, ~eq] <= residual[:, None, ~eq] + 1e-9
    return (ok_eq.all(axis=2) & ok_le.all(axis=2)).any(axis=1)


# one row (a unit: no distinct rows, the lines distinct) and a bent line over three boxes (distinct rows)
PLACES = {"row": ["r1c1", "r1c2", "r1c3", "r1c4"], "bent": ["r1c1", "r3c2", "r5c4", "r6c6"]}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_lunchbox_rows_are_exact(place):
    """The rows admit an assignment exactly when the oracle does, for every sum (one sum none can reach)."""
    names = PLACES[place]
    if place == "row":
        lines = np.array(list(itertools.permutations(range(1, 7), len(names))))
    else:
        lines = np.array(list(itertools.product(range(1, 7), repeat=len(names))))
    for total in range(0, 10):
        puzzle = parse_puzzle(json.dumps({"size": 6, "rules": [{"rule": "lunchbox", "cells": names, "sum": total}]}))
        rule = puzzle.rules[0]
        got = feasible(build_model(puzzle), list(rule.cell_list), lines)
        want = np.array([lunchbox_holds(line, total) for line in lines])
        assert np.array_equal(got, want), (place, total, lines[np.flatnonzero(got != want)[0]])
