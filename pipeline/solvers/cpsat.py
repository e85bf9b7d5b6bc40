"""OR-Tools CP-SAT on the model's rows (the ``cpsat`` extra).

The solver view is handed over as it is: one Boolean per column (``lb``/``ub`` fix a column),
one ``AddExactlyOne`` per ``= 1`` row of ones (units, clues), and the rules beyond units as
linear constraints with their integer coefficients: the rules' ``=`` rows of ``Aeq`` (killer
sums) as equalities, every row of ``Aineq`` as ``<=``. A gattai layout needs nothing more: the
solver view holds the present cells' columns only. ``solve`` honours the time limit
(``max_time_in_seconds``) and threads (``num_workers``); ``count`` enumerates solutions with
a callback that stops at the limit (CP-SAT enumerates with one worker); a model with auxiliary
columns that its grid need not fix (a chaos construction's regions) is counted a search per grid
instead, each grid found excluded before the next.

Ctrl-C: CP-SAT never catches SIGINT itself. Where Python would raise KeyboardInterrupt (API use)
the search runs in a thread while the main thread waits in Python; a Ctrl-C there stops the
search and is raised as the KeyboardInterrupt, never reported as a time limit. Under the
command line (and in batch workers, which ignore SIGINT) the signal stays with its owner: the
command's watchdog ends the search (:func:`pipeline.core.stops.calling_on_stop`) and the command
answers ``interrupted``.
"""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.core import stops
from pipeline.core.build import Model
from pipeline.core.decode import grid_from_vector
from pipeline.core.errors import SolveError
from pipeline.core.extras import install_hint
from pipeline.core.options import threads_bound, time_limit_bound

from pipeline.solvers.base import CountResult, Solver, SolveResult, register_solver, time_left

if TYPE_CHECKING:
    import scipy.sparse as sp



def _import_problem() -> str | None:
    """None if ``cp_model`` imports, else why not (in words a user can act on)."""
    try:
        # a Ctrl-C is held until the import ends: raised while protobuf's C code called back into
        # Python, it was printed there as a traceback (a loaded machine takes a second to import)
        with stops.deferred():
            import ortools.sat.python.cp_model  # noqa: F401
    except ImportError as e:
        if "undefined symbol" in str(e) and "Highs" in str(e):
            # ortools 9.x bundles its own HiGHS; once highspy is loaded its symbols win
            return ("ortools cannot load in a process that already loaded highspy (their HiGHS "
                    "libraries clash); run cpsat in a fresh process")
        return f"needs ortools (the cpsat extra): {install_hint('cpsat')}"
    return None


def _cp_model():
    problem = _import_problem()
    if problem:
        raise SolveError(f"solver cpsat: {problem}")
    from ortools.sat.python import cp_model

    return cp_model


def _available() -> str | None:
    return _import_problem()


def build_cp_model(model: Model) -> tuple[Any, list[Any]]:
    """``(CpModel, variables)``: a Boolean per solver column, ``AddExactlyOne`` per ``= 1`` row
    of ones, a linear constraint per other row (:func:`add_linear_rows`)."""
    cp_model = _cp_model()
    cp = cp_model.CpModel()
    lb = model.lb.astype(np.int64).tolist()
    ub = model.ub.astype(np.int64).tolist()
    variables = [cp.NewIntVar(lo, hi, f"c{j}") for j, (lo, hi) in enumerate(zip(lb, ub))]
    a = model.Aeq.tocsr()
    rhs = np.asarray(model.beq)
    lengths = np.diff(a.indptr)
    nonones = np.bincount(np.repeat(np.arange(a.shape[0]), lengths), weights=(a.data != 1),
                          minlength=a.shape[0])
    exactly_one = (rhs == 1) & (nonones == 0)
    cols = a.indices.tolist()
    indptr = a.indptr.tolist()
    for i in np.flatnonzero(exactly_one).tolist():
        cp.AddExactlyOne([variables[j] for j in cols[indptr[i]:indptr[i + 1]]])
    other = np.flatnonzero(~exactly_one)
    add_linear_rows(cp, variables, a[other], rhs[other], equal=True)
    if model.n_ineq:
        add_linear_rows(cp, variables, model.Aineq.tocsr(), np.asarray(model.bineq), equal=False)
    return cp, variables


