"""The solver registry: one :class:`Solver` entry per engine, looked up by name.

An entry says what the engine reads (the in-process :class:`~pipeline.core.build.Model`, or which
exported file formats), whether it can run here (``available()`` returns ``None`` or the
reason it cannot, with the install hint), how it solves with a time limit, how it counts
solutions (if it can), and which native solution file it leaves. The CLI's ``--solver``
choices, the README's solver list and the interop tests' parametrisation all come from
:data:`SOLVERS`.

What callers used to special-case by name is a field of the entry (data, so that a caller can
choose an engine by what it can do): :attr:`Solver.counts` (has ``count``),
:attr:`Solver.proves_unique` (``solve(..., check_unique=True)`` tells whether the answer is the
only one), :attr:`Solver.batch_kernel` (batch's per-shape function; the batch layer attaches its
kernels with :func:`register_batch_kernel`) and :attr:`Solver.timed_call` (what a result's
``seconds`` measure).

Adding a solver is one module that builds a :class:`Solver` and calls :func:`register_solver`,
plus its import in ``pipeline/solvers/__init__.py`` and its tests.
"""
from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

import numpy as np

from pipeline.core.errors import SolveError, clip
from pipeline.core.registry import LazyRegistry
from pipeline.core.puzzle import default_box, format_grid
from pipeline.core.options import KEEP_BOUND, Bound, declared_options, pick, refusing_unknown
from pipeline.core.rulerows import rule_rows_outlast
from pipeline.core.stops import DeadlineReached

#: The pipeline's status words, shared by every engine.
STATUSES = ("optimal", "infeasible", "time_limit", "interrupted", "memory_limit", "no_solution",
            "non_integral", "error")

class GiveUp(Protocol):
    """A search's own budget, asked between two slices: ``give_up(solutions found, seconds spent,
    progress)``, ``progress`` the share of its tree searched so far as the engine estimates it
    (0 to 1; None from an engine that keeps no estimate). True ends the search as its time limit
    would (``auto``'s handoff: a search stuck, or one that will not finish in its budget)."""

    def __call__(self, found: int, spent: float, progress: float | None = None) -> bool:
        """True: stop here."""


def without_give_up(count_or_give_up: Callable[..., CountResult]) -> Callable[..., CountResult]:
    """An engine's registered ``count``: its ``count_or_give_up`` without the ``give_up`` hook
    (:attr:`Solver.count_or_give_up`; the options a user may pass are read from this signature).

    Parameters
    ----------
    count_or_give_up : callable
        ``count_or_give_up(model, limit, *, time_limit, keep, give_up)``.

    Returns
    -------
    callable
        ``count(model, limit=2, *, time_limit=None, keep=None)``.
    """
    def count(model: Any, limit: int = 2, *, time_limit: float | None = None, keep: int | None = None) -> CountResult:
        return count_or_give_up(model, limit, time_limit=time_limit, keep=keep)
    count.__doc__ = f"{count_or_give_up.__module__}.count_or_give_up without ``give_up``."
    return count


def solve_without_give_up(solve_or_give_up: Callable[..., SolveResult]) -> Callable[..., SolveResult]:
    """An engine's registered ``solve``: its ``solve_or_give_up`` without the ``give_up`` hook
    (:attr:`Solver.solve_or_give_up`), as :func:`without_give_up` makes its ``count``.

    Parameters
    ----------
    solve_or_give_up : callable
        ``solve_or_give_up(model, *, time_limit, check_unique, give_up)``.

    Returns
    -------
    callable
        ``solve(model, *, time_limit=None, check_unique=False)``.
    """
    def solve(model: Any, *, time_limit: float | None = None, check_unique: bool = False) -> SolveResult:
        return solve_or_give_up(model, time_limit=time_limit, check_unique=check_unique)
    solve.__doc__ = f"{solve_or_give_up.__module__}.solve_or_give_up without ``give_up``."
    solve.__module__ = solve_or_give_up.__module__   # the engine's own (the registry's table names it)
    return solve


