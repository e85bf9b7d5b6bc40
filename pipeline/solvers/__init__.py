"""Solvers, registered by name (see :mod:`pipeline.solvers.base`).

Importing this package registers every built-in entry; optional engines register themselves
too and report through ``available()`` when their dependency is missing.
"""
from pipeline.solvers.base import (SOLVERS, STATUSES, CountResult, Solver, SolveResult, batch_solver_names, get_solver,
                                   register_batch_kernel, register_solver, solver_names)

__all__ = ["SOLVERS", "STATUSES", "CountResult", "Solver", "SolveResult", "batch_solver_names", "get_solver",
           "register_batch_kernel", "register_solver", "solver_names"]
# isort: skip_file  (import order is the registry's order: the CLI lists solvers in it)
from pipeline.solvers import highs  # noqa: F401,E402  (HiGHS in process)
from pipeline.solvers import external  # noqa: F401,E402  (SCIP, CBC, GLPK, Octave on the exported MIP files)
from pipeline.solvers import sat  # noqa: F401,E402  (SAT engine in process)
from pipeline.solvers import sat_external  # noqa: F401,E402  (SAT/PB solvers on CNF/OPB files)
from pipeline.solvers import cpsat  # noqa: F401,E402  (OR-Tools CP-SAT)
from pipeline.solvers import dfs  # noqa: F401,E402  (depth-first search, numba-compiled: the fast extra)
from pipeline.solvers import pattern  # noqa: F401,E402  (constructive fill of few-clue classic grids)
from pipeline.solvers import dfsrules  # noqa: F401,E402  (dfs with the rule rows propagated: the fast extra)
from pipeline.solvers import auto  # noqa: F401,E402  (get_solver("auto"): picks per model; not in SOLVERS)
