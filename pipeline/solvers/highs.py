"""The HiGHS entry of the solver registry: solve a Model in process (highspy, the CSC arrays
passed directly), and count solutions with no-good cuts on one instance. Batch reuses
:func:`highs_for`, :func:`run_highs` and :func:`add_no_good_cut` for its per-shape instances."""
from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from pipeline.core import stops
from pipeline.core.build import Model, constraint_rows as file_rows
from pipeline.core.decode import INTEGRALITY_TOL, grid_from_vector
from pipeline.core.errors import ModelTooLarge, SolveError
from pipeline.core.limits import MAX_BYTES_ENV, MODEL_BYTES_PER_NONZERO, memory_limit
from pipeline.core.options import threads_bound, time_limit_bound
from pipeline.core.textin import size_text
from pipeline.core.presolve import DEFAULT_PRESOLVE, Presolved, presolve as presolve_model

from pipeline.solvers.base import CountResult, Solver, SolveResult, register_solver, singles_contradiction

if TYPE_CHECKING:
    import highspy

T = TypeVar("T")


def _highspy():
    """highspy, imported on first use: the registry imports this module in every command, and a
    command that solves with another engine (a 9x9 with SAT) starts faster without it (issue 18)."""
    import highspy

    return highspy


# how often the thread waiting for a HiGHS run looks at the stop flag (a signal wakes it at once)
_POLL_SECONDS = 0.1
# after a stop, how long the command waits for HiGHS to return before it answers without it
# (the process then ends without the interpreter's exit: pipeline.core.stops.leave_running)
_STOP_WAIT = 1.0
# seconds a count step still gets once its deadline has passed: HiGHS needs a positive
# time_limit, and this one makes it stop at once with status time_limit
MIN_TIME_LIMIT = 1e-3

HIGHS_STATUS = {  # HiGHS model status (its highspy.HighsModelStatus name) -> the pipeline's status words
    "kOptimal": "optimal",
    "kInfeasible": "infeasible",
    "kUnboundedOrInfeasible": "infeasible",
    "kTimeLimit": "time_limit",
    "kInterrupt": "interrupted",
    "kMemoryLimit": "memory_limit",
}


@functools.cache
def _quiet_highs_class() -> type:
    """``highspy.Highs`` whose construction prints nothing (made on first use, with highspy).

    From highspy 1.16 on, ``Highs.__init__`` calls ``enableCallbacks``, whose ``setCallback``
    writes the "Running HiGHS ..." banner to the process's C-level stdout unless
    ``output_flag`` is already off; setting an option after construction is too late. That
    banner corrupted every command whose stdout is data (``solve --output -``, JSON).
    """

    class QuietHighs(_highspy().Highs):  # type: ignore[misc]
        def enableCallbacks(self):  # noqa: N802 (highspy's name)
            self.setOptionValue("output_flag", False)
            super().enableCallbacks()

    return QuietHighs


def new_highs(*, quiet: bool = True) -> highspy.Highs:
    """An empty Highs instance; with ``quiet`` (the default) it writes no log or banner.

    Every Highs the pipeline creates comes from here, so no command's stdout gets solver text.
    """
    h = _quiet_highs_class()()
    h.setOptionValue("output_flag", not quiet)
    return h


def constraint_rows(model: Model) -> tuple:
    """``[Aeq; Aineq]`` with HiGHS's row bounds: ``beq <= . <= beq``, then ``-inf <= . <= bineq``
    (the rows every writer writes, :func:`pipeline.core.build.constraint_rows`)."""
    if not model.n_ineq:
        return model.Aeq, model.beq, model.beq
    rows = file_rows(model)
    return rows.matrix, rows.lower, rows.rhs


#: Bytes HiGHS takes per nonzero of the model it is passed, within half a second of starting:
#: measured 160-400 (empty 36x36 to 100x100, and 80x80 grids of 400 values), and growing as its
#: search runs (an empty 64x64: 297 at 0.5 s, 347 at 5 s).
HIGHS_BYTES_PER_NONZERO = 160


