"""Solution readers: real solvers' native files back to verified grids, and every error message.

Each solver (HiGHS, glpsol, Debian cbc, PuLP's bundled cbc, SCIP via pyscipopt) reads an MPS
export and writes its own solution file; ``read_solution`` must map it by name (or, for the
positional layouts, through the export's column map) to a grid that verifies. Layouts of solvers
not installable here (Gurobi, CPLEX, Xpress, MIPLIB checker) are generated from a real HiGHS
solution following the cited documentation. A binary that is absent skips with a reason.
"""
from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path

import highspy
import numpy as np
import pytest

from oracles import pattern_grid
from formats.solutions import (SOLUTION_FORMATS, RawSolution, SolutionFormat, read_solution,
                               register_solution_format)
from pipeline.core.build import build_model
from pipeline.core.decode import vector_from_grid
from pipeline.core.errors import FormatError
from formats.directory import write_manifest
from formats.files import load_manifest_file as load_manifest
from pipeline.core.manifest import manifest_from_dict, model_metadata
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.solvers.highs import solve
from pipeline.core.verify import verify_grid
from pipeline.solvers.highs import new_highs

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


def manifest_of(model):
    return manifest_from_dict(model_metadata(model))


def write_mps(model, path: Path, style: str = "free") -> Path:
    """Our MPS writer (formats.mps) when present, else highspy's with the same names."""
    try:
        from formats import mps as ours
    except ImportError:
        ours = None
    if ours is not None:
        ours.write(model, path, style=style)
        return path
    from pipeline.solvers.highs import highs_for

    h = highs_for(model)
    names = [f"C{j:07d}" for j in range(model.n_cols)] if style == "fixed" else model.col_names
    for j, name in enumerate(names):
        h.passColName(j, str(name))
    for i, name in enumerate(model.row_labels):
        h.passRowName(i, f"R{i:07d}" if style == "fixed" else str(name))
    h.writeModel(str(path))
    return path


@pytest.fixture(scope="module", params=list(CASES))
def case(request, tmp_path_factory):
    make, scheme, order, clues = CASES[request.param]
    puzzle = make()
    model = build_model(puzzle, scheme, order, clues)
    work = tmp_path_factory.mktemp(request.param)
    mps = write_mps(model, work / "model.mps")
    return request.param, puzzle, model, manifest_of(model), mps


def assert_verifies(path, puzzle, manifest, fmt: str):
    sol = read_solution(path, manifest)
    assert sol.format == fmt
    assert set(np.unique(sol.values)) <= {0.0, 1.0}
    verdict = verify_grid(sol.grid(), puzzle)
    assert verdict.ok, verdict.message
    return sol


def need(binary: str | None, what: str):
    if not binary:
        print(f"skip: {what} not available")
        pytest.skip(f"{what} not available")
    return binary


def run(cmd, cwd):
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


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


def highs_solve(mps: Path) -> highspy.Highs:
    h = new_highs()
    h.setOptionValue("threads", 1)
    assert h.readModel(str(mps)) != highspy.HighsStatus.kError
    h.run()
    return h


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


def expect_error(path, manifest, message):
    with pytest.raises(FormatError) as e:
        read_solution(path, manifest)
    assert str(e.value) == message


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
@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A reduce export (so clue variables are absent from every file) and its HiGHS answer."""
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle, "block", "C", "reduce")
    result = solve(model, threads=1)
    assert result.solved
    x = np.rint(result.x)
    order = np.random.default_rng(7).permutation(model.n_cols)  # files list names out of column order
    return puzzle, model, manifest_of(model), x, order, tmp_path_factory.mktemp("layouts")


def gurobi_text(model, x, order, objective=0):
    # Gurobi reference manual, "SOL format": comment lines start with '#', then one
    # `name value` line for EVERY variable; files Gurobi writes begin with these two comments.
    lines = ["# Solution for model sudoku", f"# Objective value = {objective}"]
    lines += [f"{model.col_names[j]} {x[j]:g}" for j in order]
    return "\n".join(lines) + "\n"


def cplex_text(model, x, order, write_level=1, status="integer optimal solution", value=101):
    # IBM CPLEX File Formats, "SOL file format" (XML, schema solution.xsd) and the WriteLevel
    # parameter (1 = all variables, the SOL default; 3 = nonzero variables only); header
    # attributes as in files CPLEX 12.x writes.
    keep = [j for j in order if write_level in (1, 2) or x[j] != 0]
    var = "\n".join(f'  <variable name="{model.col_names[j]}" index="{j}" value="{x[j]:g}"/>' for j in keep)
    return f"""<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>