def add_linear_rows(cp: Any, variables: list[Any], rows: sp.spmatrix, rhs: np.ndarray, *, equal: bool) -> None:
    """Add ``rows x (= if equal else <=) rhs`` to ``cp``: the rules beyond units (killer sums,
    thermometers, anti-knight pairs, ...) with their integer coefficients.

    Parameters
    ----------
    cp : ortools.sat.python.cp_model.CpModel
        The model to add to.
    variables : list
        CP-SAT's Boolean of each column.
    rows : scipy.sparse matrix
        Integer coefficients over the columns.
    rhs : numpy.ndarray
        One integer right-hand side per row.
    equal : bool
        ``=`` rows (else ``<=``).

    Raises
    ------
    SolveError
        A coefficient or right-hand side that is not an integer.
    """
    rows = rows.tocsr()
    coef = rows.data.astype(np.int64)
    if not np.array_equal(coef, rows.data) or not np.array_equal(rhs, np.rint(rhs)):
        raise SolveError("solver cpsat: rule rows need integer coefficients and right-hand sides")
    # straight into the model's proto: CP-SAT's expression objects cost a published full-rank
    # puzzle's 56,735 rows (2.8 million terms) 8 s of Python, past the solve's time limit
    index = np.array([v.Index() for v in variables], dtype=np.int64)
    cols, data, indptr = index[rows.indices].tolist(), coef.tolist(), rows.indptr.tolist()
    least = _cp_model().INT_MIN
    constraints = cp.Proto().constraints
    for i, b in enumerate(np.rint(rhs).astype(np.int64).tolist()):
        lo, hi = indptr[i], indptr[i + 1]
        linear = constraints.add().linear
        linear.vars.extend(cols[lo:hi])
        linear.coeffs.extend(data[lo:hi])
        linear.domain.extend((b, b) if equal else (least, b))


def _values(solver_or_callback, variables) -> np.ndarray:
    return np.array([solver_or_callback.Value(v) for v in variables], dtype=float)


def _new_solver(cp_model, time_limit: float | None) -> Any:
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    # CP-SAT's own SIGINT handler would take a Ctrl-C from the command line's handler (or undo
    # a batch worker's SIG_IGN) and end the search as if its time limit had passed: never used
    # (API use waits for the search in Python instead: _solve_interruptibly)
    solver.parameters.catch_sigint_signal = False
    return solver


#: How often a batch worker's stop flag is looked at during a search (seconds).
_POLL_SECONDS = 0.05


def _run(solver, cp, callback=None) -> tuple[int, float, bool, bool]:
    """``(status, seconds, interrupted, flagged)`` of one search, which the command's stop ends at
    once; ``interrupted`` when that stop was a Ctrl-C or SIGTERM (the KeyboardInterrupt the
    command's handler raised inside CP-SAT's call is swallowed there), ``flagged`` when a batch
    pool worker's stop flag (:func:`pipeline.core.stops.watching_flag`) ended it: a thread polls
    the flag while CP-SAT runs, so the worker ends the search in place instead of being killed."""
    kinds: list[str] = []

    def stop(kind: str) -> None:
        kinds.append(kind)
        solver.StopSearch()

    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(_POLL_SECONDS):
            if stops.stop_requested():
                stop("flag")
                return

    watcher = threading.Thread(target=watch, name="cpsat-stop-flag", daemon=True) if stops.flag_watched() else None
    start = time.perf_counter()
    with stops.calling_on_stop(stop):
        if watcher is not None:
            watcher.start()
        try:
            status = _solve_interruptibly(solver, cp, callback, stop)
        finally:
            finished.set()
            if watcher is not None:
                watcher.join()
    return status, time.perf_counter() - start, "interrupt" in kinds, "flag" in kinds


def _solve_interruptibly(solver, cp, callback, stop) -> int:
    """``solver.Solve``; where SIGINT raises KeyboardInterrupt the plain Python way (API use, main
    thread), the search runs in a thread of its own while the main thread waits in Python, so a
    Ctrl-C lands there: it ends the search (``stop("interrupt")``) and is raised by the caller.
    CP-SAT's own SIGINT handler is not used: an early stop it caught could not be told from a
    search that ended for another reason (it was guessed from the clock, and misfired)."""
    solver.parameters.catch_sigint_signal = False
    if not stops.python_sigint() or threading.current_thread() is not threading.main_thread():
        return solver.Solve(cp, callback)
    outcome: list = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append(solver.Solve(cp, callback))
        except BaseException as e:   # handed to the waiting thread
            outcome.append(e)
        finally:
            done.set()

    thread = threading.Thread(target=run, name="cpsat-solve", daemon=True)
    thread.start()
    try:
        while not done.wait(_POLL_SECONDS):
            pass
    except KeyboardInterrupt:
        stop("interrupt")
        done.wait()
    thread.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


