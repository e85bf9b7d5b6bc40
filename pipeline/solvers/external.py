"""Run an external solver on the exported files and import its answer: the interop pipeline.

Each solver reads the file format it reads best (MPS for SCIP, CBC and GLPK; the generated
``solve_sudoku.m`` for Octave), writes its own native solution file, and that file comes back
through :func:`formats.directory.import_solution`, exactly as a user's would.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.core.build import Model, build_model
from pipeline.core.errors import NoSolutionReported, SolveError
from pipeline.core.extras import install_hint
from pipeline.core.options import Bound
from pipeline.core.puzzle import Puzzle
from pipeline.solvers.base import Solver, SolveResult, register_solver
from pipeline.solvers.highs import solve as solve_highs
from pipeline.solvers.workdir import binary_time_limit, run_binary, work_directory

MIP_SOLVERS = ("highs", "scip", "cbc", "glpk", "octave")  # run through MIP files (and HiGHS in process)


@dataclass
class ExternalResult:
    grid: np.ndarray | None
    status: str
    seconds: float
    solution_file: Path | None
    log: str = ""
    #: where the files were kept (``workdir`` itself or a fresh subdirectory of it), else None
    workdir: Path | None = None
    #: the answer over the model's columns (auxiliary ones included), when the file gives them
    x: np.ndarray | None = None


def cbc_binary() -> str | None:
    """Debian's ``cbc`` if installed, else the CBC binary that PuLP ships."""
    found = shutil.which("cbc")
    if found:
        return found
    try:
        import pulp

        cmd = pulp.PULP_CBC_CMD()
        return cmd.path if cmd.available() else None
    except Exception:  # pulp absent or its binary unusable: report as unavailable
        return None


def solver_available(name: str) -> str | None:
    """None when ``name`` can run here, else the reason it cannot."""
    if name == "highs":
        return None
    if name == "scip":
        try:
            import pyscipopt  # noqa: F401
        except ImportError:
            return f"pyscipopt is not installed: {install_hint('test')} (or pip install pyscipopt)"
        return None
    if name == "cbc":
        return None if cbc_binary() else "no cbc binary (apt-get install coinor-cbc, or pip install pulp)"
    if name == "glpk":
        return None if shutil.which("glpsol") else "glpsol not found (apt-get install glpk-utils)"
    if name == "octave":
        return None if shutil.which("octave-cli") or shutil.which("octave") else "octave not found (apt-get install octave)"
    return f"unknown solver {name!r}; expected one of {', '.join(MIP_SOLVERS)}"


# Octave 7 prints this at every exit after an error: noise, never the error itself
_OCTAVE_EXIT_NOISE = "error: ignoring const execution_exception& while preparing to exit"


class _NoSolution(Exception):
    """A runner's solver stopped without a solution and wrote no file saying so (Octave's
    solve_sudoku.m raises an error instead): ``status`` is ``infeasible`` or ``time_limit``."""

    def __init__(self, status: str, log: str):
        super().__init__(status)
        self.status, self.log = status, log


def _run(cmd: list[str], cwd: Path, timeout: float | None) -> str:
    """The log of ``cmd``; SolveError when it fails, naming its first ``error: `` line (Octave's
    real error comes first, its exit noise last), else its last line."""
    try:
        done = run_binary(cmd, cwd=cwd, timeout=timeout, text=True)
    except subprocess.TimeoutExpired:
        raise SolveError(f"{Path(cmd[0]).name}: no answer within {timeout:.0f} s") from None
    except OSError as e:
        raise SolveError(f"{cmd[0]}: cannot run: {e.strerror or e}") from None
    log = done.stdout + done.stderr
    if done.returncode != 0:
        lines = [line.strip() for line in log.splitlines() if line.strip() and line.strip() != _OCTAVE_EXIT_NOISE]
        said = next((line for line in lines if line.startswith("error: ")), lines[-1] if lines else "")
        # a solver that printed nothing left "exited with code 3: " dangling: say so as sat_external does
        raise SolveError(f"{Path(cmd[0]).name} exited with code {done.returncode}"
                         + (f": {said[:200]}" if said else " without an answer or any output"))
    return log


#: SCIP on the MPS file, in a child process of its own (pyscipopt's solve holds the interpreter in
#: C code: Ctrl-C and SIGTERM waited for SCIP's time limit, or for ever without one, and a kill
#: left the work directory behind); the child is stopped as cbc's and glpk's are.
_SCIP_SCRIPT = """
import sys
from pyscipopt import Model
model, answer, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
m = Model()
m.hideOutput()
m.readProblem(model)
if seconds > 0:
    m.setParam("limits/time", seconds)
m.optimize()
if m.getNSols() > 0:
    m.writeBestSol(answer)
else:
    with open(answer, "w") as f:
        f.write(f"solution status: {m.getStatus()}\\nno solution available\\n")
"""


