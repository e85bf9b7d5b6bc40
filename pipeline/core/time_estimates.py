"""How long a step would take here: the measured CPU rates of building a model, the wall seconds
they take on this machine now (the load counted), an estimate in words, and the message of a step
not started because it would outlast the time left. Split from :mod:`pipeline.core.stops` (which
re-exports every name, as callers import them from there) to keep that module under the 800-line
limit: these are pure functions of the rates and the load, no signal handling or state.
"""
from __future__ import annotations

import os

__all__ = ["BUILD_CPU_SECONDS_PER_NONZERO", "RULE_BUILD_CPU_SECONDS_PER_NONZERO", "TOO_LONG_TO_START",
           "estimated_build_seconds", "estimated_seconds", "say_seconds", "too_long_to_start"]


#: CPU seconds per nonzero of ``A`` that :func:`pipeline.core.build.build_model` takes (with the
#: solver view): 23-63 ns measured for N = 36..100 and every clue encoding (empty 100x100, 4*10^6
#: nonzeros: 0.15-0.23 s of CPU), so 70 ns errs on the long side.
BUILD_CPU_SECONDS_PER_NONZERO = 70e-9
#: CPU seconds per estimated nonzero of the rows of rules over the whole grid (non-consecutive,
#: anti-knight, ...: :func:`pipeline.core.build.rule_nonzeros`) that building ``R`` and the solver
#: view's rows takes (measured below; the estimate errs on the long side).
RULE_BUILD_CPU_SECONDS_PER_NONZERO = 800e-9


#: What a message of :func:`too_long_to_start` says: callers tell it from an engine's other stops.
TOO_LONG_TO_START = "alone takes about"


def too_long_to_start(step: str, seconds: float, nonzeros: int) -> str:
    """Why a step was not started: ``{step} alone takes about {seconds} here: {nonzeros} nonzeros``.

    Parameters
    ----------
    step : str
        The step in words (``building the 100x100 model``).
    seconds : float
        Its estimate.
    nonzeros : int
        The model's nonzeros the estimate comes from.
    """
    return f"{step} {TOO_LONG_TO_START} {say_seconds(seconds)} here: {nonzeros:,} nonzeros"


def estimated_seconds(cpu_seconds: float) -> float:
    """Wall seconds that ``cpu_seconds`` of work take here now: times how many processes compete
    for each core (the 1-minute load average over the cores, at least 1).

    Parameters
    ----------
    cpu_seconds : float
        The work's CPU seconds on an idle core (a measured rate times its size).
    """
    try:
        crowd = max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (OSError, AttributeError):
        crowd = 1.0
    return cpu_seconds * crowd


def say_seconds(seconds: float) -> str:
    """An estimate in words: ``1.3 s``, or ``7 ms`` below a tenth of a second."""
    return f"{seconds:.1f} s" if seconds >= 0.1 else f"{max(seconds * 1000, 1):.0f} ms"


def estimated_build_seconds(nonzeros: int, rule_nonzeros: float = 0.0) -> float:
    """Wall seconds building a model of ``nonzeros`` nonzeros takes here: the measured CPU rates
    (:data:`BUILD_CPU_SECONDS_PER_NONZERO`, :data:`RULE_BUILD_CPU_SECONDS_PER_NONZERO`) through
    :func:`estimated_seconds`.

    Parameters
    ----------
    nonzeros : int
        Nonzeros of ``A`` (``4 N^3`` for the unit families of an N x N grid).
    rule_nonzeros : float
        Estimated nonzeros of the rows of rules over the whole grid.
    """
    return estimated_seconds(BUILD_CPU_SECONDS_PER_NONZERO * nonzeros + RULE_BUILD_CPU_SECONDS_PER_NONZERO * rule_nonzeros)
