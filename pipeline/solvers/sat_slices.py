"""Sliced searches of a python-sat solver: ``solve_limited`` in conflict (and decision) budgets,
so that Python runs between two calls.

pysat's calls hold the GIL: a Ctrl-C, SIGTERM, the command's deadline and the CLI's watchdog
thread are served only between two calls. :func:`run_sliced` runs every search of the SAT engine
(:mod:`pipeline.solvers.sat`) and of generate's engines in budgets of a fixed schedule
(:data:`SLICE_BUDGETS`; fixed, not timed, so that what a solver answers never depends on the
machine's load: generate's grids stay a function of the seed), until an answer, the deadline or
a signal, whatever the backend. Where conflicts are costly (a full-rank puzzle's millions of
clauses) the budget is cut to the conflicts that fit :data:`PROPAGATION_SLICE` propagations at
the rate so far, and a formula of more than :data:`LARGE_FORMULA` clauses starts small and has a
decision budget too: counts, not times, so this stays a function of the formula as well.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pipeline.core.stops import command_time_left

__all__ = ["DECISION_SLICE", "FIRST_LARGE_SLICE", "LARGE_FORMULA", "MIN_DECISIONS", "PROPAGATION_SLICE", "SLICE_BUDGETS",
           "fixed_slices", "run_sliced"]

#: Conflict budgets of one call into the solver (:func:`run_sliced`): the first, doubled up to the
#: last. 10,000 conflicts take about 1 s of CPU on a hard 25x25 (0.1 ms each); slicing a search
#: costs no measurable time (the 25x25 gecode puzzles: 9.0/3.2/1.4 s unsliced, 9.6/2.7/2.4 s in
#: slices of at most 8,000, within the spread of the search itself).
SLICE_BUDGETS = (2_000, 10_000)
#: Decision budget of one slice when a deadline is set (20,000 took 0.1-0.5 s on 25x25 and
#: 36x36 grids), cut to the decisions that fit the time left at the pace measured so far, and
#: doubled after each slice that met fewer than :data:`MIN_CONFLICTS` conflicts (the next call
#: would start from the root and make the same decisions again).
DECISION_SLICE = 20_000
MIN_DECISIONS = 500
#: Propagations a slice may take, by the propagations per conflict of the slices so far (a count,
#: not a time, so the search stays a function of the formula): a conflict of a 9x9 full-rank
#: puzzle's 8.3 million clauses took 25,000 propagations and 10 ms, so slices of 2,000 and
#: 10,000 conflicts held a Ctrl-C 15 s and 80 s; a hard 25x25's took 240 and 0.05 ms, and its
#: slices stay as they were.
PROPAGATION_SLICE = 3_000_000
#: A formula of more clauses than this starts with :data:`FIRST_LARGE_SLICE` conflicts and slices
#: a decision budget too (:data:`DECISION_SLICE`, also without a deadline: an empty 101x101 has few
#: conflicts, and a slice of 2,000 ran for minutes).
LARGE_FORMULA = 4_000_000
FIRST_LARGE_SLICE = 100
MIN_CONFLICTS = 20

#: Inside :func:`fixed_slices`: what to call after each slice that did not answer (None outside).
_FIXED: ContextVar[Callable[[], None] | None] = ContextVar("fixed_slices", default=None)


def _nothing() -> None:
    """No report between slices."""


@contextmanager
def fixed_slices(between: Callable[[], None] = _nothing) -> Iterator[None]:
    """Searches inside slice as they would without a deadline (the deadline is still checked
    between slices), and call ``between()`` after each slice that has not answered yet.

    ``generate`` makes each puzzle inside it: a decision budget fitted to the time left changes
    where each slice starts again from the root, and so which full grid a seed gives (a 30x30 of
    seed 1 came out different with ``--time-limit 200``, and three times slower). The price is
    that a deadline can be passed by one slice (about a second on an open 36x36). Its ``between``
    repeats the progress report: one uniqueness proof of ``--minimal --size 36`` ran for minutes,
    and its log lines stopped with it.

    Parameters
    ----------
    between : callable
        No arguments; cheap (it runs every slice, about a second apart on hard searches).

    Examples
    --------
    >>> with fixed_slices():
    ...     _FIXED.get() is not None
    True
    >>> _FIXED.get() is None
    True
    """
    token = _FIXED.set(between)
    try:
        yield
    finally:
        _FIXED.reset(token)


def run_sliced(solver: Any, assumptions: Sequence[int] = (), deadline: float | None = None) -> bool | None:
    """One search of a python-sat ``solver`` in conflict-budget slices: SAT (True), UNSAT
    (False), or None once ``deadline`` (a ``time.perf_counter()`` value) has passed.

    Between two slices Python runs: a signal handler may raise there (KeyboardInterrupt), and
    the solver, which returned normally, stays usable (or can be deleted). Backends without
    conflict budgets (lingeling) run in one call.

    Parameters
    ----------
    solver : pysat.solvers.Solver
        Any python-sat solver.
    assumptions : list of int
        Literals assumed true for this search.
    deadline : float, optional
        Stop (None) at this ``time.perf_counter()`` value; checked between slices. With a
        deadline, or a command's ``--time-limit`` running (:func:`~pipeline.core.stops.command_time_left`),
        a slice also has a decision budget that fits the time left, except inside
        :func:`fixed_slices`.
    """
    budget, largest = SLICE_BUDGETS
    pace = None   # decisions per second of the slices so far (with a deadline)
    decisions = DECISION_SLICE   # a slice's decision budget, doubled after a slice of (almost) no conflicts
    large = _clauses(solver) > LARGE_FORMULA
    if large:
        budget = FIRST_LARGE_SLICE
    conflict_pace = None   # conflicts per second of the slices so far (with a deadline)
    first = True
    while True:
        now = time.perf_counter()
        if deadline is not None and now >= deadline:
            return None
        # the time left: this search's own deadline, else the command's --time-limit (whose alarm
        # stops the command once the slice returns)
        between = _FIXED.get()
        if between is not None:
            left = None
        else:
            left = deadline - now if deadline is not None else command_time_left()
        if left is not None:
            # a slice of costly conflicts outlasts a deadline (ISS's "X-Sum", 771,069 clauses: its
            # first 2,000 conflicts took 3-5 s of a 5 s limit): the first slice measures the pace
            # on FIRST_LARGE_SLICE conflicts, and each later one fits the time left at that pace
            if first:
                budget = min(budget, FIRST_LARGE_SLICE)
            elif conflict_pace is not None:
                budget = int(min(budget, max(MIN_CONFLICTS, conflict_pace * left)))
        first = False
        try:
            solver.conf_budget(budget)
        except NotImplementedError:
            return solver.solve(assumptions=list(assumptions))
        made = _decisions(solver) if left is not None or large else None
        if made is not None:
            # a slice holds the interpreter, and so the deadline's alarm, until it returns; on an
            # open grid conflicts are rare (2,000 took 1.3 s on an empty 36x36), decisions are not
            try:
                solver.dec_budget(decisions if left is None or pace is None else
                                  int(min(decisions, max(MIN_DECISIONS, pace * left))))
            except NotImplementedError:   # MiniSat: conflicts only
                made = None
        conflicts = _stat(solver, "conflicts") if made is not None or left is not None else None
        result = solver.solve_limited(assumptions=list(assumptions))
        if result is not None:
            return result
        if left is not None and conflicts is not None:
            took, met = time.perf_counter() - now, (_stat(solver, "conflicts") or 0) - conflicts
            if took > 0 and met >= MIN_CONFLICTS:
                conflict_pace = met / took
        if made is not None:
            took, after = time.perf_counter() - now, _decisions(solver)
            if after is not None and took > 0 and after > made:
                pace = (after - made) / took
            if conflicts is not None and (_stat(solver, "conflicts") or 0) - conflicts < MIN_CONFLICTS:
                # each call starts again from the root: a search that needs more decisions between two
                # conflicts than a slice allows would make the same ones in every slice, for ever (ISS's
                # "City Planning": 67,056 decisions to its answer, none past 20,000 a slice)
                decisions *= 2
        budget = min(2 * budget, largest, _conflicts_within(solver, PROPAGATION_SLICE))
        if between is not None:
            between()


def _clauses(solver: Any) -> int:
    """Clauses the solver holds (0 when the backend does not say)."""
    try:
        return int(solver.nof_clauses())
    except (NotImplementedError, AttributeError, TypeError):
        return 0


def _conflicts_within(solver: Any, propagations: int) -> int:
    """Conflicts that take about ``propagations`` at the solver's propagations per conflict so
    far (at least :data:`MIN_CONFLICTS`; a large number when the backend keeps no statistics)."""
    try:
        stats = solver.accum_stats()
        per_conflict = int(stats["propagations"]) / max(int(stats["conflicts"]), 1)
    except (NotImplementedError, KeyError, TypeError, AttributeError):
        return 1 << 62
    return max(MIN_CONFLICTS, int(propagations / max(per_conflict, 1.0)))


def _stat(solver: Any, name: str) -> int | None:
    """The solver's count ``name`` so far (``conflicts``, ``decisions``; None: it keeps none)."""
    try:
        return int(solver.accum_stats()[name])
    except (NotImplementedError, KeyError, TypeError, AttributeError):
        return None


def _decisions(solver: Any) -> int | None:
    """Decisions the solver has made so far (None: the backend has no decision budget or count)."""
    return _stat(solver, "decisions") if hasattr(solver, "dec_budget") else None
