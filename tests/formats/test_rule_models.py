"""Models with rules beyond units (inequality rows, coefficients other than 1, right-hand sides
other than 1) and gattai layouts (samurai) through every format: written and read back
EXACTLY (matrix, senses, right-hand sides, bounds, labels, metadata), on the vendored fixtures in
every convention and on random small puzzles (hypothesis); the file-level facts each format
promises (docs/conventions.md, Project extensions)."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.io as sio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import assert_same_model_data
from rule_models import FIXTURES, FORMATS, conventions, expected, fixture_puzzle, random_document, write_and_read

from formats import cnf, csv as csv_format, matlab, opb, parquet
from formats.base import ModelData, constraint_rows
from formats.directory import export_model, import_solution
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import parse_puzzle
from pipeline.solvers.highs import solve

pytest.importorskip("pysat.pb", reason="python-sat with its pb extra (the 'sat' extra) is not installed")

CASES = [(name, conv) for name in FIXTURES for conv in conventions(fixture_puzzle(name))]
PUZZLES = {name: fixture_puzzle(name) for name in FIXTURES}


def _id(case):
    return f"{case[0]}-{'-'.join(case[1])}"


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_fixture_round_trip_is_exact(tmp_path, case, fmt):
    name, conv = case
    model = build_model(PUZZLES[name], *conv)
    got = write_and_read(model, fmt, tmp_path)
    assert_same_model_data(got, expected(model, fmt))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([4, 6]), scheme=st.sampled_from(["ijk", "block"]),
       order=st.sampled_from("FC"), clues=st.sampled_from(["rows", "bounds", "reduce"]))
def test_random_rule_puzzles_round_trip_in_every_format(tmp_path_factory, seed, size, scheme, order, clues):
    doc = random_document(np.random.default_rng(seed), size)
    model = build_model(parse_puzzle(json.dumps(doc)), scheme, order, clues)
    base = tmp_path_factory.mktemp("rt")
    for fmt in FORMATS:
        got = write_and_read(model, fmt, base / fmt)
        assert_same_model_data(got, expected(model, fmt))


def test_model_data_holds_both_kinds_of_rows():
    """ModelData.from_model: [Aeq; Aineq], row_lower -inf on the <= rows, labels of both; a
    plain puzzle's is exactly what it always was."""
    model = build_model(PUZZLES["thermo9"])
    data = ModelData.from_model(model)
    m, k = model.n_rows, model.n_ineq
    assert k > 0 and data.Aeq.shape == (m + k, model.n_cols)
    assert (data.Aeq[m:] != model.Aineq).nnz == 0
    np.testing.assert_array_equal(data.row_upper, np.concatenate([model.beq, model.bineq]))
    assert np.isneginf(data.row_lower[m:]).all() and (data.row_lower[:m] == model.beq).all()
    assert "".join(sorted(set(data.senses.tolist()))) == "EL"
    np.testing.assert_array_equal(data.row_labels, np.concatenate([model.row_labels, model.ineq_labels]))
    plain = build_model(parse_puzzle("1......2........"))
    rows = constraint_rows(plain)
    assert rows.matrix is plain.Aeq and rows.rhs is plain.beq and rows.n_ineq == 0


def test_killer_sums_are_equalities_with_their_coefficients(tmp_path):
    """A cage sum is an = row with coefficients 1..N and its sum on the right, in every text
    format: MPS (E row, RHS), LP ('+ 2 x...= S'), OPB ('+2 x<v> ... = S ;')."""
    model = build_model(PUZZLES["killer9"])
    labels = model.row_labels
    k = int(np.flatnonzero(np.char.startswith(labels.astype(str), "cagesum_"))[0])
    total = int(model.beq[k])
    assert total > 1 and sorted(set(model.Aeq[k].data.tolist())) == list(range(1, 10))
    export_model(model, tmp_path, "mps,lp,opb")
    mps_text = (tmp_path / "model.mps").read_text()
    assert f" E {labels[k]}\n" in mps_text
    assert any(line.split() == ["RHS", labels[k], str(total)] for line in mps_text.splitlines())
    lp_text = (tmp_path / "model.lp").read_text()
    row = lp_text.split(f" {labels[k]}:", 1)[1].split("\n ", 1)[0]
    assert row.rstrip().endswith(f"= {total}") and " + 9 x_" in row
    opb_rows = [line for line in (tmp_path / "model.opb").read_text().splitlines() if not line.startswith("*")]
    assert any(line.endswith(f" = {total} ;") and line.startswith("+1 x") and " +9 x" in line for line in opb_rows)


