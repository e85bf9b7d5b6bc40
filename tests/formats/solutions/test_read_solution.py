"""Solution readers: real solvers' native files back to verified grids.

Each solver (HiGHS, glpsol, Debian cbc, PuLP's bundled cbc, SCIP via pyscipopt) reads an MPS
export and writes its own solution file; ``read_solution`` must map it by name (or, for the
positional layouts, through the export's column map) to a grid that verifies. Layouts of solvers
not installable here (Gurobi, CPLEX, Xpress, MIPLIB checker) are generated from a real HiGHS
solution following the cited documentation. A binary that is absent skips with a reason. Every
error, with its exact message, is in test_read_solution_errors.py; the shared helpers in
tests/solution_files.py.
"""
from __future__ import annotations

import gzip
import shutil

import highspy
import numpy as np
import pytest

from solution_files import (assert_verifies, cplex_text, expect_error, gurobi_text, highs_solve,
                            manifest_of, miplib_text, need, run, slx_text, write_mps)
from formats.solutions import (SOLUTION_FORMATS, RawSolution, SolutionFormat, read_solution,
                               register_solution_format)
from oracles import pattern_grid
from pipeline.core.build import build_model
from pipeline.core.decode import vector_from_grid
from pipeline.core.errors import FormatError
from formats.directory import write_manifest
from formats.files import load_manifest_file as load_manifest
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve
from pipeline.core.verify import verify_grid

JIGSAW_REGIONS = "000111" "002111" "022233" "422333" "444553" "445555"
INFEASIBLE_4X4 = "12........3...4."  # cell (1,3) can hold neither 3 nor 4: clues are consistent, no solution

CASES = {
    # name: (puzzle, scheme, order, clue encoding)
    "classic": (lambda: parse_puzzle(DEFAULT_PUZZLE), "ijk", "F", "rows"),
    "classic_reduce": (lambda: parse_puzzle(DEFAULT_PUZZLE), "ijk", "C", "reduce"),
    "four_block_reduce": (lambda: parse_puzzle("1...........3...", box="2x2"), "block", "C", "reduce"),
    "jigsaw_bounds": (lambda: parse_puzzle("1" + "." * 35, regions=JIGSAW_REGIONS), "ijk", "C", "bounds"),
    "x_block": (lambda: parse_puzzle("1" + "." * 80, variant="x"), "block", "F", "rows"),
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request, tmp_path_factory):
    make, scheme, order, clues = CASES[request.param]
    puzzle = make()
    model = build_model(puzzle, scheme, order, clues)
    work = tmp_path_factory.mktemp(request.param)
    mps = write_mps(model, work / "model.mps")
    return request.param, puzzle, model, manifest_of(model), mps


def pulp_cbc() -> str | None:
    try:
        import warnings

        import pulp

        with warnings.catch_warnings():  # PULP_CBC_CMD is deprecated, its bundled binary is what we want
            warnings.simplefilter("ignore", DeprecationWarning)
            cmd = pulp.PULP_CBC_CMD()
        return cmd.path if cmd.available() else None
    except Exception:  # pulp absent or its binary unusable
        return None


# ----------------------------------------------------------------------------------------------
# real solvers
# ----------------------------------------------------------------------------------------------
@pytest.mark.interop
@pytest.mark.parametrize("style,fmt", [(0, "highs_raw"), (4, "highs_sparse"), (1, "highs_pretty"),
                                       (-1, "highs_old_raw"), (2, "glpk_raw"), (3, "glpk_report")])
def test_highs_write_solution_styles(case, style, fmt):
    name, puzzle, model, man, mps = case
    h = highs_solve(mps)
    out = mps.parent / f"highs_{style}.sol"
    h.writeSolution(str(out), style)
    sol = assert_verifies(out, puzzle, man, fmt)
    if style in (0, 4, 1):
        assert sol.status == "Optimal" and sol.objective == 0


@pytest.mark.interop
def test_glpsol_raw_and_report(case):
    name, puzzle, model, man, mps = case
    glpsol = need(shutil.which("glpsol"), "glpsol")
    run([glpsol, "--freemps", mps, "-w", "glpk_raw.txt", "-o", "glpk_report.txt"], mps.parent)
    raw = assert_verifies(mps.parent / "glpk_raw.txt", puzzle, man, "glpk_raw")
    assert raw.status == "optimal" and raw.objective == 0
    rep = assert_verifies(mps.parent / "glpk_report.txt", puzzle, man, "glpk_report")
    assert rep.status == "INTEGER OPTIMAL"
    assert np.array_equal(raw.values, rep.values)