def _same(a: Any, b: Any) -> bool:
    """Equality of result fields that may hold arrays or lists of them (``==`` of two arrays is
    an array, whose truth raised ValueError)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and bool(np.array_equal(a, b)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


@dataclass(eq=False)
class SolveResult:
    """Outcome of one solve. ``x`` is over the solver view's columns; ``grid`` when solved.

    ``status`` is one of :data:`STATUSES` (``optimal`` means a verified-decodable solution was
    found, for feasibility engines too). ``seconds`` is the time in the engines' calls for this
    answer, the uniqueness proof included when one was asked for (``check_unique``), and the
    first engine's share when ``auto`` handed the search on (:attr:`proof_seconds` says how much
    of it the proof took).
    """

    status: str
    x: np.ndarray | None
    objective: float | None
    seconds: float
    nodes: int
    grid: np.ndarray | None = None
    message: str = ""
    solver: str = ""
    #: Whether the solution is the only one, when the engine checked it while solving
    #: (``check_unique``); None when it did not or its check stopped on the time limit.
    unique: bool | None = None
    #: Where an engine that works on files kept them (``workdir`` itself, or a fresh
    #: subdirectory when ``workdir`` already held files); None when nothing was kept.
    workdir: Path | None = None
    #: Of ``seconds``, what a uniqueness proof run as a step of its own took (the SAT engine's
    #: count to 2 on the solver that found the answer, another engine's count); None when there
    #: was none or the proof was the search itself (``dfs`` counting to 2).
    proof_seconds: float | None = None

    def __eq__(self, other: object) -> bool:
        """Field by field, arrays by their values."""
        if not isinstance(other, SolveResult):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    __hash__ = None   # type: ignore[assignment]   # mutable, compared by value: as the dataclass was

    @property
    def solved(self) -> bool:
        """True when the status is ``optimal`` and a decoded grid is present."""
        return self.status == "optimal" and self.grid is not None

    def __repr__(self) -> str:
        """Status, engine, seconds and uniqueness on one line, then the grid (never the vector)."""
        unique = "" if self.unique is None else f", unique: {self.unique}"
        head = f"<SolveResult {self.status} by {self.solver or '?'} in {self.seconds:.3f} s{unique}>"
        return head if self.grid is None else f"{head}\n{_grid_text(self.grid)}"


@dataclass(eq=False)
class CountResult:
    """Solutions counted up to a limit: ``status`` is ``complete`` (exact), ``limit`` (stopped at
    the limit) or the status that interrupted the count (e.g. ``time_limit``)."""

    count: int
    grids: list[np.ndarray]
    status: str
    seconds: float = 0.0
    message: str = ""   # why it stopped, when the status alone does not say (e.g. before starting)
    solver: str = ""    # the engine that counted, when not the one asked (auto's handoff)

    def __repr__(self) -> str:
        """The count and status on one line (with the number of grids kept), never the grids."""
        return (f"<CountResult {self.count} ({self.status}) in {self.seconds:.3f} s, {len(self.grids)} grid"
                f"{'' if len(self.grids) == 1 else 's'} kept>")

    # it also behaves as the ``(count, grids, status)`` tuple count_solutions has always returned
    def as_tuple(self) -> tuple:
        """``(count, grids, status)``."""
        return self.count, self.grids, self.status

    def __iter__(self):
        return iter(self.as_tuple())

    def __getitem__(self, k):
        return self.as_tuple()[k]

    def __len__(self) -> int:
        return 3

    def __eq__(self, other) -> bool:
        if isinstance(other, CountResult):
            other = other.as_tuple()
        # element by element: a tuple holding arrays raised "the truth value of an array ..."
        return isinstance(other, tuple) and len(other) == 3 and _same(list(self.as_tuple()), list(other))

    @property
    def unique(self) -> bool | None:
        """What a count to 2 says: True (one solution), False (two or more), None when it stopped
        before it could tell (e.g. on the time limit)."""
        return self.count == 1 if self.status in ("complete", "limit") else None

    def whole(self, what: str) -> CountResult:
        """This count, when it ran to its end or its limit. One cut short is a lower bound (0 does
        not mean no solution, 1 not unique), so a tool that reads the count as the answer (``rate``,
        ``explain``) stops instead: on the time limit as the command's ``--time-limit`` stops it
        (:class:`~pipeline.core.stops.DeadlineReached`, its one-line answer), otherwise with a
        :class:`~pipeline.core.errors.SolveError` naming ``what`` and the status.

        Parameters
        ----------
        what : str
            The tool, for the message (``rate``).

        Returns
        -------
        CountResult
            ``self``.
        """
        if self.status in ("complete", "limit"):
            return self
        if self.status == "time_limit":
            raise DeadlineReached(None)
        raise SolveError(f"{what}: the count stopped ({self.status}) before it could tell"
                         + (f": {self.message}" if self.message else ""))


def _grid_text(grid: np.ndarray) -> str:
    """A solved grid as text, with box lines when its side has the default box shape."""
    n = grid.shape[0]
    boxes = default_box(n) if grid.shape == (n, n) and n > 3 else (None, None)
    return format_grid(grid, *boxes)


def singles_contradiction(solver: str, seconds: float) -> SolveResult:
    """The answer of an engine whose presolve (naked/hidden singles) proved there is no solution.

    Parameters
    ----------
    solver : str
        The engine's name.
    seconds : float
        Time spent up to the proof.
    """
    return SolveResult("infeasible", None, None, seconds, 0, solver=solver,
                       message="naked/hidden singles found a contradiction")


def time_left(time_limit: float | None, started: float) -> float | None:
    """What is left of ``time_limit`` seconds counted from ``started`` (a ``time.perf_counter()``
    value), never below 0; None without a limit: the one measure an engine's set-up, search and
    proof share, so that together they stay within the caller's limit.

    Parameters
    ----------
    time_limit : float or None
        The caller's seconds.
    started : float
        When they started.

    Returns
    -------
    float or None
    """
    return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - started))


def solve_then_count(engine: "Solver", model: Any, time_limit: float | None, check_unique: bool,
                     counter: Callable[..., CountResult] | None, **options: Any) -> SolveResult:
    """``engine``'s answer, and with ``check_unique`` whether it is the only one: proved by
    ``engine`` while solving when it can, else counted to 2 by ``counter`` within what is left of
    ``time_limit`` (``unique`` stays None without a counter or time left).

    Parameters
    ----------
    engine : Solver
        The engine that solves.
    model : Model
        The model.
    time_limit : float or None
        Seconds for the whole call.
    check_unique : bool
        Also fill ``SolveResult.unique``.
    counter : callable or None
        A registry entry's ``count`` (``counter(model, 2, time_limit=..., keep=0)``).
    **options
        ``engine``'s own solve options.

    Returns
    -------
    SolveResult
        Its ``solver`` names the engine that solved; its ``seconds`` include ``counter``'s count
        (also in ``proof_seconds``).
    """
    started = time.perf_counter()
    proves = check_unique and engine.proves_unique
    result = engine.solve(model, time_limit=time_limit, **({"check_unique": True} if proves else {}), **options)
    result.solver = result.solver or engine.name
    if check_unique and not proves and result.grid is not None:
        left = time_left(time_limit, started)
        # engines refuse a limit of 0 (CP-SAT raised): no time left means uniqueness unknown
        if counter is not None and (left is None or left > 0):
            proof_started = time.perf_counter()
            result.unique = counter(model, 2, time_limit=left, keep=0).unique
            result.proof_seconds = time.perf_counter() - proof_started
            result.seconds += result.proof_seconds   # the answer to the question asked: with its proof
        else:
            result.unique = None
    return result


def _always_available() -> str | None:
    return None


@dataclass(frozen=True)
class Solver:
    """One engine.

    ``solve(model, *, time_limit=None, ...) -> SolveResult``;
    ``count(model, limit, *, time_limit=None, ...) -> CountResult`` when it can count.
    ``reads`` is ``()`` for an in-process engine, else the format names it is run on.

    The options ``solve`` and ``count`` take are their keyword parameters (no ``**kwargs``);
    the entry records them (:attr:`options`, :attr:`count_options`) and its ``solve``/``count``
    refuse any other with a one-line :class:`SolveError` naming the option and the engine.
    :attr:`bounds` says which values of its numeric options the engine takes (the one place per
    engine): a larger ``time_limit`` is clamped to the engine's maximum, a ``threads`` above
    :data:`pipeline.core.options.MAX_THREADS` refused, NaN or a negative refused, before the call.
    """

    name: str
    description: str
    solve: Callable[..., SolveResult]
    count: Callable[..., CountResult] | None = None
    available: Callable[[], str | None] = _always_available
    reads: tuple[str, ...] = ()
    solution_format: str | None = None
    install_hint: str = ""
    statuses: Mapping[str, str] = field(default_factory=dict)
    #: ``solve(model, check_unique=True)`` also says whether the solution is the only one
    #: (``SolveResult.unique``), proved on the solver that found it: cheaper than a second count.
    proves_unique: bool = False
    #: batch's function for the puzzles of one shape, ``kernel(shape, options, rows, record)``
    #: (:mod:`pipeline.batch.worker`); None: batch does not offer this engine. The batch layer
    #: attaches its kernels (:func:`register_batch_kernel`).
    batch_kernel: Callable[..., None] | None = None
    #: ``batch_warm()`` loads what the kernel needs before a forked pool starts, so the workers
    #: inherit it rather than each loading it (dfs: its compiled code). None: nothing to load.
    batch_warm: Callable[[], None] | None = None
    #: What a result's ``seconds`` measure, in words (batch's summary: "outside Highs.run()").
    timed_call: str = ""
    #: The engine solves models with rows beyond units (``Model.has_rules``: killer cage sums,
    #: inequality rows) and gattai layouts (samurai). An engine without it refuses such a model
    #: with one line rather than solving it without its rules.
    rule_rows: bool = False
    #: Rule kinds whose rows the engine never builds (a handler of its own takes their place): left
    #: out of the estimate that answers ``time_limit`` at once when building the rows would outlast it.
    rows_not_built: frozenset[str] = frozenset()
    #: The engine solves models with more values than the grid's side (``V > N``: each cell one
    #: of ``V`` values, each unit holding a value at most once; docs/conventions.md). An engine
    #: that assumes every unit holds every one of ``N`` digits sets it False: it refuses such a
    #: model with one line, and ``--solver auto`` passes it by.
    wide_values: bool = True
    #: ``solve`` minimises the model's objective (``Model.objective``); the others only find a
    #: feasible point, so their ``solve`` refuses a model with one (``--solver auto`` picks an
    #: engine with it for such a model; ``count`` ignores the costs).
    optimises: bool = False
    #: The values the engine takes for its numeric options (``time_limit``, ``threads``): option
    #: name -> :class:`~pipeline.core.options.Bound` (clamp to the engine's maximum, or refuse).
    bounds: Mapping[str, Bound] = field(default_factory=dict)
    #: ``model_problem(model)``: why this engine cannot take ``model`` in this environment (a
    #: package its encoding of the model's rows needs is missing), or None. Checked against the
    #: model's rows and the installed packages by :meth:`problem_with` (``--solver auto`` skips
    #: such an engine; naming it is one error line saying why).
    model_problem: Callable[[Any], str | None] | None = None
    #: ``start_problem()``: why starting the engine would cost seconds on every run here (a
    #: compiled kernel that is not cached and that the cache cannot keep), or None. ``--solver
    #: auto`` passes such an engine by when another one can answer; naming it still runs it.
    start_problem: Callable[[], str | None] | None = None
    #: The engine answers only models its ``model_problem`` accepts (a constructive fill): ``auto``
    #: never picks it without a model to check.
    needs_model: bool = False
    #: ``count`` with a ``give_up`` keyword (:class:`GiveUp`) asked between search slices: auto's
    #: handoff hands a count stuck in search on without stopping one that lists grids fast. Not
    #: a user option (so not in :attr:`count_options`); the handoff calls it with checked options.
    count_or_give_up: Callable[..., CountResult] | None = None
    #: ``solve`` with the same ``give_up`` keyword, for the handoff's ``solve`` (not a user option either).
    solve_or_give_up: Callable[..., SolveResult] | None = None
    #: The option names ``solve`` declares (read from its signature).
    options: frozenset[str] = field(init=False, default=frozenset())
    #: The option names ``count`` declares (besides ``limit``).
    count_options: frozenset[str] = field(init=False, default=frozenset())

    def __post_init__(self) -> None:
        set_ = object.__setattr__   # frozen: the declared options and the checking calls, once
        set_(self, "options", declared_options(self.solve, 1))
        set_(self, "solve", self._checked_solve(refusing_unknown(
            self.solve, self.options, f"solver {self.name}: solve", SolveError, self._bounds_of(self.options))))
        if self.count is not None:
            set_(self, "count_options", declared_options(self.count, 2))
            set_(self, "count", refusing_unknown(self.count, self.count_options, f"solver {self.name}: count",
                                                 SolveError, self._bounds_of(self.count_options)))
            if not self.rule_rows:
                set_(self, "count", _refusing_rules(self.count, self.name))
            else:
                set_(self, "count", _rows_within_time_limit(self.count, lambda message: CountResult(
                    0, [], "time_limit", 0.0, message=message), self.rows_not_built))
            if not self.wide_values:
                set_(self, "count", _refusing_wide_values(self.count, self.name))
        if self.solve_or_give_up is not None:   # the same refusals as solve's, for the same models
            set_(self, "solve_or_give_up", self._checked_solve(self.solve_or_give_up))
        if self.count_or_give_up is not None:   # the same refusals as count's, for the same models
            if not self.rule_rows:
                set_(self, "count_or_give_up", _refusing_rules(self.count_or_give_up, self.name))
            if not self.wide_values:
                set_(self, "count_or_give_up", _refusing_wide_values(self.count_or_give_up, self.name))
        if self.proves_unique and "check_unique" not in self.options:
            raise TypeError(f"solver {self.name}: proves_unique, but its solve takes no check_unique option")
        if set(self.bounds) - self.options - self.count_options:
            raise TypeError(f"solver {self.name}: bounds for options it does not take: "
                            f"{', '.join(sorted(set(self.bounds) - self.options - self.count_options))}")

    def _checked_solve(self, solve: Callable[..., SolveResult]) -> Callable[..., SolveResult]:
        """``solve`` with the refusals this engine's models need (rule rows, wide values, an
        objective) and a ``time_limit`` answer when building the rule rows would outlast the limit."""
        if not self.rule_rows:
            solve = _refusing_rules(solve, self.name)
        else:
            solve = _rows_within_time_limit(solve, lambda message: SolveResult(
                "time_limit", None, None, 0.0, 0, solver=self.name, message=message), self.rows_not_built)
        if not self.wide_values:
            solve = _refusing_wide_values(solve, self.name)
        if not self.optimises:
            solve = _refusing_objective(solve, self.name)
        return solve

    def _bounds_of(self, declared: frozenset[str]) -> dict[str, Bound]:
        """The bounds of the ``declared`` options: the engine's own, over the ones every engine
        shares (``keep``)."""
        shared = {"keep": KEEP_BOUND}
        return {name: bound for name, bound in {**shared, **self.bounds}.items() if name in declared}

    def pick_options(self, options: Mapping[str, Any], what: str = "solve") -> dict[str, Any]:
        """The entries of ``options`` this engine's ``solve`` (or ``count``) declares: the one
        place a caller holding every engine's options (the CLI) narrows them to this engine.

        Parameters
        ----------
        options : mapping
            Option names and values, e.g. every engine option of the command line.
        what : {"solve", "count"}
            Whose declared options.

        Returns
        -------
        dict
        """
        return pick(options, self.count_options if what == "count" else self.options)

    def problem_with(self, model: Any = None) -> str | None:
        """Why this engine cannot solve ``model`` here (its package missing, or a package the
        model's rows need), or None when it can.

        Parameters
        ----------
        model : Model, optional
            The model it would be given; None checks the engine's own packages only.

        Returns
        -------
        str or None
        """
        problem = self.available()
        if problem or model is None:
            return problem
        wide = None if self.wide_values else wide_values_problem(model, self.name)
        if wide or self.model_problem is None:
            return wide
        return self.model_problem(model)

    @property
    def in_process(self) -> bool:
        """True when the engine takes the Model directly (it reads no exported file)."""
        return not self.reads

    @property
    def counts(self) -> bool:
        """True when the engine can count solutions (it has ``count``)."""
        return self.count is not None


def model_needs_rule_rows(model: Any) -> str | None:
    """What in ``model`` needs an engine with :attr:`Solver.rule_rows` (None: nothing).

    Parameters
    ----------
    model : Model
        The model an engine is asked to solve.

    Returns
    -------
    str or None
        ``"rules beyond units"`` or ``"a samurai layout"`` (the layout's name), else None.
    """
    puzzle = getattr(model, "puzzle", None)
    if getattr(model, "has_rules", False):
        return "rules beyond units"
    if puzzle is not None and getattr(puzzle, "layout", None) is not None:
        return f"a {puzzle.layout.name} layout"
    return None


def wide_values_problem(model: Any, name: str) -> str | None:
    """Why an engine without :attr:`Solver.wide_values` cannot take ``model`` (None: it can).

    Parameters
    ----------
    model : Model
        The model an engine is asked to solve.
    name : str
        The engine, for the message.

    Returns
    -------
    str or None
    """
    puzzle = getattr(model, "puzzle", None)
    v, n = getattr(puzzle, "n_values", 0), getattr(puzzle, "n", 0)
    if puzzle is None or not getattr(puzzle, "units_at_most", v > n):   # V > N, or a rectangular grid
        return None
    able = ", ".join(s.name for s in SOLVERS.values() if s.wide_values and s.rule_rows)
    return (f"this puzzle has {v} values on a {puzzle.rows}x{puzzle.cols} grid, and {name} assumes each unit "
            f"holds every one of {n} digits (engines that take it: {able})")


def _refusing_wide_values(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``function`` that first refuses a model with more values than the side."""

    @functools.wraps(function)
    def checked(model: Any, *args: Any, **kwargs: Any) -> Any:
        problem = wide_values_problem(model, name)
        if problem:
            raise SolveError(f"solver {name}: {problem}")
        return function(model, *args, **kwargs)

    return checked


def _refusing_objective(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``function`` (an engine's ``solve`` that finds a feasible point only) that first refuses
    a model with an objective: its answer would not be the minimum it is asked for. Counting
    ignores the costs, so ``count`` is left as it is."""

    @functools.wraps(function)
    def checked(model: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(model, "has_objective", False):
            able = ", ".join(s.name for s in SOLVERS.values() if s.optimises)
            raise SolveError(f"solver {name}: this model has an objective, and {name} finds a feasible grid without "
                             f"minimising it (engines that minimise it: {able})")
        return function(model, *args, **kwargs)

    return checked


def _refusing_rules(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``function`` that first refuses a model whose rows it would not solve right."""

    @functools.wraps(function)
    def checked(model: Any, *args: Any, **kwargs: Any) -> Any:
        needs = model_needs_rule_rows(model)
        if needs:
            # engines that take rule rows and this model (dfsrules refuses auxiliary columns)
            able = ", ".join(s.name for s in SOLVERS.values()
                             if s.rule_rows and (s.model_problem is None or s.model_problem(model) is None))
            raise SolveError(f"solver {name}: this puzzle has {needs}, which {name} does not handle yet "
                             f"(engines that do: {able})")
        return function(model, *args, **kwargs)

    return checked


def _rows_within_time_limit(function: Callable[..., Any], stopped: Callable[[str], Any],
                            skip: frozenset[str] = frozenset()) -> Callable[..., Any]:
    """``function`` (an engine that takes rule rows) that first answers ``stopped(why)``, a
    ``time_limit`` result, when building the model's rule rows would outlast ``time_limit``
    (:func:`~pipeline.core.rulerows.rule_rows_outlast`: every such engine builds them first; a
    200x200 non-consecutive's took minutes and 12 GB before an 8 s count could start); rules of a
    kind in ``skip`` (:attr:`Solver.rows_not_built`) left out of the estimate."""

    @functools.wraps(function)
    def checked(model: Any, *args: Any, **kwargs: Any) -> Any:
        too_long = rule_rows_outlast(model, kwargs.get("time_limit"), skip)
        return stopped(too_long) if too_long else function(model, *args, **kwargs)

    return checked


#: Every built-in engine in registry order (the CLI lists them in it) and the module that registers
#: it: ``(name, module under pipeline.solvers)``. A module is imported when one of its engines is
#: first looked up, so a process that solves with one engine does not import the others (highs,
#: the SAT engine, the external runners: 30-40 ms; issue 34). A test holds it to the modules.
BUILTIN_SOLVERS: tuple[tuple[str, str], ...] = (
    ("highs", "highs"), ("scip", "external"), ("cbc", "external"), ("glpk", "external"), ("octave", "external"),
    ("sat", "sat"), ("minisat", "sat_external"), ("picosat", "sat_external"), ("cadical", "sat_external"),
    ("cryptominisat", "sat_external"), ("clasp", "sat_external"), ("minisat+", "sat_external"),
    ("sat4j", "sat_external"), ("cpsat", "cpsat"), ("dfs", "dfs"), ("pattern", "pattern"), ("dfsrules", "dfsrules"))

#: name -> :class:`Solver`, in registry order (:class:`~pipeline.core.registry.LazyRegistry`:
#: iterating gives the names without importing an engine).
SOLVERS: LazyRegistry[Solver] = LazyRegistry((name, f"pipeline.solvers.{module}", None)
                                             for name, module in BUILTIN_SOLVERS)

#: Entries :func:`get_solver` finds that are not engines of their own, so not in :data:`SOLVERS`
#: (the CLI's engine choices, batch's, the interop tests' parametrisation): ``auto``, which picks
#: an engine per model and question (:mod:`pipeline.solvers.auto`).
PICKERS: LazyRegistry[Solver] = LazyRegistry([("auto", "pipeline.solvers.auto", None)])


def register_solver(solver: Solver) -> Solver:
    """Add ``solver`` to the registry under its name (a later entry of the same name replaces it)."""
    SOLVERS[solver.name] = solver
    return solver


def get_solver(name: str, *, need: str | None = None, check_available: bool = True) -> Solver:
    """The registered solver ``name``, checked before use.

    Parameters
    ----------
    name : str
        A name of :data:`SOLVERS` (``solver_names()``), or ``"auto"``: an entry whose ``solve`` and
        ``count`` pick the engine per model, as ``--solver auto`` does.
    need : {"solve", "count"}, optional
        Refuse a solver that lacks this function (e.g. ``"count"``).
    check_available : bool, default True
        Call its ``available()`` and refuse it with the reason (and install hint) when absent.

    Returns
    -------
    Solver

    Raises
    ------
    SolveError
        Unknown name (the message lists the known ones), not available here, or lacking ``need``.

    Examples
    --------
    >>> get_solver("highs").in_process
    True
    >>> get_solver("nosuch")
    Traceback (most recent call last):
        ...
    pipeline.core.errors.SolveError: solver: unknown solver 'nosuch'; expected one of auto, highs, ...
    """
    if not isinstance(name, str):   # a list or dict is unhashable: a TypeError from the lookup
        raise SolveError(f"solver: must be a solver's name, found {type(name).__name__} {clip(repr(name), 40)}")
    if need not in (None, "solve", "count"):
        raise SolveError(f"solver {name}: need must be 'solve' or 'count', found {clip(repr(need), 40)}")
    solver = SOLVERS.get(name) or PICKERS.get(name)
    if solver is None:
        raise SolveError(f"solver: unknown solver {name!r}; expected one of {', '.join([*PICKERS, *SOLVERS])}")
    if check_available:
        reason = solver.available()
        if reason:
            raise SolveError(f"solver {name}: {reason}")
    if need and getattr(solver, need) is None:
        raise SolveError(f"solver {name}: cannot {need} (solvers that can: "
                         f"{', '.join(s.name for s in SOLVERS.values() if getattr(s, need) is not None)})")
    return solver


def solver_names() -> list[str]:
    """Names of the registered solvers in registration order (the CLI's ``--solver`` choices)."""
    return list(SOLVERS)


def register_batch_kernel(name: str, kernel: Callable[..., None], warm: Callable[[], None] | None = None) -> Solver:
    """Attach batch's per-shape function to the registered solver ``name`` (its entry is replaced
    by a copy with :attr:`Solver.batch_kernel` and :attr:`Solver.batch_warm` set).

    Parameters
    ----------
    name : str
        A registered solver.
    kernel : callable
        ``kernel(shape, options, rows, record)``: solve the chunk's puzzles of one shape.
    warm : callable, optional
        ``warm()``: load what the kernel needs once, before a forked pool's workers start.

    Returns
    -------
    Solver
        The new entry.

    Raises
    ------
    SolveError
        ``name`` is not registered.
    """
    solver = dataclasses.replace(get_solver(name, check_available=False), batch_kernel=kernel,
                                 batch_warm=warm)
    SOLVERS[name] = solver
    return solver


def batch_solver_names() -> list[str]:
    """Names of the solvers batch offers (those with a :attr:`Solver.batch_kernel`), in registry
    order: the ``batch --solver`` choices. The kernels live a layer up and register when
    :mod:`pipeline.batch` is imported: before that the list is empty.

    Returns
    -------
    list of str
    """
    return [name for name, solver in SOLVERS.items() if solver.batch_kernel is not None]