#: The message of a search that never started: the model's set-up took its whole time limit.
BUILT_PAST_LIMIT = "building the CP-SAT model took the whole time limit"


def _raise_if_interrupted(solver, status: int, seconds: float, time_limit: float | None, interrupted: bool,
                          flagged: bool = False) -> None:
    """KeyboardInterrupt when a Ctrl-C or SIGTERM ended the search (``interrupted``: the command's
    handler, or the API's waiting thread, asked CP-SAT to stop); not when a batch worker's stop
    flag ended it (``flagged``: the caller says ``interrupted``) or its time limit did."""
    if interrupted:
        raise KeyboardInterrupt


def solve(model: Model, *, time_limit: float | None = None, threads: int | None = None) -> SolveResult:
    """Solve ``model`` with CP-SAT.

    Parameters
    ----------
    model : Model
    time_limit : float, optional
        Seconds (CP-SAT's ``max_time_in_seconds``).
    threads : int, optional
        CP-SAT's ``num_workers``.

    Returns
    -------
    SolveResult
        Status ``optimal`` (a solution), ``infeasible``, ``time_limit`` or ``error``.

    Raises
    ------
    SolveError
        ortools missing.
    KeyboardInterrupt
        Ctrl-C, where CP-SAT caught it itself (see the module's notes).
    """
    cp_model = _cp_model()
    started = time.perf_counter()
    cp, variables = build_cp_model(model)
    left = time_left(time_limit, started)   # the model's build counts (a full-rank puzzle's took seconds)
    if left is not None and left <= 0:
        return SolveResult("time_limit", None, None, time.perf_counter() - started, 0, solver="cpsat",
                           message=BUILT_PAST_LIMIT)
    solver = _new_solver(cp_model, left)
    if threads is not None:
        solver.parameters.num_workers = int(threads)
    status, seconds, interrupted, flagged = _run(solver, cp)
    _raise_if_interrupted(solver, status, seconds, time_limit, interrupted, flagged)
    if flagged and status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        return SolveResult("interrupted", None, None, seconds, int(solver.NumBranches()), solver="cpsat",
                           message="stopped by the batch's stop request")
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        x = _values(solver, variables)
        grid = grid_from_vector(model.full_vector(x), model.convention)
        return SolveResult("optimal", x, 0.0, seconds, int(solver.NumBranches()), grid=grid, solver="cpsat")
    word = {cp_model.INFEASIBLE: "infeasible", cp_model.UNKNOWN: "time_limit"}.get(status, "error")
    # UNKNOWN under a time limit is the limit: the callers say so in their own words (a batch row's
    # error read "solver: UNKNOWN")
    said = "" if status == cp_model.UNKNOWN and time_limit is not None else solver.StatusName(status)
    return SolveResult(word, None, None, seconds, int(solver.NumBranches()), solver="cpsat", message=said)