@pytest.mark.interop
def test_a_report_listing_every_inequality_row_is_read(tmp_path):
    """GLPK's ``-o`` report lists every row, and the size bound counted the columns and equality
    rows only: a 16x16 anti-knight non-consecutive report (1.7 MB) was refused as 'larger than
    1376256 bytes'."""
    glpsol = need(shutil.which("glpsol"), "glpsol")
    grid = (5 * (pattern_grid(4, 4) - 1)) % 16 + 1   # digits relabelled: neighbours differ by 3 to 13
    puzzle = parse_puzzle({"size": 16, "box": "4x4", "givens": "".join("123456789ABCDEFG"[v - 1] for v in grid.flat),
                           "rules": [{"rule": "antiknight"}, {"rule": "nonconsecutive"}]})
    assert verify_grid(grid, puzzle).ok
    model = build_model(puzzle)
    man = manifest_of(model)
    run([glpsol, "--freemps", write_mps(model, tmp_path / "m.mps"), "-o", "report.txt"], tmp_path)
    report = tmp_path / "report.txt"
    assert report.stat().st_size > max(1 << 20, 256 * (model.n_cols + man.data["rows"]))   # the old bound
    sol = assert_verifies(report, puzzle, man, "glpk_report")
    assert np.array_equal(sol.grid(), grid)


@pytest.mark.interop
@pytest.mark.parametrize("which", ["debian", "pulp"])
def test_cbc_solu(case, which):
    name, puzzle, model, man, mps = case
    cbc = need(shutil.which("cbc") if which == "debian" else pulp_cbc(), f"{which} cbc")
    out = f"cbc_{which}.txt"
    run([cbc, mps, "solve", "solu", out], mps.parent)
    text = (mps.parent / out).read_text()
    # default printingOptions: only the nonzero columns are listed (N^2 of them, minus the clues
    # a reduce export dropped) -- except that CBC lists every column of a small model (observed:
    # all 44 of a reduced 4x4, only the nonzeros of a full 4x4's 64)
    listed = len(text.strip().splitlines()) - 1
    assert listed == (model.n_cols if model.n_cols < 50 else
                      puzzle.n ** 2 - (puzzle.n_clues if model.is_reduced else 0))
    sol = assert_verifies(mps.parent / out, puzzle, man, "cbc")
    assert sol.status == "Optimal"


@pytest.mark.interop
@pytest.mark.parametrize("printing", ["all", "rows"])
def test_cbc_printing_lists_rows_then_columns(case, printing):
    # 'rows' lists every row, then the nonzero columns only: their index does not restart at 0
    # (a differential check found it refused as "a repeated or misplaced line")
    name, puzzle, model, man, mps = case
    cbc = need(shutil.which("cbc") or pulp_cbc(), "cbc")
    run([cbc, mps, "solve", "printingOptions", printing, "solu", f"cbc_{printing}.txt"], mps.parent)
    assert_verifies(mps.parent / f"cbc_{printing}.txt", puzzle, man, "cbc")


def test_cbc_a_line_repeated_among_the_columns_is_still_refused(tmp_path):
    path = tmp_path / "cbc.txt"
    path.write_text("Optimal - objective value 0\n      0 x_1_1_1  1  0\n      5 x_2_1_2  1  0\n"
                    "      9 x_3_2_3  1  0\n      5 x_2_1_2  1  0\n")
    with pytest.raises(FormatError, match=r"line 5: index 5 after 9: a repeated or misplaced line"):
        read_solution(path)


def test_cbc_a_column_line_moved_to_the_end_with_index_0_is_refused_not_read_as_the_columns(tmp_path):
    # a restart at 0 after columns (not rows) is no columns section: the lines above it are not dropped
    path = tmp_path / "cbc.txt"
    path.write_text("Optimal - objective value 0\n      3 x_1_1_1  1  0\n      5 x_2_1_2  1  0\n"
                    "      0 x_3_2_3  1  0\n")
    with pytest.raises(FormatError, match=r"line 4: index 0 after 5: a repeated or misplaced line"):
        read_solution(path)


