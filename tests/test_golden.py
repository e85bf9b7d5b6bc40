"""Exports stay byte-identical to the golden set (tests/golden): refactors must not change files."""
from __future__ import annotations

import json

import pytest

from golden.golden import DIGESTS, export_set


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    return export_set(tmp_path_factory.mktemp("golden"))


GOLDEN = json.loads(DIGESTS.read_text())


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_export_matches_golden(exported, case):
    new, old = exported[case], GOLDEN[case]
    missing = sorted(set(old) - set(new))
    assert not missing, f"{case}: files no longer written: {missing}"
    changed = sorted(name for name in old if new[name] != old[name])
    assert not changed, f"{case}: files differ from the golden export: {changed}"


def test_golden_set_covers_every_convention():
    # 3 boxed puzzles (classic 9x9 and 4x4, Sudoku-X) x 12 conventions + the 6x6 jigsaw x 6 (no block)
    # + the empty 36x36 in every format (large N: the CNF's ladder encoding, issue 34)
    assert len(GOLDEN) == 3 * 12 + 6 + 1
    large = GOLDEN["empty36-all"]   # no dense Aeq.csv: 5,184 x 46,656 entries are past DENSE_LIMIT
    assert {"model.cnf", "model.opb", "model_cols.parquet", "Aeq_long.csv", "model.mat", "model.mps"} <= set(large)
    assert all({"model.mps", "model_fixed.mps", "model.lp", "Aeq.csv", "model.mat", "solve_sudoku.m",
                "model_coo.parquet", "manifest.json"} <= set(files) for case, files in GOLDEN.items() if files is not large)