def _solve_scip(workdir: Path, time_limit):
    sol = workdir / "scip.sol"
    cmd = [sys.executable, "-c", _SCIP_SCRIPT, "model.mps", sol.name, str(float(time_limit or 0))]
    try:
        return sol, _run(cmd, workdir, None if not time_limit else time_limit + 60)
    except SolveError as e:   # named as the engine, not as the interpreter that ran it
        raise SolveError(f"scip: {str(e).split(': ', 1)[-1]}") from None


def _solve_cbc(workdir: Path, time_limit):
    sol = workdir / "cbc_solution.txt"
    exe = cbc_binary()
    if exe is None:   # available() said so before the export
        raise SolveError("solver cbc: no cbc binary")
    cmd = [exe, "model.mps"]
    if time_limit:
        cmd += ["-sec", str(time_limit)]
    cmd += ["-solve", "-solu", sol.name]
    return sol, _run(cmd, workdir, None if not time_limit else time_limit + 60)


def _solve_glpk(workdir: Path, time_limit):
    sol = workdir / "glpk_raw.txt"
    cmd = ["glpsol", "--freemps", "model.mps", "-w", sol.name]
    if time_limit:
        cmd += ["--tmlim", str(max(1, int(time_limit)))]
    return sol, _run(cmd, workdir, None if not time_limit else time_limit + 60)


# what solve_sudoku.m raises when glpk returns no solution (formats/matlab.py)
_GLPK_NO_SOLUTION = re.compile(r"glpk found no solution \(error (-?\d+), status (-?\d+)\)")
_GLPK_ENOPFS, _GLPK_ETMLIM = 10, 9            # glpk errnum: no primal feasible solution; time limit
_GLPK_UNDEF, _GLPK_INFEAS, _GLPK_NOFEAS = 1, 3, 4  # glpk status (Octave: help glpk)


def _solve_octave(workdir: Path, time_limit):
    exe = shutil.which("octave-cli") or shutil.which("octave")
    if exe is None:   # available() said so before the export
        raise SolveError("solver octave: no octave binary")
    # solve_sudoku.m passes sudoku_time_limit (seconds) to glpk as tmlim
    setup = f"sudoku_time_limit = {float(time_limit)!r}; " if time_limit else ""
    cmd = [exe, "--no-gui", "--quiet", "--no-window-system", "--eval", f"{setup}run('solve_sudoku.m')"]
    if Path(exe).name == "octave-cli":
        cmd.remove("--no-gui")
    try:
        return workdir / "sudoku.csv", _run(cmd, workdir, None if not time_limit else time_limit + 60)
    except SolveError as e:
        # Octave's glpk fills status only when errnum is 0: infeasible is errnum 10 (the presolver
        # finds the relaxation infeasible) or status 3/4; a time limit is errnum 9
        m = _GLPK_NO_SOLUTION.search(str(e))
        if m is None:
            raise
        errnum, status = int(m.group(1)), int(m.group(2))
        if errnum == _GLPK_ENOPFS or status in (_GLPK_INFEAS, _GLPK_NOFEAS):
            raise _NoSolution("infeasible", str(e)) from None
        if errnum == _GLPK_ETMLIM or (time_limit and status == _GLPK_UNDEF):
            raise _NoSolution("time_limit", str(e)) from None
        raise


_FORMATS_FOR = {"scip": "mps", "cbc": "mps", "glpk": "mps", "octave": "csv,matlab"}
#: The most each engine takes (a longer time limit is clamped): SCIP's limits/time stops at 1e20
#: (its infinity; above it setParam raises); the binaries are waited for by subprocess.
_BOUNDS: dict[str, dict[str, Bound]] = {
    "scip": {"time_limit": binary_time_limit()},   # a child process now; SCIP's own limits/time stops at 1e20
    "cbc": {"time_limit": binary_time_limit()},
    "glpk": {"time_limit": binary_time_limit()},
    "octave": {"time_limit": binary_time_limit()},
}
_RUNNERS = {"scip": _solve_scip, "cbc": _solve_cbc, "glpk": _solve_glpk, "octave": _solve_octave}


