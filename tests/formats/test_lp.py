"""CPLEX LP: round trips through our reader, HiGHS, GLPK, CBC and SCIP; reader robustness; errors."""
from __future__ import annotations

import gzip
import re
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats import format_for, lp
from formats.base import ModelData
from formats.lp_read import _Section, _Text
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.manifest import comment_line, parse_comment_line
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import new_highs


def _grid(h, w):
    """A solved h*w-box grid by the shift pattern (row r of band b starts at w*(r%h) + b)."""
    n = h * w
    return np.array([[(w * (r % h) + r // h + c) % n + 1 for c in range(n)] for r in range(n)])


def _sparse_clues(grid, keep_every=3):
    g = grid.copy()
    g[(np.arange(g.size).reshape(g.shape) % keep_every) != 0] = 0
    return g


PUZZLES = {
    "default": lambda: parse_puzzle(DEFAULT_PUZZLE),
    "4x4": lambda: parse_puzzle("1..4" "...." "...." "4..1"),
    "6x6": lambda: parse_puzzle(_sparse_clues(_grid(2, 3)), box="2x3"),
    "jigsaw": lambda: parse_puzzle("1.......2......3", regions="0001011122232333"),
    "x": lambda: parse_puzzle("1........" + "." * 72, variant="x"),
    "latin": lambda: parse_puzzle("12..." + "." * 15 + "....1", variant="latin"),
}
CASES = [
    (name, scheme, order, clues)
    for name in PUZZLES
    for scheme in (("ijk", "block") if name in ("default", "4x4", "6x6", "x") else ("ijk",))
    for order in ("F", "C")
    for clues in ("rows", "bounds", "reduce")
]


def _model(name, scheme="ijk", order="F", clues="rows", objective=None):
    return build_model(PUZZLES[name](), scheme=scheme, order=order, clues=clues, objective=objective)


def assert_same(got: ModelData, want: ModelData):
    assert got.Aeq.shape == want.Aeq.shape
    assert (got.Aeq != want.Aeq).nnz == 0
    for field in ("row_lower", "row_upper", "lb", "ub", "cost", "integrality"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field), err_msg=field)
    np.testing.assert_array_equal(got.row_labels, want.row_labels)
    np.testing.assert_array_equal(got.col_names, want.col_names)


def _lines(path):
    return path.read_text().splitlines()


# -- round trip through our reader ----------------------------------------------------------
@pytest.mark.parametrize("name,scheme,order,clues", CASES)
def test_round_trip(tmp_path, name, scheme, order, clues):
    m = _model(name, scheme, order, clues)
    path = tmp_path / "model.lp"
    lp.write(m, path)
    got = lp.read(path)
    want = ModelData.from_model(m)
    assert_same(got, want)
    meta = {k: v for k, v in want.metadata.items() if k != "kept_columns"}
    assert {k: got.metadata[k] for k in meta} == meta
    if clues == "reduce":
        assert got.metadata["kept_columns"] == "by name"


def _section(text: str, start: str, stop: str) -> str:
    return text.split(f"\n{start}\n")[1].split(f"\n{stop}\n")[0]


def test_file_shape(tmp_path):
    """The portable dialect: sections spelled out, explicit bounds, no tabs, short lines."""
    m = _model("default", clues="bounds")
    path = tmp_path / "m.lp"
    lp.write(m, path)
    text = path.read_text()
    lines = text.splitlines()
    assert lines[0].startswith("\\ sudoku-pipeline: {")
    assert [ln for ln in lines if not ln.startswith((" ", "+", "-", "\\"))] == \
        ["Minimize", "Subject To", "Bounds", "Binaries", "Generals", "End"]
    # every column in the objective, in export order, cost 0 written out (see test_objective_lists_...)
    assert lines[lines.index("Minimize") + 1].startswith(" obj: 0 x_1_1_1 + 0 x_2_1_1 + 0 x_3_1_1 + ")
    assert " cell_1_1: x_1_1_1 + x_1_1_2 + x_1_1_3 + x_1_1_4 + x_1_1_5 + x_1_1_6 + x_1_1_7 + x_1_1_8 + x_1_1_9 = 1" \
        in lines
    # Bounds: only the fixed clue columns; the binaries' 0/1 is implied by Binaries
    bounds = _section(text, "Bounds", "Binaries").splitlines()
    assert " x_1_2_5 = 1" in bounds and " 0 <= x_1_1_1 <= 1" not in lines
    assert sorted(bounds) == sorted(f" {nm} = 1" for nm in m.col_names[m.lb == 1])
    assert "\t" not in text and max(map(len, lines)) <= 255
    assert not re.search(r"(^|\s)1 x_", text) and not re.search(r"^\s*(bin|gen)\s*$", text, re.M)
    generals = text.split("Generals\n")[1].split("End")[0].split()
    assert set(generals) == set(m.col_names[m.lb == 1])  # the fixed clue columns, not Binaries
    binaries = _section(text, "Binaries", "Generals").split()
    assert binaries == list(m.col_names[m.lb == 0])


@pytest.mark.parametrize("scheme,order,clues", [("ijk", "F", "rows"), ("block", "C", "reduce"), ("block", "F", "bounds")])
def test_objective_lists_every_column_in_export_order(tmp_path, scheme, order, clues):
    """``obj: 0 x + 0 y + ...``: all columns in export order, so that readers numbering columns by
    first appearance (GLPK, HiGHS) number them as the export does; zeros read back as zero cost."""
    m = _model("default", scheme, order, clues)
    path = tmp_path / "m.lp"
    lp.write(m, path)
    text = path.read_text()
    obj = _section(text, "Minimize", "Subject To").split()
    assert obj[0] == "obj:" and obj[1::3] == ["0"] * m.n_cols and obj[3::3] == ["+"] * (m.n_cols - 1)
    assert obj[2::3] == list(m.col_names)
    assert max(map(len, text.splitlines())) <= 255
    got = lp.read(path)
    assert_same(got, ModelData.from_model(m))
    assert not got.cost.any() and "objective_offset" not in got.metadata
    # without the metadata comment the reader, too, orders columns by first appearance
    bare = tmp_path / "bare.lp"
    bare.write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith("\\")) + "\n")
    got = lp.read(bare)
    assert list(got.col_names) == list(m.col_names) and not got.cost.any()
    np.testing.assert_array_equal(got.lb, m.lb)
    np.testing.assert_array_equal(got.ub, m.ub)
    if clues == "rows":  # every column binary: no Bounds section at all
        assert "\nBounds\n" not in text


def test_long_rows_wrap_and_big_names(tmp_path):
    m = build_model(parse_puzzle("." * 256), scheme="block", clues="rows")  # 16x16: x_I_J_p_q_n
    path = tmp_path / "m.lp"
    lp.write(m, path)
    lines = _lines(path)
    assert max(map(len, lines)) <= 255
    assert any(ln.startswith("+ x_") for ln in lines)  # continuation lines
    assert_same(lp.read(path), ModelData.from_model(m))


def test_long_metadata_is_split_and_joined(tmp_path):
    m = build_model(parse_puzzle("." * 256))  # a 16x16 puzzle is written as "0 0 0 ..." in JSON
    path = tmp_path / "m.lp"
    lp.write(m, path)
    lines = _lines(path)
    assert sum(ln.startswith("\\+ ") for ln in lines) >= 2 and max(map(len, lines)) <= 255
    joined = "".join([lines[0][2:]] + [ln[3:] for ln in lines if ln.startswith("\\+ ")])
    assert parse_comment_line(joined) == parse_comment_line(comment_line(m))  # spaces as \u0020
    assert lp.read(path).metadata["puzzle"] == m.puzzle.to_string()


def test_costs_and_negative_coefficients(tmp_path):
    c = np.random.default_rng(16).integers(-9, 10, 64).astype(float)
    c[3], c[5] = 2.5, -0.125
    m = build_model(parse_puzzle("." * 16), objective=c)
    path = tmp_path / "c.lp"
    lp.write(m, path)
    text = path.read_text()
    assert " obj: x_1_1_1 + x_2_1_1 + 6 x_3_1_1 + 2.5 x_4_1_1 + 5 x_1_2_1 - 0.125 x_2_2_1" in text
    assert_same(lp.read(path), ModelData.from_model(m))


@pytest.mark.parametrize("clues", ["rows", "bounds", "reduce"])
def test_small_blocks_split_rows(tmp_path, monkeypatch, clues):
    """Blocks of 7 entries cut rows, bounds and name lists anywhere; the text is the same."""
    c = np.random.default_rng(3).normal(size=729).round(3)
    m = _model("default", "block", "C", clues, objective=c)
    lp.write(m, tmp_path / "big.lp")
    monkeypatch.setattr(lp, "_CHUNK", 7)
    lp.write(m, tmp_path / "small.lp")
    assert (tmp_path / "small.lp").read_bytes() == (tmp_path / "big.lp").read_bytes()
    assert_same(lp.read(tmp_path / "small.lp"), ModelData.from_model(m))


def test_empty_rows_and_empty_model(tmp_path):
    # reduce: digit 1 cannot go anywhere in row 1, and cell (1,4) has no candidate left
    m = build_model(parse_puzzle("234." "...." "...1" "...."), clues="reduce")
    assert (np.diff(m.Aeq.indptr) == 0).sum() == 2
    path = tmp_path / "e.lp"
    lp.write(m, path)
    assert " row_1_1: 0 x_2_1_1 = 1" in _lines(path)
    assert_same(lp.read(path), ModelData.from_model(m))
    solved = build_model(parse_puzzle("1234341221434321"), clues="reduce")
    lp.write(solved, tmp_path / "z.lp")
    got = lp.read(tmp_path / "z.lp")
    assert got.Aeq.shape == (0, 0) and got.col_names.size == 0


def test_gzip_registry_and_export(tmp_path):
    m = _model("4x4")
    path = tmp_path / "m.lp.gz"
    lp.write(m, path)
    assert gzip.open(path).read(2) == b"\\ "
    assert_same(lp.read(path), ModelData.from_model(m))
    assert format_for("x.lp").name == "lp" and format_for("x.lp.gz").name == "lp"
    assert lp.export(m, tmp_path / "out") == [tmp_path / "out" / "model.lp"]
    assert not list((tmp_path / "out").glob(".*tmp"))  # atomic write left no temporary


def test_names_match_convention():
    # the names themselves are Convention.name_table's (tests/core/test_conventions.py checks them
    # against docs/conventions.md); here the writer's " + name" terms
    for name, scheme, order, clues in CASES[::5]:
        m = _model(name, scheme, order, clues)
        terms = lp._term_table(m.convention, m.columns)
        assert (terms[:, :3] == np.frombuffer(b" + ", np.uint8)).all()
        names = terms[:, 3:].view(f"S{terms.shape[1] - 3}").ravel().astype(str)
        np.testing.assert_array_equal(names, m.col_names)


def test_writer_refuses_unsafe_labels(tmp_path):
    m = _model("4x4")
    for _bad, why in (("e1", "e12"), ("free", "free"), ("1abc", "1abc"), ("a b", "a b")):
        labels = m.row_labels.astype(object)
        labels[3] = why if why != "e12" else "e1"
        m.__dict__["row_labels"] = labels.astype(str)  # the Model caches its labels here
        with pytest.raises(FormatError) as e:
            lp.write(m, tmp_path / "bad.lp")
        assert str(e.value).startswith(f"{tmp_path / 'bad.lp'}: row label {labels[3]!r} cannot be written in CPLEX LP")
    assert not (tmp_path / "bad.lp").exists()


# -- other tools read our file -----------------------------------------------------------------
def _highs():
    return new_highs()


@pytest.mark.interop
@pytest.mark.parametrize("name,scheme,order,clues", [c for c in CASES if c[2] == "C" or c[0] in ("jigsaw", "latin")])
def test_highs_reads_the_same_model(tmp_path, name, scheme, order, clues):
    import highspy

    m = _model(name, scheme, order, clues)
    path = tmp_path / "m.lp"
    lp.write(m, path)
    h = _highs()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    hl = h.getLp()
    want = ModelData.from_model(m)
    # HiGHS numbers columns by first appearance: the objective lists them all in export order
    assert list(hl.col_names_) == list(want.col_names)
    cols = {nm: j for j, nm in enumerate(hl.col_names_)}
    rows = {nm: i for i, nm in enumerate(hl.row_names_)}
    cp = np.array([cols[nm] for nm in want.col_names], dtype=int)
    rp = np.array([rows[nm] for nm in want.row_labels], dtype=int)
    a = hl.a_matrix_
    mat = sp.csc_matrix((a.value_, a.index_, a.start_), shape=(hl.num_row_, hl.num_col_))
    assert (mat.tocsr()[rp][:, cp] != want.Aeq).nnz == 0
    np.testing.assert_array_equal(np.array(hl.row_lower_)[rp], want.row_lower)
    np.testing.assert_array_equal(np.array(hl.row_upper_)[rp], want.row_upper)
    np.testing.assert_array_equal(np.array(hl.col_lower_)[cp], want.lb)
    np.testing.assert_array_equal(np.array(hl.col_upper_)[cp], want.ub)
    np.testing.assert_array_equal(np.array(hl.col_cost_)[cp], want.cost)
    integ = np.array([int(v) for v in hl.integrality_])[cp] if len(hl.integrality_) else np.zeros(len(cp))
    np.testing.assert_array_equal(integ == int(highspy.HighsVarType.kInteger), want.integrality)


def _solution_checks(m, values: dict[str, float], objective: float, want_objective: float):
    x = np.array([values.get(nm, 0.0) for nm in m.col_names])
    assert np.all(np.abs(x - np.rint(x)) < 1e-6), "fractional: the solver ignored integrality"
    assert np.all(x >= m.lb - 1e-9) and np.all(x <= m.ub + 1e-9)
    np.testing.assert_allclose(m.Aeq @ x, m.beq, atol=1e-6)
    assert objective == pytest.approx(want_objective)


def _fractional_cost_model():
    """4x4, seed-16 costs: LP relaxation optimum -50 (fractional), integer optimum -47."""
    c = np.random.default_rng(16).integers(-9, 10, 64).astype(float)
    return build_model(parse_puzzle("." * 16), objective=c), -47.0


SOLVER_MODELS = {
    "default_rows": lambda: (_model("default"), 0.0),
    "default_bounds": lambda: (_model("default", "block", "C", "bounds"), 0.0),  # x = 1 kept
    "costs": _fractional_cost_model,
}


@pytest.mark.interop
@pytest.mark.parametrize("which", SOLVER_MODELS)
def test_glpk_solves_it(tmp_path, which):
    glpsol = shutil.which("glpsol")
    if glpsol is None:
        pytest.skip("glpsol (glpk-utils) not installed")
    m, want = SOLVER_MODELS[which]()
    path = tmp_path / "m.lp"
    lp.write(m, path)
    out = tmp_path / "out.txt"
    run = subprocess.run([glpsol, "--lp", str(path), "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout
    assert "redefined" not in run.stdout  # no binary has bounds twice (Bounds and Binaries)
    report = out.read_text()
    assert "Status:     INTEGER OPTIMAL" in report
    assert re.search(rf"Columns:\s+{m.n_cols} \({m.n_cols} integer", report)
    objective = float(re.search(r"Objective:\s+obj = (\S+)", report).group(1))
    numbered = re.findall(r"^\s*(\d+) (x_\S+)\s+\*\s+(\S+)", report, re.M)
    values = {k: float(v) for _, k, v in numbered}
    assert len(values) == m.n_cols
    # GLPK numbers columns by first appearance: the objective lists them all in export order
    assert [k for _, k, _ in numbered] == list(m.col_names)
    assert [int(j) for j, _, _ in numbered] == list(range(1, m.n_cols + 1))
    _solution_checks(m, values, objective, want)


@pytest.mark.interop
@pytest.mark.parametrize("which", SOLVER_MODELS)
def test_cbc_solves_it(tmp_path, which):
    cbc = shutil.which("cbc")
    if cbc is None:
        pytest.skip("cbc (coinor-cbc) not installed")
    m, want = SOLVER_MODELS[which]()
    path = tmp_path / "m.lp"
    lp.write(m, path)
    out = tmp_path / "out.txt"
    run = subprocess.run([cbc, str(path), "solve", "solu", str(out)], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stdout
    text = out.read_text()
    head = text.splitlines()[0]
    assert head.startswith("Optimal"), head
    objective = float(head.rsplit(None, 1)[1])
    values = {k: float(v) for k, v in re.findall(r"^\s*\d+\s+(x_\S+)\s+(\S+)", text, re.M)}
    _solution_checks(m, values, objective, want)
    if which == "costs":
        # the relaxation's optimum is -50: -47 proves CBC branched on the Binaries
        assert "Continuous objective value is -50" in run.stdout


@pytest.mark.interop
def test_scip_reads_it(tmp_path):
    pyscipopt = pytest.importorskip("pyscipopt")
    m, want = _fractional_cost_model()
    path = tmp_path / "m.lp"
    lp.write(m, path)
    s = pyscipopt.Model()
    s.hideOutput()
    s.readProblem(str(path))
    assert s.getNVars() == m.n_cols and s.getNConss() == m.n_rows
    assert {v.vtype() for v in s.getVars()} == {"BINARY"}
    assert {(v.getLbOriginal(), v.getUbOriginal()) for v in s.getVars()} == {(0.0, 1.0)}  # from Binaries
    s.optimize()
    assert s.getStatus() == "optimal" and s.getObjVal() == pytest.approx(want)
    mb = _model("default", clues="bounds")
    lp.write(mb, path)
    s = pyscipopt.Model()
    s.hideOutput()
    s.readProblem(str(path))
    fixed = {v.name for v in s.getVars() if v.getLbGlobal() == 1.0}
    assert fixed == set(mb.col_names[mb.lb == 1])


def _mps_bounds(text: str) -> dict[str, tuple[str, str]]:
    """{column: (bound type, value)} from an MPS BOUNDS section (free or fixed, one bound a line)."""
    body = text.split("\nBOUNDS\n")[1].split("\nENDATA")[0]
    return {t[2]: (t[0], t[3] if len(t) > 3 else "") for t in (ln.split() for ln in body.splitlines())}


@pytest.mark.interop
@pytest.mark.parametrize("tool", ["glpk", "cbc"])
def test_binaries_get_bounds_0_1_without_bounds_lines(tmp_path, tool):
    """Columns under Binaries have no Bounds line; GLPK and CBC read them as 0/1 binaries (their MPS
    of our LP: UP 1 / BV 1), the clue columns of ``bounds`` as fixed at 1 (HiGHS and SCIP: the
    tests above)."""
    exe = shutil.which("glpsol" if tool == "glpk" else "cbc")
    if exe is None:
        pytest.skip(f"{tool} not installed")
    m = _model("default", "block", "C", "bounds")
    path = tmp_path / "m.lp"
    lp.write(m, path)
    if tool == "glpk":
        run = subprocess.run([exe, "--lp", str(path), "--check", "--wfreemps", str(tmp_path / "o.mps")],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and "redefined" not in run.stdout, run.stdout
        text = (tmp_path / "o.mps").read_text()
        binary = ("UP", "1")
    else:  # cbc exports the model as read (no presolve), gzipped
        run = subprocess.run([exe, str(path), "-presolve", "off", "-export", "o.mps"], capture_output=True,
                             text=True, timeout=120, cwd=tmp_path)
        assert run.returncode == 0, run.stdout
        done = tmp_path / "o.mps.gz"
        text = gzip.decompress(done.read_bytes()).decode() if done.exists() else (tmp_path / "o.mps").read_text()
        binary = ("BV", "1.")
    bounds = _mps_bounds(text)
    fixed = set(m.col_names[m.lb == 1])
    assert set(bounds) == set(m.col_names)
    assert {bounds[nm] for nm in fixed} == {("FX", binary[1])}
    assert {bounds[nm] for nm in m.col_names if nm not in fixed} == {binary}


# -- our reader on other tools' files ---------------------------------------------------------
def _by_name(got: ModelData, want: ModelData):
    cols = {nm: j for j, nm in enumerate(got.col_names)}
    rows = {nm: i for i, nm in enumerate(got.row_labels)}
    cp = np.array([cols[nm] for nm in want.col_names])
    rp = np.array([rows[nm] for nm in want.row_labels])
    assert (got.Aeq[rp][:, cp] != want.Aeq).nnz == 0
    for field in ("lb", "ub", "cost", "integrality"):
        np.testing.assert_array_equal(getattr(got, field)[cp], getattr(want, field), err_msg=field)
    np.testing.assert_array_equal(got.row_lower[rp], want.row_lower)
    np.testing.assert_array_equal(got.row_upper[rp], want.row_upper)


@pytest.mark.interop
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # PuLP 3.3 announces its 4.0 API
def test_reads_highs_glpk_and_pulp_output(tmp_path):
    m = _model("default", clues="bounds")
    want = ModelData.from_model(m)
    ours = tmp_path / "ours.lp"
    lp.write(m, ours)
    h = _highs()
    h.readModel(str(ours))
    h.writeModel(str(tmp_path / "highs.lp"))  # "min", "st", "+1 x", "gen", an empty "semi"
    got = lp.read(tmp_path / "highs.lp")
    assert got.metadata == {}
    _by_name(got, want)
    assert list(got.col_names[:3]) == ["x_1_1_1", "x_1_1_2", "x_1_1_3"]  # first appearance
    if shutil.which("glpsol"):
        subprocess.run(["glpsol", "--lp", str(ours), "--check", "--wlp", str(tmp_path / "glpk.lp")],
                       capture_output=True, check=True)
        _by_name(lp.read(tmp_path / "glpk.lp"), want)
    pulp = pytest.importorskip("pulp")
    prob = pulp.LpProblem("t", pulp.LpMinimize)
    x = {nm: pulp.LpVariable(nm, 0, 1, cat="Binary") for nm in want.col_names}
    prob += 0 * x[want.col_names[0]]
    a = want.Aeq.tocsr()
    for i, label in enumerate(want.row_labels):
        prob += (pulp.lpSum(x[want.col_names[j]] for j in a.indices[a.indptr[i]:a.indptr[i + 1]]) == 1, label)
    for j in np.flatnonzero(want.lb == 1):
        x[want.col_names[j]].lowBound = 1
    prob.writeLP(str(tmp_path / "pulp.lp"))  # "Binaries", "Generals", an extra __dummy column
    _by_name(lp.read(tmp_path / "pulp.lp"), want)


def test_reader_dialects(tmp_path):
    text = """\\ hand-written, every spelling
MAXIMIZE
 profit: 3 x + 2y - z + 0.5 w \\ trailing comment
   - 4
SUBJECT TO
 c1: x + y
     + z <= 10
 c2:x+y>=-2
 c3: 2 x - y =< 4
 c4: x => 1
 2 w - 1 z = 3
  c6 : y + 3 = 5
BOUNDS
 x free
 -inf <= y <= 3
 z >= -5
 w = 2
 0 <= v <= 8
 u <= -2
 10 >= t
BINARY
 b
GENERAL
 v
END
"""
    path = tmp_path / "d.lp"
    path.write_text(text)
    d = lp.read(path)
    assert list(d.col_names) == ["x", "y", "z", "w", "v", "u", "t", "b"]
    assert list(d.row_labels) == ["c1", "c2", "c3", "c4", "c5", "c6"]
    np.testing.assert_array_equal(d.Aeq.toarray(), [
        [1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0], [2, -1, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0], [0, 0, -1, 2, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(d.row_lower, [-np.inf, -2, -np.inf, 1, 3, 2])
    np.testing.assert_array_equal(d.row_upper, [10, np.inf, 4, np.inf, 3, 2])
    np.testing.assert_array_equal(d.cost, [-3, -2, 1, -0.5, 0, 0, 0, 0])  # maximise -> negated
    np.testing.assert_array_equal(d.lb, [-np.inf, -np.inf, -5, 2, 0, -np.inf, 0, 0])
    np.testing.assert_array_equal(d.ub, [np.inf, 3, np.inf, 2, 8, -2, 10, 1])
    np.testing.assert_array_equal(d.integrality, [0, 0, 0, 0, 1, 0, 0, 1])
    assert d.metadata == {"objective_sense": "maximize", "objective_offset": -4.0}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_property_random_lp_text(tmp_path, data):
    """Random small programs, rendered with random spellings, spacing and line breaks, read back."""
    n = data.draw(st.integers(1, 5))
    m = data.draw(st.integers(0, 4))
    names = [f"{p}{j}" for j, p in enumerate(data.draw(st.lists(st.sampled_from(["x", "y", "v_", "Ab.", "q"]),
                                                                     min_size=n, max_size=n)))]
    coef = st.integers(-5, 5)
    a = np.array([[data.draw(coef) for _ in range(n)] for _ in range(m)], dtype=float).reshape(m, n)
    for i in range(m):
        if not a[i].any():
            a[i, data.draw(st.integers(0, n - 1))] = 1.0
    senses = [data.draw(st.sampled_from(["<=", "=<", "<", ">=", "=>", ">", "="])) for _ in range(m)]
    rhs = [data.draw(st.integers(-9, 9)) for _ in range(m)]
    cost = np.array([data.draw(st.sampled_from([0, 1, -1, 2.5, -3, 1e-7])) for _ in range(n)], dtype=float)
    kinds = [data.draw(st.sampled_from(["default", "bin", "gen", "free", "box"])) for _ in range(n)]
    glue = data.draw(st.booleans())

    def term(c, name, first):
        c = float(c)
        sign = "-" if c < 0 else ("" if first else "+")
        mag = "" if abs(c) == 1 else (repr(abs(c)).rstrip("0").rstrip(".") if abs(c) != 1e-7 else "1e-07")
        if glue:
            return f"{sign}{mag}{name}" if mag and not name[0].isdigit() else f"{sign}{mag} {name}"
        return " ".join(t for t in (sign, mag, name) if t)

    def expression(coefs):
        parts = [term(c, names[j], k == 0) for k, (j, c) in enumerate((j, c) for j, c in enumerate(coefs) if c)]
        out = []
        for p in parts:
            out.append(p)
            out.append(data.draw(st.sampled_from([" ", "  ", "\n   "])) if not glue else "")
        return "".join(out).strip()

    kw = lambda *o: data.draw(st.sampled_from(o))  # noqa: E731
    lines = [f"\\ random {n}x{m}", kw("Minimize", "MINIMIZE", "min", "minimise")]
    lines.append(" obj: " + (expression(cost) if cost.any() else f"0 {names[0]}"))
    lines.append(kw("Subject To", "st", "s.t.", "such that", "SUBJECT TO"))
    for i in range(m):
        lines.append(f" r{i}:{'' if glue else ' '}{expression(a[i])} {senses[i]} {rhs[i]}")
    lines.append(kw("Bounds", "bounds", "BOUND"))
    want_lb, want_ub, want_int = np.zeros(n), np.full(n, np.inf), np.zeros(n, bool)
    for j, k in enumerate(kinds):
        if k == "free":
            lines.append(f" {names[j]} free")
            want_lb[j] = -np.inf
        elif k in ("box", "gen"):
            lines.append(f" -3 <= {names[j]} <= 7")
            want_lb[j], want_ub[j] = -3, 7
        if k in ("bin", "gen"):
            want_int[j] = True
        if k == "bin":
            want_ub[j] = 1
    for section, kind in ((kw("Binaries", "Binary", "bin", "BINARIES"), "bin"),
                          (kw("Generals", "General", "gen"), "gen")):
        listed = [names[j] for j in range(n) if kinds[j] == kind]
        if listed:
            lines.append(section)
            lines.append(" " + " ".join(listed))
    lines.append(kw("End", "end", "END"))
    path = tmp_path / "r.lp"
    path.write_text("\n".join(lines) + "\n")
    d = lp.read(path)
    # every name appears (objective or bounds mention each), so map by name
    col = {nm: j for j, nm in enumerate(d.col_names)}
    present = [j for j in range(n) if names[j] in col]
    p = np.array([col[names[j]] for j in present], dtype=int)
    dense = d.Aeq.toarray()
    np.testing.assert_array_equal(dense[:, p], a[:, present])
    np.testing.assert_array_equal(d.cost[p], cost[present])
    np.testing.assert_array_equal(d.lb[p], want_lb[present])
    np.testing.assert_array_equal(d.ub[p], want_ub[present])
    np.testing.assert_array_equal(d.integrality[p], want_int[present])
    lo = np.array([-np.inf if "<" in s else r for s, r in zip(senses, rhs)], dtype=float)
    up = np.array([np.inf if ">" in s else r for s, r in zip(senses, rhs)], dtype=float)
    np.testing.assert_array_equal(d.row_lower, lo)
    np.testing.assert_array_equal(d.row_upper, up)
    assert list(d.row_labels) == [f"r{i}" for i in range(m)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(costs=st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=64, max_size=64),
       clue_mask=st.lists(st.booleans(), min_size=16, max_size=16),
       order=st.sampled_from("FC"), scheme=st.sampled_from(["ijk", "block"]),
       clues=st.sampled_from(["rows", "bounds", "reduce"]))
def test_property_round_trip_any_costs(tmp_path, costs, clue_mask, order, scheme, clues):
    """Any float cost survives (shortest repr), for any clue subset, convention and encoding."""
    grid = _grid(2, 2) * np.array(clue_mask).reshape(4, 4)
    m = build_model(parse_puzzle(grid), scheme=scheme, order=order, clues=clues, objective=np.array(costs))
    path = tmp_path / "p.lp"
    lp.write(m, path)
    assert max(map(len, _lines(path))) <= 255
    assert_same(lp.read(path), ModelData.from_model(m))


# -- bad files: exact one-line messages -------------------------------------------------------
GOOD = "Minimize\n obj: x\nSubject To\n c1: x + y = 1\nBounds\n 0 <= x <= 1\nBinaries\n y\nEnd\n"
BAD = [
    (GOOD.replace("End\n", ""), "8: missing 'End' (is the file truncated?)"),
    (GOOD.replace("Binaries", "Integers"), "7: unknown section 'Integers'"),
    (GOOD.replace("c1: x + y", "c1: 2.5.1 x + y"), "4: bad coefficient '2.5.1'"),
    (GOOD.replace("0 <= x", "0..1 <= x"), "6: bad number '0..1'"),
    ("x + y\n" + GOOD, "1: expected 'Minimize' or 'Maximize', found 'x'"),
    ("", "1: empty file: expected 'Minimize' or 'Maximize'"),
    (GOOD.replace("= 1", ""), "4: constraint without '=', '<=' or '>='"),
    (GOOD.replace("= 1", "= y"), "4: expected a number after '=', found 'y'"),
    (GOOD.replace("c1: x", "c1: 0 <= x").replace("= 1", "<= 1"),
     "4: ranged constraints ('lo <= expression <= hi') are not supported"),
    (GOOD.replace("x + y", "x y"), "4: missing '+' or '-' before 'y'"),
    (GOOD.replace("x + y", "x + + y"), "4: expected a name after '+'"),
    (GOOD.replace("0 <= x <= 1", "x"), "6: bound on 'x' without '<=', '>=', '=' or 'free'"),
    (GOOD.replace(" y\nEnd", " y 3\nEnd"), "8: expected a name in 'Binaries', found '3'"),
    (GOOD.replace("End", "SOS\n s1: x:1 y:2\nEnd"), "9: section 'SOS' is not supported (0-1 programs only)"),
    (GOOD.replace("Bounds", "Subject To"), "5: second 'Subject To' section"),
    (GOOD.replace(" obj: x", " obj: x <= 3"), "2: unexpected '<=' in the objective"),
]


@pytest.mark.parametrize("text,message", BAD)
def test_bad_files(tmp_path, text, message):
    path = tmp_path / "bad.lp"
    path.write_text(text)
    with pytest.raises(FormatError) as e:
        lp.read(path)
    assert str(e.value) == f"{path}:{message}"


def test_missing_file_and_foreign_names(tmp_path):
    with pytest.raises(FormatError) as e:
        lp.read(tmp_path / "nope.lp")
    assert str(e.value) == f"{tmp_path / 'nope.lp'}: no such file"
    m = _model("4x4")
    path = tmp_path / "m.lp"
    lp.write(m, path)
    path.write_text(path.read_text().replace("x_4_4_4", "x_4_4_5"))
    with pytest.raises(FormatError) as e:
        lp.read(path)
    assert str(e.value).startswith(f"{path}: variable name 'x_4_4_5' does not fit scheme ijk/F (4x4, boxes 2x2)")


def test_parsed_section_lets_go_of_its_values():
    # parsed() once kept views val[:0] etc., which held the whole arrays (80 MB for an empty
    # 100x100's constraints) to the end of the read
    tx = _Text(np.frombuffer(b" c1: 2 x + 3 y <= 4\n", np.uint8), "t.lp")
    sec = _Section(tx, 0, len(tx), "expr")
    assert sec.val.size == len(sec.cls)
    sec.parsed()
    for a in (sec.val, sec.sign, sec.signed):
        assert a.size == 0 and a.base is None


def test_read_releases_the_text_before_the_repeat_checks(tmp_path, monkeypatch):
    """The text and its tokens are gone once the names are encoded: the repeat checks that follow
    hold the codes alone (an empty 100x100's LP held ~150 MB of text and tokens through them)."""
    import gc

    import formats.lp_read as lp_read

    path = tmp_path / "m.lp"
    lp.write(build_model(parse_puzzle(DEFAULT_PUZZLE)), path)
    alive = []

    def counting(keys):
        gc.collect()
        alive.append(sum(isinstance(o, _Text) for o in gc.get_objects()))
        return lp_read.first_repeat.__wrapped__(keys)

    counting.__wrapped__ = lp_read.first_repeat
    monkeypatch.setattr(lp_read, "first_repeat", counting)
    lp.read(path)
    assert alive and alive == [0] * len(alive)


@pytest.mark.parametrize("suffix", [".lp", ".lp.gz"])
def test_repeat_messages_read_the_released_text_again(tmp_path, suffix):
    """A repeat found after the text was released is named at its line, with its text, as before:
    the section is split again from the file, a re-split (glued) section and a gzip file too."""
    text = ("Minimize\n obj: x + y\nSubject To\n c1: 2x + y >= 1\n c2: x + 3y >= 1\n"
            " c3: x + 2y + 2x >= 1\nEnd\n")
    path = tmp_path / f"m{suffix}"
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    with pytest.raises(FormatError, match=r"m\.lp(\.gz)?:6: 'x' appears twice in its row$"):
        lp.read(path)
    path.write_bytes(b"Minimize\n obj: x + y\nSubject To\n c1: x >= 1\n\n c1: y >= 1\nEnd\n")
    with pytest.raises(FormatError, match=r"m\.lp(\.gz)?:6: a second constraint named 'c1'$"):
        lp.read(path)