def count(model: Model, limit: int = 2, *, time_limit: float | None = None, keep: int | None = None) -> CountResult:
    """Solutions of ``model`` up to ``limit`` (CP-SAT's solution enumeration, one worker).

    Parameters
    ----------
    model : Model
    limit : int
        Stop after this many solutions (at least 1).
    time_limit : float, optional
        Seconds for the whole enumeration.
    keep : int, optional
        Keep the grids of the first ``keep`` solutions only (default: all, up to ``limit``).

    Returns
    -------
    CountResult

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C, where CP-SAT caught it itself (see the module's notes).
    """
    if limit < 1:
        raise SolveError(f"count: --limit must be at least 1, found {limit}")
    cp_model = _cp_model()
    started = time.perf_counter()
    cp, variables = build_cp_model(model)
    left = time_left(time_limit, started)   # the model's build counts (a full-rank puzzle's took seconds)
    if left is not None and left <= 0:
        return CountResult(0, [], "time_limit", time.perf_counter() - started, message=BUILT_PAST_LIMIT)
    if not model.solution_columns.all():
        return _count_by_exclusion(cp_model, cp, variables, model, limit, keep, time_limit, started)
    grids: list[np.ndarray] = []
    found = 0
    # a solution counts once, by its cells' and extra cells' digits: a rule's auxiliary columns
    # need not be fixed by the grid (an anyof's branch indicators when two branches hold), and
    # CP-SAT (OR-Tools 9.10) reported one assignment of a model without any three times over (a
    # differential check: a unique 12x12 with sandwich and xsum clues counted 3 and listed one grid
    # thrice); the key is the answer's bits, packed
    cell_columns = np.flatnonzero(model.solution_columns)
    seen: set[bytes] = set()

    callback: Any = cp_model.CpSolverSolutionCallback   # ortools has no type information

    class Collect(callback):
        def on_solution_callback(self):
            nonlocal found
            values = _values(self, variables)
            key = np.packbits(np.rint(values[cell_columns]).astype(np.uint8)).tobytes()
            if key in seen:
                return
            seen.add(key)
            found += 1
            if keep is None or len(grids) < keep:
                grids.append(grid_from_vector(model.full_vector(values), model.convention))
            if found >= limit:
                self.StopSearch()

    solver = _new_solver(cp_model, left)
    solver.parameters.enumerate_all_solutions = True
    status, seconds, interrupted, flagged = _run(solver, cp, Collect())
    if found < limit or interrupted:
        _raise_if_interrupted(solver, status, seconds, time_limit, interrupted, flagged)
    if found >= limit:
        word = "limit"
    elif status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        word = "complete"
    else:
        word = "interrupted" if flagged else "time_limit"
    return CountResult(found, grids, word, seconds)


def _count_by_exclusion(cp_model, cp, variables: list[Any], model: Model, limit: int, keep: int | None,
                        time_limit: float | None, started: float) -> CountResult:
    """Count a model with auxiliary columns one search per solution: each answer found is excluded
    by a row over its cell (and extra-cell) columns before the next search. CP-SAT's enumeration
    would list every assignment of the auxiliary columns too, and those need not be fixed by the
    grid: a 4x4 chaos construction has thousands of region divisions per grid, and enumerating
    them took 49 s to find two grids where HiGHS took under a second."""
    cell_columns = np.flatnonzero(model.solution_columns)
    grids: list[np.ndarray] = []
    found = 0
    seconds = 0.0
    while found < limit:
        left = time_left(time_limit, started)
        if left is not None and left <= 0:
            return CountResult(found, grids, "time_limit", seconds)
        solver = _new_solver(cp_model, left)
        status, spent, interrupted, flagged = _run(solver, cp)
        seconds += spent
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            _raise_if_interrupted(solver, status, spent, time_limit, interrupted, flagged)
            if status == cp_model.INFEASIBLE:
                return CountResult(found, grids, "complete", seconds)
            return CountResult(found, grids, "interrupted" if flagged else "time_limit", seconds)
        values = _values(solver, variables)
        found += 1
        if keep is None or len(grids) < keep:
            grids.append(grid_from_vector(model.full_vector(values), model.convention))
        chosen = cell_columns[np.rint(values[cell_columns]) == 1].tolist()
        # another answer differs in at least one of the cell columns this one set
        cp.Add(sum(variables[j] for j in chosen) <= len(chosen) - 1)
    return CountResult(found, grids, "limit", seconds)


register_solver(Solver(name="cpsat", description="OR-Tools CP-SAT in process (exactly-one rows, linear rule rows)",
                       rule_rows=True,
                       solve=solve, count=count, available=_available, install_hint=install_hint("cpsat"),
                       statuses={"OPTIMAL": "optimal", "FEASIBLE": "optimal", "INFEASIBLE": "infeasible",
                                 "UNKNOWN": "time_limit", "MODEL_INVALID": "error"},
                       timed_call="CP-SAT's solve()",
                       # max_time_in_seconds is a double; CP-SAT calls a model with a million
                       # workers invalid and an int32 overflow a traceback
                       bounds={"time_limit": time_limit_bound(),
                               "threads": threads_bound("CP-SAT calls more workers an invalid model")}))
