"""Sliced searches of a python-sat solver: ``solve_limited`` in conflict (and decision) budgets,
so that Python runs between two calls.

pysat's calls hold the GIL: a Ctrl-C, SIGTERM, the command's deadline and the CLI's watchdog
thread are served only between two calls. :func:`run_sliced` runs every search of the SAT engine
(:mod:`pipeline.solvers.sat`) and of generate's engines in budgets of a fixed schedule
(:data:`SLICE_BUDGETS`; fixed, not timed, so that what a solver answers never depends on the
machine's load: generate's grids stay a function of the seed), until an answer, the deadline or
a signal, whatever the backend.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pipeline.core.stops import command_time_left

__all__ = ["DECISION_SLICE", "MIN_DECISIONS", "SLICE_BUDGETS", "run_sliced"]

#: Conflict budgets of one call into the solver (:func:`run_sliced`): the first, doubled up to the
#: last. 10,000 conflicts take about 1 s of CPU on a hard 25x25 (0.1 ms each); slicing a search
#: costs no measurable time (the 25x25 gecode puzzles: 9.0/3.2/1.4 s unsliced, 9.6/2.7/2.4 s in
#: slices of at most 8,000, within the spread of the search itself).
SLICE_BUDGETS = (2_000, 10_000)
#: Decision budget of one slice when a deadline is set (20,000 took 0.1-0.5 s on 25x25 and
#: 36x36 grids), cut to the decisions that fit the time left at the pace measured so far.
DECISION_SLICE = 20_000
MIN_DECISIONS = 500


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
        a slice also has a decision budget that fits the time left.
    """
    budget, largest = SLICE_BUDGETS
    pace = None   # decisions per second of the slices so far (with a deadline)
    while True:
        now = time.perf_counter()
        if deadline is not None and now >= deadline:
            return None
        try:
            solver.conf_budget(budget)
        except NotImplementedError:
            return solver.solve(assumptions=list(assumptions))
        # the time left: this search's own deadline, else the command's --time-limit (whose alarm
        # stops the command once the slice returns)
        left = deadline - now if deadline is not None else command_time_left()
        made = _decisions(solver) if left is not None else None
        if made is not None and left is not None:
            # a slice holds the interpreter, and so the deadline's alarm, until it returns; on an
            # open grid conflicts are rare (2,000 took 1.3 s on an empty 36x36), decisions are not
            try:
                solver.dec_budget(DECISION_SLICE if pace is None else int(min(DECISION_SLICE, max(MIN_DECISIONS,
                                                                                                pace * left))))
            except NotImplementedError:   # MiniSat: conflicts only
                made = None
        result = solver.solve_limited(assumptions=list(assumptions))
        if result is not None:
            return result
        if made is not None:
            took, after = time.perf_counter() - now, _decisions(solver)
            if after is not None and took > 0 and after > made:
                pace = (after - made) / took
        budget = min(2 * budget, largest)


def _decisions(solver: Any) -> int | None:
    """Decisions the solver has made so far (None: the backend has no decision budget or count)."""
    if not hasattr(solver, "dec_budget") or not hasattr(solver, "accum_stats"):
        return None
    try:
        return int(solver.accum_stats()["decisions"])
    except (NotImplementedError, KeyError, TypeError, AttributeError):
        return None
