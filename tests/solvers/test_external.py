"""Interop: every export read by real external solvers, their own solution files imported back.

Puzzles (tests/solvers/interop_helpers.py ``PUZZLE_SOURCES``): seed 000's ``DEFAULT_PUZZLE``, the first
16x16 of ``16x16_classic.txt``, the first 9x9 jigsaw of ``jigsaw.csv`` (with its regions), the
second Sudoku-X of ``9x9_x.txt`` (the first, a minimal 18-clue X, costs CBC and GLPK 3-8 s a run;
it serves the ``--time-limit`` test instead), and three puzzles with rules beyond units from
``tests/data/rules``: a killer (cage sums: ``=`` rows with coefficients 1..9; cages: ``<=``
rows), an anti-knight/thermometer/Kropki/greater/even-odd puzzle (``<=`` rows with negative
coefficients and right-hand sides) and a samurai (a 21x21 canvas: the columns are the present
cells). Conventions: scheme ijk|block x order F|C x clues rows|bounds|reduce, 12 per puzzle;
block only where boxes form one lattice, so 6 for the jigsaw and the samurai. That is 72
exports, each made once (all formats, MPS free and fixed) and shared.

Solver paths (``PATHS``; the matrix cell of each is (file format, solver)):

* HiGHS: ``Highs().readModel`` on MPS free, MPS fixed and LP, ``run``, ``writeSolution`` (raw,
  by name); for the default puzzle also the positional styles -1 (old raw) and 2 (GLPK raw);
* SCIP: pyscipopt ``readProblem`` on MPS free, MPS fixed and LP, ``writeBestSol``;
* CBC: Debian's ``cbc`` and PuLP's bundled binary, ``cbc FILE -solve -solu out.txt`` on the three;
* GLPK: ``glpsol --freemps|--mps|--lp FILE --tmlim 60 -w raw.txt -o report.txt``, both imported;
* Octave: the generated ``solve_sudoku.m`` on ``model.mat`` and on the CSV files
  (``sudoku_use_csv = true``); all 84 scripts run in ONE Octave process (``clear`` between them;
  one script per process is what ``solve --solver octave`` does, tested below).

Coverage: NOTHING IS SAMPLED. Every path runs on every puzzle in every convention: 72 exports x
18 file paths (1080 solver runs: one glpsol run serves -w and -o) plus 144 Octave scripts. Each solution file goes through
``formats.directory.import_solution`` and must verify, with a zero residual and the grid of the
in-process HiGHS solve; a positional file (GLPK ``-w``, HiGHS styles -1/2) also has the solver's
column order checked to be the export's. Through the CLI (``python -m pipeline import FILE
--manifest M``, exit 0) at least one path per solver (``CLI_IMPORTS``, default puzzle,
conventions spread out), and ``python -m pipeline solve PUZZLE --solver S`` for every solver on
two puzzles (``CLI_SOLVES``), on two infeasible puzzles (a 4x4 that presolve settles, a 9x9 that
takes branching; exit 1, one line) and with a ``--time-limit`` too short (exit 1, or a right
grid in time).
An absent solver or data set skips its tests with the reason printed.

``python tests/solvers/interop_matrix.py`` runs this file and prints the matrix as a markdown table.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest

from interop_helpers import (ALL_CASES, DATA_SETS, FILE_OF, PATHS, RULE_PUZZLES, RULES_DIR, RUNNERS, ExportCache,
                             SolverPath, Unavailable, availability, case_id, cli, highs_read_and_solve,
                             run_octave_batch)
from pipeline.core.build import build_model
from formats.directory import import_solution
from formats.files import load_manifest_file as load_manifest
from pipeline.core.puzzle import grid_to_string, parse_grid, parse_puzzle
from pipeline.solvers.highs import solve
from pipeline.solvers import SOLVERS as REGISTRY
from pipeline.solvers.external import MIP_SOLVERS
from pipeline.core.verify import verify_grid

pytestmark = pytest.mark.interop

FILE_PATHS = [p for p in PATHS if p.solver != "Octave"]
OCTAVE_PATHS = [p for p in PATHS if p.solver == "Octave"]


def skip(reason: str):
    print(f"SKIP: {reason}")
    pytest.skip(reason)


# ---------------------------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def exports(tmp_path_factory) -> ExportCache:
    return ExportCache(tmp_path_factory.mktemp("interop"))


_REFERENCE: dict[str, np.ndarray] = {}


def reference_grid(exports: ExportCache, pid: str) -> np.ndarray:
    """The puzzle's solution from the in-process HiGHS solve (the puzzles have unique solutions)."""
    if pid not in _REFERENCE:
        r = solve(build_model(exports.puzzle(pid), "ijk", "F", "reduce"), threads=1)
        assert r.solved, f"{pid}: in-process HiGHS did not solve the puzzle ({r.status})"
        _REFERENCE[pid] = r.grid
    return _REFERENCE[pid]


