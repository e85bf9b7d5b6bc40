"""The rows of each rule family as docs (ISSUE15_CORE.md's table) define them: counts, senses,
right-hand sides, labels and the terms of each row, written here from the rule's meaning (which
pairs of cells a knight's move apart share no unit, which 2x2 windows straddle boxes, ...), and
the solver view (Aeq/Aineq, reduce moving givens to the right-hand side)."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rules import RULES

N4 = {"size": 4, "box": "2x2"}


def model_of(rules, base=N4, **kw):
    return build_model(parse_puzzle(dict(base, rules=rules, **kw)))


def terms(model, label: str) -> dict:
    """{(r, c, d): coefficient} (1-based) of R's row ``label``."""
    R = model.R
    i = int(np.flatnonzero(R.labels == label)[0])
    row = R.matrix.getrow(i)
    r, c, d = model.convention.cell_digit(row.indices)
    return {(int(a) + 1, int(b) + 1, int(e) + 1): float(v) for a, b, e, v in zip(r, c, d, row.data)}


def family(model, name: str):
    """(labels, senses, rhs) of R's rows of one family, in order."""
    mask = np.array([label.split("_")[0] == name for label in model.R.labels], dtype=bool)
    return model.R.labels[mask].tolist(), model.R.sense[mask].tolist(), model.R.rhs[mask].tolist()


def value_row(cells_signs, n):
    """Terms of sum(sign * v(cell)) as {(r, c, d): sign * d}."""
    return {(r, c, d): float(sign * d) for (r, c), sign in cells_signs for d in range(1, n + 1)}


# ---------------------------------------------------------------------------------------------
# one family at a time
# ---------------------------------------------------------------------------------------------
def test_a_cage_across_units_gets_a_row_per_digit_and_a_sum_row():
    m = model_of([{"rule": "cage", "cells": ["r1c2", "r2c3"], "sum": 5}])
    labels, senses, rhs = family(m, "cage")
    assert labels == [f"cage_1_{d}" for d in range(1, 5)] and set(senses) == {"L"} and set(rhs) == {1.0}
    for d in range(1, 5):
        assert terms(m, f"cage_1_{d}") == {(1, 2, d): 1.0, (2, 3, d): 1.0}
    assert family(m, "cagesum") == (["cagesum_1"], ["E"], [5.0])
    assert terms(m, "cagesum_1") == value_row([((1, 2), 1), ((2, 3), 1)], 4)


@pytest.mark.parametrize("cells", [["r1c1", "r2c2"], ["r1c2", "r1c3"], ["r2c4", "r4c4"]], ids=["box", "row", "col"])
def test_a_cage_inside_one_unit_has_no_digit_rows(cells):
    m = model_of([{"rule": "cage", "cells": cells}])
    assert family(m, "cage")[0] == [] and family(m, "cagesum")[0] == [] and not m.has_rules


def test_a_thermometer_is_one_strict_step_row_per_pair():
    m = model_of([{"rule": "thermo", "cells": ["r1c1", "r2c2", "r3c2"]}])
    assert family(m, "thermo") == (["thermo_1_1", "thermo_1_2"], ["L", "L"], [-1.0, -1.0])
    assert terms(m, "thermo_1_1") == value_row([((1, 1), 1), ((2, 2), -1)], 4)
    assert terms(m, "thermo_1_2") == value_row([((2, 2), 1), ((3, 2), -1)], 4)


def test_a_greater_sign_is_smaller_minus_larger_at_most_minus_one():
    m = model_of([{"rule": "greater", "cells": ["r3c3", "r3c4"]}])
    assert family(m, "greater") == (["greater_1"], ["L"], [-1.0])
    assert terms(m, "greater_1") == value_row([((3, 4), 1), ((3, 3), -1)], 4)


@pytest.mark.parametrize("color, value, partner", [
    ("white", None, lambda d, e: abs(d - e) == 1),
    ("white", 2, lambda d, e: abs(d - e) == 2),
    ("black", None, lambda d, e: d == 2 * e or e == 2 * d),
    ("black", 3, lambda d, e: d == 3 * e or e == 3 * d),
])
def test_a_kropki_dot_is_an_implication_row_per_side_and_digit(color, value, partner):
    entry = {"rule": "kropki", "color": color, "cells": ["r2c1", "r2c2"]}
    if value is not None:
        entry["value"] = value
    m = model_of([entry], base={"size": 6, "box": "2x3"})
    labels, senses, rhs = family(m, "kropki")
    assert labels == [f"kropki_1_{s}_{d}" for s in (1, 2) for d in range(1, 7)]
    assert set(senses) == {"L"} and set(rhs) == {0.0}
    for s, (a, b) in ((1, ((2, 1), (2, 2))), (2, ((2, 2), (2, 1)))):
        for d in range(1, 7):
            want = {(*a, d): 1.0, **{(*b, e): -1.0 for e in range(1, 7) if partner(d, e)}}
            assert terms(m, f"kropki_1_{s}_{d}") == want


