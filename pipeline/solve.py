"""Solve and count with HiGHS: the public names of the HiGHS registry entry
(:mod:`pipeline.solvers.highs`), kept here for users of ``pipeline.solve``."""
from .solvers.base import CountResult, SolveResult
from .solvers.highs import (HIGHS_STATUS, SPLIT_AT, add_no_good_cut, count_solutions, highs_for, run_highs, solve,
                            without_presolve)

__all__ = ["CountResult", "SolveResult", "HIGHS_STATUS", "SPLIT_AT", "add_no_good_cut", "count_solutions",
           "highs_for", "run_highs", "solve", "without_presolve"]