class Case:
    def __init__(self, exports: ExportCache, pid: str, conv):
        self.pid, self.conv = pid, conv
        self.puzzle = exports.puzzle(pid)
        self.dir = exports.get(pid, conv)
        self.manifest = self.dir / "manifest.json"
        self.reference = reference_grid(exports, pid)

    def __repr__(self):
        return case_id(self.pid, self.conv)


def _case(exports, pid, conv) -> Case:
    try:
        return Case(exports, pid, conv)
    except Unavailable as e:
        skip(str(e))


@pytest.fixture(scope="module", params=ALL_CASES, ids=[case_id(*c) for c in ALL_CASES])
def case(request, exports) -> Case:
    return _case(exports, *request.param)


@pytest.fixture(scope="session")
def octave_runs(exports, tmp_path_factory):
    """Run every (case, route) script in one Octave process; {(case id, route): (out, err)}."""
    reason = availability(OCTAVE_PATHS[0])
    if reason:
        return reason
    jobs, where = [], {}
    for pid, conv in ALL_CASES:
        try:
            d = exports.get(pid, conv)
        except Unavailable:
            continue
        for path in OCTAVE_PATHS:
            out, err = d / path.out_name, d / (path.out_name + ".err")
            jobs.append((d, path.fmt, out, err))
            where[(case_id(pid, conv), path.fmt)] = (out, err)
    log = run_octave_batch(jobs, tmp_path_factory.mktemp("octave"))
    return where, log


# ---------------------------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------------------------
def check_import(sol: Path, case: Case):
    result = import_solution(sol, case.manifest)
    assert result.verdict.ok, f"{sol.name} ({result.format}): {result.verdict.message}"
    assert result.residual <= 1e-6, f"{sol.name}: residual {result.residual}"
    np.testing.assert_array_equal(result.grid, case.reference)
    return result


def glpk_column_order(report: Path) -> list[str]:
    """GLPK's own column numbering, from the ``-o`` report of a run (its 'No. Column name' table)."""
    table = report.read_text().split("Column name", 1)[1]
    rows = re.findall(r"^\s*(\d+) (\S+)", table, re.M)
    assert [int(j) for j, _ in rows] == list(range(1, len(rows) + 1)), f"{report.name}: columns not numbered 1..n"
    return [name for _, name in rows]


def check_positional(case: Case, solver_order: list[str], who: str) -> None:
    """A positional solution file lists values in the SOLVER's column order, without names: it
    can only import right if that order is the export's. GLPK's and HiGHS's LP readers number
    columns by first appearance (objective first); our LP writer lists every column in the
    objective, in export order, so the orders agree (for MPS the file's column order is ours)."""
    man = load_manifest(case.manifest)
    ours = [str(n) for n in man.convention.names(man.columns)]
    assert solver_order == ours, f"{who}: the solver's column order is not the export's"


def solve_with(path: SolverPath, case: Case) -> Path:
    reason = availability(path)
    if reason:
        skip(reason)
    return RUNNERS[path.solver](path, case.dir)


# ---------------------------------------------------------------------------------------------
# the matrix: every path on every export
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", FILE_PATHS, ids=[p.id for p in FILE_PATHS])
def test_solver_file_imports(case, path):
    """The solver reads our file, writes its own solution file, which imports and verifies."""
    sol = solve_with(path, case)
    if path.solver == "GLPK" and path.fmt == "LP" and path.flavour == "raw":  # -w: values, no names
        report = sol.with_name(sol.name.replace("-raw.txt", "-report.txt"))  # -o of the same run
        check_positional(case, glpk_column_order(report), "glpsol -w on LP")
    result = check_import(sol, case)
    expected = {"HiGHS": "highs_raw", "SCIP": "scip", "CBC": "cbc", "GLPK": f"glpk_{path.flavour}"}[path.solver]
    assert result.format == expected