@pytest.mark.interop
def test_scip_best_sol(case):
    name, puzzle, model, man, mps = case
    pyscipopt = pytest.importorskip("pyscipopt", reason="pyscipopt not installed")
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(mps))
    m.optimize()
    out = mps.parent / "scip.sol"
    m.writeBestSol(str(out))  # nonzeros only, in SCIP's own variable order
    sol = assert_verifies(out, puzzle, man, "scip")
    assert sol.objective == 0


@pytest.mark.interop
def test_fixed_mps_short_names(tmp_path):
    """Fixed MPS names columns C0000000..: a short name is the export's 0-based column."""
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle, "ijk", "C", "reduce")
    man = manifest_of(model)
    mps = write_mps(model, tmp_path / "fixed.mps", style="fixed")
    h = highs_solve(mps)
    h.writeSolution(str(tmp_path / "h.sol"), 0)
    assert "C0000000" in (tmp_path / "h.sol").read_text()
    assert_verifies(tmp_path / "h.sol", puzzle, man, "highs_raw")
    cbc = shutil.which("cbc") or pulp_cbc()
    if cbc:
        run([cbc, mps, "solve", "solu", "cbc.txt"], tmp_path)
        assert_verifies(tmp_path / "cbc.txt", puzzle, man, "cbc")
    if shutil.which("glpsol"):
        run(["glpsol", "--mps", mps, "-o", "report.txt"], tmp_path)
        assert_verifies(tmp_path / "report.txt", puzzle, man, "glpk_report")
    with pytest.raises(FormatError) as e:
        read_solution(tmp_path / "h.sol")
    assert str(e.value) == (f"{tmp_path / 'h.sol'}: short column names (C0000000) need the export's column map; "
                            f"pass the export's manifest (manifest.json)")


@pytest.mark.interop
def test_highs_default_names_are_short_names(tmp_path):
    """A model passed without names is written by HiGHS with names c0, c1, ...: 0-based columns."""
    from pipeline.solvers.highs import highs_for

    puzzle = parse_puzzle("1...........3...", box="2x2")
    model = build_model(puzzle)
    h = highs_for(model)
    h.run()
    h.writeSolution(str(tmp_path / "unnamed.sol"), 0)
    assert "\nc0 " in (tmp_path / "unnamed.sol").read_text()
    assert_verifies(tmp_path / "unnamed.sol", puzzle, manifest_of(model), "highs_raw")


# HiGHS's primal header as each release writes it, whichever highspy is installed here:
# <= 1.15 'Objective v' only and '# Columns -k' for sparse; 1.16 adds 'Objective_bound' and
# 'MIP_rel_gap' lines and '# Columns -k sparse'; a key a later release adds is skipped.
HIGHS_HEADERS = {
    "1.15": ("Objective 0\n", ""),
    "1.16": ("Objective 0\nObjective_bound 0\nMIP_rel_gap 0\n", " sparse"),
    "later": ("Objective 0\nObjective_bound 0\nMIP_rel_gap 0\nPrimal_dual_integral 0.5\n", " sparse"),
}


@pytest.mark.parametrize("release", sorted(HIGHS_HEADERS))
@pytest.mark.parametrize("sparse", [False, True], ids=["raw", "sparse"])
def test_highs_headers_of_every_release(tmp_path, release, sparse):
    puzzle = parse_puzzle("1...........3...", box="2x2")
    model = build_model(puzzle)
    grid = solve(model).grid
    x = vector_from_grid(grid, model.convention)  # clues as rows: a column per position
    assert x.size == model.n_cols
    header, sparse_word = HIGHS_HEADERS[release]
    text = "Model status\nOptimal\n\n# Primal solution values\nFeasible\n" + header
    if sparse:
        ones = np.flatnonzero(x)
        text += f"# Columns -{ones.size}{sparse_word}\n"
        text += "".join(f"{model.col_names[j]} 1 {j}\n" for j in ones)
    else:
        text += f"# Columns {model.n_cols}\n"
        text += "".join(f"{name} {int(v)}\n" for name, v in zip(model.col_names, x))
        text += f"# Rows {model.n_rows}\n"
    path = tmp_path / "h.sol"
    path.write_text(text)
    sol = assert_verifies(path, puzzle, manifest_of(model), "highs_sparse" if sparse else "highs_raw")
    assert sol.objective == 0 and sol.status == "Optimal"
    np.testing.assert_array_equal(sol.grid(), grid)


