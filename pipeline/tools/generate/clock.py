"""A generate run's clock: its whole-run time budget (``--time-limit``) and its progress reports.

The steps of one puzzle (the full grid, each orbit of clue removal, each clue of the minimality
proof, each uniqueness call) ask the clock; once the deadline has passed it raises
:class:`OutOfTime`, which :func:`~pipeline.tools.generate.puzzles.generate` turns into the end of
its stream (the unfinished puzzle is dropped; the finished ones were already handed out).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FULL_GRID_STEP", "OutOfTime", "Report", "RunClock"]

#: How the progress reports name the search for a full grid (its attempts).
FULL_GRID_STEP = "full grid (attempts)"

#: ``report(index, step, done, total)``: puzzle ``index`` (0-based) is at ``done`` of ``total``
#: in ``step`` (e.g. ``"clue removal (orbits tried)"``).
Report = Callable[[int, str, int, int], None]


class OutOfTime(Exception):
    """The run's time budget ran out in the middle of a puzzle."""


@dataclass
class RunClock:
    """The deadline of a run (a ``time.perf_counter()`` value, or None) and where progress goes.

    Examples
    --------
    >>> clock = RunClock.start(None)
    >>> clock.step("clue removal (orbits tried)", 3, 81)   # no deadline, nobody listening
    >>> RunClock(deadline=0.0).check()
    Traceback (most recent call last):
    ...
    pipeline.tools.generate.clock.OutOfTime: the time limit was reached
    """

    deadline: float | None = None
    report: Report | None = None
    #: The puzzle being made (0-based), for the reports.
    index: int = 0
    #: Its try (1-based) of ``tries`` under ``--difficulty`` (0: one try, nothing to count).
    attempt: int = 0
    tries: int = 0
    #: The last report (label, done, total): :meth:`remind` repeats it.
    last: tuple[str, int, int] | None = None

    @classmethod
    def start(cls, time_limit: float | None, report: Report | None = None) -> RunClock:
        """A clock whose deadline is ``time_limit`` seconds from now (None: no deadline).

        Parameters
        ----------
        time_limit : float or None
            Seconds the run may take.
        report : Report, optional
            Called as ``report(puzzle index, step label, done, total)`` by :meth:`step`.
        """
        return cls(None if time_limit is None else time.perf_counter() + time_limit, report)

    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def check(self) -> None:
        """Raise :class:`OutOfTime` once the deadline has passed."""
        if self.expired():
            raise OutOfTime("the time limit was reached")

    def step(self, step: str, done: int, total: int) -> None:
        """Report ``done`` of ``total`` in ``step`` of the current puzzle (``try 3 of 200,
        <step>`` while tries are counted: a difficulty not reached starts the puzzle again, and
        the count starts again with it), then :meth:`check`.

        Parameters
        ----------
        step : str
            What the current puzzle is doing (``full grid``, ``removing clues``).
        done : int
            Units of the step done so far.
        total : int
            Units of the step in all.
        """
        if self.report is not None:
            label = f"try {self.attempt:,} of {self.tries:,}, {step}" if self.attempt else step
            self.last = (label, done, total)
            self.report(self.index, label, done, total)
        self.check()

    def remind(self) -> None:
        """Report the last step again (between the slices of a long search: the log lines go on
        while one proof runs for minutes); the deadline is the search's own to check."""
        if self.report is not None and self.last is not None:
            self.report(self.index, *self.last)