@pytest.mark.parametrize("path", OCTAVE_PATHS, ids=[p.id for p in OCTAVE_PATHS])
def test_octave_script(case, path, octave_runs):
    """solve_sudoku.m on model.mat / on the CSVs; its sudoku.csv grid imports and verifies."""
    if isinstance(octave_runs, str):
        skip(octave_runs)
    where, log = octave_runs
    out, err = where[(repr(case), path.fmt)]
    if err.exists():
        pytest.fail(f"solve_sudoku.m ({path.fmt}) failed in Octave: {err.read_text().strip()}")
    assert out.exists(), f"solve_sudoku.m wrote no {out.name}; Octave log tail: {log[-500:]}"
    # the script says what it read: the route really was the one asked for
    said = f"Read {case.dir / 'model.mat'}" if path.fmt == ".mat" else f"Read the CSV files in {case.dir}"
    assert said + "\n" in log, f"Octave log does not say {said!r}"
    result = check_import(out, case)
    assert result.format == "matlab_grid"


DEFAULT_CASES = [c for c in ALL_CASES if c[0] == "default"]
POSITIONAL_STYLES = {-1: "highs_old_raw", 2: "glpk_raw"}


@pytest.mark.parametrize("style", list(POSITIONAL_STYLES), ids=["old_raw", "glpk_raw"])
@pytest.mark.parametrize("fmt", ["MPS free", "MPS fixed", "LP"], ids=["mps_free", "mps_fixed", "lp"])
@pytest.mark.parametrize("conv", [c for _, c in DEFAULT_CASES], ids=[case_id(*c) for c in DEFAULT_CASES])
def test_highs_positional_styles(conv, fmt, style, exports):
    """HiGHS's positional solution styles (old raw -1, GLPK raw 2: values, no names) after its own
    reader read our file: HiGHS's column order is the export's for MPS (file order) and for LP
    (first appearance: the objective lists every column in export order), so the file imports.
    Default puzzle, 12 conventions."""
    case = _case(exports, "default", conv)
    h = highs_read_and_solve(case.dir / FILE_OF[fmt])
    sol = case.dir / f"out_highs-style{style}-{fmt.replace(' ', '_')}.sol"
    h.writeSolution(str(sol), style)
    order = [str(n) for n in h.getLp().col_names_]
    if fmt == "MPS fixed":  # short names C0000123 = 0-based export column 123
        assert order == [f"C{j:07d}" for j in range(len(order))]
    else:
        check_positional(case, order, f"HiGHS writeSolution style {style} on {fmt}")
    result = check_import(sol, case)
    assert result.format == POSITIONAL_STYLES[style]


# ---------------------------------------------------------------------------------------------
# the CLI: import (one or more paths per solver) and solve --solver
# ---------------------------------------------------------------------------------------------
def _path(solver, fmt, flavour=""):
    return next(p for p in PATHS if (p.solver, p.fmt, p.flavour) == (solver, fmt, flavour))


CLI_IMPORTS = [  # (path, convention of the default puzzle)
    (_path("HiGHS", "LP"), ("block", "C", "reduce")),
    (_path("HiGHS", "MPS fixed"), ("ijk", "F", "rows")),
    (_path("SCIP", "MPS fixed"), ("ijk", "C", "bounds")),
    (_path("SCIP", "LP"), ("block", "F", "reduce")),
    (_path("CBC", "MPS free", "debian"), ("block", "F", "rows")),
    (_path("CBC", "LP", "pulp"), ("ijk", "F", "reduce")),
    (_path("GLPK", "MPS fixed", "raw"), ("block", "C", "bounds")),
    (_path("GLPK", "LP", "report"), ("block", "F", "reduce")),
    (_path("Octave", ".mat"), ("ijk", "F", "rows")),
    (_path("Octave", "CSV"), ("block", "C", "reduce")),
]


@pytest.mark.parametrize("path,conv", CLI_IMPORTS, ids=[f"{case_id('default', c)}-{p.id}" for p, c in CLI_IMPORTS])
def test_cli_import(path, conv, exports, octave_runs):
    """``python -m pipeline import FILE --manifest M`` on a solver's own file: exit 0, the grid."""
    case = _case(exports, "default", conv)
    if path.solver == "Octave":
        if isinstance(octave_runs, str):
            skip(octave_runs)
        sol, err = octave_runs[0][(repr(case), path.fmt)]
        assert not err.exists(), err.read_text()
    else:
        sol = solve_with(path, case)
    done = cli("import", sol, "--manifest", case.manifest, "--format", "line")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == grid_to_string(case.reference)
    # the default grid output also says which reader took the file
    done = cli("import", sol, "--manifest", case.manifest)
    assert done.returncode == 0 and "ok: valid" in done.stderr, done.stderr


