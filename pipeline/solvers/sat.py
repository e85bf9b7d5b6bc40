"""The in-process SAT engine (python-sat; CaDiCaL 1.5.3 by default): solve, count, uniqueness.

A :class:`SatEngine` holds ONE incremental SAT solver loaded with the rules of a puzzle shape:
every ``= 1`` row of ``A`` as CNF (:func:`pipeline.core.clauses.encode`, variable ``v`` =
position + 1), the rows of the rules beyond units (``R``: cardinality and pseudo-Boolean
encodings, :func:`pipeline.solvers.sat_rules.rules_beyond_units`) and a layout's absent cells fixed false.
Two ways to give it clues:

* shared (:func:`engine_for`, for batch): no clues in the solver; each puzzle's clues are
  assumptions, so one engine serves every puzzle of a shape with no rebuild;
* fixed (``solve``/``count`` of one puzzle, the default of the registry entry): the clues are
  unit clauses of a fresh solver. CaDiCaL simplifies with units but must keep assumed
  variables: on the 18 minimal 25x25 puzzles assumptions took 11-62 s where units took 2-8 s.

Counting adds blocking clauses over the free cells' true cell variables only, guarded by an
activation literal that is retired afterwards, so the solver is never restarted from scratch
and stays reusable. ``solve(check_unique=True)`` on a one-puzzle engine, closed afterwards, blocks
its answer for good instead (:meth:`SatEngine.prove_unique`: no assumed literal, no second search
for the answer).

Signals and time limits: pysat's calls hold the GIL, so Python (a Ctrl-C, SIGTERM, the command's
deadline, the CLI's watchdog thread) is served only between two calls, and pysat's own SIGINT
handling is switched off (:func:`pipeline.core.clauses.keep_pysat_off_sigint`: it left CaDiCaL in
an invalid state). Every search therefore runs in slices
(:func:`pipeline.solvers.sat_slices.run_sliced`), until an answer, the deadline or a signal.
"""
from __future__ import annotations

import atexit
import functools
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from pipeline.core.clauses import (DEFAULT_AMO, DEFAULT_BACKEND, check_encoding_memory, clause_list, encode,
                                   feed_clauses, keep_pysat_off_sigint)
from pipeline.core.clauses_pb import encoding_problem
from pipeline.core.build import Model
from pipeline.core.rulerows import rule_rows_outlast
from pipeline.core.decode import grid_from_vector
from pipeline.core.errors import clip, SolveError
from pipeline.core.extras import install_hint
from pipeline.core.limits import memory_limit
from pipeline.core.options import time_limit_bound
from pipeline.core.puzzle import rules_key
from pipeline.core.presolve import DEFAULT_PRESOLVE, presolve as presolve_model
from pipeline.core.stops import deferred, estimated_seconds, too_long_to_start

from pipeline.solvers.base import CountResult, Solver, SolveResult, register_solver, singles_contradiction, time_left
from pipeline.solvers.sat_rules import SetupOutlasts, rules_beyond_units
from pipeline.solvers.sat_slices import LARGE_FORMULA, run_sliced

_ENGINE_CACHE_SIZE = 8
#: Bytes a blocking clause takes in the solver per literal (measured: an empty 9x9's 82-literal
#: clauses about 750 bytes each, learnt clauses and watches included), with room to spare.
BYTES_PER_BLOCKING_LITERAL = 16
#: Clauses added to a solver between two looks at a deadline (about 0.1 s of CaDiCaL's loading).
LOAD_SLICE = 200_000
#: CPU seconds per nonzero of ``A`` that a new engine's set-up takes (encoding, the clause lists,
#: loading them into the solver): 6.0-7.1 us measured for N = 25..64 (ladder at-most-one), about
#: 30 s for an empty 100x100. A time limit shorter than that is answered at once (:func:`solve`,
#: :func:`count`), not after a set-up it cannot outlast.
SETUP_CPU_SECONDS_PER_NONZERO = 6e-6
#: CaDiCaL's inprocessing a fresh solver of more than :data:`LARGE_FORMULA` clauses goes without:
#: one round over a 64x64 jigsaw's millions of clauses ran inside one 20,000-decision slice for
#: 16 s (variable elimination most; without it, subsumption and vivification 10 s; without these
#: three, probing 5.7 s), so ``generate --size 64 --time-limit 20`` stopped 13 s late; without
#: all five no slice took over 1 s (the search until then is the same).
LARGE_FORMULA_INPROCESSING_OFF = {"elim": 0, "subsume": 0, "vivify": 0, "probe": 0, "ternary": 0}