def test_highs_header_bad_objective_named(tmp_path):
    path = tmp_path / "h.sol"
    path.write_text("Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective zero\n"
                    "# Columns 0\n")
    model = build_model(parse_puzzle("1...........3...", box="2x2"))
    with pytest.raises(FormatError) as e:
        read_solution(path, manifest_of(model))
    assert str(e.value).startswith(f"{path}: ") and "objective" in str(e.value)


# ----------------------------------------------------------------------------------------------
# infeasible: what each solver writes, and the one message for it
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def infeasible(tmp_path_factory):
    puzzle = parse_puzzle(INFEASIBLE_4X4, box="2x2")
    model = build_model(puzzle)
    work = tmp_path_factory.mktemp("infeasible")
    return model, manifest_of(model), write_mps(model, work / "inf.mps")




@pytest.mark.interop
@pytest.mark.parametrize("style", [0, 4, 1, 2])
def test_infeasible_highs(infeasible, style):
    model, man, mps = infeasible
    h = highs_solve(mps)
    assert h.getModelStatus() == highspy.HighsModelStatus.kInfeasible
    out = mps.parent / f"inf_{style}.sol"
    h.writeSolution(str(out), style)
    expect_error(out, man, f"{out}: solver reports infeasible")


@pytest.mark.interop
def test_infeasible_glpsol(infeasible):
    model, man, mps = infeasible
    glpsol = need(shutil.which("glpsol"), "glpsol")
    run([glpsol, "--freemps", mps, "-w", "inf_raw.txt", "-o", "inf_report.txt"], mps.parent)
    assert "s mip" in (mps.parent / "inf_raw.txt").read_text()  # 's mip m n n 0': status letter n
    for name in ("inf_raw.txt", "inf_report.txt"):
        expect_error(mps.parent / name, man, f"{mps.parent / name}: solver reports infeasible")


@pytest.mark.interop
def test_infeasible_cbc(infeasible):
    model, man, mps = infeasible
    cbc = need(shutil.which("cbc") or pulp_cbc(), "cbc")
    run([cbc, mps, "solve", "solu", "inf_cbc.txt"], mps.parent)
    # CBC still lists values after "Infeasible - objective value 0": they are no solution
    assert (mps.parent / "inf_cbc.txt").read_text().startswith("Infeasible - objective value")
    expect_error(mps.parent / "inf_cbc.txt", man, f"{mps.parent / 'inf_cbc.txt'}: solver reports infeasible")


@pytest.mark.interop
def test_infeasible_scip(infeasible):
    model, man, mps = infeasible
    pyscipopt = pytest.importorskip("pyscipopt", reason="pyscipopt not installed")
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(mps))
    m.optimize()
    assert m.getStatus() == "infeasible"
    best = mps.parent / "inf_best.sol"
    m.writeBestSol(str(best))  # writes only "no solution available"
    expect_error(best, man, f"{best}: solver reports no solution (status: no solution available)")
    # the interactive shell's `write solution` (and pipeline.solvers.external) add the status line
    shell = mps.parent / "inf_shell.sol"
    shell.write_text(f"solution status: {m.getStatus()}\nno solution available\n")
    expect_error(shell, man, f"{shell}: solver reports infeasible")


# ----------------------------------------------------------------------------------------------
# layouts of solvers not installable here, generated from a real HiGHS solution
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt,make", [("gurobi", gurobi_text), ("cplex_xml", cplex_text),
                                      ("miplib", miplib_text), ("xpress_slx", slx_text)])
def test_documented_layouts(reference, fmt, make):
    puzzle, model, man, x, order, work = reference
    path = work / f"{fmt}.sol"
    path.write_text(make(model, x, order))
    sol = assert_verifies(path, puzzle, man, fmt)
    assert np.array_equal(sol.values, model.full_vector(x))