def solve_external(puzzle: Puzzle, solver: str, *, scheme: str = "ijk", order: str = "F", clues: str = "rows",
                   time_limit: float | None = None, workdir: str | os.PathLike | None = None,
                   objective: np.ndarray | None = None) -> ExternalResult:
    """Export ``puzzle``, run ``solver`` on the files, import its native answer (verified later).

    ``workdir`` keeps the files (model, manifest, solver output): in ``workdir`` itself when it
    is new or empty, else in a fresh subdirectory of it (:func:`~pipeline.solvers.workdir.claim_workdir`;
    a file already there is never replaced; the result's ``workdir`` says which). By default a
    temporary directory is used and removed.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle to solve.
    solver : {'scip', 'cbc', 'glpk', 'octave', 'highs'}
        The external solver.
    scheme, order, clues : str
        The export's convention and clue encoding.
    time_limit : float, optional
        Seconds given to the solver.
    workdir : str or Path, optional
        Keep the files here.
    objective : ndarray, optional
        Costs over the full positions (``build_model``'s): the files carry them and the solver
        minimises them (without: any feasible grid).
    """
    reason = solver_available(solver)
    if reason:
        raise SolveError(f"solver {solver}: {reason}")
    if solver == "highs":
        r = solve_highs(build_model(puzzle, scheme, order, clues, objective), time_limit=time_limit)
        return ExternalResult(r.grid, r.status, r.seconds, None)
    # the writers and readers load when an external solver runs, not with the registry: a
    # process that solves in memory starts without the formats package (issue 18)
    from formats.directory import export_model, import_solution

    model = build_model(puzzle, scheme, order, clues, objective)
    with work_directory(workdir, solver) as (work, kept):
        export_model(model, work, _FORMATS_FOR[solver], dense="never")
        start = time.perf_counter()
        try:
            sol, log = _RUNNERS[solver](work, time_limit)
        except _NoSolution as e:  # the solver said so, and wrote no solution file
            return ExternalResult(None, e.status, time.perf_counter() - start, None, e.log, work if kept else None)
        seconds = time.perf_counter() - start
        if not sol.exists():
            raise SolveError(f"solver {solver}: wrote no solution file ({sol.name})")
        answer = sol if kept else None   # a temporary directory is removed on return
        try:
            result = import_solution(sol, work / "manifest.json")
        except NoSolutionReported as e:
            if e.status == "infeasible":
                return ExternalResult(None, "infeasible", seconds, answer, log, work if kept else None)
            # stopped by --time-limit before a solution: some files say so (CBC "Stopped on
            # time", SCIP "time limit reached"), others only "no solution" (GLPK's status
            # "undefined"), which after a time limit means the same
            if time_limit:
                return ExternalResult(None, "time_limit", seconds, answer, log, work if kept else None)
            raise
        return ExternalResult(result.grid, "optimal", seconds, answer, log, work if kept else None, result.x)


def _registry_entry(name: str) -> Solver:
    def solve(model: Model, *, time_limit: float | None = None,
              workdir: str | os.PathLike | None = None) -> SolveResult:
        conv = model.convention
        r = solve_external(model.puzzle, name, scheme=conv.scheme, order=conv.order, clues=model.clue_encoding,
                           time_limit=time_limit, workdir=workdir, objective=model.objective)
        # the model solved here and the one the files hold have the same columns: its x is this one's
        x = r.x if r.x is not None and r.x.size == model.n_cols else None
        objective = model.objective_value(x) if x is not None else None
        return SolveResult(r.grid is not None and "optimal" or r.status, x, objective, r.seconds, 0, r.grid,
                           message=f"answer: {r.solution_file}" if r.solution_file else "", solver=name,
                           workdir=r.workdir)

    hints = {"scip": "pip install pyscipopt (the test extra)", "cbc": "apt-get install coinor-cbc (or pip install pulp)",
             "glpk": "apt-get install glpk-utils", "octave": "apt-get install octave"}
    return Solver(name=name, description=f"{name} on the exported {_FORMATS_FOR[name].replace(',', ' + ')} files",
                  solve=solve, available=lambda: solver_available(name), reads=tuple(_FORMATS_FOR[name].split(",")),
                  solution_format={"scip": "scip", "cbc": "cbc", "glpk": "glpk_raw", "octave": "grid"}[name],
                  install_hint=hints[name], bounds=_BOUNDS[name],
                  # the MPS/LP/.mat files carry [Aeq; Aineq] and a layout's present cells (issue 15),
                  # and the objective, which each of these MIP solvers minimises
                  rule_rows=True, optimises=True)


for _name in ("scip", "cbc", "glpk", "octave"):
    register_solver(_registry_entry(_name))
