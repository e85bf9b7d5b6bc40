"""Solvers, registered by name (see :mod:`pipeline.solvers.base`).

Importing this package registers every built-in entry; optional engines register themselves
too and report through ``available()`` when their dependency is missing.
"""
from .base import SOLVERS, STATUSES, CountResult, Solver, SolveResult, get_solver, register_solver, solver_names

__all__ = ["SOLVERS", "STATUSES", "CountResult", "Solver", "SolveResult", "get_solver", "register_solver",
           "solver_names"]
from . import sat  # noqa: F401,E402  (H4: SAT engine)
from . import sat_external  # noqa: F401,E402  (H4: SAT/PB solvers on CNF/OPB files)
from . import cpsat  # noqa: F401,E402  (H4: OR-Tools CP-SAT)