def test_cplex_write_level_3_lists_nonzeros_only(reference):
    puzzle, model, man, x, order, work = reference
    path = work / "cplex3.sol"
    path.write_text(cplex_text(model, x, order, write_level=3))
    assert_verifies(path, puzzle, man, "cplex_xml")
    dense = work / "cplex1_sparse.sol"  # the same nonzeros claimed at writeLevel 1: zeros are missing
    dense.write_text(cplex_text(model, x, order, write_level=3).replace('writeLevel="3"', 'writeLevel="1"'))
    with pytest.raises(FormatError, match=r"variables missing \(cplex_xml lists every variable\)"):
        read_solution(dense, man)


def test_cplex_infeasible_status(reference):
    puzzle, model, man, x, order, work = reference
    path = work / "cplex_inf.sol"
    path.write_text(cplex_text(model, x, order, status="integer infeasible", value=103))
    expect_error(path, man, f"{path}: solver reports infeasible")


def test_miplib_infeas(reference):
    path = reference[5] / "miplib_inf.sol"
    path.write_text("=infeas=\n")
    expect_error(path, reference[2], f"{path}: solver reports infeasible")


def test_miplib_unknown_is_no_solution(reference):
    # =unkn=: the checker's word for "stopped without a solution and without a proof"
    path = reference[5] / "miplib_unkn.sol"
    path.write_text("=unkn=\n")
    expect_error(path, reference[2], f"{path}: solver reports no solution (status: =unkn= (stopped without a solution))")


# ----------------------------------------------------------------------------------------------
# positional vectors and MATLAB grids
# ----------------------------------------------------------------------------------------------
def test_vector_csv_over_columns_and_full(reference):
    puzzle, model, man, x, order, work = reference
    column = work / "x.csv"
    column.write_text("".join(f"{v:g}\n" for v in x))  # one value per line (MATLAB writematrix(x))
    sol = assert_verifies(column, puzzle, man, "vector")
    assert np.array_equal(sol.values, model.full_vector(x))
    row = work / "x_full_row.csv"  # all N^3 values as one row
    row.write_text(",".join(f"{v:g}" for v in model.full_vector(x)) + "\n")
    assert np.array_equal(assert_verifies(row, puzzle, man, "vector").values, sol.values)
    # under a one-word header (pandas Series.to_csv, MATLAB writetable): an outside probe got
    # "unrecognised solution format"
    for header in ("x", '"x"', "\ufeffvalue"):
        named = work / "x_header.csv"
        named.write_text(f"{header}\n" + "".join(f"{v:g}\n" for v in x))
        assert np.array_equal(assert_verifies(named, puzzle, man, "vector").values, sol.values)
    answer = work / "sat_word.txt"   # a SAT answer word over one row is no header: minisat's reader
    answer.write_text("SAT\n" + " ".join(str(k + 1 if v else -(k + 1)) for k, v in enumerate(model.full_vector(x))) + " 0\n")
    assert read_solution(answer, man).format == "minisat"


def test_matlab_grid_csv(reference, tmp_path):
    puzzle, model, man, x, order, work = reference
    grid = solve(build_model(puzzle), threads=1).grid
    path = tmp_path / "sudoku.csv"
    path.write_text("\n".join(",".join(map(str, r)) for r in grid) + "\n")
    sol = assert_verifies(path, puzzle, man, "matlab_grid")
    assert np.array_equal(sol.values, vector_from_grid(grid, man.convention))
    assert np.array_equal(read_solution(path).grid(), grid)  # no manifest: N from the grid


@pytest.mark.parametrize("names", ["Var1,Var2,Var3,Var4,Var5,Var6,Var7,Var8,Var9", '"c1";"c2";"c3";"c4";"c5";"c6";"c7";"c8";"c9"'])
def test_matlab_grid_under_a_row_of_column_names(reference, tmp_path, names):
    """MATLAB's ``writetable`` writes ``Var1,...,Var9`` over the grid: "unrecognised solution
    format" (outside check). A row of names as wide as the grid is skipped."""
    puzzle, model, man, x, order, work = reference
    grid = solve(build_model(puzzle), threads=1).grid
    path = tmp_path / "sudoku.csv"
    path.write_text(names + "\n" + "\n".join(",".join(map(str, r)) for r in grid) + "\n")
    sol = assert_verifies(path, puzzle, man, "matlab_grid")
    assert np.array_equal(sol.values, vector_from_grid(grid, man.convention))
    path.write_text("Var1,Var2\n" + "\n".join(",".join(map(str, r)) for r in grid) + "\n")   # not the grid's width
    with pytest.raises(FormatError, match="unrecognised solution format"):
        read_solution(path, man)