def check_highs_memory(nonzeros: int) -> None:
    """Refuse, in one line, handing HiGHS a model of ``nonzeros`` that it could not even start on
    within :func:`~pipeline.core.limits.memory_limit` (the model held, and HiGHS's own copy and
    factor: :data:`HIGHS_BYTES_PER_NONZERO`): an 80x80 grid of 400 values took 2.5 GB under 1 GB.

    Parameters
    ----------
    nonzeros : int
        Nonzeros of the constraint matrix passed.

    Raises
    ------
    ModelTooLarge
        The estimate is above the limit.
    """
    need, limit = (HIGHS_BYTES_PER_NONZERO + MODEL_BYTES_PER_NONZERO) * nonzeros, memory_limit()
    if need > limit:
        raise ModelTooLarge(f"solver highs: HiGHS on this model's {nonzeros:,} nonzeros needs about {size_text(need)}, "
                            f"more than the {size_text(limit)} allowed (set {MAX_BYTES_ENV} to allow more, or "
                            f"another --solver)")


def highs_for(model: Model, *, time_limit: float | None = None, threads: int | None = None,
              quiet: bool = True, options: dict | None = None) -> highspy.Highs:
    """A Highs instance holding ``model`` (columns binary), ready to ``run()``.

    Parameters
    ----------
    model : Model
        Its solver view.
    time_limit : float, optional
        HiGHS ``time_limit``.
    threads : int, optional
        HiGHS ``threads``.
    quiet : bool
        No HiGHS output.
    options : dict, optional
        Further HiGHS options by name.

    Raises
    ------
    SolveError
        HiGHS refuses one of ``options`` (an unknown name or a value outside its range).
    ModelTooLarge
        HiGHS could not start on the model within the memory allowed (:func:`check_highs_memory`).
    """
    a, row_lower, row_upper = constraint_rows(model)
    check_highs_memory(a.nnz)
    h = new_highs(quiet=quiet)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    for key, value in (options or {}).items():
        # HiGHS answers a bad name or value (random_seed=-5) with a status, not an exception
        try:
            refused = h.setOptionValue(key, value) != _highspy().HighsStatus.kOk
        except (TypeError, ValueError, OverflowError):
            refused = True
        if refused:
            raise SolveError(f"solver highs: HiGHS refuses option {key}={value!r}")
    a = a.tocsc()
    hs = _highspy()
    status = h.passModel(   # the plain-integer arguments named by their highspy enums
        model.n_cols, a.shape[0], a.nnz, int(hs.MatrixFormat.kColwise), int(hs.ObjSense.kMinimize),
        0.0,  # no objective offset
        model.cost, model.lb, model.ub, row_lower, row_upper,
        a.indptr.astype(np.int32), a.indices.astype(np.int32), a.data.astype(np.float64),
        np.full(model.n_cols, int(hs.HighsVarType.kInteger), dtype=np.int32),
    )
    if status == hs.HighsStatus.kError:
        raise SolveError("highs: the model was refused by passModel")
    return h


def _refused(h: highspy.Highs) -> bool:
    """Run ``h``; True when HiGHS refused before solving (an error and no model status).

    The run happens in a thread of its own while this (main) thread waits, so that a Ctrl-C,
    SIGTERM or the command's deadline can end it from inside: the waiting thread, or the
    watchdog (:func:`pipeline.core.stops.calling_on_stop`) when the stop is held back, sets a flag
    that HiGHS's interrupt callbacks read, and HiGHS returns with model status Interrupt. Without
    it, one long run held the command until the watchdog ended the whole process, and ``batch``
    lost its summary line. Not in this thread: Python runs signal handlers in the main thread
    only, and one raised inside HiGHS's callback was taken for a solver error. The flag belongs
    to this run, so no earlier stop leaks into a later one."""
    hs = _highspy()
    stop = threading.Event()

    def interrupt(event) -> None:
        if stop.is_set():
            event.interrupt()

    outcome: list = []
    # the run's end, as an Event: Python 3.11's Thread.join, when a signal handler raises inside
    # it, marks the thread stopped while it still runs (its bpo-45274 clean-up releases the lock
    # the running thread holds); a later join() returned at once, the command ended with HiGHS
    # still running, and the interpreter's exit killed that thread inside HiGHS: SIGABRT,
    # 'terminate called without an active exception' (5 of 50 'solve --time-limit 0.2' runs here)
    ended = threading.Event()

    def run() -> None:
        try:
            outcome.append(h.run() == hs.HighsStatus.kError and h.getModelStatus() == hs.HighsModelStatus.kNotset)
        except BaseException as error:   # handed to the waiting thread
            outcome.append(error)
        finally:
            ended.set()

    callbacks = (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt)
    for callback in callbacks:
        callback.subscribe(interrupt)
    try:
        with stops.calling_on_stop(lambda kind: stop.set()):
            runner = threading.Thread(target=run, name="highs-run", daemon=True)
            started = False
            try:
                with stops.deferred():   # a stop while the thread starts waits until it has
                    runner.start()
                    started = True
                while not ended.wait(_POLL_SECONDS):
                    if stops.stop_requested():   # a batch worker's flag (a stop here raises instead)
                        stop.set()
            except BaseException:   # a stop (KeyboardInterrupt, DeadlineReached): end the run, then go on
                stop.set()
                if started and not ended.wait(_STOP_WAIT):   # HiGHS reads its interrupt only now and then
                    stops.leave_running("highs")
                raise
    finally:
        for callback in callbacks:
            callback.unsubscribe(interrupt)
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return bool(outcome[0])