CLI_SOLVES = [  # (solver, puzzle id, extra CLI arguments)
    *[(s, "default", []) for s in ("highs", "scip", "cbc", "glpk", "octave")],
    ("highs", "classic16", ["--scheme", "block", "--order", "C", "--clues", "bounds"]),
    ("scip", "x", ["--scheme", "block", "--clues", "reduce"]),
    ("cbc", "jigsaw", ["--order", "C", "--clues", "bounds"]),
    ("glpk", "classic16", ["--scheme", "block", "--clues", "reduce"]),
    ("octave", "x", ["--scheme", "block", "--order", "C", "--clues", "reduce"]),
    # rules beyond units, read from their puzzle documents; --no-unique-check because the
    # uniqueness check's default engine (the in-process SAT engine) does not encode rules yet
    ("scip", "killer9", ["--clues", "bounds", "--no-unique-check"]),
    ("cbc", "thermo9", ["--order", "C", "--clues", "reduce", "--no-unique-check"]),
    ("glpk", "samurai", ["--no-unique-check"]),
    ("octave", "killer9", ["--scheme", "block", "--clues", "reduce", "--no-unique-check"]),
    ("octave", "samurai", ["--order", "C", "--clues", "bounds", "--no-unique-check"]),
]
_COL = {"highs": "HiGHS", "scip": "SCIP", "cbc": "CBC", "glpk": "GLPK", "octave": "Octave"}


def _cli_puzzle_args(puzzle, pid) -> list[str]:
    if pid in RULE_PUZZLES:  # the puzzle document (rules, layout) as a file
        return [str(RULES_DIR / f"{pid}.json")]
    args = [puzzle.to_string()]
    if pid == "jigsaw":
        args += ["--regions", puzzle.regions_string()]
    if pid == "x":
        args += ["--variant", "x"]
    return args


@pytest.mark.parametrize("solver,pid,extra", CLI_SOLVES,
                         ids=[f"{s}-{p}" + ("-" + "-".join(a for a in e if not a.startswith("--")) if e else "")
                              for s, p, e in CLI_SOLVES])
def test_cli_solve(solver, pid, extra, exports, tmp_path):
    """``python -m pipeline solve PUZZLE --solver S``: exit 0 and the right grid."""
    _need_cli_solver(solver)
    try:
        puzzle = exports.puzzle(pid)
    except Unavailable as e:
        skip(str(e))
    reference = reference_grid(exports, pid)
    work = tmp_path / "work"
    done = cli("solve", *_cli_puzzle_args(puzzle, pid), "--solver", solver, "--format", "line",
               "--workdir", work, *extra)
    assert done.returncode == 0, done.stderr
    got = done.stdout.strip()
    want = grid_to_string(reference)
    assert got == want
    if solver != "highs":  # --workdir keeps the files: the manifest and the solver's own answer
        assert (work / "manifest.json").is_file()


INFEASIBLE_4X4 = "12........3...4."  # cell (1,3) can hold neither 3 nor 4: consistent clues, no solution
# DEFAULT_PUZZLE with a wrong 2 at (1,7): no solution, but its LP relaxation is feasible, so the
# solvers find out by branching (Octave's glpk: errnum 0, status 4) rather than in presolve
# (errnum 10, as for the 4x4)
INFEASIBLE_9X9 = "050079200000000500092000060080000407020600010070250080000040000008020000730001000"
INFEASIBLE = {"4x4": (INFEASIBLE_4X4, "--box", "2x2"), "9x9": (INFEASIBLE_9X9,)}
SOLVERS = MIP_SOLVERS   # the registry's MIP-file solvers (HiGHS in process plus the external runners)
# every registry entry that decides a puzzle (MIP, SAT/PB, CP-SAT, searches); not a constructive
# fill (pattern), which answers only puzzles it fits and never claims infeasibility
ALL_SOLVERS = tuple(name for name, entry in REGISTRY.items() if not entry.needs_model)