<CPLEXSolution version="1.2">
 <header
   problemName="model.mps"
   solutionName="incumbent"
   solutionIndex="-1"
   objectiveValue="0"
   solutionTypeValue="3"
   solutionTypeString="primal"
   solutionStatusValue="{value}"
   solutionStatusString="{status}"
   solutionMethodString="mip"
   primalFeasible="1"
   dualFeasible="1"
   MIPNodes="0"
   MIPIterations="0"
   writeLevel="{write_level}"/>
 <quality
   epInt="1.0000000000000001e-05"
   epRHS="9.9999999999999995e-07"
   maxIntInfeas="0"
   maxPrimalInfeas="0"
   maxX="1"
   maxSlack="0"/>
 <linearConstraints>
  <constraint name="{model.row_labels[0]}" index="0" slack="0"/>
 </linearConstraints>
 <variables>
{var}
 </variables>
</CPLEXSolution>
"""


def miplib_text(model, x, order):
    # MIPLIB solution checker (SCIP check/solchecker/README): one `variable value` pair per line,
    # the variable name =obj= carries the objective; variables not listed are 0; =infeas= alone
    # for infeasible instances.
    return "=obj= 0\n" + "".join(f"{model.col_names[j]} {x[j]:g}\n" for j in order if x[j] != 0)


def slx_text(model, x, order):
    # Xpress ASCII solution (.slx), written by XPRSwriteslxsol "using a similar format to MPS
    # files" (FICO Xpress Optimizer reference; readslxsol: "the NAME field in the .slx file"):
    # a NAME line, one ` C  name  value` line per column, ENDATA. The full appendix was not in
    # the reference corpus; this layout is the MPS-like one those pages describe.
    body = "".join(f" C      {model.col_names[j]:<20} {x[j]:g}\n" for j in order)
    return f"NAME          sudoku solution\n{body}ENDATA\n"


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


# ----------------------------------------------------------------------------------------------
# every error, with its exact message
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nine(tmp_path_factory):
    """A classic 9x9 rows export, its HiGHS raw solution file and a Gurobi file of it."""
    puzzle = parse_puzzle(DEFAULT_PUZZLE)
    model = build_model(puzzle)
    work = tmp_path_factory.mktemp("errors")
    h = highs_solve(write_mps(model, work / "m.mps"))
    h.writeSolution(str(work / "raw.sol"), 0)
    x = np.abs(np.rint(np.asarray(h.getSolution().col_value)))  # HiGHS 1.16 may give -0
    (work / "g.sol").write_text(gurobi_text(model, x, np.arange(model.n_cols)))
    return puzzle, model, manifest_of(model), work


def test_error_truncated_highs_raw(nine, tmp_path):
    text = (nine[3] / "raw.sol").read_text()
    path = tmp_path / "cut.sol"
    path.write_text(text[:text.index("x_1_2_1")])  # ends after 9 of the 729 column lines
    expect_error(path, nine[2], f"{path}: truncated: 9 of the 729 column lines announced by '# Columns'")
    path.write_text(text[:text.index("x_1_2_1") + 4])  # ends inside a line
    expect_error(path, nine[2], f"{path}: truncated: 10 of the 729 column lines announced by '# Columns'")


def test_cbc_stopped_statuses(nine, tmp_path):
    """CBC's first line after a limit: an incumbent is a solution; "(no integer solution -
    continuous used)" lists the LP relaxation's values, never a solution even when they look
    integral, and a stop on time says "time limit" (``solve --solver cbc --time-limit``: exit 1)."""
    puzzle, model, man, work = nine
    text = (work / "g.sol").read_text()  # "name value" lines of the solution (Gurobi layout)
    pairs = [ln.split() for ln in text.splitlines() if ln and not ln.startswith("#")]
    body = "".join(f"{k:7d} {name:<22} {float(v):15.8g} {0:23.8g}\n" for k, (name, v) in enumerate(pairs)
                   if float(v) != 0)

    def cbc_file(first: str):
        path = tmp_path / f"cbc_{len(list(tmp_path.iterdir()))}.txt"
        path.write_text(f"{first} - objective value 0.00000000\n" + body)
        return path

    for first in ("Optimal", "Stopped on time", "Stopped on iterations"):
        assert_verifies(cbc_file(first), puzzle, man, "cbc")
    status = "Stopped on time (no integer solution - continuous used)"
    path = cbc_file(status)
    expect_error(path, man, f"{path}: solver reports no solution: time limit reached (status: {status})")
    status = "Stopped on nodes (no integer solution - continuous used)"
    path = cbc_file(status)
    expect_error(path, man, f"{path}: solver reports no solution (status: {status})")
    path = tmp_path / "empty_stop.txt"
    path.write_text("Stopped on time - objective value 1e+50\n")
    expect_error(path, man, f"{path}: solver reports no solution: time limit reached "
                            "(status: Stopped on time, no integer solution)")


def test_glpk_undefined_mip_status_says_what_it_usually_means(nine, tmp_path):
    """glpsol -w after --tmlim with no integer solution writes status 'u'; "undefined" alone left
    the user guessing."""
    puzzle, model, man, work = nine
    path = tmp_path / "tmlim.sol"
    path.write_text(f"c written by glpsol\ns mip {model.n_rows} {model.n_cols} u 0\ne o f\n")
    expect_error(path, man, f"{path}: solver reports no solution (status: GLPK mip status 'u', undefined: no "
                            "integer solution found, as when --tmlim or --memlim ends the search first)")


def test_error_truncated_other_formats(nine, reference, tmp_path):
    puzzle, model, man, x, order, work = reference
    xml = tmp_path / "cut.xml"
    xml.write_text(cplex_text(model, x, order)[:2000])
    with pytest.raises(FormatError, match=rf"^{xml}: truncated: XML ends early \("):
        read_solution(xml, man)
    slx = tmp_path / "cut.slx"
    slx.write_text(slx_text(model, x, order).replace("ENDATA\n", ""))
    expect_error(slx, man, f"{slx}: truncated: no final 'ENDATA' line")
    cbc = tmp_path / "cut_cbc.txt"   # cut after the value: the reduced cost is missing (a probe: read as whole)
    cbc.write_text("Optimal - objective value 0.00000000\n      0 x_1_1_1   1   0\n      5 x_2_1_2   1")
    expect_error(cbc, man, f"{cbc}: truncated: line 3 is incomplete ('5 x_2_1_2   1')")
    scip = tmp_path / "cut_scip.sol"
    scip.write_text("objective value:                                    0\nx_1_1_1_1_3    1 \t(obj:0)\nx_1_1_")
    expect_error(scip, man, f"{scip}: truncated: line 3 is incomplete ('x_1_1_')")
    if shutil.which("glpsol"):
        run(["glpsol", "--freemps", "m.mps", "-w", "g_raw.txt"], nine[3])
        lines = (nine[3] / "g_raw.txt").read_text().splitlines()
        cut = tmp_path / "g_cut.txt"
        cut.write_text("\n".join(lines[:-100]) + "\n")
        expect_error(cut, nine[2], f"{cut}: truncated: no final 'e o f' line")


def test_error_fractional(nine, tmp_path):
    path = tmp_path / "sol.txt"
    path.write_text((nine[3] / "g.sol").read_text().replace("x_1_2_3 0\n", "x_1_2_3 0.5\n"))
    expect_error(path, nine[2], f"{path}: x_1_2_3 = 0.5 is not 0 or 1")
    vec = tmp_path / "x.csv"
    x = np.zeros(729)
    x[5] = 0.25
    vec.write_text("".join(f"{v:g}\n" for v in x))
    expect_error(vec, nine[2], f"{vec}: x_6_1_1 = 0.25 is not 0 or 1")


@pytest.mark.parametrize("word", ["nan", "NaN", "inf", "-inf", "Infinity"])
@pytest.mark.parametrize("header", ["", "x\n"])
def test_a_vector_starting_with_a_number_word_keeps_it_as_a_value(nine, tmp_path, word, header):
    """``nan`` on a vector's first line is a value, not a header: it was dropped and the vector
    was one value short ('expected 729 values, found 728')."""
    vec = tmp_path / "x.csv"
    vec.write_text(header + word + "\n" + "0\n" * 728)
    expect_error(vec, nine[2], f"{vec}: x_1_1_1 = {float(word)} is not 0 or 1")


def test_error_other_puzzle_size(nine, tmp_path):
    four = build_model(parse_puzzle("1...........3...", box="2x2"))
    expect_error(nine[3] / "raw.sol", manifest_of(four),
                 f"{nine[3] / 'raw.sol'}: names reach x_9_9_9 but the manifest's 4x4 puzzle ends at x_4_4_4: "
                 f"the file is for another puzzle size")
    vec = tmp_path / "x.csv"
    vec.write_text("0\n" * 729)
    expect_error(vec, manifest_of(four),
                 f"{vec}: expected 64 values (the export's columns, 4x4 grid), found 729")
    reduced = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="reduce")
    short = tmp_path / "y.csv"
    short.write_text("1\n" * 64)
    expect_error(short, manifest_of(reduced), f"{short}: expected {reduced.n_cols} values (the export's columns) "
                                              f"or 729 (all variables of a 9x9 grid), found 64")
    grid = tmp_path / "sudoku.csv"
    grid.write_text("1,2,3,4\n3,4,1,2\n2,1,4,3\n4,3,2,1\n")
    expect_error(grid, nine[2], f"{grid}: grid is 4x4, the manifest's puzzle is 9x9")


@pytest.mark.parametrize("where", [1, 700])   # the line reader and the vectorised one
def test_error_gurobi_line_with_an_extra_field(nine, tmp_path, where):
    # "name value" and nothing else: a third field was taken and dropped without a word
    path = tmp_path / "g.sol"
    lines = (nine[3] / "g.sol").read_text().splitlines(keepends=True)
    name, value = lines[where + 1].split()
    lines[where + 1] = f"{name} {value} 7\n"
    path.write_text("".join(lines))
    expect_error(path, nine[2], f"{path}: line {where + 2}: expected 2 fields (name value), found 3: "
                                f"'{name} {value} 7'")


def test_error_missing_variables(nine, tmp_path):
    path = tmp_path / "g.sol"
    lines = (nine[3] / "g.sol").read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith(("x_1_1_1 ", "x_2_1_1 ", "x_5_5_5 "))))
    expect_error(path, nine[2], f"{path}: 3 of 729 variables missing (gurobi lists every variable): "
                                f"x_1_1_1, x_2_1_1, x_5_5_5")


def test_error_unknown_and_duplicate_names(nine, tmp_path):
    text = (nine[3] / "g.sol").read_text()
    path = tmp_path / "g.sol"
    path.write_text(text.replace("x_1_1_1 ", "foo "))
    expect_error(path, nine[2], f"{path}: unknown variable name 'foo'; expected x_i_j_k / x_I_J_p_q_n names, a "
                                f"rule's aux_... columns or C<column> short names")
    path.write_text(text.replace("x_1_1_1 ", "x_1_1_2 "))
    expect_error(path, nine[2], f"{path}: variable x_1_1_2 listed twice")
    block = build_model(parse_puzzle(DEFAULT_PUZZLE), "block", "F")
    expect_error(nine[3] / "raw.sol", manifest_of(block),
                 f"{nine[3] / 'raw.sol'}: names have 3 indices (x_1_1_1) but the manifest's scheme block names "
                 f"variables x_I_J_p_q_n")


def test_error_variable_removed_by_reduce(nine):
    """The full model's dense file names variables the reduced export dropped: refused by name."""
    reduced = build_model(parse_puzzle(DEFAULT_PUZZLE), "ijk", "F", "reduce")
    kept = np.zeros(729, dtype=bool)
    kept[reduced.columns] = True
    first = reduced.convention.names([int(np.argmax(~kept))])[0]  # raw.sol lists columns in order F
    path = nine[3] / "raw.sol"
    expect_error(path, manifest_of(reduced),
                 f"{path}: variable {first} is not a column of this export (clue encoding reduce removed it)")