def pysat_solvers() -> ModuleType:
    """python-sat's ``pysat.solvers`` module; SolveError naming the extra when it is missing.
    pysat's SIGINT handler is switched off on first use (:func:`keep_pysat_off_sigint`)."""
    try:
        from pysat import solvers
    except ImportError:
        raise SolveError(f"solver sat: needs python-sat, a core dependency that is missing: {install_hint(None)}") from None
    keep_pysat_off_sigint()
    return solvers


def delete_solver(solver: Any) -> None:
    """Free a python-sat solver with signals held back: a Ctrl-C between pysat's C call that
    frees the solver and the line that forgets it would free it twice later (``munmap_chunk():
    invalid pointer`` at exit)."""
    with deferred():
        solver.delete()


#: python-sat solvers the engine cannot use: they solve once, non-incrementally. Kissat aborts
#: the whole process ("incremental solving not supported") when a clause is added after a
#: search, which every count, uniqueness check and batch does (blocking and retiring clauses).
NON_INCREMENTAL_BACKENDS = ("kissat404",)


def sat_backends() -> tuple[str, ...]:
    """Names of the SAT solvers python-sat ships that the engine can use (``--sat-backend``
    choices): each made once (1.4 ms for all), so a name this build of python-sat lists but
    cannot make (``cryptosat`` without pycryptosat, ``minisatgh``) is not offered, and
    :data:`NON_INCREMENTAL_BACKENDS` are left out. Empty without python-sat, so the command line
    still builds (the engine then says what is missing)."""
    try:
        return _usable_backends(pysat_solvers())
    except SolveError:
        return ()


@functools.cache
def _usable_backends(solvers: Any) -> tuple[str, ...]:
    """The backends of python-sat's ``solvers`` module that make a solver here (:func:`sat_backends`)."""
    usable = []
    for name in sorted(k for k, v in vars(solvers.SolverNames).items() if isinstance(v, tuple)):
        if name in NON_INCREMENTAL_BACKENDS:
            continue
        try:
            solvers.Solver(name=name).delete()
        except (solvers.NoSuchSolverError, ValueError, NotImplementedError, ImportError):
            continue
        usable.append(name)
    return tuple(usable)


def _non_incremental(backend: str) -> bool:
    """Whether ``backend`` (a name or any of python-sat's aliases) is one the engine cannot use."""
    names = pysat_solvers().SolverNames
    return any(backend in getattr(names, name, ()) for name in NON_INCREMENTAL_BACKENDS)


def _available() -> str | None:
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return f"needs python-sat, a core dependency that is missing: {install_hint(None)}"
    return None


def _shape_key(model: Model, amo: str | None, backend: str) -> tuple:
    # all but the clues: rules, layouts, a value set (a cage's sum counts values: 0..3 and 1..4
    # make other rows from the same rule) and extra cells change the rows
    return (model.convention, amo, backend, *rules_key(model.puzzle))


@dataclass
class SatOutcome:
    """One SAT call: ``status`` optimal | infeasible | time_limit, the full 0/1 vector when SAT."""

    status: str
    full: np.ndarray | None
    conflicts: int = 0
    #: the model's auxiliary columns' values (variables ``N^3 + 1 ..``), when it has any
    aux: np.ndarray | None = None


def _append_sliced(solver, clauses: list[list[int]], deadline: float | None, why: str) -> None:
    """Add ``clauses`` to ``solver`` :data:`LOAD_SLICE` at a time, looking at ``deadline`` before
    each slice: once it passed, the solver is freed and :class:`SetupOutlasts` says ``why``."""
    for lo in range(0, len(clauses), LOAD_SLICE):
        if deadline is not None and time.perf_counter() > deadline:
            delete_solver(solver)
            raise SetupOutlasts(why)
        solver.append_formula(clauses[lo:lo + LOAD_SLICE])