def test_inequality_rows_in_each_text_format(tmp_path):
    """<= rows: MPS 'L' rows after the 'E' rows (negative right-hand sides written), LP '<=',
    OPB each negated with '>='."""
    model = build_model(PUZZLES["thermo9"])
    export_model(model, tmp_path, "mps,lp,opb")
    lines = (tmp_path / "model.mps").read_text().splitlines()
    kinds = [line.split()[0] for line in lines[lines.index("ROWS") + 2:lines.index("COLUMNS")]]
    assert kinds == ["E"] * model.n_rows + ["L"] * model.n_ineq
    thermo = int(np.flatnonzero(np.char.startswith(model.ineq_labels.astype(str), "thermo_"))[0])
    assert any(line.split() == ["RHS", str(model.ineq_labels[thermo]), "-1"] for line in lines)
    lp_text = (tmp_path / "model.lp").read_text()
    assert lp_text.split("Subject To\n", 1)[1].count(" <= ") == model.n_ineq
    head = lp_text.split(f" {model.ineq_labels[thermo]}:", 1)[1].split("\n ", 1)[0]
    assert head.rstrip().endswith("<= -1") and " - 9 x_" in head
    body = [line for line in (tmp_path / "model.opb").read_text().splitlines() if not line.startswith("*")]
    assert len(body) == model.n_rows + model.n_ineq
    assert all(" = " in line for line in body[:model.n_rows]) and all(" >= " in line for line in body[model.n_rows:])
    # the thermometer row v(a) - v(b) <= -1, negated: -v(a) + v(b) >= 1
    assert body[model.n_rows + thermo].endswith(" >= 1 ;") and "-9 x" in body[model.n_rows + thermo]


def test_csv_files_of_a_rule_model(tmp_path):
    """Aineq in the three forms beside Aeq, bineq.csv; one-file write keeps what read needs."""
    model = build_model(PUZZLES["thermo9"])
    written = {p.name for p in export_model(model, tmp_path, "csv", dense="always")["csv"]}
    assert {"Aineq.csv", "Aineq_ijv.csv", "Aineq_long.csv", "bineq.csv"} <= written
    assert (tmp_path / "bineq.csv").read_text().split() == [str(int(v)) for v in model.bineq]
    dense = np.loadtxt(tmp_path / "Aineq.csv", delimiter=",")
    np.testing.assert_array_equal(dense, model.Aineq.toarray())
    assert (tmp_path / "Aineq_long.csv").read_text().splitlines()[0] == "row_label,col_name,value"
    one = tmp_path / "one" / "rules_ijv.csv"
    one.parent.mkdir()
    csv_format.write(model, one)
    assert sorted(p.name for p in one.parent.iterdir()) == ["rules_ijv.csv", "rules_ijv_bineq.csv",
                                                            "rules_ijv_ineq.csv"]   # beq: all ones
    got = csv_format.read(one)
    want = ModelData.from_model(model)
    assert (got.Aeq != want.Aeq).nnz == 0
    np.testing.assert_array_equal(got.row_lower, want.row_lower)
    np.testing.assert_array_equal(got.row_upper, want.row_upper)


def test_parquet_rows_table_has_sense_and_rhs(tmp_path):
    model = build_model(PUZZLES["killer9"])
    export_model(model, tmp_path, "parquet")
    rows = pq.read_table(tmp_path / "model_rows.parquet").to_pandas()
    assert list(rows.columns) == ["label", "family", "lower", "upper", "sense", "rhs"]
    assert (rows.sense == "E").sum() == model.n_rows and (rows.sense == "L").sum() == model.n_ineq
    assert set(rows.family[rows.sense == "L"]) <= {"cage", "thermo", "kropki", "greater", "parity", "antiknight"}
    assert rows.rhs[rows.family == "cagesum"].gt(2).all()
    plain = build_model(parse_puzzle("1......2........"))
    export_model(plain, tmp_path / "plain", "parquet")
    assert pq.read_schema(tmp_path / "plain" / "model_rows.parquet").names == ["label", "family", "lower", "upper"]


def test_mat_file_has_aineq_and_the_mpsread_problem(tmp_path):
    model = build_model(PUZZLES["thermo9"])
    matlab.write(model, tmp_path / "model.mat")
    raw = sio.loadmat(tmp_path / "model.mat", simplify_cells=True)
    assert (raw["Aineq"] != model.Aineq).nnz == 0
    np.testing.assert_array_equal(raw["bineq"], model.bineq)
    problem = raw["problem"]
    assert (problem["Aineq"] != model.Aineq).nnz == 0
    np.testing.assert_array_equal(problem["bineq"], model.bineq)
    assert list(problem["constraintNames"]["ineqlin"]) == list(model.ineq_labels)
    assert json.loads(raw["meta"]["rules"]) == model.puzzle.to_dict()["rules"]
    plain = build_model(parse_puzzle("1......2........"))
    matlab.write(plain, tmp_path / "plain.mat")
    assert "Aineq" not in sio.loadmat(tmp_path / "plain.mat")


def test_samurai_columns_are_the_present_cells(tmp_path):
    """The solver columns of a samurai are the present cells' positions (3321 of 21*21*9); the
    .mat and kept_columns.csv carry the map (1-based), the names carry it in MPS/LP."""
    model = build_model(PUZZLES["samurai"])
    assert model.n_cols == 369 * 9 and model.convention.n_vars == 21 * 21 * 9
    export_model(model, tmp_path, "matlab,lp")
    kept = np.loadtxt(tmp_path / "kept_columns.csv", dtype=np.int64)
    np.testing.assert_array_equal(kept, model.columns + 1)
    raw = sio.loadmat(tmp_path / "model.mat", simplify_cells=True)
    np.testing.assert_array_equal(raw["meta"]["kept_columns"], model.columns + 1)


