"""Uniqueness checks of rule shapes by the compiled rule search first, the counting engine after.

Removing clues from a rule puzzle asks one question per clue: do the clues left still determine
the solution? The SAT engine answers it through the rules' clauses, which for sums along lines
(sandwich, X-sums, ...) are large: ``generate --rule sandwich`` took about a minute, 0.7 s a
check. ``dfsrules`` propagates those rules inside its search and answers most such checks in
milliseconds. :class:`SearchFirstEngine` asks it first, with a short budget (the search gives up
when stuck, :func:`pipeline.solvers.handoff.stuck_after`), and hands the question to the shape's
counting engine (:func:`pipeline.tools.generate.engine.engine_for`'s choice) when it gives up.

Both engines are exact, so the answers, and so the puzzles a seed makes, are the same whichever
answered; only the solutions an engine lists may be others (``last_other``, a witness of a needed
clue; the grids ``count(keep=True)`` returns, from which ``explain`` picks its greedy clues to add,
so its suggestion may be another set of the same purpose). Calls with a conflict budget (an
undecided answer allowed) go to the counting engine as they are.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.errors import SolveError
from pipeline.core.puzzle import Puzzle
from pipeline.solvers.base import SOLVERS
from pipeline.solvers.handoff import stuck_after, trusts_estimate
from pipeline.tools.generate.clock import OutOfTime

__all__ = ["COMPARE_AFTER", "SEARCH_SECONDS", "SearchFirstEngine", "search_first_takes"]

#: Seconds the rule search gets per question before the counting engine takes it. A removal
#: check of a 9x9 rule puzzle takes it 1-20 ms; one it cannot settle in this time is a question
#: for learning (the published killers without givens: minutes of search, a second of SAT).
SEARCH_SECONDS = 0.25
#: Questions each engine answers on a shape before their average times are compared.
COMPARE_AFTER = 3


def search_first_takes(shape: Puzzle) -> bool:
    """Does the compiled rule search take ``shape`` (installed, and every rule propagated)?

    Parameters
    ----------
    shape : Puzzle
        Any puzzle of the shape.

    Returns
    -------
    bool
        False without the compiled search (the core install without numba) or when
        ``dfsrules`` refuses the shape (a layout, auxiliary columns, a rule it has no handler for).
    """
    solver = SOLVERS.get("dfsrules")
    if solver is None or solver.available() is not None or solver.model_problem is None:
        return False
    return solver.model_problem(build_model(shape)) is None


def _other(grids: list[np.ndarray], solution: np.ndarray) -> np.ndarray | None:
    """The first of ``grids`` that is not ``solution`` (None: they are all it)."""
    return next((g for g in grids if not np.array_equal(g, solution)), None)


class SearchFirstEngine:
    """A counting engine that asks ``dfsrules`` first: the calls of the shape's counting engine,
    with ``determines``, ``another`` and ``count`` answered by the rule search when it settles
    them within ``seconds``.

    Parameters
    ----------
    shape : Puzzle
        Any puzzle of the shape (its clues are ignored); :func:`search_first_takes` is True of it.
    make_inner : callable
        Makes the shape's counting engine (:data:`pipeline.tools.generate.engine.CountingEngine`),
        on first use: every other call, and each question the search gives up.
    seconds : float
        The search's budget per question (:data:`SEARCH_SECONDS`).
    """

    def __init__(self, shape: Puzzle, make_inner: Callable[[], Any], seconds: float = SEARCH_SECONDS):
        self.shape = shape
        self.make_inner = make_inner
        self.seconds = seconds
        self.solver = SOLVERS["dfsrules"]
        # a question the search estimates it would take four budgets on goes on early, as in auto's handoff
        self._give_up = stuck_after(seconds, estimate=trusts_estimate(shape.rules))
        self._inner: Any = None
        self.excluded: dict[int, np.ndarray] = {}   # this engine's activation ids -> the solution each excludes
        self._inner_acts: dict[int, int] = {}       # and the inner engine's literal, once it has one
        self._last_id = 0
        #: questions the rule search answered, and those it handed on
        self.answered = self.handed_on = 0
        self.last_other: np.ndarray | None = None
        # seconds spent and questions asked, per engine: once the counting engine is the faster
        # one on this shape, it takes every question (the answers are the same either way)
        self._spent = {"search": [0.0, 0], "inner": [0.0, 0]}
        self.search_retired = False

    @property
    def inner(self) -> Any:
        """The shape's counting engine, made on first use: a shape's SAT clauses can take seconds
        to make (a sandwich 9x9: 1.9 million), which a run the search answers never needs."""
        if self._inner is None:
            self._inner = self.make_inner()
        return self._inner

    @property
    def undecided(self) -> int:
        """The inner engine's undecided calls (none when it was never asked)."""
        return 0 if self._inner is None else self._inner.undecided

    def __getattr__(self, name: str) -> Any:   # random_full_grid, clauses, ...: the inner engine's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _search(self, clue_grid: np.ndarray, limit: int, deadline: float | None):
        """The rule search's count of the shape with these clues, or None when it gave up (or
        the counting engine has proved the faster on this shape)."""
        if self.search_retired:
            return None
        started = time.perf_counter()
        try:
            return self._searched(clue_grid, limit, deadline)
        finally:
            self._note("search", started)

    def _note(self, engine: str, started: float) -> None:
        """Count a question's seconds; retire the search once the counting engine answers faster
        on the average of :data:`COMPARE_AFTER` questions each (a 16x16 with anti-knight: the
        search 0.15 s a question, with its give-ups, the SAT engine 0.07 s)."""
        spent = self._spent[engine]
        spent[0] += time.perf_counter() - started
        spent[1] += 1
        (search, asked), (inner, handed) = self._spent["search"], self._spent["inner"]
        if asked >= COMPARE_AFTER and handed >= COMPARE_AFTER and inner / handed < search / asked:
            self.search_retired = True

    def _inner_call(self, call: Callable[[], Any]) -> Any:
        """``call()`` to the counting engine (made first, so that its making is not timed)."""
        self.inner   # noqa: B018  (made here, outside the timing)
        started = time.perf_counter()
        try:
            return call()
        finally:
            self._note("inner", started)

    def _searched(self, clue_grid: np.ndarray, limit: int, deadline: float | None):
        """:meth:`_search` itself."""
        puzzle = dataclasses.replace(self.shape, grid=np.asarray(clue_grid))
        time_limit = None
        if deadline is not None:
            time_limit = deadline - time.perf_counter()
            if time_limit <= 0:
                raise OutOfTime("the time limit was reached")
        count = self.solver.count_or_give_up
        try:
            found = None if count is None else count(build_model(puzzle), limit, time_limit=time_limit,
                                                     give_up=self._give_up)
        except SolveError:   # a clue set the search refuses (none expected): the counting engine decides
            found = None
        if found is None or found.status == "time_limit":
            if deadline is not None and time.perf_counter() >= deadline:
                raise OutOfTime("the time limit was reached")
            self.handed_on += 1
            return None
        self.answered += 1
        return found

    def exclude(self, solution: np.ndarray) -> int:
        """An id for "not ``solution``", as the inner engine's :meth:`exclude` returns a literal;
        the inner engine gets the clause only if it is asked a question under it."""
        self._last_id += 1
        self.excluded[self._last_id] = np.asarray(solution)
        return self._last_id

    def _inner_act(self, act: int) -> int:
        """The inner engine's literal for this engine's ``act`` (made on first use)."""
        if act not in self._inner_acts:
            self._inner_acts[act] = self.inner.exclude(self.excluded[act])
        return self._inner_acts[act]

    def retire(self, act: int) -> None:
        """Forget ``act``; the inner engine retires its literal, if it made one."""
        self.excluded.pop(act, None)
        inner_act = self._inner_acts.pop(act, None)
        if inner_act is not None:
            self.inner.retire(inner_act)

    def determines(self, clue_grid: np.ndarray, act: int, budget: int | None = None,
                   deadline: float | None = None) -> bool:
        """True when the clues admit no solution besides the one excluded under ``act``
        (the inner engine's :meth:`determines`, answered by the search when it can).

        Parameters
        ----------
        clue_grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        act : int
            What :meth:`exclude` returned for the solution to look past.
        budget : int, optional
            A conflict budget: the question goes to the inner engine as it is.
        deadline : float, optional
            A ``time.perf_counter()`` value; :class:`OutOfTime` when it passes first.
        """
        solution = self.excluded[act]
        found = None if budget is not None else self._search(clue_grid, 2, deadline)
        if found is None:
            inner_act = self._inner_act(act)
            answer = self._inner_call(lambda: self.inner.determines(clue_grid, inner_act, budget=budget,
                                                                    deadline=deadline))
            self.last_other = self.inner.last_other
            return answer
        self.last_other = _other(found.grids, solution)
        return self.last_other is None

    def another(self, clue_grid: np.ndarray, solution: np.ndarray) -> np.ndarray | None:
        """A solution of the clues of ``clue_grid`` other than ``solution``, or None (unique).

        Parameters
        ----------
        clue_grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        solution : numpy.ndarray
            ``(rows, cols)`` full grid, a known solution of the clues.
        """
        found = self._search(clue_grid, 2, None)
        if found is None:
            return self._inner_call(lambda: self.inner.another(clue_grid, solution))
        return _other(found.grids, solution)

    def count(self, grid: np.ndarray, limit: int, keep: bool = False, deadline: float | None = None):
        """Solutions of the clues of ``grid`` up to ``limit``; with ``keep`` ``(count, grids)``
        (the inner engine's :meth:`count`, answered by the search when it can).

        Parameters
        ----------
        grid : numpy.ndarray
            ``(rows, cols)`` clues (0 = empty).
        limit : int
            Stop at this many solutions.
        keep : bool
            Also return the solutions' grids.
        deadline : float, optional
            A ``time.perf_counter()`` value; :class:`OutOfTime` when it passes first.
        """
        found = self._search(grid, limit, deadline)
        if found is None:
            return self._inner_call(lambda: self.inner.count(grid, limit, keep=keep, deadline=deadline))
        return (found.count, list(found.grids)) if keep else found.count