class SatEngine:
    """An incremental SAT solver holding the rules of one puzzle shape (clues come as assumptions).

    Parameters
    ----------
    model : Model
        Any model of the shape: its rules ``A`` (over all ``N^3`` positions) are encoded.
    amo : str
        At-most-one encoding (:data:`pipeline.core.clauses.AMO_ENCODINGS` or ``auto``).
    backend : str
        A python-sat solver name (:func:`sat_backends`), default CaDiCaL 1.5.3.
    fix_clues : bool
        Add ``model``'s clues as unit clauses: the engine then serves this puzzle only.
    keep_clauses : bool
        Keep the rules' clauses as Python lists (:attr:`rule_clauses`) for callers that make
        fresh solvers or MaxSAT formulas from them (generate, explain); otherwise they are
        built again on first use.

    Raises
    ------
    SolveError
        python-sat missing or an unknown backend.

    Examples
    --------
    >>> from pipeline.core.build import build_model
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> model = build_model(parse_puzzle("1..." "..1." ".1.." "...1", box="2x2"))
    >>> engine = SatEngine(model)
    >>> engine.solve(model).status, engine.count(model, 1000).count
    ('optimal', 18)
    """

    def __init__(self, model: Model, amo: str | None = DEFAULT_AMO, backend: str | None = None,
                 fix_clues: bool = False, keep_clauses: bool = False, deadline: float | None = None):
        check_encoding_memory(model, amo)   # one line, not a MemoryError half a minute in
        self.backend = backend or DEFAULT_BACKEND
        self.convention = model.convention
        # one puzzle (fix_clues): its solver view, whose clues are unit clauses (rows, bounds) or
        # gone with the columns they settle (reduce: a presolved model is a fraction of the rules);
        # shared: the rules A over every position, clues come as assumptions
        self._encoding = encode(model, amo) if fix_clues else encode(model, amo, rows=model.unit_positions)
        #: (positions the solver decides, positions fixed to 1 outside it) of a one-puzzle engine
        # (the model's auxiliary columns, after the N^3 cell variables, are not the grid's)
        cell_columns = model.columns[model.columns < model.convention.n_vars] if model.n_aux else model.columns
        self._view = (cell_columns, model.clue_positions if model.is_reduced else None) if fix_clues else None
        self.n_model_aux = model.n_aux
        self.amo = self._encoding.amo
        self.n_cells = self._encoding.n_cells
        self._extra, n_extra = rules_beyond_units(model, self._encoding.n_vars, self.amo, view=fix_clues,
                                                  deadline=deadline)
        self._top = self._encoding.n_vars + n_extra
        self.fixed = self.clue_literals(model) if fix_clues else None
        if keep_clauses:   # generate's engines keep the lists (its fresh solvers are made from them)
            kept: list[list[int]] = []
            if not feed_clauses(kept.extend, self._encoding, deadline):
                raise SetupOutlasts(self._took_the_limit())
            kept.extend(self._extra)   # not kept + extra: a 64x64's 8.4 million copied again
            self._rule_clauses: list[list[int]] | None = kept
            self.solver = self._new_solver(self._rule_clauses, deadline)
        else:   # fed a chunk at a time: a 100x100's clauses are gigabytes as lists and a minute to load
            self._rule_clauses, self.solver = None, self._new_solver([])
            if not feed_clauses(self.solver.append_formula, self._encoding, deadline):
                delete_solver(self.solver)
                raise SetupOutlasts(self._took_the_limit())
            # the rules' clauses: millions for weighted rows
            _append_sliced(self.solver, self._extra, deadline,
                           f"loading the rule rows' {len(self._extra):,} clauses took the whole time limit")
        self._lock = threading.Lock()

    def _took_the_limit(self) -> str:
        return f"loading the SAT solver's {self._encoding.n_clauses:,} clauses took the whole time limit"

    def _new_solver(self, clauses: list[list[int]], deadline: float | None = None):
        """A solver of the engine's backend holding ``clauses``, added a slice at a time under a
        ``deadline`` (:class:`SetupOutlasts` once it passes: a 64x64's 8.4 million took 4 s)."""
        if deadline is not None:
            solver = self._new_solver([])
            _append_sliced(solver, clauses, deadline, self._took_the_limit())
            return solver
        solvers = pysat_solvers()
        if _non_incremental(self.backend):
            raise SolveError(f"solver sat: --sat-backend {self.backend!r} solves once, non-incrementally (python-sat's "
                             f"Kissat), and the engine adds clauses after a search; expected one of "
                             f"{', '.join(sat_backends())}")
        try:
            return solvers.Solver(name=self.backend, bootstrap_with=clauses)
        except (solvers.NoSuchSolverError, ValueError, NotImplementedError) as e:
            raise SolveError(f"solver sat: unknown or unusable --sat-backend {self.backend!r} ({e}); "
                             f"expected one of {', '.join(sat_backends())}") from None

    @property
    def rule_clauses(self) -> list[list[int]]:
        """The rules' clauses as Python lists (kept once built: MaxSAT formulas and fresh solvers
        are made from them)."""
        if self._rule_clauses is None:
            self._rule_clauses = clause_list(self._encoding) + self._extra
        return self._rule_clauses

    def fresh_solver(self, deadline: float | None = None):
        """A new python-sat solver of this engine's backend holding the rules only: nothing
        learnt, no clues, so what it answers depends on its own settings alone (generate's random
        decision phases), loaded by ``deadline`` (:class:`SetupOutlasts`). The caller deletes it.
        Above :data:`LARGE_FORMULA` clauses it goes without :data:`LARGE_FORMULA_INPROCESSING_OFF`
        (options are set before the first clause), so that its slices stay within a deadline."""
        clauses = self.rule_clauses
        if len(clauses) <= LARGE_FORMULA:
            return self._new_solver(clauses, deadline)
        solver = self._new_solver([])
        try:
            solver.configure(LARGE_FORMULA_INPROCESSING_OFF)
        except (AttributeError, NotImplementedError):   # a backend without these options
            pass
        _append_sliced(solver, clauses, deadline, self._took_the_limit())
        return solver

    # -- variables the caller guards its own clauses with ---------------------------------------
    def new_var(self) -> int:
        """A variable no clause uses yet (after the cell and auxiliary variables and every one
        handed out before): the activation literal of a count or of a caller's guarded clause."""
        self._top += 1
        return self._top

    def retire(self, act: int) -> None:
        """Switch the activation literal ``act`` off for good: the clauses it guards are satisfied
        from now on, so the engine serves other puzzles again."""
        self.solver.add_clause([-act])

    def _run(self, assumptions: list[int], deadline: float | None) -> bool | None:
        """SAT (True), UNSAT (False) or None when the deadline passed first."""
        return run_sliced(self.solver, assumptions, deadline)

    def run_until(self, assumptions: list[int], deadline: float | None) -> bool | None:
        """One call of the solver under ``assumptions``: SAT (True), UNSAT (False), or None when
        ``deadline`` (a ``time.perf_counter()`` value; None: no deadline) passed first. Callers
        that keep their own clauses on the engine (generate's uniqueness checks) use it to stop
        within a whole run's time budget.

        Parameters
        ----------
        assumptions : list of int
            Literals assumed true for this call only (DIMACS style: variable, or minus it).
        deadline : float or None
            The ``time.perf_counter()`` value to give up at.
        """
        with self._lock:
            return self._run(assumptions, deadline)

    def _full(self) -> np.ndarray:
        lits = np.asarray(self.solver.get_model()[:self.n_cells], dtype=np.int64)
        full = np.zeros(self.n_cells)
        full[lits[lits > 0] - 1] = 1.0
        if self._view is not None:   # positions outside the view are in no clause: not the solver's to say
            columns, ones = self._view
            seen = np.zeros(self.n_cells)
            seen[columns] = full[columns]
            if ones is not None:
                seen[ones] = 1.0
            full = seen
        return full

    def _aux_values(self) -> np.ndarray | None:
        """The model's auxiliary columns' values in the last model (None without any)."""
        if not self.n_model_aux:
            return None
        lits = np.asarray(self.solver.get_model()[self.n_cells:self.n_cells + self.n_model_aux], dtype=np.int64)
        return (lits > 0).astype(float)

    @staticmethod
    def clue_literals(model: Model) -> list[int]:
        """The clues of ``model`` as positive literals (full position + 1)."""
        return (np.sort(model.clue_positions).astype(np.int64) + 1).tolist()

    def _assumptions(self, model: Model) -> list[int]:
        """The clue literals to assume (none when the engine holds them as units)."""
        if model.convention != self.convention:
            raise SolveError(f"solver sat: engine built for {self.convention.describe()}, "
                             f"model is {model.convention.describe()}")
        clues = self.clue_literals(model)
        if self.fixed is None:
            return clues
        if clues != self.fixed:
            raise SolveError("solver sat: this engine holds another puzzle's clues as units")
        return []

    def solve(self, model: Model, *, time_limit: float | None = None) -> SatOutcome:
        """One solution of ``model``'s clues under the engine's rules.

        Parameters
        ----------
        model : Model
            The puzzle: its convention must be the engine's, and its clues are assumed (or must
            be the units this engine was built with).
        time_limit : float, optional
            Seconds the call may take (None: no limit); when they pass, the status says so.
        """
        return self.solve_assumed(self._assumptions(model), time_limit=time_limit)

    def solve_assumed(self, assumptions: list[int], *, time_limit: float | None = None) -> SatOutcome:
        """One solution with the cell literals ``assumptions`` (full position + 1) assumed true:
        batch passes each puzzle's clues (and propagated singles) without building a Model.

        Parameters
        ----------
        assumptions : list of int
            Cell literals (full position + 1) assumed true.
        time_limit : float, optional
            Seconds the call may take (None: no limit); when they pass, the status says so.
        """
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        with self._lock:
            result = self._run(assumptions, deadline)
            if result is None:
                return SatOutcome("time_limit", None)
            if not result:
                return SatOutcome("infeasible", None)
            return SatOutcome("optimal", self._full(), aux=self._aux_values())

    def count(self, model: Model, limit: int, *, time_limit: float | None = None,
              keep: int | None = None) -> CountResult:
        """Solutions of ``model`` up to ``limit`` by blocking clauses over its free cells.

        Each blocking clause holds the negated true cell variables of the free cells plus the
        negated activation literal of this count; the activation literal is assumed during
        the count and retired (a unit clause) afterwards, so the engine stays reusable.

        Parameters
        ----------
        model : Model
            The puzzle, as :meth:`solve` takes it.
        limit : int
            Stop at this many solutions (at least 1).
        time_limit : float, optional
            Seconds the call may take (None: no limit); when they pass, the status says so.
        keep : int, optional
            Keep the grids of the first this many solutions (None: all).
        """
        return self.count_assumed(self._assumptions(model), limit, self.clue_literals(model), time_limit=time_limit,
                                  keep=keep, extra_columns=model.n_extra_columns)

    def count_assumed(self, assumptions: list[int], limit: int, fixed_literals: list[int], *,
                      time_limit: float | None = None, keep: int | None = None,
                      extra_columns: int = 0) -> CountResult:
        """Solutions up to ``limit`` with ``assumptions`` assumed; blocking clauses cover every
        cell variable outside ``fixed_literals`` (the literals true in every solution). The
        grids of the first ``keep`` solutions are kept (None: all).

        Parameters
        ----------
        assumptions : list of int
            Cell literals (full position + 1) assumed true.
        limit : int
            Stop at this many solutions (at least 1).
        fixed_literals : list of int
            Literals true in every solution (the clues): blocking clauses leave their cells out.
        time_limit : float, optional
            Seconds the call may take (None: no limit); when they pass, the status says so.
        keep : int, optional
            Keep the grids of the first this many solutions (None: all).
        extra_columns : int
            The model's first auxiliary columns that are extra cells' digits
            (:attr:`Model.n_extra_columns`): solutions differing there only are told apart too.
        """
        if limit < 1:
            raise SolveError(f"count: --limit must be at least 1, found {limit}")
        start = time.perf_counter()
        deadline = None if time_limit is None else start + time_limit
        conv = self.convention
        clue_mask = self._clue_mask(fixed_literals)
        grids: list[np.ndarray] = []
        found = 0
        status = "complete"
        # every solution leaves a blocking clause in the solver: past half the memory allowed,
        # stop (an empty 9x9 counted to 10^11 grew about 0.75 KB a solution, 10 GB an hour)
        allowed, most = memory_limit() // 2, limit
        with self._lock:
            act = self.new_var()
            assumptions = assumptions + [act]
            while found < limit:
                if found >= most:
                    status = "memory_limit"
                    break
                result = self._run(assumptions, deadline)
                if result is None:
                    status = "time_limit"
                    break
                if not result:
                    break
                full = self._full()
                found += 1
                if keep is None or len(grids) < keep:
                    grids.append(grid_from_vector(full, conv))
                blocking = [-act] + self._blocking_literals(full, self._aux_values() if extra_columns else None,
                                                            clue_mask, extra_columns)
                self.solver.add_clause(blocking)
                if found == 1:
                    most = max(1, allowed // (BYTES_PER_BLOCKING_LITERAL * len(blocking)))
            else:
                status = "limit"
            # retired on a normal exit; after an exception (Ctrl-C between two slices) the literal
            # is simply never assumed again
            self.retire(act)
        return CountResult(found, grids, status, time.perf_counter() - start)

    def _clue_mask(self, fixed_literals: list[int]) -> np.ndarray:
        """The cell variables of ``fixed_literals`` (true in every solution), as a mask."""
        mask = np.zeros(self.n_cells, dtype=bool)
        mask[np.asarray(fixed_literals, dtype=np.int64) - 1] = True
        return mask

    def _blocking_literals(self, full: np.ndarray, aux: np.ndarray | None, clue_mask: np.ndarray,
                           extra_columns: int) -> list[int]:
        """The clause ruling out the solution ``full``: its true cell variables outside
        ``clue_mask`` and the true digits among the first ``extra_columns`` of ``aux`` (extra
        cells: solutions that differ there only are told apart), negated."""
        free_true = np.flatnonzero((full > 0) & ~clue_mask) + 1
        if extra_columns:
            assert aux is not None   # extra cells' columns are model auxiliaries
            free_true = np.concatenate([free_true, self.n_cells + 1 + np.flatnonzero(aux[:extra_columns])])
        return (-free_true).tolist()

    def prove_unique(self, model: Model, outcome: SatOutcome, *, time_limit: float | None = None) -> bool | None:
        """Whether ``outcome`` (this engine's last answer for ``model``) is ``model``'s only
        solution: its blocking clause added for good, then one more search (None: ``time_limit``
        passed first). For an engine that serves one puzzle and is closed afterwards (``solve``'s
        own, not a shared one): unlike :meth:`count` it neither guards the clause with an assumed
        literal nor finds the first solution again, which took CaDiCaL about a fifth longer over
        ISS's 14 MATHEMAGIC killers (50.4-54.7 s against 42.6-44.9 s in three alternated runs).

        Parameters
        ----------
        model : Model
            The puzzle :meth:`solve` was given.
        outcome : SatOutcome
            That call's answer (status ``optimal``).
        time_limit : float, optional
            Seconds the search may take.

        Returns
        -------
        bool or None
        """
        if outcome.full is None:
            raise SolveError("solver sat: no solution to prove unique")
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        with self._lock:
            clue_mask = self._clue_mask(self.clue_literals(model))
            self.solver.add_clause(self._blocking_literals(outcome.full, outcome.aux, clue_mask, model.n_extra_columns))
            result = self._run(self._assumptions(model), deadline)
        return None if result is None else not result

    def close(self) -> None:
        delete_solver(self.solver)


_ENGINES: dict[tuple, SatEngine] = {}


@atexit.register
def close_engines() -> None:
    """Free the cached solvers (at exit, before pysat's module is torn down)."""
    while _ENGINES:
        _ENGINES.popitem()[1].close()


def engine_for(model: Model, amo: str | None = DEFAULT_AMO, backend: str | None = None, *,
               keep_clauses: bool = False, deadline: float | None = None) -> SatEngine:
    """The cached engine for ``model``'s shape (convention, variant, regions), encoding and backend:
    one incremental solver reused across puzzles. This is the process's one SAT engine cache
    (batch's workers, generate and explain use it; freed at exit).

    Parameters
    ----------
    model : Model
        Any model of the shape (its clues are not used).
    amo : str
        At-most-one encoding (:data:`pipeline.core.clauses.AMO_ENCODINGS` or ``auto``).
    backend : str, optional
        A python-sat solver name, default CaDiCaL 1.5.3.
    keep_clauses : bool
        A new engine keeps its rules' clause lists (see :class:`SatEngine`).
    deadline : float, optional
        A new engine is loaded by this ``time.perf_counter()`` value (:class:`SetupOutlasts`).

    Returns
    -------
    SatEngine
    """
    key = _shape_key(model, amo, backend or DEFAULT_BACKEND)
    engine = _ENGINES.get(key)
    if engine is None:
        if len(_ENGINES) >= _ENGINE_CACHE_SIZE:
            _ENGINES.pop(next(iter(_ENGINES))).close()
        engine = _ENGINES[key] = SatEngine(model, amo, backend, keep_clauses=keep_clauses, deadline=deadline)
    return engine


# ----------------------------------------------------------------------------------------------
# registry entry
# ----------------------------------------------------------------------------------------------
def _engine(model: Model, amo, backend, reuse: bool, deadline: float | None = None) -> SatEngine:
    """The shape's cached engine (``reuse``) or a new one-puzzle engine; one made now must be ready
    by ``deadline`` (:class:`SetupOutlasts` otherwise: a batch's shared engine of ISS's "Full rank
    2", 12.5 million clauses, took 41 s and 4 GB under a 10 s limit)."""
    if reuse:
        return engine_for(model, amo, backend, deadline=deadline)
    return SatEngine(model, amo, backend, fix_clues=True, deadline=deadline)


def setup_outlasts(model: Model, time_limit: float | None, reuse: bool, amo: str | None = DEFAULT_AMO,
                    backend: str | None = None) -> str:
    """Why a new engine for ``model`` cannot be set up within ``time_limit`` (one line), or "" when
    it can, when there is no limit, or when ``reuse`` finds it made (a batch's first record of a
    100x100 spent 40 s building one under a 2 s limit).

    Parameters
    ----------
    model : Model
        What the engine would hold (its unit nonzeros decide the estimate).
    time_limit : float or None
    reuse : bool
        The shape's cached engine (:func:`engine_for`) is wanted.
    amo, backend : str, optional
        Its at-most-one encoding and python-sat backend (the cache's key)."""
    if time_limit is None or (reuse and _shape_key(model, amo, backend or DEFAULT_BACKEND) in _ENGINES):
        return ""
    rows_too_long = rule_rows_outlast(model, time_limit)   # the engine encodes them: built first
    if rows_too_long:
        return rows_too_long
    need = estimated_seconds(SETUP_CPU_SECONDS_PER_NONZERO * model.unit_positions.size)
    if need <= time_limit:
        return ""
    return too_long_to_start("setting up the SAT engine", need, model.unit_positions.size)


def _check_backend(backend: object) -> None:
    """A backend that is not a name is one line (an API caller's ``sat_backend=5`` was pysat's
    AttributeError)."""
    if backend is not None and not isinstance(backend, str):
        raise SolveError(f"solver sat: --sat-backend must be a name, found {type(backend).__name__} "
                         f"{clip(repr(backend))}; expected one of {', '.join(sat_backends())}")


def solve(model: Model, *, time_limit: float | None = None, sat_backend: str | None = None,
          amo: str | None = DEFAULT_AMO, reuse: bool = False, check_unique: bool = False,
          presolve: str = DEFAULT_PRESOLVE) -> SolveResult:
    """Solve ``model`` with the SAT engine (a fresh solver with the clues as units, or with
    ``reuse`` the shape's cached solver with the clues as assumptions).

    Parameters
    ----------
    model : Model
    time_limit : float, optional
        Seconds; ``time_limit`` status when reached.
    sat_backend : str, optional
        python-sat solver name (default CaDiCaL 1.5.3).
    amo : str
        At-most-one encoding of the rules.
    reuse : bool
        Use the cached engine of the shape (many puzzles of one shape, e.g. batch).
    check_unique : bool
        After solving, prove on the same solver whether another solution exists (``unique``
        in the result): what it learnt while solving makes this much cheaper than a fresh
        count (25x25 gecode puzzle 10: 3.5 s to solve, +17 s for a fresh engine's count).
    presolve : {"singles", "none"}, default "singles"
        ``singles``: naked and hidden singles first, and only the reduced model is encoded
        (:mod:`pipeline.core.presolve`; a 25x25 minimal puzzle: about 30,000 clauses instead of
        250,000); ``none``: the model as built. Not with ``reuse`` (the shared engine holds every
        position; batch passes its singles as assumptions).

    Returns
    -------
    SolveResult
        ``x`` over the solver view's columns, ``grid`` when solved; status ``optimal``,
        ``infeasible`` or ``time_limit``; ``unique`` with ``check_unique``.

    Raises
    ------
    SolveError
        python-sat missing or an unknown backend.
    """
    _check_backend(sat_backend)
    start = time.perf_counter()
    pre = presolve_model(model, "none" if reuse else presolve)
    if pre.contradiction:
        return singles_contradiction("sat", time.perf_counter() - start)
    given = pre.model   # the engine's model; the answer is a full vector, read over model's columns
    too_long = setup_outlasts(given, time_limit, reuse, amo, sat_backend)
    if too_long:
        return SolveResult("time_limit", None, None, time.perf_counter() - start, 0, solver="sat", message=too_long)
    try:
        engine = _engine(given, amo, sat_backend, reuse, None if time_limit is None else start + time_limit)
    except SetupOutlasts as e:
        return SolveResult("time_limit", None, None, time.perf_counter() - start, 0, solver="sat", message=str(e))
    unique = None
    try:   # the search and then the proof get what is left of time_limit
        outcome = engine.solve(given, time_limit=time_left(time_limit, start))
        proof_seconds: float | None = None
        if check_unique and outcome.full is not None:
            proof_started = time.perf_counter()
            if reuse:   # the shape's shared engine: a count, whose clauses retire with it
                counted = engine.count(given, 2, time_limit=time_left(time_limit, start))
                unique = None if counted.status not in ("complete", "limit") else counted.count == 1
            else:       # this puzzle's own engine, closed below: the answer blocked for good
                unique = engine.prove_unique(given, outcome, time_limit=time_left(time_limit, start))
            proof_seconds = time.perf_counter() - proof_started
        seconds = time.perf_counter() - start   # the proof included: a #12 killer's is 9 s of its 11 s
    finally:
        if not reuse:
            engine.close()
    if outcome.full is None:
        return SolveResult(outcome.status, None, None, seconds, 0, solver="sat")
    full = outcome.full if outcome.aux is None else np.concatenate([outcome.full, outcome.aux])
    x = full[model.columns]
    grid = grid_from_vector(outcome.full, model.convention)
    return SolveResult("optimal", x, 0.0, seconds, 0, grid=grid, solver="sat", unique=unique,
                       proof_seconds=proof_seconds)


def count(model: Model, limit: int = 2, *, time_limit: float | None = None, sat_backend: str | None = None,
          amo: str | None = DEFAULT_AMO, reuse: bool = False, presolve: str = DEFAULT_PRESOLVE,
          keep: int | None = None) -> CountResult:
    """Count solutions of ``model`` up to ``limit`` (the ``count`` command's default engine).

    Parameters
    ----------
    model : Model
    limit : int
        Stop after this many solutions (at least 1).
    time_limit : float, optional
        Seconds for the whole count.
    sat_backend : str, optional
        python-sat solver name (default CaDiCaL 1.5.3).
    amo : str
        At-most-one encoding of the rules.
    reuse : bool
        Use the cached engine of the shape (its learnt clauses help the next puzzle).
    presolve : {"singles", "none"}, default "singles"
        Count on the model reduced by naked and hidden singles (the same solutions) or on
        ``model`` as built (always ``none`` with ``reuse``).
    keep : int, optional
        Keep the grids of the first ``keep`` solutions only (default: all, up to ``limit``): the
        count command keeps all with ``--list`` and the first otherwise, so a large ``--limit``
        does not hold every grid in memory.

    Returns
    -------
    CountResult
        ``complete`` (exact), ``limit`` or ``time_limit``; ``grids`` the solutions kept.

    Raises
    ------
    SolveError
        ``limit < 1``, python-sat missing or an unknown backend.

    Examples
    --------
    >>> from pipeline.core.build import build_model
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> count(build_model(parse_puzzle("." * 16, box="2x2")), 1000).count
    288
    """
    if limit < 1:
        raise SolveError(f"count: --limit must be at least 1, found {limit}")
    _check_backend(sat_backend)
    start = time.perf_counter()
    pre = presolve_model(model, "none" if reuse else presolve)
    if pre.contradiction:
        return CountResult(0, [], "complete", time.perf_counter() - start)
    too_long = setup_outlasts(pre.model, time_limit, reuse, amo, sat_backend)
    if too_long:
        return CountResult(0, [], "time_limit", time.perf_counter() - start, message=too_long)
    try:
        engine = _engine(pre.model, amo, sat_backend, reuse, None if time_limit is None else start + time_limit)
    except SetupOutlasts as e:
        return CountResult(0, [], "time_limit", time.perf_counter() - start, message=str(e))
    try:
        return engine.count(pre.model, limit, time_limit=time_left(time_limit, start), keep=keep)
    finally:
        if not reuse:
            engine.close()


def is_unique(model: Model, *, time_limit: float | None = None, sat_backend: str | None = None,
              amo: str | None = DEFAULT_AMO, reuse: bool = False) -> bool | None:
    """True if ``model`` has exactly one solution, False if none or several, None on a time limit.

    Parameters
    ----------
    model : Model
        The puzzle's model.
    time_limit : float, optional
        Seconds.
    sat_backend : str, optional
        python-sat solver name.
    amo : str
        At-most-one encoding.
    reuse : bool
        Use the shape's cached engine.
    """
    result = count(model, 2, time_limit=time_limit, sat_backend=sat_backend, amo=amo, reuse=reuse)
    if result.status == "time_limit":
        return None
    return result.count == 1


register_solver(Solver(
    name="sat", description="SAT engine in process (python-sat, CaDiCaL 1.5.3; --sat-backend, --amo)",
    solve=solve, count=count, available=_available, install_hint=install_hint(None), model_problem=encoding_problem,
    statuses={"SAT": "optimal", "UNSAT": "infeasible", "UNKNOWN": "time_limit"},
    proves_unique=True, timed_call="the SAT solver's calls", rule_rows=True,
    # any finite limit: the deadline is checked between conflict-budget slices (run_sliced)
    bounds={"time_limit": time_limit_bound()}))