def test_matlab_grid_near_digit_shows_the_value_read(tmp_path):
    path = tmp_path / "sudoku.csv"
    path.write_text("4.0000001,1,2,3\n2,3,4,1\n3,4,1,2\n1,2,3,4\n")
    with pytest.raises(FormatError, match=r"^.*sudoku\.csv: cell \(1, 1\) = 4\.0000001 is not a digit$"):
        read_solution(path)


# ----------------------------------------------------------------------------------------------
# manifests, gzip, no manifest, pluggable registry
# ----------------------------------------------------------------------------------------------
def test_manifest_path_and_gzip(reference, tmp_path):
    puzzle, model, man, x, order, work = reference
    write_manifest(tmp_path, model, {})
    raw = gurobi_text(model, x, order).encode()
    path = tmp_path / "answer.sol.gz"
    path.write_bytes(gzip.compress(raw))
    sol = read_solution(path, tmp_path / "manifest.json")
    assert verify_grid(sol.grid(), puzzle).ok
    assert np.array_equal(sol.values, read_solution(path, load_manifest(tmp_path)).values)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_an_answer_and_a_manifest_in_utf16_are_read(reference, tmp_path, encoding):
    """PowerShell's ``>`` writes UTF-16 with a byte-order mark: such an answer was "unrecognised
    solution format", such a manifest "not a readable JSON manifest" (outside check)."""
    puzzle, model, man, x, order, work = reference
    write_manifest(tmp_path, model, {})
    manifest = tmp_path / "manifest.json"
    text = manifest.read_text()
    manifest.write_bytes(("\ufeff" + text).encode(encoding) if encoding.endswith("be") else text.encode(encoding))
    path = tmp_path / "answer.sol"
    answer = gurobi_text(model, x, order)
    path.write_bytes(("\ufeff" + answer).encode(encoding) if encoding.endswith("be") else answer.encode(encoding))
    sol = read_solution(path, manifest)
    assert verify_grid(sol.grid(), puzzle).ok


def test_without_manifest_dense_names(tmp_path):
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle, "block", "F")
    x = solve(model, threads=1).x
    path = tmp_path / "g.sol"
    path.write_text(gurobi_text(model, np.rint(x), np.arange(model.n_cols)))
    sol = read_solution(path)
    assert (sol.convention.scheme, sol.convention.order, sol.convention.h) == ("block", "F", 3)
    assert verify_grid(sol.grid(), puzzle).ok


def test_without_manifest_sparse_needs_it(reference):
    puzzle, model, man, x, order, work = reference
    path = work / "nomanifest.sol"
    path.write_text(miplib_text(model, x, order))
    expect_error(path, None, f"{path}: without a manifest the puzzle size is inferred only from a file listing all "
                             f"N^3 variables; this miplib file lists 58 (largest index 9); pass the export's "
                             f"manifest (manifest.json)")
    vec = work / "x.csv"
    vec.write_text("".join(f"{v:g}\n" for v in x))
    expect_error(vec, None, f"{vec}: positional values carry no variable names; pass the export's manifest "
                            f"(manifest.json)")


def test_registry_is_pluggable(reference, tmp_path):
    puzzle, model, man, x, order, work = reference

    def parse(text, where):
        pairs = [line.split("=") for line in text.splitlines()[1:] if line]
        return RawSolution("names", np.array([float(v) for _, v in pairs]),
                           names=np.array([k for k, _ in pairs]), dense=False, status="toy")

    register_solution_format(SolutionFormat("toy", "toy", lambda head: head.startswith("TOY"), parse),
                             before="gurobi")
    try:
        assert list(SOLUTION_FORMATS).index("toy") == list(SOLUTION_FORMATS).index("gurobi") - 1
        path = tmp_path / "a.toy"
        path.write_text("TOY\n" + "".join(f"{model.col_names[j]}={x[j]:g}\n" for j in order if x[j]))
        sol = assert_verifies(path, puzzle, man, "toy")
        assert sol.status == "toy"
    finally:
        del SOLUTION_FORMATS["toy"]
