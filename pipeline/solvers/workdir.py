"""What the engines that work on exported files share: the longest time limit a binary is given.

SCIP, CBC, GLPK, Octave and the SAT/PB binaries write the model into a work directory and run
there; the binaries run under Python's ``subprocess`` with a timeout of their limit plus some
grace.
"""
from __future__ import annotations

from pipeline.core.options import Bound, time_limit_bound

__all__ = ["BINARY_TIME_LIMIT_MAX", "binary_time_limit"]

#: The longest ``time_limit`` (seconds, about 23 days) an engine that runs a binary is given; a
#: longer one is clamped to it. Python waits for a subprocess at most 2**31 - 1 ms (24.8 days: a
#: longer ``timeout`` is an OverflowError), the runners add up to a minute of grace, and GLPK's
#: ``tmlim`` (Octave's ``solve_sudoku.m``) counts milliseconds in an int.
BINARY_TIME_LIMIT_MAX = 2_000_000.0


def binary_time_limit() -> Bound:
    """The ``time_limit`` bound of an engine that runs a binary: clamped to
    :data:`BINARY_TIME_LIMIT_MAX`.

    Returns
    -------
    Bound
    """
    return time_limit_bound(BINARY_TIME_LIMIT_MAX, "a subprocess is waited for at most 2**31 ms")