def run_once(h: highspy.Highs, fixed: np.ndarray | None = None) -> tuple[str, float, int, np.ndarray | None]:
    """``Highs.run()`` and what it found: (status, seconds inside run, nodes, x or None).

    The one run-and-read step of every in-process HiGHS solve: :func:`solve`, :func:`count_solutions`
    and batch's per-shape solver. ``status`` is mapped through :data:`HIGHS_STATUS` and is
    ``no_solution`` when HiGHS says optimal without a primal solution. ``fixed``: the bounds fix
    every column to this 0/1 vector, so a feasible answer can only be this vector; it is used as
    ``x`` instead of fetching HiGHS's copy (a list of N^3 floats).

    Parameters
    ----------
    h : highspy.Highs
        A ready instance.
    fixed : numpy.ndarray, optional
        The 0/1 vector the bounds fix every column to.
    """
    start = time.perf_counter()
    if _refused(h):
        # HiGHS's one thread pool per process was started by another instance with another
        # 'threads' (solve() then run_batch(workers=1), which asks for 1); it is rebuilt at the
        # next run once reset, and the run is tried again
        _highspy().Highs.resetGlobalScheduler(True)
        if _refused(h):
            raise SolveError("highs: run() refused the model before solving (model status Not Set)")
    seconds = time.perf_counter() - start
    model_status = h.getModelStatus()
    status = HIGHS_STATUS.get(model_status.name) or h.modelStatusToString(model_status)
    nodes = max(int(h.getInfoValue("mip_node_count")[1]), 0)
    # HiGHS's primal solution status when it holds a feasible point
    if h.getInfoValue("primal_solution_status")[1] != int(_highspy().SolutionStatus.kSolutionStatusFeasible):
        x = None
    elif fixed is not None:
        x = fixed.astype(np.float64)
    else:
        x = np.array(h.getSolution().col_value, dtype=np.float64)
    if status == "optimal" and x is None:
        status = "no_solution"
    return status, seconds, nodes, x


def run_highs(h: highspy.Highs, model: Model) -> SolveResult:
    """Run an instance from :func:`highs_for` and decode its answer.

    Parameters
    ----------
    h : highspy.Highs
        From :func:`highs_for`.
    model : Model
        The model it holds (for decoding).
    """
    status, seconds, nodes, x = run_once(h)
    if h.getModelStatus() == _highspy().HighsModelStatus.kModelEmpty:
        return _empty_model_result(h, model, seconds)
    if x is None:
        return SolveResult(status, None, None, seconds, nodes, solver="highs")
    objective = float(h.getInfoValue("objective_function_value")[1])
    result = SolveResult(status, x, objective, seconds, nodes, solver="highs")
    frac = np.abs(x - np.rint(x))
    if frac.max(initial=0.0) > INTEGRALITY_TOL:
        result.status = "non_integral"
        result.message = f"x is not integral (largest fractional part {frac.max():.3g})"
        return result
    if status == "optimal":
        result.grid = grid_from_vector(model.full_vector(np.rint(x)), model.convention)
    return result


def _empty_model_result(h: highspy.Highs, model: Model, seconds: float) -> SolveResult:
    """No columns (e.g. a full grid under ``reduce``): feasible iff every row admits activity 0."""
    lp = h.getLp()
    lower, upper = np.asarray(lp.row_lower_), np.asarray(lp.row_upper_)
    if np.any(lower > 0) or np.any(upper < 0):
        return SolveResult("infeasible", None, None, seconds, 0)
    x = np.zeros(0)
    grid = grid_from_vector(model.full_vector(x), model.convention)
    return SolveResult("optimal", x, 0.0, seconds, 0, grid)