def test_error_unrecognised_and_empty(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello world\nthis is no solution\n")
    expect_error(path, None, f"{path}: unrecognised solution format; tried " + ", ".join(SOLUTION_FORMATS))
    empty = tmp_path / "empty.sol"
    empty.write_text("")
    expect_error(empty, None, f"{empty}: empty file")
    expect_error(tmp_path / "absent.sol", None, f"{tmp_path / 'absent.sol'}: no such file")


def test_error_incomplete_grid(tmp_path):
    path = tmp_path / "sudoku.csv"
    path.write_text("1,2,3,4\n3,4,1,2\n2,1,0,3\n4,3,2,1\n")
    expect_error(path, None, f"{path}: 1 empty cell (first at (3, 3)); a solution grid must be complete")


BIG = "9" * 5000  # int() refuses more than 4300 digits with a ValueError


@pytest.mark.parametrize("text, fmt, match", [
    (f"s mip 3 {BIG} o 0\nj 1 1\ne o f\n", "glpk_raw", r"column count: '9{24}\.\.\.\(5000 characters\)'"),
    ("Problem: p\nRows: 3\nColumns: " + BIG + "\nNon-zeros: 1\nStatus: INTEGER OPTIMAL\nObjective: 0\n",
     "glpk_report", r"'Columns:' line: '9{24}\.\.\.\(5000"),
    (f"{BIG} 3 : Number of columns and rows for primal or dual solution or basis\nT\nColumns\n1\n",
     "highs_old_raw", r"line 1: column count: '9{24}\.\.\.\(5000"),
    ("Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective 0\n# Columns " + BIG + "\n",
     "highs_raw", "without a column count"),
    ("Optimal - objective value 0\n" + BIG + " x_1_1_1 1 0\n      1 x_1_1_2 0 0\n", "cbc", "expected 'index name"),
    ("Optimal - objective value 0\n\u00b2 x_1_1_1 1 0\n      1 x_1_1_2 0 0\n", "cbc", "expected 'index name"),
])
def test_counts_and_indices_are_checked_before_int(tmp_path, text, fmt, match):
    # '9' * 5000 and '²' pass str.isdigit but not int(): once a ValueError traceback
    path = tmp_path / "s.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=match) as err:
        read_solution(path, build_model(parse_puzzle(DEFAULT_PUZZLE)), format=fmt)
    assert "\n" not in str(err.value) and len(str(err.value)) < len(str(path)) + 150


def test_a_file_far_larger_than_the_models_solutions_is_refused_before_it_is_parsed(tmp_path):
    """A 600 MB column of zeros passed the 1 GiB read cap and ran out of memory in the parse
    (about a hundred bytes of Python a line): with a manifest, the model's size bounds the file's
    bytes and its lines, each refused in one line."""
    from formats.solutions import MIN_SOLUTION_BYTES, SOLUTION_LINES_PER_POSITION, SOLUTION_SLACK_LINES

    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    manifest = manifest_from_dict(model_metadata(model))
    lines = SOLUTION_LINES_PER_POSITION * 729 + SOLUTION_SLACK_LINES + 1
    many = tmp_path / "many.csv"
    many.write_text("0\n" * lines)
    with pytest.raises(FormatError, match=rf"many.csv: {lines:,} lines, more than the model has: at most "
                                          rf"{lines - 1:,}; not a solution file of it$"):
        read_solution(many, manifest)
    big = tmp_path / "big.csv"
    big.write_text("0" * (MIN_SOLUTION_BYTES + 1) + "\n")
    with pytest.raises(FormatError, match=r"big.csv: larger than \d+ bytes"):
        read_solution(big, manifest)
    # a real answer of the same model still reads
    result = solve(model)
    path = tmp_path / "x.csv"
    path.write_text("\n".join(str(int(v)) for v in result.x) + "\n")
    assert read_solution(path, manifest).values.sum() == 81


# ----------------------------------------------------------------------------------------------
# rules with auxiliary columns (aux_<family>_...): named and short-named answers
# ----------------------------------------------------------------------------------------------
SKYSCRAPER_4 = {"size": 4, "box": "2x2", "givens": "..2.............",
                "rules": [{"rule": "skyscraper", "clue": "r5c4", "count": 4}, {"rule": "skyscraper", "clue": "r5c1", "count": 2},
                          {"rule": "skyscraper", "clue": "r2c0", "count": 2}, {"rule": "skyscraper", "clue": "r2c5", "count": 2}]}


@pytest.fixture(scope="module", params=[("ijk", "F", "rows"), ("block", "C", "reduce")], ids=["ijkF", "blockC"])
def skyscraper(request):
    # a differential check: every external MIP answer of a model with auxiliary columns was
    # refused ("unknown variable name 'aux_skyscraper_1_2'"), and fixed-MPS short names raised IndexError
    puzzle = parse_puzzle(SKYSCRAPER_4)
    model = build_model(puzzle, *request.param)
    assert model.n_aux > 0
    result = solve(model, threads=1)
    assert result.status == "optimal"
    return puzzle, model, manifest_of(model), np.rint(result.x)


@pytest.mark.parametrize("short", [False, True], ids=["names", "short_names"])
def test_answers_with_auxiliary_columns_are_read(skyscraper, tmp_path, short):
    puzzle, model, man, x = skyscraper
    names = [f"C{j}" for j in range(model.n_cols)] if short else list(man.col_names())
    assert any(str(name).startswith("aux_skyscraper_") for name in man.col_names())
    path = tmp_path / "answer.sol"
    path.write_text("# Objective value = 0\n" + "".join(f"{name} {v:g}\n" for name, v in zip(names, x)))
    sol = assert_verifies(path, puzzle, man, "gurobi")
    assert np.array_equal(sol.grid(), model.decode(x))


def test_auxiliary_columns_are_checked_by_name(skyscraper, tmp_path):
    puzzle, model, man, x = skyscraper
    names = list(man.col_names())
    aux = next(k for k, name in enumerate(names) if str(name).startswith("aux_"))
    path = tmp_path / "answer.sol"
    wrong = names.copy()
    wrong[aux] = "aux_skyscraper_9_9"
    path.write_text("".join(f"{name} {v:g}\n" for name, v in zip(wrong, x)))
    expect_error(path, man, f"{path}: column 'aux_skyscraper_9_9' is not an auxiliary column of the puzzle's rules")
    plain = tmp_path / "plain.sol"
    plain.write_text("".join(f"{name} {v:g}\n" for name, v in zip(names, x)))
    with pytest.raises(FormatError, match=r": auxiliary columns \(aux_skyscraper_.*\) need the export's manifest"):
        read_solution(plain)
    missing = tmp_path / "missing.sol"
    missing.write_text("".join(f"{name} {v:g}\n" for k, (name, v) in enumerate(zip(names, x)) if k != aux))
    expect_error(missing, man, f"{missing}: 1 of {model.n_cols} variables missing (gurobi lists every variable): "
                               f"{names[aux]}")


@pytest.mark.interop
def test_highs_answers_to_a_model_of_no_columns(tmp_path):
    """Every cell given, reduced: no rows, no columns. HiGHS's raw answer says model status
    "Empty" and primal "None" (an outside probe found it read as "no solution"); raw and pretty
    answers read as the empty vector, the grid is the clues, and another model's manifest refuses
    it by the variables it lacks."""
    puzzle = parse_puzzle("".join(map(str, pattern_grid(3, 3).ravel())))
    model = build_model(puzzle, "ijk", "F", "reduce")
    assert model.n_cols == 0 and model.n_rows == 0
    h = highs_solve(write_mps(model, tmp_path / "model.mps"))
    for style, fmt in ((0, "highs_raw"), (1, "highs_pretty")):
        out = tmp_path / f"highs_{style}.sol"
        h.writeSolution(str(out), style)
        sol = assert_verifies(out, puzzle, manifest_of(model), fmt)
        assert sol.status == "Empty" and np.array_equal(sol.grid(), puzzle.grid)
    other = manifest_of(build_model(parse_puzzle(DEFAULT_PUZZLE)))
    with pytest.raises(FormatError, match="729 of 729 variables missing"):
        read_solution(tmp_path / "highs_0.sol", other)
