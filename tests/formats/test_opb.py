"""OPB: exact round trips to ModelData, what SCIP reads from our files, objective, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import assert_same_model_data, round_trip_cases, round_trip_puzzles

from formats import opb
from formats.base import ModelData, format_for
from formats.solutions import read_solution
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import model_metadata
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.core.verify import verify_grid

PUZZLES = round_trip_puzzles()
CASES = round_trip_cases(PUZZLES)


def model_for(case):
    name, scheme, order, enc = case
    return build_model(PUZZLES[name], scheme=scheme, order=order, clues=enc)


def assert_same(got, want):
    assert got.row_labels is None  # OPB has no constraint names
    want = ModelData(want.Aeq, want.row_lower, want.row_upper, want.lb, want.ub, want.cost, want.integrality,
                     None, want.col_names, want.metadata)
    assert_same_model_data(got, want)


@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_round_trip_is_exact(tmp_path, case):
    model = model_for(case)
    path = tmp_path / "m.opb"
    opb.write(model, path)
    got = opb.read(path)
    assert_same(got, ModelData.from_model(model))
    assert got.metadata == model_metadata(model)


def test_layout_follows_the_pb_competition_format(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), scheme="ijk", order="C", clues="bounds")
    path = tmp_path / "m.opb"
    opb.write(model, path)
    lines = path.read_text().splitlines()
    assert lines[0] == f"* #variable= 729 #constraint= {324 + 23}"
    body = [line for line in lines if not line.startswith("*")]
    assert len(body) == 347
    # the first row is cell (1,1): positions 0..8 in order C, i.e. x1..x9
    assert body[0] == " ".join(f"+1 x{v}" for v in range(1, 10)) + " = 1 ;"
    r, c, d = model.puzzle.clues()
    first_clue = int(model.convention.position(r[0], c[0], d[0])) + 1
    assert body[324] == f"+1 x{first_clue} >= 1 ;"


def test_scip_solves_our_opb_and_its_solution_imports(tmp_path):
    pyscipopt = pytest.importorskip("pyscipopt", reason="pyscipopt not installed")
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    for enc in ("rows", "bounds", "reduce"):
        model = build_model(puzzle, scheme="block", order="F", clues=enc)
        path = tmp_path / f"{enc}.opb"
        opb.write(model, path)
        scip = pyscipopt.Model()
        scip.hideOutput()
        scip.readProblem(str(path))
        assert scip.getNVars() == model.n_cols
        scip.optimize()
        sol = tmp_path / f"{enc}.sol"
        scip.writeBestSol(str(sol))
        answer = read_solution(sol, model)
        assert answer.format == "scip_numbered"
        assert verify_grid(answer.grid(), puzzle)


def test_integer_objective_round_trips_and_fractional_is_refused(tmp_path):
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    cost = np.zeros(729)
    cost[[0, 5, 700]] = [3, -2, 7]
    model = build_model(puzzle, objective=cost)
    opb.write(model, tmp_path / "c.opb")
    assert "min: +3 x1 -2 x6 +7 x701 ;" in (tmp_path / "c.opb").read_text()
    np.testing.assert_array_equal(opb.read(tmp_path / "c.opb").cost, cost)
    with pytest.raises(FormatError, match="must be integers"):
        opb.write(build_model(puzzle, objective=cost + 0.5), tmp_path / "f.opb")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mask=st.lists(st.booleans(), min_size=16, max_size=16), enc=st.sampled_from(["rows", "bounds", "reduce"]),
       scheme=st.sampled_from(["ijk", "block"]), order=st.sampled_from("FC"))
def test_random_4x4_round_trips(tmp_path, mask, enc, scheme, order):
    text = "".join(ch if keep else "." for ch, keep in zip("1234341221434321", mask))
    model = build_model(parse_puzzle(text, box="2x2"), scheme=scheme, order=order, clues=enc)
    path = tmp_path / "h.opb.gz"
    opb.write(model, path)
    assert_same(opb.read(path), ModelData.from_model(model))


def test_registered():
    assert format_for("m.opb").name == "opb"


@pytest.mark.parametrize("body, match", [
    ("+1 x1 +1 x2 = 1", "truncated"),
    ("+1 x1 +1 x2 == 1 ;", "expected 'terms <op> rhs ;'"),
    ("+1 y1 +1 x2 = 1 ;", "bad term"),
    ("+1 x1 +1 x2 = one ;", "is not an integer"),
    ("+1 x1 +1 x800 = 1 ;", "x800 is beyond"),
])
def test_reader_errors_are_one_line(tmp_path, body, match):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    good = tmp_path / "g.opb"
    opb.write(model, good)
    head = [line for line in good.read_text().splitlines() if line.startswith("*")]
    bad = tmp_path / "bad.opb"
    bad.write_text("\n".join(head + [body]) + "\n")
    with pytest.raises(FormatError, match=match) as err:
        opb.read(bad)
    assert "\n" not in str(err.value)


def test_foreign_opb_is_refused(tmp_path):
    path = tmp_path / "f.opb"
    path.write_text("* #variable= 2 #constraint= 1\n+1 x1 +1 x2 = 1 ;\n")
    with pytest.raises(FormatError, match="not a pipeline OPB"):
        opb.read(path)


@pytest.mark.parametrize("token", ["+" + "9" * 400, "-" + "1" * 19, "+1e400"])
def test_a_coefficient_beyond_int64_is_a_bad_term(tmp_path, token):
    """Issue 21 section 5: a 400-digit coefficient gives the 'bad term' line 1e400 gives, not an
    OverflowError."""
    from pipeline.core.errors import FormatError

    path = tmp_path / "m.opb"
    opb.write(model_for(CASES[0]), path)
    text = path.read_text()
    k = text.index("\n+1 x") + 1
    path.write_text(text[:k] + token + text[k + 2:])
    with pytest.raises(FormatError, match=r"m\.opb: constraint 1: bad term .* 'x\d+'; expected '\+1 x<v>'$") as caught:
        opb.read(path)
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("header, message", [
    ("* #variable= 999999999999 #constraint= 347", "header says 999999999999 variables, the model's OPB has 729"),
    ("* #variable= 729 #constraint= 9", "header says 9 constraints, the file has 347"),
    ("* #variable= 7" + "2" * 5000 + " #constraint= 347", r"header says 72{23}\.\.\.\(5001 characters\) "
                                                          "variables"),
])
def test_a_header_that_is_not_the_models_is_refused(tmp_path, header, message):
    # minisat+ and sat4j size their arrays by this header; it once passed read and check unread
    path = tmp_path / "m.opb"
    opb.write(build_model(parse_puzzle(DEFAULT_PUZZLE)), path)
    lines = path.read_text().split("\n")
    assert lines[0] == "* #variable= 729 #constraint= 347"
    path.write_text("\n".join([header] + lines[1:]))
    with pytest.raises(FormatError, match=message) as err:
        opb.read(path)
    assert "\n" not in str(err.value) and len(str(err.value)) < len(str(path)) + 150


def test_a_row_without_a_variable_is_written_and_read_back(tmp_path):
    # a reduced model's row its clues settled: 0 = 1 here (two 3s in a row), which OPB can only
    # say with a term; +0 x<v> = 1 round-trips to the same model
    model = build_model(parse_puzzle("12.....3.3......", box="2x2"), clues="reduce")
    assert (np.diff(model.Aeq.tocsr().indptr) == 0).any()
    path = tmp_path / "m.opb"
    opb.write(model, path)
    assert "+0 x" in path.read_text()
    got = opb.read(path)
    assert got.Aeq.shape == model.Aeq.shape
    assert np.array_equal(got.row_lower, ModelData.from_model(model).row_lower)
    assert np.array_equal(abs(got.Aeq).sum(axis=1).A1, abs(model.Aeq).sum(axis=1).A1)