def solve(model: Model, *, time_limit: float | None = None, threads: int | None = None,
          options: dict | None = None, presolve: str = DEFAULT_PRESOLVE) -> SolveResult:
    """Solve ``model`` with HiGHS in process and decode the grid.

    Parameters
    ----------
    model : Model
        Any convention and clue encoding (:func:`pipeline.core.build.build_model`).
    time_limit : float, optional
        Seconds for this call, handing the model to HiGHS included (what is left becomes its
        ``time_limit`` option); default no limit.
    threads : int, optional
        HiGHS ``threads`` option; default HiGHS's own choice.
    options : dict, optional
        Further HiGHS options by name (e.g. ``{"mip_rel_gap": 0.0}``).
    presolve : {"singles", "none"}, default "singles"
        ``singles``: naked and hidden singles first, HiGHS gets only the reduced model
        (:mod:`pipeline.core.presolve`) and its answer is mapped back to ``model``'s columns;
        ``none``: HiGHS gets ``model`` as built.

    Returns
    -------
    SolveResult
        ``status`` is ``optimal`` (``grid`` holds the decoded solution), ``infeasible``,
        ``time_limit``, ``interrupted``, ``memory_limit``, ``no_solution`` or ``non_integral``
        (a point whose fractional part exceeds :data:`pipeline.core.decode.INTEGRALITY_TOL`);
        ``x`` is over the solver view's columns.

    Raises
    ------
    SolveError
        HiGHS refused the model (``passModel`` returned an error).

    Examples
    --------
    >>> from pipeline import build_model, parse_puzzle
    >>> result = solve(build_model(parse_puzzle("1..." "..3." ".4.." "...2", box="2x2")))
    >>> result.status, result.grid.tolist()
    ('optimal', [[1, 3, 2, 4], [4, 2, 3, 1], [2, 4, 1, 3], [3, 1, 4, 2]])
    >>> solve(build_model(parse_puzzle(".12.3...4.......", box="2x2"))).status
    'infeasible'
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit   # presolve counts too
    pre = presolve_model(model, presolve)
    if pre.contradiction:
        return singles_contradiction("highs", pre.seconds)
    h = highs_for(pre.model, time_limit=time_limit, threads=threads, options=options)
    if deadline is not None:   # handing HiGHS the model takes seconds at 100x100: they count too
        h.setOptionValue("time_limit", max(deadline - time.perf_counter(), MIN_TIME_LIMIT))
    result = run_highs(h, pre.model)
    if result.status == "infeasible" and "presolve" not in (options or {}):
        # HiGHS 1.16's own presolve called a feasible chaos model infeasible (a 4x4 chaos square
        # with a row given; optimal with its presolve off): "infeasible" is confirmed without it
        h.setOptionValue("presolve", "off")
        if deadline is not None:
            h.setOptionValue("time_limit", max(deadline - time.perf_counter(), MIN_TIME_LIMIT))
        again = run_highs(h, pre.model)
        again.seconds += result.seconds
        if again.status != "infeasible":
            again.message = again.message or "HiGHS's presolve said infeasible; solved again without it"
        result = again
    return mapped_back(result, pre)


def mapped_back(result: SolveResult, pre: Presolved) -> SolveResult:
    """``result`` of the presolved model, as a result of the original model (``x`` over its columns,
    the objective with the fixed variables' costs, its own clue encoding's included; the grid is
    already the full grid).

    Parameters
    ----------
    result : SolveResult
        What the engine returned for ``pre.model``.
    pre : Presolved
        The presolve it was run on.

    Returns
    -------
    SolveResult
    """
    if result.objective is not None:   # the answer's cost in the model as built (its own reduce's clues too)
        result.objective += (pre.objective_offset() if pre.reduced and result.x is not None else 0.0) \
            + pre.original.objective_offset
    if not pre.reduced or result.x is None:
        return result
    result.x = pre.original_x(result.x)
    return result


def drop_rows_from(h: highspy.Highs, first_row: int) -> None:
    """Delete every row from ``first_row`` on: the no-good cuts a count added.

    Parameters
    ----------
    h : highspy.Highs
        The instance.
    first_row : int
        The first row to delete.
    """
    extra = h.getNumRow() - first_row
    if extra:
        h.deleteRows(extra, np.arange(first_row, first_row + extra, dtype=np.int32))


def add_no_good_cut(h: highspy.Highs, x: np.ndarray, grid_columns: np.ndarray | None = None) -> None:
    """Exclude exactly the 0-1 point ``x`` (or, with ``grid_columns``, every point of its grid):
    every other 0-1 point (grid) stays feasible.

    Parameters
    ----------
    h : highspy.Highs
        The instance.
    x : numpy.ndarray
        A 0/1 point over its columns.
    grid_columns : numpy.ndarray of bool, optional
        The columns that make a solution (:attr:`Model.solution_columns`: the cells' and extra
        cells' digits). A rule's other auxiliary columns need not be fixed by them (an
        ``anyof``'s branch indicators: two branches may both hold), so a solution is cut on these
        alone, or it would be counted once per setting of the others.
    """
    on = np.rint(x) == 1
    if grid_columns is not None:
        on &= grid_columns
    ones = np.flatnonzero(on).astype(np.int32)
    h.addRow(-_highspy().kHighsInf, float(ones.size - 1), ones.size, ones, np.ones(ones.size))


def without_presolve(h: highspy.Highs, run: Callable[[], T], restore: str = "choose") -> T:
    """``run()`` once with presolve off, then presolve back to ``restore``.

    HiGHS 1.15.1's presolve mishandles models carrying no-good cuts: it can call a feasible model
    infeasible (undercounts on tdoku puzzles) or postsolve to a point violating a cut ("Solve
    error"). Every non-optimal answer of a counting loop is re-checked through this.

    Parameters
    ----------
    h : highspy.Highs
        The instance.
    run : callable
        Called once, with presolve off.
    restore : str
        The presolve option afterwards.
    """
    h.setOptionValue("presolve", "off")
    try:
        return run()
    finally:
        h.setOptionValue("presolve", restore)


def run_confirmed(h: highspy.Highs, fixed: np.ndarray | None = None,
                  restore: str = "choose") -> tuple[str, float, int, np.ndarray | None]:
    """:func:`run_once`, with an "infeasible" answer confirmed by a second run without presolve.

    HiGHS 1.16's presolve called a feasible 4x4 chaos square infeasible (optimal with its presolve
    off): a solve whose answer is "no solution" pays one more run for it.

    Parameters
    ----------
    h : highspy.Highs
        A ready instance.
    fixed : numpy.ndarray, optional
        As in :func:`run_once`.
    restore : str, default "choose"
        The instance's presolve setting: "off" needs no second run; any other is restored after it.

    Returns
    -------
    tuple
        As :func:`run_once`, the seconds and nodes of both runs added.
    """
    status, seconds, nodes, x = run_once(h, fixed)
    if status == "infeasible" and restore != "off":
        status, more, more_nodes, x = without_presolve(h, lambda: run_once(h, fixed), restore)
        seconds, nodes = seconds + more, nodes + more_nodes
    return status, seconds, nodes, x


# A part of the search that reaches this many solutions is split further: the solve time of a
# re-solve grows with the number of no-good cuts the model carries, so parts stay small.
SPLIT_AT = 16


def split_groups(model: Model, lower: np.ndarray, upper: np.ndarray) -> list[np.ndarray]:
    """Free cells, most candidates first, each as the solver columns of its open candidates.

    A cell is free when the puzzle has no clue there and no column of it has ``lower >= 1``;
    its open candidates are its columns with ``upper > 0``. ``lower``/``upper`` are the
    instance's current column bounds (the model's own, or batch's per-puzzle ones).

    Parameters
    ----------
    model : Model
        Its puzzle and convention.
    lower, upper : numpy.ndarray
        The instance's current column bounds.
    """
    conv = model.convention
    columns = np.asarray(model.columns)
    n_cells = int(np.count_nonzero(columns < conv.n_vars))   # auxiliary columns come last: never split on
    r, c, _ = conv.cell_digit(columns[:n_cells])
    cell = r * conv.cols + c          # canvas cells: a gattai layout's canvas is not N x N
    decided = np.zeros(conv.rows * conv.cols, dtype=bool)
    decided[cell[np.asarray(lower)[:n_cells] >= 1]] = True
    decided |= model.puzzle.grid.ravel() != 0
    cols = np.flatnonzero(~decided[cell] & (np.asarray(upper)[:n_cells] > 0))
    cols = cols[np.argsort(cell[cols], kind="stable")]
    _, starts, counts = np.unique(cell[cols], return_index=True, return_counts=True)
    groups = np.split(cols, starts[1:])
    return [groups[k] for k in np.argsort(-counts, kind="stable")]


@dataclass
class CutCount:
    """What :func:`count_with_cuts` found: how many 0-1 points, the first ``keep`` of them
    (solver columns), why it stopped (``complete``, ``limit``, ``non_integral`` or the HiGHS
    status that interrupted it), and the seconds and branch-and-bound nodes of its runs."""

    xs: list[np.ndarray]
    status: str
    seconds: float = 0.0
    nodes: int = 0
    count: int = 0


def count_with_cuts(h: highspy.Highs, limit: int, *, first: np.ndarray | None = None,
                    split_on: tuple[Model, np.ndarray, np.ndarray] | None = None,
                    deadline: float | None = None, presolve: str = "choose",
                    keep: int | None = None) -> CutCount:
    """The one HiGHS counting loop (``count``, ``solve --unique`` and batch's ``count``).

    Each solution found is excluded by a no-good cut. A part of the search that reaches
    :data:`SPLIT_AT` solutions drops its cuts and is split on the free cell with most
    candidates (bound changes on the same instance: fix each candidate in turn, then restore
    the bounds it had); parts are disjoint, so every solution is counted once. Every
    non-optimal answer is re-checked once without presolve (:func:`without_presolve`). On
    return the instance holds exactly the rows and bounds it had on entry.

    Parameters
    ----------
    h : highspy.Highs
        An instance from :func:`highs_for` with its current bounds (any number of rows).
    limit : int
        Stop once this many solutions are found.
    first : ndarray, optional
        A solution already found on these bounds (batch's first run): counted, then cut.
    split_on : (Model, ndarray, ndarray), optional
        The instance's model and its current column bounds ``(lower, upper)``: the split
        groups come from them (:func:`split_groups`, at the first split only) and a split
        column gets its bounds back from them. Without it the search is never split, and a point is cut whole (auxiliary columns too).
    deadline : float, optional
        ``time.perf_counter()`` value after which runs get :data:`MIN_TIME_LIMIT` seconds.
    presolve : str, default "choose"
        The instance's presolve setting, restored after a re-check without presolve.
    keep : int, optional
        Keep the first ``keep`` points only (default: all); the count covers every one (a point
        is a full column vector: 125 KB at 25x25, so a large ``limit`` must not hold them all).

    Returns
    -------
    CutCount
    """
    out = CutCount([], "complete")
    groups: list[np.ndarray] | None = None   # made at the first split
    # a grid is one solution whatever its auxiliary columns hold: cut on the cell columns
    grid_columns = None if split_on is None or not split_on[0].n_aux else split_on[0].solution_columns

    def run() -> tuple[str, np.ndarray | None]:
        if deadline is not None:
            h.setOptionValue("time_limit", max(deadline - time.perf_counter(), MIN_TIME_LIMIT))
        status, seconds, nodes, x = run_once(h)
        left = None if deadline is None else deadline - time.perf_counter()
        # the re-check gets what is left of the deadline, none once it passed: it ran with the
        # whole time limit again (an API count of a 5 s limit took 10 s)
        if status != "optimal":
            if left is not None and left <= MIN_TIME_LIMIT:
                status = "time_limit"   # not re-checked: an infeasible answer stays unconfirmed
            else:
                if left is not None:
                    h.setOptionValue("time_limit", left)
                status, more, more_nodes, x = without_presolve(h, lambda: run_once(h), presolve)
                seconds, nodes = seconds + more, nodes + more_nodes
        out.seconds += seconds
        out.nodes += nodes
        if status == "optimal" and x is not None and np.abs(x - np.rint(x)).max(initial=0.0) > INTEGRALITY_TOL:
            status = "non_integral"
        return status, x

    def explore(depth: int, x: np.ndarray | None) -> str:
        nonlocal groups
        first_row = h.getNumRow()
        found: list[np.ndarray] = []   # the points of this part that are kept
        n_found = 0
        try:
            while True:
                if out.count + n_found >= limit:
                    return "limit"
                if x is None:
                    status, x = run()
                    if status == "infeasible":
                        return "complete"
                    if status != "optimal" or x is None:   # optimal always carries x
                        return status
                n_found += 1
                if keep is None or len(out.xs) + len(found) < keep:
                    found.append(x)
                add_no_good_cut(h, x, grid_columns)
                x = None
                if n_found >= SPLIT_AT and split_on is not None:
                    if groups is None:
                        groups = split_groups(*split_on)
                    if depth < len(groups):
                        drop_rows_from(h, first_row)  # its solutions are recounted inside the parts
                        found.clear()
                        n_found = 0
                        return split(depth)
        finally:
            out.xs.extend(found)
            out.count += n_found
            drop_rows_from(h, first_row)

    def split(depth: int) -> str:
        assert split_on is not None and groups is not None   # explore splits only with both
        _, lower, upper = split_on   # each group is one cell: outer splits left its bounds alone
        for col in groups[depth]:
            h.changeColBounds(int(col), 1.0, 1.0)
            try:
                status = explore(depth + 1, None)
            finally:
                h.changeColBounds(int(col), float(lower[col]), float(upper[col]))
            if status != "complete":
                return status
        return "complete"

    out.status = explore(0, first)
    return out


def count_solutions(model: Model, limit: int = 2, *, time_limit: float | None = None,
                    threads: int | None = None, presolve: str = DEFAULT_PRESOLVE,
                    keep: int | None = None) -> CountResult:
    """Count solutions up to ``limit`` with no-good cuts added to one HiGHS model.

    Each solution found is excluded by a no-good cut. A re-solve gets slower with every cut
    the model carries, so a part of the search that reaches :data:`SPLIT_AT` solutions drops
    its cuts and is split on the free cell with most candidates (bound changes on the same
    instance: fix each candidate in turn); parts are disjoint, so every solution is counted
    once.

    Parameters
    ----------
    model : Model
        Any convention and clue encoding.
    limit : int, default 2
        Stop once this many solutions are found (2 answers "is it unique?").
    time_limit : float, optional
        Seconds for the whole count; default no limit.
    threads : int, optional
        HiGHS ``threads`` option.
    presolve : {"singles", "none"}, default "singles"
        Count on the model reduced by naked and hidden singles (the same solutions: singles hold
        in every one) or on ``model`` as built.
    keep : int, optional
        Decode and keep the grids of the first ``keep`` solutions only (default: all, up to
        ``limit``); ``count`` covers every solution found.

    Returns
    -------
    CountResult
        ``count``, the decoded ``grids`` and ``status``: ``complete`` (the count is exact),
        ``limit`` (stopped at ``limit``) or the solver status that interrupted it (e.g.
        ``time_limit``). It also unpacks as the tuple ``(count, grids, status)``.

    Raises
    ------
    SolveError
        ``limit`` below 1, or HiGHS refused the model.

    Examples
    --------
    >>> from pipeline import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle("12.." "34.." "21.." "43..", box="2x2"))
    >>> count, grids, status = count_solutions(model, limit=10)
    >>> count, status
    (4, 'complete')
    >>> count_solutions(model, limit=2).status
    'limit'
    """
    if limit < 1:
        raise SolveError(f"count: --limit must be at least 1, found {limit}")
    start = time.perf_counter()
    pre = presolve_model(model, presolve)
    if pre.contradiction:
        return CountResult(0, [], "complete", time.perf_counter() - start)
    model = pre.model   # the grids are full grids either way
    h = highs_for(model, threads=threads)
    if model.n_cols == 0:   # nothing to cut: the empty model has one point or none
        result = run_highs(h, model)
        grids = [result.grid] if result.status == "optimal" and result.grid is not None else []
        status = result.status if result.status not in ("optimal", "infeasible") else \
            "limit" if len(grids) >= limit else "complete"   # as the loop says at its limit
        return CountResult(len(grids), grids[:keep], status, time.perf_counter() - start)
    deadline = None if time_limit is None else start + time_limit
    run = count_with_cuts(h, limit, split_on=(model, model.lb, model.ub), deadline=deadline, keep=keep)
    grids = [grid_from_vector(model.full_vector(np.rint(x)), model.convention) for x in run.xs]
    return CountResult(run.count, grids, run.status, time.perf_counter() - start)


register_solver(Solver(
    name="highs", description="HiGHS in process (highspy): MIP on the solver view; counts with no-good cuts",
    solve=solve, count=count_solutions, statuses=dict(HIGHS_STATUS),
    timed_call="Highs.run()", rule_rows=True, optimises=True,
    # HiGHS's time_limit is a double (any finite limit); thousands of threads make it abort
    bounds={"time_limit": time_limit_bound(), "threads": threads_bound("thousands make HiGHS abort")}))
