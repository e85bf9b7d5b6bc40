"""MPS format: exact round trips, what HiGHS/GLPK/CBC read from our files, fixed-column layout,
gzip, other tools' files, and the reader's error messages."""
from __future__ import annotations

import functools

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import highspy
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import formats.mps as mps
from formats.base import ModelData, format_for, read_model, write_model
from oracles import FOUR, SETS_DIR, SIX, assert_same_model_data, round_trip_cases, round_trip_puzzles
from pipeline.core.build import build_model
from pipeline.core.decode import grid_from_vector
from pipeline.core.errors import FormatError
from pipeline.core.manifest import COMMENT_TAG, comment_line, parse_comment_line
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers.highs import new_highs

DATA = SETS_DIR
PUZZLES = round_trip_puzzles()
CASES = round_trip_cases(PUZZLES)
assert_same = functools.partial(assert_same_model_data, metadata=False)  # MPS metadata: own test


def case_id(case):
    return "-".join(case)


def model_for(case):
    name, scheme, order, enc = case
    return build_model(PUZZLES[name], scheme=scheme, order=order, clues=enc)


def comment_metadata(model) -> dict:
    """What the MPS comment line carries (the kept-column map travels as the names)."""
    return json.loads(comment_line(model).split(COMMENT_TAG, 1)[1])


def data_lines(path: Path, section: str) -> list[str]:
    """The lines of one section (without comments)."""
    out, inside = [], False
    for line in path.read_text().splitlines():
        if line and not line[0].isspace() and line[0] != "*":
            inside = line.split()[0] == section
        elif inside and line and line[0] != "*":
            out.append(line)
    return out


# ---------------------------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("style", ["free", "fixed"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_round_trip_is_exact(tmp_path, case, style):
    model = model_for(case)
    path = tmp_path / "m.mps"
    mps.write(model, path, style=style)
    got = mps.read(path)
    assert_same(got, ModelData.from_model(model))
    assert got.metadata == comment_metadata(model)


