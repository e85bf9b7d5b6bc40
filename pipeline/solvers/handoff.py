"""An engine ``auto`` picks that hands a long search on to the next engine (``AUTO_TABLE``'s
``handoff``).

``dfsrules`` answers most rule puzzles in milliseconds, but a few (published killers without
givens) take it minutes where the SAT engine's learning takes a second. Rather than guess which
puzzle is which, ``auto`` gives the first engine a short budget and, when it runs out, the next
engine the time that is left. The answer names the engine that gave it (``SolveResult.solver``,
the JSON ``solver``); its ``message`` says that the first one gave up. A user who names an engine
gets that engine alone, for as long as the time limit allows.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from typing import Any

from pipeline.core.build import Model
from pipeline.core.stops import TOO_LONG_TO_START
from pipeline.solvers.base import CountResult, GiveUp, Solver, SolveResult, solve_then_count, time_left

__all__ = ["ENUMERATING", "WHOLE_BUDGET_KINDS", "handed_off", "stuck_after", "trusts_estimate"]

#: Solutions a second below which a count past its budget is stuck in search rather than listing
#: grids: the SAT engine lists about 5,000 a second of a 9x9 with few clues (10,000 of the empty
#: 9x9 in 1.96 s), and dfs 25,000 or more; a count that finds fewer than this is one whose
#: solutions are far apart (or absent), where learning pays.
ENUMERATING = 100


#: A search handed on early is one that, after this share of its budget, has searched so little of
#: its tree (its own estimate) that at its pace it would take more than :data:`HOPELESS` budgets.
#: On ISS's killers that ``auto`` gives ``dfsrules`` 0.25 s (counting to 2, 2026-12-04), the
#: estimate after about 0.05 s was 0.14-0.37 s for the three that finish in 0.12-0.23 s (TAREK_ALL
#: #36-38) and 1.8 to over 80 s for 12 of the 14 MATHEMAGIC killers, which do not finish in 1 s.
#: ``dfs`` counting to 2 with a 1 s budget (2026-12-04): of 72 16x16 jigsaws of 55-110 clues drawn
#: from three solutions, none of the 33 it finishes within 1 s (up to 0.84 s) would be handed on,
#: and 35 of the 36 it does not finish in 3 s would at 0.15-0.24 s; of 383 published jigsaws and
#: 16x16 puzzles (``../shared/data/sets``, all finished within 0.02 s), none.
EARLIEST = 0.15
HOPELESS = 4.0


#: Rule kinds whose search is never handed on by its estimate: with little killer clues ``dfsrules``
#: was never slower than the SAT engine (ISS's 29 entries, 2026-12-01), so it keeps its whole budget.
WHOLE_BUDGET_KINDS = frozenset({"littlekiller"})


def trusts_estimate(rules: Iterable[Any]) -> bool:
    """May a search of a puzzle with these rules be handed on early by its estimate of its progress
    (:func:`stuck_after`'s ``estimate``)? Not with a kind of :data:`WHOLE_BUDGET_KINDS`.

    Parameters
    ----------
    rules : iterable
        The puzzle's rules (each with its ``kind``).

    Returns
    -------
    bool
    """
    return not any(rule.kind in WHOLE_BUDGET_KINDS for rule in rules)


#: Entries made, by (first, then, seconds, estimate) and holding both (an id is not reused while they live):
#: batch asks auto's pick for each rule group, and a new entry cost each record 0.1-0.2 ms.
_MADE: dict[tuple[int, int, float, bool], tuple[Solver, Solver, Solver]] = {}


def stuck_after(seconds: float, *, estimate: bool = True) -> GiveUp:
    """The ``give_up`` of a search handed on once stuck: past ``seconds``, or (``estimate``) past
    :data:`EARLIEST` of them with so little of its tree searched that at this pace it would take
    more than :data:`HOPELESS` times ``seconds``; and finding fewer than :data:`ENUMERATING`
    solutions a second (a count listing grids fast goes on).

    Parameters
    ----------
    seconds : float
        The search's budget.
    estimate : bool
        Hand on early by the search's own estimate of its progress (an engine that keeps one).

    Returns
    -------
    GiveUp
    """
    def stuck(found: int, spent: float, progress: float | None = None) -> bool:
        if found >= ENUMERATING * spent:
            return False
        if spent >= seconds:
            return True
        return (estimate and progress is not None and spent >= EARLIEST * seconds
                and spent > HOPELESS * seconds * progress)
    return stuck


def _never_started(taken: SolveResult | CountResult, time_limit: float | None, started: float) -> bool:
    """The next engine answered ``time_limit`` without starting (its set-up alone would outlast the
    time left: :data:`~pipeline.core.stops.TOO_LONG_TO_START` in its message) and time is left: the
    first engine, which did start, had better use it (a batch record of ISS's "Sandwich snipe 18"
    under a 3 s limit: ``dfsrules`` handed on at 0.18 s under load to ``sat``, whose 21.7 s of
    loading did not fit, answered ``time_limit`` at 1.5 s; ``dfsrules`` alone answers it in 0.3 s)."""
    left = time_left(time_limit, started)
    return (left is not None and left > 0 and taken.status == "time_limit" and TOO_LONG_TO_START in taken.message)


def _went_on(first: Solver, then: Solver, spent: float, why: str, message: str) -> str:
    """What the answer says when ``first`` went on after ``then`` could not start."""
    said = f"{first.name} gave up after {spent:.2g} s; {then.name} could not start ({why}); {first.name} went on"
    return said + (f" ({message})" if message else "")


def handed_off(first: Solver, then: Solver, seconds: float, estimate: bool = True) -> Solver:
    """``first``'s registry entry whose ``solve`` and ``count`` hand a search still running after
    ``seconds`` to ``then`` (within the caller's time limit), or sooner when ``first`` estimates
    its progress and the estimate says it will not finish in time (:func:`stuck_after`).

    Parameters
    ----------
    first : Solver
        The engine picked (it must take ``time_limit`` and, to prove uniqueness, ``check_unique``).
    then : Solver
        The engine that takes over (it can answer whatever ``first`` was asked).
    seconds : float
        ``first``'s budget.
    estimate : bool
        Hand on early by ``first``'s estimate of its progress (:func:`stuck_after`).

    Returns
    -------
    Solver
        A copy of ``first``'s entry (same name and options), the same one for the same arguments.
    """
    key = (id(first), id(then), seconds, estimate)
    made = _MADE.get(key)
    if made is not None and made[0] is first and made[1] is then:
        return made[2]

    def solve(model: Model, *, time_limit: float | None = None, check_unique: bool = False) -> SolveResult:
        started = time.perf_counter()
        budget = seconds if time_limit is None else min(seconds, time_limit)
        if first.solve_or_give_up is not None:
            result = first.solve_or_give_up(model, time_limit=budget, check_unique=check_unique,
                                            give_up=stuck_after(seconds, estimate=estimate))
        else:
            result = first.solve(model, time_limit=budget, check_unique=check_unique)
        unfinished = result.status == "time_limit" or (check_unique and result.grid is not None and result.unique is None)
        left = time_left(time_limit, started)
        if not unfinished or (left is not None and left <= 0) or _cannot_take_over(result, model):
            return result
        taken = solve_then_count(then, model, left, check_unique, then.count)
        if _never_started(taken, time_limit, started):   # the first engine goes on for the time left
            again = first.solve(model, time_limit=time_left(time_limit, started), check_unique=check_unique)
            again.seconds += result.seconds
            again.message = _went_on(first, then, result.seconds, taken.message, again.message)
            return again
        taken.seconds += result.seconds   # the first engine's share is part of the answer's time
        taken.message = (f"{first.name} gave up after {result.seconds:.2g} s; {then.name} answered"
                         + (f" ({taken.message})" if taken.message else ""))
        return taken

    def count(model: Model, limit: int = 2, *, time_limit: float | None = None, keep: int | None = None) -> CountResult:
        started = time.perf_counter()
        options: dict[str, object] = {} if keep is None else {"keep": keep}
        assert first.count is not None and then.count is not None
        if first.count_or_give_up is not None:
            # a search that is finding grids fast goes on (a large enumeration: dfs lists 25,000
            # a second or more where the SAT engine lists 5,000); one stuck in search is handed on
            result = first.count_or_give_up(model, limit, time_limit=time_limit,
                                            give_up=stuck_after(seconds, estimate=estimate),
                                            **options)
        else:
            result = first.count(model, limit, time_limit=seconds if time_limit is None else min(seconds, time_limit),
                                 **options)
        left = time_left(time_limit, started)
        if result.status != "time_limit" or (left is not None and left <= 0) or _cannot_take_over(result, model):
            return result
        taken = then.count(model, limit, time_limit=left, **options)
        if _never_started(taken, time_limit, started):   # the first engine goes on for the time left
            again = first.count(model, limit, time_limit=time_left(time_limit, started), **options)
            again.seconds += result.seconds
            again.message = _went_on(first, then, result.seconds, taken.message, again.message)
            return again if again.count >= result.count else result
        if taken.status == "time_limit" and taken.count < result.count:
            return result   # the next engine ran out of time too, having found fewer
        taken.seconds += result.seconds
        notes = [part for part in (taken.message, f"{first.name} had found {result.count}" if result.count else "")
                 if part]
        taken.message = (f"{first.name} gave up after {result.seconds:.2f} s; {then.name} counted"
                         + (f" ({'; '.join(notes)})" if notes else ""))
        taken.solver = then.name
        return taken

    def _cannot_take_over(result: SolveResult | CountResult, model: Model) -> bool:
        """``then`` cannot take this model here (a package its rows need): ``first``'s result
        stands, its message saying why the search was not handed on."""
        problem = then.problem_with(model)
        if problem:
            result.message = "; ".join(part for part in (result.message, f"{then.name} cannot take over: {problem}")
                                       if part)
        return bool(problem)

    entry = dataclasses.replace(first, solve=solve, count=count if first.count is not None else None)
    _MADE[key] = (first, then, entry)
    return entry