def _need_cli_solver(solver: str) -> None:
    if solver == "highs":
        return
    if solver not in MIP_SOLVERS:
        reason = REGISTRY[solver].available()
        if reason:
            skip(reason)
        return
    reason = availability(SolverPath(_COL[solver], "MPS free", "debian" if solver == "cbc" else ""))
    if reason and solver == "cbc":
        reason = availability(SolverPath("CBC", "MPS free", "pulp"))
    if reason:
        skip(reason)


def _workdir(solver: str, tmp_path) -> list:
    """``--workdir`` for an engine that keeps files (an in-process one would note it ignored)."""
    return ["--workdir", tmp_path / "w"] if "workdir" in REGISTRY[solver].options else []


@pytest.mark.parametrize("which", list(INFEASIBLE))
@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_cli_solve_infeasible(solver, which, tmp_path):
    """An infeasible puzzle: exit 1 and one line 'no solution: ... infeasible' from every solver
    (Octave: solve_sudoku.m's 'glpk found no solution (error E, status S)' error, recognised)."""
    _need_cli_solver(solver)
    done = cli("solve", *INFEASIBLE[which], "--solver", solver, *_workdir(solver, tmp_path))
    assert done.returncode == 1, done.stderr
    assert done.stderr == "no solution: the puzzle has no solution (infeasible)\n"


def test_run_reports_the_first_error_line(tmp_path):
    """A failed solver is named by its first 'error: ' line: Octave 7 ends every failed run with
    'error: ignoring const execution_exception& while preparing to exit', which hid the real one."""
    from pipeline.core.errors import SolveError
    from pipeline.solvers.external import _run

    noise = "error: ignoring const execution_exception& while preparing to exit"
    script = f"echo 'Read model.mat'; echo 'error: the real one' >&2; echo 'error: called from' >&2; echo '{noise}' >&2; exit 1"
    with pytest.raises(SolveError) as e:
        _run(["sh", "-c", script], tmp_path, 10)
    assert str(e.value) == "sh exited with code 1: error: the real one"
    with pytest.raises(SolveError) as e:  # no 'error: ' line: the last line, never the noise
        _run(["sh", "-c", f"echo 'glpk: out of memory'; echo '{noise}'; exit 3"], tmp_path, 10)
    assert str(e.value) == "sh exited with code 3: glpk: out of memory"
    with pytest.raises(SolveError) as e:  # nothing printed: no dangling "code 3: "
        _run(["sh", "-c", "exit 3"], tmp_path, 10)
    assert str(e.value) == "sh exited with code 3 without an answer or any output"


# (solver, data set, variant, --time-limit); the first line of the data set
TIME_LIMIT_CASES = [*[(s, "9x9_x.txt", "x", "0.2") for s in SOLVERS],
                    # Octave's glpk needs minutes for this 25x25: only a limit passed on stops it
                    ("octave", "25x25_gecode.txt", "classic", "2")]


@pytest.mark.parametrize("solver,source,variant,limit", TIME_LIMIT_CASES,
                         ids=[f"{s}-{src.split('_')[0]}" for s, src, _, _ in TIME_LIMIT_CASES])
def test_cli_solve_time_limit(solver, source, variant, limit, tmp_path):
    """--time-limit too short for the hard (18-clue) Sudoku-X: either a right grid in time (exit 0)
    or exit 1 'no solution: time limit', never an error. Octave on a 25x25 that glpk takes minutes
    over: exit 1 within seconds (solve_sudoku.m gets sudoku_time_limit, glpk tmlim)."""
    _need_cli_solver(solver)
    path = DATA_SETS / source
    if not path.is_file():
        skip(f"data set {path} not found")
    with open(path, encoding="utf-8") as f:
        hard = f.readline().strip()
    start = time.perf_counter()
    done = cli("solve", hard, "--variant", variant, "--solver", solver, "--time-limit", limit, "--format", "line",
               *_workdir(solver, tmp_path), timeout=120)
    seconds = time.perf_counter() - start
    assert done.returncode in (0, 1), done.stderr
    if source.startswith("25x25"):
        assert done.returncode == 1 and seconds < 60, f"{seconds:.0f} s, exit {done.returncode}: {done.stderr}"
    if done.returncode == 1:
        assert done.stderr == f"no solution: time limit of {float(limit)} s reached\n"
    else:
        puzzle = parse_puzzle(hard, variant=variant)
        assert verify_grid(parse_grid(done.stdout.strip()), puzzle).ok