@pytest.mark.parametrize("name", FIXTURES)
def test_an_answer_imports_through_every_solution_route(tmp_path, name):
    """HiGHS's answer written as a MATLAB grid (a canvas for the samurai, 0 outside the grids)
    and as a positional vector imports against the export's manifest and verifies."""
    puzzle = PUZZLES[name]
    model = build_model(puzzle, "ijk", "C", "reduce")
    export_model(model, tmp_path, "csv")
    result = solve(model, threads=1)
    assert result.solved
    grid_file = tmp_path / "sudoku.csv"
    grid_file.write_text("\n".join(",".join(map(str, row)) for row in result.grid.tolist()) + "\n")
    got = import_solution(grid_file)
    assert got.verdict.ok and got.residual == 0 and (got.grid == result.grid).all()
    vector = tmp_path / "x.csv"
    vector.write_text("\n".join(str(int(v)) for v in np.rint(result.x)) + "\n")
    got = import_solution(vector)
    assert got.verdict.ok and got.format == "vector" and (got.grid == result.grid).all()


def test_a_broken_inequality_is_caught_on_import(tmp_path):
    """A grid that keeps the units but breaks a thermometer is refused by verify (the residual
    covers Aineq)."""
    puzzle = PUZZLES["thermo9"]
    model = build_model(puzzle)
    export_model(model, tmp_path, "csv")
    grid = solve(model, threads=1).grid
    thermo = next(rule for rule in puzzle.rules if rule.kind == "thermo")
    a, b = (int(c) for c in thermo.cells()[:2])
    ra, ca = divmod(a, 9)
    rb, cb = divmod(b, 9)
    # swap the two digits in their rows' other cells so every unit still holds: relabel digits
    da, db = grid[ra, ca], grid[rb, cb]
    swapped = np.where(grid == da, db, np.where(grid == db, da, grid))
    (tmp_path / "sudoku.csv").write_text("\n".join(",".join(map(str, r)) for r in swapped.tolist()) + "\n")
    got = import_solution(tmp_path / "sudoku.csv")
    assert not got.verdict.ok and got.residual > 0


def test_cnf_facts_name_the_rule_encodings(tmp_path):
    model = build_model(PUZZLES["killer9"])
    cnf.write(model, tmp_path / "m.cnf", card="totalizer", pb="adder")
    facts = cnf.read_cnf(tmp_path / "m.cnf").facts
    rules = facts["rule_rows"]
    assert rules["card"] == "totalizer" and rules["pb"] == "adder"
    enc = cnf.encode(model)
    assert rules["aux_variables"][0] == enc.n_vars + 1 == rules["first_clause"] * 0 + enc.n_vars + 1
    assert facts["variables"] == rules["aux_variables"][1]
    assert rules["first_clause"] == enc.n_clauses - enc.units.size
    back = cnf.read(tmp_path / "m.cnf")
    assert back.Aeq.shape[0] == model.n_rows + model.n_ineq


def test_cnf_reader_refuses_rule_clauses_of_another_puzzle(tmp_path):
    """The rule rows come from the metadata's puzzle, so the reader checks the file's clauses
    against them: a clause changed is a FormatError, not a silently different model."""
    model = build_model(PUZZLES["thermo9"])
    path = tmp_path / "m.cnf"
    cnf.write(model, path)
    lines = path.read_text().splitlines()
    facts = cnf.read_cnf(path).facts["rule_rows"]
    head = sum(1 for line in lines if line.startswith(("c", "p")))
    k = head + facts["first_clause"] + 3
    lines[k] = " ".join(str(-int(t)) if t != "0" else t for t in lines[k].split())
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match="rule rows' clauses are not those of the puzzle"):
        cnf.read(path)


def test_opb_reader_reads_negated_rows_back_as_less_or_equal(tmp_path):
    model = build_model(PUZZLES["thermo9"], clues="bounds")
    opb.write(model, tmp_path / "m.opb")
    got = opb.read(tmp_path / "m.opb")
    assert (got.senses[model.n_rows:] == "L").all() and (got.senses[:model.n_rows] == "E").all()
    assert got.lb.sum() == model.puzzle.n_clues


def test_parquet_refuses_a_sense_that_contradicts_the_bounds(tmp_path):
    model = build_model(PUZZLES["killer9"])
    parquet.write(model, tmp_path / "m_coo.parquet")
    table = pq.read_table(tmp_path / "m_rows.parquet")
    sense = table.column("sense").to_pylist()
    sense[0] = "L"
    table = table.set_column(table.column_names.index("sense"), "sense", pa.array(sense))
    pq.write_table(table, tmp_path / "m_rows.parquet")
    with pytest.raises(FormatError, match="sense 'L' and rhs 1 disagree"):
        parquet.read(tmp_path / "m_coo.parquet")