@pytest.mark.parametrize("style", ["free", "fixed"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_highs_reads_the_same_model(tmp_path, case, style):
    """highspy's own reader sees our matrix, bounds, integrality and names."""
    model = model_for(case)
    path = tmp_path / "m.mps"
    mps.write(model, path, style=style)
    h = new_highs()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    lp = h.getLp()
    assert (lp.num_col_, lp.num_row_) == (model.n_cols, model.n_rows)
    a = sp.csc_matrix((np.asarray(lp.a_matrix_.value_), np.asarray(lp.a_matrix_.index_),
                       np.asarray(lp.a_matrix_.start_)), shape=(lp.num_row_, lp.num_col_))
    want = model.Aeq.tocsc()
    a.sort_indices()
    want.sort_indices()
    np.testing.assert_array_equal(a.indptr, want.indptr)
    np.testing.assert_array_equal(a.indices, want.indices)
    np.testing.assert_array_equal(a.data, want.data)
    np.testing.assert_array_equal(lp.col_lower_, model.lb)
    np.testing.assert_array_equal(lp.col_upper_, model.ub)
    np.testing.assert_array_equal(lp.col_cost_, model.cost)
    np.testing.assert_array_equal(lp.row_lower_, model.beq)
    np.testing.assert_array_equal(lp.row_upper_, model.beq)
    assert [int(t) for t in lp.integrality_] == [int(highspy.HighsVarType.kInteger)] * model.n_cols
    assert lp.offset_ == 0
    cols, rows = list(lp.col_names_), list(lp.row_names_)
    if style == "fixed":
        names = pd.read_csv(mps.names_map_path(path), dtype=str).set_index("short")["long"]
        cols, rows = names[cols].tolist(), names[rows].tolist()
    assert cols == model.col_names.tolist()
    assert rows == model.row_labels.tolist()


def test_objective_round_trip(tmp_path):
    """Nonzero costs get entries (free style: exact; fixed: the 12-character field)."""
    rng = np.random.default_rng(7)
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    cost = np.where(rng.random(729) < 0.3, rng.normal(size=729), 0.0)
    cost[:5] = [1e-300, -123456789012345.0, 0.1, 2.5, 1e19]   # HiGHS reads 1e20 and up as infinite
    model = build_model(puzzle, clues="bounds", objective=cost)
    mps.write(model, tmp_path / "free.mps")
    got = mps.read(tmp_path / "free.mps")
    assert_same(got, ModelData.from_model(model))
    entries = [line for line in data_lines(tmp_path / "free.mps", "COLUMNS") if " obj " in line]
    assert len(entries) == np.count_nonzero(cost)
    mps.write(model, tmp_path / "fixed.mps", style="fixed")
    fixed = mps.read(tmp_path / "fixed.mps")
    np.testing.assert_allclose(fixed.cost, model.cost, rtol=1e-5, atol=0)  # 6+ digits in 12 characters
    h = new_highs()
    h.readModel(str(tmp_path / "free.mps"))
    np.testing.assert_array_equal(h.getLp().col_cost_, model.cost)


def test_gzip_round_trip(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="bounds")
    for style in ("free", "fixed"):
        path = tmp_path / f"{style}.mps.gz"
        mps.write(model, path, style=style)
        assert path.read_bytes()[:2] == b"\x1f\x8b"
        assert_same(mps.read(path), ModelData.from_model(model))
    assert mps.names_map_path(tmp_path / "fixed.mps.gz") == tmp_path / "fixed_names.csv.gz"
    with gzip.open(tmp_path / "fixed_names.csv.gz", "rt") as f:
        assert f.readline() == "short,long\n"
    assert_same(read_model(tmp_path / "free.mps.gz"), ModelData.from_model(model))


def test_registry_and_export(tmp_path):
    model = build_model(parse_puzzle(FOUR))
    assert format_for("model.mps").name == "mps"
    assert format_for("model.mps.gz").name == "mps"
    write_model(model, tmp_path / "w.mps", style="fixed")
    assert (tmp_path / "w_names.csv").exists()
    # an option the format does not declare is refused with one line (issue 16: it used to vanish)
    with pytest.raises(FormatError, match=r"^format mps: export takes no option 'whatever' \(it takes: mps_style\)$"):
        format_for("mps").export(model, tmp_path / "a", whatever=1)
    assert mps.export(model, tmp_path / "a") == [tmp_path / "a" / "model.mps"]
    files = mps.export(model, tmp_path / "b", mps_style="both")
    assert files == [tmp_path / "b" / n for n in ("model.mps", "model_fixed.mps", "model_fixed_names.csv")]
    assert all(f.exists() for f in files)
    assert mps.export(model, tmp_path / "c", mps_style="fixed") == \
        [tmp_path / "c" / n for n in ("model.mps", "model_fixed.mps", "model_fixed_names.csv")]
    with pytest.raises(FormatError, match=r"^mps: unknown mps_style 'wide'; expected free, fixed or both$"):
        mps.export(model, tmp_path / "d", mps_style="wide")
    with pytest.raises(FormatError, match=r"^mps: unknown style 'loose'; expected free or fixed$"):
        mps.write(model, tmp_path / "e.mps", style="loose")
    assert not (tmp_path / "e.mps").exists()


# ---------------------------------------------------------------------------------------------
# the text itself
# ---------------------------------------------------------------------------------------------
def test_free_layout(tmp_path):
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="bounds")
    path = tmp_path / "m.mps"
    mps.write(model, path)
    text = path.read_text()
    lines = text.splitlines()
    assert lines[0] == "NAME SUDOKU FREE"
    assert lines[1] == "* " + comment_line(model)
    assert parse_comment_line(lines[1]) == comment_metadata(model)
    assert "\t" not in text and text.endswith("ENDATA\n")
    headers = [line for line in lines if line and not line[0].isspace() and line[0] != "*"]
    assert headers == ["NAME SUDOKU FREE", "ROWS", "COLUMNS", "RHS", "BOUNDS", "ENDATA"]
    assert data_lines(path, "ROWS")[:2] == [" N obj", " E cell_1_1"]
    assert [line.split() for line in data_lines(path, "ROWS")[1:]] == [["E", r] for r in model.row_labels]
    columns = data_lines(path, "COLUMNS")
    assert columns[0].split() == ["MARKER", "'MARKER'", "'INTORG'"]
    assert columns[-1].split() == ["MARKER", "'MARKER'", "'INTEND'"]
    assert columns[1].split() == ["x_1_1_1", "cell_1_1", "1", "row_1_1", "1"]
    # entries in CSC order: column by column, rows ascending inside a column
    pairs = [(f[0], f[k]) for f in map(str.split, columns[1:-1]) for k in range(1, len(f), 2)]
    a = model.Aeq.tocsc()
    want = [(model.col_names[j], model.row_labels[i]) for j in range(model.n_cols)
            for i in a.indices[a.indptr[j]:a.indptr[j + 1]]]
    assert pairs == want
    assert all(len(line.split()) == 3 and line.split()[0] == "RHS" for line in data_lines(path, "RHS"))
    assert len(data_lines(path, "RHS")) == model.n_rows          # nothing on the objective row
    bounds = [line.split() for line in data_lines(path, "BOUNDS")]
    clue = set(model.col_names[model.lb == 1])
    assert len(clue) == 23
    expected = []
    for name in model.col_names:
        expected += [["FX", "BND", name, "1"]] if name in clue else [["UP", "BND", name, "1"], ["LO", "BND", name, "0"]]
    assert bounds == expected
    assert "OBJSENSE" not in text and " BV " not in text


def test_free_layout_rows_encoding_odd_columns(tmp_path):
    """A column with an odd count ends with a one-pair line; names never exceed 100 characters."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="rows")
    path = tmp_path / "m.mps"
    mps.write(model, path)
    fields = [line.split() for line in data_lines(path, "COLUMNS")[1:-1]]
    assert ["x_1_2_5", "clue_1_2_5", "1"] in fields
    assert all(len(f) in (3, 5) for f in fields)
    widths = {len(line) for line in data_lines(path, "COLUMNS")[1:-1]}
    assert len(widths) == 1                                       # one width per block
    assert max(len(w) for f in fields for w in f) <= 100
    assert not any(line.endswith(" ") for line in path.read_text().splitlines())


def test_fixed_layout_columns(tmp_path):
    """Fields sit at columns 2-3, 5-12, 15-22, 25-36, 40-47 (1-based) on every line."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="bounds")
    path = tmp_path / "m_fixed.mps"
    mps.write(model, path, style="fixed")
    lines = path.read_text().splitlines()
    assert lines[0] == "NAME          SUDOKU"
    assert max(map(len, lines)) <= 80                              # GLPK warns beyond 80
    assert "".join([lines[1][2:]] + [line[3:] for line in lines[2:] if line.startswith("*+ ")]) == \
        comment_line(model)

    def field(line, a, b):  # 1-based inclusive columns
        return line[a - 1:b]

    rows = data_lines(path, "ROWS")
    assert rows[0] == " N  OBJ"
    for i, line in enumerate(rows[1:]):
        assert (field(line, 2, 3), field(line, 4, 4), field(line, 5, 12)) == ("E ", " ", f"R{i:07d}")
    columns = data_lines(path, "COLUMNS")
    for marker, kind in ((columns[0], "'INTORG'"), (columns[-1], "'INTEND'")):
        assert field(marker, 1, 4) == "    " and field(marker, 5, 12).rstrip() == "MARKER"
        assert field(marker, 15, 22) == "'MARKER'" and field(marker, 40, 47) == kind
        assert field(marker, 23, 39).strip() == ""
    a = model.Aeq.tocsc()
    col_of = np.repeat(np.arange(model.n_cols), np.diff(a.indptr))
    assert len(columns) - 2 == a.nnz
    for k, line in enumerate(columns[1:-1]):
        assert field(line, 1, 4) == "    " and field(line, 13, 14) == "  " and field(line, 23, 24) == "  "
        assert field(line, 5, 12) == f"C{col_of[k]:07d}"
        assert field(line, 15, 22) == f"R{a.indices[k]:07d}"
        assert float(field(line, 25, 36)) == 1.0 and len(line) <= 36
    for i, line in enumerate(data_lines(path, "RHS")):
        assert (field(line, 5, 12), field(line, 15, 22), field(line, 25, 36).strip()) == ("RHS     ", f"R{i:07d}", "1")
    bounds = data_lines(path, "BOUNDS")
    clue = np.flatnonzero(model.lb == 1)
    assert len(bounds) == 2 * model.n_cols - clue.size
    seen = set()
    for line in bounds:
        kind, col, value = field(line, 2, 3), field(line, 15, 22), float(field(line, 25, 36))
        assert field(line, 1, 1) == " " and field(line, 5, 12) == "BND     "
        j = int(col[1:])
        seen.add(j)
        assert (kind, value) in ((("FX", 1.0),) if j in clue else (("UP", 1.0), ("LO", 0.0)))
    assert seen == set(range(model.n_cols))
    assert max(len(line) for line in lines if not line.startswith("*")) <= 61


def test_fixed_names_map_and_rule(tmp_path):
    model = build_model(parse_puzzle(SIX, box="2x3"), clues="reduce")
    path = tmp_path / "model_fixed.mps"
    mps.write(model, path, style="fixed")
    table = pd.read_csv(tmp_path / "model_fixed_names.csv", dtype=str)
    assert list(table.columns) == ["short", "long"]
    want_short = ["OBJ"] + [f"R{i:07d}" for i in range(model.n_rows)] + [f"C{j:07d}" for j in range(model.n_cols)]
    assert table["short"].tolist() == want_short
    assert table["long"].tolist() == ["obj"] + model.row_labels.tolist() + model.col_names.tolist()
    rule = mps.fixed_name_rule()
    assert rule["columns"] % 12 == "C0000012" and rule["rows"] % 3 == "R0000003"
    assert rule["objective"] == "OBJ" and rule["map_file"] == "<stem>_names.csv"
    json.dumps(rule)
    # without the map the short names come back
    (tmp_path / "model_fixed_names.csv").unlink()
    got = mps.read(path)
    assert got.col_names.tolist() == want_short[1 + model.n_rows:]


def test_long_metadata_is_split_for_cbc(tmp_path):
    """CBC fails on lines of 880 characters, so a long comment continues on '*+ ' lines."""
    model = build_model(parse_puzzle("." * 625))                # 25x25: the puzzle string alone is 625
    path = tmp_path / "m.mps"
    mps.write(model, path)
    lines = path.read_text().splitlines()
    assert len(comment_line(model)) + 2 > mps.CARD_LIMIT["free"]
    assert max(map(len, lines)) <= mps.CARD_LIMIT["free"]
    assert lines[2].startswith("*+ ")
    assert "".join([lines[1][2:]] + [line[3:] for line in lines[2:] if line.startswith("*+ ")]) == comment_line(model)
    assert mps.read(path).metadata == comment_metadata(model)


def test_column_names_match_the_convention():
    # the names themselves are Convention.name_table's (tests/core/test_conventions.py checks them
    # against docs/conventions.md); here the free writer's blank-padded columns, reduced ones too
    for puzzle, scheme, clues in ((parse_puzzle("." * 144, box="3x4"), "block", "rows"),
                                  (parse_puzzle("." * 10000), "ijk", "rows"),
                                  (parse_puzzle("12" + "." * 9998), "block", "reduce")):
        for order in "FC":
            model = build_model(puzzle, scheme=scheme, order=order, clues=clues)
            table = mps._column_table(model, 0, model.n_cols)     # as the writer's chunks name them
            names = np.char.rstrip(table.view(f"S{table.shape[1]}").ravel()).astype(str)
            np.testing.assert_array_equal(names, model.convention.names(model.columns))
            assert table.shape[1] == model.convention.name_table().shape[1] == mps._Layout(model, "free").col_width


# ---------------------------------------------------------------------------------------------
# external solvers
# ---------------------------------------------------------------------------------------------
def need(binary: str) -> str:
    path = shutil.which(binary) or (f"/usr/bin/{binary}" if Path(f"/usr/bin/{binary}").exists() else None)
    if path is None:
        pytest.skip(f"{binary} is not installed")
    return path


def check_solution(model, x):
    assert np.abs(model.Aeq @ x - model.beq).max() < 1e-9
    assert (x >= model.lb - 1e-9).all() and (x <= model.ub + 1e-9).all()
    grid = grid_from_vector(model.full_vector(x), model.convention)
    assert verify_grid(grid, model.puzzle)


SOLVER_CASES = [(enc, style) for enc in ("rows", "bounds", "reduce") for style in ("free", "fixed")]


@pytest.mark.interop
@pytest.mark.parametrize("enc,style", SOLVER_CASES)
def test_glpsol_solves_our_file(tmp_path, enc, style):
    glpsol = need("glpsol")
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), scheme="block", order="C", clues=enc)
    path = tmp_path / "m.mps"
    mps.write(model, path, style=style)
    flag = "--freemps" if style == "free" else "--mps"
    run = subprocess.run([glpsol, flag, str(path), "--check"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "warning" not in run.stdout.lower() and "error" not in run.stdout.lower(), run.stdout
    assert f"{model.n_cols} integer variables, {model.n_cols} of which are binary" in run.stdout or \
        f"{model.n_cols} integer variables" in run.stdout
    run = subprocess.run([glpsol, flag, str(path), "-w", str(tmp_path / "sol.txt")], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0 and "INTEGER OPTIMAL SOLUTION FOUND" in run.stdout, run.stdout
    x = np.zeros(model.n_cols)
    for line in (tmp_path / "sol.txt").read_text().splitlines():
        parts = line.split()
        if parts[0] == "s":
            assert parts[1:5] == ["mip", str(model.n_rows), str(model.n_cols), "o"]
        elif parts[0] == "j":
            x[int(parts[1]) - 1] = float(parts[2])
    check_solution(model, x)


@pytest.mark.interop
@pytest.mark.parametrize("enc,style", SOLVER_CASES)
def test_cbc_solves_our_file(tmp_path, enc, style):
    cbc = need("cbc")
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues=enc)
    path = tmp_path / "m.mps"
    mps.write(model, path, style=style)
    out = tmp_path / "sol.txt"
    run = subprocess.run([cbc, str(path), "solve", "solu", str(out)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout
    assert "read with 0 errors" in run.stdout and "Bad image" not in run.stdout, run.stdout
    assert f"has {model.n_rows} rows, {model.n_cols} columns and {model.nnz} elements" in run.stdout
    lines = out.read_text().splitlines()
    assert lines[0].startswith("Optimal - objective value 0")
    x = np.zeros(model.n_cols)
    for line in lines[1:]:
        index, _name, value = line.split()[:3]
        x[int(index)] = float(value)
    check_solution(model, x)


@pytest.mark.interop
def test_cbc_reads_long_metadata(tmp_path):
    cbc = need("cbc")
    path = tmp_path / "m.mps"
    mps.write(build_model(parse_puzzle("." * 625)), path, style="fixed")
    run = subprocess.run([cbc, "-import", str(path), "-quit"], capture_output=True, text=True, timeout=60)
    assert "read with 0 errors" in run.stdout and "Bad image" not in run.stdout, run.stdout


# ---------------------------------------------------------------------------------------------
# other tools' files
# ---------------------------------------------------------------------------------------------
def test_reads_highs_writemodel_output(tmp_path):
    """HiGHS writes generic names, 'RHS_V' and BV bounds; the numbers must come back the same."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="rows")
    a = model.Aeq.tocsc()
    h = new_highs()
    h.passModel(model.n_cols, model.n_rows, a.nnz, 1, 1, 0.0, model.cost, model.lb, model.ub, model.beq,
                model.beq, a.indptr.astype(np.int32), a.indices.astype(np.int32), a.data,
                np.ones(model.n_cols, dtype=np.int32))
    h.writeModel(str(tmp_path / "h.mps"))
    got = mps.read(tmp_path / "h.mps")
    want = ModelData.from_model(model)
    assert (got.Aeq != want.Aeq).nnz == 0
    for name in ("row_lower", "row_upper", "lb", "ub", "cost"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert got.integrality.all()
    assert got.col_names[:2].tolist() == ["c0", "c1"] and got.row_labels[0] == "r0"
    assert got.metadata == {}


HANDWRITTEN = """\
* a file in the style of other tools
NAME          TESTLP
OBJSENSE
    MIN
ROWS
 N  COST
 L  LIM1
 G  LIM2
 E  MYEQN
 N  SPARE
COLUMNS
    MARKER                 'MARKER'                 'INTORG'
    X1        COST         1.0   LIM1         1.0
    X1        LIM2         1.0
    MARKER                 'MARKER'                 'INTEND'
    X2        COST         2.0   LIM1         1.0
* a comment inside a section
    X2        MYEQN       -1.0   SPARE        9
    X3        COST        -1.0   MYEQN        1.0
\tX4\tCOST\t1.5e0\tLIM2\t-2.
    X5        COST        0
RHS
    RHS       COST        -7.5
    RHS       LIM1         4.0   LIM2         1.0
              MYEQN        7.0
BOUNDS
 UP BND       X1           4.0
 MI BND       X2
 UP BND       X2           1.0
 BV BND       X3
 FR BND       X4
 FX BND       X5           2.5
ENDATA
"""


def test_reads_a_handwritten_file(tmp_path):
    path = tmp_path / "t.mps"
    path.write_text(HANDWRITTEN)
    got = mps.read(path)
    assert got.col_names.tolist() == ["X1", "X2", "X3", "X4", "X5"]
    assert got.row_labels.tolist() == ["LIM1", "LIM2", "MYEQN"]
    np.testing.assert_array_equal(got.Aeq.toarray(), [[1, 1, 0, 0, 0], [1, 0, 0, -2, 0], [0, -1, 1, 0, 0]])
    np.testing.assert_array_equal(got.row_lower, [-np.inf, 1, 7])
    np.testing.assert_array_equal(got.row_upper, [4, np.inf, 7])
    np.testing.assert_array_equal(got.cost, [1, 2, -1, 1.5, 0])
    np.testing.assert_array_equal(got.lb, [0, -np.inf, 0, -np.inf, 2.5])
    np.testing.assert_array_equal(got.ub, [4, 1, 1, np.inf, 2.5])
    np.testing.assert_array_equal(got.integrality, [True, False, True, False, False])
    assert got.metadata == {"objective_constant": 7.5}
    # HiGHS agrees on everything it models the same way
    h = new_highs()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    lp = h.getLp()
    np.testing.assert_array_equal(lp.col_lower_, got.lb)
    np.testing.assert_array_equal(lp.col_upper_, got.ub)
    np.testing.assert_array_equal(lp.col_cost_, got.cost)
    np.testing.assert_array_equal(lp.row_lower_, got.row_lower)
    np.testing.assert_array_equal(lp.row_upper_, got.row_upper)
    assert lp.offset_ == 7.5


def test_bound_order_and_legacy_negative_up(tmp_path):
    text = HANDWRITTEN.split("BOUNDS\n")[0] + "BOUNDS\n" + """\
 LO BND       X1           1
 MI BND       X1
 UP           X2          -3
 LO BND       X3           2
 LO BND       X3           0.5
 BV           X4           1
 PL BND       X5
ENDATA
"""
    path = tmp_path / "b.mps"
    path.write_text(text)
    got = mps.read(path)
    np.testing.assert_array_equal(got.lb, [-np.inf, -np.inf, 0.5, 0, 0])
    np.testing.assert_array_equal(got.ub, [np.inf, -3, np.inf, 1, np.inf])
    np.testing.assert_array_equal(got.integrality, [True, False, False, True, False])


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------
GOOD = "NAME T FREE\nROWS\n N obj\n E r1\nCOLUMNS\n x r1 1 obj 2\nRHS\n RHS r1 1\nBOUNDS\n UP BND x 1\nENDATA\n"


@pytest.mark.parametrize("text,message", [
    ("", "line 1: empty file: not MPS"),
    (GOOD.replace("ENDATA\n", ""), "line 10: no ENDATA: the file is truncated or not MPS"),
    (GOOD.replace("RHS\n", "FOO\n"), "line 7: unknown section 'FOO'"),
    (GOOD.replace("x r1 1 obj 2", "x r1 1x"), "line 6: bad number '1x' (COLUMNS value)"),
    (GOOD.replace("x r1 1 obj 2", "x r1 1_0"), "line 6: bad number '1_0' (COLUMNS value)"),
    (GOOD.replace("x r1 1 obj 2", "x r2 1"), "line 6: unknown row 'r2'"),
    (GOOD.replace("x r1 1 obj 2", "x r1"), "line 6: COLUMNS line with 2 fields (expected 3 or 5)"),
    (GOOD.replace("x r1 1 obj 2", "x r1 1\n y r1 1\n x obj 1"),
     "line 8: column 'x' continues after other columns (a column's entries must be contiguous)"),
    (GOOD.replace("x r1 1 obj 2", "x" * 300 + " r1 1"), "line 6: field longer than 256 characters"),
    (GOOD.replace(" RHS r1 1", " RHS r1 one"), "line 8: bad number 'one' (RHS value)"),
    (GOOD.replace(" RHS r1 1", " RHS r9 1"), "line 8: unknown row 'r9'"),
    (GOOD.replace(" UP BND x 1", " XX BND x 1"), "line 10: unknown bound type 'XX'"),
    (GOOD.replace(" UP BND x 1", " UP BND y 1"), "line 10: bound on unknown column 'y'"),
    (GOOD.replace(" UP BND x 1", " UP BND x"), "line 10: bound on unknown column 'BND'"),
    (GOOD.replace(" UP BND x 1", " UP BND x 1e"), "line 10: bad number '1e' (bound value)"),
    (GOOD.replace(" UP BND x 1", " UP x"), "line 10: a bound needs a column and a value"),
    (GOOD.replace(" E r1", " Q r1"), "line 4: unknown row type 'Q' (expected N, E, L or G)"),
    (GOOD.replace(" E r1", " E obj"), "line 4: row 'obj' declared twice"),
    (GOOD.replace("RHS\n RHS r1 1\n", "RANGES\n RNG r1 1\n"), "line 7: RANGES section is not supported"),
    (GOOD.replace("ROWS\n", "OBJSENSE MAX\nROWS\n"), "line 2: OBJSENSE MAX is not supported: only minimisation"),
    (GOOD.replace("ROWS\n", "OBJSENSE\n    MAX\nROWS\n"),
     "line 2: OBJSENSE MAX is not supported: only minimisation"),
    (" x r1 1\n" + GOOD, "line 1: data line before any section"),
    (GOOD.replace("ROWS\n N obj\n E r1\n", ""), "line 2: section COLUMNS before ROWS"),
    (GOOD.replace("COLUMNS\n", "COLUMNS\n MARKER 'MARKER' 'INTXXX'\n"),
     "line 6: unknown marker (expected 'INTORG' or 'INTEND')"),
    (GOOD.replace("BOUNDS\n UP BND x 1\n", "BOUNDS\n UP BND x 1\nRHS\n"), "line 11: section RHS appears twice"),
])
def test_bad_files_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.mps"
    path.write_text(text)
    with pytest.raises(FormatError) as err:
        mps.read(path)
    assert str(err.value) == f"{path}: {message}"


def test_utf8_names_and_crlf(tmp_path):
    path = tmp_path / "u.mps"
    path.write_bytes(GOOD.replace("x r1", "x\u00e9 r1").replace("UP BND x", "UP BND x\u00e9").replace("\n", "\r\n")
                     .encode("utf-8"))
    got = mps.read(path)
    assert got.col_names.tolist() == ["x\u00e9"] and got.row_labels.tolist() == ["r1"]
    assert got.ub.tolist() == [1.0] and got.cost.tolist() == [2.0]


def test_good_file_of_the_error_tests_reads(tmp_path):
    path = tmp_path / "good.mps"
    path.write_text(GOOD)
    got = mps.read(path)
    assert got.cost.tolist() == [2.0] and got.ub.tolist() == [1.0] and got.Aeq.toarray().tolist() == [[1.0]]


def test_reading_columns_holds_the_entries_a_few_times_over(tmp_path, monkeypatch):
    # the check for a (column, row) pair listed twice sorted the keys through their order and
    # gathered them in it twice, beside the blocks' parts still held after their joins and every
    # entry's line: 11 arrays the size of the entries at once, an empty 100x100's check at 1 GB
    import tracemalloc

    import formats.mps_read as mps_read

    n_rows, n_cols = 2000, 50     # 100,000 entries in long columns: the column name table is small
    rows = "".join(f" E r{i}\n" for i in range(n_rows))
    cols = "".join(f" x{j} r{i} 1\n" for j in range(n_cols) for i in range(n_rows))
    path = tmp_path / "long.mps"
    path.write_text(f"NAME long\nROWS\n N obj\n{rows}COLUMNS\n{cols}ENDATA\n")
    monkeypatch.setattr(mps_read, "_READ_LINES", 4096)         # a block's temporaries, not the file's
    real, peaks = mps_read._read_columns, []

    def traced(*args):
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = real(*args)
        peaks.append(tracemalloc.get_traced_memory()[1] - before)
        return out

    monkeypatch.setattr(mps_read, "_read_columns", traced)
    tracemalloc.start()
    try:
        got = mps.read(path)
    finally:
        tracemalloc.stop()
    entries = n_rows * n_cols
    assert got.Aeq.nnz == entries and got.Aeq.shape == (n_rows, n_cols)
    # now the entries' columns, rows, values and lines, and their keys: 5.5 arrays of 8 bytes (11.5 before)
    assert peaks[0] < 8 * 8 * entries, peaks[0] / (8 * entries)


def test_the_agreement_check_and_the_bounds_stand_on_little(tmp_path, monkeypatch):
    # the file's text, its line offsets and the entries were still held when the agreement check
    # ran (6.7 times the file here); the bounds' parts were held beside their joins
    import tracemalloc

    import formats.mps_read as mps_read

    model = build_model(parse_puzzle('{"size": 25}'))           # 15,625 columns, two bounds each
    path = tmp_path / "m.mps"
    mps.write(model, path)
    monkeypatch.setattr(mps_read, "_READ_LINES", 4096)
    held, peaks, real = [], [], mps_read._read_bounds
    monkeypatch.setattr(mps_read, "refuse_disagreement",
                        lambda data, *args, **kwargs: held.append(tracemalloc.get_traced_memory()[0]))

    def traced(*args):
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        real(*args)
        peaks.append(tracemalloc.get_traced_memory()[1] - before)

    monkeypatch.setattr(mps_read, "_read_bounds", traced)
    tracemalloc.start()
    try:
        mps.read(path)
    finally:
        tracemalloc.stop()
    assert held[0] < 3 * path.stat().st_size, held[0] / path.stat().st_size      # 1.2 now
    bounds = 2 * model.Aeq.shape[1]
    assert peaks[0] < 13.5 * 8 * bounds, peaks[0] / (8 * bounds)                  # 11.8 now, 14.7 before


def test_a_block_of_lines_holds_well_under_64_mb():
    # a block's tokens and offsets (180 bytes a bounds line) stay resident between blocks: 2^19
    # lines a block were 91 MB of the check of an empty 100x100's MPS at its peak
    import tracemalloc

    import formats.mps_read as mps_read

    n = 4096
    lines = mps_read._Lines(b"".join(b" UP BND x_%d_1_1       1\n" % i for i in range(n)), "m.mps")
    tracemalloc.start()
    try:
        block = mps_read._Block(lines, 0, n)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(block.tokens) == 4 * n
    assert peak / n * mps_read._READ_LINES < 64 << 20, peak / n * mps_read._READ_LINES / 2 ** 20


def test_missing_and_truncated_gzip(tmp_path):
    with pytest.raises(FormatError, match=r"nope\.mps: no such file$"):
        mps.read(tmp_path / "nope.mps")
    model = build_model(parse_puzzle(FOUR))
    mps.write(model, tmp_path / "m.mps.gz")
    data = (tmp_path / "m.mps.gz").read_bytes()
    (tmp_path / "cut.mps.gz").write_bytes(data[:len(data) // 2])
    with pytest.raises(FormatError, match=r"^.*cut\.mps\.gz: (cannot read: .*|line \d+: .*)$"):
        mps.read(tmp_path / "cut.mps.gz")


def test_failed_write_leaves_no_file(tmp_path):
    # build_model refuses a NaN cost; the writer's own check stays for a Model changed after it
    model = build_model(parse_puzzle(FOUR))
    object.__setattr__(model, "objective", np.full(64, np.nan))
    with pytest.raises(FormatError, match="non-finite"):
        mps.write(model, tmp_path / "m.mps")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# property: random shapes, clues, conventions, encodings and costs
# ---------------------------------------------------------------------------------------------
def solved_grid(h: int, w: int) -> np.ndarray:
    n = h * w
    r, c = np.divmod(np.arange(n * n), n)
    return ((w * (r % h) + r // h + c) % n + 1).reshape(n, n)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=st.integers(1, 3), w=st.integers(1, 3), latin=st.booleans(), data=st.data())
def test_property_round_trip(tmp_path_factory, h, w, latin, data):
    n = h * w
    assume(n >= (2 if latin else 4))   # smaller grids are not puzzles (issue 21)
    grid = solved_grid(h, w)
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n)), dtype=bool)
    puzzle = Puzzle(np.where(keep.reshape(n, n), grid, 0), h, w, "latin" if latin else "classic")
    scheme = data.draw(st.sampled_from(["ijk"] if latin else ["ijk", "block"]))
    order = data.draw(st.sampled_from("FC"))
    enc = data.draw(st.sampled_from(["rows", "bounds", "reduce"]))
    style = data.draw(st.sampled_from(["free", "fixed"]))
    costs = data.draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, -2.5, 0.125, 3e-7]), min_size=n ** 3, max_size=n ** 3))
    model = build_model(puzzle, scheme=scheme, order=order, clues=enc,
                        objective=np.array(costs) if data.draw(st.booleans()) else None)
    path = tmp_path_factory.mktemp("p") / ("m.mps.gz" if data.draw(st.booleans()) else "m.mps")
    mps.write(model, path, style=style)
    got = mps.read(path)
    assert_same(got, ModelData.from_model(model))
    assert got.metadata == comment_metadata(model)
    if not path.name.endswith(".gz"):
        highs = new_highs()
        assert highs.readModel(str(path)) == highspy.HighsStatus.kOk
        lp = highs.getLp()
        assert (lp.num_col_, lp.num_row_, len(lp.a_matrix_.value_)) == (model.n_cols, model.n_rows, model.nnz)
        np.testing.assert_array_equal(lp.col_lower_, model.lb)


@pytest.mark.parametrize("tail", [b"", b"\n", b"\r\n", b"\n\n"])
def test_line_offsets_are_found_a_block_at_a_time_as_int32(monkeypatch, tail):
    # line ends cut by the blocks anywhere (a block of 3 bytes: mid-line, on a newline, between
    # \r and \n) give the lines str.split gives, held as int32 offsets
    import formats.mps_read as mps_read
    monkeypatch.setattr(mps_read, "_NEWLINE_BLOCK", 3)
    raw = b"NAME x\n\nROWS\r\n N obj\n  E  c1\nCOLUMNS\n    x  obj  1" + tail
    lines = mps_read._Lines(raw, "m.mps")
    want = raw.split(b"\n")
    want = want[:-1] if raw.endswith(b"\n") else want
    assert [lines.text(i) for i in range(len(lines))] == [w.decode().rstrip("\r") for w in want]
    assert lines.starts.dtype == lines.ends.dtype == np.int32
    assert lines.first.tolist() == [w[0] if w else 10 for w in want]


def test_line_offsets_hold_no_mask_of_the_file(monkeypatch):
    # the old offsets: a mask of every byte and int64 positions, starts and ends (36 bytes a line)
    import tracemalloc
    import formats.mps_read as mps_read
    monkeypatch.setattr(mps_read, "_NEWLINE_BLOCK", 4096)
    raw = b"".join(b"    x_%d_1_1  cell_%d  1\n" % (i, i) for i in range(50_000))
    tracemalloc.start()
    try:
        lines = mps_read._Lines(raw, "m.mps")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(lines) == 50_000 and peak < 24 * len(lines), peak / len(lines)