def test_parity_is_one_row_per_cell_over_the_wrong_digits():
    m = model_of([{"rule": "even", "cells": ["r1c1", "r2c3"]}, {"rule": "odd", "cells": ["r4c4"]}],
                 base={"size": 6, "box": "2x3"})
    labels, senses, rhs = family(m, "parity")
    assert labels == ["parity_1_1", "parity_2_3", "parity_4_4"] and set(senses) == {"L"} and set(rhs) == {0.0}
    assert terms(m, "parity_1_1") == {(1, 1, d): 1.0 for d in (1, 3, 5)}
    assert terms(m, "parity_4_4") == {(4, 4, d): 1.0 for d in (2, 4, 6)}


def _unit_of(h, w, n):
    """Row, column and box of each 0-based cell."""
    return lambda r, c: {("row", r), ("col", c), ("box", (r // h, c // w))}


def _pairs(n, offsets, h, w, share_ok=False):
    unit = _unit_of(h, w, n)
    out = set()
    for r in range(n):
        for c in range(n):
            for dr, dc in offsets:
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n and (share_ok or not unit(r, c) & unit(rr, cc)):
                    out.add(tuple(sorted([(r, c), (rr, cc)])))
    return sorted(out)


@pytest.mark.parametrize("base, h, w", [(N4, 2, 2), ({"size": 6, "box": "2x3"}, 2, 3), ({"size": 9}, 3, 3)])
def test_anti_knight_rows_are_the_knight_pairs_sharing_no_unit_times_digits(base, h, w):
    n = h * w
    pairs = _pairs(n, [(1, 2), (2, 1), (1, -2), (2, -1)], h, w)
    m = model_of([{"rule": "antiknight"}], base=base)
    labels, senses, rhs = family(m, "antiknight")
    assert labels == [f"antiknight_{p}_{d}" for p in range(1, len(pairs) + 1) for d in range(1, n + 1)]
    assert set(senses) == {"L"} and set(rhs) == {1.0}
    for p, (a, b) in enumerate(pairs, start=1):
        assert terms(m, f"antiknight_{p}_3") == {(a[0] + 1, a[1] + 1, 3): 1.0, (b[0] + 1, b[1] + 1, 3): 1.0}


@pytest.mark.parametrize("base, h, w", [(N4, 2, 2), ({"size": 6, "box": "2x3"}, 2, 3), ({"size": 9}, 3, 3)])
def test_anti_king_rows_are_the_2x2_windows_straddling_boxes_times_digits(base, h, w):
    n = h * w
    windows = [(r, c) for r in range(n - 1) for c in range(n - 1) if r // h != (r + 1) // h or c // w != (c + 1) // w]
    m = model_of([{"rule": "antiking"}], base=base)
    labels, senses, rhs = family(m, "antiking")
    assert labels == [f"antiking_{r + 1}_{c + 1}_{d}" for r, c in windows for d in range(1, n + 1)]
    assert set(senses) == {"L"} and set(rhs) == {1.0}
    r, c = windows[-1]
    assert terms(m, f"antiking_{r + 1}_{c + 1}_2") == {(r + 1 + i, c + 1 + j, 2): 1.0 for i in (0, 1) for j in (0, 1)}


def test_non_consecutive_rows_are_the_orthogonal_pairs_times_digit_steps():
    pairs = _pairs(4, [(0, 1), (1, 0)], 2, 2, share_ok=True)
    m = model_of([{"rule": "nonconsecutive"}])
    labels, senses, rhs = family(m, "nonconsecutive")
    assert labels == [f"nonconsecutive_{p}_{d}" for p in range(1, len(pairs) + 1) for d in range(1, 4)]
    assert len(pairs) == 24 and set(senses) == {"L"} and set(rhs) == {1.0}
    (a, b) = pairs[4]
    assert terms(m, "nonconsecutive_5_2") == {(a[0] + 1, a[1] + 1, 2): 1.0, (a[0] + 1, a[1] + 1, 3): 1.0,
                                              (b[0] + 1, b[1] + 1, 2): 1.0, (b[0] + 1, b[1] + 1, 3): 1.0}
    assert family(m, "nonconsecutivepair")[0] == []


def test_non_consecutive_acts_within_each_grid_of_a_layout():
    """Two 4x4 grids side by side: r_c4 and r_c5 sit side by side in two grids, and the rule acts
    within each grid (docs/conventions.md): no row binds them (once pair rows
    ``nonconsecutivepair_p_d_s`` did, while setters mean each grid on its own)."""
    m = build_model(parse_puzzle({"size": 4, "box": "2x2", "layout": {"grids": ["r1c1", "r1c5"]},
                                  "rules": [{"rule": "nonconsecutive"}]}))
    assert family(m, "nonconsecutivepair")[0] == []
    labels = family(m, "nonconsecutive")[0]
    assert len(labels) == 2 * 24 * 3
    cells = {(r, c) for label in labels for r, c, _ in terms(m, label)}
    assert all(not ({(r, 4), (r, 5)} <= cells_of) for r in range(1, 5)
               for cells_of in [{(a, b) for a, b, _ in terms(m, label)} for label in labels])
    assert {(1, 4), (1, 5)} <= cells


@pytest.mark.parametrize("rule, base, fam, units", [
    ({"rule": "windoku"}, {"size": 9}, "window", 4),
    ({"rule": "windoku"}, N4, "window", 1),
    ({"rule": "windoku"}, {"size": 16}, "window", 9),
    ({"rule": "diagonal", "which": "main"}, N4, "diag", 1),
    ({"rule": "diagonal", "which": "anti"}, N4, "anti", 1),
    ({"rule": "extraregion", "cells": ["r1c1", "r2c3", "r3c2", "r4c4"]}, N4, "extra", 1),
    ({"rule": "disjointgroups"}, {"size": 6, "box": "2x3"}, "disjoint", 6),
])
def test_unit_rules_add_equality_rows_to_A(rule, base, fam, units):
    m = model_of([rule], base=base)
    n = m.puzzle.n
    counts = m.family_counts()
    assert counts[fam] == units * n and not m.has_rules and m.n_ineq == 0
    labels = [lab for lab in m.row_labels if lab.split("_")[0] == fam]
    single = fam in ("diag", "anti")
    assert labels == ([f"{fam}_{d}" for d in range(1, n + 1)] if single else
                      [f"{fam}_{u}_{d}" for u in range(1, units + 1) for d in range(1, n + 1)])


def test_two_extra_regions_are_regions_1_and_2_of_one_family(tmp_path):
    """Each extra-region rule numbered its one unit 1: two of them gave rows extra_1_d twice
    (GLPK and CBC refused the MPS, the Parquet export was a traceback). Windoku puzzles from
    f-puzzles arrive as four extra regions."""
    first, second = ["r1c1", "r2c3", "r3c2", "r4c4"], ["r1c2", "r2c4", "r3c1", "r4c3"]
    m = model_of([{"rule": "extraregion", "cells": first}, {"rule": "diagonal"},
                  {"rule": "extraregion", "cells": second}])
    labels = list(m.row_labels)
    assert len(set(labels)) == len(labels)
    assert [lab for lab in labels if lab.startswith("extra_")] == [f"extra_{u}_{d}" for u in (1, 2) for d in range(1, 5)]
    assert m.family_counts()["extra"] == 8
    for unit, cells in ((1, first), (2, second)):
        r, c, d = m.convention.cell_digit(m.Aeq.getrow(labels.index(f"extra_{unit}_3")).indices)
        assert sorted(f"r{a}c{b}" for a, b in zip(r + 1, c + 1)) == sorted(cells) and set(d + 1) == {3}


def test_the_windoku_windows_of_9x9_are_the_four_hyper_boxes():
    m = model_of([{"rule": "windoku"}], base={"size": 9})
    i = list(m.row_labels).index("window_4_9")
    r, c, d = m.convention.cell_digit(m.Aeq.getrow(i).indices)
    assert sorted(zip(r + 1, c + 1)) == [(rr, cc) for rr in (6, 7, 8) for cc in (6, 7, 8)] and set(d + 1) == {9}


def test_disjoint_group_g_is_position_g_of_every_box():
    m = model_of([{"rule": "disjointgroups"}], base={"size": 6, "box": "2x3"})
    i = list(m.row_labels).index("disjoint_5_1")      # position 5: second row, second column of a box
    r, c, _ = m.convention.cell_digit(m.Aeq.getrow(i).indices)
    assert sorted(zip(r + 1, c + 1)) == sorted((br + 2, bc + 2) for br in (0, 2, 4) for bc in (0, 3))


# ---------------------------------------------------------------------------------------------
# order of rows, the solver view, reduce
# ---------------------------------------------------------------------------------------------
def test_rows_follow_the_registry_order_then_each_kinds_rules_in_puzzle_order():
    rules = [{"rule": "antiknight"}, {"rule": "thermo", "cells": ["r1c1", "r1c2"]},
             {"rule": "cage", "cells": ["r3c2", "r4c3"], "sum": 5}, {"rule": "cage", "cells": ["r1c2", "r2c3"]},
             {"rule": "even", "cells": ["r4c4"]}]
    m = model_of(rules)
    order = [fam for fam, _, _ in m.R.families]
    kinds = list(RULES)
    assert order == ["cage", "cagesum", "thermo", "parity", "antiknight"]
    assert [kinds.index(k) for k in ("cage", "thermo", "even", "antiknight")] == sorted(
        kinds.index(k) for k in ("cage", "thermo", "even", "antiknight"))
    cage_terms = terms(m, "cage_2_1")      # the second cage of the puzzle
    assert cage_terms == {(1, 2, 1): 1.0, (2, 3, 1): 1.0}
    assert terms(m, "cagesum_1") == value_row([((3, 2), 1), ((4, 3), 1)], 4)


def test_the_solver_view_puts_equalities_in_aeq_and_inequalities_in_aineq():
    m = model_of([{"rule": "cage", "cells": ["r1c2", "r2c3"], "sum": 5}, {"rule": "greater", "cells": ["r4c1", "r4c2"]}],
                 givens=["r1c1=1"])
    labels = list(m.row_labels)
    assert labels[-2:] == ["cagesum_1", "clue_1_1_1"] and m.beq[-2:].tolist() == [5.0, 1.0]
    assert m.ineq_labels.tolist() == [f"cage_1_{d}" for d in range(1, 5)] + ["greater_1"]
    assert m.bineq.tolist() == [1.0] * 4 + [-1.0]
    assert m.Aeq.shape[0] == m.n_rows == 64 + 1 + 1 and m.Aineq.shape == (5, 64)
    summary = m.summary()
    assert summary["inequalities"] == 5 and summary["inequality_nonzeros"] == m.Aineq.nnz == 4 * 2 + 8
    assert m.family_counts()["cagesum"] == 1 and m.rule_family_counts() == {"cage": 4, "cagesum": 1, "greater": 1}


def test_reduce_moves_given_values_to_the_right_hand_side():
    """r1c2 = 2 given: the cage sum 5 keeps r2c3's terms with right-hand side 3, and the cage's
    digit row of 2 keeps x[r2c3,2] with right-hand side 0 (r2c3 cannot be 2); x[r2c3,4] is fixed
    to 0 by the given r3c3 = 4 (column 3), so cage_1_4 is left empty, holds and is dropped, as
    is a greater sign between two givens that holds."""
    m = build_model(parse_puzzle(dict(N4, givens=["r1c2=2", "r3c3=4", "r3c4=1"], rules=[
        {"rule": "cage", "cells": ["r1c2", "r2c3"], "sum": 5}, {"rule": "greater", "cells": ["r3c3", "r3c4"]}])),
        clues="reduce")
    labels = list(m.row_labels)
    assert "cagesum_1" in labels and m.beq[labels.index("cagesum_1")] == 3.0
    row = m.Aeq.getrow(labels.index("cagesum_1"))
    r, c, d = m.convention.cell_digit(m.columns[row.indices])
    assert set(zip(r + 1, c + 1)) == {(2, 3)} and sorted(row.data) == sorted(d + 1.0)
    ineq = list(m.ineq_labels)
    assert ineq == ["cage_1_1", "cage_1_2", "cage_1_3"]
    assert m.bineq.tolist() == [1.0, 0.0, 1.0]
    row = m.Aineq.getrow(1)
    assert m.convention.names(m.columns[row.indices]).tolist() == ["x_2_3_2"] and row.data.tolist() == [1.0]
    assert m.rule_family_counts() == {"cage": 3, "cagesum": 1}


def test_unit_only_puzzles_have_no_inequality_rows():
    m = build_model(parse_puzzle("1..." "..3." ".4.." "...2", box="2x2"))
    assert m.n_ineq == 0 and not m.has_rules and "inequalities" not in m.summary()
